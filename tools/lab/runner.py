"""Many games, in this process, in worker processes or on a Dask cluster, stoppable at any moment.

Work is a list of tasks, each a seeded game; each result comes back keyed by its task, so the
figures do not depend on how many processes played them or in which order they finished. Ctrl-C,
SIGTERM (to the process or its whole group) or the time limit stops the work: what finished is
kept and marked partial. Worker processes (``--jobs``) each have a pipe of their own, and no lock
is shared: one that dies or hangs is found (its pipe closes, its process ends, or its game runs
far longer than any other), ended, and its game played again once, then reported lost.

Rulesets travel to workers by folder path and content hash: a worker loads the folder itself and
refuses it (RR304) if its content differs from what the sender loaded. On a cluster of other
machines the ruleset folders (and variant files) must be at the same paths there, and railrules
installed.
"""
from __future__ import annotations

import contextlib
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

from railrules.tools.common.clock import timing
from railrules.tools.common.outputs import progress_bar
from railrules.tools.common.heap import settled_heap

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

    off: list[bool] = []   # (cancelled: no more rings)

    def ring(signum, frame):
        if off:
            return
        # Rung again soon until cancelled: an exception raised while Python runs a gc callback
        # or a __del__ is printed and dropped ("Exception ignored"), and the run went on for ever.
        signal.setitimer(signal.ITIMER_REAL, _RING_AGAIN)
        raise _TimeUp()
    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)

    def cancel():   # (once or more: the second does nothing)
        if off:
            return
        off.append(True)
        try:
            signal.setitimer(signal.ITIMER_REAL, 0)
        finally:  # even if it rang just now: the handler is put back
            signal.signal(signal.SIGALRM, old)
    return cancel


_RING_AGAIN = 0.05   # seconds


# ------------------------------------------------------------------ stopping
_STOP = {"asked": False, "raise": False, "installed": 0}   # the signals' state in this process


def _asked(signum, frame):
    """SIGINT or SIGTERM: the work stops. Inside :func:`run` at once (KeyboardInterrupt: what
    finished is kept), elsewhere at the next :func:`run` or :func:`stop_asked`, so that a verb
    that has the figures of its games goes on to print them and write its files."""
    _STOP["asked"] = True
    if _STOP["raise"]:
        _STOP["raise"] = False   # once: ending the workers is not interrupted again
        raise KeyboardInterrupt


@contextlib.contextmanager
def stoppable():
    """While the block runs, SIGINT and SIGTERM (to this process or its whole group) stop the
    work the same way wherever they come: the games finished are kept and marked partial.
    On the main thread only (elsewhere nothing changes)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if _STOP["installed"] == 0:
        _STOP["asked"] = False
    old = [(s, signal.signal(s, _asked)) for s in (signal.SIGINT, signal.SIGTERM)]
    _STOP["installed"] += 1
    try:
        yield
    finally:
        _STOP["installed"] -= 1
        for s, handler in old:
            signal.signal(s, handler)


def _timed(fn, shared, task) -> tuple:
    """(task, fn(shared, task), the process time it took)."""
    start = time.process_time()
    result = fn(shared, task)
    return task, result, time.process_time() - start


def stop_asked() -> bool:
    """Whether SIGINT or SIGTERM came since the outermost :func:`stoppable` began."""
    return bool(_STOP["asked"])


# ------------------------------------------------------------------ worker processes
_HANG_SECONDS = 600.0   # a game running longer than this, and than 20 times the longest so far, hangs
_TRIES = 2              # a game whose worker dies is played once more, then reported lost


def _work(conn, fn, shared) -> None:
    """A worker process: tasks in, (task, result, process time, error) out, until its pipe closes. The signals are
    its parent's to handle (the parent ends it)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    gc.freeze()  # a worker lives as long as the run: what it received outlives every game
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        try:
            out = (*_timed(fn, shared, task), None)
        except Exception as err:  # sent to the parent, which raises it
            out = (task, None, 0.0, err)
        try:
            conn.send(out)
        except Exception:  # an error that does not pickle: its words
            conn.send((task, None, 0.0, RuntimeError(f"{type(out[3]).__name__}: {out[3]}")))


@contextlib.contextmanager
def _signals_held():
    """SIGINT, SIGTERM and the time limit's SIGALRM held back while the block runs, then
    delivered: a worker is started and listed as one step, so that a stop never leaves one alive
    that nobody ends (it ignores SIGTERM, and Python's exit would wait on it forever)."""
    held = {signal.SIGINT, signal.SIGTERM, signal.SIGALRM}
    signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, held)


class _Worker:
    """One worker process, its pipe, and the task it plays (None: idle)."""

    def __init__(self, context, fn, shared):
        self.conn, theirs = context.Pipe()
        self.process = context.Process(target=_work, args=(theirs, fn, shared), daemon=True)
        self.process.start()
        theirs.close()
        self.task, self.since = None, 0.0

    def give(self, task) -> None:
        self.task, self.since = task, time.monotonic()
        self.conn.send(task)

    def end(self) -> None:
        """Kill it (never waits on it): SIGKILL, then collect it."""
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        self.conn.close()


