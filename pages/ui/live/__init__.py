"""A live class on the lesson page. Who is who (the teacher, a phone, which room; the teacher's secret
in the browser's cookie) is who.py and teacher_key.py; the rest draws: the bars and notices
(live_class.py), the question's loop (class_vote.py), its charts (class_answers.py), a phone's page
(class_phone.py, class_follow.py, wake.py), the teacher's controls (class_teacher.py, class_end.py)
and the projector's style (classroom.py). docs/live-class.md tells how a class runs.
"""
