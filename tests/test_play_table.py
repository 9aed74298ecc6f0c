"""The play table shared by the terminal and the browser: a bot thinks without holding the
table (the pages are answered meanwhile), a bot out of time plays the documented fallback, the
browser's table is saved after every decision, an uploaded save reads no file it names; and the
server refuses requests from elsewhere (a Host it is not, a write from another origin)."""
from __future__ import annotations

import builtins
import http.client
import io
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import pytest

from railrules.interpreter import load_ruleset
from railrules.interpreter.errors import BadSave
from railrules.interpreter.paths import rulesets_dir
from railrules.interpreter.saves import load_save, save_text
from railrules.tools.play.table import FALLBACK, Refused, Table
from railrules.tools.play.terminal import play_bots

COIN_RACE = str(rulesets_dir() / "templates" / "coin_race")
ROOT = Path(__file__).resolve().parents[1]
WAIT = 60   # seconds a test waits for what would otherwise hang it (never a measure of speed)


class Blocked:
    """A bot that thinks until it is let go (``go``), saying when it has started."""

    def __init__(self):
        self.started, self.go = threading.Event(), threading.Event()

    def choose(self, game):
        self.started.set()
        self.go.wait(WAIT)
        return game.legal_actions()[-1]


def bot_to_move(tmp_path, **options) -> tuple[Table, Blocked]:
    """A table of Chicago Express where the bot of seat 2 is to move, and that bot blocked."""
    game = load_ruleset("chicago_express").new_game(3, 5)
    t = Table(game, ["p1"], "random", 5, tmp_path / "g.save.json", delay=0, **options)
    t.act(None, game.legal_actions()[-1].label, t.version)   # p1 passes; p2, a bot, is to move
    assert game.current_player == "p2"
    t.bots["p2"] = slow = Blocked()
    return t, slow


def in_thread(fn, *args) -> tuple[threading.Thread, dict]:
    box: dict = {}

    def run():
        try:
            box["value"] = fn(*args)
        except Exception as err:
            box["error"] = err
    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    return worker, box


# ------------------------------------------------------------------ a bot that thinks long
def test_pages_are_answered_while_a_bot_thinks(tmp_path):
    """The table's lock was held while a bot chose: a state request waited for the bot."""
    t, slow = bot_to_move(tmp_path)
    stepping, stepped = in_thread(t.step, t.version)
    assert slow.started.wait(WAIT)
    asking, asked = in_thread(t.state, None)
    asking.join(WAIT)
    still_thinking = stepping.is_alive()
    slow.go.set()
    stepping.join(WAIT)
    assert not asking.is_alive() and still_thinking, "the state request waited for the bot"
    assert asked["value"]["current"] == "p2" and asked["value"]["decisions"] == 1
    assert stepped["value"]["version"] == 2 and t.game.decisions == 2


def test_a_second_step_or_an_undo_while_a_bot_thinks(tmp_path):
    """A second page stepping the same bot is refused at once; an undo made meanwhile wins: the
    bot's late choice is not applied to the game it was not made for."""
    t, slow = bot_to_move(tmp_path)
    stepping, stepped = in_thread(t.step, t.version)
    assert slow.started.wait(WAIT)
    with pytest.raises(Refused) as info:
        t.step(t.version)
    assert info.value.status == 409 and "thinking" in info.value.message
    assert t.undo(None)["version"] == 2
    slow.go.set()
    stepping.join(WAIT)
    assert isinstance(stepped.get("error"), Refused) and "moved on" in stepped["error"].message
    assert t.game.decisions == 0 and t.game.current_player == "p1"
    with pytest.raises(Refused) as info:   # a bot never moves for a person, whatever asks it
        t.bot_move()
    assert "is a person" in info.value.message and t.game.decisions == 0


def test_a_bot_out_of_time_plays_the_fallback_and_says_so(tmp_path):
    said: list[str] = []
    t, slow = bot_to_move(tmp_path, bot_seconds=0.05, say=said.append)
    first = t.game.legal_actions()[0]
    try:
        done = t.step(t.version)
        assert done["done"] == first.label and t.game.state["history"][-1] == first.to_json()
        assert FALLBACK in done["note"] and "--bot-seconds" in done["note"] and said == [done["note"]]
        assert t.state(None)["last"]["note"] == done["note"]
        while t.game.current_player != "p2":    # the same bot's next turn: it is still thinking
            if t.game.current_player == "p1":
                t.act(None, t.game.legal_actions()[-1].label, t.version)
            else:
                t.step(t.version)
        again = t.step(t.version)
        assert "still thinking about an earlier move" in again["note"]
    finally:
        slow.go.set()


