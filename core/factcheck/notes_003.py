"""Note 003 (interview notes, "Q4: why divide by √d_k before softmax?"): its statements as claims, and what it
says that cannot be checked."""
# ruff: noqa: E501  (a table of verbatim quotes and their translations: lines are as long as the sentences)

from __future__ import annotations

from core.factcheck import measure_calculus as mc
from core.factcheck import measure_cost as mk
from core.factcheck import measure_gradients as mg
from core.factcheck import measure_scores as ms
from core.factcheck import measure_weights as mw
from core.factcheck.claims import VASWANI, VASWANI_ARXIV, Claim, Note, Source, Unchecked
from core.factcheck.rules import N_NOTES

NOTE_FILE = "003_9b7f13ecea4abb3a.txt"
NOTE = Note(
    NOTE_FILE, "Q4: 为什么 Softmax 前需要除以 $\\sqrt{d_k}$？", "Q4: why divide by √d_k before the softmax?"
)
FOOTNOTE = Source(VASWANI, VASWANI_ARXIV, "§3.2.1, footnote 4")
SOFTMAX = Source("Goodfellow et al. 2016, Deep Learning §6.2.2.3 (softmax and its derivative)")
BRITZ = Source(
    "Britz et al. 2017, Massive Exploration of Neural Machine Translation Architectures",
    "1703.03906",
    "§5 (attention mechanism)",
)
MAX_PRINT = {
    (16, "none"): "0.342",
    (64, "none"): "0.891",
    (256, "none"): "0.998",
    (16, "sqrt"): "0.289",
    (64, "sqrt"): "0.276",
    (256, "sqrt"): "0.301",
}

