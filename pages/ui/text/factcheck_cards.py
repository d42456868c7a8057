"""Fact-check card strings: the measured quantities, the statements of a claim, and each card's explanation
(its {placeholders} are facts of the live measurement, formatted by the page)."""
# ruff: noqa: E501  (prose: translation lines are as long as their sentences)

_QTY = {
    "var_raw": ("Var(q·k)", "Var(q·k)"),
    "var_scaled": ("variance of the scaled score", "缩放后分数的方差"),
    "mean_raw": ("mean of q·k", "q·k 的均值"),
    "var_product": ("Var(XY)", "Var(XY)"),
    "excess_kurtosis": ("excess kurtosis of q·k/√d_k (normal: 0)", "q·k/√d_k 的超额峰度（正态：0）"),
    "tail_3sigma": ("share beyond 3σ (normal: 0.27 %)", "3σ 以外的比例（正态：0.27%）"),
    "std": ("std of q·k", "q·k 的标准差"),
    "std_scaled": ("std of q·k/√d_k", "q·k/√d_k 的标准差"),
    "std_raw": ("std of q·k", "q·k 的标准差"),
    "fraction_inside_raw": ("share of q·k inside the range", "q·k 落在该范围内的比例"),
    "fraction_beyond_raw": ("share of q·k at least this large", "q·k 至少这么大的比例"),
    "fraction_inside": ("share of scaled scores in [−3, 3]", "缩放后分数落在 [−3, 3] 的比例"),
    "largest_scaled": ("mean largest |q·k|/√d_k of the n² scores", "n² 个分数中最大 |q·k|/√d_k 的均值"),
    "matrices_with_extreme": ("share of n × n matrices holding such a score", "含有此类分数的 n × n 矩阵比例"),
    "norm_product_over_sqrt": ("‖q‖·‖k‖ / √d_k", "‖q‖·‖k‖ / √d_k"),
    "w_var": ("variance of the Xavier weights", "Xavier 权重的方差"),
    "q_var": ("variance of q = x W", "q = x W 的方差"),
    "second_moment_scaled": ("E[s²], s = q·k/√d_k", "E[s²]，s = q·k/√d_k"),
    "log_slope_std": ("local slope of ln std(q·k) vs ln d_k", "ln std(q·k) 对 ln d_k 的局部斜率"),
    "printed_std": ("median printed std", "打印出的标准差的中位数"),
    "row_sum_error": ("largest |row sum − 1|", "最大 |行和 − 1|"),
    "entropy": ("mean entropy H (nats)", "平均熵 H（奈特）"),
    "entropy_vs_sqrt": ("entropy ÷ln d_k vs ÷√d_k", "熵：÷ln d_k 对比 ÷√d_k"),
    "entropy_step": ("mean entropy vs the previous d_k", "平均熵（与上一个 d_k 相比）"),
    "matrix_max_weight": ("attn.max() of one 10 × 10 draw", "一次 10 × 10 抽样的 attn.max()"),
    "gap_to_one": ("1 − attn.max() vs the previous d_k", "1 − attn.max()（与上一个 d_k 相比）"),
    "effective_keys": ("mean effective keys exp(H)", "平均有效键数 exp(H)"),
    "first_or_last": ("share of rows whose largest weight is first or last (chance 2/n)", "最大权重落在首尾位置的行比例（随机水平 2/n）"),
    "softmax_entry": ("softmax entry", "softmax 分量"),
    "jacobian_max_abs": ("largest |J_jk|", "最大 |J_jk|"),
    "exp_value": ("value", "数值"),
    "exp_overflows": ("e^x is inf (1 = yes)", "e^x 为 inf（1 = 是）"),
    "pq_min": ("smallest p(1 − p) of the example", "示例中最小的 p(1 − p)"),
    "pq_share": ("share of weights with p(1 − p) > 0.01", "p(1 − p) > 0.01 的权重比例"),
    "top_weight": ("largest weight", "最大权重"),
    "other_weight_max": ("largest of the other weights", "其余权重中的最大值"),
    "formula_vs_autograd": ("relative gap to autograd", "与自动求导的相对差"),
    "diagonal_vs_autograd": ("relative gap of p(1 − p) to autograd's diagonal", "p(1 − p) 与自动求导对角元的相对差"),
    "negative_weights": ("negative weights", "负权重个数"),
    "order_kept": ("share of pairs keeping their order", "保持大小顺序的成对比例"),
    "stable_vs_naive": ("relative gap, max-subtracted vs naive", "减最大值与朴素算法的相对差"),
    "stable_finite": ("share of rows finite after max-subtraction", "减最大值后结果有限的行比例"),
    "grad_q_vs_k_at_equal": ("‖∂L/∂Q − ∂L/∂K‖ / ‖∂L/∂Q‖", "‖∂L/∂Q − ∂L/∂K‖ / ‖∂L/∂Q‖"),
    "a_vs_swap": ("largest |A − A_swapᵀ|", "最大 |A − A_swapᵀ|"),
    "m_vs_transpose": ("‖M − Mᵀ‖ / ‖M‖, M = W^Q(W^K)ᵀ", "‖M − Mᵀ‖ / ‖M‖，M = W^Q(W^K)ᵀ"),
    "log_slope": ("local log-log slope", "对数-对数局部斜率"),
    "jacobian_ratio": ("median ‖J‖₂ unscaled ÷ with ÷√d_k", "不缩放的 ‖J‖₂ 中位数 ÷ 缩放后的"),
    "grad_median_scaled": ("median ‖∂L/∂q‖ with ÷√d_k vs unscaled", "缩放后 ‖∂L/∂q‖ 中位数（对比不缩放）"),
    "naive_nonfinite": ("share of rows whose naive softmax is inf/NaN", "朴素 softmax 出现 inf/NaN 的行比例"),
    "logits_nonfinite": ("share of rows whose scores themselves overflow", "分数本身溢出的行比例"),
    "steps_to_90": ("training steps to 90 % accuracy", "训练到 90% 准确率的步数"),
    "accuracy_drop": ("final accuracy, short minus long sequence", "最终准确率：短序列减长序列"),
    "grad_wq_first": ("‖∂L/∂W_Q‖ at step 0, unscaled vs ÷√d_k", "第 0 步 ‖∂L/∂W_Q‖：不缩放对比 ÷√d_k"),
    "rel_diff_init": ("‖W_Q − W_K‖ / mean ‖W‖ at step 0", "第 0 步 ‖W_Q − W_K‖ / 平均 ‖W‖"),
    "diff_ratio": ("‖W_Q − W_K‖, final ÷ initial", "‖W_Q − W_K‖：训练后 ÷ 训练前"),
    "rel_ratio": ("relative ‖W_Q − W_K‖, final ÷ initial", "相对 ‖W_Q − W_K‖：训练后 ÷ 训练前"),
    "rel_diff_final": ("‖W_Q − W_K‖ / mean ‖W‖ after training from W_K = W_Q", "从 W_K = W_Q 出发训练后的 ‖W_Q − W_K‖ / 平均 ‖W‖"),
    "cost_exponent_d": ("exponent of d in the operation count", "运算量中 d 的指数"),
    "time_ratio": ("time additive ÷ time dot-product", "加性耗时 ÷ 点积耗时"),
    "time_share": ("share of the forward's time", "占前向计算时间的比例"),
    "score_parameters": ("learnable parameters of the score", "打分函数的可学习参数"),
}

