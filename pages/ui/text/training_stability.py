"""Strings of /training's section "Why modern models bound the logits"."""

TEXT: dict[str, dict[str, str]] = {
    "training.stab.title": {"en": "Why modern models bound the logits", "zh": "为什么现代模型要限制 logit"},
    "training.stab.intro": {
        "en": "Dividing by √d_k keeps the attention logits near 1 at initialisation, but training can make "
              "q and k grow until one key takes all the attention. Here a {layers}-layer transformer "
              "(d_model {d_model}, "
              "{heads} heads, pre-LN) learns associative recall — pairs (key, value) and a query that "
              "repeats one key — at {lrs} learning rates, in four variants: ÷√d_k alone, with QK-layernorm, "
              "with the logits soft-capped at {cap}, and with a z-loss of {z} on the answer logits. Every "
              "run starts "
              "from the same weights and sees the same batches.",
        "zh": "除以 √d_k 能让注意力 logit 在初始化时保持在 1 左右，但训练可能让 q 和 k 不断变大，"
              "直到某一个键拿走全部注意力。"
              "这里一个 {layers} 层 Transformer（d_model {d_model}，{heads} 个头，pre-LN）"
              "学习“联想回忆”——若干（键，值）对加上一个重复其中某个键的查询——"
              "在 {lrs} 个学习率、四种变体下训练：只除以 √d_k；加 QK-layernorm；把 logit 软截断在 {cap}；"
              "以及对答案 logit 加 {z} 的 z-loss。每次运行都从相同的权重出发、看到相同的批数据。",
    },
    "training.stab.controls": {"en": "Sweep settings", "zh": "扫描设置"},
    "training.stab.steps": {"en": "Steps per run", "zh": "每次运行的步数"},
    "training.stab.ask": {
        "en": "**Learning-rate sweep.** This trains one small transformer per variant and learning rate on "
              "this server, up to about a minute, with a progress bar. Predict first: as the learning rate "
              "grows, which variant keeps learning longest?",
        "zh": "**学习率扫描。** 这会在服务器上为每种变体和每个学习率各训练一个小 Transformer，"
              "最多约一分钟，并显示进度条。先猜一猜：学习率越来越大时，哪种变体能坚持学得最久？",
    },
    "training.stab.ask.button": {"en": "Run the sweep", "zh": "开始扫描"},
    "training.stab.ran": {
        "en": "Trained {runs} runs ({variants} variants × {lrs} learning rates from {lo} to {hi}) × {steps} "
              "steps in {seconds} s (batch {batch}, seed {seed}). Results are cached for every reader of "
              "this link.",
        "zh": "训练了 {runs} 次运行（{variants} 种变体 × {lrs} 个学习率，从 {lo} 到 {hi}）× {steps} 步，"
              "用时 {seconds} 秒（批大小 {batch}，随机种子 {seed}）。结果已为此链接的所有读者缓存。",
    },
    "training.stab.variant.baseline": {"en": "÷√d_k (baseline)", "zh": "÷√d_k（基线）"},
    "training.stab.variant.qk-norm": {"en": "+ QK-layernorm", "zh": "+ QK-layernorm"},
    "training.stab.variant.soft-cap": {"en": "+ soft-cap", "zh": "+ 软截断"},
    "training.stab.variant.z-loss": {"en": "+ z-loss", "zh": "+ z-loss"},
    "training.stab.legend.variant": {"en": "variant", "zh": "变体"},
    "training.stab.axis.lr": {"en": "learning rate η", "zh": "学习率 η"},
    "training.stab.axis.final_loss": {"en": "Final loss (nats)", "zh": "最终损失（奈特）"},
    "training.stab.axis.peak_logit": {"en": "Largest attention logit", "zh": "最大注意力 logit"},
    "training.stab.axis.max_logit": {"en": "Max attention logit", "zh": "最大注意力 logit"},
    "training.stab.axis.entropy_min": {"en": "Smallest head entropy (nats)", "zh": "各头中最小的熵（奈特）"},
    "training.stab.sweep_title": {"en": "Final loss and largest attention logit against the learning rate",
                                  "zh": "最终损失与最大注意力 logit 随学习率的变化"},
    "training.stab.chance": {"en": "chance ln V", "zh": "随机猜测 ln V"},
    "training.stab.col.variant": {"en": "variant", "zh": "变体"},
    "training.stab.col.sensitivity": {"en": "LR sensitivity", "zh": "学习率敏感度"},
    "training.stab.col.loss_best": {"en": "best final loss", "zh": "最佳最终损失"},
    "training.stab.col.lr_best": {"en": "at η", "zh": "对应 η"},
    "training.stab.col.collapsed": {"en": "runs collapsed", "zh": "坍缩的运行数"},
    "training.stab.col.diverged": {"en": "runs diverged", "zh": "发散的运行数"},
    "training.stab.col.seconds": {"en": "seconds", "zh": "秒"},
    "training.stab.compare": {"en": "Against Wortsman et al. 2023: where the miniature agrees, and where not",
                              "zh": "与 Wortsman 等（2023）对照：这个缩微模型哪里一致，哪里不一致"},
    "training.stab.qk_agree": {
        "en": "Agrees: QK-layernorm lowers the learning-rate sensitivity (E over η of min(loss, initial "
              "loss) − best loss) from {base} to {qk}.",
        "zh": "一致：QK-layernorm 把学习率敏感度（对各 η 取 min(损失, 初始损失) − 最佳损失 的平均）"
              "从 {base} 降到 {qk}。",
    },
    "training.stab.qk_disagree": {
        "en": "Does not agree: here QK-layernorm's learning-rate sensitivity is {qk}, not below the "
              "baseline's {base}.",
        "zh": "不一致：这里 QK-layernorm 的学习率敏感度为 {qk}，并不低于基线的 {base}。",
    },
    "training.stab.collapse_count": {
        "en": "At {k} of {n} learning rates ({lrs}) the baseline's attention collapsed (its smallest head "
              "entropy ended under {nats} nats) while its QK-norm twin's did not. The largest attention "
              "logit "
              "reached {base} in the baseline, {qk} with QK-norm.",
        "zh": "在 {n} 个学习率中的 {k} 个（{lrs}）上，基线的注意力坍缩了（最小的头熵最终低于 {nats} 奈特），"
              "而对应的 QK-norm 运行没有。最大注意力 logit 在基线中达到 {base}，加 QK-norm 时为 {qk}。",
    },
    "training.stab.diverged_some": {
        "en": "{d} of {runs} runs diverged (NaN, or a final loss above the loss at step 0).",
        "zh": "{runs} 次运行中有 {d} 次发散（出现 NaN，或最终损失高于第 0 步的损失）。",
    },
    "training.stab.diverged_none": {
        "en": "Does not agree: none of the {runs} runs diverged in the paper's sense (NaN, or a loss above "
              "its start). The runs that fail stay below their start, near chance ln V = {lnv}: their "
              "attention collapses and they stop learning instead of blowing up.",
        "zh": "不一致：{runs} 次运行中没有一次按论文的意义发散（出现 NaN，或损失高于起点）。"
              "失败的运行停留在起点以下、接近随机猜测 ln V = {lnv}：它们的注意力坍缩，停止学习，而不是爆掉。",
    },
    "training.stab.zloss": {
        "en": "z-loss changes the sensitivity from {base} to {z}. In the paper it removes the output-logit "
              "divergence, a late-training failure this miniature does not reach (the baseline's answer "
              "logits end with ‖z‖ ≤ {norm}); it does nothing for the attention logits, here as there.",
        "zh": "z-loss 把敏感度从 {base} 变为 {z}。在论文中它消除的是输出 logit 的发散，"
              "这是训练后期的失败，这个缩微模型没有走到那一步（基线的答案 logit 最终 ‖z‖ ≤ {norm}）；"
              "它对注意力 logit 没有作用，这里和论文一样。",
    },
    "training.stab.softcap": {
        "en": "Soft-capping keeps every logit at most {cap} (largest {peak}); its sensitivity is {c} against "
              "the baseline's {base}.",
        "zh": "软截断让每个 logit 都不超过 {cap}（最大 {peak}）；它的敏感度是 {c}，基线为 {base}。",
    },
    "training.stab.collapse_head": {"en": "The collapse, seen", "zh": "亲眼看到坍缩"},
    "training.stab.collapse_caption": {
        "en": "The baseline and its QK-norm twin at η = {lr}, the smallest swept rate at which only the "
              "baseline collapsed. Dotted line: step {step}, where the baseline's smallest head entropy "
              "first "
              "fell under {nats} nats.",
        "zh": "基线与其 QK-norm 对照在 η = {lr} 时的曲线，这是扫描中只有基线坍缩的最小学习率。"
              "点线：第 {step} 步，基线最小的头熵首次低于 {nats} 奈特。",
    },
    "training.stab.collapse_title": {"en": "Attention logits grow, entropy collapses",
                                     "zh": "注意力 logit 增长，熵坍缩"},
    "training.stab.collapse_at": {"en": "baseline collapses at step {step}", "zh": "基线在第 {step} 步坍缩"},
    "training.stab.collapse_line": {"en": "collapse threshold {nats} nats", "zh": "坍缩阈值 {nats} 奈特"},
    "training.stab.length_head": {"en": "Length: softmax against s·ln n",
                                  "zh": "长度：softmax 与 s·ln n 的对比"},
    "training.stab.length_intro": {
        "en": "Scalable-Softmax (Nakanishi 2025) multiplies the logits by s·ln n. Its opening example: one "
              "logit {top} among n − 1 zeros. Softmax's largest weight fades as n grows; with s = {s} it "
              "stays near 1:",
        "zh": "Scalable-Softmax（Nakanishi 2025）把 logit 乘以 s·ln n。论文开头的例子：一个 logit 为 {top}，"
              "其余 n − 1 个为 0。softmax 的最大权重随 n 增大而衰减；取 s = {s} 时它保持在 1 附近：",
    },
    "training.stab.col.n": {"en": "n", "zh": "n"},
    "training.stab.col.softmax_max": {"en": "softmax: largest weight", "zh": "softmax：最大权重"},
    "training.stab.col.ssmax_max": {"en": "SSMax: largest weight", "zh": "SSMax：最大权重"},
    "training.stab.measured_intro": {
        "en": "The same on our own scores: q and n keys with unit-variance normal components, d_k = {dk}, "
              "key 0 correlated with q at ρ = {rho} (its logit ≈ {logit}, the others ≈ N(0, 1)); "
              "mean over {trials} queries.",
        "zh": "换成我们自己的得分：q 与 n 个键的分量均为方差 1 的正态分布，d_k = {dk}，"
              "第 0 个键与 q 的相关系数 ρ = {rho}（其 logit ≈ {logit}，其余 ≈ N(0, 1)）；"
              "对 {trials} 个查询取平均。",
    },
    "training.stab.method.none": {"en": "softmax (÷√d_k)", "zh": "softmax（÷√d_k）"},
    "training.stab.method.ssmax": {"en": "SSMax (× s·ln n)", "zh": "SSMax（× s·ln n）"},
    "training.stab.legend.method": {"en": "softmax", "zh": "softmax"},
    "training.stab.axis.n": {"en": "number of keys n", "zh": "键的数量 n"},
    "training.stab.axis.target_weight": {"en": "Weight on the matching key", "zh": "匹配键上的权重"},
    "training.stab.axis.max_weight": {"en": "largest weight", "zh": "最大权重"},
    "training.stab.uniform": {"en": "uniform 1/n", "zh": "均匀 1/n"},
    "training.stab.length_title": {"en": "Weight on the matching key as n grows",
                                   "zh": "n 增大时匹配键上的权重"},
    "training.stab.length_lesson": {
        "en": "The lesson's length step asks how much the top weight falls from n to 4n under ÷√d_k; "
              "s·ln n is one answer modern models give to it.",
        "zh": "课程中的“长度”一步问的是：在 ÷√d_k 下，n 变为 4n 时最大权重下降多少；"
              "s·ln n 是现代模型给出的一种答案。",
    },
    "training.stab.q.diverges_first": {"en": "Which run diverges first?", "zh": "哪次运行最先发散？"},
}
