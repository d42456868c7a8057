"""Note 000 (a blog post, "a brand-new angle"): its statements as claims, and what it says that cannot be checked."""
# ruff: noqa: E501  (a table of verbatim quotes and their translations: lines are as long as the sentences)

from __future__ import annotations

from core.factcheck import measure_gradients as mg
from core.factcheck import measure_init as mi
from core.factcheck import measure_scores as ms
from core.factcheck import measure_training as mt
from core.factcheck import measure_weights as mw
from core.factcheck.claims import VASWANI, VASWANI_ARXIV, Claim, Note, Source, Unchecked
from core.factcheck.rules import N_NOTES

NOTE_FILE = "000_1321cab39699a7d4.txt"
NOTE = Note(
    NOTE_FILE,
    "self Attention为何除以根号dk?(全新角度)",
    "Why does self-attention divide by √d_k? (a brand-new angle)",
)
FOOTNOTE = Source(VASWANI, VASWANI_ARXIV, "§3.2.1, footnote 4")

CLAIMS: tuple[Claim, ...] = (
    Claim(
        id="n0_var",
        note=NOTE_FILE,
        quote_format="plain",
        quote_zh=r"因此,点积的方差为 d k d_k dk,标准差为 d k \sqrt{d_k} dk",
        quote_en="Hence the dot product has variance d_k and standard deviation √d_k.",
        also_zh=(r"通过将点积除以 d k \sqrt{d_k} dk ,可以将点积的标准差从 d k \sqrt{d_k} dk 缩放至1,即:",),
        also_en=("Dividing the dot product by √d_k scales its standard deviation from √d_k down to 1.",),
        question_en="With iid N(0, 1) components, what are the variance of q·k and of q·k/√d_k?",
        question_zh="各分量独立同分布于 N(0, 1) 时，q·k 与 q·k/√d_k 的方差各是多少？",
        sources=(FOOTNOTE,),
        experiment="core.experiments.variance",
        params={"dks": [16, 64, 256], "trials": 20000},
        run=ms.run_variance,
        answer="var_64",
        answer_en="Var(q·k) at d_k = 64",
        answer_zh="d_k = 64 时的 Var(q·k)",
    ),
    Claim(
        id="n0_product",
        note=NOTE_FILE,
        quote_format="plain",
        quote_zh=r"Var ( q i ( m ) k j ( m ) ) = Var ( q i ( m ) ) ⋅ Var ( k j ( m ) ) + [ E ( q i ( m ) ) ] 2 ⋅ "
        r"Var ( k j ( m ) ) + [ E ( k j ( m ) ) ] 2 ⋅ Var ( q i ( m ) ) = 1",
        quote_en="Var(q·k per component) = Var(q)·Var(k) + E[q]²·Var(k) + E[k]²·Var(q) = 1.",
        question_en="For independent X and Y, is Var(XY) = Var X·Var Y + E[X]²·Var Y + E[Y]²·Var X?",
        question_zh="X、Y 相互独立时，Var(XY) = Var X·Var Y + E[X]²·Var Y + E[Y]²·Var X 成立吗？",
        sources=(
            Source(
                "Goodman 1960, On the exact variance of products",
                None,
                "J. Am. Stat. Assoc. 55(292): the exact variance of a product of independent variables",
            ),
        ),
        experiment="core.factcheck.measure_scores.dot_moments (d = 1)",
        params={"cases": [(0.0, 0.0, 1.0, 1.0), (1.0, 2.0, 1.0, 0.5)], "count": 400000},
        run=mi.run_product_variance,
        answer="var_1",
        answer_en="Var(XY) for X ~ N(1, 1), Y ~ N(2, 0.5²)",
        answer_zh="X ~ N(1, 1)、Y ~ N(2, 0.5²) 时的 Var(XY)",
    ),
    Claim(
        id="n0_overflow",
        note=NOTE_FILE,
        quote_format="plain",
        quote_zh="数值溢出问题:若点积的绝对值随 d k d_k dk增大而显著增大(例如 d k = 64 d_k=64 dk=64时标准差为8),"
        "输入Softmax的值可能超出浮点数表示范围。",
        quote_en="Numerical overflow: the absolute dot products grow markedly with d_k (at d_k = 64 the standard "
        "deviation is 8), so the values fed to softmax may exceed the range floating point can represent.",
        question_en="At d_k = 64 without scaling, do the softmax inputs overflow — and in which dtype?",
        question_zh="d_k = 64 且不缩放时，softmax 的输入会溢出吗？在哪种数据类型里溢出？",
        sources=(
            Source(
                "IEEE 754 half precision: largest finite value 65504, so exp overflows above ln 65504 ≈ 11.09",
                None,
                "fp16 / bf16 / fp32 limits via torch.finfo",
            ),
            Source(
                "Milakov & Gimelshein 2018, Online normalizer calculation for softmax",
                "1805.02867",
                "max-subtraction keeps every exponent ≤ 0",
            ),
        ),
        experiment="core.experiments.precision + core.experiments.variance",
        params={"dk": 64, "n": N_NOTES, "trials": 2000, "var_trials": 20000, "std": "8"},
        run=mg.run_overflow,
        answer="naive_float16_pct",
        answer_en="share of rows whose naive float16 softmax gives inf/NaN (%)",
        answer_zh="朴素 float16 softmax 出现 inf/NaN 的行所占比例（%）",
    ),
    Claim(
        id="n0_vanish",
        note=NOTE_FILE,
        quote_format="plain",
        quote_zh="梯度消失问题:当某些点积值远大于其他值时,Softmax输出接近独热分布(Hard Attention),导致梯度趋近于零,阻碍参数更新。",
        quote_en="Vanishing gradients: when some dot products are much larger than the rest, softmax's output is nearly "
        "one-hot (hard attention), so the gradient tends to zero and blocks the parameter updates.",
        question_en="Without scaling, does the softmax gradient ‖J‖₂ really approach zero — from which d_k on?",
        question_zh="不缩放时，softmax 的梯度 ‖J‖₂ 真的会趋近于零吗？从多大的 d_k 开始？",
        sources=(Source(VASWANI, VASWANI_ARXIV, "§3.2.1: 'extremely small gradients'"),),
        experiment="core.experiments.gradients (3 seeds)",
        params={"dks": [64, 256, 1024], "n": N_NOTES, "trials": 2000, "replicates": 3},
        run=mg.run_vanish,
        answer="ratio_64",
        answer_tol=2.0,
        answer_en="at d_k = 64: median ‖J‖₂ unscaled ÷ median ‖J‖₂ with ÷√d_k",
        answer_zh="d_k = 64 时：不缩放的 ‖J‖₂ 中位数 ÷ 缩放后的 ‖J‖₂ 中位数",
    ),
    Claim(
        id="n0_spread",
        note=NOTE_FILE,
        quote_format="plain",
        quote_zh="分布退化问题:未经缩放的输入会使注意力权重集中在极少数位置,失去“软性关注”的优势。",
        quote_en="Degenerate distribution: unscaled inputs concentrate the attention weights on very few positions, "
        "losing the advantage of 'soft' attention.",
        also_zh=("模型鲁棒性:注意力权重在多位置间合理分配,保留软性关注能力。",),
        also_en=("Robustness: [after scaling] the weights are spread sensibly over several positions.",),
        question_en="On how many keys does the weight effectively sit, with and without ÷√d_k?",
        question_zh="缩放与不缩放时，权重实际上落在几个键上？",
        sources=(FOOTNOTE,),
        experiment="core.experiments.saturation",
        params={"dks": [64, 256], "n": N_NOTES, "trials": 2000},
        run=mw.run_spread,
        answer="keys_none_64",
        answer_tol=0.25,
        answer_en="effective keys exp(H), unscaled, d_k = 64, n = 10",
        answer_zh="不缩放、d_k = 64、n = 10 时的有效键数 exp(H)",
    ),
    Claim(
        id="n0_normal",
        note=NOTE_FILE,
        quote_format="plain",
        quote_zh=r"此时,点积的分布被标准化 N ( 0 , 1 ) \mathcal{N}(0,1) N(0,1)",
        quote_en="Now the dot product's distribution is standardised to N(0, 1).",
        question_en="Variance 1 — but is q·k/√d_k actually normal? Look at its tails and kurtosis.",
        question_zh="方差是 1——但 q·k/√d_k 真的服从正态分布吗？看看它的尾部和峰度。",
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
        answer="kurtosis_16",
        answer_tol=0.2,
        answer_en="excess kurtosis of q·k/√d_k at d_k = 16 (a normal has 0)",
        answer_zh="d_k = 16 时 q·k/√d_k 的超额峰度（正态分布为 0）",
    ),
    Claim(
        id="n0_linear",
        note=NOTE_FILE,
        quote_format="plain",
        quote_zh="除以 d k d_k dk:方差将缩小为 1 / d k 1/d_k 1/dk,导致Softmax输入过小,注意力权重趋于均匀分布,失去区分性。",
        quote_en="Dividing by d_k: the variance shrinks to 1/d_k, the softmax inputs become too small, the weights tend "
        "to the uniform distribution and lose their power to discriminate.",
        question_en="What does dividing by d_k instead of √d_k do to the scores and to the weights?",
        question_zh="用 d_k 代替 √d_k 做除数，分数和权重会怎样？",
        sources=(FOOTNOTE,),
        experiment="core.experiments.variance + core.experiments.saturation",
        params={"dks": [16, 64, 256], "n": N_NOTES, "trials": 2000, "var_trials": 20000},
        run=mw.run_linear,
        answer="keys_min",
        answer_en="the fewest effective keys exp(H) with ÷d_k, n = 10",
        answer_zh="÷d_k、n = 10 时有效键数 exp(H) 的最小值",
    ),
    Claim(
        id="n0_double_sqrt",
        note=NOTE_FILE,
        quote_format="plain",
        quote_zh="除以 2 d k 2\\sqrt{d_k} 2dk :方差将缩小为 1 / 4 1/4 1/4,输入量级过小,同样影响注意力权重的有效性。",
        quote_en="Dividing by 2√d_k: the variance shrinks to 1/4, the inputs are too small, and this too hurts the "
        "effectiveness of the attention weights.",
        question_en="Does dividing by 2√d_k instead of √d_k make attention less effective?",
        question_zh="用 2√d_k 代替 √d_k 做除数，注意力会变得不那么有效吗？",
        sources=(
            Source(
                "Raffel et al. 2020, T5: no 1/√d in the forward pass; a constant factor is absorbed by "
                "W_Q's initialisation and learning",
                "1910.10683",
                "§3.1 / Mesh TensorFlow initialisation",
            ),
        ),
        experiment="core.experiments.variance + saturation + core.training (3 seeds)",
        params={
            "dk": 64,
            "n": N_NOTES,
            "var_trials": 20000,
            "sat_trials": 2000,
            "train_n": 16,
            "steps": 200,
            "seeds": 3,
        },
        run=mt.run_double_sqrt,
        answer="steps_double",
        answer_tol=2.0,
        answer_en="training steps to 90 % accuracy with ÷2√d_k (d_k = 64)",
        answer_zh="÷2√d_k（d_k = 64）训练到 90% 准确率所需步数",
    ),
)

