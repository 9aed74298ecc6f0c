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
import itertools
import math
import os
import signal
import socket
import struct
import sys
import threading
import time

from railrules.tools.common.heap import settled_heap

_WORK: dict = {}   # in a worker: what the initializer sent (rulesets, the game function)
_IN_FLIGHT = 64    # batches of tasks sent to a cluster ahead of the results
_BATCH = 16        # at most this many tasks a batch (a cluster's cost is per batch, ~ms)
_CONNECT_TIMEOUT = 10.0   # seconds for a cluster's scheduler to answer


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


def _on_sigterm():
    """Handle SIGTERM as Ctrl-C (KeyboardInterrupt: what finished is kept) while the work runs,
    on the main thread; returns the function that puts the old handler back."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def stop(signum, frame):
        raise KeyboardInterrupt
    old = signal.signal(signal.SIGTERM, stop)
    return lambda: signal.signal(signal.SIGTERM, old)


def _init(fn, shared) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the pool ends its workers with SIGTERM
    _WORK["fn"], _WORK["shared"] = fn, shared
    gc.freeze()  # a worker lives as long as its pool: what it received outlives every game


def _run(task):
    return task, _WORK["fn"](_WORK["shared"], task)


def _run_batch(fn, shared, tasks: list) -> list:
    """On a cluster's worker: several short tasks for the cost of one."""
    return [(task, fn(shared, task)) for task in tasks]


def run(fn, shared, tasks: list, jobs: int = 1, time_limit: float | None = None,
        progress: bool = False, cluster: str | None = None) -> tuple[dict, bool]:
    """``{task: fn(shared, task)}`` for the tasks done, and whether the work stopped early.
    ``shared`` (picklable: rulesets travel by path and content hash) is sent to each worker once.
    ``cluster``: a Dask scheduler's address, or "local" to start one here (one worker a core)."""
    done: dict = {}
    pool = None
    on_cluster = _Cluster(cluster) if cluster else None
    cancel = _alarm(time_limit)
    restore = _on_sigterm()
    deadline = time.monotonic() + time_limit if time_limit and cancel is None else None
    try:
        try:
            if on_cluster:
                results = on_cluster.results(fn, shared, tasks)
            elif jobs > 1:
                import multiprocessing   # only for --jobs: a command that plays one game needs none
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
            restore()
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
                _answers_as_dask(address)
                self.client = Client(address, timeout=f"{_CONNECT_TIMEOUT}s")
        except ClusterError:
            raise
        except (OSError, TimeoutError, ValueError, MemoryError) as err:
            # MemoryError: Dask read a frame length out of something that is not Dask
            self.close()
            raise ClusterError(f"cannot reach the cluster at {address}: {err}") from None

    def results(self, fn, shared, tasks: list):
        """(task, result) as they finish, with at most _IN_FLIGHT batches sent ahead. A batch
        holds up to _BATCH tasks, fewer when there are few tasks a worker: short games cost a
        cluster little more than on worker processes, and every worker still gets work.
        ``shared`` goes with every batch (rulesets pickle as a path and a hash; a worker loads
        each once): no data lives on one worker only, so losing any worker loses no game."""
        from distributed import as_completed
        client = self.client
        assert client is not None  # made by __init__ (which raises if it cannot)
        workers = max(1, len(client.scheduler_info().get("workers", ())))
        size = max(1, min(_BATCH, math.ceil(len(tasks) / (4 * workers))))
        todo = iter([tasks[i:i + size] for i in range(0, len(tasks), size)])

        def submit(batch):
            return client.submit(_run_batch, fn, shared, batch, pure=False)
        running = as_completed([submit(b) for b in itertools.islice(todo, _IN_FLIGHT)])
        for future in running:
            yield from future.result()
            for batch in itertools.islice(todo, 1):
                running.add(submit(batch))

    def close(self) -> None:
        for part in (self.client, self.local):
            if part is not None:
                try:
                    part.close()
                except Exception:  # closing after an error or Ctrl-C: nothing to save
                    pass


def _answers_as_dask(address: str) -> None:
    """Raise ClusterError unless what listens at a tcp:// address (or host:port) starts as a
    Dask scheduler does: it speaks first, a frame of a few hundred bytes. Dask's own connection
    waits for that first frame without a time limit (a port that accepts and stays silent hangs
    it) and believes any length it reads (an HTTP server's answer asks for exabytes)."""
    scheme, _, rest = address.rpartition("://")
    if scheme not in ("", "tcp"):
        return   # tls, ucx, ...: left to Dask
    host, _, port = rest.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=_CONNECT_TIMEOUT) as sock:
            head = b""
            while len(head) < 8:
                part = sock.recv(8 - len(head))
                if not part:
                    raise ClusterError(f"cannot reach the cluster at {address}: it closed the "
                                       "connection without answering; is it a Dask scheduler?")
                head += part
    except (socket.timeout, TimeoutError):
        raise ClusterError(f"cannot reach the cluster at {address}: nothing answered within "
                           f"{_CONNECT_TIMEOUT:g} s; is it a Dask scheduler's address?") from None
    except (OSError, ValueError) as err:
        raise ClusterError(f"cannot reach the cluster at {address}: {err}") from None
    (length,) = struct.unpack("Q", head)   # as Dask frames it (native order)
    if not 0 < length < 1 << 20:
        raise ClusterError(f"cannot reach the cluster at {address}: what answers there is not a "
                           "Dask scheduler")


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
