"""Note 001 (interview notes, "the mathematical necessity of √d_k"): its statements as claims, and what
it says that cannot be checked."""
# ruff: noqa: E501  (a table of verbatim quotes and their translations: lines are as long as the sentences)

from __future__ import annotations

from core.factcheck import measure_calculus as mc
from core.factcheck import measure_cost as mk
from core.factcheck import measure_scores as ms
from core.factcheck import measure_training as mt
from core.factcheck import measure_weights as mw
from core.factcheck.claims import VASWANI, VASWANI_ARXIV, Claim, Note, Source, Unchecked
from core.factcheck.rules import N_NOTES, RHO_TRAINED

NOTE_FILE = "001_34c0065eb83ef83b.txt"
NOTE = Note(
    NOTE_FILE,
    "缩放因子√dk的数学必要性 - 面试回答",
    "The mathematical necessity of the √d_k factor — an interview answer",
)
FOOTNOTE = Source(VASWANI, VASWANI_ARXIV, "§3.2.1, footnote 4")
T5 = Source(
    "Raffel et al. 2020, T5: no 1/√d in the forward pass, folded into W_Q's initialisation",
    "1910.10683",
    "§3.1 / Mesh TensorFlow initialisation",
)
MUP = Source(
    "Yang et al. 2022, Tensor Programs V (μP)",
    "2203.03466",
    "Def. 4.1 and footnote 8: attention scaled by 1/d",
)

