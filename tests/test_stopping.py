"""Runs of many games stop the same way, whatever stops them (tools/lab/runner.py): SIGINT or
SIGTERM sent to the whole process group at a random moment ends every verb that plays games
with ``--jobs 2`` (the games finished reported, marked partial, the files asked for written,
exit 130, no worker left behind); a worker that is killed or hangs costs no game, or the run
says which game it lost.
"""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from railrules.interpreter import load_ruleset
from railrules.interpreter.paths import rulesets_dir
from railrules.tools.lab import runner, simulate

COIN_RACE = str(rulesets_dir() / "templates" / "coin_race")
ROOT = Path(__file__).resolve().parents[1]
MANY = "1000000"

VERBS = {
    "simulate": ["simulate", COIN_RACE, "--games", MANY],
    "compare": ["compare", COIN_RACE, "--games", MANY],
    "until-verdict": ["compare", COIN_RACE, "--set", "goal=11", "--until-verdict", "--games", "200",
                      "--max-games", MANY, "--csv", "{dir}/out.csv"],
    "tune": ["tune", COIN_RACE, "--param", "goal=5..15", "--games", "400", "--budget", MANY],
    "tournament": ["tournament", COIN_RACE, "--bots", "random,greedy", "--games", MANY],
    "coverage": ["coverage", COIN_RACE, "--games", MANY],
}


def _group(pgid: int) -> list[int]:
    """The processes of a process group (read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


def _stopped(verb: str, sig: int, tmp_path: Path, rng: random.Random) -> tuple[int, str, str]:
    """Run a verb with --jobs 2 in a process group of its own; once its workers play, wait a
    random moment and send ``sig`` to the group. Its exit code, output and errors."""
    argv = [a.format(dir=tmp_path) for a in VERBS[verb]] + ["--players", "2", "--jobs", "2", "--json"]
    child = subprocess.Popen([sys.executable, "-m", "railrules", *argv], cwd=str(ROOT), text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        for _ in range(600):   # at most 60 s for the workers to start
            if len(_group(child.pid)) >= 3 or child.poll() is not None:
                break
            time.sleep(0.1)
        time.sleep(rng.uniform(0.0, 1.5))
        os.killpg(child.pid, sig)
        out, err = child.communicate(timeout=60)   # (a hang is a failure, not a time measured)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
    for _ in range(50):   # the workers go with their parent
        if not _group(child.pid):
            break
        time.sleep(0.1)
    assert not _group(child.pid), f"processes left behind after {verb}"
    return child.returncode, out, err


def _check(verb: str, code: int, out: str, err: str, tmp_path: Path) -> None:
    assert code == 130, (code, err)
    assert "Traceback" not in err and "internal error" not in err and "interrupted" not in err, err
    result = json.loads(out)
    assert result["partial"] is True
    if verb == "tune":
        assert all(t["objective"] == t["objective"] for t in result["trials"])   # no NaN trial
        assert result["games"] == 400 * len(result["trials"])                   # whole trials only
    if verb == "until-verdict":
        assert (tmp_path / "out.csv").exists() and "sequential" in result


@pytest.mark.parametrize("verb, sig", [("simulate", signal.SIGTERM), ("compare", signal.SIGINT),
                                       ("until-verdict", signal.SIGTERM), ("tune", signal.SIGINT),
                                       ("tournament", signal.SIGTERM), ("coverage", signal.SIGINT)])
def test_a_signal_to_the_group_stops_every_verb_with_its_figures(verb, sig, tmp_path):
    _check(verb, *_stopped(verb, sig, tmp_path, random.Random(f"{verb}{sig}")), tmp_path)


@pytest.mark.slow   # 20 times each verb and each signal, at random moments
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize("verb", list(VERBS))
def test_a_signal_to_the_group_stops_every_verb_20_times(verb, sig, tmp_path):
    """The 20 runs go four at a time (each in its own process group): a run mostly waits for
    its processes to start, and runs side by side only make the moments of the signals vary
    more."""
    moments = random.Random(f"{verb}{sig}")
    rngs = [random.Random(moments.random()) for _ in range(20)]

    def one(i: int) -> None:
        where = tmp_path / str(i)
        where.mkdir()
        _check(verb, *_stopped(verb, sig, where, rngs[i]), where)

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(one, range(20)))   # (the first failure is raised here)


def _kills_its_worker(shared, seed):
    """Game 5's worker is killed (SIGKILL) the first time it plays it, or every time."""
    marker = Path(shared[-2]) / "killed"
    if seed == 5 and (shared[-1] or not marker.exists()):
        marker.write_text("x")
        os.kill(os.getpid(), signal.SIGKILL)
    return simulate._one(shared[:-2], seed)


