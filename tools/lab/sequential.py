"""`railrules compare --until-verdict`: play in blocks and stop as soon as the verdicts are
settled, keeping the chance of any false verdict at 5 %.

The games are looked at after every block (``--games`` each) up to ``--max-games``: look k sees
the share t_k of the most games. The 5 % is spent over the looks by the Lan–DeMets function of
the O'Brien–Fleming type, alpha(t) = 2 - 2 Φ(z_{1-alpha/2} / sqrt(t)): almost nothing at the
first looks, most at the last. Each look has a two-sided boundary c_k on the z statistic such
that, when nothing changed, the chance of crossing at look k and at no earlier one is exactly
alpha(t_k) - alpha(t_{k-1}). The boundaries come from the joint normal law of the statistics
(corr(Z_j, Z_k) = sqrt(t_j / t_k)) by the recursive numerical integration of Armitage, McPherson
and Rowe (1969) as Jennison and Turnbull (2000, ch. 19) describe it: the density of Z_k on the
region not yet crossed is carried from look to look on a Simpson grid, and c_k solves the
crossing probability by bisection. A metric's paired test (t, McNemar or sign test) is then
compared at look k with the nominal level 2 (1 - Φ(c_k)).

With many metrics the correction is Holm's step-down run on boundaries (the group sequential
Holm procedure of Ye, Li and Jiang, 2013): the j-th smallest of m p-values is compared with the
nominal level of the boundary that spends alpha / (m - j + 1), so the chance of any false
verdict per arm stays at most 5 % whatever the rule for stopping. (With ``--fdr`` the j-th is
compared with the boundary that spends alpha j / m, Benjamini–Hochberg's steps.)

It stops at the first look where every metric named with ``--primary`` (else every metric chosen
with ``--metrics``) has a verdict, or, with neither, where any metric has one; else at
``--max-games``.
"""
from __future__ import annotations

import functools
import math
import time

from railrules.interpreter.runtime.memo import keep
from railrules.tools.lab import compare, stats

_SQRT2 = math.sqrt(2.0)
_SQRT2PI = math.sqrt(2.0 * math.pi)


def _above(z: float) -> float:
    """P(Z > z) for a standard normal Z, exact far in the tail (no 1 - Φ cancellation)."""
    return 0.5 * math.erfc(z / _SQRT2)


def spent(t: float, alpha: float = 0.05) -> float:
    """The two-sided alpha spent by the share ``t`` of the games: each side spends its alpha / 2
    by the Lan–DeMets O'Brien–Fleming-type function 2 - 2 Φ(z_{1-alpha/4} / sqrt(t))."""
    if t <= 0:
        return 0.0
    return 4 * _above(_z(alpha / 4) / math.sqrt(min(t, 1.0)))


@functools.lru_cache(maxsize=256)
def _z(tail: float) -> float:
    """The z with P(Z > z) = ``tail``."""
    return _bisect(_above, tail)


def _bisect(decreasing, target: float, low: float = 0.0, high: float = 40.0) -> float:
    """The x in [low, high] where the decreasing function equals ``target`` (to 1e-12)."""
    return stats.invert(lambda x: -decreasing(x), -target, low, high)


def _simpson(low: float, high: float, points: int) -> list[tuple[float, float]]:
    """Nodes and weights of Simpson's rule on [low, high] (``points`` odd)."""
    h = (high - low) / (points - 1)
    return [(low + i * h, h / 3 * (1 if i in (0, points - 1) else 4 if i % 2 else 2)) for i in range(points)]


WIDEST = 10.0   # the grid stops at ±10: the normal density beyond is below 1e-22
_LOOKS: dict = {}   # (times, alpha, points) -> the boundaries so far and the density carried on


def boundary(times: tuple, k: int, alpha: float = 0.05, points: int = 201) -> float:
    """The two-sided Lan–DeMets O'Brien–Fleming-type boundary c_k (k from 0) on the z statistic
    at look k of looks at the information fractions ``times`` (increasing, the last 1):
    P(no |Z_j| > c_j for j < k and |Z_k| > c_k) = alpha(t_k) - alpha(t_{k-1}) when nothing
    changed. Armitage–McPherson–Rowe recursion on a Simpson grid of ``points`` nodes; the looks
    are computed once, as far as asked (a run of many looks pays for those it makes)."""
    state = _LOOKS.get((times, alpha, points))
    if state is None:
        state = keep(_LOOKS, (times, alpha, points), {"c": [], "grid": [(0.0, 1.0, 1.0)]}, 512)
    while len(state["c"]) <= k:
        _next_look(state, times, alpha, points)
    return state["c"][k]


