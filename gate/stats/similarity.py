"""Run-similarity heuristic of ICPE'23 (``../shared/papers/002_*.txt``). Pure numpy/scipy.

Five dissimilarity measures in [0, 1] of two measurement runs X, Y (§3.1; 0 = identical):

* M1 correlation: 1 − max(ρ_XY, 0), Pearson ρ on the common length.
* M2 compression (CDM): 2·c_XY/(c_X + c_Y) − 1 on SAX strings, c = compressed length.
* M3 Fourier distance: ‖F(X) − F(Y)‖₂ / (‖F(X)‖₂ + ‖F(Y)‖₂) of the complex FFT coefficients.
* M4 cosine: 1 − max(⟨X, Y⟩/(‖X‖₂‖Y‖₂), 0). (The paper's text prints the denominator as
  ‖X‖²+‖Y‖², which is not a cosine and cannot reach 1; we use the standard cosine.)
* M5 Kolmogorov-Smirnov statistic sup_t |F_X(t) − F_Y(t)| on the full runs.

Algorithm 1 (§3.2): average each measure over all pairs of runs; the runs are dissimilar
when a majority (≥ 3 of 5) of the averaged measures exceed θ = 0.25. The pairwise verdict
uses the same majority rule on one pair's measures.

Choices the paper leaves open (documented here, the only place they live):

* Runs of unequal length are cut to the shorter one for M1–M4 (they compare shapes point by
  point; :func:`pairwise_dissimilarity` cuts a whole set to its shortest run); M5 uses every
  value. M2 concatenates X then Y (LZW is not exactly symmetric; pairs are taken i < j).
* SAX (Lin et al. 2003): each run is z-normalised on its own, reduced by PAA to at most
  ``SAX_SEGMENTS`` = 128 segment means (this is what keeps M2 cheap on the 3,000-value JMH
  forks, and the paper's SAX step is a PAA by definition), then mapped to an alphabet of
  ``SAX_ALPHABET`` = 4 symbols with equiprobable N(0, 1) breakpoints.
* The compressor is raw DEFLATE (zlib level 9 without header and checksum, whose fixed
  bytes would dominate on 128-symbol words); its LZ77 stage is "finding recurring patterns
  and replacing them with a symbol". c is the compressed length in bytes. We first tried LZW:
  its dictionary grows too slowly on 128 symbols, so two *identical* runs scored M2 = 0.5;
  with DEFLATE they score ≈ 0.05.
* Degenerate runs: a constant run has no correlation; two constant runs count as perfectly
  correlated (M1 = 0), one constant run against a varying one as uncorrelated (M1 = 1).
  Zero vectors: two give M3 = M4 = 0, one gives 1.
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

THETA = 0.25  # §3.2
MAJORITY = 3  # at least three of the five measures
SAX_SEGMENTS = 128
SAX_ALPHABET = 4
MEASURE_NAMES: tuple[str, ...] = ("correlation", "compression", "fourier", "cosine", "ks")

FloatArray = NDArray[np.float64]


def _as_array(x: ArrayLike) -> FloatArray:
    return np.asarray(x, dtype=float).ravel()


def m1_correlation(x: ArrayLike, y: ArrayLike) -> float:
    a, b = _as_array(x), _as_array(y)
    n = min(a.size, b.size)
    a, b = a[:n] - a[:n].mean(), b[:n] - b[:n].mean()
    sa, sb = float(np.sqrt(a @ a)), float(np.sqrt(b @ b))
    if sa == 0.0 and sb == 0.0:
        return 0.0
    if sa == 0.0 or sb == 0.0:
        return 1.0
    rho = float(a @ b) / (sa * sb)
    return 1.0 - max(min(rho, 1.0), 0.0)


@functools.lru_cache(maxsize=16)
def _breakpoints(alphabet: int) -> FloatArray:
    """Equiprobable N(0, 1) breakpoints of a SAX alphabet (cached: ppf is slow)."""
    return np.asarray(stats.norm.ppf(np.arange(1, alphabet) / alphabet), dtype=float)


def sax(x: ArrayLike, segments: int = SAX_SEGMENTS, alphabet: int = SAX_ALPHABET) -> NDArray[np.int64]:
    """SAX word of ``x``: z-normalise, PAA to ≤ ``segments`` means, equiprobable breakpoints."""
    a = _as_array(x)
    if a.size == 0:
        return np.zeros(0, dtype=np.int64)
    sd = float(a.std())
    z = (a - a.mean()) / sd if sd > 1e-12 * max(1.0, abs(float(a.mean()))) else np.zeros_like(a)
    w = min(segments, z.size)
    # PAA with (almost) equal segments: np.add.reduceat over the array_split boundaries.
    bounds = (np.arange(w) * z.size) // w
    sums = np.add.reduceat(z, bounds)
    lengths = np.diff(np.append(bounds, z.size))
    paa = sums / lengths
    breakpoints = _breakpoints(alphabet)
    return np.searchsorted(breakpoints, paa).astype(np.int64)


def compressed_length(symbols: NDArray[np.int64]) -> int:
    """Bytes of raw DEFLATE (zlib, level 9, no header or checksum) of a SAX word: the c of M2."""
    if symbols.size == 0:
        return 0
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    data = symbols.astype(np.uint8).tobytes()
    return len(comp.compress(data) + comp.flush())


def m2_compression(x: ArrayLike, y: ArrayLike) -> float:
    sx, sy = sax(x), sax(y)
    cx, cy = compressed_length(sx), compressed_length(sy)
    if cx + cy == 0:
        return 0.0
    cxy = compressed_length(np.concatenate([sx, sy]))
    return float(min(1.0, max(0.0, 2.0 * cxy / (cx + cy) - 1.0)))


def m3_fourier(x: ArrayLike, y: ArrayLike) -> float:
    a, b = _as_array(x), _as_array(y)
    n = min(a.size, b.size)
    fa, fb = np.fft.fft(a[:n]), np.fft.fft(b[:n])
    den = float(np.linalg.norm(fa) + np.linalg.norm(fb))
    return 0.0 if den == 0.0 else float(np.linalg.norm(fa - fb)) / den


def m4_cosine(x: ArrayLike, y: ArrayLike) -> float:
    a, b = _as_array(x), _as_array(y)
    n = min(a.size, b.size)
    a, b = a[:n], b[:n]
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    if na == 0.0 and nb == 0.0:
        return 0.0
    if na == 0.0 or nb == 0.0:
        return 1.0
    return 1.0 - max(min(float(a @ b) / (na * nb), 1.0), 0.0)


def m5_ks(x: ArrayLike, y: ArrayLike) -> float:
    a, b = np.sort(_as_array(x)), np.sort(_as_array(y))
    if a.size == 0 or b.size == 0:
        return 1.0
    grid = np.concatenate([a, b])
    fa = np.searchsorted(a, grid, side="right") / a.size
    fb = np.searchsorted(b, grid, side="right") / b.size
    return float(np.max(np.abs(fa - fb)))


def dissimilarity(x: ArrayLike, y: ArrayLike) -> FloatArray:
    """The five measures M1–M5 of one pair of runs, in ``MEASURE_NAMES`` order."""
    return np.array(
        [m1_correlation(x, y), m2_compression(x, y), m3_fourier(x, y), m4_cosine(x, y), m5_ks(x, y)]
    )


def majority_dissimilar(measures: ArrayLike, theta: float = THETA) -> bool:
    """§3.2: dissimilar when at least three of the five measures exceed θ."""
    return int(np.sum(_as_array(measures) > theta)) >= MAJORITY


@dataclass(frozen=True)
class HeuristicResult:
    pairwise: FloatArray  # (R, R, 5) symmetric, zeros on the diagonal
    pair_dissimilar: NDArray[np.bool_]  # (R, R) majority vote per pair
    mean_measures: FloatArray  # (5,) Algorithm 1, line 7
    dissimilar: bool  # Algorithm 1 verdict for the whole set of runs
    run_flags: NDArray[np.bool_]  # (R,) run dissimilar to a strict majority of the others


def pairwise_dissimilarity(runs: Sequence[ArrayLike]) -> FloatArray:
    """(R, R, 5) matrix of the five measures for every pair of runs.

    Same values as :func:`dissimilarity` for pairs i < j of equal-length runs, but each run's SAX word and its
    compressed length are computed once, and M1, M3, M4 are one matrix product each on the
    runs cut to their common length (this is what keeps thousands of benchmarks cheap).
    """
    arrays = [_as_array(r) for r in runs]
    r = len(arrays)
    out = np.zeros((r, r, len(MEASURE_NAMES)))
    if r < 2:
        return out
    n = min(a.size for a in arrays)
    mat = np.stack([a[:n] for a in arrays])
    # M1: Pearson correlation matrix, with the degenerate-run conventions of m1_correlation.
    cen = mat - mat.mean(axis=1, keepdims=True)
    sd = np.sqrt(np.einsum("ij,ij->i", cen, cen))
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = (cen @ cen.T) / np.outer(sd, sd)
    m1 = 1.0 - np.clip(rho, 0.0, 1.0)
    const = sd == 0.0
    if const.any():
        m1[np.ix_(const, ~const)] = 1.0
        m1[np.ix_(~const, const)] = 1.0
        m1[np.ix_(const, const)] = 0.0
    # M3: by Parseval the FFT is ‖·‖-preserving up to √n, but we compute it as the paper says.
    f = np.fft.fft(mat, axis=1)
    fn = np.linalg.norm(f, axis=1)
    diff = np.linalg.norm(f[:, None, :] - f[None, :, :], axis=2)
    den = fn[:, None] + fn[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        m3 = np.where(den == 0.0, 0.0, diff / den)
    # M4: cosine matrix.
    nrm = np.linalg.norm(mat, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        cos = (mat @ mat.T) / np.outer(nrm, nrm)
    m4 = 1.0 - np.clip(cos, 0.0, 1.0)
    zero = nrm == 0.0
    if zero.any():
        m4[np.ix_(zero, ~zero)] = 1.0
        m4[np.ix_(~zero, zero)] = 1.0
        m4[np.ix_(zero, zero)] = 0.0
    words = [sax(a) for a in arrays]
    c = [compressed_length(w) for w in words]
    sorted_runs = [np.sort(a) for a in arrays]
    for i in range(r):
        for j in range(i + 1, r):
            cc = c[i] + c[j]
            m2 = (
                0.0
                if cc == 0
                else min(
                    1.0, max(0.0, 2.0 * compressed_length(np.concatenate([words[i], words[j]])) / cc - 1.0)
                )
            )
            a, b = sorted_runs[i], sorted_runs[j]
            grid = np.concatenate([a, b])
            m5 = float(
                np.max(
                    np.abs(
                        np.searchsorted(a, grid, side="right") / a.size
                        - np.searchsorted(b, grid, side="right") / b.size
                    )
                )
            )
            out[i, j] = out[j, i] = (m1[i, j], m2, m3[i, j], m4[i, j], m5)
    return out


def run_heuristic(runs: Sequence[ArrayLike], theta: float = THETA) -> HeuristicResult:
    """ICPE'23 Algorithm 1 over ``runs`` plus per-run flags.

    Per-run aggregation (our addition; the paper judges only the whole set): a run is flagged
    when its pairwise verdict is "dissimilar" against a strict majority of the other runs.
    Needs at least 3 runs — with two runs nobody can say which one is the odd one.
    """
    r = len(runs)
    pw = pairwise_dissimilarity(runs)
    pair = (pw > theta).sum(axis=2) >= MAJORITY
    np.fill_diagonal(pair, False)
    if r >= 2:
        iu = np.triu_indices(r, k=1)
        mean = pw[iu].mean(axis=0)
    else:
        mean = np.zeros(len(MEASURE_NAMES))
    flags = pair.sum(axis=1) * 2 > (r - 1) if r >= 3 else np.zeros(r, dtype=bool)
    return HeuristicResult(
        pairwise=pw,
        pair_dissimilar=pair,
        mean_measures=mean,
        dissimilar=bool(r >= 2 and majority_dissimilar(mean, theta)),
        run_flags=np.asarray(flags, dtype=bool),
    )
