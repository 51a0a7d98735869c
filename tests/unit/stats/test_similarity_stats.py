"""gate.stats.similarity: the five ICPE'23 measures, the majority vote and Figure 1's cases."""

from __future__ import annotations

import numpy as np
import pytest

from gate.stats.similarity import (
    MEASURE_NAMES,
    THETA,
    compressed_length,
    dissimilarity,
    m1_correlation,
    m3_fourier,
    m4_cosine,
    m5_ks,
    majority_dissimilar,
    pairwise_dissimilarity,
    run_heuristic,
    sax,
)

T = np.linspace(0.0, 4.0 * np.pi, 1000)
BASE = np.sin(T)


def _verdict(x: np.ndarray, y: np.ndarray) -> bool:
    return majority_dissimilar(dissimilarity(x, y))


# ICPE'23 §3.2, Figure 1: the offset examples and the double frequency are dissimilar (≥ 3 of
# 5 measures above θ), the noise example is similar. The figure is a schematic; these are
# sine waves of the same kind.
def test_figure1_offset_is_dissimilar() -> None:
    m = dissimilarity(BASE, BASE + 1.0)
    assert majority_dissimilar(m)
    assert m[0] == pytest.approx(0.0, abs=1e-12)  # same shape: correlation sees nothing


def test_figure1_offset_with_noise_is_dissimilar() -> None:
    rng = np.random.default_rng(1)
    assert _verdict(BASE + rng.normal(0, 0.1, T.size), BASE + 1.0 + rng.normal(0, 0.1, T.size))


def test_figure1_double_frequency_is_dissimilar() -> None:
    m = dissimilarity(BASE, np.sin(2.0 * T))
    assert majority_dissimilar(m)
    assert m[4] < THETA  # same distribution of values: KS alone would miss it


def test_figure1_noise_is_similar() -> None:
    rng = np.random.default_rng(2)
    m = dissimilarity(BASE, BASE + rng.normal(0, 0.2, T.size))
    assert not majority_dissimilar(m)


def test_identical_runs_are_near_zero_on_every_measure() -> None:
    m = dissimilarity(BASE, BASE)
    assert m[[0, 2, 3, 4]] == pytest.approx(0.0, abs=1e-12)
    assert m[1] < 0.1  # compression: the repeat costs only a few bytes


def test_measures_are_in_unit_interval_and_scale_invariant() -> None:
    rng = np.random.default_rng(3)
    for _ in range(20):
        x, y = rng.lognormal(0, 0.3, 200), rng.lognormal(0.1, 0.5, 180)
        m = dissimilarity(x, y)
        assert np.all((m >= 0.0) & (m <= 1.0))
        # Units must not matter (seconds vs nanoseconds).
        np.testing.assert_allclose(dissimilarity(x * 1e9, y * 1e9), m, atol=1e-9)


def test_single_measures_against_definitions() -> None:
    x = np.array([1.0, 2.0, 3.0, 4.0])
    assert m1_correlation(x, -x) == 1.0  # negative correlation is clipped to 0
    assert m1_correlation(x, 2 * x + 1) == pytest.approx(0.0)
    assert m4_cosine(x, -x) == 1.0
    assert m4_cosine(x, 3 * x) == pytest.approx(0.0, abs=1e-12)
    y = np.array([1.0, 2.0, 3.0, 5.0])
    # Parseval: with complex coefficients M3 equals the time-domain ratio.
    assert m3_fourier(x, y) == pytest.approx(np.linalg.norm(x - y) / (np.linalg.norm(x) + np.linalg.norm(y)))
    assert m5_ks([1, 2, 3], [4, 5, 6]) == 1.0
    assert m5_ks([1, 2, 3, 4], [3, 4, 5, 6]) == pytest.approx(0.5)


def test_degenerate_runs() -> None:
    c = np.full(60, 2.0)
    z = np.zeros(60)
    assert m1_correlation(c, c) == 0.0 and m1_correlation(c, BASE[:60]) == 1.0
    assert m4_cosine(z, z) == 0.0 and m4_cosine(z, c) == 1.0
    assert m3_fourier(z, z) == 0.0
    assert not majority_dissimilar(dissimilarity(c, c))


def test_sax_word() -> None:
    word = sax(np.arange(1000.0), segments=128, alphabet=4)
    assert word.size == 128
    assert np.all(np.diff(word) >= 0)  # increasing series → non-decreasing symbols
    assert set(word.tolist()) == {0, 1, 2, 3}
    assert sax(np.arange(10.0)).size == 10  # shorter than the segment count: no PAA
    assert np.all(sax(np.full(50, 3.0)) == sax(np.full(50, 3.0))[0])
    assert compressed_length(np.zeros(0, dtype=np.int64)) == 0


def test_majority_rule_counts_strictly_above_theta() -> None:
    assert majority_dissimilar([0.3, 0.3, 0.3, 0.0, 0.0])
    assert not majority_dissimilar([0.3, 0.3, THETA, 0.0, 0.0])  # θ itself is not above θ
    assert not majority_dissimilar([1.0, 1.0, 0.1, 0.1, 0.1])


def test_pairwise_equals_pair_by_pair() -> None:
    rng = np.random.default_rng(4)
    runs = [rng.normal(5, 1, 80) for _ in range(4)] + [np.full(80, 3.0), np.zeros(80)]
    pw = pairwise_dissimilarity(runs)
    assert pw.shape == (6, 6, len(MEASURE_NAMES))
    for i in range(6):
        assert np.all(pw[i, i] == 0.0)
        for j in range(i + 1, 6):
            np.testing.assert_allclose(pw[i, j], dissimilarity(runs[i], runs[j]), atol=1e-12)
            np.testing.assert_array_equal(pw[i, j], pw[j, i])


def test_algorithm1_and_run_flags() -> None:
    rng = np.random.default_rng(5)
    shape = 1.0 + 0.05 * np.sin(np.linspace(0, 6 * np.pi, 300))
    runs = [shape + rng.normal(0, 0.005, 300) for _ in range(5)]
    similar = run_heuristic(runs)
    assert not similar.dissimilar and not similar.run_flags.any()
    odd = [*runs[:4], 1.2 + 0.05 * np.sin(np.linspace(0, 12 * np.pi, 300))]
    res = run_heuristic(odd)
    assert res.run_flags.tolist() == [False, False, False, False, True]
    assert res.pair_dissimilar[4, :4].all() and not res.pair_dissimilar[:4, :4].any()
    # Algorithm 1 averages the 10 pairs: 4 odd pairs of 10 are not enough to call the set dissimilar.
    np.testing.assert_allclose(res.mean_measures, res.pairwise[np.triu_indices(5, 1)].mean(axis=0))


def test_two_runs_cannot_name_the_odd_one() -> None:
    res = run_heuristic([BASE, BASE + 1.0])
    assert res.pair_dissimilar[0, 1] and res.dissimilar
    assert not res.run_flags.any()