UNCHECKED: tuple[Unchecked, ...] = (
    Unchecked(
        NOTE_FILE,
        "假设查询向量 q i q_i qi和键向量 k j k_j kj的每个分量均为独立同分布的随机变量,且服从标准正态分布,即:",
        "Assume every component of the query q_i and the key k_j is iid standard normal.",
        "An assumption, not a claim: every card of this note is measured under it. It describes initialisation "
        "at best (see note 002's Xavier card): trained q and k are neither independent nor unit-variance.",
        "这是假设而非结论：本笔记的每张卡片都在此假设下测量。它至多描述初始化（见笔记 002 关于 Xavier 的卡片）："
        "训练后的 q、k 既不独立，方差也不为 1。",
    ),
    Unchecked(
        NOTE_FILE,
        "Softmax函数对输入值的量级极其敏感:",
        "Softmax is extremely sensitive to the magnitude of its inputs.",
        "No measure of 'extremely sensitive' is given; the cards on overflow, gradients and concentration "
        "measure what a larger input scale does.",
        "“极其敏感”没有给出任何度量；关于溢出、梯度和集中程度的卡片测量了输入尺度变大时的后果。",
    ),
    Unchecked(
        NOTE_FILE,
        "数值稳定性:Softmax输入的均值为0、方差为1,避免极端值。",
        "Numerical stability: the softmax inputs have mean 0 and variance 1, avoiding extreme values.",
        "Mean 0 and variance 1 are measured on the first card; 'extreme' has no threshold. Note 004's ±3 card "
        "measures the largest of n² scaled scores: about 5 at n = 512.",
        "均值 0、方差 1 已由第一张卡片测量；“极端值”没有给出界限。笔记 004 关于 ±3 的卡片测量了 n² 个缩放后分数中的最大值："
        "n = 512 时约为 5。",
    ),
    Unchecked(
        NOTE_FILE,
        "梯度均衡性:Softmax输出的概率分布更平缓,梯度更新更稳定。",
        "Balanced gradients: softmax's output distribution is flatter, the gradient updates more stable.",
        "'Flatter' is measured by the card on concentrated weights; 'more stable updates' names no quantity. "
        "Note 001's training cards measure convergence with and without scaling.",
        "“更平缓”由关于权重集中的卡片测量；“更新更稳定”没有指明任何量。笔记 001 的训练卡片测量了缩放与否时的收敛情况。",
    ),
    Unchecked(
        NOTE_FILE,
        "从正态分布的角度看,除以 d k \\sqrt{d_k} dk 的本质是通过方差归一化,将点积的统计特性控制在合理范围内",
        "From the normal-distribution angle, dividing by √d_k normalises the variance and keeps the dot product's "
        "statistics in a reasonable range.",
        "A summary of the cards above; 'a reasonable range' is not defined.",
        "这是对上面各卡片的总结；“合理范围”没有定义。",
    ),
)
