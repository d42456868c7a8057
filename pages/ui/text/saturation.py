"""Saturation page strings."""

TEXT: dict[str, dict[str, str]] = {
    "saturation.nav": {"en": "Softmax saturation", "zh": "softmax 饱和"},
}