_PART = {
    "main": ("—", "—"), "raw": ("Var(q·k) = d_k", "Var(q·k) = d_k"), "scaled": ("÷√d_k → 1", "÷√d_k → 1"),
    "mean": ("mean 0", "均值为 0"), "notes": ("the notes' case, N(0, 1)", "笔记的情形，N(0, 1)"),
    "general": ("the formula in general", "一般情形下的公式"), "sigma1": ("σ = 1", "σ = 1"),
    "std_reading": ("1/√dim read as a standard deviation (the notes' arithmetic)", "把 1/√dim 当作标准差（笔记的算法）"),
    "variance_reading": ("1/√dim read as a variance", "把 1/√dim 当作方差"),
    "std": ("the standard deviations", "标准差"), "std_scaled": ("scaled std 1", "缩放后标准差为 1"),
    "inside": ("the share within the range", "落在范围内的比例"), "common": ("\"many\" values that large", "“很多”值有这么大"),
    "largest": ("\"about ±3\" for the largest of n² scores", "n² 个分数中的最大值“约 ±3”"),
    "three_sigma": ("99.7 % within 3σ", "99.7% 落在 3σ 内"),
    "iid": ("at init (ρ = 0)", "初始化时（ρ = 0）"), "trained": ("q, k aligned (ρ = {rho})", "q、k 相关（ρ = {rho}）"),
    "over": ("÷d_k over-scales", "÷d_k 缩放过度"), "under": ("÷ln d_k under-scales", "÷ln d_k 缩放不足"),
    "variance": ("the variance", "方差"), "uniform": ("near-uniform weights", "权重接近均匀"),
    "falls": ("unscaled: falls as d_k grows", "未缩放：随 d_k 增大而下降"), "stable": ("scaled: stays stable", "缩放后：保持稳定"),
    "to_one": ("unscaled: climbs toward 1", "未缩放：趋近 1"),
    "concentrated": ("unscaled: a few positions", "未缩放：少数几个位置"), "spread": ("scaled: spread out", "缩放后：分散"),
    "few": ("a few positions", "少数几个位置"), "first_last": ("the first or last position", "第一个或最后一个位置"),
    "softmax": ("the printed softmax", "印出的 softmax"), "exp": ("the exponentials", "指数值"),
    "overflow": ("e^50 overflows a float", "e^50 让浮点数溢出"), "gradient": ("the Jacobian ≈ 0", "雅可比矩阵 ≈ 0"),
    "example": ("the notes' own example", "笔记自己的例子"), "random": ("random scaled rows", "随机的缩放后行"),
    "jacobian": ("the Jacobian formula", "雅可比公式"), "diagonal": ("its diagonal p(1 − p)", "对角元 p(1 − p)"),
    "nonnegative": ("non-negative", "非负性"), "normalised": ("rows sum to 1", "每行和为 1"),
    "monotone": ("monotone", "单调性"), "equivalent": ("max-subtraction equivalent", "减最大值等价"),
    "no_overflow": ("max-subtraction cannot overflow", "减最大值不会溢出"),
    "formulas": ("the two formulas", "两个公式"), "different": ("different even at Q = K", "即使 Q = K 也不同"),
    "unscaled": ("unscaled ∝ 1/d_k", "未缩放 ∝ 1/d_k"), "scaled_flat": ("÷√d_k ≈ constant", "÷√d_k ≈ 常数"),
    "exp_float16": ("exp overflows in float16", "float16 中 exp 溢出"), "exp_bfloat16": ("exp overflows in bfloat16", "bfloat16 中 exp 溢出"),
    "exp_float32": ("exp overflows in float32", "float32 中 exp 溢出"),
    "inputs": ("the inputs themselves leave the range", "输入本身超出表示范围"),
    "too_small": ("inputs too small: near-uniform weights at step 0", "输入过小：第 0 步权重接近均匀"),
    "training": ("less effective in training", "训练中效果更差"),
    "converge": ("struggles to converge", "难以收敛"), "sharp": ("weights too sharp", "权重过于尖锐"),
    "vanish": ("the gradient vanishes", "梯度消失"),
    "tiny": ("a tiny asymmetry at t = 0", "t = 0 时存在微小的不对称"), "amplified": ("training amplifies it", "训练放大这种不对称"),
    "from_tied": ("no initial asymmetry needed", "不需要初始不对称"),
    "complexity": ("O(n²d²)", "O(n²d²)"), "practical": ("dot-product faster", "点积更快"),
    "divide": ("dividing the n × n scores", "对 n × n 分数做除法"), "fold": ("folding c into Q", "把 c 并入 Q"),
    "printed_raw": ("the printed raw std", "打印出的未缩放标准差"), "printed_scaled": ("the printed scaled std", "打印出的缩放后标准差"),
    "sums": ("every row sums to 1", "每行和为 1"),
    "formula": ("Xavier's variance 2/(d_model + d_k)", "Xavier 的方差 2/(d_model + d_k)"),
    "unit": ("unit-variance q, as the notes assume", "q 的方差为 1（笔记的假设）"),
}

