"""Cost page strings: additive vs dot-product attention, modelled and measured (docs/science.md §3f)."""
# ruff: noqa: E501  (prose: translation lines are as long as their sentences)

TEXT: dict[str, dict[str, str]] = {
    "cost.nav": {"en": "Additive vs dot-product: the cost", "zh": "加性与点积注意力：计算代价"},
    "cost.title": {"en": "Additive vs dot-product attention: the cost, modelled and measured",
                   "zh": "加性注意力与点积注意力：代价的模型与实测"},
    "cost.claim": {
        "en": "The notes say additive attention costs O(n²d²) against O(n²d) for dot-product, and that "
              "dot-product is \"orders of magnitude\" faster on GPUs. Vaswani et al. (2017, §3.2.1) say the "
              "two are \"similar in theoretical complexity\" but dot-product is \"much faster and more "
              "space-efficient in practice\". This page times both on your hardware and puts the FLOP model "
              "(a count of floating-point operations) beside the clock.",
        "zh": "笔记说加性注意力的代价是 O(n²d²)，点积注意力是 O(n²d)，并称点积在 GPU 上快“几个数量级”。"
              "Vaswani 等人（2017，§3.2.1）则说两者“理论复杂度相近”，但点积注意力“在实践中快得多、也更省内存”。"
              "本页在你的硬件上为两者计时，并把 FLOP 模型（浮点运算次数的计数）与实测时间并排放在一起。",
    },
    "cost.why_sqrt": {  # docs/science.md §3e
        "en": "**Why cost matters for √d_k.** Vaswani et al. chose dot-product attention for the speed this page measures, "
              "but unscaled it did worse than additive attention at large d_k; dividing the scores by √d_k removes that "
              "reason to pay for additive attention and keeps dot-product's speed (Vaswani et al. 2017, §3.2.1).",
        "zh": "**代价为什么与 √d_k 有关。** Vaswani 等人选择点积注意力，正是因为本页测量的速度；但不缩放时，它在 d_k 较大时不如加性注意力。"
              "把分数除以 √d_k 消除了为加性注意力付出代价的理由，同时保留了点积的速度（Vaswani 等 2017，§3.2.1）。",
    },
    # formulas
    "cost.formulas": {"en": "What each implementation computes, and what it costs",
                      "zh": "每种实现计算什么、代价多少"},
    "cost.formulas.dot": {"en": "Dot-product: one matrix product for the scores, softmax, one for the output.",
                          "zh": "点积注意力：一次矩阵乘法得到分数，softmax，再一次矩阵乘法得到输出。"},
    "cost.formulas.additive": {
        "en": "Additive (Bahdanau): a small network per pair. Factored, W₁q_i and W₂k_j are computed once "
              "per token (Bahdanau et al. 2014, App. A.1.2); naive, they are recomputed for every pair — "
              "that is where the notes' O(n²d²) comes from (with d_h = d).",
        "zh": "加性注意力（Bahdanau）：每一对 (i, j) 过一个小网络。因式分解后，W₁q_i 和 W₂k_j 每个词元只算一次"
              "（Bahdanau 等 2014，附录 A.1.2）；朴素实现则对每一对都重算投影——笔记里的 O(n²d²) 就来自这里（取 d_h = d）。",
    },
    "cost.formulas.memory": {
        "en": "Intermediate memory: the tanh argument is an n × n × d_h tensor against the n × n score "
              "matrix of dot-product (our factored code works through it in blocks of about 4M elements).",
        "zh": "中间内存：tanh 的自变量是 n × n × d_h 的张量，而点积注意力只有 n × n 的分数矩阵"
              "（我们的因式分解实现按约 400 万个元素一块分块处理）。",
    },
    "cost.formulas.note": {
        "en": "Both start from Q and K already projected; the n·d·d_k projections X W_Q, X W_K of a real "
              "layer are the same for both and are left out. The gap that remains is practical: the n²·d_h "
              "tanh evaluations are not a matrix product, so they cannot run on GEMM units (GEMM: general matrix–matrix multiplication, "
              "the routine that BLAS libraries and tensor cores are built for) or tensor cores.",
        "zh": "两者都从已投影好的 Q、K 出发；真实网络层里 X W_Q、X W_K 的 n·d·d_k 投影对两者相同，这里不计。"
              "剩下的差距来自实践：n²·d_h 次 tanh 不是矩阵乘法，无法使用 GEMM 单元（GEMM：通用矩阵–矩阵乘法，"
              "BLAS 库与张量核心专为它而设计）或张量核心。",
    },
    "cost.tex.naive": {"en": "naive", "zh": "朴素"},
    "cost.tex.factored": {"en": "factored", "zh": "因式分解"},
    "cost.tex.per_pair": {"en": "projections for every pair", "zh": "每一对都重算投影"},
    "cost.tex.once": {"en": "once", "zh": "只算一次"},
    "cost.tex.inter": {"en": "intermediate memory", "zh": "中间内存"},
    "cost.tex.additive": {"en": "additive", "zh": "加性"},
    "cost.tex.dot": {"en": "dot-product", "zh": "点积"},
    # controls
    "cost.controls": {"en": "Sweep settings", "zh": "扫描设置"},
    "cost.n_range.label": {"en": "Number of tokens n (from – to)", "zh": "词元数 n（起 – 止）"},
    "cost.d_range.label": {"en": "Dimension d = d_k (from – to)", "zh": "维度 d = d_k（起 – 止）"},
    "cost.dh.label": {"en": "Additive hidden size d_h", "zh": "加性注意力隐藏维度 d_h"},
    "cost.dh.d": {"en": "= d", "zh": "= d"},
    "cost.repeats.label": {"en": "Timed repeats per point", "zh": "每个点的计时重复次数"},
    "cost.naive_ms.label": {"en": "Run naive additive only while one call takes under (ms)",
                            "zh": "朴素加性注意力单次调用低于此时间（毫秒）才实际运行"},
    "cost.naive_ms.help": {
        "en": "Naive points predicted to take longer are not run: their time is extrapolated from the fit "
              "of the points that were, and drawn dashed with a prediction interval.",
        "zh": "预计更慢的朴素实现点不实际运行：其时间由已测点的拟合外推，用虚线并附预测区间画出。",
    },
    "cost.torch.label": {"en": "torch reference lines", "zh": "torch 参考线"},
    "cost.setup": {
        "en": "{device}, {dtype}. Time vs n at d = d_k = {d_at}; time vs d at n = {n_at}; d_h = {dh}. "
              "Each point: 1 warm-up call, then {repeats} timed calls of all implementations in turn; "
              "median shown, bars from fastest to slowest. Timer: {timer}.",
        "zh": "{device}，{dtype}。随 n 变化时固定 d = d_k = {d_at}；随 d 变化时固定 n = {n_at}；d_h = {dh}。"
              "每个点：先预热 1 次，再让所有实现轮流计时 {repeats} 次；图中为中位数，误差线从最快到最慢。计时器：{timer}。",
    },
    "cost.threads": {
        "en": "Threads while timing: NumPy's BLAS {blas}, torch {torch}. The app's server runs each "
              "library on one thread, as two computations share its two cores; the command at the "
              "bottom of this page uses one thread per core.",
        "zh": "计时时的线程数：NumPy 的 BLAS {blas} 个，torch {torch} 个。应用的服务器让每个库只用一个线程，"
              "因为两个计算共用它的两个核心；本页底部的命令则每个核心一个线程。",
    },
    "cost.timer.perf_counter": {"en": "wall clock (time.perf_counter)", "zh": "墙钟时间（time.perf_counter）"},
    "cost.timer.cuda-events": {"en": "CUDA events on the stream", "zh": "流上的 CUDA 事件"},
    "cost.cached": {"en": "Results are cached per backend and sizes; change a setting to measure again.",
                    "zh": "结果按后端与规模缓存；修改任一设置即可重新测量。"},
    "cost.extrapolated_note": {
        "en": "{count} naive point(s) would take over {ms} ms per call and were not run; they are extrapolated from the fit (dashed lines, hollow diamonds; the tooltip gives the {level}% prediction interval).",
        "zh": "有 {count} 个朴素实现的点单次调用预计超过 {ms} 毫秒，未实际运行；其时间由拟合外推（虚线、空心菱形；悬停提示中给出 {level}% 预测区间）。",
    },
    # series
    "cost.impl.dot": {"en": "dot-product", "zh": "点积"},
    "cost.impl.additive": {"en": "additive (factored)", "zh": "加性（因式分解）"},
    "cost.impl.additive-naive": {"en": "additive (naive)", "zh": "加性（朴素）"},
    "cost.impl.torch": {"en": "{impl} · torch", "zh": "{impl} · torch"},
    "cost.tip.lo": {"en": "fastest (measured) / interval low (extrapolated)", "zh": "最快（实测）/ 区间下限（外推）"},
    "cost.tip.hi": {"en": "slowest (measured) / interval high (extrapolated)", "zh": "最慢（实测）/ 区间上限（外推）"},
    "cost.legend.series": {"en": "implementation", "zh": "实现"},
    "cost.legend.kind": {"en": "point", "zh": "数据点"},
    "cost.kind.measured": {"en": "measured", "zh": "实测"},
    "cost.kind.extrapolated": {"en": "extrapolated", "zh": "外推"},
    # charts
    "cost.chart.time_n": {"en": "Time vs n (log–log)", "zh": "时间随 n 的变化（双对数）"},
    "cost.chart.time_d": {"en": "Time vs d (log–log)", "zh": "时间随 d 的变化（双对数）"},
    "cost.chart.ratio": {"en": "How many times slower than dot-product", "zh": "比点积注意力慢多少倍"},
    "cost.chart.gflops": {"en": "Achieved GFLOP/s against the machine's limits",
                          "zh": "实际 GFLOP/s 与机器极限"},
    "cost.axis.seconds": {"en": "seconds per forward pass (median)", "zh": "每次前向的秒数（中位数）"},
    "cost.axis.n": {"en": "number of tokens n", "zh": "词元数 n"},
    "cost.axis.d": {"en": "dimension d = d_k", "zh": "维度 d = d_k"},
    "cost.axis.ratio": {"en": "time ÷ time of dot-product", "zh": "时间 ÷ 点积注意力的时间"},
    "cost.axis.gflops": {"en": "GFLOP/s (model FLOPs ÷ measured time)", "zh": "GFLOP/s（模型 FLOP ÷ 实测时间）"},
    "cost.ratio.kind": {"en": "ratio", "zh": "比值"},
    "cost.ratio.time": {"en": "measured time", "zh": "实测时间"},
    "cost.ratio.flops": {"en": "FLOP model", "zh": "FLOP 模型"},
    "cost.peak.gemm": {"en": "peak: {gflops} GFLOP/s, {n}×{n} matmul (measured)",
                       "zh": "峰值：{gflops} GFLOP/s，{n}×{n} 矩阵乘法（实测）"},
    "cost.peak.fp32": {"en": "FP32 FMA limit: {gflops} GFLOP/s (datasheet)",
                       "zh": "FP32 FMA 极限：{gflops} GFLOP/s（规格）"},
    "cost.peak.ceiling": {"en": "tanh-bound ceiling of additive", "zh": "加性注意力受 tanh 限制的上限"},
    "cost.peak.text_cpu": {
        "en": "Measured on this machine: a {n}×{n} float matmul at {gemm} GFLOP/s and tanh at {tanh} G elements/s (fastest of 5). "
              "The dashed line is the most additive attention could reach if tanh ran at that rate and everything else were free: "
              "FLOPs ÷ max(FLOPs ÷ peak, tanh count ÷ tanh rate).",
        "zh": "在本机实测：{n}×{n} 浮点矩阵乘法 {gemm} GFLOP/s，tanh 每秒 {tanh} G 个元素（5 次中最快）。"
              "虚线是加性注意力能达到的上限：假设 tanh 以该速率运行、其余运算不花时间，即 FLOP ÷ max(FLOP ÷ 峰值, tanh 次数 ÷ tanh 速率)。",
    },
    "cost.peak.text_gpu": {
        "en": "Datasheet limits of this GPU: FP32 FMA {fp32} GFLOP/s, special-function units {sfu} G tanh/s (CUDA C Programming Guide throughput table); "
              "measured: matmul {gemm} GFLOP/s, tanh {tanh} G elements/s. Our dot-product kernel uses tensor cores (3xTF32), so it can pass the FP32 FMA line; "
              "tensor cores do not help tanh: it is not a matrix product.",
        "zh": "本 GPU 的规格极限：FP32 FMA {fp32} GFLOP/s，特殊函数单元 {sfu} G 次 tanh/秒（见 CUDA C 编程指南吞吐量表）；"
              "实测：矩阵乘法 {gemm} GFLOP/s，tanh 每秒 {tanh} G 个元素。我们的点积内核使用张量核心（3xTF32），因此可能超过 FP32 FMA 线；"
              "张量核心帮不了 tanh：它不是矩阵乘法。",
    },
    # fits
    "cost.fits": {"en": "Fitted exponents: time ∝ size^b", "zh": "拟合指数：时间 ∝ 规模^b"},
    "cost.fits.caption": {
        "en": "Ordinary least squares (the straight line with the smallest sum of squared vertical distances to the points) "
              "on log t against log n (or log d), over the measured points only; "
              "{level}% confidence interval from Student's t with m − 2 degrees of freedom. "
              "\"Model\" is the same fit on the FLOP count. At small sizes fixed overheads flatten the measured slope.",
        "zh": "仅用实测点，对 log t 与 log n（或 log d）做普通最小二乘（找一条直线，使各点到它的竖直距离平方和最小）；{level}% 置信区间来自自由度为 m − 2 的 Student t 分布。"
              "“模型”是对 FLOP 数做同样的拟合。规模较小时，固定开销会使实测斜率偏平。",
    },
    "cost.fits.short": {
        "en": "b is the slope of log time against log size: time grows like size^b. \"Model b\" is the slope of the FLOP count.",
        "zh": "b 是对数时间对对数规模的斜率：时间按 规模^b 增长。“模型 b”是 FLOP 数的斜率。",
    },
    "cost.fits.more": {"en": "More: how the exponents are fitted, with confidence intervals",
                       "zh": "更多：指数如何拟合，以及置信区间"},
    "cost.col.axis": {"en": "against", "zh": "自变量"},
    "cost.col.series": {"en": "implementation", "zh": "实现"},
    "cost.col.exponent": {"en": "exponent b", "zh": "指数 b"},
    "cost.col.ci": {"en": "{level}% CI", "zh": "{level}% 置信区间"},
    "cost.col.model": {"en": "model b (FLOPs)", "zh": "模型 b（FLOP）"},
    "cost.col.points": {"en": "points", "zh": "点数"},
    "cost.col.r2": {"en": "R²", "zh": "R²"},
    # table
    "cost.table": {"en": "The model next to the clock, at n = {n}, d = {d}, d_h = {dh}",
                   "zh": "模型与实测对照：n = {n}，d = {d}，d_h = {dh}"},
    "cost.col.flops": {"en": "FLOPs (model)", "zh": "FLOP（模型）"},
    "cost.col.special": {"en": "tanh + exp (model)", "zh": "tanh + exp 次数（模型）"},
    "cost.col.inter": {"en": "intermediate memory", "zh": "中间内存"},
    "cost.col.seconds": {"en": "time (median)", "zh": "时间（中位数）"},
    "cost.col.gflops": {"en": "GFLOP/s", "zh": "GFLOP/s"},
    "cost.col.of_bound": {"en": "of the limit", "zh": "占极限比例"},
    "cost.col.check": {"en": "max |ΔO| vs reference", "zh": "与参考实现的最大 |ΔO|"},
    "cost.col.kind": {"en": "time is", "zh": "时间来源"},
    "cost.check.caption": {
        "en": "Every implementation's output O is checked against ours (naive and torch additive against factored additive, torch dot against ours) before it is timed.",
        "zh": "每种实现的输出 O 在计时之前都先与我们的参考实现比对（朴素加性与 torch 加性对照因式分解加性，torch 点积对照我们的点积）。",
    },
    # what to notice
    "cost.notice": {
        "en": "At n = {n}, factored additive attention takes {ratio}× the time of dot-product although its FLOP model is only {flop_ratio}× larger: "
              "dot-product runs at {dot_gflops} GFLOP/s, additive at {add_gflops} GFLOP/s, because its n²·d_h tanh are element-wise work, not a matrix product.",
        "zh": "在 n = {n} 时，因式分解的加性注意力耗时是点积的 {ratio} 倍，而它的 FLOP 模型只多 {flop_ratio} 倍："
              "点积以 {dot_gflops} GFLOP/s 运行，加性只有 {add_gflops} GFLOP/s，因为它的 n²·d_h 次 tanh 是逐元素运算，不是矩阵乘法。",
    },
    "cost.notice.naive": {
        "en": "The naive form recomputes the projections for every pair, 4n²·d·d_h FLOPs — the notes' O(n²d²) with d_h = d — but those are matrix products and run fast: "
              "its measured exponent in d is {naive_d_b} (model {naive_model}) against {add_d_b} for the factored form.",
        "zh": "朴素实现对每一对都重算投影，共 4n²·d·d_h 次 FLOP——取 d_h = d 就是笔记里的 O(n²d²)——但这些都是矩阵乘法，跑得很快："
              "它对 d 的实测指数为 {naive_d_b}（模型为 {naive_model}），因式分解形式为 {add_d_b}。",
    },
    "cost.notice.end": {
        "en": "Same order in theory; in practice the gap is a constant factor set by how fast the hardware evaluates tanh.",
        "zh": "理论上同阶；实践中的差距是一个常数倍，由硬件计算 tanh 的速度决定。",
    },
    "cost.notice.short": {
        "en": "Compare the measured ratio with the FLOP-model ratio: the gap between them is the price of tanh, which cannot run as a matrix product.",
        "zh": "对比实测比值与 FLOP 模型比值：两者之间的差距就是 tanh 的代价——它无法作为矩阵乘法运行。",
    },
    "cost.cli": {"en": "Reproduce from the command line:", "zh": "在命令行中复现："},
    # asked before it runs (charts.ask_first)
    "cost.ask": {
        "en": "**Live timing.** This page times the code on this server for the sizes above: a few "
              "seconds, with a progress bar. Predict first, with the choice above: the page compares "
              "your prediction with the measurement.",
        "zh": "**现场计时。** 本页会在这台服务器上按上面的规模实际计时：需要几秒钟，并显示进度条。"
              "请先用上面的选项做出预测：页面会把你的预测与测量结果对比。",
    },
    "cost.guess.label": {
        "en": "Predict first: at the largest n, how many times slower is additive attention than dot-product attention?",
        "zh": "先预测：在最大的 n 下，加性注意力比点积注意力慢几倍？",
    },
    "cost.guess.none": {"en": "not yet", "zh": "暂不预测"},
    "cost.guess.times": {"en": "{x}×", "zh": "{x} 倍"},
    "cost.guess.result": {"en": "Your prediction:", "zh": "你的预测："},
    "cost.guess.result.none": {
        "en": "none made. Measured: additive attention takes {measured}× the time of dot-product at n = {n}.",
        "zh": "未作预测。实测：n = {n} 时，加性注意力耗时是点积的 {measured} 倍。",
    },
    "cost.guess.result.close": {
        "en": "{guess}×; measured {measured}× at n = {n}: close (within a factor of {off}).",
        "zh": "{guess} 倍；n = {n} 时实测 {measured} 倍：很接近（相差 {off} 倍以内）。",
    },
    "cost.guess.result.higher": {
        "en": "{guess}×; measured {measured}× at n = {n}: additive attention is {off} times slower than you predicted.",
        "zh": "{guess} 倍；n = {n} 时实测 {measured} 倍：加性注意力比你预测的还要慢 {off} 倍。",
    },
    "cost.guess.result.lower": {
        "en": "{guess}×; measured {measured}× at n = {n}: the gap is {off} times smaller than you predicted.",
        "zh": "{guess} 倍；n = {n} 时实测 {measured} 倍：差距比你预测的小 {off} 倍。",
    },
    "cost.ask.button": {"en": "Measure", "zh": "开始计时"},
}
