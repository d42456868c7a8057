"""The peer-instruction loop of a live class on the lesson page under AppTest, in English and
Chinese (pages/ui/live/class_vote.py, pages/ui/live/class_end.py): the first vote shows the projector only how
many answered, *Show answers* and *Close vote* draw the room's answers, a closed vote refuses a phone
with the room's message; *Vote again* puts the discussion's prompt and countdown on the projector,
computed from the room's start (a fresh teacher session shows the same time); the teacher's hint from
the share correct is the teacher's alone and can be switched off; a phone's confidence splits the
bars once the vote closes; *Our votes* shows each step's share correct per vote, as the CSV does."""

from __future__ import annotations

import csv
import io
import json

import pyarrow as pa
import pytest
from test_app_class import (  # noqa: F401  (fresh_rooms: the fixture, shared)
    browser_keeps,
    fresh_rooms,
    join,
    markdowns,
    pick,
    ran,
    start_class,
    text,
)

from pages.ui.i18n import text_for
from pages.ui.live import class_answers, class_vote
from server.room_state import DISCUSS_S
from server.shared import ROOMS

LANGS = ["en", "zh"]
HINTS = ("class.hint.reteach", "class.hint.discuss", "class.hint.reveal")


class Clock:
    def __init__(self) -> None:
        self.now = 10_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch) -> Clock:
    c = Clock()
    monkeypatch.setattr(ROOMS, "clock", c)
    return c


def charts_titled(at, title: str) -> list[dict]:
    """The charts on the page whose text alternative starts with `title`: their Vega-Lite specs,
    each with its datasets' rows under "rows"."""
    out = []
    for chart in at.get("vega_lite_chart"):  # the main area's and a dialog's
        spec = json.loads(chart.proto.spec)
        if spec.get("description", "").startswith(title):
            spec["rows"] = [r for ds in chart.proto.datasets
                            for r in pa.ipc.open_stream(ds.data.data).read_pandas().to_dict("records")]
            out.append(spec)
    return out


def class_charts(at, lang: str) -> list[dict]:
    """The room's answers charts on the page, told by their text alternative."""
    return charts_titled(at, text_for("class.hist.title", lang))


def everything(at) -> str:
    """All the text a page shows (its elements' values, captions, alerts, html)."""
    parts = [str(getattr(e, "value", "")) for kind in ("markdown", "caption", "info", "success", "warning",
                                                       "error", "toast") for e in getattr(at, kind)]
    parts += [h.proto.body for h in at.get("html")]
    parts += [json.loads(c.proto.spec).get("description", "") for c in at.main.get("vega_lite_chart")]
    return "\n".join(parts)


def question_of(code: str):
    return ROOMS.get(code)[0].question


def conf_pills(at, code: str, step: int, vote: int):
    found = [p for p in at.pills if p.key == f"class_conf_{code}_{step}_{vote}"]
    assert len(found) == 1, [p.key for p in at.pills]
    return found[0]


@pytest.mark.parametrize("lang", LANGS)
def test_the_first_vote_shows_only_the_count_until_shown_and_a_closed_vote_refuses_a_phone(lang):
    teacher, code, _ = start_class(lang)
    first, late = join(code, lang), join(code, lang)
    ran(pick(first).set_value(1).run())
    ran(teacher.run())
    assert any(m.startswith(f"**{text('class.answered', lang, n=1, joined=2)}**") for m in markdowns(teacher))
    assert not class_charts(teacher, lang), "no histogram during the vote"
    assert text("class.hidden", lang) in [c.value for c in teacher.caption]

    ran(teacher.button(key="class_show").click().run())
    charts = class_charts(teacher, lang)
    assert len(charts) == 1 and teacher.button(key="class_show").disabled
    assert not teacher.button(key="class_close").disabled
    ran(late.run())
    assert not pick(late).disabled  # shown, still open

    ran(teacher.button(key="class_close").click().run())
    assert teacher.button(key="class_close").disabled and len(class_charts(teacher, lang)) == 1
    ran(pick(late).set_value(2).run())  # the phone had not redrawn yet: the server refuses
    assert [w.value for w in late.warning] == [text("class.status.closed", lang)]
    assert ROOMS.answer_of(code, late.query_params["me"], 1, 1) is None
    assert pick(late).value is None
    ran(first.run())
    labels = pick(first).options
    assert pick(first).disabled
    closed = [i.value for i in first.info]
    yours = text("class.student.yours", lang, label=labels[1])
    assert closed == [f"{text('class.student.closed', lang)}  \n{yours}"]


