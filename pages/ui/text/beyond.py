"""Beyond √d_k page strings."""
# ruff: noqa: E501  (prose: translation lines are as long as their sentences)

TEXT: dict[str, dict[str, str]] = {
    "beyond.nav": {"en": "Beyond √d_k", "zh": "超越 √d_k"},
    "beyond.title": {"en": "Beyond √d_k: what modern models do instead", "zh": "超越 √d_k：现代模型的其他做法"},
    "beyond.intro": {
        "en": "Dividing by √d_k keeps the logits at variance 1 when q and k are independent with unit-variance components — at initialisation, before training. "
              "Training breaks each assumption: q and k become correlated, their lengths grow, contexts get long, and real initialisations do not give unit variance. "
              "Pick a section: each measures one of these live.",
        "zh": "当 q 与 k 相互独立、各分量方差为 1 时——也就是训练开始前的初始化时——除以 √d_k 能让 logit 的方差保持为 1。"
              "训练会逐一打破这些假设：q 与 k 变得相关，长度增大，上下文变长，而实际的初始化也不给出单位方差。选择一节：每一节实时测量其中一项。",
    },
    "beyond.terms": {
        "en": "- **logit**: a score s = q·k/√d_k that softmax turns into a weight.\n"
              "- **entropy H** of one query's weights p: H = −Σ p_j ln p_j, in nats; ln n when the weight is spread evenly over n keys, 0 when one key takes it all.\n"
              "- **ρ** (rho): the correlation between a query and its own key; 0 means unrelated, 1 means identical.",
        "zh": "- **logit**：softmax 把它变成权重的分数 s = q·k/√d_k。\n"
              "- 一个查询的权重 p 的**熵 H**：H = −Σ p_j ln p_j，单位为奈特；权重在 n 个键上均匀分布时为 ln n，全部落在一个键上时为 0。\n"
              "- **ρ**（rho）：查询与其自身键之间的相关系数；0 表示无关，1 表示完全相同。",
    },
    "beyond.more": {"en": "More: the research behind this section", "zh": "更多：本节背后的研究"},
    # correlated
    "beyond.corr.pick": {"en": "1 · Correlated q and k", "zh": "1 · q 与 k 相关"},
    "beyond.norm.pick": {"en": "2 · Growing norms", "zh": "2 · 范数增长"},
    "beyond.len.pick": {"en": "3 · Many keys", "zh": "3 · 键很多时"},
    "beyond.init.pick": {"en": "4 · Real initialisations", "zh": "4 · 实际初始化"},
    "beyond.corr.header": {"en": "1 · Correlated q and k: why μP divides by d", "zh": "1 · q 与 k 相关：μP 为什么除以 d"},
    "beyond.corr.text": {
        "en": "Let each query's own key be correlated with it: k = ρq + √(1 − ρ²)z, with z fresh noise. The mean of q·k is then ρ·d_k, which grows like d_k, not √d_k. "
              "After ÷√d_k the matching key's logit is ρ√d_k and keeps growing, so attention collapses onto that key as d_k grows; after ÷d_k it is ρ and the entropy settles. "
              "This is why μP divides attention logits by d_k rather than √d_k: during training q and k do become correlated.",
        "zh": "让每个查询自己的键与它相关：k = ρq + √(1 − ρ²)z，z 为新的噪声。于是 q·k 的均值为 ρ·d_k，按 d_k 而非 √d_k 增长。"
              "除以 √d_k 后，匹配键的 logit 为 ρ√d_k，随 d_k 继续增长，注意力随之坍缩到这个键上；除以 d_k 后它是 ρ，熵趋于稳定。"
              "这就是 μP 用 d_k 而不是 √d_k 去除注意力 logit 的原因：训练中 q 与 k 确实会变得相关。",
    },
    "beyond.corr.terms": {
        "en": "- **μP** (maximal update parametrisation): a recipe for scaling a network's initialisation, learning rates and multipliers with its width, so that settings tuned on a small model carry over to a large one; for attention it divides by d_k.\n"
              "- **÷d_k**: dividing q·k by d_k instead of √d_k.\n"
              "- **√E[(q·k)²]** (root mean square): the typical size of q·k, its mean and its spread together.",
        "zh": "- **μP**（最大更新参数化）：一套随网络宽度缩放初始化、学习率和乘子的规则，使在小模型上调好的设置能直接用于大模型；对注意力，它除以 d_k。\n"
              "- **÷d_k**：用 d_k 而不是 √d_k 去除 q·k。\n"
              "- **√E[(q·k)²]**（均方根）：q·k 的典型大小，同时计入均值与离散程度。",
    },
    "beyond.corr.more": {
        "en": "μP: Yang et al., Tensor Programs V (arXiv:2203.03466), Definition 4.1 and footnote 8: once trained, q and k are correlated and q·k grows like d, so the attention multiplier is 1/d.",
        "zh": "μP：Yang 等，Tensor Programs V（arXiv:2203.03466），定义 4.1 与脚注 8：训练之后 q 与 k 相关，q·k 按 d 增长，所以注意力的乘子取 1/d。",
    },
    "beyond.rho": {"en": "Correlation ρ between a query and its own key", "zh": "查询与其自身键的相关系数 ρ"},
    "beyond.rho_help": {"en": "ρ = 0: a query's own key is unrelated to it; ρ = 1: identical. Used by sections 1, 2 and 3.",
                        "zh": "ρ = 0：查询自身的键与它无关；ρ = 1：两者相同。第 1、2、3 节使用这个值。"},
    "beyond.part": {"en": "Section", "zh": "章节"},
    "beyond.part_help": {
        "en": "1: μP (maximal update parametrisation) is a recipe for scaling a network with its width; it divides attention by d_k. "
              "2: QK-norm, cosine attention and soft-capping are three ways to keep the logits bounded as q and k grow. "
              "3: what a long context does to attention. 4: the variance real initialisations give q. Each section defines its terms.",
        "zh": "1：μP（最大更新参数化）是一套随网络宽度缩放的规则，它用 d_k 去除注意力。2：QK-norm、余弦注意力和软截断是 q、k 增大时限制 logit 大小的三种做法。"
              "3：长上下文对注意力的影响。4：实际初始化给 q 的方差。每一节都会解释它用到的术语。",
    },
    "beyond.corr.rms.title": {"en": "Typical size of q·k at ρ = {rho}", "zh": "ρ = {rho} 时 q·k 的典型大小"},
    "beyond.corr.rms.y": {"en": "√E[(q·k)²] (log)", "zh": "√E[(q·k)²]（对数）"},
    "beyond.corr.series": {"en": "series", "zh": "序列"},
    "beyond.corr.measured": {"en": "measured √E[(q·k)²]", "zh": "测量 √E[(q·k)²]"},
    "beyond.corr.sqrt_ref": {"en": "√d_k", "zh": "√d_k"},
    "beyond.corr.linear_ref": {"en": "ρ·d_k", "zh": "ρ·d_k"},
    "beyond.corr.entropy.title": {"en": "Entropy over n = {n} keys, {scale}", "zh": "对 n = {n} 个键的熵，{scale}"},
    "beyond.corr.entropy.y": {"en": "entropy H (nats)", "zh": "熵 H（奈特）"},
    "beyond.corr.legend": {"en": "ρ", "zh": "ρ"},
    "beyond.corr.caption": {
        "en": "Points: measured mean entropy over {trials} trials (each row's own key correlated at ρ). The dashed line is ln n, uniform attention.",
        "zh": "点：{trials} 次试验的平均熵（每行自身的键以 ρ 相关）。虚线为 ln n，即均匀注意力。",
    },
    "beyond.corr.overlap.linear.all": {
        "en": "÷d_k: the {curves} ρ lines lie on top of one another — at every d_k they differ by at most {spread} nats, under {pct} % of ln n = {ln_n}.",
        "zh": "÷d_k：{curves} 条 ρ 曲线彼此重合——在每个 d_k 下相差至多 {spread} 奈特，不到 ln n = {ln_n} 的 {pct}%。",
    },
    "beyond.corr.overlap.linear.up_to": {
        "en": "÷d_k: the {curves} ρ lines lie on top of one another up to d_k = {dk} (within {pct} % of ln n = {ln_n}) and separate from d_k = {apart} on.",
        "zh": "÷d_k：{curves} 条 ρ 曲线在 d_k ≤ {dk} 时彼此重合（相差在 ln n = {ln_n} 的 {pct}% 以内），从 d_k = {apart} 起分开。",
    },
    "beyond.corr.overlap.linear.none": {
        "en": "÷d_k: the {curves} ρ lines are apart from the first d_k on (by more than {pct} % of ln n = {ln_n}).",
        "zh": "÷d_k：{curves} 条 ρ 曲线从第一个 d_k 起就分开（相差超过 ln n = {ln_n} 的 {pct}%）。",
    },
    "beyond.corr.overlap.linear.why": {
        "en": "After ÷d_k the matching key's logit is only ρ and the other keys' are about ±1/√d_k: all near 0, so every weight is near 1/n and the entropy near ln n, whatever ρ is.",
        "zh": "除以 d_k 后，匹配键的 logit 只有 ρ，其余键的约为 ±1/√d_k：都接近 0，所以每个权重都接近 1/n，熵接近 ln n，与 ρ 无关。",
    },
    "beyond.corr.overlap.sqrt.all": {
        "en": "÷√d_k: the {curves} ρ lines lie on top of one another at every d_k shown — they differ by at most {spread} nats, under {pct} % of ln n = {ln_n}.",
        "zh": "÷√d_k：{curves} 条 ρ 曲线在所示的每个 d_k 下都彼此重合——相差至多 {spread} 奈特，不到 ln n = {ln_n} 的 {pct}%。",
    },
    "beyond.corr.overlap.sqrt.up_to": {
        "en": "÷√d_k: the {curves} ρ lines lie on top of one another up to d_k = {dk} (within {pct} % of ln n = {ln_n}) and separate from d_k = {apart} on.",
        "zh": "÷√d_k：{curves} 条 ρ 曲线在 d_k ≤ {dk} 时彼此重合（相差在 ln n = {ln_n} 的 {pct}% 以内），从 d_k = {apart} 起分开。",
    },
    "beyond.corr.overlap.sqrt.none": {
        "en": "÷√d_k: the {curves} ρ lines are apart from the first d_k on (by more than {pct} % of ln n = {ln_n}).",
        "zh": "÷√d_k：{curves} 条 ρ 曲线从第一个 d_k 起就分开（相差超过 ln n = {ln_n} 的 {pct}%）。",
    },
    "beyond.corr.overlap.sqrt.why": {
        "en": "After ÷√d_k the matching key's logit is ρ√d_k: small at small d_k, then large enough to pull the weight onto that key — sooner for a larger ρ.",
        "zh": "除以 √d_k 后，匹配键的 logit 为 ρ√d_k：d_k 小时很小，d_k 变大后足以把权重拉到这个键上——ρ 越大，来得越早。",
    },
    # norm growth
    "beyond.norm.header": {"en": "2 · Growing norms: QK-norm, cosine attention, soft-capping", "zh": "2 · 范数增长：QK-norm、余弦注意力、软截断"},
    "beyond.norm.text": {
        "en": "During training the lengths ‖q‖ and ‖k‖ grow; if q and k grow to αq and αk, the logits grow like α² and attention collapses onto one key. "
              "Three remedies bound the logits: QK-norm normalises each query and key before the dot product; cosine attention uses the cosine of the angle "
              "between q and k, divided by a temperature τ; soft-capping squashes each logit smoothly into (−cap, cap).",
        "zh": "训练中 q 与 k 的长度 ‖q‖、‖k‖ 会增大；当 q、k 变为 αq、αk 时，logit 按 α² 增长，注意力坍缩到一个键上。"
              "三种做法限制 logit 的大小：QK-norm 在点积之前先对每个查询和键做归一化；余弦注意力使用 q 与 k 夹角的余弦，再除以温度 τ；软截断把每个 logit 平滑地压进 (−cap, cap)。",
    },
    "beyond.norm.terms": {
        "en": "- **norm ‖q‖**: the length of the vector q, √(q₁² + … + q_d²).\n"
              "- **α**: the factor by which q and k have both grown.\n"
              "- **QK-norm**: LayerNorm each q and k (subtract the vector's mean, divide by its standard deviation), then q·k/√d_k as usual; the logit then never exceeds √d_k.\n"
              "- **cosine attention**: logit = cos(q, k)/τ = q·k/(τ‖q‖‖k‖); the cosine lies in [−1, 1], so the logit lies in [−1/τ, 1/τ].\n"
              "- **temperature τ**: the number the logits are divided by; a small τ sharpens the weights, a large one flattens them.\n"
              "- **soft-capping**: logit → cap·tanh(logit/cap), almost unchanged while small, never beyond ±cap.",
        "zh": "- **范数 ‖q‖**：向量 q 的长度 √(q₁² + … + q_d²)。\n"
              "- **α**：q 与 k 同时放大的倍数。\n"
              "- **QK-norm**：先对每个 q、k 做 LayerNorm（减去向量的均值，再除以其标准差），再照常计算 q·k/√d_k；这样 logit 不会超过 √d_k。\n"
              "- **余弦注意力**：logit = cos(q, k)/τ = q·k/(τ‖q‖‖k‖)；余弦在 [−1, 1] 内，所以 logit 在 [−1/τ, 1/τ] 内。\n"
              "- **温度 τ**：logit 要除以的数；τ 小则权重更尖锐，τ 大则更平坦。\n"
              "- **软截断**：logit → cap·tanh(logit/cap)，logit 较小时几乎不变，但绝不超过 ±cap。",
    },
    "beyond.norm.more": {
        "en": "ViT-22B saw near-zero attention entropy as its logits grew (arXiv:2302.05442 §2). QK-norm: Henry et al. 2020 (arXiv:2010.04245); Wortsman et al. 2023 (arXiv:2309.14322). "
              "Cosine attention with a learned τ kept at least 0.01: Swin Transformer V2 (arXiv:2111.09883 §3.2). Gemma 2 soft-caps attention logits at 50 (arXiv:2408.00118 §2); Gemma 3 replaced the cap with QK-norm.",
        "zh": "ViT-22B 在 logit 增大时观察到接近 0 的注意力熵（arXiv:2302.05442 §2）。QK-norm：Henry 等 2020（arXiv:2010.04245）；Wortsman 等 2023（arXiv:2309.14322）。"
              "余弦注意力配合可学习、下限为 0.01 的 τ：Swin Transformer V2（arXiv:2111.09883 §3.2）。Gemma 2 把注意力 logit 软截断在 50（arXiv:2408.00118 §2）；Gemma 3 改用 QK-norm。",
    },
    "beyond.tau": {"en": "Cosine temperature τ", "zh": "余弦温度 τ"},
    "beyond.tau_help": {"en": "Cosine attention divides the cosine by τ: a smaller τ gives sharper weights.", "zh": "余弦注意力把余弦除以 τ：τ 越小，权重越尖锐。"},
    "beyond.cap": {"en": "Soft-cap (Gemma 2: 50)", "zh": "软截断上限（Gemma 2：50）"},
    "beyond.cap_help": {"en": "Soft-capping keeps every logit inside (−cap, cap): logit → cap·tanh(logit/cap).", "zh": "软截断让每个 logit 都落在 (−cap, cap) 内：logit → cap·tanh(logit/cap)。"},
    "beyond.norm.entropy.title": {"en": "Entropy as q and k grow by α (d_k = {dk}, n = {n}, ρ = {rho})", "zh": "q、k 放大 α 倍时的熵（d_k = {dk}，n = {n}，ρ = {rho}）"},
    "beyond.norm.logit.title": {"en": "Largest |logit| as q and k grow by α", "zh": "q、k 放大 α 倍时的最大 |logit|"},
    "beyond.norm.alpha": {"en": "norm growth α (log)", "zh": "范数放大倍数 α（对数）"},
    "beyond.norm.entropy.y": {"en": "entropy H (nats)", "zh": "熵 H（奈特）"},
    "beyond.norm.logit.y": {"en": "max |logit| (log)", "zh": "最大 |logit|（对数）"},
    "beyond.norm.legend": {"en": "scores", "zh": "打分方式"},
    "beyond.norm.caption": {
        "en": "Soft-capping bounds the logits (no overflow) but at cap = {cap} it does not stop the collapse until the top logits pile up at the cap; "
              "cosine and QK-norm do not depend on α at all.",
        "zh": "软截断限制了 logit 的大小（不会溢出），但在上限为 {cap} 时，直到最大的几个 logit 挤到上限附近之前，它都挡不住坍缩；余弦与 QK-norm 完全不受 α 影响。",
    },
    "beyond.method.sqrt": {"en": "÷√d_k (plain)", "zh": "÷√d_k（原始）"},
    "beyond.method.softcap": {"en": "÷√d_k, then cap·tanh(s/cap)", "zh": "÷√d_k 后 cap·tanh(s/cap)"},
    "beyond.method.cosine": {"en": "cosine / τ", "zh": "余弦 / τ"},
    "beyond.method.qk-norm": {"en": "QK-norm: LN(q)·LN(k)/√d_k", "zh": "QK-norm：LN(q)·LN(k)/√d_k"},
    # length
    "beyond.len.header": {"en": "3 · Many keys: √d_k fixes the dimension, not the length", "zh": "3 · 键很多时：√d_k 解决的是维度，而不是长度"},
    "beyond.len.text": {
        "en": "With the logit variance held at σ² = 1, the entropy over n independent keys tends to ln n − σ²/2: attention spreads out as the context grows, and the weight on "
              "the one matching key fades. Two remedies multiply the logits by a factor that grows with the context length n: log-length scaling by ln n, "
              "Scalable-Softmax (SSMax) by s·ln n.",
        "zh": "在 logit 方差保持 σ² = 1 时，n 个独立键上的熵趋于 ln n − σ²/2：上下文越长，注意力越分散，唯一匹配键上的权重随之衰减。"
              "两种做法把 logit 乘以一个随上下文长度 n 增长的因子：对数长度缩放乘以 ln n，Scalable-Softmax（SSMax）乘以 s·ln n。",
    },
    "beyond.len.terms": {
        "en": "- **context length n**: the number of keys one query attends over.\n"
              "- **σ²**: the variance of the logits.\n"
              "- **log-length scaling**: logits × ln n, so a longer context gets proportionally sharper weights.\n"
              "- **SSMax** (Scalable-Softmax): logits × s·ln n, with s a parameter the model learns (the slider sets it here).",
        "zh": "- **上下文长度 n**：一个查询所关注的键的个数。\n"
              "- **σ²**：logit 的方差。\n"
              "- **对数长度缩放**：logit × ln n，上下文越长，权重相应越尖锐。\n"
              "- **SSMax**（Scalable-Softmax）：logit × s·ln n，其中 s 是模型学习的参数（此处由滑块设定）。",
    },
    "beyond.len.more": {
        "en": "Log-length scaling: Chiang & Cholak 2022 (arXiv:2202.12172). Scalable-Softmax: arXiv:2501.19399. YaRN adjusts a softmax temperature with the context length (arXiv:2309.00071 §3.4).",
        "zh": "对数长度缩放：Chiang & Cholak 2022（arXiv:2202.12172）。Scalable-Softmax：arXiv:2501.19399。YaRN 随上下文长度调整 softmax 温度（arXiv:2309.00071 §3.4）。",
    },
    "beyond.s": {"en": "SSMax parameter s", "zh": "SSMax 参数 s"},
    "beyond.s_help": {"en": "SSMax multiplies the logits by s·ln n; a real model learns s.", "zh": "SSMax 把 logit 乘以 s·ln n；实际模型会学习 s。"},
    "beyond.len.entropy.title": {"en": "Entropy vs the number of keys (d_k = {dk}, ρ = {rho})", "zh": "熵与键数的关系（d_k = {dk}，ρ = {rho}）"},
    "beyond.len.target.title": {"en": "Weight on the matching key", "zh": "匹配键上的权重"},
    "beyond.len.entropy.y": {"en": "entropy H (nats)", "zh": "熵 H（奈特）"},
    "beyond.len.target.y": {"en": "weight on key 0 (log)", "zh": "键 0 上的权重（对数）"},
    "beyond.len.legend": {"en": "logits", "zh": "logit"},
    "beyond.len.ln_n": {"en": "ln n (uniform)", "zh": "ln n（均匀）"},
    "beyond.len.theory": {"en": "theory ln n − 1/2", "zh": "理论 ln n − 1/2"},
    "beyond.len.uniform": {"en": "1/n (uniform)", "zh": "1/n（均匀）"},
    "beyond.len.caption": {
        "en": "One query against n keys, key 0 correlated with the query at ρ; {trials} trials (exact reduced sampler: the scores of iid normal keys given q are N(0, ‖q‖²)). The same query and keys serve every n (a context of n keys is the first n), so each curve follows one path as the context grows; the shaded band is the entropy's 95 % confidence interval.",
        "zh": "一个查询对 n 个键，键 0 与查询以 ρ 相关；共 {trials} 次试验（精确的降维采样：给定 q 时，独立正态键的分数服从 N(0, ‖q‖²)）。所有 n 共用同一个查询与同一组键（n 个键的上下文取其中前 n 个），因此每条曲线随上下文增长沿同一条路径变化；阴影带为熵的 95% 置信区间。",
    },
    "beyond.len.rho0": {"en": "At ρ = 0 no key is special; raise ρ in section 1 to give the query a matching key.", "zh": "ρ = 0 时没有哪个键是特殊的；在第 1 节调高 ρ，让查询有一个匹配键。"},
    "beyond.length.none": {"en": "÷√d_k only", "zh": "仅 ÷√d_k"},
    "beyond.length.log-n": {"en": "× ln n (log-n scaling)", "zh": "× ln n（对数长度缩放）"},
    "beyond.length.ssmax": {"en": "× s·ln n (SSMax, s = {s})", "zh": "× s·ln n（SSMax，s = {s}）"},
    # init
    "beyond.init.header": {"en": "4 · Real initialisations: is Var(q) really 1?", "zh": "4 · 实际初始化：Var(q) 真的是 1 吗？"},
    "beyond.init.text": {
        "en": "The √d_k argument assumes unit-variance q and k. Here they come from real PyTorch modules applied to LayerNorm'd inputs x (so E[x_i²] = 1): one head's "
              "d_k components of q = x W_Qᵀ + b_Q, and the logit q_i·k_j/√d_k between different tokens. Theory: Var(q) = d_model·Var(w) (+ Var(b)), and the logit variance is Var(q)·Var(k).",
        "zh": "√d_k 的论证假设 q 与 k 的方差为 1。这里它们来自真实的 PyTorch 模块，作用于经 LayerNorm 处理的输入 x（因此 E[x_i²] = 1）：取一个头的 d_k 个分量 "
              "q = x W_Qᵀ + b_Q，以及不同词之间的 logit q_i·k_j/√d_k。理论值：Var(q) = d_model·Var(w)（+ Var(b)），logit 方差为 Var(q)·Var(k)。",
    },
    "beyond.init.terms": {
        "en": "- **d_model**: the model's width, the length of each token's vector before it is split into heads.\n"
              "- **W_Q, b_Q**: the weight matrix and bias that turn a token's vector x into its query q (W_K, b_K: its key).\n"
              "- **LayerNorm'd x**: each token's vector shifted and scaled to mean 0 and variance 1, as a transformer block feeds its attention.\n"
              "- **Xavier initialisation**: weights drawn with variance 2/(fan_in + fan_out), fan_in and fan_out being a layer's input and output sizes.\n"
              "- **nn.Linear default**: PyTorch's own rule for a linear layer: weights uniform with variance 1/(3·fan_in), plus a random bias.\n"
              "- **nn.MultiheadAttention**: PyTorch's attention module; it draws W_Q, W_K and W_V as one matrix three times as tall, with Xavier's rule.\n"
              "- **GPT-2's rule**: every weight N(0, 0.02²), whatever the width.",
        "zh": "- **d_model**：模型宽度，即每个词的向量在拆分成多个头之前的长度。\n"
              "- **W_Q、b_Q**：把词向量 x 变成查询 q 的权重矩阵与偏置（W_K、b_K：变成键）。\n"
              "- **经 LayerNorm 处理的 x**：每个词的向量经平移与缩放后均值为 0、方差为 1，Transformer 块正是这样把输入交给注意力的。\n"
              "- **Xavier 初始化**：权重的方差取 2/(fan_in + fan_out)，fan_in 与 fan_out 为该层的输入与输出维度。\n"
              "- **nn.Linear 默认初始化**：PyTorch 线性层自带的规则：权重均匀分布，方差 1/(3·fan_in)，另加随机偏置。\n"
              "- **nn.MultiheadAttention**：PyTorch 的注意力模块；它把 W_Q、W_K、W_V 当作一个三倍高的矩阵，按 Xavier 规则一起初始化。\n"
              "- **GPT-2 的规则**：每个权重都取 N(0, 0.02²)，与宽度无关。",
    },
    "beyond.init.more": {
        "en": "Xavier initialisation: Glorot & Bengio 2010, Understanding the difficulty of training deep feedforward neural networks. PyTorch's nn.Linear default is kaiming_uniform_ with a = √5; "
              "nn.MultiheadAttention applies xavier_uniform_ to its packed 3·d_model × d_model in_proj_weight. GPT-2 initialises every linear weight with standard deviation 0.02 (Radford et al. 2019).",
        "zh": "Xavier 初始化：Glorot & Bengio 2010，Understanding the difficulty of training deep feedforward neural networks。PyTorch 的 nn.Linear 默认使用 a = √5 的 kaiming_uniform_；"
              "nn.MultiheadAttention 对打包在一起的 3·d_model × d_model 的 in_proj_weight 使用 xavier_uniform_。GPT-2 以标准差 0.02 初始化每个线性层权重（Radford 等 2019）。",
    },
    "beyond.d_model": {"en": "Model width d_model", "zh": "模型宽度 d_model"},
    "beyond.d_model_help": {"en": "The length of each token's vector; one head takes d_k of the d_model outputs of W_Q.", "zh": "每个词向量的长度；一个头取 W_Q 的 d_model 个输出中的 d_k 个。"},
    "beyond.init.dk_clamped": {"en": "d_k = {dk} exceeds d_model; using d_k = {used} here.", "zh": "d_k = {dk} 超过 d_model；此处改用 d_k = {used}。"},
    "beyond.init.col.scheme": {"en": "initialisation", "zh": "初始化"},
    "beyond.init.col.var_q": {"en": "Var(q) measured", "zh": "Var(q) 测量"},
    "beyond.init.col.var_q_theory": {"en": "Var(q) theory", "zh": "Var(q) 理论"},
    "beyond.init.col.var_logit": {"en": "Var(q·k/√d_k) measured", "zh": "Var(q·k/√d_k) 测量"},
    "beyond.init.col.var_logit_theory": {"en": "Var(q·k/√d_k) theory", "zh": "Var(q·k/√d_k) 理论"},
    "beyond.init.col.se": {"en": "± std. error", "zh": "± 标准误"},
    "beyond.init.chart.title": {"en": "Logit variance after ÷√d_k (d_model = {d_model}, d_k = {dk})", "zh": "÷√d_k 后的 logit 方差（d_model = {d_model}，d_k = {dk}）"},
    "beyond.init.chart.y": {"en": "Var(q·k/√d_k)", "zh": "Var(q·k/√d_k)"},
    "beyond.init.one": {"en": "1 (the √d_k assumption)", "zh": "1（√d_k 的假设）"},
    "beyond.init.caption": {
        "en": "{instances} fresh modules per initialisation, {tokens} tokens each; the error is the spread between modules.",
        "zh": "每种初始化新建 {instances} 个模块，每个 {tokens} 个词；误差取模块之间的离散程度。",
    },
    "beyond.scheme.xavier-square": {"en": "Xavier, square W_Q", "zh": "Xavier，方阵 W_Q"},
    "beyond.scheme.mha": {"en": "nn.MultiheadAttention", "zh": "nn.MultiheadAttention"},
    "beyond.scheme.linear-default": {"en": "nn.Linear default", "zh": "nn.Linear 默认"},
    "beyond.scheme.gpt2": {"en": "GPT-2: N(0, 0.02²)", "zh": "GPT-2：N(0, 0.02²)"},
    "beyond.notice": {
        "en": "√d_k is exact for one situation — independent, unit-variance q and k — and each section leaves it: correlation makes the logit grow like d_k "
              "(section 1), growing norms like α² (section 2), long contexts spread attention whatever d_k is (section 3), and real initialisations put the "
              "logit variance wherever their scheme and d_model put it, from far below 1 to above it (section 4). Modern models add the missing control: 1/d_k (μP, section 1), QK-norm and soft-caps (section 2), length-aware scales (section 3).",
        "zh": "√d_k 只在一种情形下是精确的——q 与 k 独立且方差为 1——而每一节都离开了这种情形：相关性使 logit 按 d_k 增长（第 1 节），"
              "范数增长使其按 α² 增长（第 2 节），长上下文无论 d_k 多大都会让注意力分散（第 3 节），实际的初始化让 logit 方差随初始化方案和 d_model 而定，从远小于 1 到大于 1 都有（第 4 节）。"
              "现代模型补上了缺失的控制：1/d_k（μP，第 1 节）、QK-norm 与软截断（第 2 节）、随长度变化的缩放（第 3 节）。",
    },
}