CLAIMS: tuple[Claim, ...] = (
    Claim(
        id="n1_var",
        note=NOTE_FILE,
        quote_zh="那么它们的点积期望是 0，但方差会随着维度线性增长，即方差∝dk",
        quote_en="then their dot product has expectation 0, but its variance grows linearly with the dimension: "
        "variance ∝ d_k.",
        also_zh=("这样就保持了点积值的方差为1，与dk无关。",),
        also_en=("So the variance of the dot product stays 1, independent of d_k.",),
        question_en="The notes' snippet draws Q, K of 100 × d_k for d_k = 64 … 512: what mean and variance come out?",
        question_zh="笔记里的代码对 d_k = 64 … 512 抽取 100 × d_k 的 Q、K：得到的均值和方差是多少？",
        sources=(FOOTNOTE,),
        experiment="core.experiments.variance",
        params={"dks": [64, 128, 256, 512], "trials": 20000, "parts": ("mean", "raw", "scaled")},
        run=ms.run_variance,
        answer="var_512",
        answer_en="Var(q·k) at d_k = 512",
        answer_zh="d_k = 512 时的 Var(q·k)",
    ),
    Claim(
        id="linear_log",
        note=NOTE_FILE,
        quote_zh="- 用dk会过度缩放，使得注意力权重过于平均，失去选择性\n- 用log(dk)缩放不足，仍然存在饱和问题",
        quote_en="- Dividing by d_k over-scales: the weights become too even and lose selectivity.\n"
        "- Dividing by log(d_k) under-scales: saturation remains.",
        question_en="Why not divide by d_k, or by log d_k?",
        question_zh="为什么不除以 d_k，或者除以 log d_k？",
        sources=(Source(VASWANI, VASWANI_ARXIV, "§3.2.1, footnote 4 (the variance argument)"),),
        experiment="core.experiments.saturation",
        params={"dks": [16, 64, 256], "n": N_NOTES, "trials": 2000},
        run=mw.run_linear_log,
        answer="entropy_log_max",
        answer_tol=0.2,
        answer_en="mean entropy (nats) with ÷ln d_k at d_k = 256, n = 10",
        answer_zh="÷ln d_k、d_k = 256、n = 10 时的平均熵（奈特）",
    ),
    Claim(
        id="sqrt_optimal",
        note=NOTE_FILE,
        quote_zh="√dk是理论推导的最优解，能够精确地将方差控制为1",
        quote_en="√d_k is the theoretically derived optimal solution; it controls the variance to exactly 1.",
        also_zh=("3. **设计精妙**：√dk是理论最优解，不是经验调参",),
        also_en=("3. **Elegant design**: √d_k is the theoretical optimum, not empirical tuning.",),
        question_en="Is 1/√d_k the optimal scale factor?",
        question_zh="1/√d_k 是最优的缩放因子吗？",
        sources=(MUP, T5),
        experiment="core.experiments.variance",
        params={"dks": [16, 64, 256], "trials": 20000, "rho": RHO_TRAINED},
        run=ms.run_sqrt_optimal,
        answer="trained_max",
        answer_tol=0.2,
        answer_en="E[(q·k/√d_k)²] at d_k = 256 when q, k are correlated at ρ = 0.5",
        answer_zh="q、k 相关系数 ρ = 0.5 时，d_k = 256 下的 E[(q·k/√d_k)²]",
    ),
    Claim(
        id="n1_onehot",
        note=NOTE_FILE,
        quote_zh="如果某个xᵢ >> 其他元素，则：\n- softmax(xᵢ) ≈ 1\n- softmax(xⱼ) ≈ 0 (j ≠ i)\n- 梯度 ≈ 0，导致梯度消失",
        quote_en="If some x_i ≫ the other elements, then:\n- softmax(x_i) ≈ 1\n- softmax(x_j) ≈ 0 (j ≠ i)\n"
        "- gradient ≈ 0, so the gradient vanishes",
        question_en="How far must one input stand above the others for softmax to be one-hot and its gradient ≈ 0?",
        question_zh="一个输入要比其余输入大多少，softmax 才会接近 one-hot、梯度才会 ≈ 0？",
        sources=(Source("Softmax Jacobian J = diag(p) − ppᵀ; ‖J‖₂ ≤ 2(1 − max p)", None, "SCIENCE §3(c)"),),
        experiment="float64 softmax and Jacobian of [gap, 0, …, 0]",
        params={"n": N_NOTES, "gaps": [10.0, 20.0]},
        run=mc.run_onehot,
        answer="gap_needed",
        answer_en="the gap (over 9 others at 0) at which the top weight reaches 0.99",
        answer_zh="（其余 9 个为 0 时）最大权重达到 0.99 所需的差距",
    ),
    Claim(
        id="n1_training",
        note=NOTE_FILE,
        quote_zh="1. 训练不稳定，梯度消失严重\n2. 注意力权重过于尖锐，失去平滑性\n3. 模型难以收敛，特别是在大的dk值下",
        quote_en="1. Training is unstable, the gradient vanishes badly\n2. The attention weights are too sharp, no "
        "longer smooth\n3. The model struggles to converge, especially at large d_k",
        also_zh=(
            "因此，我们在点积结果上除以 d k 的平方根，相当于做标准化，把方差缩回到 1 的量级，使 Softmax 输出更加平滑，保证训练稳定。",
        ),
        also_en=(
            "So we divide the dot product by √d_k — a standardisation that brings the variance back to order 1, "
            "smooths the softmax output and keeps training stable.",
        ),
        question_en="What happens when a model trains without the scale, at d_k = 64 and at d_k = 1024?",
        question_zh="不缩放时训练模型，在 d_k = 64 与 d_k = 1024 下分别会怎样？",
        sources=(
            Source(VASWANI, VASWANI_ARXIV, "§3.2.1"),
            Source("Zhai et al. 2023, attention entropy collapse", "2303.06296", "§3"),
        ),
        experiment="core.training.training (3 seeds)",
        params={"dks": [64, 1024], "n": 16, "steps": 200, "seeds": 3},
        run=mt.run_unscaled_training,
        answer="acc_none_top_pct",
        answer_tol=0.25,
        answer_en="final accuracy without scaling at d_k = 1024 (%)",
        answer_zh="d_k = 1024 不缩放时的最终准确率（%）",
    ),
    Claim(
        id="n1_long",
        note=NOTE_FILE,
        quote_zh="4. 长序列的性能会显著下降",
        quote_en="4. Performance on long sequences drops markedly [without the scale]",
        question_en="Without the scale, does a longer sequence (64 keys instead of 8) cost accuracy?",
        question_zh="不缩放时，更长的序列（64 个键而不是 8 个）会损失准确率吗？",
        sources=(
            Source(
                "Chiang & Cholak 2022, Overcoming a theoretical limitation of self-attention",
                "2202.12172",
                "§5: scaling by log n for length",
            ),
        ),
        experiment="core.training.training (2 seeds)",
        params={"dk": 64, "ns": [8, 64], "steps": 200, "seeds": 2},
        run=mt.run_long_sequences,
        answer="acc_none_n64_pct",
        answer_tol=0.25,
        answer_en="final accuracy without scaling at n = 64 keys (%)",
        answer_zh="不缩放、n = 64 个键时的最终准确率（%）",
    ),
    Claim(
        id="n1_scale_cost",
        note=NOTE_FILE,
        quote_zh="几乎没有影响。除法运算的开销远小于矩阵乘法，而且现代深度学习框架都对此进行了优化。",
        quote_en="Almost no effect. A division costs far less than a matrix product, and modern deep-learning frameworks "
        "optimise it anyway.",
        question_en="How much of an attention forward pass does the scale cost?",
        question_zh="缩放在一次注意力前向计算中占多少开销？",
        sources=(
            Source(
                "torch.nn.functional.scaled_dot_product_attention (math backend) scales q before QKᵀ",
                None,
                "PyTorch documentation, 'scale' argument",
            ),
        ),
        experiment="core.timing.time_interleaved (NumPy, float32)",
        params={"n": 1024, "d": 64, "repeats": 15},
        run=mk.run_scale_cost,
        answer="divide_pct",
        answer_tol=3.0,
        answer_en="share of the forward's time spent dividing the n × n scores (%)",
        answer_zh="对 n × n 分数做除法占前向计算时间的比例（%）",
    ),
    Claim(
        id="n1_almost_all",
        note=NOTE_FILE,
        quote_zh="4. **广泛应用**：几乎所有Transformer变体都采用此设计",
        quote_en="4. **Widely used**: almost every Transformer variant adopts this design",
        question_en="Does almost every Transformer variant divide by √d_k?",
        question_zh="几乎所有 Transformer 变体都除以 √d_k 吗？",
        sources=(
            T5,
            MUP,
            Source(
                "Liu et al. 2022, Swin Transformer V2: cosine attention with a learnable temperature",
                "2111.09883",
                "§3.2",
            ),
        ),
        literature_verdict="partly",
    ),
)

