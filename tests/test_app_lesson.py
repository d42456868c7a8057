"""The lesson page (pages/lesson.py) under AppTest: every step in both languages asks before it tells,
URL extremes, the predict-then-reveal flow, the plan (?steps=), speaker notes, the handout, the buttons,
the share link and the locked students' view."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit

import pyarrow as pa
import pytest
from conftest import run_page

from core import lesson
from pages.ui.i18n import TABLE, text_for
from pages.ui.user_text import literal
from pages.ui.words import measured_text

CJK = re.compile(r"[\u4e00-\u9fff]")
STEPS = range(1, len(lesson.STEPS) + 1)
SIDEBAR_HIDDEN = '[data-testid="stSidebar"]'  # the locked view's style hides this element


def open_lesson(**query: str):
    return run_page("lesson", query)


def claim(step: int, lang: str) -> str:
    return text_for(f"lesson.{lesson.STEPS[step - 1].name}.claim", lang)


def name(step: int, lang: str) -> str:
    return text_for(f"lesson.{lesson.STEPS[step - 1].name}.name", lang)


def chart_rows(at) -> list[dict]:
    """The rows of the step chart as drawn (the dataset holding x, y, series, stage)."""
    for chart in at.main.get("vega_lite_chart"):
        for ds in chart.proto.datasets:
            df = pa.ipc.open_stream(ds.data.data).read_pandas()
            if "stage" in df:
                return df.to_dict("records")
    raise AssertionError("no step chart on the page")


def expected(at, step: int) -> dict:
    """The step's measurement recomputed from core for the settings the page ran with."""
    s = at.session_state["_ase_run"].settings
    spec = lesson.STEPS[step - 1]
    values = {"dk": s.dk, "n": s.n, "trials": s.trials, "seed": s.seed, "backend": s.backend,
              "dtype": s.dtype}
    if spec.control in ("scale", "rho", "method", "factor"):
        raw = at.session_state[f"lesson_{spec.control}"]
        values[spec.control] = float(raw) if spec.control == "factor" else raw
    return spec.compute(**lesson.step_inputs(spec, values))


def guess_radio(at):
    guesses = [r for r in at.pills if str(r.key).startswith("lesson_guess_")]
    assert len(guesses) == 1, [r.key for r in at.pills]
    return guesses[0]


def styles(at) -> str:
    return " ".join(h.proto.body for h in at.get("html"))


def fragment(key: str, lang: str) -> str:
    """The longest literal part of a translation (between its placeholders): what the page must show
    whenever it shows that text, whatever the numbers."""
    return max(re.split(r"\{[^}]*\}", text_for(key, lang)), key=len).strip()


def page_text(at) -> str:
    """Everything the page shows or carries as text: every element's value, every HTML block (the
    charts' text alternatives and, with tables=1, their tables), every option, every chart's spec and
    data."""
    import json

    parts: list[str] = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "text", "info", "success", "warning",
                 "error", "code", "latex"):
        parts += [str(e.value) for e in at.main.get(kind)]
    parts += [h.proto.body for h in at.main.get("html")]
    for w in [*at.main.pills, *at.main.radio, *at.main.select_slider, *at.main.selectbox, *at.main.slider]:
        parts += [str(o) for o in getattr(w, "options", [])] + [str(w.label)]
    for b in at.main.button:
        parts += [str(b.label), str(b.help or "")]
    for chart in at.main.get("vega_lite_chart"):
        parts.append(chart.proto.spec)
        for ds in chart.proto.datasets:
            parts.append(json.dumps(pa.ipc.open_stream(ds.data.data).read_pandas().to_dict("records"),
                                    ensure_ascii=False))
    said = [c.proto for c in at.main.get("bidi_component") if c.proto.component_name == "ase_announce"]
    parts += [json.loads(c.json)["text"] for c in said]
    return "\n".join(parts)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("step", STEPS)
