"""Overview page strings."""
# ruff: noqa: E501  (prose: translation lines are as long as their sentences)


TEXT: dict[str, dict[str, str]] = {
    "overview.nav": {"en": "Overview", "zh": "概览"},
    "overview.title": {"en": "Why attention divides by √d_k", "zh": "注意力为什么要除以 √d_k"},
    "overview.claim": {
        "en": "Scaled dot-product attention divides the scores by √d_k. Without it, the scores grow with the "
              "key dimension d_k and softmax saturates; once it is saturated, the gradient to the query "
              "collapses, at a d_k that grows with the number of keys n. Every number below is measured live "
              "for the settings in the sidebar (on a phone, open them with the » button at the top left).",
        "zh": "缩放点积注意力把分数除以 √d_k。如果不缩放，分数会随键维度 d_k 增大，softmax 趋于饱和；"
              "饱和之后，传到查询的梯度才会崩塌，而崩塌出现的 d_k 随键的个数 n 增大。下面的每个数字都按侧栏中的设置"
              "实时测量（手机上请点左上角的 » 按钮打开设置）。",
    },
    "overview.symbols": {
        "en": "Symbols: q and k are a query and a key, vectors of d_k numbers; c is the scale (1 unscaled, "
              "1/√d_k scaled); s = c·q·k is a score; n is the number of keys; p_ij is the weight query i gives "
              "key j, row i of softmax(s), between 0 and 1 and summing to 1 over j; L is the loss that training "
              "lowers; ∂L/∂q is its gradient with respect to the query, what trains the query; ‖·‖₂ is a "
              "vector's length.",
        "zh": "符号：q 和 k 是一个查询和一个键，都是 d_k 个数组成的向量；c 是缩放系数（不缩放为 1，缩放为 1/√d_k）；"
              "s = c·q·k 是分数；n 是键的个数；p_ij 是查询 i 分给键 j 的权重，即 softmax(s) 的第 i 行，介于 0 和 1 之间，"
              "对 j 求和为 1；L 是训练要降低的损失；∂L/∂q 是它对查询的梯度，查询正是靠它来训练；‖·‖₂ 是向量的长度。",
    },
    "overview.c2_rule": {
        "en": "Why √d_k and not d_k: Var(c·X) = c²·Var(X). The raw score q·k has variance d_k, so c = 1/√d_k "
              "gives d_k/d_k = 1 at every d_k, while c = 1/d_k would give d_k/d_k² = 1/d_k, shrinking as d_k grows.",
        "zh": "为什么是 √d_k 而不是 d_k：Var(c·X) = c²·Var(X)。原始分数 q·k 的方差是 d_k，所以 c = 1/√d_k "
              "给出 d_k/d_k = 1，与 d_k 无关；而 c = 1/d_k 给出 d_k/d_k² = 1/d_k，d_k 越大方差越小。",
    },
    "overview.story": {"en": "The story in four steps", "zh": "四步讲清楚"},
    "overview.chart.var": {"en": "Var(s) vs d_k", "zh": "Var(s) 随 d_k 的变化"},
    "overview.chart.max_weight": {"en": "Mean max weight vs d_k", "zh": "平均最大权重随 d_k 的变化"},
    "overview.chart.grad": {"en": "Median ‖∂L/∂q‖₂ vs d_k", "zh": "‖∂L/∂q‖₂ 中位数随 d_k 的变化"},
    "overview.step1": {"en": "1 · The variance of the raw scores grows like d_k", "zh": "1 · 原始分数的方差随 d_k 线性增长"},
    "overview.step1.detail": {
        "en": "Unscaled, the measured Var(s) follows d_k with slope {slope} on log–log axes (theory: exactly 1).",
        "zh": "不缩放时，实测的 Var(s) 在双对数坐标下随 d_k 变化的斜率为 {slope}（理论值恰为 1）。",
    },
    "overview.step1.other": {"en": "1 · The variance of the scores is c²·d_k", "zh": "1 · 分数的方差是 c²·d_k"},
    "overview.step1.other.detail": {
        "en": "Each line is measured for one chosen scale c; theory: Var(c·q·k) = c²·d_k.",
        "zh": "每条线按所选的一种缩放 c 实测；理论值：Var(c·q·k) = c²·d_k。",
    },
    "overview.step2": {"en": "2 · Unscaled, softmax saturates: one key takes almost all the weight",
                       "zh": "2 · 不缩放时 softmax 饱和：一个键拿走几乎全部权重"},
    "overview.step2.detail": {
        "en": "The unscaled mean max weight max_j p_ij climbs from {a} at d_k = {first} to {b} at d_k = {last} "
              "(1 = one key takes everything).",
        "zh": "不缩放时，平均最大权重 max_j p_ij 从 d_k = {first} 处的 {a} 升到 d_k = {last} 处的 {b}（1 表示一个键拿走全部）。",
    },
    "overview.step2.partial": {"en": "2 · Unscaled, softmax leans toward one key as d_k grows",
                               "zh": "2 · 不缩放时，随着 d_k 增大，softmax 偏向一个键"},
    "overview.step2.partial.detail": {
        "en": "The unscaled mean max weight max_j p_ij climbs from {a} at d_k = {first} to {b} at d_k = {last}: "
              "with this many keys it is still short of one-hot.",
        "zh": "不缩放时，平均最大权重 max_j p_ij 从 d_k = {first} 处的 {a} 升到 d_k = {last} 处的 {b}：键这么多时，仍未接近 one-hot。",
    },
    "overview.step2.other": {"en": "2 · The largest weight of each row, against d_k", "zh": "2 · 每行的最大权重随 d_k 的变化"},
    "overview.step2.other.detail": {"en": "1 means one key takes all the weight.", "zh": "1 表示一个键拿走全部权重。"},
    "overview.step3.inside.collapse": {
        "en": "3 · Unscaled, the gradient to the query falls below the scaled one, then collapses",
        "zh": "3 · 不缩放时，传到查询的梯度先降到缩放后的之下，然后崩塌",
    },
    "overview.step3.inside.collapse.detail": {
        "en": "At n = {n} it crosses between d_k = {lo} and {hi} (≈ {at}) and is less than a hundredth of the "
              "scaled one from d_k = {collapse} on.",
        "zh": "n = {n} 时，它在 d_k = {lo} 与 {hi} 之间（约 {at}）与缩放后的相交，从 d_k = {collapse} 起不到后者的百分之一。",
    },
    "overview.step3.inside": {
        "en": "3 · Unscaled, the gradient to the query falls below the scaled one as d_k grows",
        "zh": "3 · 不缩放时，随着 d_k 增大，传到查询的梯度降到缩放后的之下",
    },
    "overview.step3.inside.detail": {
        "en": "At n = {n} it crosses between d_k = {lo} and {hi} (≈ {at}); up to d_k = {last} it does not fall to "
              "a hundredth of the scaled one.",
        "zh": "n = {n} 时，它在 d_k = {lo} 与 {hi} 之间（约 {at}）与缩放后的相交；直到 d_k = {last} 都没有降到后者的百分之一。",
    },
    "overview.step3.from_start.collapse": {
        "en": "3 · Unscaled, the gradient to the query is the smaller one, then collapses",
        "zh": "3 · 不缩放时，传到查询的梯度更小，随后崩塌",
    },
    "overview.step3.from_start.collapse.detail": {
        "en": "At n = {n} it is below the scaled one at every d_k from {first} on, and less than a hundredth of it "
              "from d_k = {collapse} on.",
        "zh": "n = {n} 时，从 d_k = {first} 起它在每个 d_k 都低于缩放后的，从 d_k = {collapse} 起不到后者的百分之一。",
    },
    "overview.step3.from_start": {"en": "3 · Unscaled, the gradient to the query is the smaller one",
                                  "zh": "3 · 不缩放时，传到查询的梯度更小"},
    "overview.step3.from_start.detail": {
        "en": "At n = {n} it is below the scaled one at every d_k from {first} to {last}.",
        "zh": "n = {n} 时，从 d_k = {first} 到 {last}，它在每个 d_k 都低于缩放后的。",
    },
    "overview.step3.beyond": {
        "en": "3 · Unscaled, the gradient to the query is still not the smaller one at the largest d_k",
        "zh": "3 · 不缩放时，直到最大的 d_k，传到查询的梯度仍不比缩放后的小",
    },
    "overview.step3.beyond.detail": {
        "en": "At n = {n}, in these draws, the crossing lies beyond d_k = {last}: the more keys, the larger the d_k "
              "at which the softmax saturates enough.",
        "zh": "n = {n} 时，在这些抽样中，交点在 d_k = {last} 之外：键越多，softmax 饱和到足够程度所需的 d_k 越大。",
    },
    "overview.step3.missing": {"en": "3 · The median gradient to the query against d_k", "zh": "3 · 传到查询的梯度中位数随 d_k 的变化"},
    "overview.step3.missing.detail": {"en": "Choose both c = 1 and 1/√d_k in the settings to compare them.",
                                      "zh": "在设置中同时选择 c = 1 和 1/√d_k 才能比较两者。"},
    "overview.step4": {"en": "4 · With 1/√d_k every step stays nearly flat in d_k",
                       "zh": "4 · 除以 √d_k 后，每一步都几乎不随 d_k 变化"},
    "overview.step4.detail": {
        "en": "With 1/√d_k over d_k = {first} to {last}: Var(s) between {vlo} and {vhi}, mean max weight between "
              "{mlo} and {mhi}, median ‖∂L/∂q‖ between {glo} and {ghi}.",
        "zh": "除以 √d_k 后，在 d_k = {first} 到 {last} 上：Var(s) 介于 {vlo} 与 {vhi} 之间，平均最大权重介于 {mlo} 与 {mhi} 之间，"
              "‖∂L/∂q‖ 中位数介于 {glo} 与 {ghi} 之间。",
    },
    "overview.step4.other": {"en": "4 · Each chosen scale at your d_k", "zh": "4 · 所选各缩放在当前 d_k 下的数值"},
    "overview.step4.other.detail": {"en": "The cards give each chosen scale's numbers at your d_k and n.",
                                    "zh": "卡片给出所选各缩放在当前 d_k 和 n 下的数值。"},
    "overview.axis.var": {"en": "variance of the scores Var(s)", "zh": "分数方差 Var(s)"},
    "overview.axis.max_weight": {"en": "mean max weight max_j p_ij", "zh": "平均最大权重 max_j p_ij"},
    "overview.axis.grad": {"en": "median ‖∂L/∂q‖₂", "zh": "‖∂L/∂q‖₂ 的中位数"},
    "overview.at_dk": {"en": "At d_k = {dk}, n = {n}:", "zh": "在 d_k = {dk}、n = {n} 时："},
    "overview.metric.var": {"en": "Var(s)", "zh": "方差 Var(s)"},
    "overview.metric.max_weight": {"en": "max weight", "zh": "最大权重"},
    "overview.metric.entropy": {"en": "entropy H", "zh": "熵 H"},
    "overview.metric.grad": {"en": "median ‖∂L/∂q‖", "zh": "‖∂L/∂q‖ 中位数"},
    "overview.entropy_help": {"en": "Mean entropy in nats; uniform attention over n keys has entropy ln n = {ln_n}.",
                              "zh": "平均熵，单位为奈特；在 n 个键上均匀分布的注意力，熵为 ln n = {ln_n}。"},
    "overview.var_help": {"en": "The variance of the scores s = c·q·k over the samples: how widely they spread.",
                          "zh": "分数 s = c·q·k 在样本上的方差：分数散开的程度。"},
    "overview.grad_help": {"en": "The typical length of the gradient ∂L/∂q reaching the query: half the trials give less.",
                           "zh": "传到查询的梯度 ∂L/∂q 长度的典型值：一半试验比它小。"},
    "overview.max_weight_help": {"en": "Mean over rows of max_j p_ij (1 = one-hot).",
                                 "zh": "各行 max_j p_ij 的平均值（1 表示 one-hot）。"},
    "overview.notice.var": {"en": "Without scaling (c = 1), Var(s) rises in step with d_k.",
                            "zh": "不缩放（c = 1）时，Var(s) 与 d_k 同步增长。"},
    "overview.notice.max_weight": {"en": "Unscaled, the mean max weight reaches {b} at d_k = {last}.",
                                   "zh": "不缩放时，平均最大权重在 d_k = {last} 处达到 {b}。"},
    "overview.notice.grad.inside": {
        "en": "The unscaled median gradient falls below the scaled one past d_k ≈ {at} at n = {n}: it does not "
              "vanish at once, the longer keys first make it larger.",
        "zh": "n = {n} 时，不缩放的梯度中位数在 d_k ≈ {at} 之后降到缩放后的之下：它不是一开始就消失，变长的键先让它变大。",
    },
    "overview.notice.grad.beyond": {
        "en": "At n = {n} the unscaled median gradient is still not below the scaled one at d_k = {last}.",
        "zh": "n = {n} 时，直到 d_k = {last}，不缩放的梯度中位数仍不低于缩放后的。",
    },
    "overview.notice.grad.from_start": {
        "en": "At n = {n} the unscaled median gradient is below the scaled one at every d_k.",
        "zh": "n = {n} 时，不缩放的梯度中位数在每个 d_k 都低于缩放后的。",
    },
    "overview.notice.flat": {
        "en": "With 1/√d_k every curve is nearly flat: the variance stays between {vlo} and {vhi} whatever d_k is.",
        "zh": "除以 √d_k 后每条曲线都几乎是平的：无论 d_k 多大，方差都保持在 {vlo} 与 {vhi} 之间。",
    },
    "overview.notice.none": {"en": "Compare each chosen scale's lines across d_k.",
                             "zh": "比较所选各缩放的曲线如何随 d_k 变化。"},
    "overview.caveat": {
        "en": "√d_k is the variance-preserving choice at initialisation (iid unit-variance q and k), "
              "not a theorem of optimality; the pages below test each step.",
        "zh": "√d_k 是初始化时（q、k 分量独立且方差为 1）保持方差不变的选择，并不是什么最优性定理；"
              "下面各页逐步检验每一个环节。",
    },
    "overview.pages": {"en": "Explore each step", "zh": "逐步探索"},
    "overview.trials": {
        "en": "Samples per d_k: {var} (variance), {sat} trials of n × n (saturation), {grad} (gradients: the "
              "same draws at every d_k, so the curve's shape is not sampling noise).",
        "zh": "每个 d_k 的样本数：方差 {var}，饱和 {sat} 次 n × n 试验，梯度 {grad}（每个 d_k 使用同一组抽样，"
              "曲线的形状不是抽样噪声）。",
    },
}
