"""Many games, in this process, in worker processes or on a Dask cluster, stoppable at any moment.

Work is a list of tasks, each a seeded game; each result comes back keyed by its task, so the
figures do not depend on how many processes played them or in which order they finished. Ctrl-C
(or the time limit) stops the work: what finished is kept and marked partial.

Rulesets travel to workers by folder path and content hash: a worker loads the folder itself and
refuses it (RR304) if its content differs from what the sender loaded. On a cluster of other
machines the ruleset folders (and variant files) must be at the same paths there, and railrules
installed.
"""
from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import sys
import threading
import time

from .heap import settled_heap

_WORK: dict = {}   # in a worker: what the initializer sent (rulesets, the game function)
_IN_FLIGHT = 64    # tasks sent to a cluster ahead of the results


class ClusterError(Exception):
    """A cluster that cannot be used: Dask is not installed, or the address does not answer."""


class _TimeUp(BaseException):
    """The time limit rang: raised in the main thread like Ctrl-C's KeyboardInterrupt, and like
    it not an Exception, so that no ``except Exception`` on the way swallows it."""


def _alarm(seconds: float | None):
    """Raise :class:`_TimeUp` in the main thread once ``seconds`` have passed, wherever it is
    (inside a game: the action rolls back); returns the function that cancels it. Off the main
    thread, or without timers: None (the deadline is then checked between games)."""
    if not seconds or threading.current_thread() is not threading.main_thread() \
            or not hasattr(signal, "setitimer"):
        return None

    def ring(signum, frame):
        raise _TimeUp()
    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)

    def cancel():
        try:
            signal.setitimer(signal.ITIMER_REAL, 0)
        finally:  # even if it rang just now: the handler is put back
            signal.signal(signal.SIGALRM, old)
    return cancel


def _init(fn, shared) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _WORK["fn"], _WORK["shared"] = fn, shared
    gc.freeze()  # a worker lives as long as its pool: what it received outlives every game


def _run(task):
    return task, _WORK["fn"](_WORK["shared"], task)


def run(fn, shared, tasks: list, jobs: int = 1, time_limit: float | None = None,
        progress: bool = False, cluster: str | None = None) -> tuple[dict, bool]:
    """``{task: fn(shared, task)}`` for the tasks done, and whether the work stopped early.
    ``shared`` (picklable: rulesets travel by path and content hash) is sent to each worker once.
    ``cluster``: a Dask scheduler's address, or "local" to start one here (one worker a core)."""
    done: dict = {}
    pool = None
    on_cluster = _Cluster(cluster) if cluster else None
    cancel = _alarm(time_limit)
    deadline = time.monotonic() + time_limit if time_limit and cancel is None else None
    try:
        try:
            if on_cluster:
                results = on_cluster.results(fn, shared, tasks)
            elif jobs > 1:
                pool = multiprocessing.Pool(jobs, _init, (fn, shared))
                results = pool.imap_unordered(_run, tasks)
            else:
                results = ((t, fn(shared, t)) for t in tasks)
            with settled_heap():
                for task, result in results:
                    done[task] = result
                    if progress:
                        _bar(len(done), len(tasks))
                    if deadline and time.monotonic() > deadline and len(done) < len(tasks):
                        break
        finally:
            if cancel is not None:
                cancel()
    except (KeyboardInterrupt, _TimeUp):
        pass
    finally:
        stopped = len(done) < len(tasks)
        if pool is not None:
            pool.terminate()
            pool.join()
        if on_cluster:
            on_cluster.close()
        if progress:
            print(file=sys.stderr)
    return done, stopped


class _Cluster:
    """A Dask distributed client: to a scheduler's address, or to a cluster started here."""

    def __init__(self, address: str):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ClusterError("--cluster needs Dask distributed: pip install \"railrules[cluster]\" "
                               "(or pip install \".[cluster]\" in the checkout)") from None
        self.local = self.client = None
        try:
            if address == "local":
                self.local = LocalCluster(n_workers=os.cpu_count() or 1, threads_per_worker=1,
                                          processes=True, dashboard_address=None)
                self.client = Client(self.local)
            else:
                self.client = Client(address, timeout="10s")
        except (OSError, TimeoutError, ValueError) as err:
            self.close()
            raise ClusterError(f"cannot reach the cluster at {address}: {err}") from None

    def results(self, fn, shared, tasks: list):
        """(task, result) as they finish, with at most _IN_FLIGHT tasks sent ahead."""
        from distributed import as_completed
        [remote] = self.client.scatter([shared], broadcast=True)
        todo = iter(tasks)
        sent = {self.client.submit(fn, remote, t, pure=False): t for t, _ in zip(todo, range(_IN_FLIGHT))}
        running = as_completed(list(sent))
        for future in running:
            yield sent.pop(future), future.result()
            for t in todo:
                nxt = self.client.submit(fn, remote, t, pure=False)
                sent[nxt] = t
                running.add(nxt)
                break

    def close(self) -> None:
        for part in (self.client, self.local):
            if part is not None:
                try:
                    part.close()
                except Exception:  # noqa: BLE001 - closing after an error or Ctrl-C: nothing to save
                    pass


_LAST_BAR = [0.0]   # when the bar was last drawn


def _bar(done: int, total: int) -> None:
    """The progress bar, drawn at most ten times a second (and at the end): a terminal redrawn
    for every one of thousands of short games keeps the run waiting on its output."""
    now = time.monotonic()
    if done < total and now - _LAST_BAR[0] < 0.1:
        return
    _LAST_BAR[0] = now
    width = 30
    filled = width * done // total
    print(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}", end="", file=sys.stderr, flush=True)