def test_every_step_asks_before_it_tells_then_tells_at_heading_size(step, lang):
    """Before the reveal: the step's name, a setup, the question and a context-only chart; nowhere on
    the page (text, chart spec and data, its text alternative, the tables=1 table) the claim, the
    take-away or the measured value. After the reveal: the claim as the title, the take-away as a
    heading, the measurement and the whole chart."""
    at = open_lesson(lang=lang, step=str(step), tables="1")
    assert not at.exception, [e.value for e in at.exception]
    assert not at.warning, [w.value for w in at.warning]
    spec = lesson.STEPS[step - 1]
    assert at.title[0].value == name(step, lang)
    data = expected(at, step)
    q = data["question"]
    measured = measured_text(q["value"], q.get("format", "num"))
    takeaway = fragment(f"lesson.{spec.name}.takeaway", lang)
    nocross = fragment("lesson.gradients.takeaway_nocross", lang)
    seen = page_text(at)
    assert claim(step, lang) not in seen, "the claim is told before the reveal"
    assert takeaway not in seen and nocross not in seen, "the take-away is told before the reveal"
    if len(measured) >= 3:  # "0" or "0.0 %" would match any number on the page
        assert measured not in seen, f"the measured {measured} can be read before the reveal"
    assert fragment(f"lesson.{spec.name}.setup", lang) in seen, "the setup is shown"
    radio = guess_radio(at)
    assert len(radio.options) == len(q["choices"]) and radio.value is None, "nothing is guessed for them"
    assert at.button(key="lesson_reveal").disabled, "no reveal before a guess"
    assert text_for("lesson.reveal.hint", lang) in [c.value for c in at.main.caption], "why Reveal is grey"
    assert all(r["stage"] == "context" for r in chart_rows(at)), "the chart shows no answer before the reveal"
    hidden = {r["series"] for r in data["chart"]["rows"] if r["stage"] == "answer"}
    spec_text = " ".join(c.proto.spec for c in at.main.get("vega_lite_chart"))
    for series in hidden:  # not even the legend names the answer's series ("theory: ρ√d_k")
        if f"lesson.series.{series}" in TABLE:
            assert fragment(f"lesson.series.{series}", lang) not in spec_text, series
    assert "<table" in seen, "tables=1 draws the chart's table (and it was searched)"
    if lang == "zh":
        assert CJK.search(at.title[0].value) and CJK.search(radio.options[0] + at.markdown[-1].value)

    guess_radio(at).set_value(q["correct"][0]).run()
    at.button(key="lesson_reveal").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == claim(step, lang), "the claim at title size after the reveal"
    told = [m.value for m in at.main.markdown if m.value.startswith("#### ")]
    key = "lesson.gradients.takeaway_nocross" if spec.name == "gradients" and data["facts"]["cross"] is None \
        else f"lesson.{spec.name}.takeaway"
    assert any(fragment(key, lang) in h for h in told), told
    assert measured in page_text(at)
    assert {r["stage"] for r in chart_rows(at)} == {"context", "answer"}


def test_a_step_whose_measurement_is_a_context_point_is_still_hidden():
    """The pre-reveal chart holds no point of the asked series near the asked setting (the issue:
    measured points on or next to the answer's line)."""
    for step in STEPS:
        at = open_lesson(lang="en", step=str(step))
        answer = {r["series"] for r in expected(at, step)["chart"]["rows"] if r["stage"] == "answer"}
        drawn = {r["series"] for r in chart_rows(at)}
        assert not answer & drawn, (step, answer & drawn)


@pytest.mark.parametrize(("raw", "step", "problem"), [("0", 1, "clamped"), ("999", 9, "clamped"),
                                                      ("abc", 1, "malformed"), ("2.5", 1, "malformed")])
def test_bad_step_in_the_url_is_corrected_with_a_notice(raw, step, problem):
    at = open_lesson(lang="en", step=raw)
    assert not at.exception
    assert at.title[0].value == name(step, "en")
    notice = text_for(f"common.url.{problem}", "en").format(setting=literal(f"step={raw}"), value=step)
    assert notice in [w.value for w in at.warning]
    assert at.session_state["_ase_run"].wants.get("step", "1") == str(step), "the URL is corrected too"


@pytest.mark.parametrize("extreme", [{"dk": "1", "n": "2"}, {"dk": "4096", "n": "1024", "lang": "zh"}],
                         ids=["small", "large"])
@pytest.mark.slow
@pytest.mark.parametrize("step", STEPS)
def test_every_step_at_the_extremes_of_d_k_and_n(step, extreme):
    at = open_lesson(step=str(step), **extreme)
    assert not at.exception, [e.value for e in at.exception]
    s = at.session_state["_ase_run"].settings
    assert (s.dk, s.n) == (int(extreme["dk"]), int(extreme["n"]))
    assert len(guess_radio(at).options) >= 3
    assert chart_rows(at) is not None


def test_out_of_range_settings_from_the_url_are_clamped_on_the_lesson_too():
    at = open_lesson(step="7", dk="99999", n="x", lesson_rho="3", lang="en")
    assert lesson.STEPS[6].control == "rho"
    assert not at.exception
    warnings = " ".join(w.value for w in at.warning)
    for param in ("dk=99999", "n=x", "lesson_rho=3"):
        assert param in warnings
    assert at.slider(key="lesson_rho").value == 1.0


