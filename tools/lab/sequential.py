"""`railrules compare --until-verdict`: play in blocks and stop as soon as the verdicts are
settled, keeping the chance of any false verdict at 5 %.

The games are looked at after every block (``--games`` each) up to ``--max-games``. The 5 % is
spent over the looks by the Lan–DeMets function of the O'Brien–Fleming type,
alpha(t) = 2 - 2 Φ(z_{1-alpha/2} / sqrt(t)) at the share t of the most games: almost nothing at
the first looks, most at the last. Look k tests (with the usual correction over the metrics) at
the level it spends, alpha(t_k) - alpha(t_{k-1}); by the union bound over the looks the chance of
any false verdict stays at most 5 % whatever the rule for stopping (conservative: it ignores
that the looks share games).

It stops at the first look where every metric chosen with ``--metrics`` has a verdict, or,
without ``--metrics``, where any metric has one; else at ``--max-games``.
"""
from __future__ import annotations

import math
import statistics

from railrules.tools.lab import compare


def spent(t: float, alpha: float = 0.05) -> float:
    """The Lan–DeMets O'Brien–Fleming-type alpha spent by the share ``t`` of the games."""
    if t <= 0:
        return 0.0
    z = statistics.NormalDist().inv_cdf(1 - alpha / 2)
    return 2 - 2 * statistics.NormalDist().cdf(z / math.sqrt(min(t, 1.0)))


def levels(block: int, most: int, alpha: float = 0.05) -> list[tuple[int, float]]:
    """(games, test level) of each look: after each block, up to ``most`` games."""
    sizes = list(range(block, most, block)) + [most]
    return [(n, spent(n / most, alpha) - spent(prev / most, alpha)) for prev, n in zip([0] + sizes, sizes)]


def settled(result: dict, only: list | None) -> bool:
    """Whether the verdicts answer the question: every chosen metric changed, or (none chosen)
    some metric did."""
    found = [name for name, row in result["metrics"].items() if name not in compare.BALANCES
             and any(row[a]["change"]["significant"] for a in result["arms"][1:])]
    return bool(found) and (not only or len(found) == len(result["metrics"]) - len(compare.BALANCES))


def run(arms: list, block: int, most: int, players: int, specs: str, seed: int, jobs: int = 1,
        time_limit: float | None = None, progress: bool = False, cluster: str | None = None,
        correction: str = "holm", only: list | None = None) -> dict:
    """Play block after block until the verdicts are settled or ``most`` games are played; the
    result is compare's, with ``sequential``: the looks, their levels and why it stopped."""
    records: dict = {a.label: [] for a in arms}
    looks = []
    for n, level in levels(block, most):
        first = len(records[arms[0].label])
        more, stopped = compare.play(arms, first, n - first, players, specs, seed, jobs, time_limit,
                                     progress, cluster)
        for label, rs in more.items():
            records[label] += rs
        result = compare.summarize(arms, records, n, stopped, players, specs, seed, correction, only, level)
        looks.append({"games": len(records[arms[0].label]), "level": level,
                      "verdicts": len(compare.verdicts(result))})
        if stopped or settled(result, only) or n == most:
            break
    why = ("stopped early (Ctrl-C or --time-limit)" if stopped else
           f"every chosen metric has a verdict after {n} games" if settled(result, only) and only else
           f"a verdict after {n} games" if settled(result, only) else
           f"no {'complete ' if only else ''}verdict by --max-games {most}")
    said = ", ".join(f"{x['games']} games at level {x['level']:.2g}" for x in looks)
    result["sequential"] = {"looks": looks, "block": block, "max_games": most, "why": why,
                            "summary": f"until verdict (5 % spent over the looks, Lan-DeMets O'Brien-Fleming "
                                       f"type): {len(looks)} looks ({said}); {why}"}
    return result
