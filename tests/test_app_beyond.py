"""AppTest: the beyond-√d_k page in both languages, its URL parameters validated."""

from pathlib import Path

import pytest
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


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_beyond_renders_four_sections(lang):
    at = _page(lang)
    assert at.title[0].value == text_for("beyond.title", lang)
    headers = [h.value for h in at.header]
    for key in ("beyond.corr.header", "beyond.norm.header", "beyond.len.header", "beyond.init.header"):
        assert text_for(key, lang) in headers
    assert len(at.get("vega_lite_chart")) >= 7
    assert len(at.dataframe) == 1  # the initialisation table


def test_beyond_init_table_shows_all_four_initialisations():
    at = _page("en", beyond_dmodel="256", dk="64")
    df = at.dataframe[0].value
    names = [text_for(f"beyond.scheme.{s}", "en") for s in ("xavier-square", "mha", "linear-default", "gpt2")]
    assert list(df.iloc[:, 0]) == names


def test_beyond_url_values_are_validated_with_a_notice():
    at = _page("en", beyond_rho="5", beyond_dmodel="banana")
    notices = " ".join(w.value for w in at.warning)
    assert "beyond_rho" in notices and "beyond_dmodel" in notices
    assert at.slider(key="beyond_rho").value == pytest.approx(0.9)
    assert at.radio(key="beyond_dmodel").value == "768"


def test_beyond_clamps_dk_above_d_model():
    at = _page("en", beyond_dmodel="256", dk="512")
    assert any(text_for("beyond.init.dk_clamped", "en").format(dk=512, used=256) == i.value for i in at.info)
