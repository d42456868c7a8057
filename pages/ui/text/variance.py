"""Variance page strings ("Why the dot product grows")."""
# ruff: noqa: E501  (prose: translation lines are as long as their sentences)

TEXT: dict[str, dict[str, str]] = {
    "variance.nav": {"en": "Why the dot product grows", "zh": "点积为什么会变大"},
    "variance.title": {"en": "Why the dot product grows with d_k", "zh": "点积为什么随 d_k 变大"},
    "variance.title.fixed": {"en": "The spread of the dot product and d_k", "zh": "点积的离散程度与 d_k"},
    "variance.rule.unit": {
        "en": "**The rule:** multiplying a random quantity by c multiplies its variance by c², Var(c·X) = c²·Var(X). The score q·k has variance d_k, so c = 1/√d_k gives d_k/d_k = 1 at every d_k, while c = 1/d_k gives d_k/d_k² = 1/d_k, which shrinks as d_k grows.",
        "zh": "**规则**：把一个随机量乘以 c，它的方差就乘以 c²，即 Var(c·X) = c²·Var(X)。分数 q·k 的方差是 d_k，所以 c = 1/√d_k 给出 d_k/d_k = 1，任何 d_k 下都一样；而 c = 1/d_k 给出 d_k/d_k² = 1/d_k，随 d_k 增大而变小。",
    },
    "variance.rule.correlated": {
        "en": "**The rule:** multiplying a random quantity by c multiplies its variance by c², Var(c·X) = c²·Var(X). With q and k correlated (ρ = {rho}) the score q·k has variance d_k·(1 + ρ²(κ − 2)) = {factor}·d_k, so c = 1/√d_k gives {factor} at every d_k, while c = 1/d_k gives {factor}/d_k, which shrinks as d_k grows.",
        "zh": "**规则**：把一个随机量乘以 c，它的方差就乘以 c²，即 Var(c·X) = c²·Var(X)。q 与 k 相关（ρ = {rho}）时，分数 q·k 的方差为 d_k·(1 + ρ²(κ − 2)) = {factor}·d_k，所以 c = 1/√d_k 在任何 d_k 下都给出 {factor}；而 c = 1/d_k 给出 {factor}/d_k，随 d_k 增大而变小。",
    },
    "variance.rule.fixed": {
        "en": "**The rule:** multiplying a random quantity by c multiplies its variance by c², Var(c·X) = c²·Var(X). With ρ = 1 and Rademacher components k = q, so q·k = d_k exactly: its variance is 0, and every c leaves it 0.",
        "zh": "**规则**：把一个随机量乘以 c，它的方差就乘以 c²，即 Var(c·X) = c²·Var(X)。ρ = 1 且分量为 Rademacher 时 k = q，q·k 恰好等于 d_k：方差为 0，乘以任何 c 仍为 0。",
    },
    "variance.numbers": {
        "en": "At d_k = {dk}: Var(q·k) measured {var_raw} (theory {theory}); × (1/√d_k)² gives {sqrt}, × (1/d_k)² gives {linear}.",
        "zh": "d_k = {dk} 时：Var(q·k) 实测 {var_raw}（理论值 {theory}）；乘以 (1/√d_k)² 得 {sqrt}，乘以 (1/d_k)² 得 {linear}。",
    },
    "variance.agree": {
        "en": "The measured value is {z} standard errors from theory: sampling noise.",
        "zh": "实测值与理论值相差 {z} 个标准误：属于抽样噪声。",
    },
    "variance.differ": {
        "en": "The measured value is {z} standard errors from theory, more than sampling noise usually gives (beyond 3 standard errors about 3 times in 1000).",
        "zh": "实测值与理论值相差 {z} 个标准误，超出抽样噪声通常的范围（超过 3 个标准误的概率约为千分之三）。",
    },
    "variance.why": {
        "en": "Why Var(q·k) = d_k: q·k = q₁k₁ + q₂k₂ + … is a sum of d_k products, one per component. With independent components of mean 0 and variance 1, each product has mean 0 and variance 1, and the variances of independent terms add up.",
        "zh": "为什么 Var(q·k) = d_k：q·k = q₁k₁ + q₂k₂ + … 是 d_k 个乘积之和，每个分量一个。若各分量相互独立、均值为 0、方差为 1，则每个乘积的均值为 0、方差为 1，而独立项的方差可以相加。",
    },
    "variance.symbols": {
        "en": "Symbols: q and k are a query and a key, each a list of d_k numbers (its components); q·k is their dot product, the score. c is the factor the score is multiplied by. Var is the variance (the mean squared distance from the mean), E[·] the mean, and ρ the correlation between q and k (0: independent, 1: k = q). Rademacher components are ±1 with equal chance. A standard error is how far a measured value typically lands from the true one, from sampling alone.",
        "zh": "符号：q 与 k 是查询与键，各含 d_k 个数（分量）；q·k 是它们的点积，即分数。c 是分数所乘的因子。Var 是方差（与均值之差平方的平均），E[·] 是均值，ρ 是 q 与 k 的相关系数（0：相互独立，1：k = q）。Rademacher 分量以相同概率取 ±1。标准误是仅因抽样而使实测值偏离真实值的典型幅度。",
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
        "en": "Points: measured, with a 95 % confidence band. Dashed: the rule's theory c²·d_k·(1 + ρ²(κ − 2)), where κ is the kurtosis of a component (see More).",
        "zh": "点：实测值，阴影为 95% 置信带。虚线：规则给出的理论值 c²·d_k·(1 + ρ²(κ − 2))，κ 是分量的峰度（见“更多”）。",
    },
    "variance.sweep.reference": {"en": "{scale} (for comparison)", "zh": "{scale}（作对比）"},
    "variance.sweep.reference_note": {
        "en": "The 1/d_k line is drawn for comparison even though 1/d_k is not among the scales chosen in the sidebar; its numbers are not in the cards above.",
        "zh": "1/d_k 的线仅作对比，虽然侧边栏所选的缩放方式中没有它；上方的指标卡不含它的数值。",
    },
    "variance.linear": {"en": "Draw c = 1/d_k for comparison", "zh": "画出 c = 1/d_k 作对比"},
    "variance.linear_help": {
        "en": "Var(c·q·k) with c = 1/d_k is 1/d_k: it falls as d_k grows, where 1/√d_k stays flat.",
        "zh": "c = 1/d_k 时 Var(c·q·k) = 1/d_k：随 d_k 增大而下降，而 1/√d_k 保持不变。",
    },
    "variance.more": {
        "en": "More: κ, how the samples are drawn (χ², Binomial), the confidence band, and why μP uses 1/d",
        "zh": "更多：κ、样本的抽取方式（χ²、二项分布）、置信带，以及 μP 为什么用 1/d",
    },
    "variance.more.kappa": {
        "en": "κ = E[x⁴] is the kurtosis of one component: how heavy its tails are (3 for normal, 1.8 for uniform, 1 for Rademacher ±1). It enters Var(q·k) = d_k·(1 + ρ²(κ − 2)) only when ρ > 0, because then q_i k_i contains ρ·q_i².",
        "zh": "κ = E[x⁴] 是单个分量的峰度：衡量尾部有多重（正态为 3，均匀为 1.8，Rademacher ±1 为 1）。只有 ρ > 0 时它才进入 Var(q·k) = d_k·(1 + ρ²(κ − 2))，因为此时 q_i k_i 含有 ρ·q_i²。",
    },
    "variance.more.sampling": {
        "en": "How the samples are drawn: with normal components each sample is q·k = ρ‖q‖² + √(1 − ρ²)·‖q‖·z, where ‖q‖² ~ χ²(d_k) (chi-squared with d_k degrees of freedom: the distribution of a sum of d_k squared standard normal numbers) and z ~ N(0, 1), a standard normal. That is exactly the distribution of the sum of d_k products, at two random draws a sample. Rademacher components need one (‖q‖² = d_k; with ρ = 0, q·k = 2·Binomial(d_k, ½) − d_k, where Binomial(d_k, ½) counts the heads in d_k fair coin flips); uniform ones are drawn component by component.",
        "zh": "样本的抽取方式：分量为正态分布时，每个样本按 q·k = ρ‖q‖² + √(1 − ρ²)·‖q‖·z 抽取，其中 ‖q‖² ~ χ²(d_k)（自由度为 d_k 的卡方分布：d_k 个标准正态数平方和的分布），z ~ N(0, 1) 为标准正态。这与 d_k 个乘积之和的分布完全相同，每个样本只需两次随机抽样。Rademacher 分量只需一次（‖q‖² = d_k；ρ = 0 时 q·k = 2·Binomial(d_k, ½) − d_k，其中二项分布 Binomial(d_k, ½) 是掷 d_k 次均匀硬币得到正面的次数）；均匀分布逐个分量抽样。",
    },
    "variance.more.band": {
        "en": "The band: measured variance ± 1.96 standard errors, a 95 % confidence interval. For N samples with sample variance s² and fourth central moment m₄, the standard error of s² is √((m₄ − s⁴)/N).",
        "zh": "置信带：实测方差 ± 1.96 个标准误，即 95% 置信区间。N 个样本的样本方差为 s²、四阶中心矩为 m₄ 时，s² 的标准误为 √((m₄ − s⁴)/N)。",
    },
    "variance.more.mup": {
        "en": "μP (the maximal update parametrisation, Tensor Programs V, arXiv:2203.03466) is a rule for scaling a network's initialisation and learning rates with its width so that training behaves the same at every width. It uses c = 1/d for attention: during training q and k become correlated, and then the mean ρ·d_k, not the spread √d_k, sets the size of the scores.",
        "zh": "μP（最大更新参数化，Tensor Programs V，arXiv:2203.03466）是一套随网络宽度缩放初始化和学习率的规则，使训练在任何宽度下表现一致。它在注意力中使用 c = 1/d：训练过程中 q 与 k 变得相关，此时决定分数大小的是均值 ρ·d_k，而不是标准差 √d_k。",
    },
    "variance.mean.title": {"en": "Mean of the scores vs d_k (ρ = {rho})", "zh": "分数均值随 d_k 的变化（ρ = {rho}）"},
    "variance.mean.y": {"en": "E[c·q·k]", "zh": "E[c·q·k]"},
    "variance.mean.caption": {
        "en": "With correlated q and k the mean ρ·d_k outgrows the spread √d_k: only c = 1/d_k keeps "
              "the mean of the scores of order one (why μP uses 1/d: see More).",
        "zh": "q 与 k 相关时，均值 ρ·d_k 的增长快过标准差 √d_k：只有 c = 1/d_k 能让分数的均值保持在 1 的量级"
              "（μP 为什么用 1/d：见“更多”）。",
    },
    "variance.mean.zero": {
        "en": "At ρ = 0 the mean of q·k is 0 at every d_k. Raise ρ to see the mean grow like ρ·d_k.",
        "zh": "ρ = 0 时任何 d_k 下 q·k 的均值都是 0。调大 ρ，可以看到均值按 ρ·d_k 增长。",
    },
    "variance.theory": {"en": "theory", "zh": "理论"},
    "variance.measured": {"en": "measured", "zh": "实测"},
    "variance.notice.slopes": {
        "en": "On the log–log chart a line's slope is the power of d_k it follows, and the rule Var(c·q·k) = c²·d_k predicts it: {items}.",
        "zh": "在双对数坐标中，直线的斜率就是它所遵循的 d_k 的幂次，规则 Var(c·q·k) = c²·d_k 可以预言它：{items}。",
    },
    "variance.notice.sep": {"en": "; ", "zh": "；"},
    "variance.notice.slope.matches": {"en": "{scale} slope {slope} (rule: {theory})", "zh": "{scale} 斜率 {slope}（规则：{theory}）"},
    "variance.notice.slope.off": {"en": "{scale} slope {slope}, off the rule's {theory}", "zh": "{scale} 斜率 {slope}，偏离规则的 {theory}"},
    "variance.notice.stays": {
        "en": "The 1/√d_k points stay within noise of {theory} at every d_k from {dk_lo} to {dk_hi} (measured {lo} to {hi}).",
        "zh": "从 d_k = {dk_lo} 到 {dk_hi}，1/√d_k 的点在噪声范围内都保持在 {theory}（实测 {lo} 到 {hi}）。",
    },
    "variance.notice.range": {
        "en": "The 1/√d_k points range from {lo} to {hi} around the rule's {theory}, more than their noise explains at some d_k.",
        "zh": "1/√d_k 的点分布在 {lo} 到 {hi} 之间，围绕规则的 {theory}，在某些 d_k 处偏差超出噪声能解释的范围。",
    },
    "variance.notice.shape_free": {
        "en": "At ρ = 0 only the components' variance matters, not their distribution: switch between normal, uniform and Rademacher above and Var(q·k) stays d_k.",
        "zh": "ρ = 0 时起作用的只是分量的方差，而不是它们的分布：在上方切换正态、均匀和 Rademacher，Var(q·k) 都保持为 d_k。",
    },
    "variance.notice.shape_matters": {
        "en": "At ρ = {rho} the distribution matters through κ: Var(q·k) = d_k·(1 + ρ²(κ − 2)) = {factor}·d_k, with κ = {kappa} here.",
        "zh": "ρ = {rho} 时分布通过 κ 起作用：Var(q·k) = d_k·(1 + ρ²(κ − 2)) = {factor}·d_k，这里 κ = {kappa}。",
    },
}
