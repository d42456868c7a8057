"""Note 002 (a long blog post, "from first principles"): its statements as claims, and what it says that
cannot be checked."""
# ruff: noqa: E501  (a table of verbatim quotes and their translations: lines are as long as the sentences)

from __future__ import annotations

from core.factcheck import measure_calculus as mc
from core.factcheck import measure_cost as mk
from core.factcheck import measure_init as mi
from core.factcheck import measure_maxima as mx
from core.factcheck import measure_scores as ms
from core.factcheck import measure_training as mt
from core.factcheck.claims import VASWANI, VASWANI_ARXIV, Claim, Note, Source, Unchecked
from core.factcheck.rules import MANY_FRACTION, N_NOTES

NOTE_FILE = "002_3123e0cc24257c42.txt"
NOTE = Note(
    NOTE_FILE,
    "Scaled Dot-Product Attention：从第一性原理出发",
    "Scaled dot-product attention from first principles",
)
FOOTNOTE = Source(VASWANI, VASWANI_ARXIV, "§3.2.1, footnote 4")
SOFTMAX = Source(
    "Bridle 1990 / Goodfellow et al. 2016, Deep Learning §6.2.2.3 (softmax, its Jacobian, max-subtraction)"
)
AUTOGRAD = Source(
    "PyTorch autograd (torch.autograd.functional.jacobian, backward) as the reference", None, "float64"
)
BAHDANAU = Source(
    "Bahdanau et al. 2014", "1409.0473", "App. A.1.2: W_a s and U_a h_j are precomputed once per token"
)
ADDITIVE_SOURCES = (
    Source(
        VASWANI,
        VASWANI_ARXIV,
        "§3.2.1: 'similar in theoretical complexity … much faster and more space-efficient in practice'",
    ),
    BAHDANAU,
)

