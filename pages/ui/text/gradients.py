"""Gradients page strings ("Gradient collapse")."""
# ruff: noqa: E501  (prose: translation lines are as long as their sentences)

TEXT: dict[str, dict[str, str]] = {
    "gradients.nav": {"en": "Gradient collapse", "zh": "梯度崩塌"},
    "gradients.title": {"en": "A saturated softmax passes back almost no gradient", "zh": "饱和的 softmax 几乎传不回梯度"},
    "gradients.claim": {
        "en": "The gradient reaching the query goes through the softmax Jacobian J = diag(p) − p pᵀ. "
              "When p is nearly one-hot, every entry of J is nearly 0, so ∂L/∂q vanishes and the "
              "query and key projections stop learning. (Uniform p also weakens it: ‖J‖₂ = 1/n there.)",
        "zh": "传到查询的梯度要经过 softmax 的雅可比矩阵 J = diag(p) − p pᵀ。p 接近 one-hot 时，J 的每个元素都接近 0，"
              "∂L/∂q 随之消失，查询和键的投影矩阵就学不动了。（p 完全均匀时梯度也会变弱：此时 ‖J‖₂ = 1/n。）",
    },
    "gradients.scale": {"en": "Scale for the single row and the autograd check", "zh": "单行与自动求导核对所用的缩放"},
    "gradients.metric.median": {"en": "median ‖∂L/∂q‖", "zh": "‖∂L/∂q‖ 中位数"},
    "gradients.metric.mean": {"en": "mean ‖∂L/∂q‖", "zh": "‖∂L/∂q‖ 均值"},
    "gradients.metric.jnorm": {"en": "median ‖J‖₂", "zh": "‖J‖₂ 中位数"},
    "gradients.metrics_caption": {
        "en": "At d_k = {dk}, n = {n}, over {trials} trials (one query, n keys, upstream g ~ N(0, I)); the curves "
              "use the same draws at every d_k, so their shape is not sampling noise.",
        "zh": "d_k = {dk}、n = {n} 时，基于 {trials} 次试验（一个查询、n 个键、上游梯度 g ~ N(0, I)）；"
              "曲线在每个 d_k 使用同一组抽样，其形状不是抽样噪声。",
    },
    "gradients.jac.title": {"en": "Softmax Jacobian J of query 0 ({scale})", "zh": "查询 0 的 softmax 雅可比矩阵 J（{scale}）"},
    "gradients.jac.row": {"en": "output weight p_i", "zh": "输出权重 p_i"},
    "gradients.jac.col": {"en": "input score s_j", "zh": "输入分数 s_j"},
    "gradients.jac.value": {"en": "J_ij = ∂p_i/∂s_j", "zh": "J_ij = ∂p_i/∂s_j"},
    "gradients.jac.caption": {
        "en": "‖J‖₂ = {norm} for this row (at most 1/2; 1/n = {inv_n} for uniform weights; max weight here {maxw}).",
        "zh": "这一行的 ‖J‖₂ = {norm}（最大为 1/2；均匀权重时为 1/n = {inv_n}；此行最大权重 {maxw}）。",
    },
    "gradients.jac.downsampled": {
        "en": "n = {n} is more than 64: each cell shows the mean of a {f} × {f} block.",
        "zh": "n = {n} 大于 64：每个格子显示 {f} × {f} 块的平均值。",
    },
    "gradients.norm.title": {"en": "‖∂L/∂q‖₂ vs d_k: median (solid) and mean (dashed)", "zh": "‖∂L/∂q‖₂ 随 d_k 的变化：中位数（实线）与均值（虚线）"},
    "gradients.norm.y": {"en": "‖∂L/∂q‖₂", "zh": "‖∂L/∂q‖₂"},
    "gradients.stat": {"en": "statistic", "zh": "统计量"},
    "gradients.stat.median": {"en": "median", "zh": "中位数"},
    "gradients.stat.mean": {"en": "mean", "zh": "均值"},
    "gradients.gap": {
        "en": "Why the mean and the median part ways: without scaling most draws are saturated and give a "
              "gradient near 0, but a rare draw where the top two keys nearly tie gives a large one. The mean "
              "is carried by those rare draws and stays high; the median shows the typical draw, which collapses "
              "faster than any power of d_k.",
        "zh": "为什么均值和中位数会分道扬镳：不缩放时，大多数抽样都已饱和，梯度接近 0；但偶尔前两个键几乎打平，"
              "梯度就很大。均值被这些少见的抽样撑着，保持在高位；中位数反映典型情况，它比 d_k 的任何幂次都下降得更快。",
    },
    "gradients.jnorm.title": {"en": "Median ‖J‖₂ vs d_k", "zh": "‖J‖₂ 中位数随 d_k 的变化"},
    "gradients.jnorm.y": {"en": "median ‖J‖₂", "zh": "‖J‖₂ 中位数"},
    "gradients.check.header": {"en": "Check our ∂L/∂q against torch autograd", "zh": "用 torch 自动求导核对我们的 ∂L/∂q"},
    "gradients.check.intro": {
        "en": "Same q, K and g, float64: our ∂L/∂q = c·Kᵀ(J g) against torch.autograd on L = g·softmax(c·K q).",
        "zh": "同样的 q、K、g，float64：我们的 ∂L/∂q = c·Kᵀ(J g) 与 torch.autograd 对 L = g·softmax(c·K q) 的求导结果对比。",
    },
    "gradients.check.abs": {"en": "max |analytic − autograd|", "zh": "max |解析 − 自动求导|"},
    "gradients.check.rel": {"en": "relative difference", "zh": "相对差"},
    "gradients.check.norm": {"en": "‖∂L/∂q‖ (analytic)", "zh": "‖∂L/∂q‖（解析）"},
    "gradients.check.ok": {"en": "They agree within float64 rounding: every |difference| ≤ {tol}.",
                           "zh": "两者在 float64 舍入误差范围内一致：每个分量的 |差| ≤ {tol}。"},
    "gradients.check.bad": {"en": "They differ more than rounding allows.", "zh": "两者的差异超出舍入误差。"},
    "gradients.check.zero": {
        "en": "The gradient is exactly zero in float64 here: the softmax is saturated beyond double precision.",
        "zh": "此处梯度在 float64 中恰好为零：softmax 的饱和程度已超出双精度的表示范围。",
    },
    "gradients.check.component": {"en": "component", "zh": "分量"},
    "gradients.check.analytic": {"en": "analytic", "zh": "解析"},
    "gradients.check.autograd": {"en": "torch autograd", "zh": "torch 自动求导"},
    "gradients.notice": {
        "en": "Unscaled, once the softmax saturates (past a peak at small d_k) the median gradient falls by orders of magnitude while the mean barely moves; "
              "with 1/√d_k both stay flat. ‖J‖₂ tells the same story without g: it is bounded by 2(1 − max p), "
              "so a saturated row has a tiny Jacobian.",
        "zh": "不缩放时，softmax 一旦饱和（越过小 d_k 处的峰值），梯度中位数就下降好几个数量级，而均值几乎不动；除以 √d_k 后两者都保持平稳。"
              "‖J‖₂ 不依赖 g 也说明了同样的事：它不超过 2(1 − max p)，所以饱和行的雅可比矩阵非常小。",
    },
}
