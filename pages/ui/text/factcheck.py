"""Fact-check page strings. The questions come from core.factcheck (one source for the CLI and the app);
the per-card explanations live in factcheck_cards.py."""
# ruff: noqa: E501  (prose: translation lines are as long as their sentences)

from core.factcheck import CLAIMS, NOTES

TEXT: dict[str, dict[str, str]] = {
    "factcheck.nav": {"en": "Fact-check the notes", "zh": "核查笔记中的说法"},
    "factcheck.title": {"en": "Fact-check: the notes' claims, measured live", "zh": "事实核查：笔记中的说法，实时测量"},
    "factcheck.intro": {
        "en": "Every checkable statement of the five notes is a card: a question, the notes' answer quoted in Chinese with an English rendering, "
              "the experiment that tests it under the note's own assumptions, claimed next to measured with the sampling error, and a verdict "
              "computed from those numbers. What no measurement or source can settle is listed below the cards, with the reason. "
              "As a drill, answer each card before its measurement is revealed; your score stays for this session. Nothing is measured until you ask.",
        "zh": "五篇笔记中每个可核查的说法都是一张卡片：一个问题、笔记的回答（中文原文与英文译文）、在该笔记自身假设下检验它的实验、"
              "声称值与测量值及其抽样误差的对照，以及由这些数字算出的结论。无法用测量或文献判定的说法列在卡片下方，并说明原因。"
              "作为练习：先回答每张卡片，再揭晓测量结果；本次会话中会记录你的得分。在你提出之前，不会进行任何测量。",
    },
    "factcheck.notes_are": {
        "en": "**The notes** are five Chinese blog posts and interview notes, each explaining why attention divides by √d_k — the texts this app grew from; "
              "below, their statements are quoted and re-measured.",
        "zh": "**笔记**是指五篇中文博客文章与面试笔记，每篇都解释注意力为什么要除以 √d_k——本应用正是从它们出发的；下面引用其中的说法并重新测量。",
    },
    "factcheck.notes_list.title": {"en": "The five notes", "zh": "五篇笔记"},
    "factcheck.notes_list.line": {
        "en": "- **{note}** — “{zh}” ({en}): {claims} checkable statements, {unchecked} that cannot be checked",
        "zh": "- **{note}**——“{zh}”（{en}）：{claims} 个可核查的说法，{unchecked} 个无法核查",
    },
    "factcheck.notes_list.caption": {
        "en": "The notes are kept here as text copies of their web pages, without the pages' addresses, so each is named by its title. "
              "A quote is shown with its maths cleaned up; \"Verbatim\" on a card shows the copy's text exactly.",
        "zh": "这些笔记以网页文本副本的形式保存在这里，没有保留网页地址，所以每篇以标题称呼。引文显示时整理了其中的公式；卡片上的“逐字原文”给出副本的原样文本。",
    },
    "factcheck.verbatim": {"en": "Verbatim", "zh": "逐字原文"},
    "factcheck.verbatim.help": {
        "en": "The quote exactly as copied from the note's web page, including what copying rendered maths leaves behind (\"d k d_k dk\": the drawn glyphs, the TeX source, the accessible text).",
        "zh": "与从笔记网页复制下来的内容完全一致，包括复制已渲染公式时留下的内容（“d k d_k dk”：显示的字形、TeX 源码、无障碍文本）。",
    },
    "factcheck.verbatim.caption": {
        "en": "As copied from the note, character for character. Above, the same text with its maths shown as maths: a formula the copy holds three times over "
              "(the drawn glyphs, the TeX source, the accessible text) once, and TeX the page would show as code (between `\\( \\)` or alone on a line) rendered.",
        "zh": "与笔记逐字一致。上方是同一段文字，其中的公式以公式形式呈现：副本中重复了三遍的公式（显示的字形、TeX 源码、无障碍文本）只显示一次，"
              "本会显示为源码的 TeX（写在 `\\( \\)` 之间或单独成行）则渲染出来。",
    },
    "factcheck.engineers.title": {"en": "For engineers: the same check from the command line", "zh": "给工程师：在命令行中运行同样的核查"},
    "factcheck.engineers.text": {
        "en": "Every card's measurement and the per-note counts come from the project's Python package; this command prints them for the note shown, as JSON:",
        "zh": "每张卡片的测量与各笔记的统计都来自本项目的 Python 包；以下命令以 JSON 格式输出当前笔记的结果：",
    },
    "factcheck.rules.title": {"en": "How a verdict is computed", "zh": "结论如何计算"},
    "factcheck.rules": {
        "en": "A measured value m agrees with a claimed value c when |m − c| ≤ tolerance (or m ≤ c − tolerance for \"below\", m ≥ c + tolerance for \"above\"). "
              "The tolerance is {z} standard errors of the measurement, plus half a unit in the last digit the notes printed (a printed 2.1 stands for 2.05 … 2.15), "
              "plus a stated slack where a claim is a shape or a word rather than a number: ±{slope} in a log-log slope, ±{exponent} in a cost exponent, "
              "{uniform_pct} of ln n for \"uniform\", a time ratio of at least 1 + {time} for \"slower\", at least {orders}× for \"orders of magnitude\", "
              "under {negligible} of the forward's time for \"almost nothing\", excess kurtosis within {normal_kurtosis} and the mass beyond 3σ within "
              "{normal_tail} (relative) of a normal's for \"is N(0, 1)\", at most {few_keys} effective keys exp(H) for \"a few positions\", under {vanish} of the "
              "scaled value for a gradient \"≈ 0\", within {near} for a weight \"≈ 1\" or \"≈ 0\", neighbours within {stable} (relative) for \"stable\", "
              "in at least {may} of draws for \"may contain\", at least {many} for \"many\", under {tiny} (relative) for \"tiny\", {drop} of accuracy for a "
              "\"significant drop\", {rounding} (relative) for a formula against autograd. A printed single run is plausible when it lies inside the central "
              "{plausible_pct} of what that run can print. **Holds**: every point agrees. **Partly holds**: for a claim that is one statement, at least "
              "{partly_pct} of its points agree; for a claim made of several statements, at least one statement agrees in full. Otherwise **does not hold**. "
              "Literature cards take their verdict from the sources they cite.",
        "zh": "当 |m − c| ≤ 容差时（“低于”要求 m ≤ c − 容差，“高于”要求 m ≥ c + 容差），测量值 m 与声称值 c 相符。容差为测量的 {z} 个标准误，"
              "加上笔记所印数字末位的半个单位（印出的 2.1 代表 2.05 … 2.15），若说法描述的是形状或用词而非数值，再加上明确给出的余量：对数-对数斜率 ±{slope}，"
              "代价指数 ±{exponent}，“均匀”指熵在 ln n 的 {uniform_pct} 以内，“更慢”指耗时比至少为 1 + {time}，“快几个数量级”指至少 {orders} 倍，"
              "“几乎没有开销”指不到前向计算时间的 {negligible}，“服从 N(0, 1)”指超额峰度在 {normal_kurtosis} 以内且 3σ 以外的概率与正态分布相差不超过 {normal_tail}（相对），"
              "“少数几个位置”指有效键数 exp(H) 至多为 {few_keys}，梯度“≈ 0”指不到缩放后数值的 {vanish}，权重“≈ 1”或“≈ 0”指相差在 {near} 以内，"
              "“保持稳定”指相邻值相差在 {stable}（相对）以内，“可能包含”指至少 {may} 的抽样中出现，“很多”指至少 {many}，“微小”指小于 {tiny}（相对），"
              "“显著下降”指准确率下降 {drop}，公式与自动求导相符指相对差在 {rounding} 以内。笔记印出的单次运行结果，若落在该次运行可能输出的中间 {plausible_pct} 之内，"
              "即视为可能出现。**成立**：所有点都相符。**部分成立**：若说法只有一个论断，至少 {partly_pct} 的点相符；若说法由几个论断组成，至少有一个论断完全相符。"
              "否则**不成立**。文献类卡片的结论取自所引文献。",
    },
    "factcheck.note": {"en": "Note", "zh": "笔记"},
    "factcheck.note.title": {"en": "“{zh}” — {en} (`{file}`)", "zh": "“{zh}”——{en}（`{file}`）"},
    "factcheck.source": {"en": "From the notes: `{file}`", "zh": "出自笔记：`{file}`"},
    "factcheck.original": {"en": "The notes (original Chinese)", "zh": "笔记原文（中文）"},
    "factcheck.english": {"en": "English rendering", "zh": "英文译文"},
    "factcheck.also": {"en": "The note says it again:", "zh": "笔记中的另一处说法："},
    "factcheck.measured_title": {"en": "Claimed vs measured", "zh": "声称值与测量值"},
    "factcheck.point": {"en": "{mark} {quantity} ({where}): measured {m} {err}; agrees when {rule}",
                        "zh": "{mark} {quantity}（{where}）：测量值 {m} {err}；相符条件 {rule}"},
    "factcheck.point.nowhere": {"en": "{mark} {quantity}: measured {m} {err}; agrees when {rule}",
                                "zh": "{mark} {quantity}：测量值 {m} {err}；相符条件 {rule}"},
    "factcheck.rule.eq": {"en": "|m − {c}| ≤ {tol}", "zh": "|m − {c}| ≤ {tol}"},
    "factcheck.rule.below": {"en": "m ≤ {c} − {tol}", "zh": "m ≤ {c} − {tol}"},
    "factcheck.rule.above": {"en": "m ≥ {c} + {tol}", "zh": "m ≥ {c} + {tol}"},
    "factcheck.rule.within": {"en": "the printed {c} lies among 99 % of runs, [{lo}, {hi}]", "zh": "印出的 {c} 落在 99% 运行结果的范围 [{lo}, {hi}] 内"},
    "factcheck.exact": {"en": "(exact)", "zh": "（精确计算）"},
    "factcheck.yes": {"en": "yes", "zh": "是"},
    "factcheck.no": {"en": "no", "zh": "否"},
    "factcheck.verdict.holds": {"en": "Holds", "zh": "成立"},
    "factcheck.verdict.partly": {"en": "Partly holds", "zh": "部分成立"},
    "factcheck.verdict.fails": {"en": "Does not hold", "zh": "不成立"},
    "factcheck.verdict.measured": {"en": "Verdict (computed from the measurement): **{verdict}**", "zh": "结论（由测量计算得出）：**{verdict}**"},
    "factcheck.verdict.literature": {
        "en": "A matter of literature, not measurement — verdict from the sources below: **{verdict}**",
        "zh": "这是文献问题，无法靠测量判定——依据下列文献的结论：**{verdict}**",
    },
    "factcheck.sources": {"en": "Sources", "zh": "文献来源"},
    "factcheck.experiment": {"en": "Experiment: `{call}` with {params}, seed {seed}.", "zh": "实验：`{call}`，参数 {params}，随机种子 {seed}。"},
    "factcheck.summary.title": {"en": "Per note: statements found, checked and judged", "zh": "各笔记：找到、核查与判定的说法"},
    "factcheck.summary.caption": {
        "en": "Verdicts of the cards measured in this session (seed {seed}); literature verdicts need no measurement.",
        "zh": "本次会话中已测量卡片的结论（随机种子 {seed}）；文献类结论无需测量。",
    },
    "factcheck.summary.line": {
        "en": "**{note}**: {found} statements — {checked} checked ({measured} by measurement, {literature} by literature), {unchecked} not checkable · "
              "verdicts: {holds} hold, {partly} partly, {fails} do not hold, {pending} not yet measured",
        "zh": "**{note}**：{found} 个说法——核查 {checked} 个（测量 {measured} 个，文献 {literature} 个），无法核查 {unchecked} 个 · "
              "结论：成立 {holds}，部分成立 {partly}，不成立 {fails}，尚未测量 {pending}",
    },
    "factcheck.summary.measure_all": {"en": "Measure every card of note {note}", "zh": "测量笔记 {note} 的全部卡片"},
    "factcheck.unchecked.title": {"en": "Not checkable here, and why", "zh": "此处无法核查的说法及原因"},
    "factcheck.unchecked.why": {"en": "**Why not:** {why}", "zh": "**原因**：{why}"},
    "factcheck.drill.mode": {"en": "Drill: answer before the measurement is revealed", "zh": "练习模式：先作答，再揭晓测量结果"},
    "factcheck.drill.your_answer": {"en": "Your answer first", "zh": "请先作答"},
    "factcheck.drill.verdict": {"en": "Does the notes' answer hold?", "zh": "笔记的回答成立吗？"},
    "factcheck.drill.submit": {"en": "Answer and measure", "zh": "提交并测量"},
    "factcheck.drill.skip": {"en": "Just show me", "zh": "直接看结果"},
    "factcheck.drill.pick": {"en": "Pick a verdict first (or choose “Just show me”).", "zh": "请先选择一个结论（或选择“直接看结果”）。"},
    "factcheck.drill.score": {"en": "**Drill score: {right} of {asked}** ({cards} cards answered)", "zh": "**练习得分：{asked} 题答对 {right} 题**（已作答 {cards} 张卡片）"},
    "factcheck.drill.reset": {"en": "Reset score", "zh": "重置得分"},
    "factcheck.drill.verdict_fb": {"en": "Your verdict: {yours} {mark}.", "zh": "你的结论：{yours} {mark}。"},
    "factcheck.drill.number_fb": {"en": "Your number: {yours}; measured {truth} {mark} (right when {tol}).", "zh": "你的数值：{yours}；测量值 {truth} {mark}（{tol}即算答对）。"},
    "factcheck.drill.tol_rel": {"en": "within {pct} %", "zh": "相差在 {pct}% 以内"},
    "factcheck.drill.tol_factor": {"en": "within a factor {f}", "zh": "相差在 {f} 倍以内"},
    "factcheck.grad.chart": {"en": "Median ‖∂L/∂q‖, unscaled, against the claimed ∝ 1/d_k", "zh": "未缩放时 ‖∂L/∂q‖ 的中位数与声称的 ∝ 1/d_k 对比"},
    "factcheck.grad.y": {"en": "median ‖∂L/∂q‖ (log)", "zh": "‖∂L/∂q‖ 中位数（对数）"},
    "factcheck.grad.series": {"en": "series", "zh": "序列"},
    "factcheck.grad.measured": {"en": "measured (unscaled)", "zh": "测量值（未缩放）"},
    "factcheck.grad.claimed": {"en": "claimed ∝ 1/d_k", "zh": "声称 ∝ 1/d_k"},
    "factcheck.grad.scaled": {"en": "measured (÷√d_k)", "zh": "测量值（÷√d_k）"},
    "factcheck.qk.chart": {"en": "Training with W_K = W_Q at step 0 and with independent ones", "zh": "第 0 步令 W_K = W_Q 与独立初始化的训练对比"},
    "factcheck.qk.step": {"en": "training step", "zh": "训练步数"},
    "factcheck.qk.rel": {"en": "‖W_Q − W_K‖ / mean ‖W‖", "zh": "‖W_Q − W_K‖ / 平均 ‖W‖"},
    "factcheck.qk.loss": {"en": "loss", "zh": "损失"},
    "factcheck.qk.task.retrieval": {"en": "query = key (symmetric)", "zh": "查询 = 键（对称）"},
    "factcheck.qk.task.successor": {"en": "query → another key (directed)", "zh": "查询 → 另一个键（有向）"},
    "factcheck.qk.init.tied": {"en": "W_K = W_Q at step 0", "zh": "第 0 步 W_K = W_Q"},
    "factcheck.qk.init.independent": {"en": "independent", "zh": "独立初始化"},
    "factcheck.notice": {
        "en": "The notes' mechanisms are right — the variance argument, and saturation starving the gradient — but many of their numbers are not what "
              "the stated code produces, several statements hold only in a regime the note does not name (normality at large d_k, ±3 for one score, "
              "fp16 overflow only without max-subtraction), and \"optimal\" overstates a variance-preserving choice made at initialisation.",
        "zh": "笔记中的机制是对的——方差论证，以及饱和导致梯度枯竭——但许多数字并不是所给代码能跑出的结果，有几条说法只在笔记没有点明的条件下成立"
              "（大 d_k 时才接近正态，±3 只适用于单个分数，fp16 溢出只发生在不减最大值的朴素 softmax 中），而“最优”夸大了一个仅在初始化时保持方差的选择。",
    },
}

for _n in NOTES:
    _k = _n.file[:3]
    TEXT[f"factcheck.note.{_k}"] = {"en": f"Note {_k}", "zh": f"笔记 {_k}"}

for _c in CLAIMS:
    TEXT[f"factcheck.{_c.id}.question"] = {"en": _c.question_en, "zh": _c.question_zh}