@pytest.mark.parametrize("step", [3, 4])
def test_predict_then_reveal_shows_the_measurement_next_to_the_guess(step):
    at = open_lesson(lang="en", step=str(step))
    q = expected(at, step)["question"]
    wrong = next(i for i in range(len(q["choices"])) if i not in q["correct"])
    guess_radio(at).set_value(wrong).run()
    assert not at.button(key="lesson_reveal").disabled
    at.button(key="lesson_reveal").click().run()
    assert not at.exception
    measured = measured_text(q["value"], q.get("format", "num"))
    shown = [b.value for b in at.info]
    guess_label = guess_radio(at).options[wrong]
    assert any(guess_label in v and measured in v for v in shown), f"{guess_label}, {measured}: {shown}"
    right_label = guess_radio(at).options[q["correct"][0]]
    assert any(right_label in v for v in shown), "the right answer is named"
    assert guess_radio(at).disabled, "the guess is committed"
    assert {r["stage"] for r in chart_rows(at)} == {"context", "answer"}, "the chart now shows the answer"
    assert not at.success


def test_a_right_guess_is_confirmed_and_a_new_question_starts_unanswered():
    at = open_lesson(lang="zh", step="2")
    q = expected(at, 2)["question"]
    guess_radio(at).set_value(q["correct"][0]).run()
    at.button(key="lesson_reveal").click().run()
    assert any(text_for("lesson.result.right", "zh") in b.value for b in at.success)
    at.select_slider(key="dk_pow2").set_value(1024).run()  # another d_k: another question
    assert at.session_state["dk"] == 1024
    assert guess_radio(at).value is None and not at.success
    assert all(r["stage"] == "context" for r in chart_rows(at))
    at.select_slider(key="dk_pow2").set_value(64).run()  # back: the earlier answer is remembered
    assert guess_radio(at).value == q["correct"][0] and at.success


def test_next_and_previous_buttons_move_between_steps_and_the_url_follows():
    at = open_lesson(lang="en")
    assert at.button(key="lesson_prev").disabled
    at.button(key="lesson_next").click().run()
    assert at.title[0].value == name(2, "en")
    assert at.session_state["_ase_run"].wants["step"] == "2"
    for _ in range(10):
        if not at.button(key="lesson_next").disabled:
            at.button(key="lesson_next").click().run()
    assert at.title[0].value == name(9, "en") and at.session_state["_ase_run"].wants["step"] == "9"
    at.button(key="lesson_prev").click().run()
    assert at.session_state["_ase_run"].wants["step"] == "8"
    assert not at.exception


def test_one_d_k_slider_the_sidebars_and_the_locked_views_own_moves_the_shared_setting():
    """Issue 59: no second d_k slider beside the sidebar's; the locked view (no sidebar) keeps one."""
    free = open_lesson(lang="en", step="1")
    assert not [w for w in free.main.select_slider if w.key == "lesson_dk"]
    at = open_lesson(lang="en", step="1", lock="1")
    at.select_slider(key="lesson_dk").set_value(512).run()
    assert at.session_state["_ase_run"].settings.dk == 512
    assert at.session_state["_ase_run"].wants["dk"] == "512"
    assert min(at.select_slider(key="lesson_dk").options, key=int) == "4", "the step's range: d_k ≥ 4"


def test_lock_link_hides_the_sidebar_and_says_so():
    at = open_lesson(lang="en", step="1", lock="1")
    assert not at.exception
    assert SIDEBAR_HIDDEN in styles(at) and "display: none" in styles(at)
    assert any(text_for("lesson.locked", "en") in m.value for m in at.markdown)
    assert at.session_state["_ase_run"].wants["lock"] == "1", "the lock stays in the link"
    widgets = [*at.main.select_slider, *at.main.slider, *at.main.radio, *at.main.selectbox,
               *at.main.multiselect, *at.main.button_group, *at.main.number_input, *at.main.toggle]
    keys = sorted(str(w.key) for w in widgets)
    assert keys == sorted(["lesson_dk", guess_radio(at).key]), f"step control and guess only: {keys}"

    free = open_lesson(lang="en", step="1")
    assert SIDEBAR_HIDDEN not in styles(free)
    assert "lock" not in free.session_state["_ase_run"].wants


def test_malformed_lock_is_reported_and_unlocked():
    at = open_lesson(lang="en", lock="maybe")
    assert "lock=maybe" in " ".join(w.value for w in at.warning)
    assert SIDEBAR_HIDDEN not in styles(at)


