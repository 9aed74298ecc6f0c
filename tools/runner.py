"""Many games, in this process or in worker processes, stoppable at any moment.

Work is a list of tasks, each a seeded game; each result comes back keyed by its task, so the
figures do not depend on how many processes played them or in which order they finished. Ctrl-C
(or the time limit) stops the work: what finished is kept and marked partial.
"""
from __future__ import annotations

import multiprocessing
import signal
import sys
import time

_WORK: dict = {}   # in a worker: what the initializer sent (rulesets, the game function)


def _init(fn, shared) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _WORK["fn"], _WORK["shared"] = fn, shared


def _run(task):
    return task, _WORK["fn"](_WORK["shared"], task)


def run(fn, shared, tasks: list, jobs: int = 1, time_limit: float | None = None,
        progress: bool = False) -> tuple[dict, bool]:
    """``{task: fn(shared, task)}`` for the tasks done, and whether the work stopped early.
    ``shared`` (picklable: rulesets travel by path and content hash) is sent to each worker once."""
    done: dict = {}
    deadline = time.monotonic() + time_limit if time_limit else None
    stopped = False
    pool = None
    try:
        if jobs > 1:
            pool = multiprocessing.Pool(jobs, _init, (fn, shared))
            results = pool.imap_unordered(_run, tasks)
        else:
            results = ((t, fn(shared, t)) for t in tasks)
        for task, result in results:
            done[task] = result
            if progress:
                _bar(len(done), len(tasks))
            if deadline and time.monotonic() > deadline and len(done) < len(tasks):
                stopped = True
                break
    except KeyboardInterrupt:
        stopped = True
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
        if progress:
            print(file=sys.stderr)
    return done, stopped


def _bar(done: int, total: int) -> None:
    width = 30
    filled = width * done // total
    print(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}", end="", file=sys.stderr, flush=True)
