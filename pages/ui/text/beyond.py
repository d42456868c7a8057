"""Beyond √d_k page strings."""
# ruff: noqa: E501  (prose: translation lines are as long as their sentences)

TEXT: dict[str, dict[str, str]] = {
    "beyond.nav": {"en": "Beyond √d_k", "zh": "超越 √d_k"},
    "beyond.title": {"en": "Beyond √d_k: what modern models do instead", "zh": "超越 √d_k：现代模型的其他做法"},
    "beyond.intro": {
        "en": "1/√d_k keeps the logit variance at 1 when q and k are independent with unit-variance components — at initialisation. "
              "Training breaks each assumption: q and k become correlated, their norms grow, contexts get long, and real initialisations do not give unit variance. "
              "Pick a section: each measures one of these live.",
        "zh": "当 q 与 k 相互独立、各分量方差为 1 时——也就是初始化时——1/√d_k 能让 logit 方差保持为 1。"
              "训练会逐一打破这些假设：q 与 k 变得相关，范数增大，上下文变长，而实际的初始化也不给出单位方差。选择一节：每一节实时测量其中一项。",
    },
    # correlated
    "beyond.corr.header": {"en": "1 · Correlated q and k: why μP divides by d", "zh": "1 · q 与 k 相关：μP 为什么除以 d"},
    "beyond.corr.text": {
        "en": "Let each query's own key be correlated with it, k = ρq + √(1 − ρ²)z. The mean of q·k is then ρ·d_k, which grows like d_k, not √d_k. "
              "After ÷√d_k the matching key's logit is ρ√d_k and keeps growing, so attention collapses onto it as d_k grows; after ÷d_k it is ρ and the entropy settles. "
              "This is why μP (Tensor Programs V, arXiv:2203.03466, Def. 4.1) scales attention by 1/d: during training q and k do become correlated.",
        "zh": "让每个查询自己的键与它相关：k = ρq + √(1 − ρ²)z。于是 q·k 的均值为 ρ·d_k，按 d_k 而非 √d_k 增长。"
              "除以 √d_k 后，匹配键的 logit 为 ρ√d_k，随 d_k 继续增长，注意力随之坍缩到这个键上；除以 d_k 后它是 ρ，熵趋于稳定。"
              "这就是 μP（Tensor Programs V，arXiv:2203.03466，定义 4.1）用 1/d 缩放注意力的原因：训练中 q 与 k 确实会变得相关。",
    },
    "beyond.rho": {"en": "Correlation ρ between a query and its own key", "zh": "查询与其自身键的相关系数 ρ"},
    "beyond.rho_help": {"en": "Used by sections 1, 2 and 3.", "zh": "第 1、2、3 节使用这个值。"},
    "beyond.part": {"en": "Section", "zh": "章节"},
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
    # norm growth
    "beyond.norm.header": {"en": "2 · Growing norms: QK-norm, cosine attention, soft-capping", "zh": "2 · 范数增长：QK-norm、余弦注意力、软截断"},
    "beyond.norm.text": {
        "en": "During training ‖q‖ and ‖k‖ grow; with q, k → αq, αk the logits grow like α² and attention collapses (ViT-22B saw near-zero entropy, arXiv:2302.05442 §2). "
              "QK-norm normalises q and k first (Henry et al. 2020, arXiv:2010.04245; Wortsman et al. 2023, arXiv:2309.14322); cosine attention divides by the norms and "
              "uses a temperature τ ≥ 0.01 (Swin V2, arXiv:2111.09883 §3.2). Gemma 2 soft-caps the logits at 50 (arXiv:2408.00118 §2); Gemma 3 replaced it with QK-norm.",
        "zh": "训练中 ‖q‖ 与 ‖k‖ 会增大；当 q、k → αq、αk 时，logit 按 α² 增长，注意力坍缩（ViT-22B 观察到熵接近 0，arXiv:2302.05442 §2）。"
              "QK-norm 先对 q、k 做归一化（Henry 等 2020，arXiv:2010.04245；Wortsman 等 2023，arXiv:2309.14322）；余弦注意力除以范数并使用温度 τ ≥ 0.01"
              "（Swin V2，arXiv:2111.09883 §3.2）。Gemma 2 把 logit 软截断在 50（arXiv:2408.00118 §2）；Gemma 3 改用 QK-norm。",
    },
    "beyond.tau": {"en": "Cosine temperature τ", "zh": "余弦温度 τ"},
    "beyond.cap": {"en": "Soft-cap (Gemma 2: 50)", "zh": "软截断上限（Gemma 2：50）"},
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
        "en": "With the logit variance held at σ² = 1, the entropy over n iid keys tends to ln n − σ²/2: attention spreads as the context grows, and the weight on "
              "the one matching key fades. Log-length scaling multiplies the logits by ln n (Chiang & Cholak 2022, arXiv:2202.12172); Scalable-Softmax by s·ln n "
              "with a learnable s (arXiv:2501.19399); YaRN adjusts a temperature with the context length (arXiv:2309.00071 §3.4).",
        "zh": "在 logit 方差保持 σ² = 1 时，n 个独立同分布键上的熵趋于 ln n − σ²/2：上下文越长，注意力越分散，唯一匹配键上的权重随之衰减。"
              "对数长度缩放把 logit 乘以 ln n（Chiang & Cholak 2022，arXiv:2202.12172）；Scalable-Softmax 乘以 s·ln n，s 可学习（arXiv:2501.19399）；"
              "YaRN 随上下文长度调整温度（arXiv:2309.00071 §3.4）。",
    },
    "beyond.s": {"en": "SSMax parameter s", "zh": "SSMax 参数 s"},
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
        "en": "The √d_k argument assumes unit-variance q and k. Here they come from real torch modules applied to LayerNorm'd inputs x (so E[x_i²] = 1): one head's "
              "d_k components of q = x W_Qᵀ + b_Q, and the logit q_i·k_j/√d_k between different tokens. Theory: Var(q) = d_model·Var(w) (+ Var(b)), logit variance Var(q)·Var(k).",
        "zh": "√d_k 的论证假设 q 与 k 的方差为 1。这里它们来自真实的 torch 模块，作用于经 LayerNorm 处理的输入 x（因此 E[x_i²] = 1）：取一个头的 d_k 个分量 "
              "q = x W_Qᵀ + b_Q，以及不同词之间的 logit q_i·k_j/√d_k。理论值：Var(q) = d_model·Var(w)（+ Var(b)），logit 方差为 Var(q)·Var(k)。",
    },
    "beyond.d_model": {"en": "Model width d_model", "zh": "模型宽度 d_model"},
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
              "logit variance anywhere from about 0.1 to above 2 (section 4). Modern models add the missing control: 1/d (μP), QK-norm, soft-caps, length-aware scales.",
        "zh": "√d_k 只在一种情形下是精确的——q 与 k 独立且方差为 1——而每一节都离开了这种情形：相关性使 logit 按 d_k 增长（第 1 节），"
              "范数增长使其按 α² 增长（第 2 节），长上下文无论 d_k 多大都会让注意力分散（第 3 节），实际的初始化让 logit 方差落在约 0.1 到 2 以上之间（第 4 节）。"
              "现代模型补上了缺失的控制：1/d（μP）、QK-norm、软截断、随长度变化的缩放。",
    },
}