def share_link(query: dict[str, str]) -> tuple[str, object]:
    """Open the lesson at `query` with a known page address, click Share: (the link shown, the test)."""
    from conftest import ROOT
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update(query)
    at.context = {"url": "http://teacher.example:8501/lesson"}
    at.switch_page("pages/lesson.py")
    at.run()
    at.button(key="lesson_share").click().run()
    assert not at.exception, [e.value for e in at.exception]
    links = [c.value for c in at.code]
    assert len(links) == 1, links
    return links[0], at


def test_share_shows_the_link_of_the_current_view_and_its_qr_code():
    query = {"lang": "zh", "step": "2", "steps": "double,trained", "lesson_rho": "0.8", "dk": "256"}
    link, at = share_link(query)
    parts = urlsplit(link)
    assert (parts.scheme, parts.netloc, parts.path) == ("http", "teacher.example:8501", "/lesson")
    assert dict(parse_qsl(parts.query)) == query
    assert len(at.get("image")) == 1, "the QR code is drawn"
    assert at.toggle(key="lesson_share_lock").value is False
    link, at = share_link({**query, "lock": "1"})
    locked_query = dict(parse_qsl(urlsplit(link).query))
    assert locked_query == {**query, "lock": "1"}, "a locked view shares a locked link"
    assert at.toggle(key="lesson_share_lock").value is True


def test_share_without_a_known_address_says_why_there_is_no_code():
    at = open_lesson(lang="en", step="2")
    at.button(key="lesson_share").click().run()
    assert not at.exception
    assert text_for("lesson.share.no_url", "en") in [w.value for w in at.warning]
    assert not at.get("image")


def test_every_step_has_its_texts_in_both_languages():
    from pages.ui.i18n import TABLE

    parts = ("name", "setup", "claim", "question", "takeaway", "say")
    keys = [f"lesson.{s.name}.{p}" for s in lesson.STEPS for p in parts]
    missing = [k for k in keys if k not in TABLE]
    assert not missing, missing


def _chart_spec(at) -> dict:
    import json

    charts = at.main.get("vega_lite_chart")
    assert charts, "no step chart on the page"
    return json.loads(charts[0].proto.spec)


def _marks(spec: dict) -> list[dict]:
    out = []
    for layer in spec.get("layer", [spec]):
        mark = layer.get("mark")
        if mark is not None:
            out.append(mark if isinstance(mark, dict) else {"type": mark})
    return out


@pytest.mark.parametrize("step", [2, 3])
def test_projector_mode_draws_heavier_lines_larger_type_and_keeps_the_flag(step):
    plain = _chart_spec(open_lesson(lang="en", step=str(step)))
    at = open_lesson(lang="zh", step=str(step), lesson_projector="1")
    assert not at.exception
    assert at.session_state["_ase_run"].wants["lesson_projector"] == "1", "the link keeps projector mode"
    assert any(t.key == "lesson_projector" and t.value for t in at.main.toggle)
    spec = _chart_spec(at)
    lines = [m for m in _marks(spec) if m["type"] in ("line", "rule")]
    assert lines and all(m.get("strokeWidth", 1) >= 3 for m in lines), lines
    assert spec["config"]["axis"]["labelFontSize"] >= 16 and spec["config"]["axis"]["titleFontSize"] >= 16
    thin = [m for m in _marks(plain) if m["type"] in ("line", "rule") and m.get("strokeWidth", 1) < 3]
    assert thin, "without projector mode the references stay thinner: the check can fail"
    locked = open_lesson(lang="en", step=str(step), lesson_projector="1", lock="1")
    assert not locked.main.toggle or all(t.key != "lesson_projector" for t in locked.main.toggle)
    assert locked.session_state["_ase_run"].wants["lesson_projector"] == "1", "the locked link keeps it"


def test_measured_series_have_a_marker_shape_as_well_as_a_colour():
    spec = _chart_spec(open_lesson(lang="en", step="3"))
    shaped = [layer for layer in spec["layer"] if "shape" in layer.get("encoding", {})]
    assert shaped, "no layer tells the series apart by shape"
    assert shaped[0]["encoding"]["shape"]["field"] == shaped[0]["encoding"]["color"]["field"]


def _announced(at) -> str:
    import json

    said = [c.proto for c in at.main.get("bidi_component") if c.proto.component_name == "ase_announce"]
    assert len(said) == 1, "one live region on the step"
    return json.loads(said[0].json)["text"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_reveal_is_announced_in_both_languages(lang):
    at = open_lesson(lang=lang, step="2")
    assert _announced(at) == text_for("lesson.announce.waiting", lang).format(k=2)
    guess_radio(at).set_value(guess_radio(at).options[0]).run()
    at.button(key="lesson_reveal").click().run()
    said = _announced(at)
    assert text_for("lesson.result.measured", lang) in said and any(ch.isdigit() for ch in said), said
