"""Files railrules writes are never clobbered: saves reserved at start, whole or absent,
``--force`` replaces regular files only, output paths refused before any game is played, and
every write failure exits non-zero naming the path."""
from __future__ import annotations

import errno
import io
import json
import os
import stat
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from railrules.interpreter.paths import rulesets_dir
from railrules.tools.common import outputs
from railrules.tools.cli import main

COIN_RACE = str(rulesets_dir() / "templates" / "coin_race")
ROOT = Path(__file__).resolve().parents[1]


def cli(*argv, stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main(list(argv))
    finally:
        sys.stdin = old
    return code, out.getvalue(), err.getvalue()


def _play(save: Path, *extra) -> tuple[int, str, str]:
    return cli("play", COIN_RACE, "--players", "2", "--seed", "1", "--save", str(save), *extra,
               stdin="quit\n")


# ---------------------------------------------------------------- saves
def test_two_games_given_the_same_save_path_the_second_is_refused_at_start(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    save = tmp_path / "same.json"
    args = ["-m", "railrules", "play", COIN_RACE, "--players", "2", "--seed", "1", "--save", str(save)]
    first = pexpect.spawn(sys.executable, args, encoding="utf-8", timeout=60, cwd=str(ROOT))
    try:
        first.expect("Your choice")   # the first game is being played; the second starts now
        second = subprocess.run([sys.executable, *args], input="quit\n", capture_output=True,
                                text=True, timeout=60, cwd=str(ROOT))
        assert second.returncode == 2, second.stdout + second.stderr
        assert f"--save {save}" in second.stderr and "already exists" in second.stderr
        assert "Your choice" not in second.stdout          # refused before its game started
        first.sendline("1")
        first.sendline("quit")
        first.expect("saved to")
        first.expect(pexpect.EOF)
    finally:
        first.close()
    assert first.exitstatus == 0
    assert len(json.loads(save.read_text())["state"]["history"]) >= 1   # the first game's move


def test_a_save_taken_between_the_check_and_the_start_is_refused(tmp_path, monkeypatch):
    """The other game reserves the path after this one checked it (both started together):
    the reservation was skipped because the file existed by then, and both games said
    "saved to" the same file, the first one lost."""
    from railrules.tools.play import terminal
    save = tmp_path / "same.json"
    made = terminal.open_game

    def other_game_first(*args, **kwargs):
        save.write_text("the other game's save")
        return made(*args, **kwargs)
    monkeypatch.setattr(terminal, "open_game", other_game_first)
    code, out, err = _play(save)
    assert code == 2 and "already exists" in err and "Your choice" not in out
    assert save.read_text() == "the other game's save"


def test_two_servers_given_one_save_path_the_second_is_refused_at_start(tmp_path, monkeypatch):
    """serve --save took nothing: two servers given one path both said "saved", the first
    game lost."""
    pytest.importorskip("uvicorn")
    import railrules.tools.play.serve as serve
    served = []
    monkeypatch.setattr(serve, "serve_table", lambda table, host, port: served.append(table))
    save = tmp_path / "same.json"
    argv = ["serve", COIN_RACE, "--players", "2", "--save", str(save)]
    assert cli(*argv)[0] == 0 and save.exists()
    code, _, err = cli(*argv)
    assert code == 2 and "already exists" in err and len(served) == 1


def test_the_save_is_reserved_holding_the_game_as_it_starts(tmp_path, monkeypatch):
    """Between the start and the first save, the path holds a loadable save of the start."""
    from railrules.interpreter import load_ruleset
    from railrules.interpreter.saves import load_save
    from railrules.tools.play.table import reserve_save
    game = load_ruleset(COIN_RACE).new_game(2, 1)
    taken = reserve_save(game, tmp_path / "g.save.json")
    assert load_save(taken).state["history"] == []
    with pytest.raises(outputs.OutputExists):
        reserve_save(game, tmp_path / "g.save.json")
    assert reserve_save(game, tmp_path / "g.save.json", numbered=True) == tmp_path / "g-2.save.json"


def _special_files(tmp_path: Path) -> dict:
    """A symlink to a regular file, a FIFO, and a character device (if this process may make one)."""
    target = tmp_path / "target.json"
    target.write_text("keep me")
    files = {"symlink": tmp_path / "link.json", "fifo": tmp_path / "fifo.json"}
    files["symlink"].symlink_to(target)
    os.mkfifo(files["fifo"])
    try:
        os.mknod(tmp_path / "null.json", stat.S_IFCHR | 0o666, os.makedev(1, 3))
        files["device"] = tmp_path / "null.json"
    except (PermissionError, OSError):
        pass
    return files


def _unchanged(path: Path, kind: str, tmp_path: Path) -> bool:
    mode = os.lstat(path).st_mode
    if kind == "symlink":
        return stat.S_ISLNK(mode) and (tmp_path / "target.json").read_text() == "keep me"
    return stat.S_ISFIFO(mode) if kind == "fifo" else stat.S_ISCHR(mode)


@pytest.mark.parametrize("kind", ["symlink", "fifo", "device"])
def test_force_replaces_only_a_regular_file(tmp_path, kind):
    files = _special_files(tmp_path)
    if kind not in files:
        pytest.skip("this process may not make a device node")
    path = files[kind]
    code, out, err = _play(path, "--force")
    assert code == 2 and "Your choice" not in out
    assert str(path) in err and "not a regular file" in err
    code, out, err = cli("play", COIN_RACE, "--players", "2", "--seed", "1", "--bots", "random",
                         "--log", str(path), "--force")
    assert code == 2 and str(path) in err and "not a regular file" in err
    assert _unchanged(path, kind, tmp_path)


def test_save_at_the_prompt_with_force_refuses_a_symlink(tmp_path):
    files = _special_files(tmp_path)
    code, out, err = cli("play", COIN_RACE, "--players", "2", "--seed", "1", "--save",
                         str(tmp_path / "g.json"), "--force", stdin=f"save {files['symlink']}\nquit\n")
    assert code == 0 and f"not saved: cannot write {files['symlink']}: it is a symbolic link" in out
    assert _unchanged(files["symlink"], "symlink", tmp_path)


def test_a_write_is_whole_flushed_and_leaves_the_old_file_when_it_fails(tmp_path, monkeypatch):
    path = tmp_path / "f.txt"
    path.write_text("old")
    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(stat.S_ISDIR(os.fstat(fd).st_mode)),
                                                 real_fsync(fd)))
    outputs.write(path, "new")
    assert path.read_text() == "new" and synced == [False, True]   # the file, then its folder

    def full(*args):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(os, "replace", full)
    with pytest.raises(outputs.OutputError, match=f"cannot write {path}: No space left on device"):
        outputs.write(path, "newer")
    assert path.read_text() == "new" and sorted(p.name for p in tmp_path.iterdir()) == ["f.txt"]


