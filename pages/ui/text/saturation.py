"""Saturation page strings ("Softmax saturation")."""
# ruff: noqa: E501  (prose: translation lines are as long as their sentences)

TEXT: dict[str, dict[str, str]] = {
    "saturation.nav": {"en": "Softmax saturation", "zh": "softmax 饱和"},
    "saturation.title": {"en": "Large scores saturate the softmax", "zh": "分数过大会让 softmax 饱和"},
    "saturation.claim": {
        "en": "The softmax turns a row of scores into weights that sum to one. When the scores spread "
              "far apart (standard deviation √d_k without scaling), the largest one wins almost all the "
              "weight: the row becomes nearly one-hot, its entropy drops toward 0 and only one key is used.",
        "zh": "softmax 把一行分数变成和为 1 的权重。分数拉得很开时（不缩放时标准差为 √d_k），最大的分数几乎拿走全部权重："
              "这一行接近 one-hot，熵趋近 0，实际上只用到一个键。",
    },
    "saturation.scale": {"en": "Scale for the single draw and the (n, d_k) map", "zh": "单次抽样与 (n, d_k) 热图所用的缩放"},
    "saturation.query": {"en": "Query row i shown as bars", "zh": "以柱状图显示的查询行 i"},
    "saturation.metric.max_weight": {"en": "mean max weight", "zh": "平均最大权重"},
    "saturation.metric.entropy": {"en": "mean entropy (nats)", "zh": "平均熵（奈特）"},
    "saturation.metric.effective": {"en": "mean effective keys e^H", "zh": "平均有效键数 e^H"},
    "saturation.metric.saturated": {"en": "saturated rows (max > 0.99)", "zh": "饱和行比例（最大权重 > 0.99）"},
    "saturation.metrics_caption": {
        "en": "Means over {rows} rows ({trials} trials × n = {n}) at d_k = {dk}. Uniform attention: entropy ln n = {ln_n}, effective keys n.",
        "zh": "d_k = {dk} 时对 {rows} 行（{trials} 次试验 × n = {n}）求平均。均匀注意力：熵 ln n = {ln_n}，有效键数为 n。",
    },
    "saturation.heat.title": {"en": "Attention weights p_ij of one draw ({scale})", "zh": "单次抽样的注意力权重 p_ij（{scale}）"},
    "saturation.heat.query": {"en": "query i", "zh": "查询 i"},
    "saturation.heat.key": {"en": "key j", "zh": "键 j"},
    "saturation.heat.weight": {"en": "weight p_ij", "zh": "权重 p_ij"},
    "saturation.heat.downsampled": {
        "en": "n = {n} is more than 128: each cell shows the mean weight of a block of {f} × {f} entries (down-sampled view).",
        "zh": "n = {n} 大于 128：每个格子显示 {f} × {f} 个元素的平均权重（降采样视图）。",
    },
    "saturation.bars.title": {"en": "Weights of query i = {i}", "zh": "查询 i = {i} 的权重"},
    "saturation.bars.caption": {
        "en": "This row: max weight {maxw}, entropy {h} nats, effective keys {eff}. In this draw {sat} of {n} rows are saturated.",
        "zh": "这一行：最大权重 {maxw}，熵 {h} 奈特，有效键数 {eff}。本次抽样中 {n} 行里有 {sat} 行饱和。",
    },
    "saturation.curves": {"en": "Each metric vs d_k", "zh": "各指标随 d_k 的变化"},
    "saturation.more": {"en": "More: effective keys and saturated rows vs d_k, mean entropy over (n, d_k)",
                        "zh": "更多：有效键数与饱和行比例随 d_k 的变化，(n, d_k) 上的平均熵"},
    "saturation.axis.max_weight": {"en": "mean max weight", "zh": "平均最大权重"},
    "saturation.axis.entropy": {"en": "mean entropy H (nats)", "zh": "平均熵 H（奈特）"},
    "saturation.axis.effective": {"en": "mean effective keys e^H", "zh": "平均有效键数 e^H"},
    "saturation.axis.saturated": {"en": "fraction of saturated rows", "zh": "饱和行比例"},
    "saturation.grid.title": {"en": "Mean entropy over (n, d_k), {scale}", "zh": "(n, d_k) 上的平均熵，{scale}"},
    "saturation.grid.entropy": {"en": "mean entropy (nats)", "zh": "平均熵（奈特）"},
    "saturation.grid.se": {"en": "standard error", "zh": "标准误"},
    "saturation.grid.fraction": {"en": "entropy / ln n", "zh": "熵 / ln n"},
    "saturation.grid.caption": {
        "en": "Each cell: mean entropy of the rows of softmax(c·Q Kᵀ) for that n and d_k; the most uniform possible is ln n. Without scaling the entropy collapses as d_k grows at every n; with 1/√d_k it depends on n only. The same random draws serve every cell (a smaller n is a corner of a larger draw, a larger d_k extends the same vectors), so neighbouring cells differ by the effect of n and d_k, not by fresh noise; the tooltip gives each cell's standard error.",
        "zh": "每个格子：该 n 与 d_k 下 softmax(c·Q Kᵀ) 各行的平均熵；最均匀时为 ln n。不缩放时，任何 n 下熵都随 d_k 增大而坍缩；除以 √d_k 后熵只与 n 有关。所有格子共用同一组随机抽样（较小的 n 取较大抽样的一角，较大的 d_k 延伸同一组向量），因此相邻格子的差别来自 n 与 d_k 的作用，而不是新的随机噪声；悬停提示给出每个格子的标准误。",
    },
    "saturation.notice": {
        "en": "Without scaling the heatmap turns into isolated bright cells as d_k grows: each query looks at one key. With 1/√d_k the weights stay spread and the entropy stays near the same value at every d_k. Scaling fixes the dimension effect, not the length effect: at fixed d_k, entropy still changes with n.",
        "zh": "不缩放时，随着 d_k 增大，热图变成零星的亮格：每个查询只看一个键。除以 √d_k 后权重保持分散，任何 d_k 下熵都基本不变。"
              "缩放解决的是维度带来的问题，而不是长度带来的问题：d_k 固定时，熵仍随 n 变化。",
    },
}