_EXPLAIN = {
    "n0_var": (
        "Var(q·k) is d_k within sampling error at every d_k (Var/d_k between {ratio_min} and {ratio_max}), so the standard deviation is √d_k, and ÷√d_k brings it to 1. This is the paper's footnote 4, and it holds at initialisation only: in general Var(q·k) = tr(Σ_q Σ_k).",
        "在每个 d_k 下，Var(q·k) 都在抽样误差内等于 d_k（Var/d_k 介于 {ratio_min} 与 {ratio_max} 之间），所以标准差是 √d_k，除以 √d_k 后为 1。这就是论文脚注 4 的论证，它只在初始化时成立：一般情况下 Var(q·k) = tr(Σ_q Σ_k)。"),
    "n0_product": (
        "The product formula is right, and not only at the notes' N(0, 1) (where it gives {var_0} ≈ 1): with X ~ N(1, 1), Y ~ N(2, 0.5²) the formula's 4.5 is measured as {var_1}. It needs X and Y independent — correlated q and k break it (see the card on √d_k being optimal).",
        "乘积方差公式是对的，而且不只在笔记的 N(0, 1) 情形下成立（此时测得 {var_0} ≈ 1）：取 X ~ N(1, 1)、Y ~ N(2, 0.5²)，公式给出 4.5，实测 {var_1}。它要求 X 与 Y 独立——q 与 k 相关时公式不再成立（见关于 √d_k 是否最优的卡片）。"),
    "n0_overflow": (
        "At d_k = 64 the unscaled scores have std {std}, and the largest of them reach about {max_logit} — far inside every float range (float16's largest is 65504), so the inputs themselves never overflow. What overflows is exp: in float16 it is inf above ln 65504 = {ln_fp16}, and {naive_float16_pct} of rows of a naive float16 softmax come out inf/NaN; in bfloat16 and float32, {naive_bfloat16_pct} and {naive_float32_pct}. With max-subtraction (what every framework does) no dtype overflows ({stable_float16_pct} in float16).",
        "d_k = 64 时未缩放分数的标准差为 {std}，其中最大的约为 {max_logit}——远在任何浮点范围之内（float16 最大为 65504），所以输入本身从不溢出。溢出的是 exp：float16 中指数超过 ln 65504 = {ln_fp16} 就是 inf，朴素 float16 softmax 有 {naive_float16_pct} 的行得到 inf/NaN；bfloat16 与 float32 分别为 {naive_bfloat16_pct} 和 {naive_float32_pct}。减去最大值后（所有框架都这样做），任何数据类型都不会溢出（float16 中为 {stable_float16_pct}）。"),
    "n0_vanish": (
        "The mechanism is right, but it needs saturation, which the notes' own d_k = 64 does not reach with 10 keys: there the unscaled median ‖J‖₂ is still {ratio_64} of the scaled one ({j_none_64} vs {j_sqrt_64}). From d_k = {dk_vanished_from} on it is below a tenth ({ratio_256} at 256, {ratio_1024} at 1024). ‖J‖₂ ≤ 2(1 − max p), so a nearly one-hot row has a nearly zero Jacobian.",
        "机制是对的，但它需要饱和，而笔记自己举的 d_k = 64 在 10 个键时还没到：此时未缩放的 ‖J‖₂ 中位数仍是缩放后的 {ratio_64}（{j_none_64} 对 {j_sqrt_64}）。从 d_k = {dk_vanished_from} 起才低于十分之一（256 时为 {ratio_256}，1024 时为 {ratio_1024}）。‖J‖₂ ≤ 2(1 − max p)，所以接近 one-hot 的行，其雅可比矩阵接近零。"),
    "n0_spread": (
        "Unscaled, the weight sits on {keys_none_64} effective keys at d_k = 64 and {keys_none_256} at 256 (of {n}); with ÷√d_k on {keys_sqrt_64} and {keys_sqrt_256}. Both halves hold, with \"a few\" read as at most {few} effective keys exp(H).",
        "不缩放时，权重实际落在 {keys_none_64} 个键上（d_k = 64）和 {keys_none_256} 个键上（d_k = 256，共 {n} 个）；除以 √d_k 后分别为 {keys_sqrt_64} 和 {keys_sqrt_256}。把“少数”理解为有效键数 exp(H) 至多 {few}，两半说法都成立。"),
    "n0_normal": (
        "Variance 1 is not normality. q·k/√d_k has excess kurtosis 6/d_k: measured {kurtosis_16} at d_k = 16, {kurtosis_64} at 64, {kurtosis_256} at 256; its mass beyond 3σ is {tail_16_pct} and {tail_64_pct} at 16 and 64 against a normal's {normal_tail}. It is close to N(0, 1) only from d_k = {dk_normal_from} on — so not at the d_k = 64 the notes use.",
        "方差为 1 并不等于服从正态分布。q·k/√d_k 的超额峰度为 6/d_k：实测 d_k = 16 时 {kurtosis_16}，64 时 {kurtosis_64}，256 时 {kurtosis_256}；3σ 以外的概率在 16 和 64 时为 {tail_16_pct} 和 {tail_64_pct}，而正态分布为 {normal_tail}。只有从 d_k = {dk_normal_from} 起才接近 N(0, 1)——笔记所用的 d_k = 64 还不行。"),
    "n0_linear": (
        "÷d_k gives Var = 1/d_k, and the weights are near-uniform: entropy at least {entropy_min} against ln {n} = {ln_n}, at least {keys_min} effective keys of {n}. Both statements hold.",
        "÷d_k 使方差为 1/d_k，权重接近均匀：熵至少为 {entropy_min}，而 ln {n} = {ln_n}；有效键数至少 {keys_min}（共 {n} 个）。两个论断都成立。"),
    "n0_double_sqrt": (
        "÷2√d_k does give variance 1/4, and at step 0 the weights are near-uniform ({keys} effective keys of {n}). But the inputs are not \"too small to be effective\": a constant factor is learned away. Trained on the retrieval task, ÷2√d_k reaches 90 % accuracy in {steps_double} steps against {steps_sqrt} for ÷√d_k ({seeds} seeds) — no worse.",
        "÷2√d_k 确实使方差为 1/4，第 0 步时权重接近均匀（{n} 个键中有效键数 {keys}）。但输入并没有“小到失效”：常数因子会被学习抵消。在检索任务上训练，÷2√d_k 用 {steps_double} 步达到 90% 准确率，÷√d_k 用 {steps_sqrt} 步（{seeds} 个随机种子）——并不更差。"),
    "n1_var": (
        "Over the notes' own d_k = 64 … 512, the mean of q·k is 0 and Var(q·k)/d_k stays between {ratio_min} and {ratio_max}: linear in d_k. After ÷√d_k the variance is 1 at every d_k. Holds (at initialisation, under the notes' iid assumption).",
        "在笔记自己的 d_k = 64 … 512 上，q·k 的均值为 0，Var(q·k)/d_k 介于 {ratio_min} 与 {ratio_max} 之间：与 d_k 成正比。除以 √d_k 后方差在每个 d_k 下都是 1。成立（在初始化时、笔记的独立同分布假设下）。"),
    "linear_log": (
        "÷d_k: the entropy is within {uniform_pct} of ln n = {ln_n} (uniform attention over {n} keys) at every d_k — over-scaled. ÷ln d_k: at d_k = {dk_max} the entropy is {entropy_log_max} against {entropy_sqrt_max} for ÷√d_k, and {saturated_log_max_pct} of rows are saturated (÷√d_k: {saturated_sqrt_max_pct}) — under-scaled, increasingly so, since ln d_k grows slower than √d_k. The direction is right; \"optimal\" is a separate claim.",
        "÷d_k：在每个 d_k 下熵都在 ln n = {ln_n}（对 {n} 个键均匀分配注意力）的 {uniform_pct} 以内——缩放过度。÷ln d_k：在 d_k = {dk_max} 处熵为 {entropy_log_max}，而 ÷√d_k 为 {entropy_sqrt_max}；饱和行占 {saturated_log_max_pct}（÷√d_k：{saturated_sqrt_max_pct}）——缩放不足，且越来越明显，因为 ln d_k 比 √d_k 增长得慢。方向是对的；“最优”是另一个说法。"),
    "sqrt_optimal": (
        "At ρ = 0 the scaled logit keeps E[s²] = 1 at every d_k: √d_k is the variance-preserving factor at initialisation. With q and k aligned (ρ = {rho}, as training tends to make them) E[s²] reaches {trained_max} at d_k = {dk_max}: the mean ρ·d_k grows like d_k, so no fixed √d_k keeps the scale. It is not a theorem of optimality: μP scales attention by 1/d for exactly this reason, and T5 has no 1/√d in its forward pass.",
        "ρ = 0 时缩放后的 logit 在每个 d_k 下都有 E[s²] = 1：√d_k 是初始化时保持方差的因子。当 q 与 k 相关时（ρ = {rho}，训练往往使之如此），在 d_k = {dk_max} 处 E[s²] 达到 {trained_max}：均值 ρ·d_k 随 d_k 线性增长，任何固定的 √d_k 都保不住尺度。这并非最优性定理：μP 正因如此用 1/d 缩放注意力，T5 的前向传播中也没有 1/√d。"),
    "n1_onehot": (
        "True, as mathematics: with {n} inputs, one standing a gap g above the rest gets weight 1/(1 + (n − 1)e^{{−g}}), which passes 0.99 once g > {gap_needed}; the Jacobian entries then fall below {near} too (‖J‖₂ ≤ 2(1 − max p)). Whether the scores of real attention have such gaps is what the d_k cards measure.",
        "作为数学结论是对的：{n} 个输入中，比其余高出差距 g 的那个得到权重 1/(1 + (n − 1)e^{{−g}})，g > {gap_needed} 时超过 0.99；此时雅可比矩阵各元素也低于 {near}（‖J‖₂ ≤ 2(1 − max p)）。真实注意力的分数是否有这么大的差距，由关于 d_k 的卡片测量。"),
    "n1_training": (
        "Trained without the scale, the retrieval model needs {steps_none_64} steps to reach 90 % accuracy at d_k = 64 (÷√d_k: {steps_sqrt_64}) and {steps_none_top} at d_k = {dk} (÷√d_k: {steps_sqrt_top}; {steps} = never): it does struggle to converge, more at large d_k, and its attention starts on {keys_none} effective keys. But the gradient does not vanish in the batch: ‖∂L/∂W_Q‖ at step 0 is {grad_none} unscaled against {grad_sqrt} scaled — a few rows near a tie carry a large gradient (see note 003's gradient card: the median vanishes, the mean does not).",
        "不缩放训练时，检索模型在 d_k = 64 需要 {steps_none_64} 步才达到 90% 准确率（÷√d_k：{steps_sqrt_64}），在 d_k = {dk} 需要 {steps_none_top} 步（÷√d_k：{steps_sqrt_top}；{steps} 表示始终未达到）：确实难以收敛，d_k 越大越明显，且注意力一开始只落在 {keys_none} 个有效键上。但批量梯度并没有消失：第 0 步 ‖∂L/∂W_Q‖ 不缩放时为 {grad_none}，缩放后为 {grad_sqrt}——少数接近打平的行带来很大的梯度（见笔记 003 的梯度卡片：中位数消失，均值不消失）。"),
    "n1_long": (
        "At d_k = 64 without the scale, final accuracy is {acc_none_n8_pct} with {short} keys and {acc_none_n64_pct} with {long} keys: long sequences do degrade badly. With ÷√d_k it is {acc_sqrt_n8_pct} and {acc_sqrt_n64_pct}. (√d_k fixes the dimension effect; for very long contexts the entropy still grows with ln n, which is why log-n scaling exists.)",
        "d_k = 64 且不缩放时，{short} 个键的最终准确率为 {acc_none_n8_pct}，{long} 个键时为 {acc_none_n64_pct}：长序列的性能确实显著下降。除以 √d_k 时分别为 {acc_sqrt_n8_pct} 和 {acc_sqrt_n64_pct}。（√d_k 解决的是维度效应；对非常长的上下文，熵仍随 ln n 增长，这正是 log n 缩放存在的原因。）"),
    "n1_scale_cost": (
        "In one attention forward (n = {n}, d = {d}, NumPy float32: {forward_ms} ms), dividing the n × n scores takes {divide_ms} ms ({divide_pct}); folding c into Q, n·d multiplies, takes {fold_ms} ms ({fold_pct}). Either way almost nothing, and the folded form is what frameworks do. Timings on a shared CPU are noisy; the verdict allows for it.",
        "一次注意力前向计算（n = {n}，d = {d}，NumPy float32：{forward_ms} ms）中，对 n × n 分数做除法耗时 {divide_ms} ms（{divide_pct}）；把 c 并入 Q，只需 n·d 次乘法，耗时 {fold_ms} ms（{fold_pct}）。两种方式都几乎没有开销，框架采用的是后者。共享 CPU 上的计时有噪声，结论已考虑这一点。"),
    "n1_almost_all": (
        "Most GPT- and BERT-style models divide by √d_k, but \"almost all\" overstates it: T5 has no 1/√d in its forward pass (the factor sits in W_Q's initialisation), μP uses 1/d, and cosine attention (Swin V2) divides by a learned temperature instead.",
        "大多数 GPT、BERT 类模型确实除以 √d_k，但“几乎所有”言过其实：T5 的前向传播中没有 1/√d（该因子放在 W_Q 的初始化里），μP 用 1/d，余弦注意力（Swin V2）则除以一个可学习的温度。"),
    "var_dk": (
        "Under the notes' assumption (independent components, mean 0, variance 1) Var(q·k) = d_k (Var/d_k between {ratio_min} and {ratio_max}), and ÷√d_k brings it to 1 within sampling error at every d_k. This is the paper's footnote 4. It describes initialisation only: in general Var(q·k) = tr(Σ_q Σ_k).",
        "在笔记的假设下（分量独立、均值 0、方差 1），Var(q·k) = d_k（Var/d_k 介于 {ratio_min} 与 {ratio_max} 之间），除以 √d_k 后在每个 d_k 下都在抽样误差内为 1。这正是论文脚注 4 的论证。它只描述初始化：一般情况下 Var(q·k) = tr(Σ_q Σ_k)。"),
    "n2_std": (
        "The standard deviations are right: {std_64} at d_k = 64 and {std_512} at 512. So is the 3-sigma arithmetic: 3·√512 = {three_sigma_512}, and {inside_512_pct} of q·k lies within [−68, 68] — at d_k = 512 the dot product is close enough to normal for the rule to hold.",
        "标准差是对的：d_k = 64 时为 {std_64}，512 时为 {std_512}。3σ 的算术也对：3·√512 = {three_sigma_512}，有 {inside_512_pct} 的 q·k 落在 [−68, 68] 内——d_k = 512 时点积已足够接近正态，3σ 规则成立。"),
    "n2_extreme": (
        "{beyond_pct} of all q·k at d_k = 512 are at least 15 in size: \"many\" holds. But they are not extreme — 15 is {beyond_sigma} standard deviations. Values like +20, −15, +30 are the typical ones; the point is that softmax sees them unscaled.",
        "d_k = 512 时，有 {beyond_pct} 的 q·k 绝对值至少为 15：“很多”成立。但它们并不极端——15 只是 {beyond_sigma} 个标准差。+20、−15、+30 这样的值是常见值；要点在于 softmax 看到的是未缩放的它们。"),
    "n2_exps": (
        "Every quoted exponential is right to its printed digits. e^50 does overflow float16 (inf: {overflow_float16}), but not bfloat16 ({overflow_bfloat16}) or float32 ({overflow_float32}), whose largest values are about 3.4·10^38 — and max-subtraction means no framework ever computes e^50.",
        "引用的每个指数值在其印出的位数上都是对的。e^50 在 float16 中确实溢出（inf：{overflow_float16}），但在 bfloat16（{overflow_bfloat16}）和 float32（{overflow_float32}）中不会，它们的最大值约为 3.4·10^38——何况减去最大值之后，没有哪个框架会真的去算 e^50。"),
    "n2_softmax_50": (
        "softmax([50, 1, 1, 1]) = [1 − 3e^{{−49}}, e^{{−49}}, …]: the small weights are {jacobian_max}, so the printed [1.0, 0.0, 0.0, 0.0] is right, and every Jacobian entry is at most {jacobian_max} — \"almost all 0\" holds.",
        "softmax([50, 1, 1, 1]) = [1 − 3e^{{−49}}, e^{{−49}}, …]：小权重为 {jacobian_max}，所以印出的 [1.0, 0.0, 0.0, 0.0] 是对的，雅可比矩阵每个元素至多 {jacobian_max}——“几乎全为 0”成立。"),
    "n2_jacobian": (
        "The formula matches torch autograd's Jacobian of softmax to {worst} (relative) on {rows} random rows of {n}: it is the standard result, J = diag(p) − ppᵀ.",
        "在 {rows} 行随机输入（每行 {n} 个）上，该公式与 torch 自动求导得到的 softmax 雅可比矩阵相差 {worst}（相对）：这就是标准结论 J = diag(p) − ppᵀ。"),
    "n2_softmax_props": (
        "All four hold in floating point on {rows} random rows: no negative weight, rows sum to 1 within rounding, order is kept, and max-subtraction changes nothing but rounding. It also keeps a row holding 1000 finite, where the naive softmax is finite in {naive_big_finite_pct} of rows.",
        "在 {rows} 行随机输入上，四条性质在浮点运算中都成立：没有负权重，每行之和在舍入误差内为 1，大小顺序保持，减去最大值只改变舍入。对含有 1000 的行，减最大值的结果仍然有限，而朴素 softmax 只有 {naive_big_finite_pct} 的行是有限的。"),
    "n2_grad_qk": (
        "Both formulas match autograd (relative gaps {err_q} and {err_k}; the notes' S = QKᵀ is unscaled). And they differ in earnest: at Q = K the two gradients still differ by {gap} of their size, because ∂L/∂S is not symmetric (its asymmetry is {ds_asymmetry}) — the softmax normalises rows, not columns.",
        "两个公式都与自动求导一致（相对差 {err_q} 与 {err_k}；笔记中的 S = QKᵀ 未缩放）。而且二者确实不同：即使 Q = K，两个梯度仍相差其大小的 {gap}，因为 ∂L/∂S 不对称（不对称度 {ds_asymmetry}）——softmax 按行归一化，而非按列。"),
    "n2_grad_wq": (
        "With Q = X W^Q the chain rule gives ∂L/∂W^Q = Xᵀ · ∂L/∂Q (d_model × d_k), matching autograd to {chain_error}. The notes' ∂L/∂Q · Xᵀ multiplies an n × d_k matrix by a d_model × n one: it is not even defined unless d_k = d_model, and where it is (all sizes {size}) it is off by {notes_error} (relative). The factor is on the wrong side.",
        "Q = X W^Q 时，链式法则给出 ∂L/∂W^Q = Xᵀ · ∂L/∂Q（d_model × d_k），与自动求导相差 {chain_error}。笔记的 ∂L/∂Q · Xᵀ 是 n × d_k 矩阵乘以 d_model × n 矩阵：除非 d_k = d_model，否则根本没有定义；在有定义时（各维度都为 {size}），它相差 {notes_error}（相对）。X 乘在了错误的一侧。"),
    "n2_xavier": (
        "Xavier's variance 2/(d_model + d_k) is right ({w_var_768_64} for 768 → 64). But it does not give unit-variance q for the notes' W^Q ∈ R^{{d_model×d_k}}: Var(q) = d_model·2/(d_model + d_k) = {q_var_512_64} for 512 → 64 and {q_var_768_64} for 768 → 64. Only a square W (d_k = d_model, heads split afterwards) gives 1. So the iid unit-variance assumption is not \"consistent with Xavier\" in the notes' own setting.",
        "Xavier 的方差 2/(d_model + d_k) 是对的（768 → 64 时为 {w_var_768_64}）。但对笔记中的 W^Q ∈ R^{{d_model×d_k}}，它并不能让 q 的方差为 1：Var(q) = d_model·2/(d_model + d_k)，512 → 64 时为 {q_var_512_64}，768 → 64 时为 {q_var_768_64}。只有方阵 W（d_k = d_model，之后再拆分成多头）才给出 1。所以在笔记自己的设定下，“方差为 1 与 Xavier 一致”并不成立。"),
    "n2_transpose": (
        "The two differ (‖M − Mᵀ‖/‖M‖ = {rel}), but not because multiplication fails to commute: W^K(W^Q)ᵀ is exactly the transpose of W^Q(W^K)ᵀ (difference {transpose_error}). They differ because M is not symmetric — which matters because softmax treats rows and columns differently.",
        "二者确实不同（‖M − Mᵀ‖/‖M‖ = {rel}），但原因不是乘法不满足交换律：W^K(W^Q)ᵀ 恰好就是 W^Q(W^K)ᵀ 的转置（差 {transpose_error}）。它们不同，是因为 M 不对称——而这之所以重要，是因为 softmax 对行和列的处理不同。"),
    "n2_row_norm": (
        "On one draw of {n} queries and keys the two attention matrices differ by up to {gap} per entry: A's rows sum to 1 while its columns sum to between {col_min} and {col_max}. Softmax over keys and softmax over queries are different distributions. Holds.",
        "在一次 {n} 个查询和键的抽样中，两个注意力矩阵每个元素最多相差 {gap}：A 的每行和为 1，而各列之和介于 {col_min} 与 {col_max} 之间。对键做 softmax 和对查询做 softmax 是不同的分布。成立。"),
    "n2_qk_amplified": (
        "Independently initialised W_Q and W_K are not \"tiny\" apart: ‖W_Q − W_K‖ is {rel_init} of their size, what any two unrelated random matrices give (√2). Training does not amplify that: on a symmetric task (query = key) the relative difference shrinks to {rel_ratio_retrieval} of its start, on a directed task (query → another key) it stays at {rel_ratio_successor}; in absolute terms it grows only as the weights grow ({diff_ratio_successor}×). What is right is the structural part: started from W_K = W_Q, the directed task drives them apart to {tied_rel_successor} (the symmetric one only to {tied_rel_retrieval}), so the asymmetry comes from the task and the row-wise softmax, not from an initial difference. {seeds} seeds, d_k = {dk}, {steps} steps.",
        "独立初始化的 W_Q 与 W_K 之间并非“微小”差异：‖W_Q − W_K‖ 是它们大小的 {rel_init}，与任意两个无关随机矩阵相同（√2）。训练也没有放大它：在对称任务（查询 = 键）上相对差异缩小到初始的 {rel_ratio_retrieval}，在有向任务（查询 → 另一个键）上保持在 {rel_ratio_successor}；绝对差异只随权重本身增大而增大（{diff_ratio_successor} 倍）。正确的是结构上的那一半：从 W_K = W_Q 出发，有向任务会把二者推开到 {tied_rel_successor}（对称任务只到 {tied_rel_retrieval}），所以不对称来自任务与按行的 softmax，而不是初始差异。{seeds} 个随机种子，d_k = {dk}，{steps} 步。"),
    "n2_orders": (
        "Measured here, additive attention (factored, vectorised NumPy) is {ratio}× slower than dot-product attention at n = {n}, d = {d} — about one order of magnitude, not several (the claim needs at least {least}×). The gap is real and comes from the n²·d_h tanh evaluations, which are not a matrix product.",
        "本机实测，在 n = {n}、d = {d} 时，加性注意力（因式分解、向量化的 NumPy）比点积注意力慢 {ratio} 倍——大约一个数量级，而不是几个（该说法至少需要 {least} 倍）。差距是真实的，来自 n²·d_h 次 tanh 计算，它们不是矩阵乘法。"),
    "additive_cost": (
        "Computing W₁q_i and W₂k_j once per token (Bahdanau et al., App. A.1.2) gives the same scores as recomputing them for every pair (largest difference {max_abs_diff}), and its operation count grows like d^{exponent} at n = {n}; only the per-pair recomputation grows like d^{naive_exponent}. The paper says the two are \"similar in theoretical complexity\". The real gap is practical: measured here additive attention is {ratio}× slower (n = {time_n}, d = {time_d}).",
        "对每个词只计算一次 W₁q_i 和 W₂k_j（Bahdanau 等，附录 A.1.2），得到的分数与为每个词对重新计算完全相同（最大差异 {max_abs_diff}），其运算量在 n = {n} 时按 d^{exponent} 增长；只有逐对重算才按 d^{naive_exponent} 增长。论文原话是二者“理论复杂度相近”。真正的差距在实践中：本机实测加性注意力慢 {ratio} 倍（n = {time_n}，d = {time_d}）。"),
    "n2_parameters": (
        "Right: beyond the Q/K projections the dot product adds no parameter, while additive scoring adds W₁, W₂ and v — {additive} parameters at d = {d}, d_h = {d_h}.",
        "对：在 Q/K 投影之外，点积不增加任何参数，而加性打分要增加 W₁、W₂ 和 v——d = {d}、d_h = {d_h} 时共 {additive} 个参数。"),
    "range_3": (
        "The 3-sigma rule gives {claimed_pct} inside [−3, 3] for a normal logit. At d_k = {dk_min} the scaled logit has heavier tails (excess kurtosis 6/d_k), so only {min_dk_pct} fall inside. And softmax sees whole rows: with n = {n} keys, {rows_inside_max_pct} of rows lie entirely in [−3, 3] at d_k = {dk_max}; with n = {long_n} keys only {rows_inside_long_pct} would. \"Always\" does not hold once the context is long.",
        "对正态分布的 logit，3σ 规则给出 {claimed_pct} 落在 [−3, 3] 内。在 d_k = {dk_min} 时缩放后的 logit 尾部更重（超额峰度 6/d_k），只有 {min_dk_pct} 落在区间内。而且 softmax 看的是整行：n = {n} 个键时，在 d_k = {dk_max} 下有 {rows_inside_max_pct} 的行完全落在 [−3, 3] 内；n = {long_n} 个键时只有 {rows_inside_long_pct}。上下文一长，“始终”就不成立了。"),
    "kv_bottleneck": (
        "Not measurable in a random-draw experiment: it is about trained models. The ablation cited below reports that tying K = V costs only about 3 % in perplexity, while tying Q = K is the harmful one. The page \"Q and K are not interchangeable\" shows why Q = K is special.",
        "这无法用随机抽样实验测量：它关乎训练后的模型。下面引用的消融实验报告，K = V 共享只让困惑度变差约 3%，真正有害的是 Q = K 共享。“Q 与 K 不可互换”页面展示了 Q = K 为何特殊。"),
    "n3_var": (
        "Var(q·k)/d_k stays between {ratio_min} and {ratio_max} over d_k = 16 … 256 (linear growth), and after ÷√d_k the variance is 1 at every d_k ({var_scaled_16}, {var_scaled_64}, {var_scaled_256}). Holds, at initialisation.",
        "在 d_k = 16 … 256 上 Var(q·k)/d_k 介于 {ratio_min} 与 {ratio_max} 之间（线性增长），除以 √d_k 后方差在每个 d_k 下都是 1（{var_scaled_16}、{var_scaled_64}、{var_scaled_256}）。在初始化时成立。"),
    "n3_normal": (
        "N(0, 64) has the right mean and variance, but not the right shape at d_k = 64: the excess kurtosis of q·k/√d_k is {kurtosis_64} (normal: 0) and {tail_64_pct} of it lies beyond 3σ against a normal's {normal_tail}. At d_k = 16 it is {kurtosis_16} and {tail_16_pct}. Only from d_k = {dk_normal_from} on is it normal to within the stated slack: \"~ N(0, 1)\" is a large-d_k approximation (kurtosis 6/d_k).",
        "N(0, 64) 的均值和方差对，但 d_k = 64 时形状不对：q·k/√d_k 的超额峰度为 {kurtosis_64}（正态为 0），3σ 以外有 {tail_64_pct}，而正态分布为 {normal_tail}。d_k = 16 时分别为 {kurtosis_16} 和 {tail_16_pct}。只有从 d_k = {dk_normal_from} 起才在规定余量内接近正态：“~ N(0, 1)”只是大 d_k 时的近似（峰度 6/d_k）。"),
    "n3_ranges": (
        "[−24, 24] is 3σ at d_k = 64 (3·8 = {three_sigma_64}), and {inside_64_pct} of q·k falls inside — the same as q·k/8 inside [−3, 3]. Close to the 99.7 % of a normal, slightly less because the tails are heavier at d_k = 64. Holds for one score; for the largest of many scores see note 004's ±3 card.",
        "[−24, 24] 是 d_k = 64 时的 3σ（3·8 = {three_sigma_64}），有 {inside_64_pct} 的 q·k 落在其中——等同于 q·k/8 落在 [−3, 3] 内。接近正态分布的 99.7%，略少一点，因为 d_k = 64 时尾部更重。对单个分数成立；多个分数中的最大值见笔记 004 的 ±3 卡片。"),
    "n3_exps": (
        "All four exponentials are right to their printed digits.",
        "四个指数值在其印出的位数上都是对的。"),
    "n3_print_24": (
        "softmax([−24, −10, 0, 10, 24]) = [{softmax}]: to the printed precision (whole numbers), [0, 0, 0, 0, 1] is right. It is one-hot because the gap between the top two inputs is 14.",
        "softmax([−24, −10, 0, 10, 24]) = [{softmax}]：在印出的精度（整数）下，[0, 0, 0, 0, 1] 是对的。它接近 one-hot，是因为前两大输入之间相差 14。"),
    "n3_print_3": (
        "softmax([−3, −1, 0, 1, 3]) is [{softmax}]. The printed list sums to {printed_sum}, so it cannot be a softmax; it is not a sigmoid either ([{sigmoid}]). The correct output is far less smooth than the notes suggest: the top input takes {top} of the weight.",
        "softmax([−3, −1, 0, 1, 3]) 等于 [{softmax}]。印出的列表之和为 {printed_sum}，所以不可能是 softmax；它也不是 sigmoid（[{sigmoid}]）。正确结果远不如笔记所说的平滑：最大的输入拿走了 {top} 的权重。"),
    "n3_pq": (
        "It fails on the notes' own example: for softmax([−3, −1, 0, 1, 3]) the smallest p(1 − p) is {pq_min}. And on random scaled rows (n = {n}, d_k = {dk}) only {share_pct} of the weights have p(1 − p) > {threshold} — a small weight always has a small p(1 − p). The scale keeps gradients alive on average, not above a floor.",
        "它在笔记自己的例子上就不成立：softmax([−3, −1, 0, 1, 3]) 中最小的 p(1 − p) 为 {pq_min}。在随机的缩放后行上（n = {n}，d_k = {dk}），也只有 {share_pct} 的权重满足 p(1 − p) > {threshold}——小权重的 p(1 − p) 必然小。缩放让梯度平均而言保持存活，而不是都高于某个下限。"),
    "n3_jacobian": (
        "The diagonal of the softmax Jacobian is p_i(1 − p_i), matching autograd to {diag} (relative) on {rows} random rows of {n}. It is near 0 when p_i is near 0 or 1, as the note says.",
        "softmax 雅可比矩阵的对角元为 p_i(1 − p_i)，在 {rows} 行随机输入（每行 {n} 个）上与自动求导相差 {diag}（相对）。当 p_i 接近 0 或 1 时它接近 0，正如笔记所说。"),
    "n3_footnote": (
        "The quotation is accurate: it is footnote 4 of the paper, word for word. Its measurable content (mean 0, variance d_k) is the variance card.",
        "引文准确：它逐字来自论文脚注 4。其中可测量的内容（均值 0、方差 d_k）见方差卡片。"),
    "table3_b": (
        "Every row of Table 3 uses scaled dot-product attention. Row (B) varies only the key size d_k (with the scaling kept) and the paper concludes \"reducing the attention key size d_k hurts model quality\" — so scaled attention is not stable across d_k either. There is no unscaled row. The unscaled-vs-additive comparison is a sentence in §3.2.1 that cites Britz et al. 2017.",
        "Table 3 的每一行都使用缩放点积注意力。(B) 行只改变键维度 d_k（缩放保持不变），论文的结论是“减小注意力键维度 d_k 会降低模型质量”——所以缩放后的注意力在不同 d_k 下也并不稳定。表中没有不缩放的行。不缩放与加性注意力的比较只是 §3.2.1 中引用 Britz 等（2017）的一句话。"),
    "n3_britz": (
        "The statement is in the paper (§3.2.1), but it is not the paper's experiment: the paper attributes it to Britz et al. 2017 with a citation. Right content, wrong source.",
        "这句话确实在论文里（§3.2.1），但那不是论文自己的实验：论文引用 Britz 等（2017）来说明。内容对，出处错。"),
    "entropy_table": (
        "A scaled entropy of 2.3 would be ln 10 = {ln_n}: perfectly uniform attention, which ÷√d_k does not produce — measured it is {entropy_sqrt_64} at d_k = 64. Most printed values are not what the snippet produces; only the direction (entropy falls without scaling) is reproduced, see the trend card.",
        "缩放后熵为 2.3 就意味着 ln 10 = {ln_n}：完全均匀的注意力，而除以 √d_k 并不会得到这种结果——实测 d_k = 64 时为 {entropy_sqrt_64}。大多数印出的数字不是这段代码能跑出的结果；只有趋势（不缩放时熵下降）能复现，见趋势卡片。"),
    "n3_entropy_trend": (
        "Both trends hold: unscaled the entropy falls from {entropy_none_16} (d_k = 16) to {entropy_none_64} (64) and {entropy_none_256} (256); scaled it stays at {entropy_sqrt_16}, {entropy_sqrt_64}, {entropy_sqrt_256} — stable, though not the 2.3 of the notes' table.",
        "两个趋势都成立：不缩放时熵从 {entropy_none_16}（d_k = 16）降到 {entropy_none_64}（64）和 {entropy_none_256}（256）；缩放后保持在 {entropy_sqrt_16}、{entropy_sqrt_64}、{entropy_sqrt_256}——稳定，但并不是笔记表中的 2.3。"),
    "max_weight_print": (
        "`attn.max()` in the notes' snippet is the largest weight of the whole {n} × {n} matrix, not a row average. Over {draws} runs of that exact snippet, {outside} of the {total} printed values fall outside the central {plausible_pct} of what it can print: unscaled, the median is already {median_none_16} at d_k = 16; scaled, the largest of 100 weights has median {median_sqrt_16}, far above the printed 0.289.",
        "笔记代码里的 `attn.max()` 是整个 {n} × {n} 矩阵中的最大权重，而不是各行的平均。把这段代码原样运行 {draws} 次，印出的 {total} 个数中有 {outside} 个落在它可能输出的中间 {plausible_pct} 之外：不缩放时，d_k = 16 的中位数就已是 {median_none_16}；缩放后，100 个权重中最大值的中位数为 {median_sqrt_16}，远高于印出的 0.289。"),
    "n3_max_trend": (
        "Both trends hold for the snippet's attn.max(): unscaled it is {max_none_16}, {max_none_64}, {max_none_256} at d_k = 16, 64, 256 — ever closer to 1; scaled it stays at {max_sqrt_16}, {max_sqrt_64}, {max_sqrt_256}.",
        "对代码中的 attn.max()，两个趋势都成立：不缩放时在 d_k = 16、64、256 下为 {max_none_16}、{max_none_64}、{max_none_256}——越来越接近 1；缩放后保持在 {max_sqrt_16}、{max_sqrt_64}、{max_sqrt_256}。"),
    "grad_inverse_dk": (
        "The local slopes of the unscaled median are {slopes_unscaled}: a power law ∝ 1/d_k would keep them at −1. The median falls faster than any power (roughly exp(−c·√d_k)) — {median_unscaled_max} at d_k = {dk_max} — while the mean stays near {mean_unscaled_max}, because rare near-ties between the top two keys dominate it. Scaled, the median stays near {median_scaled_max}: that half holds.",
        "未缩放时中位数的局部斜率为 {slopes_unscaled}：若是 ∝ 1/d_k 的幂律，斜率应一直为 −1。中位数下降得比任何幂都快（大致为 exp(−c·√d_k)）——在 d_k = {dk_max} 时为 {median_unscaled_max}——而均值保持在 {mean_unscaled_max} 附近，因为前两个键偶尔几乎相等的情形主导了均值。缩放后中位数保持在 {median_scaled_max} 附近：这一半说法成立。"),
    "n3_additive": (
        "With core's initialisation (W std 1/√d, v std 1/√d_h) the additive scores' std is {std_16} at d = 16 and {std_1024} at d = 1024: flat in d, because tanh is bounded and W₁q already has unit variance. So additive attention needs no 1/√d. (tanh's range [−1, 1] is a fact; the score's range is ±‖v‖₁.)",
        "按 core 的初始化（W 标准差 1/√d，v 标准差 1/√d_h），加性分数的标准差在 d = 16 时为 {std_16}，d = 1024 时为 {std_1024}：不随 d 变化，因为 tanh 有界且 W₁q 的方差已是 1。所以加性注意力不需要 1/√d。（tanh 的值域 [−1, 1] 是事实；分数的范围是 ±‖v‖₁。）"),
    "n3_faster": (
        "Measured here, additive attention is {ratio}× slower than dot-product attention at n = {n}, d = {d}: dot-product plus scaling is faster. Holds (see note 002's cards for how much, and why it is not a matter of O(n²d²)).",
        "本机实测，在 n = {n}、d = {d} 时加性注意力比点积注意力慢 {ratio} 倍：点积加缩放更快。成立（快多少、以及为何与 O(n²d²) 无关，见笔记 002 的卡片）。"),
    "n4_sigma": (
        "At σ = 1 the formula gives the right {var_sigma_0} ≈ dim. But for components of std σ, Var(q_i k_i) = σ⁴, not σ²: at σ = 2 the formula says {dim}·4 while the measurement gives {var_sigma_1} ≈ dim·σ⁴ = {sigma4_1}. The slip matters for the next step of the note (the N(0, 1/√dim) initialisation).",
        "σ = 1 时公式给出正确的 {var_sigma_0} ≈ dim。但分量标准差为 σ 时，Var(q_i k_i) = σ⁴ 而不是 σ²：σ = 2 时公式给出 {dim}·4，而实测为 {var_sigma_1} ≈ dim·σ⁴ = {sigma4_1}。这个笔误影响了笔记的下一步（N(0, 1/√dim) 初始化）。"),
    "n4_std": (
        "At dim = 512 the dot product has mean {mean_512} (0 within error) and std {std_512} ≈ √512, and after ÷√dim its std is {std_scaled_512}. Holds.",
        "dim = 512 时点积的均值为 {mean_512}（在误差内为 0），标准差为 {std_512} ≈ √512，除以 √dim 后标准差为 {std_scaled_512}。成立。"),
    "n4_grow": (
        "It grows: std(q·k) is {std_16}, {std_64}, {std_256}, {std_1024} at dim = 16, 64, 256, 1024 — slope {slope} on log-log axes, the √dim of the variance argument. Holds.",
        "确实增大：dim = 16、64、256、1024 时 std(q·k) 为 {std_16}、{std_64}、{std_256}、{std_1024}——对数坐标下斜率为 {slope}，正是方差论证中的 √dim。成立。"),
    "n4_extremes": (
        "±100 is {size_sigma} standard deviations at dim = 512, so whether a score that large appears depends on how many scores there are (n²). In the note's own snippet (seq_len 3: 9 scores) it happens in {hit_3_pct} of matrices, at n = 10 in {hit_10_pct}; at n = 128 in {hit_128_pct} and at n = 512 in {hit_512_pct} (largest |q·k| about {largest_raw_512}). True for long sequences, not for the note's example.",
        "dim = 512 时 ±100 相当于 {size_sigma} 个标准差，所以是否出现这么大的分数取决于分数的个数（n²）。在笔记自己的代码中（seq_len 3：9 个分数），只有 {hit_3_pct} 的矩阵出现，n = 10 时为 {hit_10_pct}；n = 128 时为 {hit_128_pct}，n = 512 时为 {hit_512_pct}（最大 |q·k| 约为 {largest_raw_512}）。对长序列成立，对笔记的例子不成立。"),
    "n4_range_3": (
        "99.7 % within 3σ holds for one score ({inside_pct} at dim = 512). But softmax sees the largest of many: the largest |q·k|/√dim of an n × n matrix averages {largest_10} at n = 10, {largest_128} at n = 128 and {largest_512} at n = 512 — \"about ±3\" only for about 10 keys (with 3 keys it is {largest_3}). The range grows like √(2 ln n²).",
        "对单个分数，99.7% 落在 3σ 内成立（dim = 512 时为 {inside_pct}）。但 softmax 看到的是许多分数中的最大值：n × n 矩阵中最大 |q·k|/√dim 的平均值在 n = 10 时为 {largest_10}，n = 128 时为 {largest_128}，n = 512 时为 {largest_512}——只有约 10 个键时才“约 ±3”（3 个键时为 {largest_3}）。范围按 √(2 ln n²) 增长。"),
    "n4_first_last": (
        "Concentrated, yes: unscaled at dim = 512 the weight sits on {keys_10} effective keys of 10. On the first or last word, no: the largest weight is there in {edge_10_pct} of rows, exactly chance ({chance_10_pct}); with the snippet's 3 positions, {edge_3_pct} against {chance_3_pct}. Without positions in the scores nothing favours an end. Attention sinks on the first token are a learned effect of trained models, not of the missing scale.",
        "集中，是的：dim = 512 且不缩放时，10 个键中权重实际只落在 {keys_10} 个上。集中在第一个或最后一个词上，不是：最大权重落在首尾的行占 {edge_10_pct}，恰好等于随机水平（{chance_10_pct}）；在代码的 3 个位置中为 {edge_3_pct}，随机水平 {chance_3_pct}。分数中没有位置信息，就没有理由偏向两端。首个词元上的“注意力汇聚”是训练后模型学到的现象，与是否缩放无关。"),
    "n4_init": (
        "The arithmetic dim·(1/√dim)² = 1 treats 1/√dim as the standard deviation and uses dim·σ² — but Var(q·k) = dim·σ⁴. With std 1/√dim the measured Var(q·k) is {var_std} = 1/dim ({inv_dim}), not 1. It is 1 ({var_variance}) only if 1/√dim is the variance (std dim^{{−1/4}}): then dividing standard-normal scores by √dim is equivalent, as the note says. Two slips that cancel only under the other reading.",
        "算式 dim·(1/√dim)² = 1 把 1/√dim 当作标准差并使用 dim·σ²——但 Var(q·k) = dim·σ⁴。标准差为 1/√dim 时实测 Var(q·k) = {var_std} = 1/dim（{inv_dim}），而不是 1。只有把 1/√dim 理解为方差（标准差 dim^{{−1/4}}）时才为 1（{var_variance}）：此时它与对标准正态分数除以 √dim 等价，正如笔记所说。两处笔误只在另一种读法下才相互抵消。"),
    "n4_snippet": (
        "Run {draws} times, the snippet prints a raw std with median {median_raw} (99 % between {lo_raw} and {hi_raw}: only 18 scores per run) and a scaled std with median {median_scaled} ({lo_scaled} … {hi_scaled}); the softmax rows sum to 1 within {sum_error}. The comments are plausible outputs. Holds.",
        "运行 {draws} 次，代码打印的未缩放标准差中位数为 {median_raw}（99% 介于 {lo_raw} 与 {hi_raw} 之间：每次只有 18 个分数），缩放后标准差中位数为 {median_scaled}（{lo_scaled} … {hi_scaled}）；softmax 每行之和与 1 相差不超过 {sum_error}。注释中的输出都是可能出现的结果。成立。"),
    "n4_cosine": (
        "Cosine similarity divides by ‖q‖·‖k‖ ≈ dim, not by √dim: ‖q‖·‖k‖/√dim measures {ratio_64} at dim = 64 and {ratio_512} at 512 (≈ √dim). So cosine similarity is the ÷dim score (variance 1/dim, the one note 001 calls over-scaled), and ÷√dim is not \"a similar normalisation\" — it keeps the variance at 1 where cosine keeps the size at most 1.",
        "余弦相似度除以的是 ‖q‖·‖k‖ ≈ dim，而不是 √dim：‖q‖·‖k‖/√dim 在 dim = 64 时实测 {ratio_64}，512 时 {ratio_512}（≈ √dim）。所以余弦相似度相当于 ÷dim 的分数（方差 1/dim，正是笔记 001 所说的缩放过度），÷√dim 并不是“类似的归一化”——它保持方差为 1，而余弦保持大小不超过 1。"),
    "n4_grad": (
        "At dim = 512 the median ‖∂L/∂q‖ is {sqrt_3} with ÷√dim against {none_3} without (3 keys, the snippet's seq_len), and {sqrt_10} against {none_10} with 10 keys. Holds.",
        "dim = 512 时，除以 √dim 后 ‖∂L/∂q‖ 的中位数为 {sqrt_3}，不缩放时为 {none_3}（3 个键，即代码中的 seq_len）；10 个键时为 {sqrt_10} 对 {none_10}。成立。"),
    "n4_training": (
        "At dim = 512 without the scale the retrieval model needs {steps_none_top} steps to reach 90 % accuracy against {steps_sqrt_top} with ÷√dim ({steps} = never), ending at {acc_none_top_pct}: it does struggle to learn. \"Unstable\" is a stretch for the gradient, though: ‖∂L/∂W_Q‖ at step 0 is {grad_none} unscaled against {grad_sqrt} scaled — large, carried by a few unsaturated rows.",
        "dim = 512 且不缩放时，检索模型需要 {steps_none_top} 步才达到 90% 准确率，而除以 √dim 只需 {steps_sqrt_top} 步（{steps} 表示始终未达到），最终为 {acc_none_top_pct}：确实难以学会。但说梯度“不稳定”有些牵强：第 0 步 ‖∂L/∂W_Q‖ 不缩放时为 {grad_none}，缩放后为 {grad_sqrt}——数值很大，由少数未饱和的行带来。"),
    "n4_relpos": (
        "Right: DeBERTa adds content-to-position and position-to-content terms to the scores and divides by √(3d) instead of √d, because three terms of variance d are summed.",
        "对：DeBERTa 在分数中加入了内容对位置、位置对内容两项，因而除以 √(3d) 而不是 √d，因为三个方差为 d 的项相加。"),
    "n4_no_scale": (
        "Half right: cosine attention removes the d_k growth, but Swin V2 still divides the cosine by a learnable temperature τ (clamped above 0.01) — cosines in [−1, 1] are too flat for softmax otherwise. A bilinear form's scale can live in its matrix, as T5 shows, but it is then set by the initialisation rather than gone.",
        "对一半：余弦注意力消除了随 d_k 的增长，但 Swin V2 仍把余弦除以一个可学习的温度 τ（下限 0.01）——否则 [−1, 1] 内的余弦对 softmax 来说太平了。双线性形式的尺度可以放进矩阵里，如 T5 所示，但那只是交给了初始化，并没有消失。"),
}

TEXT: dict[str, dict[str, str]] = {}
for _k, (_en, _zh) in _QTY.items():
    TEXT[f"factcheck.qty.{_k}"] = {"en": _en, "zh": _zh}
for _k, (_en, _zh) in _PART.items():
    TEXT[f"factcheck.part.{_k}"] = {"en": _en, "zh": _zh}
for _k, (_en, _zh) in _EXPLAIN.items():
    TEXT[f"factcheck.{_k}.explain"] = {"en": _en, "zh": _zh}