UNCHECKED: tuple[Unchecked, ...] = (
    Unchecked(
        NOTE_FILE,
        "**A:** 是的，这是模型架构的一部分，在训练和推理阶段都必须保持一致。这不是像Dropout那样的训练技巧，而是保证数值稳定性的核心设计。",
        "Yes: it is part of the architecture and must be the same in training and inference. It is not a "
        "training trick like dropout but a core design for numerical stability.",
        "True by construction, nothing to measure: the scale is part of the function the model computes, so "
        "changing it between training and inference multiplies every logit by a constant.",
        "这是由定义决定的，无需测量：缩放是模型所计算函数的一部分，训练与推理之间改变它，就等于把每个 logit 乘上一个常数。",
    ),
    Unchecked(
        NOTE_FILE,
        "相比于带来的数值稳定性收益，这点计算开销是完全可以接受的。",
        "Compared with the stability it buys, this cost is entirely acceptable.",
        "A value judgement; the cost itself is measured on the card about the scale's cost.",
        "这是价值判断；开销本身已由关于缩放开销的卡片测量。",
    ),
    Unchecked(
        NOTE_FILE,
        "这个设计体现了Transformer作者们深厚的数学功底和对数值稳定性的深刻理解。",
        "This design shows the Transformer authors' deep mathematical skill and understanding of numerical stability.",
        "An opinion about the authors, not about attention.",
        "这是对作者的评价，与注意力本身无关。",
    ),
)
