"""Precision page strings."""
# ruff: noqa: E501  (prose: translation lines are as long as their sentences)

TEXT: dict[str, dict[str, str]] = {
    "precision.nav": {"en": "Precision", "zh": "数值精度"},
    "precision.title": {"en": "Large logits break low-precision softmax", "zh": "过大的 logit 会让低精度 softmax 出错"},
    "precision.claim": {
        "en": "float16 cannot hold numbers above 65504, so exp(s) overflows to ∞ once a logit s exceeds "
              "ln 65504 ≈ 11.09. A naive softmax exp(s)/Σexp(s) then returns ∞/∞ = NaN. The stable softmax "
              "subtracts the row maximum first, so every exponent is ≤ 0. Unscaled logits reach 11.09 at "
              "small d_k; scaled ones stay far below it.",
        "zh": "float16 无法表示大于 65504 的数，所以 logit s 超过 ln 65504 ≈ 11.09 时 exp(s) 溢出为 ∞。"
              "朴素 softmax exp(s)/Σexp(s) 于是得到 ∞/∞ = NaN。稳定版 softmax 先减去该行最大值，所有指数都 ≤ 0。"
              "不缩放的 logit 在 d_k 很小时就会超过 11.09；缩放后的 logit 则远低于它。",
    },
    "precision.verdict.label": {"en": "Is precision a reason for √d_k?", "zh": "精度是除以 √d_k 的理由吗？"},
    "precision.verdict.naive_here": {
        "en": "Only in a naive kernel. At d_k = {dk} a naive float16 softmax (no max subtraction) turns {naive_none} of the rows NaN unscaled and {naive_sqrt} scaled by 1/√d_k; the stable softmax (max subtracted), which frameworks use, turns {stable_none} and {stable_sqrt} NaN. With it, precision is no reason for √d_k.",
        "zh": "只对朴素实现是。d_k = {dk} 时，朴素 float16 softmax（不减最大值）不缩放时 {naive_none} 的行变成 NaN，除以 √d_k 后为 {naive_sqrt}；框架使用的稳定 softmax（先减最大值）分别为 {stable_none} 和 {stable_sqrt}。用稳定 softmax 时，精度不是除以 √d_k 的理由。",
    },
    "precision.verdict.naive_later": {
        "en": "Not at d_k = {dk}: no row turns NaN there, naive or stable, scaled or not. A naive float16 softmax (no max subtraction) fails unscaled at d_k = {other} in this sweep, so precision is a reason for √d_k only in naive kernels; with the stable softmax (max subtracted) it is not.",
        "zh": "在 d_k = {dk} 时不是：无论朴素还是稳定、缩放与否，都没有行变成 NaN。本次扫描中，朴素 float16 softmax（不减最大值）不缩放时在 d_k = {other} 出错，所以精度只对朴素实现才是除以 √d_k 的理由；用稳定 softmax（先减最大值）时不是。",
    },
    "precision.verdict.naive_never": {
        "en": "Not at these settings: in this sweep no float16 row turns NaN, not even in a naive softmax without scaling.",
        "zh": "在当前设置下不是：本次扫描中没有任何 float16 行变成 NaN，即使是不缩放的朴素 softmax 也没有。",
    },
    "precision.verdict.scaled_fails": {
        "en": "Not as a cure: at d_k = {dk} even scaled logits break a naive float16 softmax ({naive_sqrt} of the rows NaN; {naive_none} unscaled), while the stable softmax turns {stable_none} and {stable_sqrt} NaN.",
        "zh": "它并不能解决问题：d_k = {dk} 时，即使缩放后的 logit 也会让朴素 float16 softmax 出错（{naive_sqrt} 的行为 NaN；不缩放为 {naive_none}），而稳定 softmax 分别为 {stable_none} 和 {stable_sqrt}。",
    },
    "precision.verdict.stable_fails": {
        "en": "Here, yes, whatever the kernel: at d_k = {dk} the logits themselves overflow float16, so even the stable softmax turns rows NaN ({stable_none} unscaled, {stable_sqrt} scaled).",
        "zh": "在这里是，无论哪种实现：d_k = {dk} 时 logit 本身就在 float16 中溢出，连稳定 softmax 也会出现 NaN 行（不缩放 {stable_none}，缩放后 {stable_sqrt}）。",
    },
    "precision.verdict.incomplete": {
        "en": "Select the scales “{none}” and “{sqrt}” in the sidebar to compare them here.",
        "zh": "请在侧边栏中选择“{none}”和“{sqrt}”两种缩放，以便在此比较。",
    },
    "precision.logit.limits": {"en": "float16 limit", "zh": "float16 的界限"},
    "precision.logit.key_exp": {"en": "dotted: ln 65504 ≈ 11.09, exp overflows in fp16", "zh": "点线：ln 65504 ≈ 11.09，fp16 中 exp 溢出"},
    "precision.logit.key_max": {"en": "dash-dot: 65504, the fp16 logit itself is ∞", "zh": "点划线：65504，fp16 中 logit 本身变为 ∞"},
    "precision.nan.coincide": {
        "en": "Curves that lie on one another (the stable ones drawn dashed, with hollow markers, over the naive ones): {groups}.",
        "zh": "相互重合的曲线（稳定版画成虚线、空心标记，叠在朴素版之上）：{groups}。",
    },
    "precision.nan.coincide.none": {"en": "No two curves coincide at every d_k.", "zh": "没有两条曲线在每个 d_k 上都重合。"},
    "precision.nan.group": {"en": "{dtype}: {members}", "zh": "{dtype}：{members}"},
    "precision.nan.group_sep": {"en": "; ", "zh": "；"},
    "precision.nan.dtype_sep": {"en": ", ", "zh": "、"},
    "precision.nan.series": {"en": "[{method} · {scale}]", "zh": "［{method} · {scale}］"},
    "precision.method.naive_short": {"en": "naive", "zh": "朴素"},
    "precision.method.stable_short": {"en": "stable", "zh": "稳定"},
    "precision.metric.max_logit": {"en": "largest |logit|", "zh": "最大 |logit|"},
    "precision.metric.naive": {"en": "NaN rows, naive fp16", "zh": "NaN 行比例，朴素 fp16"},
    "precision.metric.stable": {"en": "NaN rows, stable fp16", "zh": "NaN 行比例，稳定 fp16"},
    "precision.metrics_caption": {
        "en": "At d_k = {dk}, n = {n}, over {rows} rows ({trials} trials × {queries} queries, each against all n keys; at large n a trial takes fewer queries to stay quick). Logits are formed in float32 and rounded to the dtype, as a model's are.",
        "zh": "d_k = {dk}、n = {n} 时，基于 {rows} 行（{trials} 次试验 × {queries} 个查询，每个查询对全部 n 个键；n 较大时每次试验取较少的查询以保持响应速度）。logit 先在 float32 中计算，再舍入到目标类型，与模型中的做法相同。",
    },
    "precision.logit.title": {"en": "Largest |logit| vs d_k", "zh": "最大 |logit| 随 d_k 的变化"},
    "precision.logit.y": {"en": "largest |c·q·k| over all rows", "zh": "所有行中最大的 |c·q·k|"},
    "precision.logit.exp_line": {"en": "ln 65504 ≈ 11.09: exp overflows in fp16", "zh": "ln 65504 ≈ 11.09：fp16 中 exp 溢出"},
    "precision.logit.max_line": {"en": "65504: the fp16 logit itself is ∞", "zh": "65504：fp16 中 logit 本身变为 ∞"},
    "precision.nan.title": {"en": "Rows that become NaN/∞ vs d_k", "zh": "变成 NaN/∞ 的行比例随 d_k 的变化"},
    "precision.nan.y": {"en": "fraction of rows with NaN/∞", "zh": "含 NaN/∞ 的行比例"},
    "precision.method": {"en": "softmax", "zh": "softmax 实现"},
    "precision.method.naive": {"en": "naive exp(s)/Σexp(s)", "zh": "朴素 exp(s)/Σexp(s)"},
    "precision.method.stable": {"en": "stable (max subtracted)", "zh": "稳定（先减最大值）"},
    "precision.nan.caption": {
        "en": "One panel per dtype. bfloat16 and float32 share float32's exponent range (max ≈ 3.4·10³⁸), so their naive softmax overflows only past ln(max) ≈ 88.7; bfloat16 pays instead in resolution: {bf16_res} near the largest logit at d_k = {dk}. Each step (the rounding of the logits, exp, the row sum, the division) is rounded to the dtype, as PyTorch computes in float16 and bfloat16.",
        "zh": "每个面板对应一种数据类型。bfloat16 与 float32 的指数范围相同（最大约 3.4·10³⁸），朴素 softmax 要到 ln(max) ≈ 88.7 才溢出；"
              "bfloat16 付出的代价是分辨率：d_k = {dk} 时最大 logit 附近的间隔为 {bf16_res}。"
              "每一步（logit 的取整、exp、行求和、除法）都舍入到该数据类型，与 PyTorch 在 float16、bfloat16 中的计算方式相同。",
    },
    "precision.cross.title": {"en": "Where each scale crosses the fp16 limits (float16, this sweep)", "zh": "各缩放方式越过 fp16 界限的位置（float16，本次扫描）"},
    "precision.cross.scale": {"en": "scale", "zh": "缩放"},
    "precision.cross.exp": {"en": "first d_k with |logit| > 11.09", "zh": "|logit| > 11.09 的最小 d_k"},
    "precision.cross.inf": {"en": "first d_k with |logit| > 65504", "zh": "|logit| > 65504 的最小 d_k"},
    "precision.cross.nan": {"en": "first d_k with NaN rows (naive)", "zh": "出现 NaN 行的最小 d_k（朴素）"},
    "precision.cross.never": {"en": "not up to 4096", "zh": "4096 以内未出现"},
    "precision.mask.title": {"en": "The −1e9 mask", "zh": "−1e9 掩码"},
    "precision.mask.intro": {
        "en": "Code written for float32 often masks with −1e9. Rounded to each dtype it becomes:",
        "zh": "为 float32 编写的代码常用 −1e9 作掩码。舍入到各数据类型后变为：",
    },
    "precision.mask.value": {"en": "−1e9 stored as", "zh": "−1e9 实际存储为"},
    "precision.mask.explain": {
        "en": "In float16 −1e9 overflows to −∞. exp(−∞) = 0 is harmless while one key in the row survives, but a fully masked row (padding) gives −∞ − (−∞) = NaN even in the stable softmax. Use torch.finfo(dtype).min or handle all-masked rows explicitly.",
        "zh": "在 float16 中 −1e9 溢出为 −∞。只要一行中还有一个键未被屏蔽，exp(−∞) = 0 并无害处；但整行都被屏蔽（填充位置）时，"
              "即使稳定版 softmax 也会得到 −∞ − (−∞) = NaN。应使用 torch.finfo(dtype).min，或专门处理整行被屏蔽的情况。",
    },
    "precision.notice": {
        "en": "The naive fp16 curve for the unscaled logits jumps to 100 % NaN rows at small d_k, long before the logit itself overflows; the stable softmax stays at 0 until the logits themselves become ∞. Scaling by 1/√d_k keeps the logits near √(2 ln(rows)) — far below 11.09 — at every d_k. FlashAttention keeps the running max and sum in fp32 for the same reason.",
        "zh": "不缩放时，朴素 fp16 曲线在 d_k 很小时就跳到 100% 的 NaN 行，远早于 logit 本身溢出；稳定版 softmax 在 logit 本身变成 ∞ 之前一直为 0。"
              "除以 √d_k 后，任何 d_k 下 logit 都保持在 √(2 ln(行数)) 附近，远低于 11.09。FlashAttention 出于同样的原因用 fp32 保存运行中的最大值与和。",
    },
}