def _hangs(shared, seed):
    """Game 3 hangs (its worker sleeps) the first time it is played."""
    marker = Path(shared[-1]) / "hung"
    if seed == 3 and not marker.exists():
        marker.write_text("x")
        time.sleep(3600)
    return simulate._one(shared[:-1], seed)


def test_a_killed_worker_costs_no_game(tmp_path):
    shared = (load_ruleset(COIN_RACE), 2, "random", False, str(tmp_path), False)
    done, stopped = runner.run(_kills_its_worker, shared, list(range(1, 13)), jobs=2)
    assert (tmp_path / "killed").exists()   # a worker did die
    here, _ = runner.run(simulate._one, shared[:-2], list(range(1, 13)))
    assert not stopped and _same(done, here)


def _same(a: dict, b: dict) -> bool:
    strip = lambda d: {k: {f: x for f, x in r.items() if f != "thinking"} for k, r in d.items()}
    return strip(a) == strip(b)


def test_a_game_whose_worker_dies_twice_is_reported_lost_by_number(tmp_path, capsys):
    shared = (load_ruleset(COIN_RACE), 2, "random", False, str(tmp_path), True)
    done, stopped = runner.run(_kills_its_worker, shared, list(range(1, 9)), jobs=2)
    assert stopped and sorted(done) == [1, 2, 3, 4, 6, 7, 8]
    assert "game 5 of 8 lost: its worker died" in capsys.readouterr().err


def test_a_hung_worker_is_ended_and_its_game_played_again(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "_HANG_SECONDS", 2.0)
    shared = (load_ruleset(COIN_RACE), 2, "random", False, str(tmp_path))
    done, stopped = runner.run(_hangs, shared, list(range(1, 7)), jobs=2)
    here, _ = runner.run(simulate._one, shared[:-1], list(range(1, 7)))
    assert (tmp_path / "hung").exists() and not stopped and _same(done, here)


def _double(shared, task):
    return task * 2


def _stop_at_call(k: int):
    """A profile function that stops the run (as SIGTERM does: runner._asked) at the ``k``-th
    call the runner's code makes, or at the first one after it where SIGTERM is not held back.
    Python runs a signal's handler at such moments (a call, a return, a loop's jump back), and
    the kernel delivers a held signal once it is let through."""
    seen = [0]

    def profile(frame, event, arg):
        caller = frame.f_back if event == "call" else frame
        if event in ("call", "c_call") and caller is not None \
                and caller.f_code.co_filename == runner.__file__:
            seen[0] += 1
            if seen[0] >= k and signal.SIGTERM not in signal.pthread_sigmask(signal.SIG_BLOCK, []):
                sys.setprofile(None)
                runner._asked(signal.SIGTERM, None)
    return profile, seen


def test_a_stop_at_any_moment_of_a_run_leaves_no_worker_alive():
    """The stop comes at each call a run with two worker processes makes in turn, from the first
    to past the last: whenever it comes, the run returns and every worker is ended (a worker
    ignores SIGTERM, so one left alive would hang Python's exit for ever)."""
    import faulthandler
    import multiprocessing
    faulthandler.dump_traceback_later(300, exit=True)   # a hang: where, then the test fails
    calls = None
    k = 1
    while calls is None or k <= calls + 1:
        profile, seen = _stop_at_call(k)
        with runner.stoppable():
            sys.setprofile(profile)
            try:
                done, stopped = runner.run(_double, None, [1, 2, 3, 4, 5], jobs=2)
            finally:
                sys.setprofile(None)
        assert not multiprocessing.active_children(), f"a worker left alive by a stop at call {k}"
        assert all(done[t] == 2 * t for t in done) and stopped == (len(done) < 5)
        if seen[0] < k:      # the run ended before the k-th call: every moment has been tried
            calls = seen[0]
        k += 1
    faulthandler.cancel_dump_traceback_later()
    assert calls and calls > 50
