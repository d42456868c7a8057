"""Strings of the charts' text alternatives and data tables (pages/ui/chart/describe.py, chart_text.py)."""
# ruff: noqa: E501  (prose: translation lines are as long as their sentences)

TEXT: dict[str, dict[str, str]] = {
    "charts.desc.category": {"en": "category", "zh": "类别"},
    "charts.desc.prefix": {"en": "Chart: ", "zh": "图表："},
    "charts.desc.lead": {"en": "{title}. ", "zh": "{title}。"},
    "charts.desc.sep": {"en": "; ", "zh": "；"},
    "charts.desc.named": {"en": "{name} {part}", "zh": "{name} {part}"},
    "charts.desc.sweep": {"en": "{y} against {x} from {x0} to {x1}: {parts}.",
                          "zh": "{y}随{x}（{x0} 到 {x1}）的变化：{parts}。"},
    "charts.desc.rises": {"en": "rises from {a} to {b}", "zh": "从 {a} 升至 {b}"},
    "charts.desc.falls": {"en": "falls from {a} to {b}", "zh": "从 {a} 降至 {b}"},
    "charts.desc.stays": {"en": "stays near {m}", "zh": "保持在 {m} 附近"},
    "charts.desc.peaks": {"en": "rises from {a} to a peak of {m} at {x} = {at}, then falls to {b}",
                          "zh": "从 {a} 升至峰值 {m}（{x} = {at}），再降至 {b}"},
    "charts.desc.dips": {"en": "falls from {a} to a low of {m} at {x} = {at}, then rises to {b}",
                         "zh": "从 {a} 降至最低 {m}（{x} = {at}），再升至 {b}"},
    "charts.desc.one_point": {"en": "is {a} at {x} = {at}", "zh": "在 {x} = {at} 时为 {a}"},
    "charts.desc.scatter": {"en": "{count} points of {y} against {x}: {x} from {x0} to {x1}, {y} from {y0} to {y1}.",
                            "zh": "{count} 个点，{y}对{x}：{x}从 {x0} 到 {x1}，{y}从 {y0} 到 {y1}。"},
    "charts.desc.bars": {"en": "{y} for {count} values of {x} from {x0} to {x1}: {parts}.",
                         "zh": "{y}，{x}取 {count} 个值（{x0} 到 {x1}）：{parts}。"},
    "charts.desc.bars_nominal": {"en": "{y} for {count} categories of {x}: {parts}.",
                                 "zh": "{y}，共 {count} 类{x}：{parts}。"},
    "charts.desc.bar_part": {"en": "from {lo} to {hi}, the highest at {x} = {at}",
                             "zh": "从 {lo} 到 {hi}，最高处在 {x} = {at}"},
    "charts.desc.heatmap": {"en": "{value} over {x} and {y} ({nx} × {ny} cells): from {lo} to {hi}, the largest at {x} = {xa}, {y} = {ya}.",
                            "zh": "{value}在{x}与{y}上的分布（{nx} × {ny} 个格子）：从 {lo} 到 {hi}，最大值位于 {x} = {xa}、{y} = {ya}。"},
    "charts.desc.rows": {"en": "a chart of {rows} data rows (see its table).", "zh": "含 {rows} 行数据的图表（见其数据表）。"},
    # the data tables
    "charts.tables.label": {"en": "Show each chart's data as a table", "zh": "以表格显示每张图的数据"},
    "charts.tables.help": {
        "en": "Under every chart, a table of the numbers it draws, for reading with a keyboard or a screen reader. Stored in the link (tables=1).",
        "zh": "在每张图下方显示其所绘数字的表格，便于用键盘或屏幕阅读器阅读。保存在链接中（tables=1）。",
    },
    "charts.table.caption": {"en": "Data of the chart: {title}", "zh": "图表数据：{title}"},
    "charts.table.matrix_corner": {"en": "{y} \\ {x}", "zh": "{y} \\ {x}"},
    "charts.table.thinned": {
        "en": "One row in {step} of the {total} shown (the first and the last included); the CSV download holds them all.",
        "zh": "共 {total} 行，每 {step} 行显示一行（含首行与末行）；CSV 下载包含全部数据。",
    },
    "charts.table.thinned_matrix": {
        "en": "One row and one column in {step} of the {ny} × {nx} grid shown; the CSV download holds every cell.",
        "zh": "{ny} × {nx} 网格中每 {step} 行、每 {step} 列显示一个；CSV 下载包含全部格子。",
    },
}
