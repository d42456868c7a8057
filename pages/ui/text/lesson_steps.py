"""Lesson step strings: for each step its name, the neutral setup and question shown before the reveal,
the claim and take-away shown after it, and the speaker note for the teacher (what to say at the reveal)."""
# ruff: noqa: E501  (prose: translation lines are as long as their sentences)

TEXT: dict[str, dict[str, str]] = {
    # variance
    "lesson.variance.name": {"en": "How much do the scores spread?", "zh": "分数的离散程度有多大？"},
    "lesson.variance.setup": {
        "en": "q and k have d_k independent components, each with mean 0 and variance 1. The score is their dot product q·k = Σᵢ qᵢkᵢ, not yet scaled. The chart draws the four candidate answers against d_k; the measurement comes with the reveal. The slider sets d_k (4 to 4096).",
        "zh": "q 和 k 各有 d_k 个相互独立的分量，每个分量均值为 0、方差为 1。分数是它们的点积 q·k = Σᵢ qᵢkᵢ，尚未缩放。图中画出四个候选答案随 d_k 的变化，测量结果在揭晓时出现。滑块设置 d_k（4 到 4096）。",
    },
    "lesson.variance.setup_short": {
        "en": "q and k: d_k independent components, mean 0, variance 1; the score is q·k, not scaled.",
        "zh": "q、k：各有 d_k 个独立分量，均值 0、方差 1；分数为 q·k，未缩放。",
    },
    "lesson.variance.question": {"en": "At d_k = {dk}, what is the variance of q·k?", "zh": "当 d_k = {dk} 时，q·k 的方差是多少？"},
    "lesson.variance.claim": {
        "en": "Var(q·k) = d_k: the scores spread like √d_k, so dividing by √d_k gives them variance 1.",
        "zh": "Var(q·k) = d_k：分数的标准差像 √d_k 一样增长，所以除以 √d_k 后方差为 1。",
    },
    "lesson.variance.takeaway": {
        "en": "Var(c·X) = c²·Var(X): c = 1/√d_k gives d_k/d_k = 1 at every d_k. Divide by the standard deviation √d_k, not by the variance d_k.",
        "zh": "Var(c·X) = c²·Var(X)：c = 1/√d_k 在任何 d_k 下都得到 d_k/d_k = 1。要除以标准差 √d_k，而不是方差 d_k。",
    },
    "lesson.variance.say": {
        "en": "Independent terms add their variances. A room that answers √d_k has mixed up the spread (the standard deviation, 8 at d_k = 64, as note 000 says) with the variance. Then ask which c makes c²·d_k = 1.",
        "zh": "独立项的方差相加。答 √d_k 的同学把离散程度（标准差，d_k = 64 时为 8，笔记 000 也这么写）和方差混为一谈。接着问：哪个 c 能让 c²·d_k = 1？",
    },
    # double
    "lesson.double.name": {"en": "Is 2√d_k just as bad?", "zh": "除以 2√d_k 也一样糟吗？"},
    "lesson.double.setup": {
        "en": "Note 000 argues that dividing by 2√d_k is just as bad as dividing by d_k. The same q and k as before (d_k independent components of variance 1); the score is c·q·k with c = 1/(2√d_k). The chart draws the four candidate answers against d_k; the slider sets d_k (16 to 4096).",
        "zh": "笔记 000 认为除以 2√d_k 和除以 d_k 一样糟。q、k 与前面相同（d_k 个方差为 1 的独立分量）；分数为 c·q·k，c = 1/(2√d_k)。图中画出四个候选答案随 d_k 的变化；滑块设置 d_k（16 到 4096）。",
    },
    "lesson.double.setup_short": {
        "en": "Note 000: dividing by 2√d_k is just as bad as by d_k. Same q and k; the score is c·q·k with c = 1/(2√d_k).",
        "zh": "笔记 000：除以 2√d_k 和除以 d_k 一样糟。q、k 同前；分数为 c·q·k，c = 1/(2√d_k)。",
    },
    "lesson.double.question": {"en": "With c = 1/(2√d_k) and d_k = {dk}: what is the variance of the score c·q·k?", "zh": "c = 1/(2√d_k)，d_k = {dk}：分数 c·q·k 的方差是多少？"},
    "lesson.double.claim": {
        "en": "1/(2√d_k) gives the scores variance 1/4 at every d_k: a fixed temperature, not a collapse.",
        "zh": "1/(2√d_k) 让分数在任何 d_k 下方差都是 1/4：这是一个固定的温度，而不是随 d_k 崩塌。",
    },
    "lesson.double.takeaway": {
        "en": "c²·d_k = d_k/(4·d_k) = 1/4 whatever d_k is, while 1/d_k gives 1/d_k → 0 and attention flattens to uniform. A constant factor does not grow with d_k, and W_Q can absorb it: 2√d_k is not as bad as d_k.",
        "zh": "无论 d_k 多大，c²·d_k = d_k/(4·d_k) = 1/4；而 1/d_k 给出 1/d_k → 0，注意力被压成均匀分布。常数因子不随 d_k 变化，W_Q 可以把它吸收：2√d_k 并不像 d_k 那样糟。",
    },
    "lesson.double.say": {
        "en": "Readers of note 000 answer 1/d_k. Point at the flat measured line against the falling 1/d_k line: what matters is how c depends on d_k; the constant ½ is only a temperature.",
        "zh": "读过笔记 000 的同学会答 1/d_k。指着平直的测量线和下降的 1/d_k 线：关键在于 c 如何随 d_k 变化；常数 ½ 只是一个温度。",
    },
    # scales
    "lesson.scales.name": {"en": "Why not 1/d_k or 1/ln d_k?", "zh": "为什么不用 1/d_k 或 1/ln d_k？"},
    "lesson.scales.setup": {
        "en": "The same scores, scaled by another c than 1/√d_k. The chart shows how many keys a row effectively uses, e^H (H the entropy of its softmax weights), against d_k: 1/√d_k and all n keys are drawn, the chosen scale comes with the reveal. The menu picks the scale.",
        "zh": "同样的分数，换一个不同于 1/√d_k 的 c 来缩放。图中是一行实际上用到多少个键，即 e^H（H 为 softmax 权重的熵），随 d_k 的变化：已画出 1/√d_k 和全部 n 个键，所选缩放的曲线在揭晓时出现。菜单选择缩放方式。",
    },
    "lesson.scales.setup_short": {
        "en": "The same scores under another c than 1/√d_k; the chart counts the keys a row effectively uses, e^H.",
        "zh": "同样的分数换一个不同于 1/√d_k 的 c；图中是一行等效地用到的键数 e^H。",
    },
    "lesson.scales.question": {
        "en": "With {scale}, d_k = {dk}: what share of the n = {n} keys does a row effectively use (e^H / n)?",
        "zh": "使用 {scale}，d_k = {dk}：一行等效地用到 n = {n} 个键中的多大比例（e^H / n）？",
    },
    "lesson.scales.claim": {
        "en": "1/√d_k keeps the variance at 1; 1/d_k flattens attention towards uniform, 1/ln d_k lets the scores keep growing.",
        "zh": "1/√d_k 让方差保持为 1；1/d_k 把注意力压向均匀分布，1/ln d_k 则让分数继续增长。",
    },
    "lesson.scales.takeaway": {
        "en": "Var(c·q·k) = c²·d_k: 1/d_k gives 1/d_k (→ 0, every key equal), 1/ln d_k gives d_k/ln² d_k (→ ∞, one key), 1/√d_k gives 1.",
        "zh": "Var(c·q·k) = c²·d_k：1/d_k 得到 1/d_k（→ 0，所有键一样），1/ln d_k 得到 d_k/ln² d_k（→ ∞，只剩一个键），1/√d_k 得到 1。",
    },
    "lesson.scales.say": {
        "en": "Move the menu after the reveal: a smaller c than 1/√d_k spreads the row over more keys at every d_k, a larger one over fewer; only 1/√d_k does not drift with d_k.",
        "zh": "揭晓后切换菜单：比 1/√d_k 小的 c 在任何 d_k 下都让一行分散到更多键上，更大的 c 则更集中；只有 1/√d_k 不随 d_k 漂移。",
    },
    # gradients
    "lesson.gradients.name": {"en": "Do unscaled gradients vanish?", "zh": "不缩放时梯度会消失吗？"},
    "lesson.gradients.setup": {
        "en": "One query against n keys; L = g·p with a random g, so ∂L/∂q = c·Kᵀ(J g) with J = diag(p) − ppᵀ. Note 003 writes: unscaled, ‖∂L/∂Q‖ ∝ 1/d_k (vanishing gradients). The chart draws the median ‖∂L/∂q‖ under ÷√d_k against d_k; the unscaled curve comes with the reveal. The slider sets d_k.",
        "zh": "一个查询对 n 个键；L = g·p，g 随机，所以 ∂L/∂q = c·Kᵀ(J g)，J = diag(p) − ppᵀ。笔记 003 写道：不缩放时 ‖∂L/∂Q‖ ∝ 1/d_k（梯度消失）。图中画出 ÷√d_k 时 ‖∂L/∂q‖ 中位数随 d_k 的变化，不缩放的曲线在揭晓时出现。滑块设置 d_k。",
    },
    "lesson.gradients.setup_short": {
        "en": "One query against n keys, L = g·p with a random g. Note 003: unscaled, ‖∂L/∂Q‖ ∝ 1/d_k.",
        "zh": "一个查询对 n 个键，L = g·p，g 随机。笔记 003：不缩放时 ‖∂L/∂Q‖ ∝ 1/d_k。",
    },
    "lesson.gradients.question": {
        "en": "At d_k = {dk}, n = {n}: how does the unscaled median ‖∂L/∂q‖ compare with the one under ÷√d_k (unscaled ÷ scaled)?",
        "zh": "d_k = {dk}，n = {n}：不缩放时 ‖∂L/∂q‖ 的中位数与 ÷√d_k 时相比如何（不缩放 ÷ 缩放）？",
    },
    "lesson.gradients.claim": {
        "en": "Unscaled, the gradient first grows with d_k (c·‖k‖ ≈ √d_k), then collapses once the softmax saturates.",
        "zh": "不缩放时，梯度先随 d_k 增大（c·‖k‖ ≈ √d_k），等 softmax 饱和后才崩塌。",
    },
    "lesson.gradients.takeaway": {
        "en": "Unscaled, the median ‖∂L/∂q‖ is the larger one below d_k ≈ {cross} (n = {n}), then falls far faster than note 003's 1/d_k: c·‖k‖ ≈ √d_k wins until J = diag(p) − ppᵀ collapses.",
        "zh": "n = {n} 时，d_k ≈ {cross} 以下不缩放的 ‖∂L/∂q‖ 中位数更大，以上则更小，并且下降得远比笔记 003 说的 1/d_k 快：在 J = diag(p) − ppᵀ 崩塌之前，c·‖k‖ ≈ √d_k 占上风。",
    },
    "lesson.gradients.takeaway_nocross": {
        "en": "At n = {n} the unscaled median ‖∂L/∂q‖ stays the larger one up to d_k = 4096: with many keys the softmax saturates later. It does not follow note 003's 1/d_k.",
        "zh": "n = {n} 时，直到 d_k = 4096，不缩放的 ‖∂L/∂q‖ 中位数一直更大：键越多，softmax 饱和得越晚。它并不服从笔记 003 的 1/d_k。",
    },
    "lesson.gradients.say": {
        "en": "Most of the room predicts 'smaller' from note 003. At d_k = 64, the head size of most models, the measurement says the opposite: the extra factor √d_k in c·‖k‖ wins until the softmax is one-hot. Move the slider to 1024 to show the collapse.",
        "zh": "多数同学会根据笔记 003 选“更小”。在大多数模型的头维度 d_k = 64 上，测量结果恰好相反：c·‖k‖ 中多出的 √d_k 因子占上风，直到 softmax 变成 one-hot。把滑块拖到 1024，展示崩塌。",
    },
    # overflow
    "lesson.overflow.name": {"en": "Is it about overflow?", "zh": "是为了防止溢出吗？"},
    "lesson.overflow.setup": {
        "en": "fp16's largest number is 65504, so e^s overflows once a logit s passes ln 65504 ≈ {ln_max}. No scaling. The chart draws the share of rows a naive softmax exp(s)/Σexp(s) turns into inf or NaN, against d_k. Frameworks compute the softmax stably: they subtract the row's maximum before exp. The slider sets d_k (16 to 4096).",
        "zh": "fp16 能表示的最大数是 65504，所以 logit s 一旦超过 ln 65504 ≈ {ln_max}，e^s 就会溢出。不缩放。图中画出朴素 softmax exp(s)/Σexp(s) 产生 inf 或 NaN 的行所占比例随 d_k 的变化。深度学习框架用稳定的方式计算 softmax：先减去该行的最大值再取 exp。滑块设置 d_k（16 到 4096）。",
    },
    "lesson.overflow.setup_short": {
        "en": "fp16 overflows once e^s passes 65504 (s > ln 65504 ≈ {ln_max}). No scaling; the chart counts the rows a naive softmax turns into inf or NaN.",
        "zh": "e^s 超过 65504（s > ln 65504 ≈ {ln_max}）时 fp16 溢出。不缩放；图中统计朴素 softmax 变成 inf 或 NaN 的行。",
    },
    "lesson.overflow.question": {
        "en": "No scaling, fp16, d_k = {dk}, n = {n}: what share of rows does the stable softmax turn into inf or NaN?",
        "zh": "不缩放、fp16、d_k = {dk}、n = {n}：稳定 softmax 会让多大比例的行出现 inf 或 NaN？",
    },
    "lesson.overflow.claim": {
        "en": "Overflow is solved by subtracting the maximum, not by √d_k: the stable softmax does not overflow.",
        "zh": "溢出靠减去最大值解决，而不是靠 √d_k：稳定的 softmax 不会溢出。",
    },
    "lesson.overflow.takeaway": {
        "en": "After subtracting the row's maximum every exponent is ≤ 0, so the largest term is e⁰ = 1, in fp16 too: at d_k = {dk} the largest unscaled logit is {max_logit}, and no row overflows. The reason for √d_k is the softmax's saturation.",
        "zh": "减去该行最大值后，每个指数都 ≤ 0，最大项是 e⁰ = 1，fp16 也一样：d_k = {dk} 时未缩放的最大 logit 为 {max_logit}，却没有一行溢出。需要 √d_k 的原因是 softmax 的饱和。",
    },
    "lesson.overflow.say": {
        "en": "Note 000 lists overflow as the first reason for √d_k. The naive curve shows why it sounds right; the stable softmax, which every framework runs, makes it moot. Overflow is a reason for max-subtraction; for a naive kernel it is real.",
        "zh": "笔记 000 把溢出列为 √d_k 的第一个理由。朴素曲线说明这个说法为何听起来有理；而各框架实际使用的稳定 softmax 让它不成立。溢出是减去最大值的理由；对朴素实现的算子来说它确实存在。",
    },
    # absorb
    "lesson.absorb.name": {"en": "Is √d_k the optimum?", "zh": "√d_k 是最优解吗？"},
    "lesson.absorb.setup": {
        "en": "The query is q = W_Q x, and W_Q is learnt. Note 001 calls √d_k the theoretically derived optimum. Replace c = 1/√d_k by c = a/√d_k and, at the same time, W_Q by W_Q/a. The chart draws the mean top weight against a with W_Q kept as it was; the slider picks a.",
        "zh": "查询 q = W_Q x，W_Q 是学出来的。笔记 001 称 √d_k 是理论推导的最优解。把 c = 1/√d_k 换成 c = a/√d_k，同时把 W_Q 换成 W_Q/a。图中画出 W_Q 保持不变时平均最大权重随 a 的变化；滑块选择 a。",
    },
    "lesson.absorb.setup_short": {
        "en": "q = W_Q x, and W_Q is learnt. Note 001: √d_k is the optimum. Replace c = 1/√d_k by a/√d_k and W_Q by W_Q/a.",
        "zh": "q = W_Q x，W_Q 是学出来的。笔记 001：√d_k 是最优解。把 c = 1/√d_k 换成 a/√d_k，同时把 W_Q 换成 W_Q/a。",
    },
    "lesson.absorb.question": {
        "en": "With c = {factor}/√d_k and W_Q/{factor} (d_k = {dk}, n = {n}): by how much does any attention weight change?",
        "zh": "c = {factor}/√d_k 且 W_Q/{factor}（d_k = {dk}，n = {n}）：注意力权重最多改变多少？",
    },
    "lesson.absorb.claim": {
        "en": "A constant in c is a constant in W_Q: any a gives the same attention once W_Q absorbs it.",
        "zh": "c 中的常数就是 W_Q 中的常数：W_Q 把它吸收后，任何 a 都给出同样的注意力。",
    },
    "lesson.absorb.takeaway": {
        "en": "c·(W_Q x)·k = (a·c)·((W_Q/a) x)·k exactly, so training can absorb any constant. 1/√d_k is the choice that gives the scores variance 1 at initialisation; what matters is how c scales with d_k, not a derived optimum.",
        "zh": "c·(W_Q x)·k = (a·c)·((W_Q/a) x)·k 严格成立，所以训练可以吸收任何常数。1/√d_k 是让分数在初始化时方差为 1 的选择；关键是 c 如何随 d_k 缩放，而不是什么推导出的最优解。",
    },
    "lesson.absorb.say": {
        "en": "Those who pick 'clearly' follow note 001. The chart before the reveal shows a temperature does change the weights; the reveal shows W_Q/a undoes it exactly. The lasting choice is the exponent of d_k.",
        "zh": "选“明显改变”的同学沿用了笔记 001 的说法。揭晓前的图说明温度确实会改变权重；揭晓后可见 W_Q/a 把它完全抵消。真正重要的是 d_k 的指数。",
    },
    # trained
    "lesson.trained.name": {"en": "Are scaled scores N(0, 1)?", "zh": "缩放后的分数服从 N(0, 1) 吗？"},
    "lesson.trained.setup": {
        "en": "Training aligns a query with the key it should attend to: that matching key is k₀ = ρq + √(1−ρ²)z, the other n − 1 keys stay independent of q. Note 003 writes that after scaling the scores are N(0, 1). The chart draws ρ, the mean under μP's ÷d_k, against d_k; the slider sets ρ (0.2 to 1).",
        "zh": "训练会让查询与它应关注的键对齐：这个匹配键为 k₀ = ρq + √(1−ρ²)z，其余 n − 1 个键仍与 q 独立。笔记 003 写道缩放后分数服从 N(0, 1)。图中画出 μP 的 ÷d_k 下的均值 ρ 随 d_k 的变化；滑块设置 ρ（0.2 到 1）。",
    },
    "lesson.trained.setup_short": {
        "en": "The matching key is k₀ = ρq + √(1−ρ²)z; the other n − 1 keys are independent of q. Note 003: after scaling the scores are N(0, 1).",
        "zh": "匹配键为 k₀ = ρq + √(1−ρ²)z；其余 n − 1 个键与 q 独立。笔记 003：缩放后分数服从 N(0, 1)。",
    },
    "lesson.trained.question": {
        "en": "With ρ = {rho} and ÷√d_k, d_k = {dk}: what is the mean of the matching key's scaled score q·k₀/√d_k?",
        "zh": "ρ = {rho}，使用 ÷√d_k，d_k = {dk}：匹配键缩放后分数 q·k₀/√d_k 的均值是多少？",
    },
    "lesson.trained.claim": {
        "en": "Once q and its key correlate, scaled scores are not N(0, 1): the match's mean grows like ρ√d_k.",
        "zh": "一旦 q 与其匹配键相关，缩放后的分数就不服从 N(0, 1)：匹配键的均值像 ρ√d_k 一样增长。",
    },
    "lesson.trained.takeaway": {
        "en": "E[q·k₀] = ρ·d_k: ÷√d_k leaves ρ√d_k, growing with d_k; μP's ÷d_k keeps ρ. The √d_k argument assumes independent q and k, as at initialisation.",
        "zh": "E[q·k₀] = ρ·d_k：÷√d_k 后剩下随 d_k 增长的 ρ√d_k；μP 的 ÷d_k 保持为 ρ。√d_k 的论证假设 q 与 k 独立，即初始化时的情形。",
    },
    "lesson.trained.say": {
        "en": "The answer 'about 0' is note 003's N(0, 1). Only the matching key moves: a shift common to every key would not change the softmax. Link to /beyond for μP's 1/d.",
        "zh": "“约为 0”就是笔记 003 的 N(0, 1)。只有匹配键在移动：所有键共同的平移不会改变 softmax。可链接到 /beyond 讲 μP 的 1/d。",
    },
    # length
    "lesson.length.name": {"en": "Longer rows", "zh": "更长的序列"},
    "lesson.length.setup": {
        "en": "One query against n keys, scaled by ÷√d_k (d_k from the sidebar). Uniform attention would give each key 1/n. The chart draws 1/n and the log-n remedy (scores × ln n, Chiang & Cholak 2022) against n; the ÷√d_k curve comes with the reveal. The slider sets n (2 to 256).",
        "zh": "一个查询对 n 个键，按 ÷√d_k 缩放（d_k 取自侧栏）。均匀注意力会给每个键 1/n。图中画出 1/n 和 log-n 方法（分数 × ln n，Chiang & Cholak 2022）随 n 的变化；÷√d_k 的曲线在揭晓时出现。滑块设置 n（2 到 256）。",
    },
    "lesson.length.setup_short": {
        "en": "One query against n keys under ÷√d_k; uniform attention would give each key 1/n.",
        "zh": "一个查询对 n 个键，按 ÷√d_k 缩放；均匀注意力会给每个键 1/n。",
    },
    "lesson.length.question": {
        "en": "With ÷√d_k, d_k = {dk}: when a row grows from n = {n} to {n4} keys, by what factor does the mean top weight fall?",
        "zh": "使用 ÷√d_k，d_k = {dk}：当一行从 n = {n} 个键增加到 {n4} 个时，平均最大权重下降为原来的几分之一？",
    },
    "lesson.length.claim": {
        "en": "√d_k fixes the dimension, not the length: the top key's weight fades as n grows, more slowly than 1/n.",
        "zh": "√d_k 解决的是维度问题，不是长度问题：键越多，最大权重越小，但比 1/n 衰减得慢。",
    },
    "lesson.length.takeaway": {
        "en": "Four times the keys take the top weight down by less than four times, and it stays above 1/n: the top key's share fades with the length all the same. Multiplying the scores by ln n (Chiang & Cholak 2022) keeps it up.",
        "zh": "键数变为四倍，最大权重下降不到四倍，并始终高于 1/n：但它仍随长度变小。把分数乘以 ln n（Chiang & Cholak 2022）能让它保持住。",
    },
    "lesson.length.say": {
        "en": "'About 4×, like 1/n' is the tempting answer. The top score also grows with n (the maximum of more draws), so the weight fades more slowly. The length effect is what log-n scaling addresses.",
        "zh": "“约 4 倍，像 1/n”是诱人的答案。最高分数本身也随 n 增大（更多抽样的最大值），所以权重衰减得更慢。log-n 缩放针对的正是长度效应。",
    },
    # modern
    "lesson.modern.name": {"en": "When ‖q‖ and ‖k‖ grow", "zh": "当 ‖q‖ 与 ‖k‖ 增大"},
    "lesson.modern.setup": {
        "en": "In training ‖q‖ and ‖k‖ grow: q, k → α·q, α·k, so under ÷√d_k alone the scores grow like α². The chart draws the mean top weight against α under ÷√d_k alone, and 1/n; the remedy's curve comes with the reveal. The menu picks the remedy: QK-norm LN(q)·LN(k)/√d_k, cosine attention cos(q, k)/τ with τ = {tau}, or a soft-cap {cap}·tanh(s/{cap}).",
        "zh": "训练中 ‖q‖ 与 ‖k‖ 会增大：q、k → α·q、α·k，所以仅 ÷√d_k 时分数像 α² 一样增长。图中画出仅 ÷√d_k 时平均最大权重随 α 的变化，以及 1/n；所选方法的曲线在揭晓时出现。菜单选择方法：QK-norm LN(q)·LN(k)/√d_k、余弦注意力 cos(q, k)/τ（τ = {tau}），或软截断 {cap}·tanh(s/{cap})。",
    },
    "lesson.modern.setup_short": {
        "en": "In training ‖q‖ and ‖k‖ grow by α, so under ÷√d_k alone the scores grow like α². The menu picks the remedy.",
        "zh": "训练中 ‖q‖ 与 ‖k‖ 增大 α 倍，所以仅 ÷√d_k 时分数像 α² 一样增长。菜单选择方法。",
    },
    "lesson.modern.question": {
        "en": "With {method}, d_k = {dk}, n = {n}: from α = 1 to α = {alpha}, how much does the top weight rise, compared with ÷√d_k alone?",
        "zh": "使用{method}，d_k = {dk}，n = {n}：从 α = 1 到 α = {alpha}，最大权重的上升幅度与仅 ÷√d_k 时相比如何？",
    },
    "lesson.modern.claim": {
        "en": "QK-norm and cosine attention bound the scores whatever ‖q‖ and ‖k‖ become; a soft-cap of 50 does not stop saturation.",
        "zh": "无论 ‖q‖、‖k‖ 变成多大，QK-norm 和余弦注意力都能限制分数；上限为 50 的软截断挡不住饱和。",
    },
    "lesson.modern.takeaway": {
        "en": "LN(αq) = LN(q), cos(αq, αk) = cos(q, k): those scores ignore α (ViT-22B, Gemma 3; Swin V2). A cap of 50 (Gemma 2) clips only logits near 50, long after the softmax saturated.",
        "zh": "LN(αq) = LN(q)，cos(αq, αk) = cos(q, k)：这些分数与 α 无关（ViT-22B、Gemma 3；Swin V2）。上限 50 的软截断（Gemma 2）只截掉接近 50 的 logit，而 softmax 早在那之前就饱和了。",
    },
    "lesson.modern.say": {
        "en": "With QK-norm most expect the growth only slowed down: the line is flat. Then switch to the soft-cap, where most expect a cap to stop the growth ('any bound on the logits stops saturation'): it does not. √d_k fixes the initial scale; normalising q and k fixes it for good.",
        "zh": "对 QK-norm，多数人以为增长只是变慢了：其实是一条平线。再切换到软截断，多数人以为截断能挡住增长（“只要给 logit 设上限就能阻止饱和”）：其实挡不住。√d_k 解决的是初始尺度；对 q、k 归一化才一劳永逸。",
    },
}
