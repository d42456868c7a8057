"""`python -m core …`: the JSON contract, and bad input → exit 2 with one line, no traceback.

Most tests call the command line's `main` in this process, as `python -m core` does (core/__main__.py):
the same parser, output and exit codes, without starting an interpreter each time; the command
itself runs as a process in `test_the_command_runs_as_a_module` and `test_closed_pipe_is_not_an_error`.
"""

import contextlib
import io
import json
import subprocess
import sys

import pytest

from core.cli import main

KEYS = {
    "saturation": {"dk", "n", "scale", "entropy_mean", "max_weight_mean", "effective_keys_mean",
                   "saturated_fraction"},
    "gradients": {"dk", "n", "scale", "grad_q_norm_median", "grad_q_norm_mean", "jacobian_norm_median"},
    "variance": {"dk", "rho", "scale", "mean_raw", "var_raw", "theory_var", "var_scaled"},
    "precision": {"dk", "scale", "dtype", "max_logit", "naive_nonfinite_fraction",
                  "stable_nonfinite_fraction"},
    "cost": {"impl", "n", "d", "d_h", "seconds", "flops", "bytes"},
    "bench": {"n", "d", "ours_seconds", "torch_seconds", "ratio", "max_abs_diff"},
}
ARGS = {
    "saturation": ["--dk", "16", "64", "--n", "10", "--scale", "none", "sqrt", "--trials", "50"],
    "gradients": ["--dk", "16", "--n", "10", "--scale", "none", "sqrt", "linear", "--trials", "50"],
    "variance": ["--dk", "8", "32", "--scale", "sqrt", "--trials", "500", "--rho", "0.3"],
    "precision": ["--dk", "64", "--n", "16", "--trials", "4", "--dtype", "float16", "bfloat16"],
    "cost": ["--n", "16", "32", "--d", "8", "--repeats", "2"],
    "bench": ["--n", "32", "--d", "16", "--repeats", "2"],
}


def run(*args: str) -> subprocess.CompletedProcess:
    """`python -m core *args`, run by its `main` in this process: exit code, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse's own exits
            code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


def run_process(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core", *args], capture_output=True, text=True, check=False,
                          timeout=120)


def test_the_command_runs_as_a_module():
    p = run_process("saturation", *ARGS["saturation"], "--json")
    assert p.returncode == 0 and not p.stderr, p.stderr
    assert json.loads(p.stdout) == json.loads(run("saturation", *ARGS["saturation"], "--json").stdout)
    bad = run_process("saturation", "--dk", "0")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1, bad.stderr


@pytest.mark.parametrize("experiment", list(KEYS))
def test_json_shape(experiment):
    p = run(experiment, *ARGS[experiment], "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert set(out) == {"experiment", "backend", "params", "rows"}
    assert out["experiment"] == experiment
    assert out["backend"] == "numpy"
    assert out["rows"]
    for row in out["rows"]:
        assert KEYS[experiment] <= set(row)


MORE = {
    "factcheck": (["--note", "003"], {"note", "id", "kind", "verdict", "points"}),
    "correlated": (["--dk", "16", "64", "--rho", "0.5", "--trials", "40"],
                   {"rho", "dk", "scale", "mean_raw", "theory_mean", "entropy_mean"}),
    "length": (["--n", "16", "64", "--trials", "20"], {"n", "method", "entropy_mean", "ln_n"}),
    "entropy-grid": (["--n", "4", "16", "--dk", "8", "64", "--scale", "sqrt", "--trials", "10"],
                     {"n", "dk", "entropy_mean", "entropy_se", "trials"}),
    "init": (["--dk", "32", "--d-model", "128"], {"scheme", "var_q", "theory_var_q", "var_logit"}),
    "qk-grads": (["--n", "8", "--dk", "16", "--trials", "10"],
                 {"scale", "wrt", "max_abs_err_vs_closed_form"}),
    "training": (["--dk", "16", "--scale", "sqrt", "--steps", "5"],
                 {"dk", "scale", "loss_first", "loss_last", "accuracy_final"}),
}


@pytest.mark.parametrize("experiment", list(MORE))
def test_json_shape_of_the_pages_beyond_the_notes(experiment):
    args, keys = MORE[experiment]
    p = run(experiment, *args, "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert {"experiment", "backend", "params", "rows"} <= set(out)
    assert out["rows"] and all(keys <= set(row) for row in out["rows"])


@pytest.mark.slow
def test_real_model_json_or_a_clear_error_without_the_package():
    p = run("real-model", "--text", "Attention needs a scale.", "--json")
    if p.returncode == 2:
        assert p.stderr.startswith("error: missing:"), p.stderr
        pytest.skip("the optional model package is absent (requirements-model.txt)")
    out = json.loads(p.stdout)
    assert len(out["rows"]) == out["params"]["layers"] * out["params"]["heads"]
    assert out["params"]["library_max_abs_diff"] < 1e-5


def test_closed_pipe_is_not_an_error():
    p = subprocess.run(f"{sys.executable} -m core variance --dk 8 --trials 50 | head -1", shell=True,
                       capture_output=True, text=True, check=False, timeout=60)
    assert "Traceback" not in p.stderr


def test_one_row_per_combination():
    out = json.loads(run("saturation", *ARGS["saturation"], "--json").stdout)
    assert len(out["rows"]) == 2 * 2
    out = json.loads(run("gradients", *ARGS["gradients"], "--json").stdout)
    assert {r["scale"] for r in out["rows"]} == {"none", "sqrt", "linear"}


def test_same_seed_same_json():
    a = run("gradients", *ARGS["gradients"], "--seed", "4", "--json").stdout
    b = run("gradients", *ARGS["gradients"], "--seed", "4", "--json").stdout
    assert a == b


def test_non_finite_values_are_strict_json_strings():
    out = json.loads(run("precision", *ARGS["precision"], "--json").stdout)
    fp16 = next(r for r in out["rows"] if r["dtype"] == "float16")
    assert fp16["mask_value"] == "-inf"


def test_table_output_by_default():
    p = run("variance", *ARGS["variance"])
    assert p.returncode == 0
    assert "theory_var" in p.stdout.splitlines()[1]


@pytest.mark.parametrize("args", [
    ["saturation", "--dk", "0"],
    ["saturation", "--dk", "-4"],
    ["saturation", "--n", "1"],
    ["saturation", "--scale", "cube"],
    ["saturation", "--dk", "1", "--scale", "log"],
    ["variance", "--rho", "1.5"],
    ["variance", "--rho", "nan"],
    ["saturation", "--dk", "nan"],
    ["saturation", "--trials", "0"],
    ["saturation", "--trials", "-3"],
    ["saturation", "--dk", "4096", "--n", "1024", "--trials", "1000000"],
    ["saturation", "--n", "300000", "--trials", "1"],
    ["saturation", "--dk", "1.5"],
    ["nonsense"],
    ["variance", "--dist", "cauchy"],
    ["saturation", "--backend", "cupy"],
    ["cost", "--impl", "quadratic"],
    ["saturation", "--scale", "power:3"],
    ["training", "--dk", "0"],
    ["training", "--steps", "0"],
    ["length", "--n", "1"],
    ["init", "--dk", "64", "--d-model", "0"],
    ["real-model", "--text", ""],
    ["correlated", "--rho", "2"],
])
def test_bad_input_exits_2_with_one_line_and_no_traceback(args):
    p = run(*args)
    if args[:3] == ["saturation", "--backend", "cupy"] and p.returncode == 0:
        pytest.skip("a CUDA GPU with CuPy is present, so --backend cupy is valid here")
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