CLAIMS: tuple[Claim, ...] = (
    Claim(
        id="n3_var",
        note=NOTE_FILE,
        quote_zh="> **关键结论**：点积的方差随着维度 $d_k$ **线性增长**！\n"
        "> **关键效果**：缩放后的点积方差恒定为 **1**，与维度 $d_k$ 无关！",
        quote_en="> **Key conclusion**: the variance of the dot product grows **linearly** with $d_k$!\n"
        "> **Key effect**: after scaling the variance is constantly **1**, independent of $d_k$!",
        question_en="Does Var(q·k) grow linearly in d_k, and is it 1 after ÷√d_k at every d_k?",
        question_zh="Var(q·k) 随 d_k 线性增长吗？除以 √d_k 后在每个 d_k 下都是 1 吗？",
        sources=(FOOTNOTE,),
        experiment="core.experiments.variance",
        params={"dks": [16, 64, 256], "trials": 20000},
        run=ms.run_variance,
        answer="var_scaled_256",
        answer_en="Var(q·k/√d_k) at d_k = 256",
        answer_zh="d_k = 256 时的 Var(q·k/√d_k)",
    ),
    Claim(
        id="n3_normal",
        note=NOTE_FILE,
        quote_zh="假设 $d_k = 64$，点积结果服从 $\\mathcal{N}(0, 64)$ 分布。\n"
        "$$\\frac{q \\cdot k}{\\sqrt{d_k}} \\sim \\mathcal{N}(0, 1)$$",
        quote_en="Suppose $d_k = 64$: the dot product follows $\\mathcal{N}(0, 64)$.\n"
        "$q\\cdot k/\\sqrt{d_k} \\sim \\mathcal{N}(0, 1)$",
        question_en="Is q·k/√d_k standard normal — at d_k = 64, and in general?",
        question_zh="q·k/√d_k 服从标准正态分布吗？在 d_k = 64 时呢？一般情况下呢？",
        sources=(
            Source(
                "Product of independent normals: excess kurtosis of q·k/√d_k is 6/d_k",
                None,
                "E[(q·k)⁴] = 3d_k² + 6d_k for iid N(0, 1) components",
            ),
        ),
        experiment="core.sampling.gram_scores (n = 1: √χ²_{d_k} · Z, exact)",
        params={"dks": [16, 64, 256, 1024], "count": 2_000_000},
        run=ms.run_normality,
        answer="tail_64_pct",
        answer_tol=0.1,
        answer_en="P(|q·k/√d_k| > 3) at d_k = 64 (%) — a normal gives 0.27 %",
        answer_zh="d_k = 64 时 P(|q·k/√d_k| > 3)（%）——正态分布为 0.27%",
    ),
    Claim(
        id="n3_ranges",
        note=NOTE_FILE,
        quote_format="code",
        quote_zh="点积值可能的范围：[-24, 24]（约 3σ）\n点积值范围：[-3, 3]（约 3σ）",
        quote_en="possible range of the dot products: [−24, 24] (about 3σ)\n[after scaling] range: [−3, 3] (about 3σ)",
        question_en="At d_k = 64, what share of q·k lies in [−24, 24] (that is, of q·k/8 in [−3, 3])?",
        question_zh="d_k = 64 时，有多少 q·k 落在 [−24, 24] 内（即 q·k/8 落在 [−3, 3] 内）？",
        sources=(FOOTNOTE,),
        experiment="exact sampler of q·k (√χ²_{d_k} · Z)",
        params={"inside": {64: (24.0, "0.997")}, "count": 2_000_000},
        run=ms.run_raw_range,
        answer="inside_64_pct",
        answer_tol=0.01,
        answer_en="share of q·k within [−24, 24] at d_k = 64 (%)",
        answer_zh="d_k = 64 时 q·k 落在 [−24, 24] 内的比例（%）",
    ),
    Claim(
        id="n3_exps",
        note=NOTE_FILE,
        quote_zh="- $e^{24} \\approx 2.6 \\times 10^{10}$\n- $e^{-24} \\approx 3.8 \\times 10^{-11}$\n"
        "- $e^3 \\approx 20.1$\n- $e^{-3} \\approx 0.05$",
        quote_en="- $e^{24} ≈ 2.6 × 10^{10}$\n- $e^{−24} ≈ 3.8 × 10^{−11}$\n- $e^3 ≈ 20.1$\n- $e^{−3} ≈ 0.05$",
        question_en="Are the quoted exponentials right?",
        question_zh="引用的指数值对吗？",
        sources=(SOFTMAX,),
        experiment="float64 exp",
        params={
            "exps": [(24.0, 1.0, "2.6e10"), (-24.0, 1.0, "3.8e-11"), (3.0, 1.0, "20.1"), (-3.0, 1.0, "0.05")]
        },
        run=mc.run_printed,
    ),
    Claim(
        id="n3_print_24",
        note=NOTE_FILE,
        quote_format="code",
        quote_zh="输入: [-24, -10, 0, 10, 24]\n输出: [0, 0, 0, 0, 1]  ← 几乎全部概率集中在最大值",
        quote_en="input:  [−24, −10, 0, 10, 24]\noutput: [0, 0, 0, 0, 1]  ← almost all probability on the largest",
        question_en="What is softmax([−24, −10, 0, 10, 24])?",
        question_zh="softmax([−24, −10, 0, 10, 24]) 等于多少？",
        sources=(SOFTMAX,),
        experiment="float64 softmax",
        params={"inputs": [-24.0, -10.0, 0.0, 10.0, 24.0], "printed": ["0", "0", "0", "0", "1"]},
        run=mc.run_printed,
    ),
    Claim(
        id="n3_print_3",
        note=NOTE_FILE,
        quote_format="code",
        quote_zh="输入: [-3, -1, 0, 1, 3]\n输出: [0.012, 0.089, 0.243, 0.661, 0.995]  ← 分布更平滑",
        quote_en="input:  [−3, −1, 0, 1, 3]\noutput: [0.012, 0.089, 0.243, 0.661, 0.995]  ← a smoother distribution",
        question_en="What is softmax([−3, −1, 0, 1, 3])?",
        question_zh="softmax([−3, −1, 0, 1, 3]) 等于多少？",
        sources=(SOFTMAX,),
        experiment="float64 softmax",
        params={
            "inputs": [-3.0, -1.0, 0.0, 1.0, 3.0],
            "printed": ["0.012", "0.089", "0.243", "0.661", "0.995"],
        },
        run=mc.run_printed,
        answer="top",
        answer_tol=0.02,
        answer_en="the weight softmax gives the 3 in [−3, −1, 0, 1, 3]",
        answer_zh="softmax 在 [−3, −1, 0, 1, 3] 中给 3 的权重",
    ),
    Claim(
        id="n3_pq",
        note=NOTE_FILE,
        quote_zh="梯度更健康：\n$$\\text{softmax}(x_i) \\times (1 - \\text{softmax}(x_i)) > 0.01$$",
        quote_en="The gradient is healthier: $\\mathrm{softmax}(x_i)(1 − \\mathrm{softmax}(x_i)) > 0.01$",
        question_en="After scaling, is p(1 − p) > 0.01 for every weight?",
        question_zh="缩放后，每个权重都满足 p(1 − p) > 0.01 吗？",
        sources=(SOFTMAX,),
        experiment="float64 softmax; random rows of 10 keys at d_k = 64, ÷√d_k",
        params={
            "inputs": [-3.0, -1.0, 0.0, 1.0, 3.0],
            "threshold": 0.01,
            "dk": 64,
            "n": N_NOTES,
            "trials": 4000,
        },
        run=mc.run_pq,
        answer="share_pct",
        answer_tol=0.1,
        answer_en="share of scaled weights (n = 10, d_k = 64) with p(1 − p) > 0.01 (%)",
        answer_zh="缩放后权重（n = 10、d_k = 64）中 p(1 − p) > 0.01 的比例（%）",
    ),
    Claim(
        id="n3_jacobian",
        note=NOTE_FILE,
        quote_zh="$$\\frac{\\partial \\text{softmax}(x_i)}{\\partial x_i} = \\text{softmax}(x_i) \\times "
        "(1 - \\text{softmax}(x_i))$$",
        quote_en="$\\partial\\,\\mathrm{softmax}(x_i)/\\partial x_i = \\mathrm{softmax}(x_i)\\,(1 − \\mathrm{softmax}(x_i))$",
        also_zh=("- **梯度接近 0**，导致梯度消失",),
        also_en=("- [when softmax ≈ 0 or ≈ 1] **the gradient is close to 0**: it vanishes",),
        question_en="Is the diagonal of the softmax Jacobian p(1 − p)?",
        question_zh="softmax 雅可比矩阵的对角元是 p(1 − p) 吗？",
        sources=(SOFTMAX,),
        experiment="core.attention.softmax_jacobian vs torch.autograd, float64",
        params={"rows": 50, "n": 5},
        run=mc.run_jacobian,
    ),
    Claim(
        id="n3_footnote",
        note=NOTE_FILE,
        quote_zh='论文原文（第 4 页脚注）：\n> "To illustrate why the dot products get large, assume that the components of '
        "$q$ and $k$ are independent random variables with mean 0 and variance 1. Then their dot product, "
        '$q \\cdot k = \\sum_{i=1}^{d_k} q_i k_i$, has mean 0 and variance $d_k$."',
        quote_en="The paper's own words (footnote, page 4): \"To illustrate why the dot products get large, assume that "
        "the components of q and k are independent random variables with mean 0 and variance 1. Then their dot "
        'product has mean 0 and variance $d_k$."',
        question_en="Is this the paper's footnote, word for word?",
        question_zh="这是论文脚注的原文吗？",
        sources=(Source(VASWANI, VASWANI_ARXIV, "page 4, footnote 4: the quoted sentence, verbatim"),),
        literature_verdict="holds",
    ),
    Claim(
        id="table3_b",
        note=NOTE_FILE,
        quote_zh="**实验对比**（论文 Table 3, Row B）：\n- **不缩放**：当 $d_k$ 从 64 降到 32 时，BLEU 提升\n"
        "- **缩放**：$d_k$ 变化时性能稳定",
        quote_en="**Experiment** (paper, Table 3, row B):\n- **unscaled**: BLEU improves when d_k drops "
        "from 64 to 32\n- **scaled**: performance is stable as d_k changes",
        also_zh=("- 在所有 $d_k$ 下都表现良好", "3. **维度无关性**：使模型性能不受 $d_k$ 影响"),
        also_en=(
            "- [scaled attention] performs well at every $d_k$",
            "3. **Dimension independence**: model performance does not depend on $d_k$",
        ),
        question_en="What does row (B) of Table 3 in the Transformer paper show?",
        question_zh="Transformer 论文 Table 3 的 (B) 行说明了什么？",
        sources=(
            Source(
                VASWANI,
                VASWANI_ARXIV,
                "§6.2 and Table 3 row (B): 'reducing the attention key size d_k hurts model "
                "quality' — every row uses scaled attention; unscaled vs additive is §3.2.1, "
                "citing Britz et al. 2017",
            ),
            BRITZ,
        ),
        literature_verdict="fails",
    ),
    Claim(
        id="n3_britz",
        note=NOTE_FILE,
        quote_zh="- 论文实验显示：小 $d_k$ 时性能与 Additive 相当，大 $d_k$ 时性能下降",
        quote_en="- The paper's experiments show: [unscaled dot-product] matches additive at small $d_k$ and falls "
        "behind at large $d_k$",
        question_en="Whose experiment shows unscaled dot-product attention falling behind additive at large d_k?",
        question_zh="是谁的实验表明不缩放的点积注意力在大 d_k 下不如加性注意力？",
        sources=(
            Source(
                VASWANI,
                VASWANI_ARXIV,
                "§3.2.1: 'additive attention outperforms dot product attention "
                "without scaling for larger values of d_k [3]' — [3] is Britz et al.",
            ),
            BRITZ,
        ),
        literature_verdict="partly",
    ),
    Claim(
        id="entropy_table",
        note=NOTE_FILE,
        quote_zh="| $d_k$ | 未缩放熵 | 缩放后熵 |\n|-------|---------|---------|\n"
        "| 16    | 2.1     | 2.3     |\n| 64    | 0.8     | 2.3     |\n"
        "| 256   | 0.2     | 2.3     |",
        quote_en="| $d_k$ | entropy, unscaled | entropy, scaled |\n|---|---|---|\n"
        "| 16 | 2.1 | 2.3 |\n| 64 | 0.8 | 2.3 |\n| 256 | 0.2 | 2.3 |",
        question_en="How much entropy does attention over 10 random keys have, with and without ÷√d_k?",
        question_zh="对 10 个随机键做注意力，缩放与不缩放时的熵分别是多少？",
        sources=(Source(VASWANI, VASWANI_ARXIV, "§3.2.1"),),
        experiment="core.experiments.saturation",
        claimed={
            (16, "none"): "2.1",
            (64, "none"): "0.8",
            (256, "none"): "0.2",
            (16, "sqrt"): "2.3",
            (64, "sqrt"): "2.3",
            (256, "sqrt"): "2.3",
        },
        params={"dks": [16, 64, 256], "n": N_NOTES, "trials": 2000},
        run=mw.run_entropy_table,
        answer="entropy_sqrt_64",
        answer_tol=0.1,
        answer_en="mean entropy (nats) with ÷√d_k at d_k = 64, n = 10",
        answer_zh="÷√d_k、d_k = 64、n = 10 时的平均熵（奈特）",
    ),
    Claim(
        id="n3_entropy_trend",
        note=NOTE_FILE,
        quote_zh="- **未缩放**：熵随 $d_k$ 降低（分布越来越尖锐）\n- **缩放**：熵保持稳定（分布始终平滑）",
        quote_en="- **Unscaled**: entropy falls as $d_k$ grows (ever sharper)\n"
        "- **Scaled**: entropy stays stable (always smooth)",
        question_en="As d_k grows, what does the entropy do with and without ÷√d_k?",
        question_zh="d_k 增大时，缩放与不缩放的熵分别怎样变化？",
        sources=(FOOTNOTE,),
        experiment="core.experiments.saturation",
        params={"dks": [16, 64, 256], "n": N_NOTES, "trials": 2000},
        run=mw.run_entropy_trend,
        answer="entropy_none_256",
        answer_tol=0.25,
        answer_en="mean entropy (nats) unscaled at d_k = 256, n = 10",
        answer_zh="不缩放、d_k = 256、n = 10 时的平均熵（奈特）",
    ),
    Claim(
        id="max_weight_print",
        note=NOTE_FILE,
        quote_format="code",
        quote_zh="# d_k= 16 | 未缩放最大值: 0.342 | 缩放后最大值: 0.289\n"
        "# d_k= 64 | 未缩放最大值: 0.891 | 缩放后最大值: 0.276\n"
        "# d_k=256 | 未缩放最大值: 0.998 | 缩放后最大值: 0.301",
        quote_en="# d_k= 16 | max unscaled: 0.342 | max scaled: 0.289\n"
        "# d_k= 64 | max unscaled: 0.891 | max scaled: 0.276\n"
        "# d_k=256 | max unscaled: 0.998 | max scaled: 0.301",
        question_en="Run the notes' snippet (10 queries, 10 keys): what does attn.max() print?",
        question_zh="运行笔记里的代码（10 个查询、10 个键）：attn.max() 会打印什么？",
        sources=(Source(VASWANI, VASWANI_ARXIV, "§3.2.1"),),
        experiment="core.factcheck.measure_weights.matrix_max_weights",
        claimed=MAX_PRINT,
        params={"n": N_NOTES, "draws": 4000},
        run=mw.run_max_weight,
        answer="median_sqrt_16",
        answer_tol=0.1,
        answer_en="the median attn.max() with ÷√d_k at d_k = 16",
        answer_zh="÷√d_k、d_k = 16 时 attn.max() 的中位数",
    ),
    Claim(
        id="n3_max_trend",
        note=NOTE_FILE,
        quote_zh="- **未缩放**：$d_k$ 越大，最大权重越接近 1（one-hot）\n- **缩放**：最大权重保持稳定（分布平滑）",
        quote_en="- **Unscaled**: the larger $d_k$, the closer the max weight gets to 1 (one-hot)\n"
        "- **Scaled**: the max weight stays stable (smooth)",
        question_en="As d_k grows, what does the snippet's attn.max() do with and without ÷√d_k?",
        question_zh="d_k 增大时，代码中的 attn.max() 在缩放与不缩放时分别怎样变化？",
        sources=(FOOTNOTE,),
        experiment="core.factcheck.measure_weights.matrix_max_weights",
        params={"dks": [16, 64, 256], "n": N_NOTES, "draws": 4000},
        run=mw.run_max_weight_trend,
        answer="max_sqrt_64",
        answer_tol=0.1,
        answer_en="mean attn.max() with ÷√d_k at d_k = 64 (10 × 10)",
        answer_zh="÷√d_k、d_k = 64 时 attn.max() 的均值（10 × 10）",
    ),
    Claim(
        id="grad_inverse_dk",
        note=NOTE_FILE,
        quote_format="code",
        quote_zh="未缩放：∂L/∂Q 范数 ∝ 1/d_k  （梯度消失）\n缩放：  ∂L/∂Q 范数 ≈ 常数   （梯度稳定）",
        quote_en="unscaled: ‖∂L/∂Q‖ ∝ 1/d_k (vanishing gradient)\n"
        "scaled:   ‖∂L/∂Q‖ ≈ constant (stable gradient)",
        also_zh=("2. **梯度健康**：保持梯度在合理范围，避免梯度消失",),
        also_en=(
            "2. **Healthy gradients**: keeps the gradient in a reasonable range, avoiding vanishing gradients",
        ),
        question_en="Without scaling, how does the gradient reaching Q fall with d_k?",
        question_zh="不缩放时，传到 Q 的梯度随 d_k 如何下降？",
        sources=(Source(VASWANI, VASWANI_ARXIV, "§3.2.1: 'extremely small gradients'"),),
        experiment="core.experiments.gradients (5 seeds)",
        params={"dks": [16, 64, 256, 1024], "n": N_NOTES, "trials": 800, "replicates": 5},
        run=mg.run_grad,
        answer="median_unscaled_max",
        answer_tol=10.0,
        answer_en="median ‖∂L/∂q‖ unscaled at d_k = 1024, n = 10",
        answer_zh="不缩放、d_k = 1024、n = 10 时 ‖∂L/∂q‖ 的中位数",
    ),
    Claim(
        id="n3_additive",
        note=NOTE_FILE,
        quote_zh="- $\\tanh$ 函数自带饱和特性，输出范围 $[-1, 1]$\n- 不需要额外缩放",
        quote_en="- tanh saturates by itself; its output range is $[−1, 1]$\n- [additive attention] needs no extra scaling",
        question_en="Do additive scores vᵀtanh(W₁q + W₂k) grow with d the way q·k does?",
        question_zh="加性分数 vᵀtanh(W₁q + W₂k) 会像 q·k 那样随 d 增大吗？",
        sources=(Source("Bahdanau et al. 2014", "1409.0473", "§3.1 / App. A.1.2 (additive score)"),),
        experiment="core.attention.additive_attention_scores (core.experiments.cost_inputs weights)",
        params={"ds": [16, 64, 256, 1024], "n": 32, "d_h": 64, "draws": 5},
        run=mk.run_additive_spread,
        answer="std_1024",
        answer_tol=0.2,
        answer_en="std of the additive scores at d = 1024 (d_h = 64)",
        answer_zh="d = 1024（d_h = 64）时加性分数的标准差",
    ),
    Claim(
        id="n3_faster",
        note=NOTE_FILE,
        quote_zh="4. **计算效率**：相比 Additive Attention，点积 + 缩放更快",
        quote_en="4. **Efficiency**: dot-product plus scaling is faster than additive attention",
        question_en="Is scaled dot-product attention faster than additive attention, measured?",
        question_zh="实测缩放点积注意力比加性注意力快吗？",
        sources=(
            Source(VASWANI, VASWANI_ARXIV, "§3.2.1: 'much faster and more space-efficient in practice'"),
        ),
        experiment="core.experiments.measure_points (NumPy, float32)",
        params={"n": 512, "d": 64, "repeats": 5, "least": "faster"},
        run=mk.run_faster,
        answer="ratio",
        answer_tol=2.0,
        answer_en="time of additive ÷ time of dot-product attention, n = 512, d = 64",
        answer_zh="n = 512、d = 64 时加性注意力耗时 ÷ 点积注意力耗时",
    ),
)

