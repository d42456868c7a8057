"""The scale family: one parser, one definition of c(d_k) (docs/science.md §1)."""

import math

import pytest

from core.errors import InputError
from core.scales import NAMED_SCALES, Scale, parse_scale, scale_factor


@pytest.mark.parametrize(("name", "d_k", "expected"), [
    ("none", 64, 1.0), ("sqrt", 64, 1 / 8), ("linear", 64, 1 / 64), ("log", 64, 1 / math.log(64)),
    ("double-sqrt", 64, 1 / 16), ("power:0.5", 64, 1 / 8), ("power:1", 64, 1 / 64),
    ("power:0", 7, 1.0), ("const:0.25", 999, 0.25),
])
def test_factor_matches_definition(name, d_k, expected):
    assert scale_factor(name, d_k) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("name", [*NAMED_SCALES, "power:0.75", "const:2"])
def test_canonical_name_round_trips(name):
    assert parse_scale(parse_scale(name).name) == parse_scale(name)


def test_parse_is_case_and_space_tolerant():
    assert parse_scale("  SQRT ") == Scale("sqrt")
    assert parse_scale("Power:1.5") == Scale("power", 1.5)


@pytest.mark.parametrize("bad", ["", "sqr", "power", "power:", "power:x", "power:2.5", "power:-0.1",
                                 "const:0", "const:-1", "power:nan", "const:inf", "__import__('os')",
                                 "1/0"])
def test_bad_names_raise_input_error(bad):
    with pytest.raises(InputError):
        parse_scale(bad)


def test_log_needs_dk_at_least_two():
    with pytest.raises(InputError, match="d_k ≥ 2"):
        scale_factor("log", 1)
    assert scale_factor("log", 2) == pytest.approx(1 / math.log(2))


def test_nonpositive_dk_rejected():
    with pytest.raises(InputError):
        scale_factor("sqrt", 0)


def test_sqrt_preserves_unit_logit_variance_formula():
    # Var(c·q·k) = c²·d_k = 1 exactly for sqrt at every d_k
    for d in (1, 3, 64, 4096):
        assert scale_factor("sqrt", d) ** 2 * d == pytest.approx(1.0)
