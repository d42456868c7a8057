"""The shell (app.py): navigation, shared controls bound to the URL, language choice."""

from __future__ import annotations

import pytest
from conftest import ROOT, run_page

from pages.ui import sidebar, url_state
from pages.ui.i18n import text_for


def settings_of(at) -> sidebar.Settings:
    return at.session_state["_ase_run"].settings


def test_navigation_lists_exactly_the_table_pages_that_exist(monkeypatch):
    import streamlit as st

    declared: list[list[str]] = []  # url_paths ("" is the default page's) st.navigation registered
    navigation = st.navigation

    def recorded(pages, **kwargs):
        if isinstance(pages, dict):  # the router's sections (a list: a page file rerouting itself)
            declared.append(sorted(p.url_path or "overview" for ps in pages.values() for p in ps))
        return navigation(pages, **kwargs)

    monkeypatch.setattr(st, "navigation", recorded)
    at = run_page("overview")
    assert not at.exception
    from test_i18n import page_table

    expected = sorted(url for file, url, *_ in page_table() if (ROOT / file).is_file())
    assert declared and declared[-1] == expected
    assert "ui" not in expected and "__init__" not in expected


def test_language_defaults_to_the_browser_locale():
    at = run_page("overview", locale="zh-CN")
    assert at.session_state["lang"] == "zh"
    assert at.title[0].value == "注意力为什么要除以 √d_k"
    at = run_page("overview", locale="en-US")
    assert at.session_state["lang"] == "en"


def test_url_language_wins_over_the_locale():
    at = run_page("overview", {"lang": "en"}, locale="zh-CN")
    assert at.session_state["lang"] == "en"


def test_url_values_restore_the_shared_settings():
    at = run_page("overview", {"dk": "100", "n": "7", "scales": "none,linear,power:0.25", "trials": "30",
                               "seed": "5", "dtype": "float64", "backend": "numpy"})
    assert not at.exception and not at.warning
    s = settings_of(at)
    assert (s.dk, s.n, s.trials, s.seed, s.dtype, s.backend) == (100, 7, 30, 5, "float64", "numpy")
    assert s.scales == ["none", "linear", "power:0.25"]
    assert at.session_state["dk_pow2"] == 128  # the power-of-two slider shows the nearest power


def test_the_url_is_written_back_with_only_non_default_values():
    at = run_page("variance", {"dk": "256", "var_rho": "0.5"})
    assert not at.exception
    assert at.session_state["_ase_run"].wants == {"dk": "256", "var_rho": "0.5"}


def test_moving_the_power_of_two_slider_sets_dk():
    at = run_page("overview")
    at.select_slider(key="dk_pow2").set_value(512).run()
    assert not at.exception
    assert settings_of(at).dk == 512
    assert at.session_state["_ase_run"].wants["dk"] == "512"


def test_no_scale_selected_falls_back_to_sqrt_with_a_notice():
    at = run_page("overview")
    at.pills(key="scales").set_value([]).run()
    assert not at.exception
    assert settings_of(at).scales == ["sqrt"]
    assert at.sidebar.warning


def test_parsers_clamp_and_default():
    assert url_state.parse_int("5000", 1, 4096, 64) == (4096, "clamped")
    assert url_state.parse_int("0", 1, 4096, 64) == (1, "clamped")
    assert url_state.parse_int("1e2", 1, 4096, 64) == (100, None)
    assert url_state.parse_int("nan", 1, 4096, 64) == (64, "malformed")
    assert url_state.parse_int("2.5", 1, 4096, 64) == (64, "malformed")
    assert url_state.parse_float("inf", 0, 1, 0.5) == (0.5, "malformed")
    assert url_state.parse_choice("NumPy", ("auto", "numpy"), "auto") == ("numpy", None)
    assert url_state.parse_scales("sqrt,,LOG", ("none",), 0.5) == (["sqrt", "log"], 0.5, None)
    assert url_state.parse_scales("power:9", ("none",), 0.5) == (["power"], 2.0, "clamped")
    assert url_state.parse_scales("const:2", ("none",), 0.5) == (["none"], 0.5, "malformed")
    assert sidebar.nearest_power_of_two(100) == 128 and sidebar.nearest_power_of_two(1) == 1


