"""Many games on a cluster or worker processes: every game is kept, whatever goes wrong.

A cluster gets more tasks than it has in flight, loses a worker in the middle of a run, or is
an address where no Dask scheduler listens; a run is stopped with SIGTERM. The figures are
always those of the games played in this process, or a clear message and exit code.
"""
from __future__ import annotations

import json
import signal
import socket
import sys
import threading
from pathlib import Path

import pytest

from railrules.interpreter import load_ruleset
from railrules.interpreter.paths import rulesets_dir
from railrules.tools.lab import runner, simulate
from railrules.tools.cli import main

COIN_RACE = str(rulesets_dir() / "templates" / "coin_race")
ROOT = Path(__file__).resolve().parents[1]


def _needs_dask():
    pytest.importorskip("distributed", reason="--cluster needs Dask distributed (pip install '.[cluster]')")


def _simulate(capsys, *extra) -> dict:
    code = main(["simulate", COIN_RACE, "--games", str(extra[0]), "--players", "2", "--json", *extra[1:]])
    result = json.loads(capsys.readouterr().out)
    assert code == 0, result
    return {k: v for k, v in result.items() if k not in ("seconds", "playouts_per_second",
                                                          "decisions_per_second", "bots", "jobs")}


def test_a_cluster_keeps_every_task_beyond_those_in_flight(capsys, monkeypatch):
    """Three batches of one task in flight, ten tasks: the fourth was once dropped."""
    _needs_dask()
    monkeypatch.setattr(runner, "_IN_FLIGHT", 3)
    monkeypatch.setattr(runner, "_BATCH", 1)
    on_cluster = _simulate(capsys, 10, "--cluster", "local")
    assert on_cluster["finished"] == 10 and not on_cluster["partial"]
    assert on_cluster == _simulate(capsys, 10)


@pytest.mark.slow  # 70 games, one a task, on a local cluster
def test_a_cluster_keeps_the_65th_game_and_after(capsys, monkeypatch):
    _needs_dask()
    monkeypatch.setattr(runner, "_BATCH", 1)   # 70 tasks: more than the 64 in flight
    on_cluster = _simulate(capsys, 70, "--cluster", "local")
    assert on_cluster["finished"] == 70 and not on_cluster["partial"]
    assert on_cluster == _simulate(capsys, 70, "--jobs", "2")


def _dies_once(shared, seed):
    """A game whose worker dies (the process exits) the first time it plays seed 5."""
    import os
    marker = Path(shared[-1]) / "died"
    if seed == 5 and not marker.exists():
        marker.write_text("x")
        os._exit(1)
    return simulate._one(shared[:-1], seed)


@pytest.mark.slow  # starts a cluster of two worker processes and restarts one
def test_a_worker_killed_mid_run_changes_nothing(tmp_path):
    _needs_dask()
    import cloudpickle
    from distributed import LocalCluster
    cloudpickle.register_pickle_by_value(sys.modules[__name__])   # the workers cannot import tests/
    ruleset = load_ruleset(COIN_RACE)
    shared = (ruleset, 2, "random", False, str(tmp_path))
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        done, stopped = runner.run(_dies_once, shared, list(range(1, 31)), cluster=cluster.scheduler_address)
    assert (tmp_path / "died").exists()   # a worker did die
    here, _ = runner.run(simulate._one, shared[:-1], list(range(1, 31)))
    assert not stopped and _untimed(done) == _untimed(here)


def _untimed(done: dict) -> dict:
    return {seed: {k: v for k, v in r.items() if k != "thinking"} for seed, r in done.items()}


class _Listener:
    """A TCP port on 127.0.0.1 that is not a Dask scheduler: it answers anything with HTTP 400
    (``http``), or accepts and says nothing (``silent``); it lets go after 60 s at most."""

    def __init__(self, mode: str):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(60)
        self.address = f"tcp://127.0.0.1:{self.sock.getsockname()[1]}"
        self.mode, self.conns = mode, []
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        try:
            while True:
                conn, _ = self.sock.accept()
                self.conns.append(conn)
                if self.mode == "http":
                    conn.settimeout(60)
                    conn.recv(65536)
                    conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
        except OSError:
            pass

    def close(self):
        for c in [*self.conns, self.sock]:
            c.close()


@pytest.mark.parametrize("mode", ["http", "silent"])
def test_a_port_that_is_no_dask_scheduler_is_said_plainly(mode, capsys, monkeypatch):
    _needs_dask()
    monkeypatch.setattr(runner, "_CONNECT_TIMEOUT", 1.0)
    listener = _Listener(mode)
    try:
        code = main(["simulate", COIN_RACE, "--games", "2", "--cluster", listener.address])
    finally:
        listener.close()
    err = capsys.readouterr().err
    assert code == 1, err
    assert f"cannot reach the cluster at {listener.address}" in err
    assert "internal error" not in err and "Traceback" not in err


@pytest.mark.parametrize("verb, jobs", [("simulate", "1"), ("compare", "2")])
def test_sigterm_stops_like_ctrl_c_with_the_figures_so_far(verb, jobs):
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(sys.executable, ["-m", "railrules", verb, COIN_RACE, "--games", "1000000",
                                           "--players", "2", "--jobs", jobs],
                          encoding="utf-8", timeout=120, cwd=str(ROOT),
                          preexec_fn=lambda: signal.signal(signal.SIGTERM, signal.SIG_DFL))
    child.expect(r"\] \d+/1000000")  # the progress bar: the games are being played
    child.kill(signal.SIGTERM)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130, child.before
    assert "stopped early" in child.before and "Traceback" not in child.before
