"""Statistics for comparing arms: means with bootstrap intervals, paired differences, and a χ²
test of equal seats. Plain Python (no numpy): the samples are games, hundreds to thousands."""
from __future__ import annotations

import functools
import math
import random
import statistics

RESAMPLES = 2000
# Beyond this many games the interval is the normal one (mean ± 1.96 standard errors): the
# bootstrap's converges to it, and resampling thousands of games for every metric took minutes.
BOOTSTRAP_UP_TO = 400


def mean(xs: list) -> float:
    return sum(xs) / len(xs) if xs else math.nan


def variance(xs: list) -> float:
    """The sample variance (n - 1), in floats (statistics.variance is exact and slow)."""
    m = mean(xs)
    return sum((x - m) ** 2 for x in xs) / (len(xs) - 1)


def bootstrap(xs: list, seed: int = 0, level: float = 0.95) -> tuple[float, float]:
    """The percentile bootstrap interval of the mean of ``xs`` (seeded: the same data give the
    same interval); the normal interval past ``BOOTSTRAP_UP_TO`` values. (nan, nan) for no data."""
    n = len(xs)
    if n == 0:
        return math.nan, math.nan
    if n == 1 or min(xs) == max(xs):
        return float(xs[0]), float(xs[0])
    if n > BOOTSTRAP_UP_TO:
        return normal_interval(xs, level)
    rng = random.Random(seed)
    means = sorted(sum(rng.choices(xs, k=n)) / n for _ in range(RESAMPLES))
    tail = (1 - level) / 2
    return means[int(tail * RESAMPLES)], means[min(RESAMPLES - 1, int((1 - tail) * RESAMPLES))]


def percentile(xs: list, q: float) -> float:
    """The ``q`` quantile of ``xs`` as the percentile bootstrap takes it (the value at index
    int(q n) of the sorted values); nan for no values."""
    if not xs:
        return math.nan
    ordered = sorted(xs)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def normal_interval(xs: list, level: float = 0.95) -> tuple[float, float]:
    """Mean ± z standard errors (z for ``level``, two-sided), for many values."""
    m, error = mean(xs), statistics.stdev(xs) / math.sqrt(len(xs))
    z = statistics.NormalDist().inv_cdf(1 - (1 - level) / 2)
    return m - z * error, m + z * error


def summary(xs: list, seed: int = 0) -> dict:
    """Mean and 95 % interval of a metric over games."""
    low, high = bootstrap(xs, seed)
    return {"mean": mean(xs), "low": low, "high": high, "n": len(xs)}


def chi_square_equal(counts: list) -> tuple[float, float]:
    """χ² statistic and p-value of the hypothesis that every seat wins equally often."""
    total, k = sum(counts), len(counts)
    if total == 0 or k < 2:
        return 0.0, 1.0
    expected = total / k
    stat = sum((c - expected) ** 2 / expected for c in counts)
    return stat, _chi2_sf(stat, k - 1)


def _chi2_sf(x: float, dof: int) -> float:
    """P(χ²(dof) > x): the regularised upper incomplete gamma Q(dof/2, x/2)."""
    a, z = dof / 2, x / 2
    if z <= 0:
        return 1.0
    if z < a + 1:  # series for the lower part
        term = total = 1 / a
        k = a
        while abs(term) > 1e-14 * abs(total):
            k += 1
            term *= z / k
            total += term
        return max(0.0, 1 - total * math.exp(-z + a * math.log(z) - math.lgamma(a)))
    # continued fraction for the upper part (Lentz)
    tiny = 1e-300
    b = z + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 500):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        h *= d * c
        if abs(d * c - 1) < 1e-14:
            break
    return min(1.0, math.exp(-z + a * math.log(z) - math.lgamma(a)) * h)


