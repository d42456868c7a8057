"""Mean softmax entropy over a grid of (n, d_k) with common random numbers across both axes, so the map's
cells differ by the effect of n and d_k, not by fresh sampling noise in every cell.

Scores S = Q Kᵀ for iid N(0, 1) components (docs/science.md §1), drawn exactly without forming Q or K.
Take the QR decomposition of Qᵀ: Q = L Vᵀ with Vᵀ orthonormal and L (N × m, m = min(N, d_k)) lower
trapezoidal, independent of V, with (Bartlett)

    L_ii = √χ²_{d_k − i} (i < m),   L_ij ~ N(0, 1) (j < i),   L_ij = 0 (j > i);

then Q Kᵀ = L Z with Z = Vᵀ Kᵀ an m × N matrix of iid N(0, 1), independent of L (rotation invariance
of K). For d_k ≥ N this is core.sampling.gram_scores; it is exact for d_k < N too.

Common random numbers: the below-diagonal normals and Z are drawn once per trial and shared by every
d_k; each L_ii² grows from one d_k to the next by an independent χ² increment (χ²_{d₂−i} = χ²_{d₁−i} +
χ²_{d₂−d₁}), and a new column of L enters when d_k passes its index. Every n uses the top-left n × n
block of the largest matrix drawn in that trial, which is itself an exact draw of n queries and n keys
(L is lower triangular). So each cell's draws have exactly the right distribution, and each trial
follows one path over the whole map. Building S incrementally costs N²·max(d_k, N) per trial.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from core import budget
from core.attention import entropy_from_scores
from core.backend import get_backend
from core.results import Progress, Result, result, tick
from core.sampling import sub_seed
from core.scales import Scale, scale_factor
from core.validate import check_dks, check_n, check_scales, check_trials


def trial_seconds(n: int, dks: Sequence[int]) -> float:
    """Estimated seconds of one trial at size n over the sorted dks (core.budget's model): the score path's
    products (n²·min(n, max d_k) multiply-adds, n² per d_k) and, per d_k, the scaled copy, max, exp and
    sums of n × n scores (counted as 12 elementwise passes: measured against NumPy on a 2-core CPU)."""
    return budget.estimate_seconds(flops=2.0 * n * n * (min(n, max(dks)) + len(dks)),
                                   elementwise=12.0 * n * n * len(dks), samples=2.0 * n * n + n * len(dks))


def entropy_grid(ns: Sequence[int], dks: Sequence[int], scale: str | Scale, trials: Callable[[int], int],
                 seed: int = 0, dtype: str = "float32", progress: Progress = None) -> Result:
    """Mean entropy H = −Σ_j p_ij ln p_ij (nats) of the rows of softmax(c·Q Kᵀ) per (n, d_k), one scale,
    with its standard error; `trials(n)` draws for size n (non-increasing in n: a trial drawn at size N
    serves every n ≤ N). Common random numbers across n and d_k (module docstring)."""
    ns = sorted(set(check_n(n) for n in ns))
    dks = sorted(set(check_dks(dks)))
    (sc,) = check_scales([scale], dks)
    wanted = {n: check_trials(trials(n)) for n in ns}
    # a trial serves a prefix of ns: make the counts non-increasing so that holds
    for a, b in itertools.pairwise(ns):
        wanted[b] = min(wanted[b], wanted[a])
    be = get_backend("numpy", dtype)
    item = np.dtype(be.dtype).itemsize
    groups = [(N, wanted[N] - (wanted[ns[k + 1]] if k + 1 < len(ns) else 0)) for k, N in enumerate(ns)]
    groups = [(N, t) for N, t in groups if t > 0]
    # a trial drawn at size N also computes the entropies of every smaller n
    work = {N: trial_seconds(N, dks) + sum(trial_seconds(n, dks) for n in ns if n < N) * 0.5 for N in ns}
    total = sum(t * work[N] for N, t in groups)
    budget.check_time(total, "this entropy grid", "fewer trials or a smaller grid")
    sums = {(n, d): np.zeros(2) for n in ns for d in dks}  # Σ H, Σ H² over rows
    done = 0.0
    for N, t in groups:
        rng = be.rng(sub_seed(seed, 12, N))
        chunk = budget.chunk_trials(4 * item * N * N, t, "this entropy grid")
        for start in range(0, t, chunk):
            c_t = min(chunk, t - start)
            for d, S in _score_path(rng, c_t, N, dks, be.dtype):
                c = scale_factor(sc, d)
                for n in ns:
                    if n > N:
                        break
                    _, H = entropy_from_scores(S[:, :n, :n] * S.dtype.type(c))
                    H = np.asarray(H, dtype=np.float64)
                    sums[(n, d)] += (H.sum(), (H * H).sum())
            done += c_t * work[N]
            tick(progress, done, total)
    rows = []
    for n in ns:
        count = wanted[n] * n
        for d in dks:
            s1, s2 = sums[(n, d)]
            mean = s1 / count
            var = max(s2 / count - mean * mean, 0.0)
            rows.append({"n": n, "dk": d, "scale": sc.name, "c": scale_factor(sc, d),
                         "entropy_mean": float(mean), "entropy_se": float(math.sqrt(var / count)),
                         "ln_n": math.log(n), "trials": wanted[n]})
    params = {"n": ns, "dk": dks, "scale": sc.name, "trials": [wanted[n] for n in ns], "seed": seed,
              "common_random_numbers": True, "dtype": be.dtype}
    return result("entropy_grid", be.name, params, rows)


def _score_path(rng: Any, t: int, N: int, dks: Sequence[int], dtype: str) -> Any:
    """Yield (d_k, S) for every d_k of the sorted dks: t exact draws of Q Kᵀ (t × N × N) that share their
    normals across d_k (module docstring). S is a fresh array each time (the caller may overwrite it)."""
    A = rng.standard_normal((t, N, N), dtype=dtype)
    A *= np.tril(np.ones((N, N), dtype=dtype), k=-1)  # L's below-diagonal part
    Z = rng.standard_normal((t, N, N), dtype=dtype)
    D2 = np.zeros((t, N))  # L_ii² (χ² paths), for the columns entered so far
    off = np.zeros((t, N, N), dtype=dtype)  # Σ_{j < m} A[:, j] Z[j, :]
    m_prev, d_prev = 0, 0
    for d in dks:
        m = min(N, d)
        if m_prev:
            D2[:, :m_prev] += rng.chisquare(d - d_prev, size=(t, m_prev))
        if m > m_prev:
            D2[:, m_prev:m] = rng.chisquare(d - np.arange(m_prev, m, dtype=np.float64), size=(t, m - m_prev))
            off += A[:, :, m_prev:m] @ Z[:, m_prev:m, :]
        S = off.copy()
        S[:, :m, :] += np.sqrt(D2[:, :m, None]).astype(dtype) * Z[:, :m, :]
        m_prev, d_prev = m, d
        yield d, S
