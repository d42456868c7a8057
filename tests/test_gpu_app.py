"""The app on a GPU host: every page, the heavy views asked for in the link and every lesson step on
the GPU backend (CuPy and our kernels), under AppTest. Skipped where there is no GPU.

The kernels' figures are checked in test_gpu.py and `python -m core.gpu_check`; here the pages: no
exception, no error box, no kernel falling back to the reference path, and the sidebar naming the
GPU (the backend "auto" picks CuPy on such a host).
"""

from __future__ import annotations

import pytest
from conftest import TORCH_VIEWS, page_table, run_page

from core.backend import cupy_available, device_info
from core.lesson import STEPS

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not cupy_available(), reason="no CUDA GPU / CuPy not installed")]
pytest.importorskip("streamlit", reason="the app's requirements are not installed "
                                 "(pip install -r requirements.txt)")


def _views() -> list[tuple[str, dict[str, str]]]:
    views = [(slug, {}) for _, slug, *_ in page_table()]
    views += [(slug, {key: value}) for slug, key, value in TORCH_VIEWS]
    views += [("lesson", {"step": str(k)}) for k in range(2, len(STEPS) + 1)]
    return views


def _label(view: tuple[str, dict[str, str]]) -> str:
    slug, query = view
    return slug + "".join(f"?{k}={v}" for k, v in query.items())


@pytest.mark.parametrize("view", _views(), ids=_label)
def test_every_view_runs_on_the_gpu_backend(view: tuple[str, dict[str, str]]) -> None:
    from core import gpu

    slug, query = view
    at = run_page(slug, query, timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    gpu_name = device_info("cupy").removeprefix("CuPy on ")
    captions = [c.value for c in at.caption]
    assert any(f"CuPy on {gpu_name}" in c for c in captions), captions
    assert gpu.kernel_report()["failed"] == {}
    fallbacks = [w.value for w in at.warning if "fell back" in w.value or "reference path" in w.value]
    assert not fallbacks, fallbacks


def test_the_gpu_backend_is_chosen_by_default_and_can_be_turned_off() -> None:
    at = run_page("saturation", {"backend": "numpy"})
    assert not at.exception
    assert not any("CuPy on" in c.value for c in at.caption)
