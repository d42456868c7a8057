"""AppTest: the beyond-√d_k page in both languages, its URL parameters validated."""

from html import escape
from pathlib import Path

import pytest
from conftest import tables
from streamlit.testing.v1 import AppTest

from pages.ui.i18n import text_for

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def _page(lang: str, **params: str) -> AppTest:
    """Open /beyond?lang=…&… directly, as a shared link would (url_path = file name, so AppTest
    can switch to it before the first run)."""
    at = AppTest.from_file(APP, default_timeout=240)
    at.query_params["lang"] = lang
    at.query_params["trials"] = "20"
    for k, v in params.items():
        at.query_params[k] = v
    at.switch_page("pages/beyond.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


SECTIONS = {"corr": ("beyond.corr.header", 3), "norm": ("beyond.norm.header", 2),
            "len": ("beyond.len.header", 2), "init": ("beyond.init.header", 1)}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("part", [*SECTIONS, None])
def test_beyond_shows_one_section_at_a_time(lang, part):
    """Each section alone: its header and charts, none of the others' (their sweeps not run)."""
    at = _page(lang, **({"beyond_part": part} if part else {}))
    part = part or "corr"
    assert at.title[0].value == text_for("beyond.title", lang)
    headers = [h.value for h in at.header]
    for name, (key, _) in SECTIONS.items():
        assert (text_for(key, lang) in headers) == (name == part), (name, headers)
    assert at.pills(key="beyond_part").value == part
    assert len(at.main.get("vega_lite_chart")) == SECTIONS[part][1]
    assert len(tables(at)) == (1 if part == "init" else 0)  # the initialisation table
    assert any(w.key == "beyond_rho" for w in at.slider) == (part != "init")


def test_beyond_sections_keep_each_others_values_in_the_session_and_the_link():
    """Moving to another section keeps the hidden sections' controls, in the session and in the
    URL: coming back finds them, and a link taken meanwhile reproduces them."""
    at = _page("en", beyond_part="norm", beyond_cap="30", beyond_rho="0.5")
    assert at.slider(key="beyond_cap").value == 30.0
    at.pills(key="beyond_part").set_value("init").run()
    assert not at.exception
    assert at.query_params["beyond_cap"] == "30" and at.query_params["beyond_rho"] == "0.5"
    assert at.query_params["beyond_part"] == "init"
    at.pills(key="beyond_part").set_value("norm").run()
    assert at.slider(key="beyond_cap").value == 30.0 and at.slider(key="beyond_rho").value == 0.5
    # a link naming a hidden section's control keeps it until that section is shown
    at = _page("zh", beyond_part="corr", beyond_s="1.5")
    assert at.query_params["beyond_s"] == "1.5"
    at.pills(key="beyond_part").set_value("len").run()
    assert at.slider(key="beyond_s").value == 1.5


def test_beyond_bad_section_in_a_link_gets_a_notice_and_the_first_section():
    at = _page("en", beyond_part="everything")
    assert "beyond_part" in " ".join(w.value for w in at.warning)
    assert at.pills(key="beyond_part").value == "corr"
    assert len(at.main.get("vega_lite_chart")) == 3


def test_beyond_init_table_shows_all_four_initialisations():
    at = _page("en", beyond_part="init", beyond_dmodel="256", dk="64")
    df = tables(at)[0]
    names = [text_for(f"beyond.scheme.{s}", "en") for s in ("xavier-square", "mha", "linear-default", "gpt2")]
    assert list(df.iloc[:, 0]) == names


def test_beyond_url_values_are_validated_with_a_notice():
    at = _page("en", beyond_part="norm", beyond_rho="5", beyond_cap="banana")
    notices = " ".join(w.value for w in at.warning)
    assert "beyond_rho" in notices and "beyond_cap" in notices
    assert at.slider(key="beyond_rho").value == pytest.approx(0.9)
    assert at.slider(key="beyond_cap").value == pytest.approx(50.0)
    at = _page("en", beyond_part="init", beyond_dmodel="banana")
    assert "beyond_dmodel" in " ".join(w.value for w in at.warning)
    assert at.pills(key="beyond_dmodel").value == "768"


def test_beyond_clamps_dk_above_d_model():
    at = _page("en", beyond_part="init", beyond_dmodel="256", dk="512")
    assert any(text_for("beyond.init.dk_clamped", "en").format(dk=512, used=256) == i.value for i in at.info)


# ---------------------------------------------------------------- terms defined before use, asides in "More"

TERMS = {  # section: terms its definitions name, per language (the intro defines logit, entropy and ρ)
    None: {"en": ["**logit**", "**entropy H**", "**ρ**"], "zh": ["**logit**", "**熵 H**", "**ρ**"]},
    "corr": {"en": ["**μP**", "**÷d_k**"], "zh": ["**μP**", "**÷d_k**"]},
    "norm": {"en": ["**QK-norm**", "**cosine attention**", "**soft-capping**", "**temperature τ**",
                    "**norm ‖q‖**"],
             "zh": ["**QK-norm**", "**余弦注意力**", "**软截断**", "**温度 τ**", "**范数 ‖q‖**"]},
    "len": {"en": ["**SSMax**", "**log-length scaling**", "**σ²**"],
            "zh": ["**SSMax**", "**对数长度缩放**", "**σ²**"]},
    "init": {"en": ["**d_model**", "**Xavier initialisation**", "**GPT-2's rule**"],
             "zh": ["**d_model**", "**Xavier 初始化**", "**GPT-2 的规则**"]},
}


def _in_order(node) -> list:
    """Every element under `node`, in the order the page draws them."""
    children = getattr(node, "children", None)
    if not children:
        return [node]
    return [el for key in sorted(children) for el in _in_order(children[key])]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("part", ["corr", "norm", "len", "init"])
def test_beyond_defines_its_terms_before_the_first_chart_and_keeps_research_under_more(lang, part):
    at = _page(lang, beyond_part=part)
    order = _in_order(at.main)
    first_chart = next(i for i, el in enumerate(order) if getattr(el, "type", "") == "vega_lite_chart")
    before = " ".join(el.value for el in order[:first_chart] if getattr(el, "type", "") == "markdown")
    for term in TERMS[None][lang] + TERMS[part][lang]:
        assert term in before, (part, lang, term)
    (more,) = [e for e in at.expander if e.label == text_for("beyond.more", lang)]
    assert more.markdown[0].value == text_for(f"beyond.{part}.more", lang)
    inside = {id(m) for m in more.markdown}
    outside = [m.value for m in at.main.markdown if id(m) not in inside]
    assert not any("arXiv" in v for v in outside), part  # citations only under "More"


def test_beyond_sliders_say_what_their_symbol_means():
    at = _page("en", beyond_part="norm")
    helps = {w.key: w.help for w in at.slider}
    assert helps["beyond_rho"] == text_for("beyond.rho_help", "en")
    assert helps["beyond_tau"] == text_for("beyond.tau_help", "en")
    assert helps["beyond_cap"] == text_for("beyond.cap_help", "en")
    part_help = at.pills(key="beyond_part").help  # the section names hold μP and QK-norm: defined here
    assert part_help == text_for("beyond.part_help", "en")
    assert "μP (maximal update parametrisation)" in part_help


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_beyond_says_the_rho_lines_coincide_and_why_in_words_and_in_the_charts_text(lang):
    """The ÷d_k entropy lines per ρ lie on top of one another at every d_k (tests/test_curve_overlap.py
    measures it): the page and the chart's text alternative say so, with the reason."""
    at = _page(lang, beyond_part="corr")
    words = [m.value for m in at.markdown if text_for("beyond.corr.overlap.linear.why", lang) in m.value]
    assert len(words) == 1
    linear_all = text_for("beyond.corr.overlap.linear.all", lang).split("{curves}")[0]
    assert linear_all in words[0] and text_for("beyond.corr.overlap.sqrt.why", lang) in words[0]
    html = " ".join(h.value for h in at.get("html"))
    assert escape(text_for("beyond.corr.overlap.linear.why", lang)) in html  # the chart's text alternative
