"""Note 004 (an explainer on dividing by √dim): its statements as claims, and what it says that cannot be checked."""
# ruff: noqa: E501  (a table of verbatim quotes and their translations: lines are as long as the sentences)

from __future__ import annotations

from core.factcheck import measure_gradients as mg
from core.factcheck import measure_init as mi
from core.factcheck import measure_maxima as mx
from core.factcheck import measure_scores as ms
from core.factcheck import measure_training as mt
from core.factcheck import measure_weights as mw
from core.factcheck.claims import VASWANI, VASWANI_ARXIV, Claim, Note, Source, Unchecked

NOTE_FILE = "004_92c48293b3cbb5a6.txt"
NOTE = Note(NOTE_FILE, "注意力机制中为什么除以 √dim", "Why attention divides by √dim")
FOOTNOTE = Source(VASWANI, VASWANI_ARXIV, "§3.2.1, footnote 4")
MAXIMA = Source(
    "Extreme-value theory: the largest of m iid N(0, 1) grows like √(2 ln m)",
    None,
    "e.g. Leadbetter, Lindgren & Rootzén 1983, Extremes and Related Properties, ch. 1",
)

CLAIMS: tuple[Claim, ...] = (
    Claim(
        id="n4_sigma",
        note=NOTE_FILE,
        quote_zh=r"\text{Var}(Q \cdot K^T) = \text{dim} \cdot \sigma^2 = \text{dim} \quad (\text{若} \ \sigma=1)",
        quote_en=r"$\mathrm{Var}(Q\cdot K^\top) = \mathrm{dim}\cdot\sigma^2 = \mathrm{dim}$ (if σ = 1)",
        question_en="If every component has standard deviation σ, what is Var(q·k)?",
        question_zh="若每个分量的标准差为 σ，Var(q·k) 是多少？",
        sources=(
            FOOTNOTE,
            Source("Var(XY) = σ_X²σ_Y² for independent zero-mean X, Y", None, "so Var(q·k) = dim·σ⁴"),
        ),
        experiment="direct draws of q, k with component std σ",
        params={"dim": 512, "sigmas": [1.0, 2.0], "count": 20000},
        run=mi.run_sigma_power,
        answer="var_sigma_1",
        answer_en="Var(q·k) at dim = 512 when every component has std σ = 2",
        answer_zh="dim = 512、每个分量标准差 σ = 2 时的 Var(q·k)",
    ),
    Claim(
        id="n4_std",
        note=NOTE_FILE,
        quote_zh="  - 点积均值：0  \n  - 点积标准差：\\(\\sqrt{512} \\approx 22.6\\)  \n  - 点积标准差：1  ",
        quote_en="[dim = 512] unscaled: mean of the dot products 0, standard deviation √512 ≈ 22.6; scaled: "
        "standard deviation 1",
        question_en="At dim = 512, what are the mean and the spread of q·k, before and after ÷√dim?",
        question_zh="dim = 512 时，缩放前后 q·k 的均值和离散程度各是多少？",
        sources=(FOOTNOTE,),
        experiment="core.experiments.variance + core.experiments.variance (std)",
        params={
            "std": {512: "22.6"},
            "std_scaled": {512: "1"},
            "mean": [512],
            "trials": 20000,
            "count": 20000,
        },
        run=ms.run_raw_range,
        answer="std_512",
        answer_tol=0.05,
        answer_en="std of q·k at dim = 512",
        answer_zh="dim = 512 时 q·k 的标准差",
    ),
    Claim(
        id="n4_grow",
        note=NOTE_FILE,
        quote_zh="- **高维空间中的点积**：当 `dim` 很大时，两个随机向量的点积倾向于增大（类似“维度灾难”）。",
        quote_en="- **Dot products in high dimension**: when `dim` is large, the dot product of two random vectors "
        "tends to grow (like the 'curse of dimensionality').",
        also_zh=("| **高维空间适配**     | 抵消高维向量点积的天然膨胀效应。",),
        also_en=(
            "| **High-dimension fit** | [scaling] offsets the natural inflation of high-dimensional dot products.",
        ),
        question_en="How fast does the typical size of q·k grow with dim?",
        question_zh="q·k 的典型大小随 dim 增长得有多快？",
        sources=(FOOTNOTE,),
        experiment="core.experiments.variance",
        params={"dks": [16, 64, 256, 1024], "trials": 20000},
        run=ms.run_growth,
        answer="slope",
        answer_tol=0.1,
        answer_en="the exponent b in std(q·k) ∝ dim^b",
        answer_zh="std(q·k) ∝ dim^b 中的指数 b",
    ),
    Claim(
        id="n4_extremes",
        note=NOTE_FILE,
        quote_zh="  - Softmax 输入范围：可能包含极端值（如 ±100），导致权重集中。",
        quote_en="  - [unscaled, dim = 512] softmax input range: may contain extreme values (such as ±100), "
        "concentrating the weights.",
        also_zh=(
            "  - **问题**：当 `dim` 较大（如 512 或 1024）时，点积结果的方差会很大，导致数值分布分散到极端值（如非常大或非常小的数）。",
        ),
        also_en=(
            "  - **Problem**: when `dim` is large (512 or 1024), the dot products' variance is large and the values "
            "spread out to extremes (very large or very small numbers).",
        ),
        question_en="At dim = 512 without scaling, how often does a score matrix hold a |q·k| ≥ 100?",
        question_zh="dim = 512 且不缩放时，一个分数矩阵中出现 |q·k| ≥ 100 的频率有多高？",
        sources=(FOOTNOTE, MAXIMA),
        experiment="core.sampling.gram_scores (exact n × n scores, d_k ≥ n)",
        params={
            "mode": "raw",
            "dim": 512,
            "ns": [3, 10, 128, 512],
            "trials": [20000, 20000, 400, 40],
            "size": 100.0,
        },
        run=mx.run_largest,
        answer="hit_128_pct",
        answer_tol=0.25,
        answer_en="share of 128 × 128 score matrices (dim = 512) holding a |q·k| ≥ 100 (%)",
        answer_zh="dim = 512 时，128 × 128 分数矩阵中含有 |q·k| ≥ 100 的比例（%）",
    ),
    Claim(
        id="n4_range_3",
        note=NOTE_FILE,
        quote_zh="  - Softmax 输入范围：约 ±3（99.7% 的数据在 3σ 内），分布更均匀。",
        quote_en="  - [scaled] softmax input range: about ±3 (99.7 % of the data within 3σ), a more even distribution.",
        also_zh=(
            "- 缩放后的点积结果数值范围更集中（如 \\([-3, 3]\\) 当 `dim=512` 时），Softmax 的输入更平滑：",
        ),
        also_en=(
            "- After scaling the dot products are more concentrated (e.g. [−3, 3] at dim = 512): the softmax "
            "input is smoother.",
        ),
        question_en="After ÷√dim at dim = 512, how large is the largest of the n² scores in one matrix?",
        question_zh="dim = 512 且除以 √dim 后，一个矩阵的 n² 个分数中最大的有多大？",
        sources=(FOOTNOTE, MAXIMA),
        experiment="core.sampling.gram_scores (exact n × n scores, d_k ≥ n)",
        params={
            "mode": "scaled",
            "dim": 512,
            "ns": [3, 10, 128, 512],
            "trials": [20000, 20000, 400, 40],
            "printed": "3",
            "count": 2_000_000,
        },
        run=mx.run_largest,
        answer="largest_512",
        answer_tol=0.1,
        answer_en="mean of the largest |q·k|/√dim over a 512 × 512 score matrix (dim = 512)",
        answer_zh="dim = 512 时，512 × 512 分数矩阵中最大 |q·k|/√dim 的均值",
    ),
    Claim(
        id="n4_first_last",
        note=NOTE_FILE,
        quote_zh="- 未缩放的点积会导致注意力权重集中在少数位置（如第一个或最后一个词），忽略其他信息，降低模型表达能力。",
        quote_en="- Unscaled dot products concentrate the attention weights on a few positions (such as the first "
        "or the last word), ignoring the rest and reducing the model's expressiveness.",
        question_en="Without scaling, does the weight pile onto a few keys — and onto the first or last one?",
        question_zh="不缩放时，权重会集中到少数几个键上吗？会集中到第一个或最后一个上吗？",
        sources=(
            Source(
                "Xiao et al. 2023, Efficient Streaming Language Models with Attention Sinks",
                "2309.17453",
                "§3: trained LMs park weight on the first token — a learned effect, not one of the scale",
            ),
        ),
        experiment="core.sampling.gram_scores, unscaled, arg-max position and exp(H) per row",
        params={"dim": 512, "ns": [3, 10], "trials": 20000},
        run=mw.run_first_last,
        answer="edge_10_pct",
        answer_tol=0.15,
        answer_en="share of rows (n = 10) whose largest weight is on the first or last key (%)",
        answer_zh="n = 10 时，最大权重落在第一个或最后一个键上的行所占比例（%）",
    ),
    Claim(
        id="n4_init",
        note=NOTE_FILE,
        quote_zh="  - 假设 \\(Q\\) 和 \\(K\\) 的元素独立采样自 \\(\\mathcal{N}(0, \\frac{1}{\\sqrt{\\text{dim}}})\\)"
        "（即初始化时缩放权重），则：\n"
        "    \\text{Var}(Q \\cdot K^T) = \\text{dim} \\cdot \\left(\\frac{1}{\\sqrt{\\text{dim}}}\\right)^2 = 1",
        quote_en="  - Suppose the entries of Q and K are drawn independently from $\\mathcal{N}(0, 1/\\sqrt{dim})$ (scaling "
        "the weights at initialisation); then\n    Var(Q·Kᵀ) = dim · (1/√dim)² = 1",
        question_en="Does N(0, 1/√dim) make Var(q·k) = 1 — with 1/√dim as a standard deviation or as a variance?",
        question_zh="N(0, 1/√dim) 能让 Var(q·k) = 1 吗？1/√dim 是标准差还是方差？",
        sources=(
            FOOTNOTE,
            Source("Var(q·k) = dim·σ⁴ for component std σ", None, "so σ = dim^(−1/4) gives 1"),
        ),
        experiment="direct draws of q, k with component std 1/√dim and dim^(−1/4)",
        params={"dim": 512, "count": 20000},
        run=mi.run_init_reading,
        answer="var_std",
        answer_tol=2.0,
        answer_en="Var(q·k) when the components have standard deviation 1/√dim (dim = 512)",
        answer_zh="分量标准差为 1/√dim（dim = 512）时的 Var(q·k)",
    ),
    Claim(
        id="n4_snippet",
        note=NOTE_FILE,
        quote_format="code",
        quote_zh='print("Raw scores std:", raw_scores.std().item())  # 约 22.6 (sqrt(512))\n'
        'print("Scaled scores std:", scaled_scores.std().item())  # 约 1.0\n'
        'print("Attention weights sum:", attention_weights.sum(dim=-1))  # 每行和为 1',
        quote_en='print("Raw scores std:", ...)     # about 22.6 (sqrt(512))\n'
        'print("Scaled scores std:", ...)  # about 1.0\n'
        'print("Attention weights sum:", ...)  # every row sums to 1',
        question_en="Run the notes' snippet (batch 2, seq_len 3, dim 512): what does it print?",
        question_zh="运行笔记里的代码（batch 2、seq_len 3、dim 512）：它会打印什么？",
        sources=(FOOTNOTE,),
        experiment="the notes' snippet in torch (float32), run many times",
        params={
            "batch": 2,
            "seq": 3,
            "dim": 512,
            "draws": 4000,
            "printed_raw": "22.6",
            "printed_scaled": "1.0",
        },
        run=mx.run_snippet,
        answer="median_raw",
        answer_tol=0.1,
        answer_en="the median of what the snippet prints as 'Raw scores std'",
        answer_zh="代码打印的“Raw scores std”的中位数",
    ),
    Claim(
        id="n4_cosine",
        note=NOTE_FILE,
        quote_zh="- **类比**：在计算余弦相似度时，先对向量归一化（除以模长），再计算点积。这里缩放 \\(\\sqrt{\\text{dim}}\\) 是类似的归一化操作。",
        quote_en="- **Analogy**: cosine similarity first normalises the vectors (divides by their lengths), then takes "
        "the dot product. Dividing by √dim here is a similar normalisation.",
        question_en="Is ÷√dim the normalisation cosine similarity does? Compare ‖q‖·‖k‖ with √dim.",
        question_zh="÷√dim 就是余弦相似度所做的归一化吗？比较 ‖q‖·‖k‖ 与 √dim。",
        sources=(
            Source(
                "‖q‖² ~ χ²_dim has mean dim, so ‖q‖·‖k‖ ≈ dim for unit-variance components",
                None,
                "cosine similarity = q·k/(‖q‖‖k‖) ≈ q·k/dim",
            ),
        ),
        experiment="direct draws of q, k",
        params={"dims": [64, 512], "count": 20000},
        run=mi.run_cosine,
        answer="ratio_512",
        answer_tol=0.1,
        answer_en="‖q‖·‖k‖ / √dim at dim = 512",
        answer_zh="dim = 512 时的 ‖q‖·‖k‖ / √dim",
    ),
    Claim(
        id="n4_grad",
        note=NOTE_FILE,
        quote_zh="  - 避免 \\(e^{x_i}\\) 主导分母，保证梯度非零。\n  - 反向传播时，梯度能更有效地传递到 \\(Q\\) 和 \\(K\\)。",
        quote_en="  - [After ÷√dim] no single $e^{x_i}$ dominates the denominator, so the gradient stays non-zero.\n"
        "  - In backpropagation the gradient reaches Q and K more effectively.",
        question_en="At dim = 512, how much more gradient reaches the query with ÷√dim than without?",
        question_zh="dim = 512 时，除以 √dim 后传到查询的梯度比不缩放时多多少？",
        sources=(Source(VASWANI, VASWANI_ARXIV, "§3.2.1: 'extremely small gradients'"),),
        experiment="core.experiments.gradients (3 seeds)",
        params={"dim": 512, "ns": [3, 10], "trials": 2000, "replicates": 3},
        run=mg.run_scaled_passes,
        answer="sqrt_10",
        answer_tol=0.25,
        answer_en="median ‖∂L/∂q‖ with ÷√dim, dim = 512, n = 10",
        answer_zh="÷√dim、dim = 512、n = 10 时 ‖∂L/∂q‖ 的中位数",
    ),
    Claim(
        id="n4_training",
        note=NOTE_FILE,
        quote_zh="- **后果**：模型难以学习有效的注意力模式，训练不稳定。",
        quote_en="- **Consequence** [of unscaled, saturated softmax]: the model struggles to learn useful attention "
        "patterns and training is unstable.",
        question_en="Trained without the scale at dim = 512, does the model learn its attention pattern?",
        question_zh="dim = 512 且不缩放时训练，模型能学会它的注意力模式吗？",
        sources=(Source(VASWANI, VASWANI_ARXIV, "§3.2.1"),),
        experiment="core.training.training (3 seeds)",
        params={"dks": [512], "n": 16, "steps": 200, "seeds": 3},
        run=mt.run_unscaled_training,
        answer="acc_none_top_pct",
        answer_tol=0.25,
        answer_en="final accuracy without scaling at dim = 512 (%)",
        answer_zh="dim = 512 不缩放时的最终准确率（%）",
    ),
    Claim(
        id="n4_relpos",
        note=NOTE_FILE,
        quote_zh="- **相对位置编码**：某些变体（如 **Relative Positional Encoding**）会额外调整缩放因子。",
        quote_en="- **Relative position encodings**: some variants adjust the scale factor further.",
        question_en="Do relative-position variants change the scale factor?",
        question_zh="采用相对位置编码的变体会改变缩放因子吗？",
        sources=(
            Source(
                "He et al. 2020, DeBERTa",
                "2006.03654",
                "§3.1, eq. 4: three attention terms summed, so the scores are divided by √(3d)",
            ),
        ),
        literature_verdict="holds",
    ),
    Claim(
        id="n4_no_scale",
        note=NOTE_FILE,
        quote_zh="- **不缩放的情况**：若使用 **余弦相似度**（已归一化）或 **双线性注意力**（通过参数矩阵控制数值范围），可能不需要缩放。",
        quote_en="- **No scaling**: with cosine similarity (already normalised) or bilinear attention (a parameter "
        "matrix controls the range), scaling may be unnecessary.",
        question_en="Does cosine or bilinear attention do without a scale?",
        question_zh="余弦注意力或双线性注意力可以不用缩放吗？",
        sources=(
            Source(
                "Liu et al. 2022, Swin Transformer V2",
                "2111.09883",
                "§3.2: cosine attention still divides by a learnable temperature τ (τ > 0.01)",
            ),
            Source(
                "Raffel et al. 2020, T5",
                "1910.10683",
                "no 1/√d: the bilinear form's scale lives in W_Q's init",
            ),
        ),
        literature_verdict="partly",
    ),
)