def _next_look(state: dict, times: tuple, alpha: float, points: int) -> None:
    """Solve the next look's boundary, then carry the density of Z on the region not crossed."""
    k, grid = len(state["c"]), state["grid"]     # grid: (z, weight, sub-density)
    t = times[k]
    r = math.sqrt(times[k - 1] / t) if k else 0.0     # Z_k | Z_{k-1} = u ~ N(u r, s²)
    s = math.sqrt(1 - r * r)
    target = spent(t, alpha) - (spent(times[k - 1], alpha) if k else 0.0)

    def crossing(c):
        return sum(w * g * (_above((c - u * r) / s) + _above((c + u * r) / s)) for u, w, g in grid)
    c = _bisect(crossing, target) if target > 0 else math.inf
    state["c"].append(c)
    edge = min(c, WIDEST)
    state["grid"] = [(z, v, sum(w * g * math.exp(-0.5 * ((z - u * r) / s) ** 2) for u, w, g in grid) / (s * _SQRT2PI))
                     for z, v in _simpson(-edge, edge, points)]


def boundaries(times: tuple, alpha: float = 0.05, points: int = 201) -> tuple:
    """Every look's boundary (see :func:`boundary`)."""
    return tuple(boundary(times, k, alpha, points) for k in range(len(times)))


def nominal(times: tuple, k: int, alpha: float = 0.05) -> float:
    """The nominal two-sided level of look ``k`` (from 0): a p-value at most this crosses."""
    return 2 * _above(boundary(times, k, alpha))


def looks_at(block: int, most: int) -> list[int]:
    """The games at each look: after each block, up to ``most``."""
    return list(range(block, most, block)) + [most]


def levels(block: int, most: int, alpha: float = 0.05) -> list[tuple[int, float]]:
    """(games, nominal level) of each look for one metric."""
    sizes = looks_at(block, most)
    times = tuple(n / most for n in sizes)
    return [(n, nominal(times, k, alpha)) for k, n in enumerate(sizes)]


def settled(result: dict, only: list | None) -> bool:
    """Whether the verdicts answer the question: every primary metric changed, else every chosen
    metric, or (none named) some metric did."""
    named = [n for n in result["metrics"] if n in result.get("primary", ())] or (
        [n for n in result["metrics"] if n not in compare.BALANCES] if only else [])
    found = [name for name, row in result["metrics"].items() if name not in compare.BALANCES
             and any(row[a]["change"]["significant"] for a in result["arms"][1:])]
    return all(n in found for n in named) if named else bool(found)


def run(arms: list, block: int, most: int, players: int, specs: str, seed: int, jobs: int = 1,
        time_limit: float | None = None, progress: bool = False, cluster: str | None = None,
        correction: str = "holm", only: list | None = None, primary: list | None = None) -> dict:
    """Play block after block until the verdicts are settled or ``most`` games are played; the
    result is compare's, with ``sequential``: the looks, their nominal levels and why it stopped."""
    records: dict = {a.label: [] for a in arms}
    looks = []
    sizes = looks_at(block, most)
    times = tuple(n / most for n in sizes)
    deadline = time.monotonic() + time_limit if time_limit else None   # the whole run's, not a block's
    for k, n in enumerate(sizes):
        left = time_limit
        if deadline is not None and k:
            left = deadline - time.monotonic()
            if left <= 0:   # out of time between two blocks: the last look stands, partial
                stopped = True
                break
        first = len(records[arms[0].label])
        more, stopped = compare.play(arms, first, n - first, players, specs, seed, jobs, left,
                                     progress, cluster)
        for label, rs in more.items():
            records[label] += rs
        result = compare.summarize(arms, records, n, stopped, players, specs, seed, correction, only,
                                   primary=primary, nominal=functools.partial(nominal, times, k))
        looks.append({"games": len(records[arms[0].label]), "level": nominal(times, k),
                      "verdicts": len(compare.verdicts(result))})
        if stopped or settled(result, only) or n == most:
            break
    result["partial"] = result["partial"] or stopped
    chosen = "primary" if primary else "chosen"
    why = ("stopped early (Ctrl-C or --time-limit)" if stopped else
           f"every {chosen} metric has a verdict after {n} games" if settled(result, only) and (only or primary) else
           f"a verdict after {n} games" if settled(result, only) else
           f"no {'complete ' if only or primary else ''}verdict by --max-games {most}")
    said = ", ".join(f"{x['games']} games at {x['level']:.2g}" for x in looks)
    result["sequential"] = {"looks": looks, "block": block, "max_games": most, "why": why,
                            "summary": f"until verdict (5 % spent over the looks, Lan-DeMets O'Brien-Fleming "
                                       f"type boundaries): {len(looks)} looks ({said}: the nominal level of "
                                       f"one metric; Holm's steps use the boundaries of 5 %/m); {why}"}
    return result

