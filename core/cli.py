"""`python -m core <experiment> [options] [--json]`: every experiment from the command line.

A readable table by default; `--json` prints one object
{"experiment", "backend", "params", "rows": [...]}. Bad input exits with code 2 and a one-line
`error: …` on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from core import experiments as ex
from core.backend import BACKENDS, DTYPES
from core.errors import InputError
from core.sampling import DISTRIBUTIONS

EXPERIMENTS = ("variance", "saturation", "entropy-grid", "gradients", "precision", "cost", "bench",
               "factcheck", "correlated", "length", "init", "qk-grads", "training", "real-model",
               "stability", "ssmax")

# Columns shown in the table (and guaranteed in --json rows), per experiment.
COLUMNS: dict[str, tuple[str, ...]] = {
    "variance": ("dk", "rho", "scale", "mean_raw", "var_raw", "theory_var", "var_scaled"),
    "saturation": ("dk", "n", "scale", "entropy_mean", "max_weight_mean", "effective_keys_mean",
                   "saturated_fraction"),
    "entropy_grid": ("n", "dk", "scale", "entropy_mean", "entropy_se", "ln_n", "trials"),
    "gradients": ("dk", "n", "scale", "grad_q_norm_median", "grad_q_norm_mean",
                  "jacobian_norm_median"),
    "precision": ("dk", "scale", "dtype", "max_logit", "dtype_max", "naive_nonfinite_fraction",
                  "stable_nonfinite_fraction", "mask_value"),
    "cost": ("impl", "n", "d", "d_h", "seconds", "flops", "bytes"),
    "cost-sweep": ("axis", "series", "n", "d", "d_h", "seconds", "seconds_min", "seconds_max",
                   "measured", "flops", "bytes", "gflops_per_s", "bound_gflops_per_s"),
    "bench": ("n", "d", "ours_seconds", "torch_seconds", "ratio", "max_abs_diff"),
    "factcheck": ("note", "id", "kind", "verdict", "points_agreeing"),
    "correlated": ("rho", "dk", "scale", "mean_raw", "theory_mean", "rms_raw", "entropy_mean"),
    "length": ("n", "method", "factor", "entropy_mean", "theory_entropy", "ln_n",
               "target_weight_mean"),
    "init": ("scheme", "d_model", "d_k", "var_q", "theory_var_q", "var_logit", "theory_var_logit"),
    "qk_grads": ("scale", "wrt", "frob_mean", "frob_median", "row_cv_mean", "top_row_share_mean",
                 "max_abs_err_vs_closed_form"),
    "training": ("dk", "scale", "loss_first", "loss_last", "accuracy_final", "entropy_first",
                 "grad_wq_norm_first", "step_to_90"),
    "real_model": ("layer", "head", "raw_over_pred", "logit_std", "entropy_over_ln_n",
                   "saturated_fraction"),
    "stability": ("variant", "lr", "loss_start", "loss_final", "diverged", "collapsed", "max_logit_peak",
                  "entropy_min_final", "collapse_step"),
    "ssmax": ("source", "n", "method", "factor", "max_weight", "target_weight_mean"),
}

# `cost --fit`: the exponent of time ∝ size^b per implementation and axis (core.cost.explore).
FIT_COLUMNS = ("axis", "series", "exponent", "ci_low", "ci_high", "model_exponent", "points")

# `factcheck`: the per-note summary under the claims (core.factcheck.note_summary).
NOTE_COLUMNS = ("note", "found", "checked", "measured", "literature", "not_checkable", "holds", "partly",
                "fails", "pending")

DEFAULT_TRIALS = {"variance": 20000, "saturation": 256, "entropy-grid": 100, "gradients": 2000,
                  "precision": 64}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise InputError(message)


def _int(text: str) -> int:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not math.isfinite(value) or not value.is_integer():
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
    return int(value)


def _float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if math.isnan(value):
        raise argparse.ArgumentTypeError("NaN is not allowed")
    return value


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m core", description="Attention Scale Explorer experiments.")
    p.add_argument("experiment", choices=EXPERIMENTS)
    p.add_argument("--dk", type=_int, nargs="+", default=None, help="key dimensions d_k")
    p.add_argument("--n", type=_int, nargs="+", default=None, help="number of keys n (one or more)")
    p.add_argument("--scale", nargs="+", default=None,
                   help="none sqrt linear log double-sqrt power:a const:c")
    p.add_argument("--trials", type=_int, default=None)
    p.add_argument("--seed", type=_int, default=0)
    p.add_argument("--rho", type=_float, default=0.0, help="q/k correlation in [-1, 1]")
    p.add_argument("--dist", choices=DISTRIBUTIONS, default="normal")
    p.add_argument("--dtype", nargs="+", default=None,
                   help="float32/float64 (precision: float16 bfloat16 float32)")
    p.add_argument("--backend", choices=BACKENDS, default="numpy")
    p.add_argument("--d", type=_int, nargs="+", default=None, help="model/head dimension d")
    p.add_argument("--d-h", dest="d_h", type=_int, default=None, help="additive hidden size d_h")
    p.add_argument("--impl", nargs="+", choices=ex.IMPLS, default=None)
    p.add_argument("--bh", type=_int, default=1, help="batch × heads (bench)")
    p.add_argument("--repeats", type=_int, default=None)
    p.add_argument("--fit", action="store_true",
                   help="cost: time vs n (at the middle d) and vs d (at the middle n), fitted exponents, "
                        "naive extrapolated past --naive-max-seconds (what the app's cost page runs)")
    p.add_argument("--no-torch", dest="torch", action="store_false",
                   help="cost --fit: leave out the torch reference lines")
    p.add_argument("--naive-max-seconds", type=_float, default=None,
                   help="cost --fit: run one naive call only while it is predicted under this")
    p.add_argument("--d-at", dest="d_at", type=_int, default=None,
                   help="cost --fit: the d of the sweep over n (default: the middle --d)")
    p.add_argument("--n-at", dest="n_at", type=_int, default=None,
                   help="cost --fit: the n of the sweep over d (default: the middle --n)")
    p.add_argument("--steps", type=_int, default=None, help="training: optimisation steps")
    p.add_argument("--d-model", dest="d_model", type=_int, default=None,
                   help="init / qk-grads: model width d_model")
    p.add_argument("--text", default=None, help="real-model: the sentence to analyse")
    p.add_argument("--note", default=None, help="factcheck: one note, by file name or number (e.g. 004)")
    p.add_argument("--lr", type=_float, nargs="+", default=None, help="stability: learning rates")
    p.add_argument("--variant", nargs="+", default=None,
                   help="stability: baseline qk-norm soft-cap z-loss")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Dispatch parsed arguments to the experiment; raises InputError on bad input."""
    e = args.experiment
    dks = args.dk or [16, 64, 256]
    scales = args.scale or ["none", "sqrt"]
    trials = args.trials if args.trials is not None else DEFAULT_TRIALS.get(e, 1)
    one_dtype = "float32" if e == "precision" else _one(args.dtype, "float32", "--dtype")
    common = {"seed": args.seed}
    if e == "variance":
        return ex.variance(dks, scales, trials, rho=args.rho, dist=args.dist,
                           backend=args.backend, dtype=one_dtype, **common)
    if e == "saturation":
        return _per_n(args, lambda n: ex.saturation(dks, n, scales, trials, rho=args.rho,
                                                    dist=args.dist, backend=args.backend,
                                                    dtype=one_dtype, **common), default_n=64)
    if e == "entropy-grid":  # the saturation page's (n, d_k) map: common random numbers across the grid
        return ex.entropy_grid(args.n or [2, 8, 32, 128], dks, _single_scale(args.scale), lambda _: trials,
                               dtype=one_dtype, **common)
    if e == "gradients":
        return _per_n(args, lambda n: ex.gradients(dks, n, scales, trials, dist=args.dist,
                                                   backend=args.backend, dtype=one_dtype,
                                                   **common), default_n=10)
    if e == "precision":
        dtypes = args.dtype or list(ex.PRECISION_DTYPES)
        return _per_n(args, lambda n: ex.precision(dks, n, scales, dtypes, trials,
                                                   dist=args.dist, **common), default_n=64)
    if e == "cost" and args.fit:
        from core import cost

        return cost.explore(args.n or [128, 256, 512, 1024], args.d or [16, 32, 64, 128],
                            d_h=args.d_h, n_at=args.n_at, d_at=args.d_at,
                            impls=args.impl or list(ex.IMPLS), torch_ref=args.torch,
                            backend=args.backend, dtype=one_dtype, repeats=args.repeats or 5,
                            naive_max_seconds=args.naive_max_seconds or cost.NAIVE_MAX_SECONDS,
                            **common)
    if e == "cost":
        return ex.cost(args.n or [128, 256, 512], args.d or [64], args.impl or list(ex.IMPLS),
                       d_h=args.d_h, backend=args.backend, dtype=one_dtype,
                       repeats=args.repeats or 5, **common)
    if e in ("factcheck", "correlated", "length", "init", "qk-grads", "training", "real-model"):
        return _beyond_the_notes(args, dks, scales)
    if e in ("stability", "ssmax"):
        return _stability(args)
    return ex.bench(args.n or [512, 1024, 2048], args.d or [64], bh=args.bh,
                    backend=args.backend, dtype=one_dtype, repeats=args.repeats or 7, **common)


