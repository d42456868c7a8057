"""The training page's stability section: its charts (stability_charts.py) and the section as drawn
(stability_view.py).
"""
