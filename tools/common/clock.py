"""CPU time beside wall time, and whether the machine was busy, for `bench` and long runs.

Wall time alone misleads on a shared machine: a run given a quarter of a core takes four times
as long with the same work. So a run reports the CPU time its games took (each game's process
time, summed over workers) beside the wall time, and says the machine was busy when the CPU it
got was under ``BUSY_SHARE`` of what its jobs could have had (CPU / (wall x jobs)), or when the
load average over the last minute was above the cores this process may use.
"""
from __future__ import annotations

import os

BUSY_SHARE = 0.8


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def load_average() -> float | None:
    """The load average over the last minute (None where the system does not tell)."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def timing(wall: float, cpu: float, jobs: int = 1) -> dict:
    """The figures of a run that took ``wall`` seconds and ``cpu`` seconds of process time in
    ``jobs`` processes: JSON-ready, with ``busy`` and the reasons for it."""
    share = cpu / (wall * max(jobs, 1)) if wall > 0 else None
    load, n = load_average(), cores()
    why = []
    if share is not None and share < BUSY_SHARE:
        why.append(f"the work got {share:.0%} of {'a core' if jobs == 1 else f'{jobs} cores'}")
    if load is not None and load > n:
        why.append(f"load average {load} on {n} core{'s' if n != 1 else ''}")
    return {"wall_seconds": round(wall, 3), "cpu_seconds": round(cpu, 3),
            "cpu_share": round(share, 2) if share is not None else None, "jobs": jobs,
            "load_average": load, "cores": n, "busy": bool(why), "busy_because": why}


def describe(t: dict) -> str:
    """One line: wall and CPU time, and whether the machine was busy."""
    line = f"wall {t['wall_seconds']} s, CPU {t['cpu_seconds']} s"
    if t["busy"]:
        line += (f"; the machine was busy ({'; '.join(t['busy_because'])}): wall-time figures are "
                 "slower than the work itself, compare CPU figures")
    return line