def test_on_the_gpu_backend_the_app_says_which_of_our_kernels_run_and_which_fell_back(monkeypatch):
    """No GPU here: the backend and the kernel report are stood in for; what is tested is that a
    kernel file that failed its first-use check is named above the page, in both languages, and that
    the sidebar lists the files in use (in its second section, open when the link names a backend)."""
    from core import gpu

    why = "softmax_stats.cu failed its first-use check on this device (2 of 3 comparisons …)"
    monkeypatch.setattr(sidebar, "resolve_backend", lambda name, dtype: "cupy")
    monkeypatch.setattr(sidebar, "device_text", lambda backend: "CuPy on Test GPU (80 GiB)")
    monkeypatch.setattr(gpu, "kernel_report",
                        lambda: {"checked": ["additive_scores.cu"], "failed": {"softmax_stats.cu": why}})
    for lang, words in (("en", "reference path"), ("zh", "参考实现")):
        at = run_page("precision", {"lang": lang, "backend": "cupy"})  # computes without the backend
        assert not at.exception
        notices = [w.value for w in at.warning]
        assert any("softmax_stats.cu" in w and words in w and why in w for w in notices), notices
        captions = [c.value for c in at.sidebar.caption]
        assert any("additive_scores.cu" in c for c in captions), captions


def test_kernel_notices_only_concern_the_gpu_backend():
    report = {"checked": [], "failed": {"softmax_stats.cu": "why"}}
    assert sidebar.kernel_notices("numpy", report) == []
    assert sidebar.kernel_notices("cupy", {"checked": ["a.cu"], "failed": {}}) == []
    assert len(sidebar.kernel_notices("cupy", report)) == 1


def test_the_sidebar_second_section_is_drawn_only_while_open():
    """Exact d_k, trials, seed, backend and dtype sit in a section that draws its widgets only while
    it is open (each widget costs a new tab browser time): closed on a default link, the sidebar holds
    the language, d_k's power-of-two slider, n and the scales; the settings still hold their values."""
    at = run_page("overview", {"lang": "en"})
    assert not at.exception
    assert at.session_state[sidebar.MORE_KEY] is False
    assert text_for("common.advanced", "en") in [e.label for e in at.sidebar.expander]
    assert not at.sidebar.number_input, "closed: no exact d_k, trials or seed drawn"
    assert not at.sidebar.selectbox, "closed: no backend or dtype drawn"
    assert settings_of(at).trials == sidebar.DEFAULTS["trials"]
    device = text_for("common.device", "en").split("{")[0]
    assert any(c.value.startswith(device) for c in at.sidebar.caption), "the device stays in view"

    at.session_state[sidebar.MORE_KEY] = True  # the user opens it (a rerun)
    at.run()
    assert {w.key for w in at.sidebar.number_input} == {"dk", "trials", "seed"}
    assert {w.key for w in at.sidebar.selectbox} == {"backend", "dtype"}
    at.number_input(key="seed").set_value(7).run()
    at.number_input(key="dk").set_value(100).run()
    assert (settings_of(at).seed, settings_of(at).dk) == (7, 100)

    at.session_state[sidebar.MORE_KEY] = False  # closed again: the values stay, in the link too
    at.run()
    assert not at.sidebar.number_input
    at.select_slider(key="dk_pow2")  # still there
    at.slider(key="n").set_value(9).run()  # another control moves; the hidden values survive it
    s = settings_of(at)
    assert (s.seed, s.dk, s.n) == (7, 100, 9)
    assert {"seed": "7", "dk": "100", "n": "9"}.items() <= at.session_state["_ase_run"].wants.items()
    notes = [c.value for c in at.sidebar.caption]
    assert text_for("common.dk.exact_note", "en").format(dk=100) in notes, "says d_k is not the slider's"


@pytest.mark.parametrize("query", [{"seed": "5"}, {"trials": "30"}, {"dtype": "float64"},
                                   {"backend": "numpy"}, {"dk": "100"}])
def test_a_link_that_sets_a_value_of_the_second_section_opens_it(query):
    at = run_page("overview", {"lang": "zh", **query})
    assert not at.exception
    assert at.session_state[sidebar.MORE_KEY] is True
    key, value = next(iter(query.items()))
    widget = next(w for w in [*at.sidebar.number_input, *at.sidebar.selectbox] if w.key == key)
    assert str(widget.value) == value


@pytest.mark.parametrize(("page", "query", "key"), [("overview", {"seed": "5"}, sidebar.MORE_KEY),
                                                    ("q-vs-k", {"qk_grad": "1"}, "qk_grad"),
                                                    ("gradients", {"grad_check": "1"}, "grad_check"),
                                                    ("saturation", {"sat_more": "1"}, "sat_more")])
def test_a_language_switch_keeps_an_open_section_open(page, query, key):
    """A keyed expander's label is part of its identity: switching the language used to close every
    open one (the sidebar's second section, q-vs-k's autograd section, saturation's "More", the
    gradients page's autograd check)."""
    at = run_page(page, {"lang": "en", **query})
    assert at.session_state[key] is True
    at.segmented_control(key="lang").set_value("zh").run()
    assert not at.exception
    assert at.session_state[key] is True
    at.run()
    assert at.session_state[key] is True