UNCHECKED: tuple[Unchecked, ...] = (
    Unchecked(
        NOTE_FILE,
        "| **注意力分布均匀化** | 避免权重过度集中，提升模型表达能力。",
        "| **Evening out attention** | avoids over-concentrated weights, improving expressiveness.",
        "'Expressiveness' is not defined or measured here; the concentration half is the first/last-token card.",
        "“表达能力”没有定义，这里也无法测量；关于集中的一半见“第一个或最后一个词”卡片。",
    ),
    Unchecked(
        NOTE_FILE,
        "除以 \\(\\sqrt{\\text{dim}}\\) 是注意力机制能够稳定训练的关键设计，尤其在深层模型（如 Transformer）中至关重要。",
        "Dividing by √dim is the key design that lets attention train stably, crucial above all in deep models.",
        "About deep models: the training model here has one attention layer, so it cannot test depth; the "
        "one-layer training cards measure what it can.",
        "这关乎深层模型：这里的训练模型只有一层注意力，无法检验“深度”；单层能测的已由训练卡片测量。",
    ),
    Unchecked(
        NOTE_FILE,
        "- **目标**：将点积结果的方差缩放到常数级别（如 1），避免数值爆炸。",
        "- **Goal**: bring the dot products' variance to a constant (e.g. 1), avoiding a numerical explosion.",
        "A statement of intent; the variance it aims at is measured on the std card, the 'explosion' on the ±100 card.",
        "这是目的陈述；它要达到的方差由标准差卡片测量，“数值爆炸”由 ±100 卡片测量。",
    ),
)
