"""The live class's charts (pages/ui/live/class_answers.py) built directly: the room's answers with and
without the confidence split, and *Our votes* — valid Vega-Lite at the container's width, their data
and text alternatives computed from the counts, the split told by outline as well as fill, and the
split in words under the chart."""

from __future__ import annotations

import json

import pytest
from altair.utils.schemapi import validate_jsonschema
from altair.vegalite.v6.schema import core as vl_schema

from pages.ui.i18n import text_for
from pages.ui.live import class_answers

LABELS = ("below 0.25", "0.25 to 0.5", "above 0.5")
VOTES = ((3, 1, 0), (1, 3, 0))
SPLIT = (((2, 1), (0, 0), (0, 0)), ((0, 0), (1, 1), (0, 0)))
SCHEMA = vl_schema.load_schema()


def text(key: str, **fmt: object) -> str:
    return text_for(key, "en").format(**fmt)


def checked(fig) -> dict:
    """The figure's one view, checked against the Vega-Lite schema (its datasets, Arrow bytes the
    page sends beside the spec, left out)."""
    (view,) = fig.views
    spec = {k: v for k, v in view.items() if k != "datasets"}
    assert validate_jsonschema(spec, SCHEMA, raise_error=False) is None
    assert "width" not in spec and spec["autosize"]["type"] == "fit-x"
    return spec


@pytest.mark.parametrize("split", [None, SPLIT])
def test_the_answers_chart_is_valid_vega_lite_with_its_counts_in_its_text_alternative(split):
    fig = class_answers.answers_chart.__wrapped__(LABELS, VOTES, (1,), "0.31", True, split)
    checked(fig)
    vote2 = text("class.vote.2")
    assert text("class.hist.measured", label=LABELS[1], value="0.31") in fig.description
    if split is None:
        assert text("class.hist.item", label=LABELS[0], n=3) in fig.description
        assert list(fig.data.columns) == ["answer", "vote", "count"]
    else:
        said = text("class.hist.item_split", label=text("class.hist.measured", label=LABELS[1], value="0.31"),
                    n=3, sure=1, guessing=1)
        assert f"{vote2}: " in fig.description and said in fig.description
        assert {"sure", "guessing"} <= set(fig.data.columns)
        split_drawn = fig.data[["sure", "guessing"]].to_numpy().tolist()
        assert split_drawn == [[2, 1], [0, 0], [0, 0], [0, 0], [1, 1], [0, 0]]


def test_the_split_bars_segments_add_up_to_each_count_and_differ_by_outline():
    fig = class_answers.answers_chart.__wrapped__(LABELS, VOTES, (), "", False, SPLIT)
    spec = json.dumps(checked(fig))
    assert '"strokeDash"' in spec and '"fill"' in spec
    bars = fig.chart.layer[0].data
    totals = bars.groupby(["answer", "vote"], sort=False)["count"].sum().tolist()
    assert totals == [3, 1, 0, 1, 3, 0]
    assert (bars["count"] >= 0).all()
    unrated = bars[bars["part"] == text("class.hist.part.unrated")]["count"].tolist()
    assert unrated == [0, 1, 0, 1, 1, 0]  # the count less the sure and guessing


def test_the_split_in_words_names_only_the_answers_someone_rated():
    lines = class_answers.split_lines(LABELS, SPLIT)
    first = text("class.hist.rated", label=LABELS[0],
                 tail=text("class.hist.tail.both", sure=2, guessing=1))
    second = text("class.hist.rated", label=LABELS[1], tail=text("class.hist.tail.both", sure=1, guessing=1))
    assert lines == [text("class.hist.rated_line", vote=text("class.vote.1"), items=first),
                     text("class.hist.rated_line", vote=text("class.vote.2"), items=second)]
    only_sure = class_answers.split_lines(LABELS, (((0, 0), (2, 0), (0, 0)),))
    assert only_sure == [text("class.hist.rated_line", vote=text("class.vote.1"),
                              items=text("class.hist.rated", label=LABELS[1],
                                         tail=text("class.hist.tail.sure", sure=2)))]
    assert class_answers.split_lines(LABELS, (((0, 0),) * 3,)) == []


def test_our_votes_chart_draws_each_vote_held_with_its_percentage():
    steps = (("1. Variance", 0.4, 5, 0.75, 4), ("2. Double", 0.5, 2, None, 0))
    fig = class_answers.our_votes_chart.__wrapped__(steps, True)
    checked(fig)
    rows = fig.data.to_dict("records")
    assert [(r["step"], r["vote"], r["correct_pct"], r["answers"]) for r in rows] == [
        ("1. Variance", text("class.vote.1"), 40.0, 5), ("1. Variance", text("class.vote.2"), 75.0, 4),
        ("2. Double", text("class.vote.1"), 50.0, 2)]
    for said in (text("class.our_votes.item", vote=text("class.vote.2"), pct="75 %", n=4),
                 text("class.our_votes.not_held", vote=text("class.vote.2"))):
        assert said in fig.description
    assert fig.description.startswith(text("class.our_votes.title_text"))
