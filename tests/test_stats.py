"""The statistics of `railrules compare`, each checked against scipy's reference
implementation on many random inputs."""
from __future__ import annotations

import random

import pytest

from railrules.tools.lab import stats

scipy_stats = pytest.importorskip("scipy.stats")
np = pytest.importorskip("numpy")


@pytest.mark.parametrize("a, b", [(0.5, 0.5), (1, 1), (2.5, 3.5), (12, 1), (0.3, 40), (150, 80)])
def test_the_incomplete_beta_is_the_beta_distribution(a, b):
    for x in (0.001, 0.05, 0.3, 0.5, 0.77, 0.999):
        assert stats.betainc(a, b, x) == pytest.approx(scipy_stats.beta.cdf(x, a, b), abs=1e-10)
        assert stats.beta_ppf(x, a, b) == pytest.approx(scipy_stats.beta.ppf(x, a, b), abs=1e-9)


@pytest.mark.parametrize("dof", [1, 2, 5, 19, 49, 399])
def test_student_t_matches_scipy(dof):
    for t in (-3.2, -0.4, 0.0, 1.1, 2.0, 6.5):
        assert stats.t_sf(t, dof) == pytest.approx(scipy_stats.t.sf(t, dof), abs=1e-10)
    for p in (0.01, 0.2, 0.5, 0.8, 0.975, 0.9995):
        assert stats.t_ppf(p, dof) == pytest.approx(scipy_stats.t.ppf(p, dof), abs=1e-7)
    for q in (1e-4, 1e-9, 1e-15):   # the levels of a corrected first look: 1 - q is 1 in floats
        assert stats.t_isf(q, dof) == pytest.approx(scipy_stats.t.isf(q, dof), rel=1e-8)


def test_proportion_intervals_match_scipy_and_are_never_zero_wide():
    for n in (1, 5, 12, 50, 200):
        for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            ref = scipy_stats.binomtest(k, n)
            assert stats.clopper_pearson(k, n) == pytest.approx(tuple(ref.proportion_ci(method="exact")), abs=1e-8)
            assert stats.wilson(k, n) == pytest.approx(tuple(ref.proportion_ci(method="wilson")), abs=1e-8)
            low, high = stats.proportion([1.0] * k + [0.0] * (n - k))["low"], stats.proportion([1.0] * k + [0.0] * (n - k))["high"]
            assert high - low > 0
    # the case: 12 wins in 12 games is [0.735, 1], not [1, 1]
    assert stats.proportion([1.0] * 12)["low"] == pytest.approx(0.7354, abs=1e-4)


def test_paired_tests_match_scipy():
    rng = random.Random(4)
    for _ in range(40):
        n = rng.choice([8, 30, 50, 120])
        base = [rng.choice([0, 1, 2, 5, 9]) for _ in range(n)]
        xs = [b + rng.choice([-2, 0, 0, 1, 3]) for b in base]
        got = stats.paired_test(xs, base)
        ref = scipy_stats.ttest_rel(xs, base)
        assert got["p"] == pytest.approx(ref.pvalue, abs=1e-9)
        low, high = ref.confidence_interval(0.95)
        assert (got["low"], got["high"]) == pytest.approx((low, high), abs=1e-8)
        pooled = np.sqrt((np.var(xs, ddof=1) + np.var(base, ddof=1)) / 2)
        assert got["effect"] == pytest.approx((np.mean(xs) - np.mean(base)) / pooled)
        # shares: McNemar's exact test is the sign test of the games that differ
        wins = [rng.random() < 0.4 for _ in range(n)]
        other = [w if rng.random() < 0.7 else rng.random() < 0.6 for w in wins]
        got = stats.paired_test([float(x) for x in other], [float(x) for x in wins])
        up = sum(o and not w for o, w in zip(other, wins))
        down = sum(w and not o for o, w in zip(other, wins))
        expected = scipy_stats.binomtest(up, up + down).pvalue if up + down else 1.0
        assert got["p"] == pytest.approx(expected, abs=1e-12)
        assert got["effect_kind"] == "difference of proportions"
        assert got["effect"] == pytest.approx(np.mean(other) - np.mean(wins))