# ------------------------------------------------------------------ distributions (no scipy)
def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (tiny if abs(d) < tiny else d)
    h = d
    for m in range(1, 1000):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + num * d
            d = 1 / (tiny if abs(d) < tiny else d)
            c = 1 + num / c
            c = tiny if abs(c) < tiny else c
            h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b) (the beta distribution's CDF)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _betacf(a, b, x) / a
    return 1 - front * _betacf(b, a, 1 - x) / b


def invert(cdf, p: float, low: float, high: float) -> float:
    """x in [low, high] with cdf(x) = p, for an increasing cdf (bisection to 1e-12)."""
    for _ in range(200):
        mid = (low + high) / 2
        if cdf(mid) < p:
            low = mid
        else:
            high = mid
        if high - low < 1e-12:
            break
    return (low + high) / 2


def beta_ppf(p: float, a: float, b: float) -> float:
    """The ``p`` quantile of the beta(a, b) distribution."""
    return invert(lambda x: betainc(a, b, x), p, 0.0, 1.0)


def t_sf(t: float, dof: float) -> float:
    """P(T > t) for Student's t with ``dof`` degrees of freedom."""
    tail = 0.5 * betainc(dof / 2, 0.5, dof / (dof + t * t))
    return tail if t >= 0 else 1 - tail


@functools.lru_cache(maxsize=1024)
def t_isf(q: float, dof: float) -> float:
    """The t with P(T > t) = ``q`` (remembered: a comparison asks for the same few); exact for
    the tiny ``q`` of a corrected or sequential level, where 1 - q is 1 in floating point."""
    if q == 0.5:
        return 0.0
    if q > 0.5:
        return -t_isf(1 - q, dof)
    high = 10.0
    while t_sf(high, dof) > q:
        high *= 2
    low = 0.0
    for _ in range(200):
        mid = (low + high) / 2
        if t_sf(mid, dof) > q:
            low = mid
        else:
            high = mid
        if high - low < 1e-12 * max(1.0, high):
            break
    return (low + high) / 2


def t_ppf(p: float, dof: float) -> float:
    """The ``p`` quantile of Student's t."""
    return -t_isf(p, dof)


# ------------------------------------------------------------------ proportions
def clopper_pearson(k: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """The exact (Clopper–Pearson) interval of a proportion of ``k`` successes in ``n`` trials
    (``k`` may be fractional: shared wins count 1/winners)."""
    if n == 0:
        return math.nan, math.nan
    tail = (1 - level) / 2
    low = 0.0 if k <= 0 else beta_ppf(tail, k, n - k + 1)
    high = 1.0 if k >= n else beta_ppf(1 - tail, k + 1, n - k)
    return low, high


def wilson(k: float, n: float, level: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval of a proportion of ``k`` in ``n``."""
    if n == 0:
        return math.nan, math.nan
    z = statistics.NormalDist().inv_cdf(1 - (1 - level) / 2)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def is_rate(xs: list) -> bool:
    """Whether the values are shares of a game in [0, 1] (a win, an end reason, a shared win)."""
    return bool(xs) and all(0 <= x <= 1 for x in xs)


def proportion(xs: list) -> dict:
    """Mean and exact 95 % interval of per-game shares in [0, 1] (never zero wide)."""
    low, high = clopper_pearson(sum(xs), len(xs))
    return {"mean": mean(xs), "low": low, "high": high, "n": len(xs)}


# ------------------------------------------------------------------ paired tests
def binom_two_sided(k: int, n: int) -> float:
    """The exact two-sided p-value of ``k`` successes in ``n`` fair coin tosses (the sign test,
    McNemar's exact test on the discordant pairs)."""
    if n == 0:
        return 1.0
    k = min(k, n - k)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def paired_test(xs: list, base: list, exact: bool = False) -> dict:
    """The paired change ``xs - base``: its mean, 95 % t interval, the p-value of 'no change'
    and an effect size. Figures that are 0 or 1 in every game take McNemar's exact test, shares
    with ties (``exact``: a win shared by k players counts 1/k) the exact sign test on the games
    that differed (McNemar's test is its 0-or-1 case), others the paired t-test. The effect of a share in [0, 1] (a win rate) is the difference of
    proportions; of another figure, Cohen's d: the mean change over the pooled standard
    deviation of the two arms (infinite when both are constant)."""
    d = [x - b for x, b in zip(xs, base)]
    n = len(d)
    rate = is_rate(xs + base)
    m, differed = mean(d), sum(1 for v in d if v != 0)
    out: dict[str, float | int | str] = {"mean": m, "n": n, "differed": differed, "effect_kind": "d"}
    if rate:
        out.update(effect_kind="difference of proportions", effect=m)
    else:
        pooled = math.sqrt((variance(xs) + variance(base)) / 2) if n > 1 else 0.0
        out["effect"] = m / pooled if pooled else (0.0 if m == 0 else math.copysign(math.inf, m))
    if n < 2 or differed == 0:
        return {**out, "low": m, "high": m, "p": 1.0, "sd": 0.0}
    sd = 0.0 if min(d) == max(d) else math.sqrt(variance(d))
    half = t_isf(0.025, n - 1) * sd / math.sqrt(n)
    out.update(low=m - half, high=m + half, sd=sd)
    if exact or all(v in (0, 1) for v in xs + base):
        out["p"] = binom_two_sided(sum(1 for v in d if v > 0), differed)
    elif sd == 0:  # every game moved by the same amount
        out["p"] = 0.0
    else:
        out["p"] = 2 * t_sf(abs(m) / (sd / math.sqrt(n)), n - 1)
    return out


def detectable(sd: float, n: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest paired change a two-sided t-test at level ``alpha`` finds with probability
    ``power`` in ``n`` games whose differences have standard deviation ``sd`` (the usual
    approximation (t_{1-alpha/2} + t_{power}) * sd / sqrt(n))."""
    if n < 2:
        return math.nan
    return (t_isf(alpha / 2, n - 1) + t_ppf(power, n - 1)) * sd / math.sqrt(n)


# ------------------------------------------------------------------ multiple comparisons
def as_is(level: float) -> float:
    return level


def holm(ps: list, alpha: float = 0.05, nominal=as_is) -> tuple[list, list]:
    """Holm's step-down: (adjusted p-values, rejected) for p-values ``ps``; controls the chance of
    any false verdict among them at ``alpha``. ``nominal``: the level a p-value is compared with
    for a step that spends a given level (a sequential look's boundary; by default that level)."""
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    adjusted, running = [1.0] * m, 0.0
    rejected, going = [False] * m, True
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * ps[i]))
        adjusted[i] = running
        going = going and ps[i] <= nominal(alpha / (m - rank))
        rejected[i] = going
    return adjusted, rejected


def benjamini_hochberg(ps: list, alpha: float = 0.05, nominal=as_is) -> tuple[list, list]:
    """Benjamini–Hochberg step-up: (adjusted p-values, rejected); controls the expected share of
    false verdicts among the verdicts at ``alpha``. ``nominal`` as for :func:`holm`."""
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i], reverse=True)
    adjusted, running = [1.0] * m, 1.0
    rejected, found = [False] * m, False
    for rank, i in enumerate(order):
        running = min(running, ps[i] * m / (m - rank))
        adjusted[i] = running
        found = found or ps[i] <= nominal(alpha * (m - rank) / m)
        rejected[i] = found
    return adjusted, rejected


CORRECTIONS = {"holm": holm, "fdr": benjamini_hochberg}
