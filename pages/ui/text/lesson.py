"""Lesson page strings: the eight steps (name, claim, question, take-away), the chrome around them
(navigation, share, locked view), the choices, axes and series of the step charts."""
# ruff: noqa: E501  (prose: translation lines are as long as their sentences)

TEXT: dict[str, dict[str, str]] = {
    "lesson.nav": {"en": "Lesson (projector)", "zh": "课堂讲解（投影）"},
    "lesson.step_of": {"en": "Step {k} of {total} · {name}", "zh": "第 {k} 步 / 共 {total} 步 · {name}"},
    "lesson.prev": {"en": "Previous", "zh": "上一步"},
    "lesson.next": {"en": "Next", "zh": "下一步"},
    "lesson.keys_hint": {
        "en": "Keyboard or clicker: → / PageDown next, ← / PageUp previous.",
        "zh": "键盘或翻页器：→ / PageDown 下一步，← / PageUp 上一步。",
    },
    # share and lock
    "lesson.share": {"en": "Share", "zh": "分享"},
    "lesson.share.title": {"en": "Scan to open this view", "zh": "扫码打开当前视图"},
    "lesson.share.lock": {"en": "Locked students' view (lock=1)", "zh": "锁定学生视图（lock=1）"},
    "lesson.share.caption": {
        "en": "The code holds the link below: this step, the language and every setting.",
        "zh": "二维码中是下面的链接：当前步骤、语言和所有设置。",
    },
    "lesson.share.no_url": {
        "en": "This session does not know the page's address, so no code can be drawn; copy the link from the browser's address bar.",
        "zh": "本会话不知道页面地址，无法生成二维码；请从浏览器地址栏复制链接。",
    },
    "lesson.lock.what": {
        "en": "A locked link (lock=1) hides the sidebar and every setting the current step does not use, so each student's screen shows what the projector shows. Remove lock=1 from the link to explore freely.",
        "zh": "锁定链接（lock=1）会隐藏侧栏以及当前步骤用不到的所有设置，让每位学生的屏幕与投影一致。从链接中删去 lock=1 即可自由探索。",
    },
    "lesson.locked": {
        "en": "Locked view: the sidebar and the settings this step does not use are hidden, so your screen matches the projector.",
        "zh": "锁定视图：侧栏和本步骤用不到的设置已隐藏，你的屏幕与投影保持一致。",
    },
    # projector mode and the reveal's announcement
    "lesson.projector": {"en": "Projector mode", "zh": "投影模式"},
    "lesson.projector.help": {
        "en": "High contrast and large type, readable from the back of a room; the link keeps it (lesson_projector=1), also the students' locked link.",
        "zh": "高对比度、大字号，教室后排也看得清；链接会保留它（lesson_projector=1），学生的锁定链接也一样。",
    },
    "lesson.announce.waiting": {"en": "Step {k}: the measurement is hidden until you reveal it.", "zh": "第 {k} 步：揭晓之前测量结果是隐藏的。"},
    "lesson.announce.result": {"en": "You predicted {guess}. Measured now: {measured}. {verdict}", "zh": "你的预测：{guess}。刚刚测得：{measured}。{verdict}"},
    # predict, then reveal
    "lesson.guess": {"en": "Your prediction", "zh": "你的预测"},
    "lesson.reveal": {"en": "Reveal the measurement", "zh": "揭晓测量结果"},
    "lesson.reveal.help": {"en": "Commit to an answer first.", "zh": "请先选定一个答案。"},
    "lesson.result.guess": {"en": "You predicted", "zh": "你的预测"},
    "lesson.result.measured": {"en": "Measured now", "zh": "刚刚测得"},
    "lesson.result.right": {
        "en": "Right: the measurement falls in your answer.",
        "zh": "答对了：测量值落在你选的答案里。",
    },
    "lesson.result.wrong": {
        "en": "The measurement falls in “{answer}”.",
        "zh": "测量值落在“{answer}”里。",
    },
    "lesson.chart.waiting": {
        "en": "The rest of the chart appears with the measurement.",
        "zh": "图的其余部分会随测量结果一起出现。",
    },
    # choices
    "lesson.choice.below": {"en": "below {hi}", "zh": "低于 {hi}"},
    "lesson.choice.between": {"en": "{lo} to {hi}", "zh": "{lo} 到 {hi}"},
    "lesson.choice.above": {"en": "above {lo}", "zh": "高于 {lo}"},
    "lesson.choice.one": {"en": "about 1", "zh": "约为 1"},
    "lesson.choice.sqrt_dk": {"en": "about √d_k = {value}", "zh": "约为 √d_k = {value}"},
    "lesson.choice.dk": {"en": "about d_k = {value}", "zh": "约为 d_k = {value}"},
    "lesson.choice.dk2": {"en": "about d_k² = {value}", "zh": "约为 d_k² = {value}"},
    # the step's one control
    "lesson.control.dk": {"en": "Key dimension d_k", "zh": "键维度 d_k"},
    "lesson.control.n": {"en": "Number of keys n", "zh": "键的数量 n"},
    "lesson.control.scale": {"en": "Scale to compare with 1/√d_k", "zh": "与 1/√d_k 比较的缩放"},
    "lesson.control.rho": {"en": "Correlation ρ between q and k", "zh": "q 与 k 的相关系数 ρ"},
    "lesson.control.method": {"en": "Remedy", "zh": "解决办法"},
    "lesson.scale.log": {"en": "c = 1/ln d_k", "zh": "c = 1/ln d_k"},
    "lesson.scale.linear": {"en": "c = 1/d_k", "zh": "c = 1/d_k"},
    "lesson.scale.double-sqrt": {"en": "c = 1/(2√d_k)", "zh": "c = 1/(2√d_k)"},
    "lesson.method.qk-norm": {"en": "QK-norm", "zh": "QK-norm"},
    "lesson.method.cosine": {"en": "cosine/τ", "zh": "余弦/τ"},
    "lesson.method.softcap": {"en": "soft-cap {cap}", "zh": "软截断 {cap}"},
    # chart axes and series
    "lesson.axis.dk": {"en": "key dimension d_k", "zh": "键维度 d_k"},
    "lesson.axis.n": {"en": "number of keys n", "zh": "键的数量 n"},
    "lesson.axis.alpha": {"en": "growth α of ‖q‖ and ‖k‖", "zh": "‖q‖ 与 ‖k‖ 的增长倍数 α"},
    "lesson.axis.var": {"en": "Var(q·k)", "zh": "方差 Var(q·k)"},
    "lesson.axis.max_weight": {"en": "mean top weight max_j p_ij", "zh": "平均最大权重 max_j p_ij"},
    "lesson.axis.grad": {"en": "median ‖∂L/∂q‖", "zh": "‖∂L/∂q‖ 中位数"},
    "lesson.axis.effective": {"en": "effective keys e^H", "zh": "有效键数 e^H"},
    "lesson.axis.rms": {"en": "RMS of the scaled score", "zh": "缩放后分数的均方根"},
    "lesson.legend": {"en": "series", "zh": "曲线"},
    "lesson.series.measured": {"en": "measured Var(q·k)", "zh": "实测 Var(q·k)"},
    "lesson.series.theory_dk": {"en": "theory: d_k", "zh": "理论值：d_k"},
    "lesson.series.uniform": {"en": "uniform: 1/n = 1/{n}", "zh": "均匀分布：1/n = 1/{n}"},
    "lesson.series.all_keys": {"en": "all n = {n} keys", "zh": "全部 n = {n} 个键"},
    "lesson.series.uniform_n": {"en": "uniform: 1/n", "zh": "均匀分布：1/n"},
    "lesson.series.log-n": {"en": "÷√d_k × ln n (log-n scaling)", "zh": "÷√d_k × ln n（log-n 缩放）"},
    "lesson.series.rho0": {"en": "independent q, k (ρ = 0)", "zh": "q、k 独立（ρ = 0）"},
    "lesson.series.rho": {"en": "correlated, ρ = {rho}", "zh": "相关，ρ = {rho}"},
    "lesson.series.theory_rho": {"en": "theory: √(ρ²d_k + 1 + ρ²)", "zh": "理论值：√(ρ²d_k + 1 + ρ²)"},
    "lesson.series.qk-norm": {"en": "QK-norm: LN(q)·LN(k)/√d_k", "zh": "QK-norm：LN(q)·LN(k)/√d_k"},
    "lesson.series.cosine": {"en": "cosine: cos(q, k)/τ, τ = {tau}", "zh": "余弦：cos(q, k)/τ，τ = {tau}"},
    "lesson.series.softcap": {"en": "soft-cap: {cap}·tanh(s/{cap}) (Gemma 2)", "zh": "软截断：{cap}·tanh(s/{cap})（Gemma 2）"},
    "lesson.series.grown": {"en": "÷√d_k only (scores × α²)", "zh": "仅 ÷√d_k（分数 × α²）"},
    "lesson.trials": {
        "en": "Measured now with seed {seed}: {count} draws per point.",
        "zh": "刚刚用随机种子 {seed} 测得：每个点 {count} 次抽样。",
    },
    # 1 variance
    "lesson.variance.name": {"en": "Scores grow with d_k", "zh": "分数随 d_k 增大"},
    "lesson.variance.claim": {
        "en": "q·k sums d_k products q_i·k_i of variance 1, so Var(q·k) = d_k: the scores spread like √d_k.",
        "zh": "q·k 是 d_k 个方差为 1 的乘积 q_i·k_i 之和，所以 Var(q·k) = d_k：分数的离散程度像 √d_k 一样增长。",
    },
    "lesson.variance.question": {"en": "At d_k = {dk}, what is the variance of q·k?", "zh": "当 d_k = {dk} 时，q·k 的方差是多少？"},
    "lesson.variance.takeaway": {
        "en": "Independent terms add their variances: d_k terms of variance 1 give Var(q·k) = d_k.",
        "zh": "独立项的方差相加：d_k 个方差为 1 的项，合起来 Var(q·k) = d_k。",
    },
    # 2 saturation
    "lesson.saturation.name": {"en": "Softmax saturates", "zh": "softmax 饱和"},
    "lesson.saturation.claim": {
        "en": "Without scaling, large scores make the softmax nearly one-hot: the top key takes almost all the weight.",
        "zh": "不缩放时，过大的分数让 softmax 几乎变成 one-hot：得分最高的键拿走几乎全部权重。",
    },
    "lesson.saturation.question": {
        "en": "No scaling, d_k = {dk}, n = {n}: on average, what share of a row's weight goes to its top key?",
        "zh": "不缩放，d_k = {dk}，n = {n}：平均而言，一行里得分最高的键分到多少权重？",
    },
    "lesson.saturation.takeaway": {
        "en": "Uniform attention would give each key 1/n. The spread √d_k of the scores swamps the softmax, and one key wins.",
        "zh": "均匀注意力会给每个键 1/n。分数的离散程度 √d_k 压倒了 softmax，于是一个键胜出。",
    },
    # 3 gradients
    "lesson.gradients.name": {"en": "Gradients vanish", "zh": "梯度消失"},
    "lesson.gradients.claim": {
        "en": "A saturated softmax passes almost no gradient back: J = diag(p) − ppᵀ → 0 as p turns one-hot.",
        "zh": "饱和的 softmax 几乎传不回梯度：p 变成 one-hot 时，J = diag(p) − ppᵀ → 0。",
    },
    "lesson.gradients.question": {
        "en": "No scaling, d_k = {dk}, n = {n}: how large is the median gradient ‖∂L/∂q‖?",
        "zh": "不缩放，d_k = {dk}，n = {n}：梯度 ‖∂L/∂q‖ 的中位数有多大？",
    },
    "lesson.gradients.takeaway": {
        "en": "The median falls faster than any power of d_k, so most queries stop learning; the mean does not fall, because rare near-ties dominate it.",
        "zh": "中位数下降得比 d_k 的任何幂次都快，大多数查询因此学不动；均值却不下降，因为少见的近似平局主导了它。",
    },
    # 4 fix
    "lesson.fix.name": {"en": "Divide by √d_k", "zh": "除以 √d_k"},
    "lesson.fix.claim": {
        "en": "Dividing by √d_k gives the scores variance 1 at every d_k: the softmax stays spread, the gradients survive.",
        "zh": "除以 √d_k 后，任何 d_k 下分数的方差都是 1：softmax 保持分散，梯度得以保留。",
    },
    "lesson.fix.question": {
        "en": "With c = 1/√d_k, d_k = {dk}, n = {n}: what share of the weight goes to the top key now?",
        "zh": "使用 c = 1/√d_k，d_k = {dk}，n = {n}：现在得分最高的键分到多少权重？",
    },
    "lesson.fix.takeaway": {
        "en": "Var(q·k/√d_k) = d_k/d_k = 1: the curve is flat, whatever d_k is. √d_k is the variance-preserving choice at initialisation, not a theorem of optimality.",
        "zh": "Var(q·k/√d_k) = d_k/d_k = 1：无论 d_k 多大，曲线都是平的。√d_k 是初始化时保持方差的选择，并非什么最优性定理。",
    },
    # 5 scales
    "lesson.scales.name": {"en": "Why not 1/d_k or 1/ln d_k?", "zh": "为什么不用 1/d_k 或 1/ln d_k？"},
    "lesson.scales.claim": {
        "en": "1/√d_k keeps the variance at 1; 1/d_k flattens attention towards uniform, 1/ln d_k lets the scores keep growing.",
        "zh": "1/√d_k 让方差保持为 1；1/d_k 把注意力压向均匀分布，1/ln d_k 则让分数继续增长。",
    },
    "lesson.scales.question": {
        "en": "With {scale}, d_k = {dk}: what share of the n = {n} keys does a row effectively use (e^H / n)?",
        "zh": "使用 {scale}，d_k = {dk}：一行实际用到 n = {n} 个键中的多大比例（e^H / n）？",
    },
    "lesson.scales.takeaway": {
        "en": "Var(c·q·k) = c²·d_k: 1/d_k gives 1/d_k (→ 0, every key equal), 1/ln d_k gives d_k/ln² d_k (→ ∞, one key), 1/√d_k gives 1.",
        "zh": "Var(c·q·k) = c²·d_k：1/d_k 得到 1/d_k（→ 0，所有键一样），1/ln d_k 得到 d_k/ln² d_k（→ ∞，只剩一个键），1/√d_k 得到 1。",
    },
    # 6 length
    "lesson.length.name": {"en": "Longer rows dilute attention", "zh": "序列越长，注意力越分散"},
    "lesson.length.claim": {
        "en": "√d_k fixes the dimension, not the length: with more keys, the top key's weight fades like 1/n.",
        "zh": "√d_k 解决的是维度问题，不是长度问题：键越多，最高权重像 1/n 一样衰减。",
    },
    "lesson.length.question": {
        "en": "With ÷√d_k, d_k = {dk}, n = {n}: how much weight does the top key get on average?",
        "zh": "使用 ÷√d_k，d_k = {dk}，n = {n}：得分最高的键平均分到多少权重？",
    },
    "lesson.length.takeaway": {
        "en": "For logits of variance σ², the entropy tends to ln n − σ²/2: the gap to uniform stays, the weight on any one key fades. Multiplying by ln n (Chiang & Cholak 2022) keeps the top weight up.",
        "zh": "方差为 σ² 的 logit，熵趋于 ln n − σ²/2：与均匀分布的差距不变，而任何一个键上的权重都在变小。乘以 ln n（Chiang & Cholak 2022）能让最大权重保持住。",
    },
    # 7 training
    "lesson.training.name": {"en": "Training correlates q and k", "zh": "训练让 q 与 k 相关"},
    "lesson.training.claim": {
        "en": "Training aligns q and k: with correlation ρ, q·k/√d_k grows like ρ√d_k. This is why μP divides by d_k instead.",
        "zh": "训练让 q 与 k 对齐：相关系数为 ρ 时，q·k/√d_k 像 ρ√d_k 一样增长。这就是 μP 改为除以 d_k 的原因。",
    },
    "lesson.training.question": {
        "en": "With ρ = {rho} and ÷√d_k, d_k = {dk}: how large is a typical scaled score (its RMS)?",
        "zh": "ρ = {rho}，使用 ÷√d_k，d_k = {dk}：缩放后分数的典型大小（均方根）是多少？",
    },
    "lesson.training.takeaway": {
        "en": "The √d_k argument assumes independent q and k, which holds at initialisation only. With ρ > 0 the mean ρ·d_k dominates the spread √d_k, and only 1/d_k cancels it (Tensor Programs V).",
        "zh": "√d_k 的论证假设 q 与 k 独立，这只在初始化时成立。ρ > 0 时均值 ρ·d_k 压过离散程度 √d_k，只有 1/d_k 才能抵消它（Tensor Programs V）。",
    },
    # 8 modern
    "lesson.modern.name": {"en": "What modern models do instead", "zh": "现代模型的做法"},
    "lesson.modern.claim": {
        "en": "Modern models bound the scores themselves: QK-norm and cosine attention make them independent of ‖q‖ and ‖k‖.",
        "zh": "现代模型直接限制分数本身：QK-norm 和余弦注意力让分数与 ‖q‖、‖k‖ 无关。",
    },
    "lesson.modern.question": {
        "en": "‖q‖ and ‖k‖ grow {alpha}-fold in training (d_k = {dk}, n = {n}). With {method}, what share of the weight goes to the top key?",
        "zh": "训练让 ‖q‖、‖k‖ 增长到 {alpha} 倍（d_k = {dk}，n = {n}）。使用{method}时，得分最高的键分到多少权重？",
    },
    "lesson.modern.takeaway": {
        "en": "÷√d_k alone lets the scores grow like α². QK-norm (ViT-22B, Gemma 3) and cosine/τ (Swin V2) do not depend on the norms at all; a soft-cap of 50 (Gemma 2) only clips the extreme logits.",
        "zh": "只除以 √d_k 时，分数像 α² 一样增长。QK-norm（ViT-22B、Gemma 3）和余弦/τ（Swin V2）完全不受范数影响；上限为 50 的软截断（Gemma 2）只截掉极端的 logit。",
    },
}
