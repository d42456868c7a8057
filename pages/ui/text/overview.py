"""Overview page strings."""
# ruff: noqa: E501  (prose: translation lines are as long as their sentences)


TEXT: dict[str, dict[str, str]] = {
    "overview.nav": {"en": "Overview", "zh": "概览"},
    "overview.title": {"en": "Why attention divides by √d_k", "zh": "注意力为什么要除以 √d_k"},
    "overview.claim": {
        "en": "Scaled dot-product attention divides the scores by √d_k. Without it, the scores grow "
              "with the key dimension d_k, softmax saturates, and gradients vanish. Every number "
              "below is measured live for the settings in the sidebar.",
        "zh": "缩放点积注意力把分数除以 √d_k。如果不缩放，分数会随键维度 d_k 增大，softmax 趋于饱和，"
              "梯度随之消失。下面的每个数字都按侧栏中的设置实时测量。",
    },
    "overview.story": {"en": "The story in four steps", "zh": "四步讲清楚"},
    "overview.step1": {"en": "1 · The variance of the scores grows like d_k",
                       "zh": "1 · 分数的方差随 d_k 线性增长"},
    "overview.step2": {"en": "2 · Softmax saturates: one key takes all the weight",
                       "zh": "2 · softmax 饱和：一个键拿走几乎全部权重"},
    "overview.step3": {"en": "3 · Gradients to the query vanish", "zh": "3 · 传到查询的梯度消失"},
    "overview.step4": {"en": "4 · Scaling by 1/√d_k fixes it at every d_k",
                       "zh": "4 · 除以 √d_k 在任何 d_k 下都能解决问题"},
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
    "overview.max_weight_help": {"en": "Mean over rows of max_j p_ij (1 = one-hot).",
                                 "zh": "各行 max_j p_ij 的平均值（1 表示 one-hot）。"},
    "overview.notice": {
        "en": "Without scaling (none), Var(s) rises in step with d_k, the max weight climbs toward 1 "
              "and the median gradient — after a rise at small d_k, where ‖k‖ grows like √d_k before the "
              "softmax saturates — collapses by orders of magnitude. With 1/√d_k every curve is "
              "flat: the variance stays near 1 whatever d_k is.",
        "zh": "不缩放（none）时，Var(s) 与 d_k 同步增长，最大权重逼近 1，梯度中位数在小 d_k 处先上升"
              "（softmax 饱和之前 ‖k‖ 随 √d_k 增大），随后下降好几个数量级。"
              "除以 √d_k 后每条曲线都是平的：无论 d_k 多大，方差都保持在 1 附近。",
    },
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
