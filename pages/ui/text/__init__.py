"""Translation modules: each defines TEXT = {key: {"en": ..., "zh": ...}}; keys prefixed by topic.

Every module in this package is merged by pages.ui.i18n (auto-discovered); duplicate keys fail loudly.
"""
