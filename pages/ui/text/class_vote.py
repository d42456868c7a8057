"""Live class strings of the peer-instruction loop: showing and closing a vote, the discussion's
countdown, the teacher's hint, a student's confidence, and the closing *Our votes* slide."""
# ruff: noqa: E501  (prose: translation lines are as long as their sentences)

TEXT: dict[str, dict[str, str]] = {
    # the teacher's buttons
    "class.show_answers": {"en": "Show answers", "zh": "显示答案"},
    "class.show_answers.help": {
        "en": "Draw the room's answers on the projector. The vote stays open.",
        "zh": "在投影上显示全班的答案。投票仍然开放。",
    },
    "class.close": {"en": "Close vote", "zh": "结束投票"},
    "class.close.help": {
        "en": "The phones take no more answers; the projector draws the room's answers and how sure the room was.",
        "zh": "手机不再接受作答；投影上显示全班的答案以及大家有多确定。",
    },
    "class.hidden": {
        "en": "The answers stay hidden until the teacher shows them or closes the vote.",
        "zh": "在老师显示答案或结束投票之前，答案保持隐藏。",
    },
    # the discussion
    "class.discuss.title": {
        "en": "Discuss: find someone who answered differently, and convince each other.",
        "zh": "讨论：找一位答案与你不同的同学，互相说服。",
    },
    "class.discuss.left": {"en": "{time} left to discuss", "zh": "讨论还剩 {time}"},
    "class.discuss.over": {
        "en": "Time is up: answer the second vote on your phone.",
        "zh": "时间到：请在手机上完成第二次投票。",
    },
    "class.discuss.less": {"en": "−30 s", "zh": "−30 秒"},
    "class.discuss.more": {"en": "+30 s", "zh": "+30 秒"},
    "class.discuss.length": {
        "en": "The discussion lasts {time}; these buttons shorten or lengthen it by 30 seconds.",
        "zh": "讨论时长 {time}；这两个按钮可将其缩短或延长 30 秒。",
    },
    # the teacher's hint
    "class.hint.toggle": {"en": "Hint on this screen", "zh": "在此屏幕显示提示"},
    "class.hint.toggle.help": {
        "en": "The hint is for the teacher: the phones never show it. Turn it off on the projector, and open the Teacher link on your own device to see it there.",
        "zh": "提示只给老师看：学生手机上从不显示。可在投影上关闭它，并在你自己的设备上打开教师链接查看。",
    },
    "class.hint.reteach": {
        "en": "Teacher's hint: {share} of the {vote} correct (under 30 %): explain again before a new vote.",
        "zh": "给老师的提示：{vote}正确率 {share}（低于 30 %）：先重新讲解，再投票。",
    },
    "class.hint.discuss": {
        "en": "Teacher's hint: {share} of the {vote} correct (30–70 %): let them discuss, then vote again.",
        "zh": "给老师的提示：{vote}正确率 {share}（30–70 %）：让大家讨论，然后再投一次。",
    },
    "class.hint.reveal": {
        "en": "Teacher's hint: {share} of the {vote} correct (over 70 %): reveal and move on.",
        "zh": "给老师的提示：{vote}正确率 {share}（高于 70 %）：揭晓答案，继续下一步。",
    },
    # a student's confidence
    "class.conf.label": {"en": "How sure are you? (optional)", "zh": "你有多确定？（可选）"},
    "class.conf.sure": {"en": "Sure", "zh": "确定"},
    "class.conf.guessing": {"en": "Guessing", "zh": "猜的"},
    "class.student.closed": {
        "en": "This vote is closed: no more answers. Wait for the teacher.",
        "zh": "本轮投票已结束，不再接受作答。请等待老师。",
    },
    "class.student.yours": {"en": "Your answer: {label}", "zh": "你的答案：{label}"},
    # the histogram split by confidence
    "class.hist.part.sure": {"en": "sure", "zh": "确定"},
    "class.hist.part.guessing": {"en": "guessing", "zh": "猜测"},
    "class.hist.part.unrated": {"en": "not rated", "zh": "未标注"},
    "class.hist.part": {"en": "Confidence", "zh": "把握"},
    "class.hist.key": {
        "en": "Each bar: filled = sure, dashed outline = guessing, dotted outline = not rated.",
        "zh": "每根柱：实心 = 确定，虚线边框 = 猜测，点线边框 = 未标注。",
    },
    "class.hist.rated": {"en": "{label} — {tail}", "zh": "{label}：{tail}"},
    "class.hist.rated_line": {"en": "{vote}: {items}.", "zh": "{vote}：{items}。"},
    "class.hist.tail.both": {"en": "{sure} sure, {guessing} guessing", "zh": "{sure} 确定，{guessing} 猜测"},
    "class.hist.tail.sure": {"en": "{sure} sure", "zh": "{sure} 确定"},
    "class.hist.tail.guessing": {"en": "{guessing} guessing", "zh": "{guessing} 猜测"},
    "class.hist.item_split": {
        "en": "{label} {n} ({sure} sure, {guessing} guessing)",
        "zh": "{label} {n} 人（{sure} 人确定，{guessing} 人猜测）",
    },
    # Our votes
    "class.our_votes": {"en": "Our votes", "zh": "我们的投票"},
    "class.our_votes.help": {
        "en": "A closing slide for the projector: per step, the share of the room's answers that were correct in the first and in the second vote.",
        "zh": "用于投影的总结页：每一步第一次和第二次投票中答对的比例。",
    },
    "class.our_votes.lead": {
        "en": "Per step: the share of the room's answers that were correct, in the 1st and the 2nd vote.",
        "zh": "每一步：全班答案中答对的比例，分第一次和第二次投票。",
    },
    "class.our_votes.none": {
        "en": "No step has answers yet.",
        "zh": "还没有任何一步有人作答。",
    },
    "class.our_votes.axis": {"en": "Correct (%)", "zh": "正确率（%）"},
    "class.our_votes.step": {"en": "{k}. {name}", "zh": "{k}. {name}"},
    "class.our_votes.bar": {"en": "{vote} {pct}", "zh": "{vote} {pct}"},
    "class.our_votes.item": {
        "en": "{vote} {pct} correct of {n}",
        "zh": "{vote}答对 {pct}（共 {n} 人）",
    },
    "class.our_votes.not_held": {"en": "{vote} not held", "zh": "未进行{vote}"},
    "class.our_votes.text": {"en": "{step}: {votes}.", "zh": "{step}：{votes}。"},
    "class.our_votes.title_text": {"en": "Our votes, correct per step", "zh": "我们的投票：每一步的正确率"},
}
