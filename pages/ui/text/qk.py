"""Q vs K page strings."""
# ruff: noqa: E501  (prose: translation lines are as long as their sentences)

TEXT: dict[str, dict[str, str]] = {
    "qk.nav": {"en": "Q and K are not interchangeable", "zh": "Q 与 K 不可互换"},
    "qk.title": {"en": "Q and K are not interchangeable", "zh": "Q 与 K 不可互换"},
    "qk.intro": {
        "en": "Q Kᵀ and K Qᵀ hold the same numbers, transposed. What breaks the symmetry is the softmax: it normalises each query's row over the keys. "
              "Swapping the roles normalises over the queries instead — a different distribution from the same scores. And the gradients that reach Q and K "
              "are built differently: ∂L/∂Q = c·dS K, ∂L/∂K = c·dSᵀ Q.",
        "zh": "Q Kᵀ 与 K Qᵀ 是同一组数字，只是转置。打破对称性的是 softmax：它把每个查询所在的行在所有键上归一化。"
              "交换角色就变成在所有查询上归一化——同样的分数，得到不同的分布。传到 Q 和 K 的梯度结构也不同：∂L/∂Q = c·dS K，∂L/∂K = c·dSᵀ Q。",
    },
    "qk.n": {"en": "Tokens n (queries = keys)", "zh": "词数 n（查询数 = 键数）"},
    "qk.tie": {"en": "Tie W_K = W_Q (so K = Q)", "zh": "共享 W_K = W_Q（于是 K = Q）"},
    "qk.clamped": {"en": "This page uses d_k ≤ {max} (n × n heatmaps, autograd over many draws); showing d_k = {used}.", "zh": "本页使用 d_k ≤ {max}（n × n 热图、对大量抽样做自动求导）；此处显示 d_k = {used}。"},
    "qk.norm.header": {"en": "1 · softmax(QKᵀ) next to softmax(KQᵀ)", "zh": "1 · softmax(QKᵀ) 与 softmax(KQᵀ) 并排"},
    "qk.heat.S": {"en": "Scores S = QKᵀ/√d_k (row i = query, column j = key)", "zh": "分数 S = QKᵀ/√d_k（第 i 行 = 查询，第 j 列 = 键）"},
    "qk.heat.A": {"en": "softmax(QKᵀ/√d_k): each row sums to 1 over the keys", "zh": "softmax(QKᵀ/√d_k)：每行在所有键上求和为 1"},
    "qk.heat.B": {"en": "softmax(KQᵀ/√d_k)ᵀ: each column sums to 1 over the queries", "zh": "softmax(KQᵀ/√d_k)ᵀ：每列在所有查询上求和为 1"},
    "qk.axis.query": {"en": "query i", "zh": "查询 i"},
    "qk.axis.key": {"en": "key j", "zh": "键 j"},
    "qk.legend.score": {"en": "score", "zh": "分数"},
    "qk.legend.weight": {"en": "weight", "zh": "权重"},
    "qk.metric.diff": {"en": "max |A − softmax(KQᵀ)ᵀ|", "zh": "max |A − softmax(KQᵀ)ᵀ|"},
    "qk.metric.colsum": {"en": "column sums of A", "zh": "A 的列和"},
    "qk.metric.asym": {"en": "‖S − Sᵀ‖ / ‖S‖", "zh": "‖S − Sᵀ‖ / ‖S‖"},
    "qk.metric.diag": {"en": "mean A_ii (uniform: {u})", "zh": "A_ii 均值（均匀：{u}）"},
    "qk.tying.title": {"en": "Tying over {trials} draws", "zh": "{trials} 次抽样下的共享效果"},
    "qk.tying.col.case": {"en": "projections", "zh": "投影"},
    "qk.tying.untied": {"en": "separate W_Q, W_K", "zh": "独立的 W_Q、W_K"},
    "qk.tying.tied": {"en": "tied W_K = W_Q", "zh": "共享 W_K = W_Q"},
    "qk.tying.col.diag": {"en": "mean A_ii", "zh": "A_ii 均值"},
    "qk.tying.col.se": {"en": "± std. error", "zh": "± 标准误"},
    "qk.tying.col.self": {"en": "queries attending most to themselves", "zh": "最关注自身的查询比例"},
    "qk.tying.col.asym": {"en": "‖S − Sᵀ‖ / ‖S‖", "zh": "‖S − Sᵀ‖ / ‖S‖"},
    "qk.tying.col.diag_score": {"en": "mean S_ii (tied theory: √d_k = {theory})", "zh": "S_ii 均值（共享时理论值：√d_k = {theory}）"},
    "qk.tying.caption": {
        "en": "Tied, S_ii = ‖q_i‖²/√d_k ≈ √d_k while off-diagonal scores are about N(0, 1): every token attends mostly to itself. This is why tying Q = K is the harmful tying.",
        "zh": "共享时 S_ii = ‖q_i‖²/√d_k ≈ √d_k，而非对角分数约为 N(0, 1)：每个词主要关注自身。这就是为什么 Q = K 共享才是有害的那种共享。",
    },
    "qk.grad.header": {"en": "2 · ∂L/∂Q and ∂L/∂K from autograd, same inputs", "zh": "2 · 同一输入下由自动求导得到的 ∂L/∂Q 与 ∂L/∂K"},
    "qk.grad.text": {
        "en": "L = Σ G ⊙ softmax(c·QKᵀ)V with an upstream gradient G ~ N(0, 1). torch autograd and the closed form agree to {err}. "
              "∂L/∂q_i is row i of dS times K; ∂L/∂k_j gathers column j of dS over every query. Without scaling, saturated rows of dS vanish, "
              "so the query-side gradient is the more uneven one.",
        "zh": "L = Σ G ⊙ softmax(c·QKᵀ)V，上游梯度 G ~ N(0, 1)。torch 自动求导与闭式解的差异为 {err}。"
              "∂L/∂q_i 是 dS 的第 i 行乘以 K；∂L/∂k_j 汇集了 dS 第 j 列在所有查询上的贡献。不缩放时，饱和行的 dS 消失，"
              "因此查询一侧的梯度分布更不均匀。",
    },
    "qk.grad.bars.title": {"en": "Row norms of one draw, {scale}", "zh": "一次抽样的各行范数，{scale}"},
    "qk.grad.row": {"en": "row (query i or key j)", "zh": "行（查询 i 或键 j）"},
    "qk.grad.norm": {"en": "row norm ‖·‖₂", "zh": "行范数 ‖·‖₂"},
    "qk.grad.wrt": {"en": "gradient", "zh": "梯度"},
    "qk.grad.scatter.title": {"en": "‖∂L/∂Q‖_F vs ‖∂L/∂K‖_F per draw, {scale}", "zh": "每次抽样的 ‖∂L/∂Q‖_F 与 ‖∂L/∂K‖_F，{scale}"},
    "qk.grad.col.scale": {"en": "scale", "zh": "缩放"},
    "qk.grad.col.wrt": {"en": "gradient w.r.t.", "zh": "对谁求导"},
    "qk.grad.col.frob": {"en": "mean ‖·‖_F", "zh": "‖·‖_F 均值"},
    "qk.grad.col.cv": {"en": "row-norm CV (std/mean)", "zh": "行范数变异系数（标准差/均值）"},
    "qk.grad.col.top": {"en": "share of the largest row (uniform: {u})", "zh": "最大行所占份额（均匀：{u}）"},
    "qk.grad.ratio": {
        "en": "{scale}: ‖∂L/∂Q‖_F / ‖∂L/∂K‖_F has mean {mean} ± {se} over draws, yet in a single draw the two norms differ by {rel} on average.",
        "zh": "{scale}：‖∂L/∂Q‖_F / ‖∂L/∂K‖_F 在各次抽样上的均值为 {mean} ± {se}，但在单次抽样中两者平均相差 {rel}。",
    },
    "qk.notice": {
        "en": "The scores are symmetric in their roles only on paper. The softmax picks a direction (rows sum to one, columns do not); tying W_K = W_Q makes "
              "the score matrix symmetric and every token its own best match; and the gradient reaching Q differs from the one reaching K in every draw and in "
              "how it is spread over tokens — even though, at initialisation, their overall sizes are equal on average.",
        "zh": "分数在角色上的对称只存在于纸面上。softmax 选定了方向（行和为 1，列和不是）；共享 W_K = W_Q 使分数矩阵对称，每个词都成了自己的最佳匹配；"
              "传到 Q 的梯度与传到 K 的梯度在每次抽样中都不同，在各词上的分布也不同——尽管在初始化时，二者的整体大小平均而言相等。",
    },
}
