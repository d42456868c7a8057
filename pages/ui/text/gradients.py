"""Gradients page strings."""

TEXT: dict[str, dict[str, str]] = {
    "gradients.nav": {"en": "Gradient collapse", "zh": "梯度崩塌"},
}
