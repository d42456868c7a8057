"""Saturation page strings ("Softmax saturation")."""
# ruff: noqa: E501  (prose: translation lines are as long as their sentences)

TEXT: dict[str, dict[str, str]] = {
    "saturation.nav": {"en": "Softmax saturation", "zh": "softmax 饱和"},
    "saturation.title": {"en": "Large scores saturate the softmax", "zh": "分数过大会让 softmax 饱和"},
    "saturation.title.unseen": {"en": "How peaked does the softmax get?", "zh": "softmax 会变得多尖锐？"},
    "saturation.intro": {
        "en": "The softmax turns a row of scores into weights p_ij that sum to one; the further apart the scores, the more of the weight the largest one takes.",
        "zh": "softmax 把一行分数变成和为 1 的权重 p_ij；分数拉得越开，最大的分数拿走的权重越多。",
    },
    "saturation.claim.all": {
        "en": "Without scaling the scores spread with standard deviation √d_k = {sd}, and one key takes nearly all the weight: at d_k = {dk} and n = {n}, {sat} of rows are saturated (top weight above 0.99) and the mean entropy is {entropy} nats of a possible ln n = {ln_n}.",
        "zh": "不缩放时分数的标准差为 √d_k = {sd}，一个键几乎拿走全部权重：d_k = {dk}、n = {n} 时，{sat} 的行已饱和（最大权重超过 0.99），平均熵只有 {entropy} 奈特，而最大可能值为 ln n = {ln_n}。",
    },
    "saturation.claim.wins": {
        "en": "Without scaling the scores spread with standard deviation √d_k = {sd}, and one key wins: at d_k = {dk} and n = {n} the top key takes more than half the weight in at least half the rows (median {median}, mean {mean}). Only {sat} of rows are saturated (top weight above 0.99){more}.",
        "zh": "不缩放时分数的标准差为 √d_k = {sd}，一个键胜出：d_k = {dk}、n = {n} 时，至少一半的行里最大的键拿走一半以上的权重（中位数 {median}，平均 {mean}）。只有 {sat} 的行饱和（最大权重超过 0.99）{more}。",
    },
    "saturation.claim.all_from": {"en": "; most rows are once d_k ≳ {d}", "zh": "；d_k ≳ {d} 起多数行饱和"},
    "saturation.claim.all_never": {"en": "; up to d_k = {d} most rows never are", "zh": "；直到 d_k = {d}，饱和的行都不到一半"},
    "saturation.claim.later": {
        "en": "Without scaling the scores spread with standard deviation √d_k = {sd}, but at d_k = {dk} and n = {n} that is not yet enough for one key to win: the top key takes {median} in the median row. One key wins (more than half the weight in at least half the rows) once d_k ≳ {start} at n = {n}.",
        "zh": "不缩放时分数的标准差为 √d_k = {sd}，但在 d_k = {dk}、n = {n} 时还不足以让一个键胜出：中位数那一行里最大的键只拿到 {median}。n = {n} 时，d_k ≳ {start} 起才有一个键胜出（至少一半的行里拿走一半以上的权重）。",
    },
    "saturation.claim.never": {
        "en": "Without scaling, at n = {n} no d_k up to {dk_max} makes one key win (more than half the weight in at least half the rows): at d_k = {dk} the top key takes {median} in the median row.",
        "zh": "不缩放时，n = {n} 下直到 d_k = {dk_max} 都没有一个键胜出（至少一半的行里拿走一半以上的权重）：d_k = {dk} 时中位数那一行里最大的键拿到 {median}。",
    },
    "saturation.claim.absent": {
        "en": "Add “none” (no scaling) to the scales in the sidebar to see how far apart unscaled scores get and how much weight the top key then takes.",
        "zh": "在侧边栏的缩放方式中加入“不缩放”，即可看到不缩放时分数拉得多开、最大的键因此拿走多少权重。",
    },
    "saturation.claim.two_keys": {
        "en": "With n = 2 keys the larger weight is always at least one half, so only saturation (above 0.99) tells the rows apart.",
        "zh": "只有 n = 2 个键时，较大的权重总是至少为一半，所以只有饱和（超过 0.99）才能区分各行。",
    },
    "saturation.scaled.spread": {
        "en": "With 1/√d_k the scores keep variance 1 and the weights stay spread: the top key takes {median} in the median row, {effective} of the {n} keys are used on average, and {sat} of rows are saturated.",
        "zh": "除以 √d_k 后分数方差保持为 1，权重保持分散：中位数那一行里最大的键拿到 {median}，{n} 个键中平均有 {effective} 个在起作用，饱和的行占 {sat}。",
    },
    "saturation.scaled.wins": {
        "en": "With 1/√d_k and only n = {n} keys the top key still takes more than half the weight in at least half the rows (median {median}), but only {sat} of rows are saturated.",
        "zh": "除以 √d_k 且只有 n = {n} 个键时，至少一半的行里最大的键仍拿走一半以上的权重（中位数 {median}），但饱和的行只占 {sat}。",
    },
    "saturation.scaled.all": {
        "en": "Even with 1/√d_k most rows are saturated at n = {n}: {sat} of them.",
        "zh": "即使除以 √d_k，n = {n} 时多数行也已饱和：占 {sat}。",
    },
    "saturation.terms": {
        "en": "Terms: p_ij is the weight query i gives key j (each row sums to 1). Entropy H = −Σ_j p_ij ln p_ij, measured in nats (natural logarithm): 0 when one key takes all the weight, ln n when all n keys share it equally. Effective keys e^H: how many keys a row spreads its weight over, from 1 to n. A row is saturated when its largest weight exceeds 0.99. The median is the middle value: half the rows lie above it.",
        "zh": "术语：p_ij 是查询 i 给键 j 的权重（每行之和为 1）。熵 H = −Σ_j p_ij ln p_ij，单位为奈特（自然对数）：一个键拿走全部权重时为 0，n 个键平分时为 ln n。有效键数 e^H：一行的权重分散到多少个键上，介于 1 与 n 之间。最大权重超过 0.99 的行称为饱和行。中位数是居中的值：一半的行高于它。",
    },
    "saturation.level.all": {"en": "most rows saturated: one key takes nearly all the weight", "zh": "多数行饱和：一个键几乎拿走全部权重"},
    "saturation.level.wins": {"en": "one key wins: more than half the weight in at least half the rows", "zh": "一个键胜出：至少一半的行里拿走一半以上的权重"},
    "saturation.level.spread": {"en": "spread: in at least half the rows no key takes more than half the weight", "zh": "分散：至少一半的行里没有键拿走一半以上的权重"},
    "saturation.help.max_weight": {"en": "The largest weight max_j p_ij of a row, averaged over all rows: 1/n for uniform weights, 1 for one-hot.", "zh": "一行中最大的权重 max_j p_ij，对所有行求平均：均匀时为 1/n，one-hot 时为 1。"},
    "saturation.help.entropy": {"en": "H = −Σ_j p_ij ln p_ij in nats: 0 when one key takes all, ln n when the weights are uniform.", "zh": "H = −Σ_j p_ij ln p_ij，单位奈特：一个键拿走全部时为 0，权重均匀时为 ln n。"},
    "saturation.help.effective": {"en": "e^H: the number of keys a row effectively uses, from 1 (one key) to n (all equally).", "zh": "e^H：一行实际用到的键数，从 1（只用一个键）到 n（平均用到所有键）。"},
    "saturation.help.saturated": {"en": "The share of rows whose largest weight exceeds 0.99: the softmax is then nearly one-hot, and moving the scores barely changes the weights.", "zh": "最大权重超过 0.99 的行所占比例：此时 softmax 近乎 one-hot，分数的变化几乎不改变权重。"},
    "saturation.query.auto": {"en": "Show the most saturated row", "zh": "显示最饱和的一行"},
    "saturation.query.auto_help": {"en": "On: the bars show the row whose top key takes the largest weight in this draw. Off: pick a row with the slider.", "zh": "打开：柱状图显示本次抽样中最大权重最大的一行。关闭：用滑块选择一行。"},
    "saturation.bars.title_top": {"en": "Weights of query i = {i}, the most saturated row", "zh": "查询 i = {i}（最饱和的一行）的权重"},
    "saturation.bars.shown_top": {
        "en": "Shown: row i = {i}, the most saturated row of this draw (its top key takes {maxw}, the largest top weight of all its rows).",
        "zh": "所示：第 i = {i} 行，本次抽样中最饱和的一行（它最大的键拿到 {maxw}，是所有行中最大的）。",
    },
    "saturation.bars.shown_pick": {
        "en": "Shown: row i = {i}, as chosen; the most saturated row of this draw is i = {top}.",
        "zh": "所示：所选的第 i = {i} 行；本次抽样中最饱和的是第 i = {top} 行。",
    },
    "saturation.notice.rises_all": {
        "en": "Without scaling the mean max weight rises from {lo} at d_k = {dk_lo} to {hi} at d_k = {dk_hi}, where most rows are saturated: the heat map turns into isolated bright cells, each query looking at one key.",
        "zh": "不缩放时，平均最大权重从 d_k = {dk_lo} 时的 {lo} 升到 d_k = {dk_hi} 时的 {hi}，此时多数行已饱和：热图变成零星的亮格，每个查询只看一个键。",
    },
    "saturation.notice.rises": {
        "en": "Without scaling the mean max weight rises from {lo} at d_k = {dk_lo} to {hi} at d_k = {dk_hi}: the rows get more peaked as d_k grows.",
        "zh": "不缩放时，平均最大权重从 d_k = {dk_lo} 时的 {lo} 升到 d_k = {dk_hi} 时的 {hi}：d_k 越大，各行越尖锐。",
    },
    "saturation.notice.no_rise": {
        "en": "Without scaling the mean max weight does not rise over this sweep: {lo} at d_k = {dk_lo}, {hi} at d_k = {dk_hi}.",
        "zh": "不缩放时，平均最大权重在这组 d_k 上没有上升：d_k = {dk_lo} 时为 {lo}，d_k = {dk_hi} 时为 {hi}。",
    },
    "saturation.notice.flat": {
        "en": "With 1/√d_k the mean entropy stays between {lo} and {hi} nats from d_k = {dk_lo} to {dk_hi} (uniform weights: ln n = {ln_n}): scaling removes the effect of d_k. It does not remove the effect of n (the map under More).",
        "zh": "除以 √d_k 后，从 d_k = {dk_lo} 到 {dk_hi}，平均熵保持在 {lo} 到 {hi} 奈特之间（均匀权重：ln n = {ln_n}）：缩放消除了 d_k 的影响，但没有消除 n 的影响（见“更多”中的热图）。",
    },
    "saturation.notice.varies": {
        "en": "With 1/√d_k the mean entropy ranges from {lo} to {hi} nats over d_k = {dk_lo} to {dk_hi} (uniform weights: ln n = {ln_n}).",
        "zh": "除以 √d_k 后，在 d_k = {dk_lo} 到 {dk_hi} 上平均熵介于 {lo} 与 {hi} 奈特之间（均匀权重：ln n = {ln_n}）。",
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
}
