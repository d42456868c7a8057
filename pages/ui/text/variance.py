"""Variance page strings ("Why the dot product grows")."""
# ruff: noqa: E501  (prose: translation lines are as long as their sentences)

TEXT: dict[str, dict[str, str]] = {
    "variance.nav": {"en": "Why the dot product grows", "zh": "点积为什么会变大"},
    "variance.title": {"en": "Why the dot product grows with d_k", "zh": "点积为什么随 d_k 变大"},
    "variance.claim": {
        "en": "q·k is a sum of d_k products q_i k_i. With independent components of mean 0 and "
              "variance 1, each product has variance 1, so the variances add up: Var(q·k) = d_k. "
              "Multiplying by c = 1/√d_k brings the variance back to 1 at every d_k.",
        "zh": "q·k 是 d_k 个乘积 q_i k_i 之和。若各分量相互独立、均值为 0、方差为 1，则每个乘积的方差为 1，"
              "方差相加得 Var(q·k) = d_k。乘以 c = 1/√d_k 后，任何 d_k 下方差都回到 1。",
    },
    "variance.rho": {"en": "Correlation ρ between q and k", "zh": "q 与 k 的相关系数 ρ"},
    "variance.rho_help": {
        "en": "k = ρ·q + √(1 − ρ²)·z. Trained models correlate queries and keys; ρ > 0 makes the mean "
              "of q·k grow like ρ·d_k.",
        "zh": "k = ρ·q + √(1 − ρ²)·z。训练后的模型中查询与键是相关的；ρ > 0 时 q·k 的均值按 ρ·d_k 增长。",
    },
    "variance.dist": {"en": "Distribution of the components", "zh": "分量的分布"},
    "variance.dist.normal": {"en": "normal", "zh": "正态"},
    "variance.dist.uniform": {"en": "uniform", "zh": "均匀"},
    "variance.dist.rademacher": {"en": "Rademacher ±1", "zh": "Rademacher ±1"},
    "variance.metric.var_raw": {"en": "Var(q·k) measured", "zh": "Var(q·k) 实测"},
    "variance.metric.theory": {"en": "Var(q·k) theory", "zh": "Var(q·k) 理论值"},
    "variance.metric.var_scaled": {"en": "Var(c·q·k), {scale}", "zh": "Var(c·q·k)，{scale}"},
    "variance.metric.samples": {"en": "samples per d_k", "zh": "每个 d_k 的样本数"},
    "variance.hist.title": {"en": "Scores at d_k = {dk}: raw q·k and scaled c·q·k ({scale})",
                            "zh": "d_k = {dk} 时的分数：原始 q·k 与缩放后的 c·q·k（{scale}）"},
    "variance.hist.raw": {"en": "raw score q·k", "zh": "原始分数 q·k"},
    "variance.hist.scaled": {"en": "scaled score c·q·k", "zh": "缩放分数 c·q·k"},
    "variance.hist.density": {"en": "probability density", "zh": "概率密度"},
    "variance.hist.theory": {"en": "normal approximation (theory)", "zh": "正态近似（理论）"},
    "variance.hist.caption": {
        "en": "Bars: {samples} samples. Black curve: the normal with the theoretical mean and variance "
              "(central limit theorem; close once d_k is more than a few).",
        "zh": "柱：{samples} 个样本。黑色曲线：具有理论均值与方差的正态分布（中心极限定理；d_k 稍大时就很接近）。",
    },
    "variance.sweep.title": {"en": "Variance of the scores vs d_k (log–log)", "zh": "分数方差随 d_k 的变化（双对数）"},
    "variance.sweep.y": {"en": "Var(c·q·k)", "zh": "Var(c·q·k)"},
    "variance.sweep.caption": {
        "en": "Points: measured, with a 95 % confidence band (±1.96 standard errors). Dashed: theory "
              "c²·d_k·(1 + ρ²(κ − 2)), κ = E[x⁴] of the distribution. With normal components each "
              "sample is drawn as q·k = ρ‖q‖² + √(1 − ρ²)·‖q‖·z with ‖q‖² ~ χ²(d_k) and z ~ N(0, 1): "
              "exactly the distribution of the sum of d_k products, at two draws a sample. Rademacher "
              "components need one (‖q‖² = d_k; with ρ = 0, q·k = 2·Binomial(d_k, ½) − d_k); uniform "
              "ones are drawn component by component.",
        "zh": "点：实测值，阴影为 95% 置信带（±1.96 个标准误）。虚线：理论值 c²·d_k·(1 + ρ²(κ − 2))，κ = E[x⁴]。"
              "分量为正态分布时，每个样本按 q·k = ρ‖q‖² + √(1 − ρ²)·‖q‖·z 抽取，其中 ‖q‖² ~ χ²(d_k)、"
              "z ~ N(0, 1)：与 d_k 个乘积之和的分布完全相同，每个样本只需两次抽样。Rademacher 分量只需一次"
              "（‖q‖² = d_k；ρ = 0 时 q·k = 2·Binomial(d_k, ½) − d_k）；均匀分布逐个分量抽样。",
    },
    "variance.mean.title": {"en": "Mean of the scores vs d_k (ρ = {rho})", "zh": "分数均值随 d_k 的变化（ρ = {rho}）"},
    "variance.mean.y": {"en": "E[c·q·k]", "zh": "E[c·q·k]"},
    "variance.mean.caption": {
        "en": "With correlated q and k the mean ρ·d_k dominates the spread √d_k: only c = 1/d_k keeps "
              "the scores of order one. This is why μP (Tensor Programs V, arXiv:2203.03466) uses 1/d.",
        "zh": "q 与 k 相关时，均值 ρ·d_k 远大于标准差 √d_k：只有 c = 1/d_k 能让分数保持在 1 的量级。"
              "这就是 μP（Tensor Programs V，arXiv:2203.03466）使用 1/d 的原因。",
    },
    "variance.mean.zero": {
        "en": "At ρ = 0 the mean of q·k is 0 at every d_k. Raise ρ to see the mean grow like ρ·d_k.",
        "zh": "ρ = 0 时任何 d_k 下 q·k 的均值都是 0。调大 ρ，可以看到均值按 ρ·d_k 增长。",
    },
    "variance.theory": {"en": "theory", "zh": "理论"},
    "variance.measured": {"en": "measured", "zh": "实测"},
    "variance.notice": {
        "en": "The unscaled line climbs one decade per decade of d_k (slope 1 on log–log); the 1/√d_k "
              "line is flat at 1 and 1/d_k falls like 1/d_k. Uniform and Rademacher components give the "
              "same variance at ρ = 0: only the variance of the components matters, not their shape.",
        "zh": "不缩放的直线在双对数坐标上斜率为 1：d_k 增大十倍，方差也增大十倍；1/√d_k 的直线平稳地停在 1，"
              "1/d_k 则按 1/d_k 下降。ρ = 0 时均匀分布和 Rademacher 分布给出同样的方差：起作用的只是分量的方差，"
              "而不是分布的形状。",
    },
}