UNCHECKED: tuple[Unchecked, ...] = (
    Unchecked(
        NOTE_FILE,
        "这是 Transformer 论文中的一个精妙设计，涉及到**数值稳定性**和**梯度优化**。",
        "This is an elegant design of the Transformer paper, about numerical stability and gradient optimisation.",
        "An opinion; the stability and gradient claims are the cards above.",
        "这是个人评价；关于稳定性和梯度的说法见上面的卡片。",
    ),
    Unchecked(
        NOTE_FILE,
        "这证明了缩放因子对大维度的重要性。",
        "This proves the importance of the scale for large dimensions.",
        "It rests on the Table 3 reading that the Table 3 card shows is wrong: there is no unscaled row to prove "
        "it with.",
        "它建立在对 Table 3 的误读之上（见 Table 3 卡片）：表中没有不缩放的行可以用来证明。",
    ),
    Unchecked(
        NOTE_FILE,
        "- 计算简单，但数值不稳定",
        "- [Unscaled dot product:] simple to compute, but numerically unstable",
        "'Unstable' names no quantity. The overflow it can mean is measured on note 000's overflow card (float16 "
        "only, naive softmax only).",
        "“不稳定”没有指明任何量。它可能指的溢出由笔记 000 的溢出卡片测量（只在 float16、且只在朴素 softmax 中发生）。",
    ),
    Unchecked(
        NOTE_FILE,
        "这类似于**批归一化（Batch Normalization）**的思想：",
        "This resembles the idea of batch normalisation.",
        "An analogy. Unlike batch normalisation, the scale is a constant: nothing is estimated from the data and "
        "no mean is subtracted.",
        "这是类比。与批归一化不同，缩放是一个常数：既不从数据中估计任何量，也不减去均值。",
    ),
    Unchecked(
        NOTE_FILE,
        "将点积归一化到标准正态分布，使 Softmax 在最优工作区间。",
        "Normalising the dot product to a standard normal keeps softmax in its optimal working range.",
        "'Optimal working range' is not defined; normality itself is the normality card.",
        "“最优工作区间”没有定义；是否服从正态分布见关于正态性的卡片。",
    ),
    Unchecked(
        NOTE_FILE,
        "Transformer 通过简单的缩放因子，优雅地解决了高维空间的数值问题，这是其成功的关键之一。",
        "With a simple scale factor the Transformer elegantly solved a numerical problem of high dimensions; "
        "this is one key to its success.",
        "A historical judgement, not a measurable statement.",
        "这是历史评价，不是可测量的陈述。",
    ),
)
