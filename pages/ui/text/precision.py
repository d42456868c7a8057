"""Precision page strings."""

TEXT: dict[str, dict[str, str]] = {
    "precision.nav": {"en": "Precision", "zh": "数值精度"},
}
