"""Live class strings: starting and joining a room, the teacher's bar and live answers, the students'
bar, and every refusal the room can answer."""
# ruff: noqa: E501  (prose: translation lines are as long as their sentences)

TEXT: dict[str, dict[str, str]] = {
    # start and join
    "class.sidebar": {"en": "Live class", "zh": "实时课堂"},
    "class.start": {"en": "Start a class", "zh": "开始课堂"},
    "class.start.help": {
        "en": "Students join on their phones with a short code; they follow your steps, answer each question, and the projector shows the room's answers before you reveal the measurement.",
        "zh": "学生用手机输入短代码加入；他们跟随你的步骤、回答每个问题，在你揭晓测量结果之前，投影上会显示全班的答案。",
    },
    "class.join": {"en": "Join a class", "zh": "加入课堂"},
    "class.join.code": {"en": "Class code", "zh": "课堂代码"},
    "class.join.go": {"en": "Join", "zh": "加入"},
    "class.join.format": {
        "en": "A class code has {n} letters and digits, as shown on the projector. You typed {code}.",
        "zh": "课堂代码由 {n} 个字母和数字组成，与投影上显示的一致。你输入的是 {code}。",
    },
    # statuses
    "class.status.unknown": {
        "en": "There is no class with the code {code}: it may have ended or expired, or the code is mistyped.",
        "zh": "没有代码为 {code} 的课堂：课堂可能已结束或过期，或者代码输错了。",
    },
    "class.status.unavailable": {
        "en": "The class cannot be reached right now. This page tries again by itself.",
        "zh": "暂时无法连接课堂。本页会自动重试。",
    },
    "class.status.full": {
        "en": "This class is full ({n} students). Ask your teacher.",
        "zh": "这个课堂已满（{n} 名学生）。请询问老师。",
    },
    "class.status.rooms_full": {
        "en": "This server already holds {n} classes, its limit. End a class or try again later.",
        "zh": "本服务器已有 {n} 个课堂，已达上限。请结束一个课堂或稍后再试。",
    },
    "class.status.slow": {
        "en": "Too many attempts in a short time. Wait a few seconds and try again.",
        "zh": "短时间内尝试次数过多。请稍等几秒再试。",
    },
    "class.status.denied": {
        "en": "Only the teacher of this class can do that.",
        "zh": "只有本课堂的老师可以这样做。",
    },
    "class.status.closed": {
        "en": "Answers to this question are closed.",
        "zh": "这个问题已停止作答。",
    },
    "class.status.invalid": {"en": "That is not one of this question's answers.", "zh": "这不是本题的选项。"},
    "class.status.not_joined": {
        "en": "This phone is not in the class any more: reload the page to join again.",
        "zh": "这台手机已不在课堂中：请刷新页面重新加入。",
    },
    "class.alone": {"en": "Continue on my own", "zh": "自己继续学习"},
    "class.leave": {"en": "Leave the class", "zh": "退出课堂"},
    # the teacher
    "class.teacher.bar": {"en": "Class {code} · join at {where}", "zh": "课堂 {code} · 加入地址 {where}"},
    "class.teacher.code_alt": {
        "en": "Class code, letter by letter: {spelled}",
        "zh": "课堂代码，逐字：{spelled}",
    },
    "class.joined": {"en": "{n} joined", "zh": "已加入 {n} 人"},
    "class.answered": {
        "en": "{n} of {joined} answered",
        "zh": "{joined} 人中已有 {n} 人作答",
    },
    "class.vote.1": {"en": "1st vote", "zh": "第一次投票"},
    "class.vote.2": {"en": "2nd vote", "zh": "第二次投票"},
    "class.vote.short.1": {"en": "1st", "zh": "一"},
    "class.vote.short.2": {"en": "2nd", "zh": "二"},
    "class.hist.bar": {"en": "{n} · {vote}", "zh": "{n} · {vote}"},
    "class.vote_again": {"en": "Vote again", "zh": "再投一次"},
    "class.vote_again.help": {
        "en": "Put a discussion on the projector (find someone who answered differently) with a countdown, and open a second vote on the same question; both votes are shown once it closes.",
        "zh": "在投影上发起讨论（找一位答案不同的同学）并开始倒计时，同时就同一问题开启第二次投票；投票结束后两次结果都会显示。",
    },
    "class.reveal": {"en": "Reveal to the room", "zh": "向全班揭晓"},
    "class.free": {"en": "Let the room explore", "zh": "让学生自由探索"},
    "class.call_back": {"en": "Call the room back", "zh": "召回全班"},
    "class.free.on": {
        "en": "The room explores freely: phones are not following your steps.",
        "zh": "学生正在自由探索：手机不会跟随你的步骤。",
    },
    "class.teacher_link": {"en": "Teacher link", "zh": "教师链接"},
    "class.teacher_link.title": {"en": "Your teacher link", "zh": "你的教师链接"},
    "class.teacher_link.warning": {
        "en": "Keep this link to yourself: whoever opens it runs the class. Do not show it on the projector. Open it on another device to take the room there: this tab then stops running it. (A reload of this tab needs no link: this browser keeps your right.)",
        "zh": "请勿外传此链接：打开它的人即可主持课堂。不要在投影上显示。在另一台设备上打开它即可在那里接管课堂，此标签页随即停止主持。（刷新本标签页无需链接：本浏览器会保留你的权限。）",
    },
    "class.teacher.taken_back": {"en": "You run class {code} again.", "zh": "你已重新接管课堂 {code}。"},
    "class.teacher.bad_link": {
        "en": "That teacher link does not open class {code}: it was used already, or the class was taken back since. Join as a student, or ask for a new link on the teacher's screen.",
        "zh": "该教师链接无法打开课堂 {code}：链接已被使用过，或课堂之后已被重新接管。可以学生身份加入，或在老师的屏幕上获取新链接。",
    },
    "class.csv": {"en": "Summary (CSV)", "zh": "汇总（CSV）"},
    "class.csv.help": {
        "en": "Per step: how many chose each answer (and how many of them were sure or guessing), whether it is correct, and the share correct of the first and the second vote (the Our votes slide). No names: there are none.",
        "zh": "每一步：每个选项的人数（其中确定和猜测各几人）、是否正确，以及第一次和第二次投票的正确率（即“我们的投票”）。不含姓名：本来就没有。",
    },
    "class.end": {"en": "End the class", "zh": "结束课堂"},
    "class.end.title": {"en": "End the class?", "zh": "结束课堂？"},
    "class.end.what": {
        "en": "The room and every answer are deleted from the server, and the phones are told the class has ended. Download the summary first if you want it; it is also kept in this tab after the end.",
        "zh": "课堂及所有答案将从服务器删除，学生手机会收到课堂已结束的提示。如需汇总请先下载；结束后本标签页中仍会保留一份。",
    },
    "class.end.confirm": {"en": "End and delete", "zh": "结束并删除"},
    "class.ended": {
        "en": "Class {code} has ended: its answers are deleted from the server. Its summary is kept in this tab only.",
        "zh": "课堂 {code} 已结束：答案已从服务器删除。汇总仅保留在本标签页中。",
    },
    "class.ended.dismiss": {"en": "Done", "zh": "完成"},
    "class.fixed": {
        "en": "The room has answered this step with these settings, so they stay fixed for it: {values}.",
        "zh": "全班已按这些设置回答了本步，因此本步设置保持不变：{values}。",
    },
    "class.hist.title": {"en": "The room's answers", "zh": "全班的答案"},
    "class.hist.count": {"en": "Students", "zh": "学生人数"},
    "class.hist.answer": {"en": "Answer", "zh": "答案"},
    "class.hist.measured": {"en": "{label} ✓ measured {value}", "zh": "{label} ✓ 测得 {value}"},
    "class.hist.none": {"en": "No answers yet.", "zh": "还没有人作答。"},
    "class.hist.text": {"en": "{vote}: {counts}.", "zh": "{vote}：{counts}。"},
    "class.hist.item": {"en": "{label} {n}", "zh": "{label} {n} 人"},
    # the students
    "class.student.bar": {"en": "Class {code} · following the teacher", "zh": "课堂 {code} · 跟随老师"},
    "class.student.free": {
        "en": "Class {code} · explore freely: the teacher will call the room back",
        "zh": "课堂 {code} · 自由探索：老师稍后会召回全班",
    },
    "class.student.wait": {"en": "Waiting for the teacher's question…", "zh": "等待老师提问……"},
    "class.student.sent": {
        "en": "Answer sent: {label}. You can change it until the reveal.",
        "zh": "答案已提交：{label}。揭晓之前可以修改。",
    },
    "class.student.vote2": {
        "en": "Second vote: find someone who answered differently, discuss, then answer again.",
        "zh": "第二次投票：找一位答案与你不同的同学讨论，然后再回答一次。",
    },
    "class.student.before": {"en": "Your 1st vote: {label}", "zh": "你的第一次投票：{label}"},
    "class.student.none": {"en": "You did not answer.", "zh": "你没有作答。"},
    "class.announce.step": {
        "en": "The teacher moved to step {k}: {claim}",
        "zh": "老师进入第 {k} 步：{claim}",
    },
    "class.ended.student": {
        "en": "The class has ended. Thank you! You can go on exploring on your own.",
        "zh": "课堂已结束，谢谢参与！你可以自己继续探索。",
    },
    "class.share.caption": {
        "en": "The code joins this class: each phone follows your steps in its own language.",
        "zh": "扫码即加入本课堂：每台手机以各自的语言跟随你的步骤。",
    },
    # the teacher's right, the room's access (server/rooms.py, server/room_auth.py)
    "class.status.stale": {
        "en": "The room changed on another screen of yours: this screen now shows it. Try again if you still want that.",
        "zh": "课堂已在你的另一个屏幕上发生变化：本屏幕现已同步显示。如仍需要，请再操作一次。",
    },
    "class.status.revoked": {
        "en": "This class was taken over on another device with the teacher link: this tab no longer runs it.",
        "zh": "已有人用教师链接在另一台设备上接管了本课堂：此标签页不再主持它。",
    },
    "class.status.removed": {
        "en": "The teacher removed this phone from the class.",
        "zh": "老师已将这台手机移出课堂。",
    },
    "class.status.locked": {
        "en": "This class is locked: everyone has joined. Ask your teacher to unlock it.",
        "zh": "课堂已锁定：所有人都已加入。请老师解锁。",
    },
    "class.status.crowded": {
        "en": "Too many phones from this network have joined this class. Ask your teacher.",
        "zh": "来自同一网络的手机加入本课堂过多。请询问老师。",
    },
    "class.status.passphrase": {
        "en": "That is not this server's passphrase for starting a class.",
        "zh": "这不是本服务器开设课堂的口令。",
    },
    "class.status.bad_link": {
        "en": "That teacher link does not open this class.",
        "zh": "该教师链接无法打开此课堂。",
    },
    "class.status.taking": {
        "en": "Opening the class as its teacher…",
        "zh": "正在以老师身份打开课堂……",
    },
    "class.passphrase": {"en": "Passphrase of this server", "zh": "本服务器的口令"},
    "class.teacher.taking": {
        "en": "Opening class {code} as its teacher…",
        "zh": "正在以老师身份打开课堂 {code}……",
    },
    "class.phone.bad_token": {
        "en": "This link's phone id was not issued by this class: it is ignored, and this phone joins as a new one.",
        "zh": "此链接中的手机编号并非本课堂签发：已忽略，这台手机将作为新手机加入。",
    },
    "class.lock": {"en": "Lock the room", "zh": "锁定课堂"},
    "class.unlock": {"en": "Unlock the room", "zh": "解锁课堂"},
    "class.lock.help": {
        "en": "Once everyone has joined: no new phone can join (the phones in the room stay).",
        "zh": "所有人加入后使用：新手机无法再加入（已在课堂中的手机不受影响）。",
    },
    "class.locked.on": {
        "en": "The room is locked: no new phone can join.",
        "zh": "课堂已锁定：新手机无法加入。",
    },
    "class.phones": {"en": "Phones", "zh": "手机"},
    "class.phones.lead": {
        "en": "Each phone shows its label under the class bar. A removed phone's answers are deleted and it cannot answer again.",
        "zh": "每台手机的标签显示在课堂栏下方。被移除的手机的答案会被删除，且无法再作答。",
    },
    "class.phones.none": {"en": "No phone has joined yet.", "zh": "还没有手机加入。"},
    "class.phone.label": {"en": "Phone **{tag}** · {n} answers", "zh": "手机 **{tag}** · {n} 个答案"},
    "class.phone.remove": {"en": "Remove", "zh": "移除"},
    "class.student.me": {"en": "This phone: {tag}", "zh": "本机：{tag}"},
}
