"""UI helpers shared by every page: translation (i18n), URL-bound controls, charts and notices.

Importing the package, or any of its modules, starts nothing: app.py starts the process
(pages/ui/app_start.py, docs/architecture.md#start-up).
"""