def _beyond_the_notes(args: argparse.Namespace, dks: list[int], scales: list[str]) -> dict[str, Any]:
    """The experiments of the fact-check, beyond-√d_k, Q-vs-K, training and real-model pages."""
    e, seed = args.experiment, args.seed
    if e == "factcheck":
        from core import factcheck

        return factcheck.cli_result(seed, args.note)
    if e in ("correlated", "length", "init"):
        from core import beyond

        if e == "correlated":
            rhos = [args.rho] if args.rho else [0.0, 0.5, 0.9]
            return beyond.correlated_sweep(dks, rhos, n=_single(args.n, 10, "--n"),
                                           trials=_or(args.trials, 300), seed=seed)
        if e == "length":
            return beyond.length_sweep(args.n or [16, 64, 256, 1024], d_k=_single(args.dk, 64, "--dk"),
                                       rho=args.rho, trials=_or(args.trials, 200), seed=seed)
        return beyond.init_variance(_or(args.d_model, 768), _single(args.dk, 64, "--dk"), seed=seed)
    if e == "qk-grads":
        from core import qk

        return qk.grad_asymmetry(n=_single(args.n, 16, "--n"), d_k=_single(args.dk, 64, "--dk"),
                                 trials=_or(args.trials, 200), seed=seed, scales=tuple(scales))
    if e == "training":
        from core import training

        out = training.training(args.dk or list(training.DEFAULT_DKS),
                                args.scale or list(training.DEFAULT_SCALES),
                                n=_single(args.n, 16, "--n"), steps=_or(args.steps, 200), seed=seed)
        # one row per (d_k, scale) run; the per-step curves stay in the Python API
        return {"experiment": "training", "backend": out["backend"], "params": out["params"],
                "rows": out["runs"]}
    from core import real_model

    missing = real_model.availability()
    if missing:
        raise InputError(missing)
    text = "The quick brown fox jumps over the lazy dog." if args.text is None else args.text
    out = real_model.analyse(text)
    return {"experiment": "real_model", "backend": out["backend"],
            "params": {**out["params"], "summary": out["summary"], "tokens": out["tokens"]},
            "rows": out["rows"]}


