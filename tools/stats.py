"""Statistics for comparing arms: means with bootstrap intervals, paired differences, and a χ²
test of equal seats. Plain Python (no numpy): the samples are games, hundreds to thousands."""
from __future__ import annotations

import math
import random
import statistics

RESAMPLES = 2000
# Beyond this many games the interval is the normal one (mean ± 1.96 standard errors): the
# bootstrap's converges to it, and resampling thousands of games for every metric took minutes.
BOOTSTRAP_UP_TO = 400


def mean(xs: list) -> float:
    return sum(xs) / len(xs) if xs else math.nan


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


def normal_interval(xs: list, level: float = 0.95) -> tuple[float, float]:
    """Mean ± z standard errors (z for ``level``, two-sided), for many values."""
    m, error = mean(xs), statistics.stdev(xs) / math.sqrt(len(xs))
    z = statistics.NormalDist().inv_cdf(1 - (1 - level) / 2)
    return m - z * error, m + z * error


def summary(xs: list, seed: int = 0) -> dict:
    """Mean and 95 % interval of a metric over games."""
    low, high = bootstrap(xs, seed)
    return {"mean": mean(xs), "low": low, "high": high, "n": len(xs)}


def paired(xs: list, base: list, seed: int = 0) -> dict:
    """The mean of the game-by-game differences ``xs[i] - base[i]`` with its 95 % interval, and
    whether the interval excludes 0 (the change is more than the games' noise)."""
    d = [x - b for x, b in zip(xs, base)]
    s = summary(d, seed)
    s["significant"] = bool(d) and (s["low"] > 0 or s["high"] < 0)
    return s


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