def _in_workers(fn, shared, tasks: list, jobs: int, lost: list, workers: list):
    """(task, result, its process time) as worker processes finish them. A worker that dies, or plays one game
    for too long (hangs), is ended and replaced; its game is played again once, then it is
    ``lost``. The live workers are in ``workers``: the caller ends them when the run ends, however
    it ends (a stop can come while this generator's own clean-up begins, and cut it short)."""
    import multiprocessing   # only for --jobs: a command that plays one game needs none
    from multiprocessing.connection import wait
    context = multiprocessing.get_context()
    todo, tries = list(reversed(tasks)), dict.fromkeys(tasks, 0)
    longest = 0.0
    while todo or any(w.task is not None for w in workers):
        while todo and len(workers) < jobs:
            with _signals_held():   # a stop between its start and the list would leave it alive
                workers.append(_Worker(context, fn, shared))
        for w in workers:
            if w.task is None and todo:
                task = todo.pop()
                tries[task] += 1
                w.give(task)
        busy = [w for w in workers if w.task is not None]
        ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout=1.0)
        if _STOP["asked"]:   # (see run: a stop whose KeyboardInterrupt was dropped)
            return
        now = time.monotonic()
        for w in busy:
            answered = w.conn in ready or w.process.sentinel in ready
            if answered and w.conn.poll():
                try:
                    task, result, seconds, err = w.conn.recv()
                except (EOFError, OSError):
                    pass   # it died while it wrote: as below
                else:
                    if err is not None:
                        raise err
                    longest = max(longest, now - w.since)
                    w.task = None
                    yield task, result, seconds
                    continue
            if answered or now - w.since > max(_HANG_SECONDS, 20 * longest):
                task, why = w.task, ("hung" if not answered else
                                     f"died (exit code {w.process.exitcode})")
                w.end()
                workers.remove(w)
                if tries[task] < _TRIES:
                    todo.append(task)
                else:
                    lost.append(task)
                    print(f"railrules: game {tasks.index(task) + 1} of {len(tasks)} lost: its "
                          f"worker {why}, twice", file=sys.stderr, flush=True)


def _run_batch(fn, shared, tasks: list) -> list:
    """On a cluster's worker: several short tasks for the cost of one."""
    return [_timed(fn, shared, task) for task in tasks]


def run(fn, shared, tasks: list, jobs: int = 1, time_limit: float | None = None,
        progress: bool = False, cluster: str | None = None,
        clock: dict | None = None) -> tuple[dict, bool]:
    """``{task: fn(shared, task)}`` for the tasks done, and whether the work stopped early (Ctrl-C,
    SIGTERM, the time limit, or a game lost with its worker). ``clock`` (a dict) receives the
    run's timing (tools/common/clock.py: wall and CPU time, the CPU being each task's process
    time, wherever it ran, and whether the machine was busy). ``shared`` (picklable: rulesets
    travel by path and content hash) is sent to each worker once.
    ``cluster``: a Dask scheduler's address, or "local" to start one here (one worker a core)."""
    done: dict = {}
    lost: list = []
    workers: list = []   # worker processes (--jobs), each ended when the run ends
    results = None
    on_cluster = None
    started, cpu = time.perf_counter(), 0.0
    with stoppable():
        if _STOP["asked"]:
            return done, True
        cancel = _alarm(time_limit)
        deadline = time.monotonic() + time_limit if time_limit and cancel is None else None
        try:
            _STOP["raise"] = True
            try:
                if cluster:
                    on_cluster = _Cluster(cluster)
                    results = on_cluster.results(fn, shared, tasks)
                elif jobs > 1:
                    results = _in_workers(fn, shared, tasks, jobs, lost, workers)
                else:
                    results = (_timed(fn, shared, t) for t in tasks)
                with settled_heap():
                    for task, result, seconds in results:
                        done[task] = result
                        cpu += seconds
                        if progress:
                            progress_bar(len(done), len(tasks))
                        if deadline and time.monotonic() > deadline and len(done) < len(tasks):
                            break
                        if _STOP["asked"]:   # a stop whose KeyboardInterrupt Python dropped (it
                            break            # came in a finalizer or a gc callback)
            finally:
                if cancel is not None:
                    cancel()
                _STOP["raise"] = False
        except (KeyboardInterrupt, _TimeUp):
            if cancel is not None:   # (a ring again, in the finally above before its cancel)
                cancel()
        finally:
            if results is not None and hasattr(results, "close"):
                results.close()
            for w in workers:   # (no stop can interrupt this: _STOP["raise"] is off by now)
                w.end()
            if on_cluster:
                on_cluster.close()
            if progress:
                print(file=sys.stderr)
            if clock is not None:
                cores = 1 if on_cluster or jobs <= 1 else min(jobs, max(len(tasks), 1))
                clock.update(timing(time.perf_counter() - started, cpu, cores))
    return done, len(done) < len(tasks)


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