def _stability(args: argparse.Namespace) -> dict[str, Any]:
    """The learning-rate sweep of the miniature (rows per run; per variant and the lesson question in
    params; the per-step curves stay in the Python API), or softmax against SSMax as n grows."""
    if args.experiment == "ssmax":
        from core.stability import length

        return length.cli_result(args.n or list(length.TOY_NS), d_k=_single(args.dk, 64, "--dk"),
                                 trials=_or(args.trials, 24), seed=args.seed)
    from core.stability import model, sweep

    out = sweep.sweep(args.variant or list(model.VARIANTS), args.lr or list(sweep.DEFAULT_LRS),
                      steps=_or(args.steps, sweep.DEFAULT_STEPS), seed=args.seed)
    params = {**out["params"], "variants_summary": out["variants"],
              "question": sweep.diverges_first_question(out) if "baseline" in out["params"]["variants"]
              and "qk-norm" in out["params"]["variants"] else None}
    return {"experiment": "stability", "backend": out["backend"], "params": params, "rows": out["rows"]}


def _or(value: Any, default: Any) -> Any:
    """The value given on the command line, or the default when it was left out (0 is a value)."""
    return default if value is None else value


def _single(values: Sequence[int] | None, default: int, flag: str) -> int:
    if not values:
        return default
    if len(values) > 1:
        raise InputError(f"{flag} takes one value for this experiment")
    return values[0]


