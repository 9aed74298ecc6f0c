"""`railrules serve` as a host keeps a table: the hotseat page sent no secret before its person
lifts the curtain, links that survive a restart of the real server, and the lobby of a server of
several tables (listed, started, refused)."""
from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
import warnings
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="railrules serve needs pip install '.[web]'")
pytest.importorskip("uvicorn", reason="railrules serve needs pip install '.[web]'")

with warnings.catch_warnings():   # Starlette asks for httpx2 instead of httpx; both work
    warnings.filterwarnings("ignore", "Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from railrules.interpreter import load_ruleset
from railrules.tools.play.serve import Table
from railrules.tools.play.serve.app import make_app
from test_serve import _cdp, _keep, free_port, serving

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")


def client(app_of) -> TestClient:
    return TestClient(make_app(app_of), raise_server_exceptions=False)


def api(c: TestClient, token: str, name: str, body=None):
    response = c.get(f"/api/{token}/{name}") if body is None else c.post(f"/api/{token}/{name}", json=body)
    return response.status_code, response.json()


# ------------------------------------------------------------------ the hotseat curtain
def secret_values(game) -> list[str]:
    """Every value of a secret field of a player, as text."""
    secret = game.ruleset.meta.get("secret", {})
    return [str(game.state["entities"][p][f]) for p in game.players for f in secret.get("players", ())]


def test_the_hotseat_page_is_sent_no_secret_of_any_seat_before_the_curtain_is_lifted(tmp_path):
    game = load_ruleset("stephensons_rocket").new_game(3, 4)
    for p, cash in zip(game.players, (765432, 987654, 876543)):
        game.execute(f"set {p}.cash = {cash}")
    t = Table(game, ["p1", "p2"], "random", 4, tmp_path / "g.save.json", delay=0)
    c = client(t)
    seen_curtains = []
    while t.game.decisions < 12 and not t.game.is_over:
        status, before = api(c, t.host, "state")
        text = json.dumps(before)
        current = t.game.current_player
        if current not in t.humans:
            assert before["curtain"] is None and api(c, t.host, "step", {"version": before["version"]})[0] == 200
            continue
        if before["curtain"] is None:        # this person lifted it already: the bots moved since
            assert t.lifted == current
        else:
            seen_curtains.append(current)
            assert before["curtain"] == current and before["options"] == [] and before["shown"] is None
            assert not any(v in text for v in secret_values(t.game)), current
            label = t.game.legal_actions()[0].label
            assert api(c, t.host, "act", {"label": label, "version": before["version"]})[0] == 403
            assert api(c, t.host, "why", {"label": label})[0] == 403
            other = next(p for p in t.humans if p != current)
            assert api(c, t.host, "lift", {"seat": other})[0] == 409       # not the one to move
            assert api(c, next(iter(t.seat_tokens)), "lift", {"seat": current})[0] == 403
            assert api(c, t.host, "lift", {"seat": current})[0] == 200
        _, after = api(c, t.host, "state")
        mine = str(t.game.state["entities"][current]["cash"])
        assert after["curtain"] is None and after["shown"] == current and mine in json.dumps(after)
        assert after["options"]
        assert api(c, t.host, "act", {"label": after["options"][0]["label"], "version": after["version"]})[0] == 200
    assert {"p1", "p2"} <= set(seen_curtains)      # each person's view was held back in turn


def test_a_sealed_bid_is_not_on_the_hotseat_page_before_the_next_bidder_lifts_the_curtain(tmp_path):
    game = load_ruleset("german_railways", "sealed_auctions").new_game(3, 2)
    t = Table(game, ["p1", "p2", "p3"], "random", 2, tmp_path / "g.save.json", delay=0)
    c = client(t)
    while not t.game.committing:     # hotseat: the first choice of every player until a sealed round
        _, s = api(c, t.host, "state")
        if s["curtain"]:
            api(c, t.host, "lift", {"seat": s["curtain"]})
            _, s = api(c, t.host, "state")
        assert api(c, t.host, "act", {"label": s["options"][-1]["label"], "version": s["version"]})[0] == 200
    first = t.game.current_player
    _, s = api(c, t.host, "state")
    if s["curtain"]:
        api(c, t.host, "lift", {"seat": first})
        _, s = api(c, t.host, "state")
    bid = max((o for o in s["options"] if o["name"] == "bid"), key=lambda o: int(o["args"][0]))
    assert api(c, t.host, "act", {"label": bid["label"], "version": s["version"]})[0] == 200
    assert t.game.committing and t.game.current_player != first
    status, before = api(c, t.host, "state")
    assert before["curtain"] == t.game.current_player and before["options"] == []
    assert bid["label"] not in json.dumps(before) and "commits" in json.dumps(before["log"])


# ------------------------------------------------------------------ a real server, restarted
class Server:
    """`railrules serve ARGS...` as a subprocess in ``folder``: its output up to the Ctrl-C line,
    then requests, then SIGINT and the rest of its output."""

    def __init__(self, folder: Path, *args: str):
        self.proc = subprocess.Popen([sys.executable, "-m", "railrules", "serve", *args], cwd=folder,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.head = ""
        while not self.head.endswith("Ctrl-C stops the server (the game is saved first)\n"):
            line = self.proc.stdout.readline()
            assert line, self.head + self.proc.communicate(timeout=30)[0]
            self.head += line
        self.links = dict(re.findall(r"^\s+(\S[^:]*):\s+(http://\S+)", self.head, re.M))

    def get(self, url: str) -> tuple[int, dict]:
        return self._send(urllib.request.Request(url), "/api/" in url)

    def post(self, url: str, body: dict) -> tuple[int, dict]:
        origin = "/".join(url.split("/")[:3])
        return self._send(urllib.request.Request(url, json.dumps(body).encode(), {
            "Content-Type": "application/json", "Origin": origin}), True)

    @staticmethod
    def _send(request, as_json: bool) -> tuple[int, dict]:
        for _ in range(300):       # uvicorn listens a moment after the links are printed
            try:
                with urllib.request.urlopen(request, timeout=60) as response:
                    return response.status, json.loads(response.read()) if as_json else {}
            except urllib.error.HTTPError as err:
                return err.code, json.loads(err.read())
            except (ConnectionError, urllib.error.URLError):
                time.sleep(0.1)
        raise AssertionError(f"no answer at {request.full_url}")

    def stop(self) -> str:
        self.proc.send_signal(signal.SIGINT)
        return self.proc.communicate(timeout=60)[0]


def api_url(link: str, name: str) -> str:
    base, token = link.split("/play/")
    return f"{base}/api/{token}/{name}"


def restart_command(out: str) -> list[str]:
    found = re.search(r"continue with: railrules (serve .*?)(?: \(the same links\))?$", out, re.M)
    assert found, out
    return shlex.split(found.group(1))[1:]


def test_a_restarted_table_answers_at_the_links_sent_before(tmp_path):
    port = str(free_port())
    first = Server(tmp_path, "chicago_express", "--players", "3", "--seats", "1,3", "--port", port,
                   "--bots", "random", "--delay", "0")
    try:
        assert set(first.links) == {"table", "Player 1", "Player 3"}
        status, s = first.get(api_url(first.links["Player 1"], "state"))
        assert status == 200 and s["options"]
        assert first.post(api_url(first.links["Player 1"], "act"),
                          {"label": s["options"][0]["label"], "version": s["version"]})[0] == 200
    finally:
        out = first.stop()
    command = restart_command(out)
    assert command[:2] == ["--resume", "chicago_express-seed1.save.json"] and port in command, out
    links_file = tmp_path / "chicago_express-seed1.links.json"
    assert os.stat(links_file).st_mode & 0o077 == 0                   # the host's alone
    tokens = [link.rsplit("/", 1)[1] for link in first.links.values()]
    save_text = (tmp_path / "chicago_express-seed1.save.json").read_text()
    assert all(t in links_file.read_text() and t not in save_text for t in tokens)
    again = Server(tmp_path, *command)
    try:
        assert again.links == first.links and "new links" not in again.head
        for name, link in first.links.items():
            assert again.get(link)[0] == 200
            status, s = again.get(api_url(link, "state"))
            assert status == 200 and s["decisions"] >= 1 and s["page"] == ("table" if name == "table" else name)
        assert [p["plays"] for p in s["seats"]] == ["person", "random", "person"]
    finally:
        out = again.stop()
    assert restart_command(out) == command


def test_a_ctrl_c_at_any_moment_after_the_links_saves_and_says_how_to_go_on(tmp_path):
    """Before uvicorn takes the signal, a Ctrl-C made it exit with status 3 and no save line,
    or, raised inside a finalizer and dropped, left the server running for ever."""
    for k in range(12):
        folder = tmp_path / str(k)
        folder.mkdir()
        server = Server(folder, "chicago_express", "--players", "3", "--port", str(free_port()))
        time.sleep(k % 3 / 1000)
        out = server.stop()
        assert server.proc.returncode == 0 and "continue with: railrules serve --resume" in out, out


def test_an_old_save_without_links_gets_new_ones_said_once(tmp_path):
    port = str(free_port())
    first = Server(tmp_path, "chicago_express", "--players", "3", "--port", port, "--save", "old.save.json")
    command = restart_command(first.stop())
    (tmp_path / "old.links.json").unlink()             # a save from before links were kept
    second = Server(tmp_path, *command)
    out = second.stop()
    assert "old.save.json has no links file (old.links.json" in second.head and "new links" in second.head
    assert second.links["table"] != first.links["table"] and set(second.links) == set(first.links)
    third = Server(tmp_path, *restart_command(out))
    third.stop()
    assert "links file" not in third.head and third.links == second.links


# ------------------------------------------------------------------ the lobby
SEALED = {"ruleset": "german_railways", "variant": "sealed_auctions", "players": 3, "people": [1, 2],
          "bots": "random", "seed": 5}


def files(folder: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_the_lobby_starts_and_lists_tables_each_with_its_save_and_links(tmp_path):
    from railrules.tools.play.lobby import Lobby
    path = tmp_path / "friends.lobby.json"
    lobby = Lobby.open(path)
    assert os.stat(path).st_mode & 0o077 == 0 and lobby.token in path.read_text()
    c = client(lobby)
    assert c.get(f"/lobby/{lobby.token}").status_code == 200
    assert c.get("/lobby/not-the-token").status_code == 404
    status, empty = api(c, f"lobby/{lobby.token}", "state")
    assert status == 200 and empty["tables"] == [] and "german_railways" in [r["name"] for r in empty["rulesets"]]
    status, started = api(c, f"lobby/{lobby.token}", "start", SEALED)
    assert status == 200, started
    status, second = api(c, f"lobby/{lobby.token}", "start", {"ruleset": "chicago_express", "players": 4})
    assert status == 200, second
    _, listed = api(c, f"lobby/{lobby.token}", "state")
    first, other = listed["tables"]
    assert (first["ruleset"], first["variant"], first["players"], first["seed"]) == ("german_railways",
                                                                                   "sealed_auctions", 3, 5)
    assert [s["plays"] for s in first["seats"]] == ["person", "person", "random"] and first["decisions"] == 0
    assert first["turn"] and first["save"] == str(tmp_path / "german_railways-sealed_auctions-seed5.save.json")
    assert [s["plays"] for s in other["seats"]] == ["person", "random", "random", "random"]
    for page in [first["table"], *[s["link"] for s in first["seats"] if s["link"]]]:
        assert c.get(page).status_code == 200
        assert api(c, page.removeprefix("/play/"), "state")[0] == 200
    assert api(c, first["table"].removeprefix("/play/"), "state")[1]["title"] == "German Railways"
    assert api(c, lobby.token, "state")[0] == 404               # the lobby's token opens no game page
    assert api(c, first["table"].removeprefix("/play/"), "state")[0] == 200
    assert c.get(f"/lobby/{first['table'].removeprefix('/play/')}").status_code == 404
    assert json.loads(path.read_text())["tables"] == [Path(first["save"]).name, Path(other["save"]).name]
    again = Lobby.open(path)                                  # a restart: the same tables, the same links
    assert again.token == lobby.token and [listed_of(t) for t in again.tables] == [first, other]


def listed_of(table) -> dict:
    from railrules.tools.play.lobby import listed
    return listed(table)


@pytest.mark.parametrize("change, words", [
    ({"ruleset": "no_such_game"}, "no ruleset \"no_such_game\" here: choose one of"),
    ({"ruleset": "../../etc"}, "no ruleset"),
    ({"ruleset": ["german_railways"]}, "no ruleset [\"german_railways\"] here"),
    ({"variant": {"a": 1}}, "has no variant {\"a\": 1}"),
    ({"variant": "no_such_variant"}, "german_railways has no variant \"no_such_variant\": its variants are"),
    ({"variant": "variants/sealed_auctions.yaml"}, "has no variant"),
    ({"players": 9}, "German Railways is for 3 to 5 players, not 9"),
    ({"players": "3"}, "is for 3 to 5 players, not \"3\""),
    ({"players": True}, "players, not true"),
    ({"people": [4]}, "people: give seat numbers from 1 to 3, not [4]"),
    ({"people": "1"}, "people: give seat numbers"),
    ({"bots": "os.path:join"}, "bots: the lobby seats random, options, greedy, mcts"),
    ({"bots": "mcts:iterations=x"}, "bots: "),
    ({"bots": "random,random"}, "give one for every seat, or one per seat (3)"),
    ({"seed": -1}, "seed: give a whole number from 0"),
    ({"seed": 1.5}, "seed: give a whole number from 0"),
])
def test_a_lobby_form_it_may_not_start_is_refused_in_words_and_changes_nothing(tmp_path, change, words):
    from railrules.tools.play.lobby import Lobby
    lobby = Lobby.open(tmp_path / "friends.lobby.json")
    c = client(lobby)
    before = files(tmp_path)
    status, refused = api(c, f"lobby/{lobby.token}", "start", {**SEALED, **change})
    assert status == 422 and words in refused["error"], refused
    assert files(tmp_path) == before and lobby.tables == []


def test_the_lobby_server_restarts_with_its_tables_at_the_same_links(tmp_path):
    port = str(free_port())
    first = Server(tmp_path, "--lobby", "friends.lobby.json", "--port", port)
    try:
        assert list(first.links) == ["lobby"]
        lobby_api = first.links["lobby"].replace("/lobby/", "/api/lobby/")
        status, started = first.post(lobby_api + "/start", SEALED)
        assert status == 200, started
        base = first.links["lobby"].split("/lobby/")[0]
        links = {"table": base + started["started"]["table"],
                 **{s["name"]: base + s["link"] for s in started["started"]["seats"] if s["link"]}}
        assert first.get(api_url(links["Player 1"], "state"))[0] == 200
    finally:
        out = first.stop()
    found = re.search(r"^restart the lobby and its tables \(the same links\) with: railrules (serve .*)$", out, re.M)
    assert found and shlex.split(found.group(1))[1:] == ["--lobby", "friends.lobby.json", "--port", port], out
    again = Server(tmp_path, *shlex.split(found.group(1))[1:])
    try:
        assert again.links == {"lobby": first.links["lobby"], **links}, again.head
        assert again.get(first.links["lobby"])[0] == 200
        for link in links.values():
            assert again.get(link)[0] == 200 and again.get(api_url(link, "state"))[0] == 200
        assert again.get(lobby_api + "/state")[1]["tables"][0]["save"].endswith(
            "german_railways-sealed_auctions-seed5.save.json")
    finally:
        again.stop()


# ------------------------------------------------------------------ the lobby as a person sees it
def test_chromium_starts_a_table_from_the_lobby_and_opens_it(tmp_path):
    from railrules.tools.play.lobby import Lobby
    Chromium = _cdp()
    lobby = Lobby.open(tmp_path / "friends.lobby.json", delay=0)
    with serving(lobby) as base, Chromium() as browser:
        browser.open(f"{base}/lobby/{lobby.token}")
        browser.wait("document.querySelectorAll('#ruleset option').length >= 4")
        assert not browser.js("document.getElementById('none').hidden")      # no table yet
        browser.js("document.getElementById('ruleset').value = 'german_railways';"
                   "document.getElementById('ruleset').dispatchEvent(new Event('change'))")
        browser.js("document.getElementById('players').value = '9'")
        browser.click("#start button")                       # too many players: refused, in words
        assert "is for 3 to 5 players, not 9" in browser.wait("document.getElementById('message').textContent")
        assert lobby.tables == [] and sorted(p.name for p in tmp_path.iterdir()) == ["friends.lobby.json"]
        browser.js("document.getElementById('players').value = '3';"
                   "document.getElementById('players').dispatchEvent(new Event('input'));"
                   "document.getElementById('variant').value = 'sealed_auctions'")
        browser.click("#people label:nth-child(2) input")    # seats 1 and 2 people, 3 a bot
        browser.click("#start button")
        browser.wait("document.querySelectorAll('#rows tr').length === 1")
        assert "started German Railways" in browser.js("document.getElementById('message').textContent")
        cells = browser.js("[...document.querySelectorAll('#rows td')].map(td => td.innerText)")
        assert "German Railways" in cells[0] and "(sealed_auctions)" in cells[0]
        assert "Player 1 — person" in cells[1] and "Player 3 — random" in cells[1] and cells[2] == "0"
        assert cells[4].endswith(".save.json")
        _keep(browser.screenshot(tmp_path / "serve_lobby.png"))
        table_link = browser.js("document.querySelector('#rows td a').getAttribute('href')")
        assert browser.js("document.querySelector('#rows td a').textContent") == "the table's page (hotseat)"
        assert table_link == f"/play/{lobby.tables[0].host}"
        browser.open(base + table_link)                        # the table's page, as the lobby links it
        browser.wait("!!S && document.querySelectorAll('#board g.hex').length > 100")
        assert browser.js("S.title") == "German Railways" and browser.js("S.page") == "table"
        _keep(browser.screenshot(tmp_path / "serve_lobby_table.png"))


def test_a_table_named_with_lobby_joins_it_once(tmp_path, monkeypatch, capsys):
    import railrules.tools.play.serve as serve
    from railrules.tools.cli import main
    served: list = []
    monkeypatch.setattr(serve, "serve_lobby", lambda lobby, host, port: served.append(list(lobby.tables)))
    path, save = tmp_path / "friends.lobby.json", tmp_path / "g.save.json"
    assert main(["serve", "chicago_express", "--players", "3", "--lobby", str(path), "--save", str(save)]) == 0
    assert json.loads(path.read_text())["tables"] == ["g.save.json"] and len(served[0]) == 1
    out = capsys.readouterr().out
    assert "restart the lobby and its tables (the same links) with: railrules serve --lobby" in out
    assert main(["serve", "--resume", str(save), "--lobby", str(path)]) == 2      # served with it already
    assert "it is a table of the lobby" in capsys.readouterr().err and len(served) == 1
    assert main(["serve"]) == 2 and "give a ruleset, --resume FILE or --lobby FILE" in capsys.readouterr().err
    path.write_text("{}")
    assert main(["serve", "--lobby", str(path)]) == 2
    assert "not a lobby file" in capsys.readouterr().err and path.read_text() == "{}"


@pytest.mark.parametrize("text, words", [
    ("{not json", "cannot read the links file"),
    ('{"format": "railrules-links-0"}', "is not a links file (its format is not railrules-links-1)"),
    ('{"format": "railrules-links-1", "host": "short", "seats": {}, "people": [], "bots": "random"}',
     "a token is not 16 to 128 letters"),
    ('{"format": "railrules-links-1", "host": "aaaaaaaaaaaaaaaaaaaa", "seats": {"p1": "../../etc/passwd!!!"}, '
     '"people": [], "bots": "random"}', "a token is not"),
    ('{"format": "railrules-links-1", "host": "aaaaaaaaaaaaaaaaaaaa", "seats": {}, "people": "p1", '
     '"bots": "random"}', "people must be a list of seats"),
])
def test_a_broken_links_file_gives_new_links_and_says_why(tmp_path, text, words):
    from railrules.tools.play.lobby import Lobby
    from railrules.tools.play.table import save
    game = load_ruleset("chicago_express").new_game(3, 1)
    save(game, tmp_path / "g.save.json")
    (tmp_path / "g.links.json").write_text(text)
    notes: list = []
    table = Lobby(None, None, say=notes.append).resume(tmp_path / "g.save.json")
    assert len(notes) == 1 and words in notes[0] and "new links" in notes[0]
    assert table.humans == ["p1"] and json.loads((tmp_path / "g.links.json").read_text())["host"] == table.host


def test_a_resumed_table_keeps_each_seat_s_link_whoever_plays_it_now(tmp_path):
    from railrules.tools.play.lobby import Lobby
    from railrules.tools.play.table import reserve_save
    game = load_ruleset("chicago_express").new_game(3, 1)
    save = reserve_save(game, tmp_path / "g.save.json")
    lobby = Lobby(None, None)
    first = lobby.seat(game, ["p1", "p2"], "random", save)
    second = lobby.resume(save, people=["p1"], bots="greedy")           # --seats 1 --bots greedy
    assert second.host == first.host and second.links() == {k: v for k, v in first.links().items()
                                                             if k != "Player 2"}
    assert second.plays("p2") == "greedy"
    third = lobby.resume(save, people=["p1", "p2", "p3"])                 # --seats all: p2's link again
    assert third.tokens["p2"] == first.tokens["p2"] and third.tokens["p3"] not in first.tokens.values()
    assert lobby.resume(save).links() == third.links() and lobby.resume(save).specs == "greedy"


def test_a_page_of_another_site_cannot_start_a_table(tmp_path):
    from railrules.tools.play.lobby import Lobby
    lobby = Lobby.open(tmp_path / "friends.lobby.json")
    c = TestClient(make_app(lobby, {"127.0.0.1"}), base_url="http://127.0.0.1:8765", raise_server_exceptions=False)
    before = files(tmp_path)
    response = c.post(f"/api/lobby/{lobby.token}/start", json=SEALED, headers={"Origin": "http://evil.example"})
    assert response.status_code == 403 and "another site" in response.json()["error"]
    response = c.post(f"/api/lobby/{lobby.token}/start", json=SEALED, headers={"Host": "evil.example"})
    assert response.status_code == 403 and files(tmp_path) == before and lobby.tables == []
    assert c.post(f"/api/lobby/{lobby.token}/start", json=SEALED).status_code == 200
