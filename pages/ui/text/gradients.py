"""Gradients page strings ("Gradient collapse")."""
# ruff: noqa: E501  (prose: translation lines are as long as their sentences)

TEXT: dict[str, dict[str, str]] = {
    "gradients.nav": {"en": "Gradient collapse", "zh": "梯度崩塌"},
    "gradients.title": {"en": "Unscaled, the gradient to the query is the larger one until the softmax saturates",
                        "zh": "不缩放时，传到查询的梯度更大——直到 softmax 饱和为止"},
    "gradients.title.equal": {"en": "At d_k = 1 both scales are the same: c = 1", "zh": "d_k = 1 时两种缩放相同：c = 1"},
    "gradients.title.below": {"en": "Unscaled, the saturating softmax passes back less gradient than the scaled one",
                              "zh": "不缩放时，趋于饱和的 softmax 传回的梯度比缩放后的少"},
    "gradients.title.collapsed": {"en": "Unscaled, the saturated softmax passes back almost no gradient",
                                  "zh": "不缩放时，饱和的 softmax 几乎传不回梯度"},
    "gradients.title.missing": {"en": "How much gradient reaches the query through the softmax",
                                "zh": "经过 softmax 传到查询的梯度有多大"},
    "gradients.claim": {
        "en": "The gradient reaching the query goes through the softmax Jacobian J: ∂L/∂q = c·Kᵀ J g. "
              "Unscaled (c = 1), two factors pull against each other as d_k grows: the keys get longer "
              "(‖k‖ ≈ √d_k), which makes the gradient larger, and the softmax saturates, which shrinks J. "
              "When p is nearly one-hot every entry of J is nearly 0 and the gradient vanishes; uniform p "
              "weakens it too (‖J‖₂ = 1/n there). With c = 1/√d_k neither factor moves with d_k.",
        "zh": "传到查询的梯度要经过 softmax 的雅可比矩阵 J：∂L/∂q = c·Kᵀ J g。不缩放（c = 1）时，随着 d_k 增大，"
              "两个因素此消彼长：键变长（‖k‖ ≈ √d_k），梯度随之变大；softmax 趋于饱和，J 随之变小。"
              "p 接近 one-hot 时，J 的每个元素都接近 0，梯度消失；p 完全均匀时梯度也会变弱（此时 ‖J‖₂ = 1/n）。"
              "除以 √d_k 后，两个因素都不随 d_k 变化。",
    },
    "gradients.symbols": {
        "en": "Symbols: L is the loss that training lowers (here L = g·p); g is the gradient arriving from "
              "the layers above, one number per key, drawn from N(0, 1); p is the query's weights over its n "
              "keys; J = diag(p) − p pᵀ is the softmax Jacobian, how each weight p_i moves when a score s_j "
              "moves; ‖v‖₂ is the length of a vector v, and ‖J‖₂ the most J can stretch one; c is the scale.",
        "zh": "符号：L 是训练要降低的损失（这里 L = g·p）；g 是从上层传来的梯度，每个键一个数，取自 N(0, 1)；"
              "p 是该查询在 n 个键上的权重；J = diag(p) − p pᵀ 是 softmax 的雅可比矩阵，表示分数 s_j 变化时"
              "每个权重 p_i 如何变化；‖v‖₂ 是向量 v 的长度，‖J‖₂ 是 J 能把一个向量拉长的最大倍数；c 是缩放系数。",
    },
    "gradients.verdict.larger": {
        "en": "At d_k = {dk}, n = {n}: the unscaled median ‖∂L/∂q‖ is {none}, {ratio}× the scaled {sqrt}. "
              "The longer keys still win here: the softmax is not saturated enough to shrink the gradient below the scaled one.",
        "zh": "在 d_k = {dk}、n = {n} 时：不缩放的 ‖∂L/∂q‖ 中位数为 {none}，是缩放后 {sqrt} 的 {ratio} 倍。"
              "这里变长的键仍占上风：softmax 还没有饱和到让梯度低于缩放后的程度。",
    },
    "gradients.verdict.equal": {
        "en": "At d_k = {dk} both scales use c = 1: the median ‖∂L/∂q‖ is {none} for both.",
        "zh": "d_k = {dk} 时两种缩放都取 c = 1：‖∂L/∂q‖ 中位数都是 {none}。",
    },
    "gradients.verdict.below": {
        "en": "At d_k = {dk}, n = {n}: the unscaled median ‖∂L/∂q‖ is {none}, {ratio}× smaller than the scaled "
              "{sqrt}: the saturating softmax now outweighs the longer keys.",
        "zh": "在 d_k = {dk}、n = {n} 时：不缩放的 ‖∂L/∂q‖ 中位数为 {none}，比缩放后的 {sqrt} 小 {ratio} 倍："
              "趋于饱和的 softmax 已经压过了变长的键。",
    },
    "gradients.verdict.collapsed": {
        "en": "At d_k = {dk}, n = {n}: the unscaled median ‖∂L/∂q‖ is {none}, less than a hundredth of the "
              "scaled {sqrt}: the saturated softmax passes back almost no gradient.",
        "zh": "在 d_k = {dk}、n = {n} 时：不缩放的 ‖∂L/∂q‖ 中位数为 {none}，不到缩放后 {sqrt} 的百分之一："
              "饱和的 softmax 几乎传不回梯度。",
    },
    "gradients.verdict.missing": {
        "en": "Choose both c = 1 and 1/√d_k in the settings to compare them at d_k = {dk}.",
        "zh": "在设置中同时选择 c = 1 和 1/√d_k，才能在 d_k = {dk} 处比较两者。",
    },
    "gradients.cross.inside": {
        "en": "At n = {n} the unscaled median falls below the scaled one between d_k = {lo} and {hi} (≈ {at}: "
              "the solid grey line on the chart) and stays below; from d_k = {collapse} on it is less than a "
              "hundredth of it. With more keys the crossing comes later.",
        "zh": "n = {n} 时，不缩放的中位数在 d_k = {lo} 与 {hi} 之间（约 {at}，即图中的灰色实线）降到缩放后的之下，"
              "此后一直更低；从 d_k = {collapse} 起不到它的百分之一。键越多，交点来得越晚。",
    },
    "gradients.cross.inside.no_collapse": {
        "en": "At n = {n} the unscaled median falls below the scaled one between d_k = {lo} and {hi} (≈ {at}: "
              "the solid grey line on the chart) and stays below; up to d_k = {last} it does not fall to a "
              "hundredth of it. With more keys the crossing comes later.",
        "zh": "n = {n} 时，不缩放的中位数在 d_k = {lo} 与 {hi} 之间（约 {at}，即图中的灰色实线）降到缩放后的之下，"
              "此后一直更低；直到 d_k = {last} 都没有降到它的百分之一。键越多，交点来得越晚。",
    },
    "gradients.cross.from_start": {
        "en": "At n = {n} the unscaled median is below the scaled one at every d_k from {first} on, and less "
              "than a hundredth of it from d_k = {collapse} on.",
        "zh": "n = {n} 时，从 d_k = {first} 起，不缩放的中位数在每个 d_k 都低于缩放后的；从 d_k = {collapse} 起不到它的百分之一。",
    },
    "gradients.cross.from_start.no_collapse": {
        "en": "At n = {n} the unscaled median is below the scaled one at every d_k from {first} to {last}.",
        "zh": "n = {n} 时，从 d_k = {first} 到 {last}，不缩放的中位数在每个 d_k 都低于缩放后的。",
    },
    "gradients.cross.beyond": {
        "en": "At n = {n} the unscaled median is still not below the scaled one at d_k = {last}, the largest "
              "d_k here: in these draws the crossing lies beyond it.",
        "zh": "n = {n} 时，直到这里最大的 d_k = {last}，不缩放的中位数仍不低于缩放后的：在这些抽样中，交点在更远处。",
    },
    "gradients.cross.missing": {
        "en": "Choose both c = 1 and 1/√d_k in the settings to see where one falls below the other.",
        "zh": "在设置中同时选择 c = 1 和 1/√d_k，才能看到一个在哪里降到另一个之下。",
    },
    "gradients.band": {
        "en": "How sure: the ends of the median's 95 % interval fall below the scaled median between {early} and {late}.",
        "zh": "有多确定：中位数 95% 区间的两端在 {early} 与 {late} 之间降到缩放后的中位数之下。",
    },
    "gradients.band.at": {"en": "d_k ≈ {at}", "zh": "d_k ≈ {at}"},
    "gradients.band.start": {"en": "the smallest d_k ({first})", "zh": "最小的 d_k（{first}）"},
    "gradients.band.beyond": {"en": "beyond d_k = {last}", "zh": "d_k = {last} 之外"},
    "gradients.compare": {
        "en": "Unscaled ÷ scaled at d_k = {dk}: median ‖∂L/∂q‖ {median}×, mean {mean}×, median ‖J‖₂ {jnorm}× "
              "(above 1: the unscaled one is larger).",
        "zh": "d_k = {dk} 时不缩放 ÷ 缩放：‖∂L/∂q‖ 中位数 {median} 倍，均值 {mean} 倍，‖J‖₂ 中位数 {jnorm} 倍"
              "（大于 1 表示不缩放的更大）。",
    },
    "gradients.compare.missing": {
        "en": "Choose both c = 1 and 1/√d_k to compare the cards at d_k = {dk}.",
        "zh": "同时选择 c = 1 和 1/√d_k，才能在 d_k = {dk} 处比较这些卡片。",
    },
    "gradients.metric.median.help": {
        "en": "The typical length ‖∂L/∂q‖₂ of the gradient reaching the query: half of the trials give less.",
        "zh": "传到查询的梯度长度 ‖∂L/∂q‖₂ 的典型值：一半试验比它小。",
    },
    "gradients.metric.mean.help": {
        "en": "The average length: a few large draws (the top two keys nearly tied) can pull it far above the median.",
        "zh": "平均长度：少数很大的抽样（前两个键几乎打平）会把它拉得远高于中位数。",
    },
    "gradients.metric.jnorm.help": {
        "en": "‖J‖₂: the most the softmax Jacobian can stretch an upstream gradient g (at most ½; 1/n for uniform weights).",
        "zh": "‖J‖₂：softmax 雅可比矩阵能把上游梯度 g 拉长的最大倍数（最大为 ½；均匀权重时为 1/n）。",
    },
    "gradients.row.pick": {"en": "Pick the row myself", "zh": "自己选择要看的行"},
    "gradients.row.query": {"en": "Query row i", "zh": "查询行 i"},
    "gradients.row.top": {
        "en": "Shown: row {i} of {n}, this draw's most saturated row (its largest weight, {maxw}, is the largest of any "
              "row), chosen because saturation is what shrinks J. Pick another row below the scale.",
        "zh": "显示的是 {n} 行中的第 {i} 行，即这次抽样中最饱和的一行（它的最大权重 {maxw} 是所有行中最大的）；"
              "选它是因为正是饱和让 J 变小。可在缩放选项下方选择其他行。",
    },
    "gradients.row.chosen": {
        "en": "Shown: row {i} of {n}, as chosen (largest weight {maxw}); this draw's most saturated row is row {top} "
              "(largest weight {top_maxw}).",
        "zh": "显示的是 {n} 行中你选的第 {i} 行（最大权重 {maxw}）；这次抽样中最饱和的是第 {top} 行（最大权重 {top_maxw}）。",
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
    "gradients.jac.title": {"en": "Softmax Jacobian J of row {i} ({scale})", "zh": "第 {i} 行的 softmax 雅可比矩阵 J（{scale}）"},
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
    "gradients.norm.title": {"en": "‖∂L/∂q‖₂ vs d_k: median (thick) and mean (thin)", "zh": "‖∂L/∂q‖₂ 随 d_k 的变化：中位数（粗线）与均值（细线）"},
    "gradients.norm.crossing": {"en": "d_k ≈ {at}", "zh": "d_k ≈ {at}"},
    "gradients.norm.crossing_desc": {
        "en": "A solid grey line at d_k ≈ {at} marks where the unscaled median falls below the scaled one.",
        "zh": "d_k ≈ {at} 处的灰色实线标出不缩放的中位数降到缩放后之下的位置。",
    },
    "gradients.norm.styles": {
        "en": "Colour and dash tell the scales apart, as in the ‖J‖₂ chart; a thick line with filled points is "
              "the median, a thin line with open points the mean.",
        "zh": "颜色和虚线样式区分缩放方式，与 ‖J‖₂ 图一致；粗线加实心点是中位数，细线加空心点是均值。",
    },
    "gradients.norm.y": {"en": "‖∂L/∂q‖₂", "zh": "‖∂L/∂q‖₂"},
    "gradients.stat": {"en": "statistic", "zh": "统计量"},
    "gradients.stat.median": {"en": "median", "zh": "中位数"},
    "gradients.stat.mean": {"en": "mean", "zh": "均值"},
    "gradients.gap": {
        "en": "Why the mean and the median part ways at large d_k: once most draws are saturated they give a "
              "gradient near 0, but a rare draw where the top two keys nearly tie gives a large one. The mean "
              "is carried by those rare draws; the median shows the typical draw.",
        "zh": "为什么 d_k 大时均值和中位数会分道扬镳：大多数抽样饱和后梯度接近 0，但偶尔前两个键几乎打平，"
              "梯度就很大。均值被这些少见的抽样撑着；中位数反映典型情况。",
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
    "gradients.notice.peaks": {
        "en": "Unscaled, the median gradient rises with d_k to {peak} at d_k = {peak_dk} (the longer keys win), "
              "then falls to {v_last} at d_k = {last} as the softmax saturates.",
        "zh": "不缩放时，梯度中位数随 d_k 上升，在 d_k = {peak_dk} 处达到 {peak}（变长的键占上风），"
              "随后随着 softmax 饱和，在 d_k = {last} 处降到 {v_last}。",
    },
    "gradients.notice.falls": {
        "en": "Unscaled, the median gradient falls from {v_first} at d_k = {first} to {v_last} at d_k = {last} "
              "as the softmax saturates.",
        "zh": "不缩放时，随着 softmax 饱和，梯度中位数从 d_k = {first} 处的 {v_first} 降到 d_k = {last} 处的 {v_last}。",
    },
    "gradients.notice.rises": {
        "en": "Unscaled, the median gradient rises from {v_first} at d_k = {first} to {v_last} at d_k = {last}: "
              "with this many keys the softmax does not saturate enough here to shrink it.",
        "zh": "不缩放时，梯度中位数从 d_k = {first} 处的 {v_first} 升到 d_k = {last} 处的 {v_last}："
              "键这么多时，softmax 在这个范围内饱和得不够，压不低它。",
    },
    "gradients.notice.missing": {
        "en": "Choose both c = 1 and 1/√d_k in the settings to compare them.",
        "zh": "在设置中同时选择 c = 1 和 1/√d_k 才能比较两者。",
    },
    "gradients.notice.mean_apart": {
        "en": "The unscaled mean ends far above the median ({mean} against {median} at d_k = {last}): rare draws "
              "where the top two keys nearly tie carry it.",
        "zh": "不缩放的均值最终远高于中位数（d_k = {last} 时为 {mean} 对 {median}）：撑起它的是前两个键几乎打平的少见抽样。",
    },
    "gradients.notice.mean_close": {
        "en": "The unscaled mean stays within a factor of 10 of the median ({mean} against {median} at d_k = {last}).",
        "zh": "不缩放的均值与中位数相差不到 10 倍（d_k = {last} 时为 {mean} 对 {median}）。",
    },
    "gradients.notice.scaled": {
        "en": "With 1/√d_k the median stays between {lo} and {hi} at every d_k.",
        "zh": "除以 √d_k 后，中位数在每个 d_k 都保持在 {lo} 与 {hi} 之间。",
    },
    "gradients.notice.jacobian": {
        "en": "‖J‖₂ tells the same story without g: it is at most 2(1 − max p), so a saturated row has a tiny Jacobian.",
        "zh": "‖J‖₂ 不依赖 g 也说明了同样的事：它不超过 2(1 − max p)，所以饱和行的雅可比矩阵非常小。",
    },
}
