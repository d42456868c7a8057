"""Variance page strings."""

TEXT: dict[str, dict[str, str]] = {
    "variance.nav": {"en": "Why the dot product grows", "zh": "点积为什么会变大"},
}