@pytest.mark.parametrize("lang", LANGS)
def test_vote_again_puts_the_discussion_and_its_countdown_on_the_projector(lang, clock):
    teacher, code, _ = start_class(lang)
    phone = join(code, lang)
    ran(teacher.button(key="class_vote2").click().run())
    title = f"#### {text('class.discuss.title', lang)}"

    def left(at) -> str:
        assert title in markdowns(at)
        bars = at.get("progress")
        assert len(bars) == 1
        return bars[0].text

    assert left(teacher) == f"**{text('class.discuss.left', lang, time='2:00')}**"
    clock.now += 50
    ran(teacher.run())
    assert left(teacher) == f"**{text('class.discuss.left', lang, time='1:10')}**"
    ran(teacher.button(key="class_discuss_more").click().run())
    assert ROOMS.get(code)[0].discuss_s == DISCUSS_S + class_vote.DISCUSS_STEP_S
    assert left(teacher) == f"**{text('class.discuss.left', lang, time='1:40')}**"
    browser_keeps(teacher)
    again = join(code, lang)  # the teacher reloads (its browser's cookie): the same time left, from the room
    assert left(again) == f"**{text('class.discuss.left', lang, time='1:40')}**"
    ran(phone.run())
    assert text("class.student.vote2", lang) in [i.value for i in phone.info]
    assert not phone.get("progress") and title not in markdowns(phone)  # the countdown is the projector's
    clock.now += 200
    ran(teacher.run())
    assert left(teacher) == f"**{text('class.discuss.over', lang)}**"
    ran(teacher.button(key="class_close").click().run())
    assert title not in markdowns(teacher) and not teacher.get("progress")


@pytest.mark.parametrize("lang", LANGS)
def test_the_hint_is_the_teachers_alone_and_can_be_switched_off(lang):
    teacher, code, _ = start_class(lang)
    phones = [join(code, lang) for _ in range(3)]
    q = question_of(code)
    right, wrong = q.correct[0], next(i for i in range(len(q.choices)) if i not in q.correct)
    for phone, choice in zip(phones, (right, wrong, wrong), strict=True):  # 1 of 3: 33 %
        ran(pick(phone).set_value(choice).run())
    ran(teacher.run())
    hint = text("class.hint.discuss", lang, share="33 %", vote=text("class.vote.1", lang))
    assert hint in [i.value for i in teacher.info]
    for phone in phones:
        ran(phone.run())
        shown = everything(phone)
        assert not any(text_for(k, lang).split("{")[0] in shown for k in HINTS), "a phone shows a hint"
    ran(teacher.toggle(key=class_vote.HINT_KEY).set_value(False).run())
    assert hint not in [i.value for i in teacher.info]
    ran(teacher.button(key="lesson_next").click().run())  # the switch stays off on the next step
    assert teacher.toggle(key=class_vote.HINT_KEY).value is False
    browser_keeps(teacher)
    projector = join(code, lang, lesson_projector="1")  # the teacher's browser, on the projector
    assert projector.toggle(key=class_vote.HINT_KEY).value is False  # off by default on a projector