CLAIMS: tuple[Claim, ...] = (
    Claim(
        id="var_dk",
        note=NOTE_FILE,
        quote_zh=r"$$ \boxed{\text{Var}(q \cdot k) = d_k} $$点积的方差等于它的维度 $d_k$。",
        quote_en=r"$\mathrm{Var}(q\cdot k) = d_k$: the variance of the dot product equals its dimension $d_k$.",
        question_en="With iid unit-variance components, what is Var(q·k), and what is it after ÷√d_k?",
        question_zh="各分量独立同分布、方差为 1 时，Var(q·k) 是多少？除以 √d_k 之后呢？",
        sources=(FOOTNOTE,),
        experiment="core.experiments.variance",
        params={"dks": [16, 64, 256, 512], "trials": 20000},
        run=ms.run_variance,
        answer="var_256",
        answer_en="Var(q·k) at d_k = 256",
        answer_zh="d_k = 256 时的 Var(q·k)",
    ),
    Claim(
        id="n2_std",
        note=NOTE_FILE,
        quote_zh="- 如果 $d_k = 64$:$\\text{Var}(s) = 64$,标准差 $\\sigma = \\sqrt{64} = 8$\n"
        "- 如果 $d_k = 512$:$\\text{Var}(s) = 512$,标准差 $\\sigma = \\sqrt{512} \\approx 22.6$\n"
        '根据"3-sigma 规则",大约 99.7% 的值会落在 $[\\mu - 3\\sigma, \\mu + 3\\sigma]$ 内。由于 $\\mu = 0$:\n'
        "- $d_k = 512$ 时:点积值约在 $[-68, 68]$ 范围内",
        quote_en="- If $d_k = 64$: Var(s) = 64, standard deviation σ = √64 = 8\n"
        "- If $d_k = 512$: Var(s) = 512, σ = √512 ≈ 22.6\n"
        "By the 3-sigma rule about 99.7 % of the values fall in [μ − 3σ, μ + 3σ]; since μ = 0:\n"
        "- at $d_k = 512$ the dot products lie within about [−68, 68]",
        question_en="How wide is q·k at d_k = 64 and 512, and how much of it lies within ±3σ?",
        question_zh="d_k = 64 和 512 时 q·k 有多宽？有多少落在 ±3σ 以内？",
        sources=(FOOTNOTE,),
        experiment="core.experiments.variance + exact sampler of q·k",
        params={
            "std": {64: "8", 512: "22.6"},
            "inside": {512: (68.0, "0.997")},
            "trials": 20000,
            "count": 2_000_000,
        },
        run=ms.run_raw_range,
        answer="inside_512_pct",
        answer_tol=0.01,
        answer_en="share of q·k within [−68, 68] at d_k = 512 (%)",
        answer_zh="d_k = 512 时 q·k 落在 [−68, 68] 内的比例（%）",
    ),
    Claim(
        id="n2_extreme",
        note=NOTE_FILE,
        quote_zh="如果输入(即我们的点积 $s$)的方差很大(比如 512),就意味着很多 $s_j$ 的值会是 $+20, -15, +30$ 这样的极端值。",
        quote_en="If the input (our dot product s) has a large variance (say 512), many $s_j$ will be extreme values "
        "such as +20, −15, +30.",
        question_en="At variance 512, how common is |q·k| ≥ 15 — extreme or typical?",
        question_zh="方差为 512 时，|q·k| ≥ 15 有多常见——是极端值还是寻常值？",
        sources=(FOOTNOTE,),
        experiment="exact sampler of q·k (√χ²_{d_k} · Z)",
        params={"beyond": (512, 15.0, MANY_FRACTION), "count": 2_000_000},
        run=ms.run_raw_range,
        answer="beyond_pct",
        answer_tol=0.1,
        answer_en="share of |q·k| ≥ 15 at d_k = 512 (%)",
        answer_zh="d_k = 512 时 |q·k| ≥ 15 的比例（%）",
    ),
    Claim(
        id="n2_exps",
        note=NOTE_FILE,
        quote_zh="- 指数函数增长极快:$e^{50} \\approx 5.18 \\times 10^{21}$,可能超出浮点数表示范围\n"
        "- $e^{20} \\approx 4.85 \\times 10^8$ 已经是一个天文数字\n"
        "- $e^{-15} \\approx 3.06 \\times 10^{-7}$ 几乎为 0",
        quote_en="- The exponential grows very fast: $e^{50} ≈ 5.18 × 10^{21}$, which may exceed the floating-point range\n"
        "- $e^{20} ≈ 4.85 × 10^8$ is already astronomical\n- $e^{−15} ≈ 3.06 × 10^{−7}$ is almost 0",
        question_en="Are the quoted exponentials right, and does e^50 overflow a float?",
        question_zh="引用的指数值对吗？e^50 会让浮点数溢出吗？",
        sources=(SOFTMAX,),
        experiment="float64 exp; torch.exp in float16 / bfloat16 / float32",
        params={
            "exps": [(50.0, 1.0, "5.18e21"), (20.0, 1.0, "4.85e8"), (-15.0, 1.0, "3.06e-7")],
            "overflow": 50.0,
        },
        run=mc.run_printed,
    ),
    Claim(
        id="n2_softmax_50",
        note=NOTE_FILE,
        quote_zh="$$ \\text{softmax}([50, 1, 1, 1]) \\approx [1.0, 0.0, 0.0, 0.0] $$\n结论:梯度矩阵几乎全为 0!",
        quote_en="softmax([50, 1, 1, 1]) ≈ [1.0, 0.0, 0.0, 0.0]\nConclusion: the gradient (Jacobian) matrix is almost "
        "all 0!",
        question_en="What is softmax([50, 1, 1, 1]), and how large is its Jacobian?",
        question_zh="softmax([50, 1, 1, 1]) 等于多少？它的雅可比矩阵有多大？",
        sources=(SOFTMAX,),
        experiment="float64 softmax and Jacobian",
        params={
            "inputs": [50.0, 1.0, 1.0, 1.0],
            "printed": ["1.0", "0.0", "0.0", "0.0"],
            "jacobian_zero": True,
            "exps": [(1.0, 3.0, "8.15")],
        },
        run=mc.run_printed,
        answer="jacobian_max",
        answer_tol=10.0,
        answer_en="largest |J_jk| of softmax at [50, 1, 1, 1]",
        answer_zh="softmax 在 [50, 1, 1, 1] 处雅可比矩阵的最大 |J_jk|",
    ),
    Claim(
        id="n2_jacobian",
        note=NOTE_FILE,
        quote_zh=r"$$ \frac{\partial p_j}{\partial z_k} = p_j (\delta_{jk} - p_k) $$",
        quote_en=r"$\partial p_j/\partial z_k = p_j(\delta_{jk} - p_k)$",
        question_en="Is the softmax Jacobian ∂p_j/∂z_k = p_j(δ_jk − p_k)?",
        question_zh="softmax 的雅可比矩阵是 ∂p_j/∂z_k = p_j(δ_jk − p_k) 吗？",
        sources=(SOFTMAX, AUTOGRAD),
        experiment="core.attention.softmax_jacobian vs torch.autograd, float64",
        params={"rows": 50, "n": 6},
        run=mc.run_jacobian,
    ),
    Claim(
        id="n2_softmax_props",
        note=NOTE_FILE,
        quote_zh="- 非负性:$\\text{softmax}(\\mathbf{z})_j \\geq 0$(因为指数函数 $e^{z_j} > 0$)\n"
        "- 归一性:$\\sum_{j=1}^n \\text{softmax}(\\mathbf{z})_j = 1$(概率分布)\n"
        "- 单调性:如果 $z_i > z_j$,则 $\\text{softmax}(\\mathbf{z})_i > \\text{softmax}(\\mathbf{z})_j$\n"
        "- 数学上等价(分子分母同除以 $e^{\\max(\\mathbf{z})}$)",
        quote_en="- Non-negative: softmax(z)_j ≥ 0 (since e^{z_j} > 0)\n- Normalised: Σ_j softmax(z)_j = 1 (a probability "
        "distribution)\n- Monotone: if z_i > z_j then softmax(z)_i > softmax(z)_j\n- [Subtracting the max is] "
        "mathematically equivalent (divide numerator and denominator by e^{max z})",
        question_en="Does softmax keep these properties in floating point, with and without max-subtraction?",
        question_zh="在浮点运算中，无论是否减去最大值，softmax 都保持这些性质吗？",
        sources=(SOFTMAX,),
        experiment="core.attention.softmax / naive_softmax, float64",
        params={"rows": 2000, "n": 8},
        run=mc.run_softmax_properties,
    ),
    Claim(
        id="n2_grad_qk",
        note=NOTE_FILE,
        quote_zh=r"$$ \frac{\partial \mathcal{L}}{\partial Q} = \frac{\partial \mathcal{L}}{\partial S} \cdot K $$"
        r"$$ \frac{\partial \mathcal{L}}{\partial K} = \left(\frac{\partial \mathcal{L}}{\partial S}\right)^T"
        r" \cdot Q $$两者结构完全不同!",
        quote_en=r"$\partial L/\partial Q = (\partial L/\partial S)\,K$ and $\partial L/\partial K = "
        r"(\partial L/\partial S)^\top Q$: the two have completely different structure!",
        question_en="Are these the gradients of S = QKᵀ, and do they differ even when Q = K?",
        question_zh="这是 S = QKᵀ 的梯度吗？即使 Q = K，两者也不同吗？",
        sources=(AUTOGRAD,),
        experiment="torch autograd, float64",
        params={"n": 6, "dk": 4, "dv": 3},
        run=mc.run_grad_formulas,
        answer="gap",
        answer_tol=3.0,
        answer_en="‖∂L/∂Q − ∂L/∂K‖ / ‖∂L/∂Q‖ at Q = K",
        answer_zh="Q = K 时的 ‖∂L/∂Q − ∂L/∂K‖ / ‖∂L/∂Q‖",
    ),
    Claim(
        id="n2_grad_wq",
        note=NOTE_FILE,
        quote_zh=r"$$ \frac{\partial \mathcal{L}}{\partial W^Q} = \frac{\partial \mathcal{L}}{\partial Q} "
        r"\frac{\partial Q}{\partial W^Q} = \frac{\partial \mathcal{L}}{\partial Q} \cdot X^T $$",
        quote_en=r"$\partial L/\partial W^Q = (\partial L/\partial Q)\,(\partial Q/\partial W^Q) = "
        r"(\partial L/\partial Q)\cdot X^\top$",
        question_en="With Q = X W^Q, is ∂L/∂W^Q = ∂L/∂Q · Xᵀ?",
        question_zh="Q = X W^Q 时，∂L/∂W^Q = ∂L/∂Q · Xᵀ 吗？",
        sources=(
            AUTOGRAD,
            Source(
                "Matrix calculus: for Q = X W, ∂L/∂W = Xᵀ ∂L/∂Q",
                None,
                "Petersen & Pedersen, The Matrix Cookbook §2.4",
            ),
        ),
        experiment="torch autograd, float64 (n = d_model = d_k, the only shape where the product is defined)",
        params={"size": 6},
        run=mc.run_grad_weights,
    ),
    Claim(
        id="n2_xavier",
        note=NOTE_FILE,
        quote_zh="为了进行分析,我们做出两个合理的统计假设(这也是论文作者的隐含假设,与 Xavier/Glorot 初始化一致):\n"
        r"$$ W^Q \sim \mathcal{N}\left(0, \frac{2}{d_{\text{model}} + d_k}\right), \quad W^K \sim "
        r"\mathcal{N}\left(0, \frac{2}{d_{\text{model}} + d_k}\right) $$",
        quote_en="We make two reasonable statistical assumptions (also the paper's implicit ones, consistent with "
        "Xavier/Glorot initialisation) [iid components of q and k with mean 0, variance 1]:\n"
        r"$W^Q, W^K \sim \mathcal{N}(0,\ 2/(d_{model} + d_k))$",
        question_en="Does Xavier initialisation of W^Q ∈ R^{d_model×d_k} give q components of variance 1?",
        question_zh="对 W^Q ∈ R^{d_model×d_k} 做 Xavier 初始化，q 的分量方差会是 1 吗？",
        sources=(
            Source("Glorot & Bengio 2010", None, "AISTATS, eq. 16: Var(W) = 2/(fan_in + fan_out)"),
            Source("torch.nn.init.xavier_normal_", None, "PyTorch documentation"),
        ),
        experiment="torch.nn.init.xavier_normal_, x with unit-variance components (a LayerNorm'd input)",
        params={"shapes": [(512, 64), (768, 64)], "draws": 20, "inputs": 2000},
        run=mi.run_xavier,
        answer="q_var_768_64",
        answer_en="Var(q) for d_model = 768, d_k = 64",
        answer_zh="d_model = 768、d_k = 64 时的 Var(q)",
    ),
    Claim(
        id="n2_transpose",
        note=NOTE_FILE,
        quote_zh=r"$$ W^Q(W^K)^T \neq W^K(W^Q)^T $$原因:矩阵乘法不满足交换律($AB \neq BA$ 一般情况下)。",
        quote_en=r"$W^Q (W^K)^\top \neq W^K (W^Q)^\top$. Reason: matrix multiplication does not commute ($AB \neq BA$ "
        "in general).",
        question_en="Is W^Q(W^K)ᵀ ≠ W^K(W^Q)ᵀ — and is non-commutativity the reason?",
        question_zh="W^Q(W^K)ᵀ ≠ W^K(W^Q)ᵀ 吗？原因真的是矩阵乘法不满足交换律吗？",
        sources=(Source("(AB)ᵀ = BᵀAᵀ: W^K(W^Q)ᵀ is the transpose of W^Q(W^K)ᵀ", None, "linear algebra"),),
        experiment="NumPy, Xavier-scaled W^Q, W^K",
        params={"d_model": 64, "dk": 16},
        run=mc.run_transpose,
    ),
    Claim(
        id="n2_row_norm",
        note=NOTE_FILE,
        quote_zh="结论:$A$ 和 $A_{\\text{swap}}$ 的分母(归一化项)完全不同,它们在数学上和语义上回答的是两个不同的问题。",
        quote_en="Conclusion: A and $A_{swap}$ have entirely different denominators (normalisations); mathematically "
        "and semantically they answer two different questions.",
        question_en="Do softmax(QKᵀ) and softmax(KQᵀ) differ beyond a transpose?",
        question_zh="softmax(QKᵀ) 与 softmax(KQᵀ) 除了转置之外还有差别吗？",
        sources=(SOFTMAX,),
        experiment="NumPy, one draw, ÷√d_k",
        params={"n": 8, "dk": 64},
        run=mc.run_row_normalisation,
    ),
    Claim(
        id="n2_qk_amplified",
        note=NOTE_FILE,
        quote_zh="训练过程是一个正反馈循环:\n- $t=0$:$W^Q_0$ 和 $W^K_0$ 存在微小的实例不对称。\n"
        "- $t=1$:$|W^Q_1 - W^K_1|$ 的差异被放大,导致下一步的梯度差异更大。",
        quote_en="Training is a positive-feedback loop:\n- t = 0: $W^Q_0$ and $W^K_0$ differ by a tiny instance "
        "asymmetry.\n- t = 1: the difference $|W^Q_1 − W^K_1|$ is amplified, making the next gradients differ "
        "even more.",
        question_en="Does training amplify the difference between W_Q and W_K — and does it need one to start from?",
        question_zh="训练会放大 W_Q 与 W_K 之间的差异吗？它需要一个初始差异作为起点吗？",
        sources=(
            Source("Q = K tying ablation (2026): Q = K is the harmful tying", "2606.04032"),
            Source(
                "core.training: the one-head retrieval model of the training page",
                None,
                "SCIENCE §1 setting, Adam, ÷√d_k",
            ),
        ),
        experiment="core.training.forward, W_K = W_Q vs independent at step 0, two tasks, 3 seeds",
        params={"dk": 16, "n": 8, "steps": 200, "seeds": 3},
        run=mt.run_qk_amplified,
        answer="rel_init",
        answer_tol=0.15,
        answer_en="‖W_Q − W_K‖ / mean ‖W‖ at step 0 with independent initialisation",
        answer_zh="独立初始化时第 0 步的 ‖W_Q − W_K‖ / 平均 ‖W‖",
    ),
    Claim(
        id="n2_orders",
        note=NOTE_FILE,
        quote_zh="- 硬件可以在极高的并行度下,一次性完成 $Q K^T$ 这个操作,速度比执行 $N^2$ 次零碎的“加性”操作快几个数量级。",
        quote_en="- Hardware computes $QK^T$ in one go with extreme parallelism, several orders of magnitude faster "
        "than $N^2$ piecemeal 'additive' operations.",
        question_en="How much faster is dot-product attention than additive attention, measured?",
        question_zh="实测点积注意力比加性注意力快多少？",
        sources=ADDITIVE_SOURCES,
        experiment="core.experiments.measure_points (NumPy, float32)",
        params={"n": 512, "d": 64, "repeats": 5, "least": "orders"},
        run=mk.run_faster,
        answer="ratio",
        answer_tol=2.0,
        answer_en="time of additive ÷ time of dot-product attention, n = 512, d = 64",
        answer_zh="n = 512、d = 64 时加性注意力耗时 ÷ 点积注意力耗时",
    ),
    Claim(
        id="additive_cost",
        note=NOTE_FILE,
        quote_zh="每个词对:$O(d^2)$\n总共 $n^2$ 个词对:\n"
        "加法注意力 $O(n^2 d^2)$ $O(n^2 + nd)$ 结论:点积注意力少一个 $d$ 因子,更快。",
        quote_en="Per pair: $O(d^2)$; $n^2$ pairs in all. Additive attention $O(n^2 d^2)$. "
        "Conclusion: dot-product attention has one factor of $d$ less, so it is faster.",
        question_en="Is additive attention really O(n²d²)?",
        question_zh="加性注意力真的是 O(n²d²) 吗？",
        sources=ADDITIVE_SOURCES,
        experiment="core.experiments.cost_model + core.experiments.measure_points",
        params={
            "n": 512,
            "ds": [32, 128],
            "check_n": 48,
            "check_d": 32,
            "time_n": 512,
            "time_d": 64,
            "repeats": 5,
        },
        run=mk.run_additive,
        answer="exponent",
        answer_tol=0.1,
        answer_en="exponent b of the additive operation count ∝ d^b (W₁q, W₂k computed once per token)",
        answer_zh="加性注意力运算量 ∝ d^b 的指数 b（W₁q、W₂k 每个词只算一次）",
    ),
    Claim(
        id="n2_parameters",
        note=NOTE_FILE,
        quote_zh="- 点积(在 Q/K 投影之后)是一个无参数 (non-parametric) 的相似度函数。"
        "它不引入像 $W_a, U_a, \\mathbf{v}_a$ 这样的额外参数。\n- 这使得模型结构更简洁,减少了参数量。",
        quote_en="- The dot product (after the Q/K projections) is a parameter-free similarity; it adds no extra "
        "parameters such as $W_a, U_a, v_a$.\n- This simplifies the model and reduces the parameter count.",
        question_en="How many parameters does each score function add on top of the projections?",
        question_zh="在投影之外，每种打分函数各自增加多少参数？",
        sources=(BAHDANAU,),
        experiment="core.experiments.cost_inputs (the arrays the additive scores use)",
        params={"d": 64, "d_h": 64},
        run=mk.run_parameters,
        answer="additive",
        answer_en="parameters of additive scoring at d = d_h = 64",
        answer_zh="d = d_h = 64 时加性打分的参数量",
    ),
    Claim(
        id="range_3",
        note=NOTE_FILE,
        quote_zh='- Softmax 的输入始终处于一个"合理"的、非饱和的范围(通常在 $[-3, 3]$ 内)',
        quote_en="- The softmax input always stays in a 'reasonable', unsaturated range (usually within $[-3, 3]$).",
        question_en="After ÷√d_k, what range do the logits fall in?",
        question_zh="除以 √d_k 之后，logit 落在什么范围？",
        sources=(FOOTNOTE,),
        experiment="core.factcheck.measure_scores.fraction_within",
        params={
            "dks": [16, 64, 512],
            "n": N_NOTES,
            "trials": 2000,
            "k": 3.0,
            "printed": "0.997",
            "long_n": 1024,
        },
        run=mx.run_range_3,
        answer="rows_inside_max_pct",
        answer_tol=0.05,
        answer_en="share of rows of 10 scaled logits entirely inside [−3, 3] at d_k = 512 (%)",
        answer_zh="d_k = 512 时，10 个缩放后 logit 全部落在 [−3, 3] 内的行所占比例（%）",
    ),
    Claim(
        id="kv_bottleneck",
        note=NOTE_FILE,
        quote_zh="如果 $K=V$, $W^{KV}$ 矩阵被迫在“优化匹配关系”和“保留语义内容”之间找到一个糟糕的妥协 "
        "(Suboptimal Compromise)。这在优化上是一个表征瓶颈 (Representational Bottleneck)。",
        quote_en="If $K = V$, the matrix $W^{KV}$ must strike a poor compromise between 'optimising "
        "matching' and 'keeping semantic content'. This is a representational bottleneck.",
        question_en="Would tying K = V be a representational bottleneck?",
        question_zh="让 K = V 共享投影，会造成表征瓶颈吗？",
        sources=(
            Source(
                "K/Q/V tying ablation (2026): K = V costs about 3% perplexity; Q = K is the harmful tying",
                "2606.04032",
            ),
        ),
        literature_verdict="partly",
    ),
)

