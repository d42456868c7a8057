"""Why modern models bound the logits, measured in miniature (docs/science.md, "Why modern models bound
the logits").

- `core.stability.model`: a two-layer pre-LN transformer on associative recall, its variants
  (÷√d_k, QK-layernorm, soft-cap, z-loss) and the quantities logged at every step;
- `core.stability.train`: many runs of one variant trained at once, one learning rate each;
- `core.stability.sweep`: final loss against learning rate per variant, the learning-rate
  sensitivity, the collapse of one high-learning-rate run, and the question "which run diverges
  first?";
- `core.stability.length`: softmax against Scalable-Softmax (s·ln n) as the number of keys grows.
"""