@pytest.mark.parametrize("lang", LANGS)
def test_a_phones_confidence_splits_the_bars_once_the_vote_closes(lang):
    teacher, code, _ = start_class(lang)
    sure, guess, plain = (join(code, lang) for _ in range(3))
    for phone, choice in ((sure, 0), (guess, 0), (plain, 1)):
        ran(pick(phone).set_value(choice).run())
    assert conf_pills(sure, code, 1, 1).options == [text("class.conf.sure", lang),
                                                    text("class.conf.guessing", lang)]
    ran(conf_pills(sure, code, 1, 1).set_value("sure").run())
    ran(conf_pills(guess, code, 1, 1).set_value("guessing").run())
    assert not sure.warning and not guess.warning
    assert ROOMS.tally(ROOMS.get(code)[0]).confidence[(1, 1)][:2] == [(1, 1), (0, 0)]
    ran(teacher.button(key="class_show").click().run())
    (spec,) = class_charts(teacher, lang)
    assert "strokeDash" not in json.dumps(spec), "an open vote's bars are not split"
    ran(teacher.button(key="class_close").click().run())
    (spec,) = class_charts(teacher, lang)
    labels = pick(plain).options  # as this language labels them
    split = text("class.hist.item_split", lang, label=labels[0], n=2, sure=1, guessing=1)
    assert split in spec["description"]  # the text alternative gives the split
    segments = {(r["part"], r["count"]) for r in spec["rows"] if "part" in r and r["answer"] == labels[0]}
    parts = [text(f"class.hist.part.{p}", lang) for p in ("sure", "guessing", "unrated")]
    assert segments == {(parts[0], 1), (parts[1], 1), (parts[2], 0)}
    assert "strokeDash" in json.dumps(spec), "the segments differ by outline, not colour alone"
    both = text("class.hist.tail.both", lang, sure=1, guessing=1)
    rated = text("class.hist.rated", lang, label=labels[0], tail=both)
    words = text("class.hist.rated_line", lang, vote=text("class.vote.1", lang), items=rated)
    assert f"{text('class.hist.key', lang)}  \n{words}" in [c.value for c in teacher.caption], "in words"
    ran(sure.run())
    assert not [p for p in sure.pills if p.key.startswith("class_conf_")], "no confidence once closed"


@pytest.mark.parametrize("lang", LANGS)
def test_our_votes_shows_each_steps_share_correct_per_vote_as_the_csv_does(lang):
    teacher, code, _ = start_class(lang)
    phones = [join(code, lang) for _ in range(4)]
    q = question_of(code)
    right, wrong = q.correct[0], next(i for i in range(len(q.choices)) if i not in q.correct)
    for phone, choice in zip(phones, (right, wrong, wrong, wrong), strict=True):  # 25 %
        ran(pick(phone).set_value(choice).run())
    ran(teacher.button(key="class_close").click().run())
    ran(teacher.button(key="class_vote2").click().run())
    for phone, choice in zip(phones, (right, right, right, wrong), strict=True):  # 75 %
        ran(phone.run())
        ran(pick(phone).set_value(choice).run())
    ran(teacher.button(key="class_votes").click().run())
    assert text("class.our_votes.lead", lang) in markdowns(teacher)
    (slide,) = charts_titled(teacher, text("class.our_votes.title_text", lang))
    drawn = {(r["vote"], r["correct_pct"], r["answers"]) for r in slide["rows"] if "correct_pct" in r}
    assert drawn == {(text("class.vote.1", lang), 25.0, 4), (text("class.vote.2", lang), 75.0, 4)}
    for vote, pct in ((1, "25 %"), (2, "75 %")):
        said = text("class.our_votes.item", lang, vote=text(f"class.vote.{vote}", lang), pct=pct, n=4)
        assert said in slide["description"], slide["description"]
    room = ROOMS.get(code)[0]
    rows = list(csv.DictReader(io.StringIO(class_answers.summary_csv(room, ROOMS.tally(room)))))
    shares = {(r["share_correct_1st"], r["share_correct_2nd"]) for r in rows if r["step"] == "1"}
    assert shares == {("0.25", "0.75")}