def test_a_win_share_with_ties_takes_the_exact_sign_test():
    """A win shared by k players counts 1/k: the games are no longer 0 or 1, and the exact test
    is the sign test of the games that differed (scipy's binomial test of ups among them)."""
    rng = random.Random(9)
    for _ in range(30):
        n = rng.choice([10, 40, 150])
        base = [rng.choice([0.0, 0.0, 1.0, 0.5, 1 / 3]) for _ in range(n)]
        xs = [b if rng.random() < 0.5 else rng.choice([0.0, 1.0, 0.5, 1 / 3]) for b in base]
        got = stats.paired_test(xs, base, exact=True)
        up = sum(x > b for x, b in zip(xs, base))
        down = sum(x < b for x, b in zip(xs, base))
        assert got["p"] == pytest.approx(scipy_stats.binomtest(up, up + down).pvalue if up + down else 1.0, abs=1e-12)
        if up + down and got["sd"]:   # without ``exact``, the t-test
            assert stats.paired_test(xs, base)["p"] == pytest.approx(scipy_stats.ttest_rel(xs, base).pvalue, abs=1e-9)


def test_a_step_down_on_boundaries_rejects_by_the_level_each_step_spends():
    ps = [0.0001, 0.004, 0.02, 0.3]
    assert stats.holm(ps)[1] == [True, True, True, False]
    # a look that tests a step spending a at a / 10: only the first survives
    assert stats.holm(ps, 0.05, lambda a: a / 10)[1] == [True, False, False, False]
    assert stats.holm(ps, 0.05, lambda a: a / 10)[0] == stats.holm(ps)[0]   # adjusted p: the fixed design's
    assert stats.benjamini_hochberg(ps, 0.05, lambda a: a / 10)[1] == [True, False, False, False]
    rng = random.Random(3)
    for _ in range(200):   # with no boundary, rejecting is an adjusted p at most alpha
        qs = [rng.random() ** 3 for _ in range(rng.randint(1, 12))]
        for method in (stats.holm, stats.benjamini_hochberg):
            adjusted, rejected = method(qs)
            assert rejected == [a <= 0.05 for a in adjusted]


def test_holm_and_benjamini_hochberg_match_a_hand_reference():
    # Holm (1979): sorted p times m, m-1, ..., made non-decreasing, capped at 1
    ps = [0.01, 0.04, 0.03, 0.005, 0.5]
    holm, rejected = stats.holm(ps)
    assert holm == pytest.approx([0.04, 0.09, 0.09, 0.025, 0.5])
    assert rejected == [True, False, False, True, False]
    # Benjamini–Hochberg (1995): p * m / rank from the largest down, made non-increasing
    bh, rejected = stats.benjamini_hochberg(ps)
    assert bh == pytest.approx([0.025, 0.05, 0.05, 0.025, 0.5])
    assert rejected == [True, True, True, True, False]
    # against scipy's false_discovery_control (BH) on random p-values
    rng = np.random.default_rng(5)
    for _ in range(20):
        ps = list(rng.uniform(0, 0.2, size=int(rng.integers(1, 40))))
        assert stats.benjamini_hochberg(ps)[0] == pytest.approx(list(scipy_stats.false_discovery_control(ps)))
        adjusted = stats.holm(ps)[0]
        order = np.argsort(ps)
        ref = np.maximum.accumulate([min(1, (len(ps) - r) * ps[i]) for r, i in enumerate(order)])
        assert [adjusted[i] for i in order] == pytest.approx(list(ref))


def test_the_detectable_change_has_80_percent_power():
    """At the smallest detectable change, the paired t-test's power (noncentral t) is 80 %."""
    for n, sd, alpha in ((50, 3.0, 0.05), (200, 0.5, 0.05 / 40), (20, 10.0, 0.01)):
        delta = stats.detectable(sd, n, alpha)
        crit = scipy_stats.t.ppf(1 - alpha / 2, n - 1)
        nc = delta / (sd / np.sqrt(n))
        power = scipy_stats.nct.sf(crit, n - 1, nc) + scipy_stats.nct.cdf(-crit, n - 1, nc)
        assert power == pytest.approx(0.80, abs=0.01)