def test_play_says_when_a_bot_is_out_of_time(monkeypatch):
    """play --bot-seconds: the fallback said on the terminal, the game played to its end."""
    import railrules.tools.play.table as table_module
    game = load_ruleset(COIN_RACE).new_game(2, 1)
    blocked = Blocked()
    monkeypatch.setattr(table_module, "seat_bots", lambda specs, seats, seed, ruleset=None: dict.fromkeys(seats, blocked))
    out = io.StringIO()
    try:
        play_bots(game, "random", 1, out, bot_seconds=0.05)
    finally:
        blocked.go.set()
    text = out.getvalue()
    assert game.is_over and "spent its 0.05 s (--bot-seconds)" in text and FALLBACK in text


def test_bot_seconds_is_checked_and_documented():
    from railrules.tools.cli import main
    with pytest.raises(SystemExit) as info:
        main(["play", "chicago_express", "--bot-seconds", "-1"])
    assert info.value.code == 2
    commands = (ROOT / "tools" / "COMMANDS.md").read_text(encoding="utf-8")
    assert commands.count("--bot-seconds N") >= 2 and "default: 30" in commands


# ------------------------------------------------------------------ saves
def test_the_browser_table_is_saved_after_every_decision(tmp_path):
    """Moves since the last save were lost when serve was killed."""
    game = load_ruleset("chicago_express").new_game(3, 5)
    t = Table(game, ["p1"], "random", 5, tmp_path / "g.save.json", delay=0, autosave=True)
    t.act(None, game.legal_actions()[-1].label, t.version)
    assert load_save(t.save_path).decisions == 1
    t.step(t.version)
    assert load_save(t.save_path).decisions == 2
    t.undo(None)
    assert load_save(t.save_path).decisions == 0


def test_a_failed_save_after_a_decision_is_said_and_the_game_goes_on(tmp_path):
    said: list[str] = []
    game = load_ruleset("chicago_express").new_game(3, 5)
    t = Table(game, ["p1"], "random", 5, tmp_path / "missing" / "g.save.json", delay=0, autosave=True,
              say=said.append)
    t.act(None, game.legal_actions()[-1].label, t.version)
    assert game.decisions == 1 and "not saved" in t.state(None)["unsaved"] and len(said) == 1


def test_an_uploaded_save_makes_the_server_read_no_file_it_names(tmp_path, monkeypatch):
    """The save's variant could name any .yaml file, which the server read as a variant."""
    game = load_ruleset("chicago_express").new_game(3, 5)
    t = Table(game, [], "random", 5, tmp_path / "g.save.json", delay=0)
    data = json.loads(save_text(game))
    named = tmp_path / "elsewhere.yaml"
    named.write_text("{}\n", encoding="utf-8")
    data["variant"] = str(named)
    opened: list[str] = []
    real_open, real_read = builtins.open, Path.read_text

    def watched_open(file, *args, **kwargs):
        opened.append(str(file))
        return real_open(file, *args, **kwargs)

    def watched_read(self, *args, **kwargs):
        opened.append(str(self))
        return real_read(self, *args, **kwargs)
    monkeypatch.setattr(builtins, "open", watched_open)
    monkeypatch.setattr(Path, "read_text", watched_read)
    with pytest.raises(Refused) as info:
        t.load(None, json.dumps(data))
    assert str(named) not in opened
    assert info.value.status == 422 and f"variant {named}" in info.value.message


def test_a_save_in_a_round_of_secret_choices_loads_back():
    """A save taken after a commitment said "replayable": false (the commitment is not in the
    history until the reveal), so play --resume and serve's load refused it."""
    import random

    from railrules.interpreter.engine.commitments import open_round
    from railrules.interpreter.saves import game_of_save, read_save
    game = load_ruleset("german_railways", "sealed_auctions").new_game(3, 4)
    rng, loaded = random.Random(1), 0
    while not game.is_over and loaded < 3:
        found = open_round(game.ruleset.program, game.state)
        if found is not None and found[1]["commits"]:
            text = save_text(game)
            assert json.loads(text)["replayable"] is True
            assert game_of_save(read_save(text), game.ruleset).to_json() == game.to_json()
            loaded += 1
        game.apply(rng.choice(game.legal_actions()))
    assert loaded == 3


def test_a_save_too_large_for_a_rule_names_the_field(tmp_path):
    """Storability is checked once, with the save's other checks: the refusal names the field."""
    game = load_ruleset(COIN_RACE).new_game(2, 1)
    data = json.loads(save_text(game))
    data["state"]["entities"]["p1"]["name"] = "x" * 100_001
    path = tmp_path / "long.save.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(BadSave) as info:
        load_save(path)
    assert "entities.p1.name holds a value a game cannot: a text longer than 100000" in \
        info.value.diagnostics[0].message


# ------------------------------------------------------------------ requests from elsewhere
starlette = pytest.importorskip("starlette")
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", "Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from railrules.tools.play.serve.app import hosts_of, make_app

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")


def served(tmp_path, host="127.0.0.1", base="http://127.0.0.1:8765") -> tuple[Table, TestClient]:
    game = load_ruleset("chicago_express").new_game(3, 5)
    t = Table(game, ["p1"], "random", 5, tmp_path / "g.save.json", delay=0)
    return t, TestClient(make_app(t, hosts_of(host)), base_url=base, raise_server_exceptions=False)


