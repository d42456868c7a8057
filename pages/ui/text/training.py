"""Training page strings."""

TEXT: dict[str, dict[str, str]] = {
    "training.nav": {"en": "Training dynamics", "zh": "训练动态"},
    "training.title": {
        "en": "Does the scale matter once the model trains?",
        "zh": "模型训练起来以后，缩放还重要吗？",
    },
    "training.intro": {
        "en": "A tiny single-head attention model learns key–value retrieval: each example holds n "
              "(key, value) pairs and a query that repeats one of the keys; the answer is that key's "
              "value, so attention has to pick out one key among n − 1 distractors. Every run uses the "
              "same batches; all scales at one d_k start from the same weights, with q and k "
              "components of variance 1 (the footnote's assumption), so the runs differ only by c.",
        "zh": "一个极小的单头注意力模型学习“键–值检索”：每个样本包含 n 个（键，值）对"
              "和一个与其中某个键相同的查询，"
              "答案是该键对应的值，所以注意力必须在 n − 1 个干扰项中挑出那一个键。所有运行使用相同的批数据；"
              "同一 d_k 下的各种缩放从完全相同的权重出发，q 和 k 的每个分量方差为 1（即脚注的假设），"
              "因此各次运行之间只差缩放系数 c。",
    },
    "training.formula_caption": {
        "en": "The model. The loss sits behind the value path, so the gradient that moves W_Q and W_K "
              "passes through the softmax Jacobian J = diag(p) − ppᵀ, which vanishes when p saturates.",
        "zh": "模型结构。损失位于值路径之后，因此推动 W_Q 和 W_K 的梯度必须经过 softmax 的雅可比矩阵 "
              "J = diag(p) − ppᵀ；一旦 p 饱和，它就趋于零。",
    },
    "training.controls": {"en": "Training settings", "zh": "训练设置"},
    "training.dks": {"en": "Key dimensions d_k", "zh": "键维度 d_k"},
    "training.dk_toggle.16": {"en": "d_k = 16", "zh": "d_k = 16"},
    "training.dk_toggle.64": {"en": "d_k = 64", "zh": "d_k = 64"},
    "training.dk_toggle.256": {"en": "d_k = 256", "zh": "d_k = 256"},
    "training.dk_toggle.1024": {"en": "d_k = 1024", "zh": "d_k = 1024"},
    "training.linear": {"en": "Also train with c = 1/d_k", "zh": "同时训练 c = 1/d_k"},
    "training.scales_note": {
        "en": "Scales come from the sidebar: {scales}.",
        "zh": "缩放方式来自侧栏：{scales}。",
    },
    "training.steps": {"en": "Training steps", "zh": "训练步数"},
    "training.n": {"en": "Keys per example n", "zh": "每个样本的键数 n"},
    "training.optimizer": {"en": "Optimizer", "zh": "优化器"},
    "training.opt.adam": {"en": "Adam", "zh": "Adam"},
    "training.opt.sgd": {"en": "SGD", "zh": "SGD"},
    "training.lr": {"en": "Learning rate", "zh": "学习率"},
    "training.lr.auto": {"en": "auto (Adam 0.01, SGD 0.5)", "zh": "自动（Adam 0.01，SGD 0.5）"},
    "training.lr.0.001": {"en": "0.001", "zh": "0.001"},
    "training.lr.0.003": {"en": "0.003", "zh": "0.003"},
    "training.lr.0.01": {"en": "0.01", "zh": "0.01"},
    "training.lr.0.03": {"en": "0.03", "zh": "0.03"},
    "training.lr.0.1": {"en": "0.1", "zh": "0.1"},
    "training.lr.0.3": {"en": "0.3", "zh": "0.3"},
    "training.lr.1": {"en": "1", "zh": "1"},
    "training.lr_help": {
        "en": "Adam divides each update by a running gradient size, so it partly hides how small a "
              "gradient is; plain SGD shows the gradient size directly.",
        "zh": "Adam 会用梯度大小的滑动估计去归一化每次更新，因此在一定程度上掩盖了梯度有多小；"
              "普通 SGD 则直接反映梯度的大小。",
    },
    "training.no_dk": {"en": "Choose at least one d_k; showing d_k = 1024.",
                       "zh": "请至少选择一个 d_k；当前显示 d_k = 1024。"},
    "training.ran": {
        "en": "Trained {runs} runs × {steps} steps in {seconds} s on {device} (batch {batch}, seed {seed}). "
              "Results are cached: the same settings come back instantly.",
        "zh": "在 {device} 上训练了 {runs} 次 × {steps} 步，用时 {seconds} 秒"
              "（批大小 {batch}，随机种子 {seed}）。"
              "结果已缓存：相同设置会立即返回。",
    },
    "training.device.cpu": {"en": "CPU (torch)", "zh": "CPU（torch）"},
    "training.device.cuda": {"en": "GPU (torch CUDA)", "zh": "GPU（torch CUDA）"},
    "training.curves": {"en": "Curves, step by step", "zh": "逐步曲线"},
    "training.metric_pick": {"en": "Quantity per step", "zh": "逐步显示的量"},
    "training.metric.loss": {"en": "Loss (cross-entropy, nats)", "zh": "损失（交叉熵，奈特）"},
    "training.metric.accuracy": {"en": "Batch accuracy", "zh": "批准确率"},
    "training.metric.entropy": {"en": "Mean attention entropy H(p) (nats)",
                                "zh": "平均注意力熵 H(p)（奈特）"},
    "training.metric.grad_wq_norm": {"en": "‖∂L/∂W_Q‖ (Frobenius)", "zh": "‖∂L/∂W_Q‖（Frobenius 范数）"},
    "training.metric.max_logit": {"en": "Max |logit| max_j |s_j|", "zh": "最大 |logit| max_j |s_j|"},
    "training.axis.step": {"en": "training step", "zh": "训练步"},
    "training.zero_grad": {
        "en": "d_k = {dk}, {scale}: at {count} step(s) ‖∂L/∂W_Q‖ was exactly 0 (every row's float32 "
              "softmax one-hot, so J = 0); the log axis leaves those steps out.",
        "zh": "d_k = {dk}，{scale}：有 {count} 步的 ‖∂L/∂W_Q‖ 恰好为 0（每一行的 float32 softmax "
              "都是 one-hot，因此 J = 0）；对数坐标轴略去了这些步。",
    },
    "training.ln_n": {"en": "ln n (uniform attention)", "zh": "ln n（均匀注意力）"},
    "training.chance": {"en": "chance 1/C", "zh": "随机猜测 1/C"},
    "training.summary": {"en": "Run summary", "zh": "运行汇总"},
    "training.col.dk": {"en": "d_k", "zh": "d_k"},
    "training.col.scale": {"en": "scale", "zh": "缩放"},
    "training.col.c": {"en": "c", "zh": "c"},
    "training.col.entropy_first": {"en": "entropy at step 0", "zh": "第 0 步的熵"},
    "training.col.max_logit_first": {"en": "max |logit| at step 0", "zh": "第 0 步最大 |logit|"},
    "training.col.grad_wq_norm_first": {"en": "‖∂L/∂W_Q‖ at step 0", "zh": "第 0 步 ‖∂L/∂W_Q‖"},
    "training.col.loss_last": {"en": "final loss", "zh": "最终损失"},
    "training.col.accuracy_final": {"en": "final accuracy", "zh": "最终准确率"},
    "training.col.step_to_90": {"en": "first step ≥ 90 %", "zh": "首次达到 90 % 的步数"},
    "training.reached": {
        "en": "d_k = {dk}, {scale}: {acc} final accuracy, 90 % first reached at step {step}.",
        "zh": "d_k = {dk}，{scale}：最终准确率 {acc}，第 {step} 步首次达到 90 %。",
    },
    "training.never": {
        "en": "d_k = {dk}, {scale}: {acc} final accuracy, never reached 90 % in {steps} steps.",
        "zh": "d_k = {dk}，{scale}：最终准确率 {acc}，{steps} 步内从未达到 90 %。",
    },
    "training.observed": {"en": "What this run shows", "zh": "本次运行的结果"},
    "training.notice": {
        "en": "at step 0 the unscaled runs at large d_k start with attention entropy near 0 and "
              "logits in the tens (std ≈ √d_k): p is already one-hot on a random key and J ≈ 0, so "
              "they learn late, noisily or not at all, while 1/√d_k learns within a few dozen steps "
              "at every d_k. The unscaled "
              "‖∂L/∂W_Q‖ is not small on average — a batch gradient is dominated by the rare near-ties, "
              "as the mean in the gradients page — but it points at whichever key happens to win. "
              "With c = 1/d_k attention starts almost uniform (entropy ≈ ln n) and ‖∂L/∂W_Q‖ is "
              "about 1/√d_k of the √d_k run's: Adam largely hides that, switch to SGD to see 1/d_k "
              "learn slowly or stall at large d_k. Max |logit| keeps growing in every run that learns: "
              "training makes q and k correlated, which is the muP argument for 1/d_k.",
        "zh": "第 0 步时，大 d_k 下不缩放的运行注意力熵接近 0，logit 达到几十（标准差 ≈ √d_k）："
              "p 已经在某个随机键上变成 one-hot，J ≈ 0，因此它们学得晚、学得不稳定，甚至学不会；"
              "而 1/√d_k 在每个 d_k 下都能在几十步内学会。"
              "不缩放时 ‖∂L/∂W_Q‖ 的平均值并不小——一个批的梯度由少数“近乎平手”的样本主导，"
              "和梯度页面上的均值一样——但它指向的是碰巧胜出的那个键。"
              "采用 c = 1/d_k 时注意力一开始几乎均匀（熵 ≈ ln n），‖∂L/∂W_Q‖ 约为 √d_k 缩放时的 1/√d_k："
              "Adam 在很大程度上掩盖了这一点，切换到 SGD 可以看到 1/d_k 在大 d_k 下学得很慢甚至停滞。"
              "在所有学会任务的运行中，最大 |logit| 都在持续增长：训练使 q 与 k 相关，"
              "这正是 muP 主张使用 1/d_k 的理由。",
    },
    "training.caveat": {
        "en": "A toy: one head, fixed random symbol embeddings, a synthetic task. It shows the "
              "mechanism at initialisation and early training, not the behaviour of a large model.",
        "zh": "这只是一个玩具模型：单头、固定的随机符号嵌入、合成任务。它展示的是初始化和训练早期的机制，"
              "而不是大模型的行为。",
    },
    # asked before it runs (charts.ask_first)
    "training.ask": {
        "en": "**Live training.** This page trains one small model per d_k and scale on this server: "
              "a few seconds, with a progress bar. Predict first: at the largest d_k, which scale "
              "reaches 90 % accuracy first, and which never does?",
        "zh": "**现场训练。** 本页会在这台服务器上为每个 d_k 和每种缩放各训练一个小模型：需要几秒钟，"
              "并显示进度条。先猜一猜：在最大的 d_k 下，哪种缩放最先达到 90% 的准确率，哪种始终达不到？",
    },
    "training.ask.button": {"en": "Train", "zh": "开始训练"},
}