def _one(values: Sequence[str] | None, default: str, flag: str) -> str:
    if not values:
        return default
    if len(values) > 1:
        raise InputError(f"{flag} takes one value for this experiment")
    if values[0] not in DTYPES:
        raise InputError(f"unknown dtype {values[0]!r}; choose one of {', '.join(DTYPES)}")
    return values[0]


def _single_scale(values: Sequence[str] | None) -> str:
    if values and len(values) > 1:
        raise InputError("entropy-grid takes one --scale")
    return values[0] if values else "none"


def _per_n(args: argparse.Namespace, fn: Any, default_n: int) -> dict[str, Any]:
    """Run an experiment once per requested n and concatenate the rows."""
    results = [fn(n) for n in (args.n or [default_n])]
    out = results[0]
    if len(results) > 1:
        out["params"]["n"] = [r["params"]["n"] for r in results]
        out["rows"] = [row for r in results for row in r["rows"]]
    return out


def format_table(result: dict[str, Any]) -> str:
    lines = [f"{result['experiment']} on {result['backend']}"]
    lines += _grid(COLUMNS[result["experiment"]], result["rows"])
    if result.get("fits"):
        level = result["params"].get("level", 0.95)
        lines += ["", f"fitted exponents: time ∝ size^exponent, {100 * level:.0f}% confidence interval"]
        lines += _grid(FIT_COLUMNS, result["fits"])
    if result.get("params", {}).get("notes"):
        lines += ["", "per note: statements found, checked (measured + literature), not checkable, verdicts"]
        lines += _grid(NOTE_COLUMNS, result["params"]["notes"])
    return "\n".join(lines)


def _grid(cols: Sequence[str], rows: Sequence[dict[str, Any]]) -> list[str]:
    cells = [[_cell(row.get(c)) for c in cols] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(cols)]
    out = ["  ".join(c.rjust(w) for c, w in zip(cols, widths, strict=True))]
    return out + ["  ".join(v.rjust(w) for v, w in zip(r, widths, strict=True)) for r in cells]


def _cell(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return "" if v is None else str(v)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        result = run(args)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except MemoryError:
        print("error: out of memory; use fewer trials or a smaller n / d_k", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    try:
        if args.json:
            print(json.dumps(_finite(result), allow_nan=False, default=_json_default))
        else:
            print(format_table(result))
        sys.stdout.flush()
    except BrokenPipeError:  # `… | head` closed the pipe: not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _finite(x: Any) -> Any:
    """Strict JSON has no inf/NaN: they are written as the strings "inf", "-inf", "nan"."""
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_finite(v) for v in x]
    return x


def _json_default(x: Any) -> Any:
    if hasattr(x, "item"):
        return x.item()
    raise TypeError(type(x).__name__)