@pytest.mark.parametrize("base", ["http://127.0.0.1:8765", "http://localhost:8765", "http://[::1]:8765"])
def test_a_name_of_the_bound_address_is_answered(tmp_path, base):
    t, c = served(tmp_path, base=base)
    assert c.get(f"/api/{t.host}/state").status_code == 200
    assert c.get(f"/play/{t.host}").status_code == 200


def test_another_host_name_is_refused(tmp_path):
    """No Host check: a page whose own name leads to this machine (DNS rebinding) could read it."""
    t, c = served(tmp_path, base="http://rebound.example:8765")
    for response in (c.get(f"/api/{t.host}/state"), c.get(f"/play/{t.host}"),
                     c.post(f"/api/{t.host}/act", json={"label": "pass", "version": 0})):
        assert response.status_code == 403 and "does not answer to the name" in response.json()["error"]
    assert t.game.decisions == 0


def test_every_address_answers_to_this_machines_names(tmp_path):
    t, c = served(tmp_path, host="0.0.0.0", base=f"http://{socket.gethostname()}:8765")
    assert c.get(f"/api/{t.host}/state").status_code == 200
    assert "evil.example" not in hosts_of("0.0.0.0")


@pytest.mark.parametrize("headers", [
    {"Origin": "http://evil.example", "Content-Type": "text/plain"},
    {"Origin": "http://127.0.0.1:9999"},
    {"Origin": "null"},
    {"Sec-Fetch-Site": "cross-site", "Content-Type": "text/plain"},
    {"Sec-Fetch-Site": "same-site"},
])
def test_a_write_from_another_origin_is_refused(tmp_path, headers):
    """Cross-origin text/plain POSTs (which a browser sends without asking) were accepted."""
    t, c = served(tmp_path)
    label = t.game.legal_actions()[-1].label
    response = c.post(f"/api/{t.host}/act", content=json.dumps({"label": label, "version": 0}), headers=headers)
    assert response.status_code == 403 and "another site" in response.json()["error"]
    assert t.game.decisions == 0


def test_a_write_from_the_page_itself_is_answered(tmp_path):
    t, c = served(tmp_path)
    label = t.game.legal_actions()[-1].label
    response = c.post(f"/api/{t.host}/act", json={"label": label, "version": 0},
                      headers={"Origin": "http://127.0.0.1:8765", "Sec-Fetch-Site": "same-origin"})
    assert response.status_code == 200 and t.game.decisions == 1


def test_links_on_every_address_say_which_name_they_use(tmp_path, monkeypatch):
    import railrules.tools.play.serve as serve
    import uvicorn
    monkeypatch.setattr(uvicorn.Server, "run", lambda *a, **k: None)
    out = io.StringIO()
    t, _ = served(tmp_path)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    serve.serve_table(t, "0.0.0.0", port, out)
    assert f"name this machine, {socket.gethostname()}" in out.getvalue()
    assert f"http://127.0.0.1:{port} works too" in out.getvalue()


def test_serve_seats_bots_with_a_time_limit_and_saves_every_decision(tmp_path, monkeypatch):
    import railrules.tools.play.serve as serve
    from railrules.tools.cli import main
    tables: list = []
    monkeypatch.setattr(serve, "serve_table", lambda table, host, port: tables.append(table))
    assert main(["serve", "chicago_express", "--players", "3", "--save", str(tmp_path / "g.save.json")]) == 0
    assert tables[0].autosave and tables[0].bot_seconds == 30


@pytest.mark.slow
def test_a_killed_server_loses_no_decision(tmp_path):
    """SIGKILL of serve lost every move since the last save (Ctrl-C or the page's save)."""
    pytest.importorskip("uvicorn")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    save = tmp_path / "g.save.json"
    server = subprocess.Popen([sys.executable, "-m", "railrules", "serve", "chicago_express", "--players", "3",
                               "--seed", "5", "--port", str(port), "--save", str(save)],
                              cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        token = None
        for line in server.stdout:   # type: ignore[union-attr]
            found = re.search(r"table:\s+http://[^/]+/play/(\S+)", line)
            if found:
                token = found.group(1)
            if line.startswith("Ctrl-C"):
                break
        assert token
        label = load_ruleset("chicago_express").new_game(3, 5).legal_actions()[-1].label
        for attempt in range(200):
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT)
                conn.request("POST", f"/api/{token}/act", body=json.dumps({"label": label, "version": 0}),
                             headers={"Content-Type": "application/json"})
                response = conn.getresponse()
                break
            except ConnectionRefusedError:   # uvicorn not listening yet
                threading.Event().wait(0.1)
        assert response.status == 200, response.read()
        os.kill(server.pid, signal.SIGKILL)
        server.wait(WAIT)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(WAIT)
    assert load_save(save).decisions == 1
