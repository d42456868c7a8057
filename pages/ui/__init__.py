"""UI helpers shared by every page: translation (i18n), URL-bound controls, charts and notices."""
