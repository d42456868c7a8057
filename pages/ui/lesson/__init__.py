"""The lesson's own drawing: a step's chart (lesson_chart.py), the lecturer's notes (lesson_notes.py)
and the handout (lesson_handout.py). A live class around it is pages/ui/live/.
"""
