"""Fact-check page strings. The questions come from core.factcheck (one source for the CLI and the app)."""
# ruff: noqa: E501  (prose: translation lines are as long as their sentences)

from core.factcheck import CLAIMS

TEXT: dict[str, dict[str, str]] = {
    "factcheck.nav": {"en": "Fact-check the notes", "zh": "核查笔记中的说法"},
    "factcheck.title": {"en": "Fact-check: the notes' claims, measured live", "zh": "事实核查：笔记中的说法，实时测量"},
    "factcheck.intro": {
        "en": "Each card is a question the notes answer. Open it to see the notes' answer in the original Chinese, an English rendering, "
              "the experiment that tests it under its own assumptions (iid N(0, 1) components, n = 10 keys as in the notes' code), "
              "claimed next to measured with the sampling error, and a verdict computed from those numbers. Use it as an interview drill: "
              "answer the question before you open the card.",
        "zh": "每张卡片是笔记回答过的一个问题。展开后可以看到笔记原文（中文）、英文译文、在该说法自身假设下（分量独立同分布 N(0, 1)，"
              "与笔记代码一样取 n = 10 个键）检验它的实验、声称值与测量值及其抽样误差的对照，以及由这些数字算出的结论。"
              "也可以当作面试练习：先自己回答，再展开卡片。",
    },
    "factcheck.rules.title": {"en": "How a verdict is computed", "zh": "结论如何计算"},
    "factcheck.rules": {
        "en": "A measured value m agrees with a claimed value c when |m − c| ≤ tolerance. The tolerance is {z} standard errors of the measurement, "
              "plus half a unit in the last digit the notes printed (a printed 2.1 stands for 2.05 … 2.15), plus a stated slack where the claim is a "
              "shape rather than a number: ±{slope} in a log-log slope, ±{exponent} in a cost exponent, {uniform_pct} of ln n for \"uniform\", a time "
              "ratio of at least 1 + {time} for \"slower\". A printed single run is plausible when it lies inside the central {plausible_pct} of the "
              "distribution of that run. **Holds**: every point agrees. **Partly holds**: for a claim that is one table of numbers, at least "
              "{partly_pct} of the points agree; for a claim made of several statements, at least one statement agrees in full. Otherwise "
              "**does not hold**.",
        "zh": "当 |m − c| ≤ 容差时，测量值 m 与声称值 c 相符。容差为测量的 {z} 个标准误，加上笔记所印数字末位的半个单位（印出的 2.1 代表 2.05 … 2.15），"
              "若说法描述的是形状而非数值，再加上明确给出的余量：对数-对数斜率 ±{slope}，代价指数 ±{exponent}，“均匀”指熵在 ln n 的 {uniform_pct} 以内，"
              "“更慢”指耗时比至少为 1 + {time}。笔记印出的单次运行结果，若落在该次运行分布的中间 {plausible_pct} 之内，即视为可能出现。"
              "**成立**：所有点都相符。**部分成立**：若说法是一张数字表，至少 {partly_pct} 的点相符；若说法由几个论断组成，至少有一个论断完全相符。"
              "否则**不成立**。",
    },
    "factcheck.formula": {"en": "Agreement rule", "zh": "相符规则"},
    "factcheck.seed": {"en": "From the notes: `{seed}`", "zh": "出自笔记：`{seed}`"},
    "factcheck.original": {"en": "The notes (original Chinese)", "zh": "笔记原文（中文）"},
    "factcheck.english": {"en": "English rendering", "zh": "英文译文"},
    "factcheck.measured_title": {"en": "Claimed vs measured", "zh": "声称值与测量值"},
    "factcheck.col.statement": {"en": "statement", "zh": "论断"},
    "factcheck.col.where": {"en": "where", "zh": "条件"},
    "factcheck.col.quantity": {"en": "quantity", "zh": "量"},
    "factcheck.col.claimed": {"en": "claimed", "zh": "声称"},
    "factcheck.col.measured": {"en": "measured", "zh": "测量"},
    "factcheck.col.error": {"en": "± std. error", "zh": "± 标准误"},
    "factcheck.col.tolerance": {"en": "tolerance", "zh": "容差"},
    "factcheck.col.agrees": {"en": "agrees", "zh": "相符"},
    "factcheck.yes": {"en": "✓ yes", "zh": "✓ 是"},
    "factcheck.no": {"en": "✗ no", "zh": "✗ 否"},
    "factcheck.interval": {"en": "99% of runs in [{lo}, {hi}]", "zh": "99% 的运行落在 [{lo}, {hi}]"},
    "factcheck.below": {"en": "below {c}", "zh": "低于 {c}"},
    "factcheck.above": {"en": "above {c}", "zh": "高于 {c}"},
    "factcheck.verdict.holds": {"en": "Holds", "zh": "成立"},
    "factcheck.verdict.partly": {"en": "Partly holds", "zh": "部分成立"},
    "factcheck.verdict.fails": {"en": "Does not hold", "zh": "不成立"},
    "factcheck.verdict.measured": {"en": "Verdict (computed from the measurement): **{verdict}**", "zh": "结论（由测量计算得出）：**{verdict}**"},
    "factcheck.verdict.literature": {
        "en": "A matter of literature, not measurement — verdict from the sources below: **{verdict}**",
        "zh": "这是文献问题，无法靠测量判定——依据下列文献的结论：**{verdict}**",
    },
    "factcheck.sources": {"en": "Sources that settle what measurement cannot", "zh": "测量无法判定之处，以下文献为准"},
    "factcheck.experiment": {"en": "Experiment: `{call}` with {params}, seed {seed}.", "zh": "实验：`{call}`，参数 {params}，随机种子 {seed}。"},
    "factcheck.scorecard": {"en": "Scorecard (spoils the drill)", "zh": "总评（会剧透练习答案）"},
    "factcheck.scorecard.claim": {"en": "question", "zh": "问题"},
    "factcheck.scorecard.verdict": {"en": "verdict", "zh": "结论"},
    "factcheck.scorecard.kind": {"en": "settled by", "zh": "判定依据"},
    "factcheck.kind.measured": {"en": "measurement", "zh": "测量"},
    "factcheck.kind.literature": {"en": "literature", "zh": "文献"},
    "factcheck.grad.chart": {"en": "Median ‖∂L/∂q‖, unscaled, against the claimed ∝ 1/d_k", "zh": "未缩放时 ‖∂L/∂q‖ 的中位数与声称的 ∝ 1/d_k 对比"},
    "factcheck.grad.y": {"en": "median ‖∂L/∂q‖ (log)", "zh": "‖∂L/∂q‖ 中位数（对数）"},
    "factcheck.grad.series": {"en": "series", "zh": "序列"},
    "factcheck.grad.measured": {"en": "measured (unscaled)", "zh": "测量值（未缩放）"},
    "factcheck.grad.claimed": {"en": "claimed ∝ 1/d_k", "zh": "声称 ∝ 1/d_k"},
    "factcheck.grad.scaled": {"en": "measured (÷√d_k)", "zh": "测量值（÷√d_k）"},
    "factcheck.notice": {
        "en": "The mechanisms in the notes are right — the variance argument, and saturation starving the gradient — but several of their "
              "numbers are not what the stated code produces, and \"optimal\" overstates a variance-preserving choice made at initialisation. "
              "Measured under the notes' own assumptions, the scaled entropy is far from ln 10 (which would be uniform attention), and the "
              "unscaled gradient's median falls faster than any power of d_k while its mean does not fall at all.",
        "zh": "笔记中的机制是对的——方差论证，以及饱和导致梯度枯竭——但其中不少数字并不是所给代码能跑出的结果，"
              "而“最优”夸大了一个仅在初始化时保持方差的选择。在笔记自身的假设下测量，缩放后的熵远低于 ln 10（那意味着完全均匀的注意力）；"
              "未缩放时梯度的中位数下降得比 d_k 的任何幂都快，而其均值根本不下降。",
    },
    # quantities
    "factcheck.qty.var_raw": {"en": "Var(q·k)", "zh": "Var(q·k)"},
    "factcheck.qty.var_scaled": {"en": "Var(q·k/√d_k)", "zh": "Var(q·k/√d_k)"},
    "factcheck.qty.second_moment_scaled": {"en": "E[s²], s = q·k/√d_k", "zh": "E[s²]，s = q·k/√d_k"},
    "factcheck.qty.entropy": {"en": "entropy H (nats)", "zh": "熵 H（奈特）"},
    "factcheck.qty.entropy_vs_sqrt": {"en": "entropy ÷ln d_k vs ÷√d_k", "zh": "熵：÷ln d_k 对比 ÷√d_k"},
    "factcheck.qty.matrix_max_weight": {"en": "attn.max() of one 10 × 10 draw", "zh": "一次 10 × 10 抽样的 attn.max()"},
    "factcheck.qty.log_slope": {"en": "local slope of ln median ‖∂L/∂q‖ vs ln d_k", "zh": "ln ‖∂L/∂q‖ 中位数对 ln d_k 的局部斜率"},
    "factcheck.qty.cost_exponent_d": {"en": "exponent of d in the operation count", "zh": "运算量中 d 的指数"},
    "factcheck.qty.time_ratio": {"en": "time additive / time dot-product", "zh": "加性耗时 / 点积耗时"},
    "factcheck.qty.fraction_inside": {"en": "fraction of logits in [−3, 3]", "zh": "logit 落在 [−3, 3] 的比例"},
    # statements (parts)
    "factcheck.part.main": {"en": "—", "zh": "—"},
    "factcheck.part.raw": {"en": "Var = d_k", "zh": "方差 = d_k"},
    "factcheck.part.scaled": {"en": "÷√d_k → 1", "zh": "÷√d_k → 1"},
    "factcheck.part.iid": {"en": "at init (ρ = 0)", "zh": "初始化时（ρ = 0）"},
    "factcheck.part.trained": {"en": "q, k aligned (ρ = {rho})", "zh": "q、k 相关（ρ = {rho}）"},
    "factcheck.part.over": {"en": "÷d_k over-scales", "zh": "÷d_k 缩放过度"},
    "factcheck.part.under": {"en": "÷ln d_k under-scales", "zh": "÷ln d_k 缩放不足"},
    "factcheck.part.unscaled": {"en": "unscaled ∝ 1/d_k", "zh": "未缩放 ∝ 1/d_k"},
    "factcheck.part.scaled_flat": {"en": "÷√d_k ≈ constant", "zh": "÷√d_k ≈ 常数"},
    "factcheck.part.complexity": {"en": "O(n²d²)", "zh": "O(n²d²)"},
    "factcheck.part.practical": {"en": "dot-product faster", "zh": "点积更快"},
    "factcheck.where.dk": {"en": "d_k = {dk}", "zh": "d_k = {dk}"},
    "factcheck.where.dk_scale": {"en": "d_k = {dk}, {scale}", "zh": "d_k = {dk}，{scale}"},
    "factcheck.where.n": {"en": "n = {n}", "zh": "n = {n}"},
    "factcheck.where.n_d": {"en": "n = {n}, d = {d}", "zh": "n = {n}，d = {d}"},
    # per-claim explanations (numbers are the live measurement)
    "factcheck.var_dk.explain": {
        "en": "Under the notes' assumption (independent components, mean 0, variance 1) Var(q·k) = d_k, and ÷√d_k brings it to 1, within sampling error at every d_k. "
              "This is the paper's footnote 4. It describes initialisation only: in general Var(q·k) = tr(Σ_q Σ_k), and trained q, k are neither independent nor unit-variance.",
        "zh": "在笔记的假设下（分量独立、均值 0、方差 1），Var(q·k) = d_k，除以 √d_k 后为 1，在每个 d_k 上都与测量在抽样误差内相符。"
              "这正是论文脚注 4 的论证。它只描述初始化：一般情况下 Var(q·k) = tr(Σ_q Σ_k)，而训练后的 q、k 既不独立，方差也不为 1。",
    },
    "factcheck.sqrt_optimal.explain": {
        "en": "At ρ = 0 the scaled logit keeps E[s²] = 1 at every d_k: √d_k is the variance-preserving factor at initialisation. With q and k aligned "
              "(ρ = {rho}, as training tends to make them) E[s²] reaches {m} at d_k = {dk}: the mean ρ·d_k grows like d_k, so no fixed √d_k keeps the scale. "
              "It is not a theorem of optimality: μP (Tensor Programs V) scales attention by 1/d for exactly this reason, and T5 has no 1/√d in its forward pass, "
              "folding the constant into W_Q's initialisation.",
        "zh": "ρ = 0 时缩放后的 logit 在每个 d_k 下都有 E[s²] = 1：√d_k 是初始化时保持方差的因子。当 q 与 k 相关时（ρ = {rho}，训练往往使之如此），"
              "在 d_k = {dk} 处 E[s²] 达到 {m}：均值 ρ·d_k 随 d_k 线性增长，任何固定的 √d_k 都保不住尺度。"
              "这并非最优性定理：μP（Tensor Programs V）正因如此用 1/d 缩放注意力，T5 的前向传播中也没有 1/√d，而是把这个常数并入 W_Q 的初始化。",
    },
    "factcheck.linear_log.explain": {
        "en": "÷d_k: the entropy is within {tol} of ln n = {ln_n} (uniform attention over {n} keys) at every d_k — over-scaled. "
              "÷ln d_k: at d_k = {dk} the entropy is {h_log} against {h_sqrt} for ÷√d_k, and {sat_log} of rows are saturated (÷√d_k: {sat_sqrt}) — under-scaled, "
              "and increasingly so, since ln d_k grows slower than √d_k. The direction is right; \"optimal\" is a separate claim (see the card on √d_k).",
        "zh": "÷d_k：在每个 d_k 下熵都在 ln n = {ln_n}（对 {n} 个键均匀分配注意力）的 {tol} 以内——缩放过度。"
              "÷ln d_k：在 d_k = {dk} 处熵为 {h_log}，而 ÷√d_k 为 {h_sqrt}；饱和行占 {sat_log}（÷√d_k：{sat_sqrt}）——缩放不足，"
              "且 d_k 越大越明显，因为 ln d_k 比 √d_k 增长得慢。方向是对的；“最优”是另一个说法（见关于 √d_k 的卡片）。",
    },
    "factcheck.entropy_table.explain": {
        "en": "A scaled entropy of 2.3 would be ln 10 = {ln_n}: perfectly uniform attention, which ÷√d_k does not produce. The measured values are not the printed ones. "
              "The direction is reproduced: {trend}",
        "zh": "缩放后熵为 2.3 就意味着 ln 10 = {ln_n}：完全均匀的注意力，而除以 √d_k 并不会得到这种结果。测量值与笔记所印数字不符。"
              "趋势能复现：{trend}",
    },
    "factcheck.entropy_table.trend_yes": {"en": "the unscaled entropy falls as d_k grows.", "zh": "未缩放的熵随 d_k 增大而下降。"},
    "factcheck.entropy_table.trend_no": {"en": "— except that here the unscaled entropy does not fall monotonically with d_k.", "zh": "——只是此处未缩放的熵并未随 d_k 单调下降。"},
    "factcheck.max_weight_print.explain": {
        "en": "`attn.max()` in the notes' snippet is the largest weight of the whole {n} × {n} matrix, not a row average. Over {draws} runs of that exact snippet, "
              "{outside} of the {total} printed values fall outside the central {pct} of what it can print: unscaled, one weight is already near 1 at d_k = 16; "
              "scaled, the largest of 100 weights is rarely below 0.3.",
        "zh": "笔记代码里的 `attn.max()` 是整个 {n} × {n} 矩阵中的最大权重，而不是各行的平均。把这段代码原样运行 {draws} 次，"
              "印出的 {total} 个数中有 {outside} 个落在它可能输出的中间 {pct} 之外：不缩放时，d_k = 16 就已有一个权重接近 1；"
              "缩放后，100 个权重中的最大值很少低于 0.3。",
    },
    "factcheck.grad_inverse_dk.explain": {
        "en": "The local slopes of the unscaled median are {slopes}: a power law ∝ 1/d_k would keep them at −1. The median falls faster than any power "
              "(roughly exp(−c·√d_k)) — {median} at d_k = {dk} — while the mean stays near {mean}, because rare near-ties between the top two keys dominate it. "
              "Scaled, the median stays near {scaled}: that half of the claim holds. The mechanism (saturation starves the gradient) is right.",
        "zh": "未缩放时中位数的局部斜率为 {slopes}：若是 ∝ 1/d_k 的幂律，斜率应一直为 −1。中位数下降得比任何幂都快（大致为 exp(−c·√d_k)）"
              "——在 d_k = {dk} 时为 {median}——而均值保持在 {mean} 附近，因为前两个键偶尔几乎相等的情形主导了均值。"
              "缩放后中位数保持在 {scaled} 附近：这一半说法成立。机制（饱和使梯度枯竭）是对的。",
    },
    "factcheck.additive_cost.explain": {
        "en": "Computing W₁q_i and W₂k_j once per token (Bahdanau et al., App. A.1.2) gives the same scores as recomputing them for every pair "
              "(largest difference {diff}), and its operation count grows like d^{exp} at n = {n}; only the per-pair recomputation grows like d^{naive}. "
              "The paper says the two are \"similar in theoretical complexity\". The real gap is practical: measured here additive attention is {ratio}× slower "
              "(n = {tn}, d = {td}), because its n²·d_h tanh evaluations are not a matrix product and cannot use GEMM.",
        "zh": "对每个词只计算一次 W₁q_i 和 W₂k_j（Bahdanau 等，附录 A.1.2），得到的分数与为每个词对重新计算完全相同（最大差异 {diff}），"
              "其运算量在 n = {n} 时按 d^{exp} 增长；只有逐对重算才按 d^{naive} 增长。论文原话是二者“理论复杂度相近”。"
              "真正的差距在实践中：本机实测加性注意力慢 {ratio} 倍（n = {tn}，d = {td}），因为它的 n²·d_h 次 tanh 不是矩阵乘法，用不上 GEMM。",
    },
    "factcheck.table3_b.explain": {
        "en": "Every row of Table 3 uses scaled dot-product attention. Row (B) varies only the key size d_k (with the scaling kept) and the paper concludes "
              "\"reducing the attention key size d_k hurts model quality\". There is no unscaled row. The unscaled-vs-additive comparison is a sentence in "
              "§3.2.1 that cites Britz et al. 2017; it is not in Table 3.",
        "zh": "Table 3 的每一行都使用缩放点积注意力。(B) 行只改变键维度 d_k（缩放保持不变），论文的结论是“减小注意力键维度 d_k 会降低模型质量”。"
              "表中没有不缩放的行。不缩放与加性注意力的比较只是 §3.2.1 中引用 Britz 等（2017）的一句话，并不在 Table 3 里。",
    },
    "factcheck.range_3.explain": {
        "en": "The 3-sigma rule gives {claimed} inside [−3, 3] for a normal logit. At d_k = {dk_min} the scaled logit q·k/√d_k has heavier tails than a normal "
              "(excess kurtosis 6/d_k), so only {f_min} fall inside. And softmax sees whole rows: with n = {n} keys, {rows} of rows lie entirely in [−3, 3] at "
              "d_k = {dk}; with n = {long_n} keys only {long} would. \"Always\" does not hold once the context is long.",
        "zh": "对正态分布的 logit，3σ 规则给出 {claimed} 落在 [−3, 3] 内。在 d_k = {dk_min} 时，缩放后的 q·k/√d_k 尾部比正态更重（超额峰度 6/d_k），"
              "只有 {f_min} 落在区间内。而且 softmax 看的是整行：n = {n} 个键时，在 d_k = {dk} 下有 {rows} 的行完全落在 [−3, 3] 内；"
              "n = {long_n} 个键时只有 {long}。上下文一长，“始终”就不成立了。",
    },
    "factcheck.kv_bottleneck.explain": {
        "en": "Not measurable in a random-draw experiment: it is about trained models. The ablation cited below reports that tying K = V costs only about 3% in "
              "perplexity, while tying Q = K is the harmful one. The page \"Q and K are not interchangeable\" shows why Q = K is special: the score matrix becomes "
              "symmetric with a heavy diagonal.",
        "zh": "这无法用随机抽样实验测量：它关乎训练后的模型。下面引用的消融实验报告，K = V 共享只让困惑度变差约 3%，真正有害的是 Q = K 共享。"
              "“Q 与 K 不可互换”页面展示了 Q = K 为何特殊：分数矩阵变得对称，且对角线很重。",
    },
}

for _c in CLAIMS:
    TEXT[f"factcheck.{_c.id}.question"] = {"en": _c.question_en, "zh": _c.question_zh}