UNCHECKED: tuple[Unchecked, ...] = (
    Unchecked(
        NOTE_FILE,
        "这绝对是论文中最精妙的数学细节之一。",
        "This is surely one of the most elegant mathematical details of the paper.",
        "An opinion.",
        "这是个人评价。",
    ),
    Unchecked(
        NOTE_FILE,
        "但其实对于完全随机初始化的矩阵来说,我依然认为二者在数学意义上是等价的,但这种差异会在反向传播时被体现出来。",
        "But for fully random initial matrices I still think the two are mathematically equivalent; the "
        "difference shows up in backpropagation.",
        "Nothing to measure: W^Q and W^K are drawn iid, so swapping them shows that W^Q(W^K)ᵀ and its transpose "
        "have the same distribution. The gradient half is measured on the Q/K gradient card.",
        "无需测量：W^Q 与 W^K 独立同分布，交换二者即可知 W^Q(W^K)ᵀ 与其转置同分布。关于反向传播的一半由 Q/K 梯度卡片测量。",
    ),
    Unchecked(
        NOTE_FILE,
        "方法 时间复杂度 空间复杂度 点积注意力 $O(n^2 d)$ $O(n^2 + nd)$ 加法注意力 $O(n^2 d^2)$ $O(n^2 + nd)$",
        "Method / time / space: dot-product O(n²d), O(n² + nd); additive O(n²d²), O(n² + nd).",
        "The space column depends on the implementation, not on the method: a loop over pairs keeps O(n² + nd); "
        "the vectorised additive scores (the cost page's) hold all n²·d_h tanh arguments. The time column is the "
        "additive-cost card.",
        "空间复杂度一栏取决于实现而不是方法：逐对循环只需 O(n² + nd)；向量化的加性打分（成本页所用）要保存全部 n²·d_h 个 tanh 参数。"
        "时间复杂度一栏见加性注意力成本卡片。",
    ),
    Unchecked(
        NOTE_FILE,
        '- 例:$q_{\\text{it}}$ (来自"it") $\\rightarrow$ “我需要一个指代对象。”',
        "- Example: q_it (from 'it') → 'I need a referent.'",
        "About what trained language models' heads mean; no measurement on random draws or a one-head toy model "
        "can settle it (probing studies of real models would).",
        "这关乎训练好的语言模型中各个头的含义；基于随机抽样或单头玩具模型的测量无法判定（需要对真实模型做探测研究）。",
    ),
    Unchecked(
        NOTE_FILE,
        "- $W^V$ (Value投影):被训练来将 $X$ 投影到一个“键/索引”空间。",
        "- W^V (value projection) is trained to project X into a 'key/index' space.",
        "A slip (a copy of the W^K line): the same bullet goes on to say values carry semantic content.",
        "这是笔误（照抄了 W^K 那一行）：同一条目接着说 value 承载语义内容。",
    ),
    Unchecked(
        NOTE_FILE,
        "优雅的数学往往带来高效的工程实现。",
        "Elegant mathematics often brings efficient engineering.",
        "An aphorism.",
        "这是格言式的感想。",
    ),
)