# ---------------------------------------------------------------- output paths of the other verbs
@pytest.mark.parametrize("option", ["--csv", "--html"])
def test_compare_refuses_an_output_in_a_missing_folder_before_playing(tmp_path, option):
    bad = tmp_path / "no" / "out"
    code, out, err = cli("compare", COIN_RACE, "--games", "3", "--players", "2", option, str(bad))
    assert code == 1 and f"cannot write {bad}: the folder {bad.parent} does not exist" in err
    assert out == ""                                  # no game was played


def test_a_failed_write_after_the_games_exits_non_zero_with_the_path(tmp_path, monkeypatch):
    def full(path, data):
        raise outputs.OutputError(path, "No space left on device")
    monkeypatch.setattr(outputs, "write", full)
    csv = tmp_path / "out.csv"
    code, out, err = cli("compare", COIN_RACE, "--games", "3", "--players", "2", "--csv", str(csv))
    assert code == 1 and f"cannot write {csv}: No space left on device" in err


def test_render_svg_to_a_device_names_the_path():
    code, out, err = cli("render", COIN_RACE, "--svg", "/dev/full", "--force")
    assert code == 1 and "cannot write /dev/full: it is a device" in err


def test_json_to_a_full_disk_is_a_clean_error():
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "railrules", "simulate", COIN_RACE, "--games", "2",
                               "--players", "2", "--json"], stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=120, cwd=str(ROOT))
    assert done.returncode == 1, done.stderr
    assert "cannot write to the standard output: No space left on device" in done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


def test_a_save_that_says_it_is_not_replayable_is_not_trusted(tmp_path):
    """An edited save (a player's cash 999) with "replayable": false skipped the replay check:
    play --resume and serve's load took it as it was."""
    from railrules.interpreter import load_ruleset
    from railrules.interpreter.errors import BadSave
    from railrules.interpreter.saves import load_save, save_text
    game = load_ruleset(COIN_RACE).new_game(2, 1)
    game.apply(game.legal_actions()[0])
    data = json.loads(save_text(game))
    data["state"]["entities"]["p1"]["cash"] = 999
    data["replayable"] = False
    edited = tmp_path / "edited.save.json"
    edited.write_text(json.dumps(data))
    code, out, err = cli("play", "--resume", str(edited), stdin="quit\n")
    assert code != 0 and "RR304" in err and "set up outside its history" in err
    with pytest.raises(BadSave):
        load_save(edited)
    assert load_save(edited, set_up=True).state["entities"]["p1"]["cash"] == 999   # when trusted
    pytest.importorskip("starlette")
    from railrules.tools.play.table import Refused, Table
    table = Table(load_ruleset(COIN_RACE).new_game(2, 1), ["p1"], "random", 1, tmp_path / "t.json", delay=0)
    with pytest.raises(Refused) as info:
        table.load(None, edited.read_text())
    assert info.value.status == 422 and "set up outside its history" in info.value.message
