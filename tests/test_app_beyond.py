"""AppTest: the beyond-√d_k page in both languages, its URL parameters validated."""

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
