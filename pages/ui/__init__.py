"""UI helpers shared by every page: translation (i18n), URL-bound controls, charts and notices.

Importing the package first passes the app's `redis_url` secret to the server layer (store_url),
before any page module imports server.shared, which picks its store once.
"""

from pages.ui.store_url import export_store_url

export_store_url()
