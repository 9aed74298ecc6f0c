"""`railrules serve`: the web app's endpoints (Starlette's test client), a whole game played
through them as the page's clicks play it, a seat's page keeping the others' secrets, and the
page itself in headless Chromium on a real uvicorn."""
from __future__ import annotations

import contextlib
import http.client
import json
import random
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="railrules serve needs pip install '.[web]'")
pytest.importorskip("uvicorn", reason="railrules serve needs pip install '.[web]'")

with warnings.catch_warnings():   # Starlette asks for httpx2 instead of httpx; both work
    warnings.filterwarnings("ignore", "Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from railrules.interpreter import load_ruleset
from railrules.interpreter.paths import shipped_rulesets
from railrules.tools.pictures.board_model import board_model
from railrules.tools.bots.players import seat_bots
from railrules.interpreter.saves import load_save
from railrules.tools.play.serve import Table
from railrules.tools.play.serve.app import STATIC, make_app

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")

SEED = 11


def table(name="chicago_express", players=3, humans=("p1",), bots="random", seed=SEED, tmp=None):
    game = load_ruleset(name).new_game(players, seed)
    return Table(game, list(humans), bots, seed, Path(tmp or ".") / "game.save.json", delay=0)


def client(t: Table) -> TestClient:
    return TestClient(make_app(t), raise_server_exceptions=False)


def api(c: TestClient, token: str, name: str, body=None):
    response = c.get(f"/api/{token}/{name}") if body is None else c.post(f"/api/{token}/{name}", json=body)
    return response.status_code, response.json()


def play_to_your_turn(c, token):
    """Let the bots move (as the page asks them to) until a person is to move or the game ends;
    the person to move lifts the hotseat page's curtain (a game with secrets)."""
    while True:
        _, s = api(c, token, "state")
        if s["curtain"]:
            assert api(c, token, "lift", {"seat": s["curtain"]})[0] == 200
            continue
        if s["over"] or s["options"]:
            return s
        status, done = api(c, token, "step", {"version": s["version"]})
        assert status == 200, done


# ------------------------------------------------------------------ the endpoints
def test_the_table_and_a_seat_page_see_the_game_and_act_in_turn(tmp_path):
    t = table(humans=("p1", "p2"), tmp=tmp_path)
    c = client(t)
    tokens = {seat: tok for tok, seat in t.seat_tokens.items()}
    seat1, seat2 = tokens["p1"], tokens["p2"]
    status, host = api(c, t.host, "state")
    assert status == 200 and host["page"] == "table" and host["current"] == "p1"
    assert host["board"].startswith("<svg") and 'class="hex"' in host["board"]
    assert set(host["links"]) == {"table", "Player 1", "Player 2"} and seat1 in host["links"]["Player 1"]
    assert [o["label"] for o in host["options"]] == [a.label for a in t.game.legal_actions()]
    _, mine = api(c, seat1, "state")
    _, theirs = api(c, seat2, "state")
    assert "links" not in mine and mine["options"] == host["options"] and theirs["options"] == []
    _, again = api(c, seat1, f"state?have={mine['version']}")
    assert "board" not in again                               # an unchanged board is not sent again
    status, refused = api(c, seat2, "act", {"label": "pass", "version": 0})
    assert status == 403 and "Player 1's turn" in refused["error"]
    assert "is allowed now" in api(c, seat2, "why", {"label": "bid 9"})[1]["why"]   # no secrets here
    status, done = api(c, seat1, "act", {"label": "bid 9", "version": 0})
    assert status == 200 and done == {"done": "bid 9", "version": 1} and t.game.decisions == 1
    status, stale = api(c, seat2, "act", {"label": "bid 10", "version": 0})
    assert status == 409 and "moved on" in stale["error"] and t.game.decisions == 1
    status, refused = api(c, seat2, "act", {"label": "bid 3", "version": 1})
    assert status == 409 and refused["error"].startswith("not allowed")
    assert "is not allowed" in refused["why"] and re.search(r"\.rules:\d+\)", refused["why"])
    status, _ = api(c, t.host, "act", {"label": "bid 10", "version": 1})   # hotseat: the table acts
    assert status == 200 and t.game.decisions == 2


@pytest.mark.parametrize("name", shipped_rulesets())
def test_every_shipped_game_is_served_with_its_board_options_names_and_costs(name, tmp_path):
    from railrules.tools.play.table import option_cost, option_names
    t = table(name, humans=("p1", "p2", "p3"), tmp=tmp_path)
    c = client(t)
    rng = random.Random(3)
    for _ in range(25):      # into the game, where options name entities and hexes and cost money
        game = t.game
        status, s = api(c, t.host, "state")
        if s["curtain"]:                   # a game with secrets: the person to move shows their view
            assert api(c, t.host, "lift", {"seat": s["curtain"]})[0] == 200
            status, s = api(c, t.host, "state")
        placed = sum(h.col is not None for h in board_model(game).hexes)   # the picture's own business
        assert status == 200 and placed <= s["board"].count('class="hex"') <= len(game.ruleset.board.adj)
        if game.is_over:
            break
        legal = game.legal_actions()
        assert [(o["label"], o["names"], o["cost"]) for o in s["options"]] == \
            [(a.label, option_names(game, a).strip(), option_cost(game, a).strip()) for a in legal]
        assert all(h in game.ruleset.board.adj and h in o["args"] for o in s["options"] for h in o["hexes"])
        assert api(c, t.host, "act", {"label": rng.choice(legal).label, "version": s["version"]})[0] == 200
        play_to_your_turn(c, t.host)


def test_bad_requests_get_clear_json_errors(tmp_path):
    t = table(tmp=tmp_path)
    c = client(t)
    for method, path, body, status, words in [
            ("get", "/", None, 404, "links it printed"),
            ("get", "/api/not-a-token/state", None, 404, "no game page"),
            ("get", "/play/not-a-token", None, 404, "no game page"),
            ("get", "/nothing/here", None, 404, "nothing at /nothing/here"),
            ("get", f"/api/{t.host}/act", None, 405, "GET is not allowed"),
            ("post", f"/api/{t.host}/act", b"{bad", 400, "not JSON"),
            ("post", f"/api/{t.host}/act", b"[1, 2]", 400, "JSON object"),
            ("post", f"/api/{t.host}/act", b"\xff\xfe", 400, "not UTF-8"),
            ("post", f"/api/{t.host}/act", b'{"version": 0}', 400, "label"),
            ("post", f"/api/{t.host}/act", b'{"label": "fly 3", "version": 0}', 409, "not allowed"),
            ("post", f"/api/{t.host}/step", b'{"version": 0}', 409, "is a person"),
            ("post", f"/api/{t.host}/why", b'{"label": 5}', 400, "label"),
            ("post", f"/api/{t.host}/undo", b"", 409, "nothing to undo"),
            ("post", f"/api/{t.host}/load", b"not a save", 422, "cannot load")]:
        response = c.request(method.upper(), path, content=body)
        assert response.status_code == status, (path, response.text)
        assert words in response.json()["error"], (path, response.text)
        assert "Traceback" not in response.text
    t.state = lambda *a, **k: 1 / 0     # a bug: JSON all the same, and no traceback
    response = c.get(f"/api/{t.host}/state")
    assert response.status_code == 500 and "ZeroDivisionError" in response.json()["error"]
    assert "Traceback" not in response.text


@pytest.mark.parametrize("path", [
    "/static/%2e%2e/table.py", "/static/%2e%2e/%2e%2e/play.py", "/static/..%2ftable.py",
    "/static/%2e%2e%2f%2e%2e%2f%2e%2e%2fpyproject.toml", "/static//etc/passwd",
    "/static/%2Fetc%2Fpasswd", "/static/..%5ctable.py", "/static/", "/static/nothing.js"])
def test_no_file_outside_the_page_s_own_assets_is_served(path, tmp_path):
    c = client(table(tmp=tmp_path))
    response = c.get(path)
    assert response.status_code in (400, 404), (path, response.status_code)
    assert "import" not in response.text and "root:" not in response.text
    for asset in ("app.js", "page.js", "style.css", "index.html", "lobby.html", "lobby.js", "lobby.css"):
        assert c.get(f"/static/{asset}").status_code == 200


def test_the_page_needs_nothing_from_elsewhere():
    assets = sorted(p.name for p in STATIC.iterdir())
    assert assets == ["app.js", "index.html", "lobby.css", "lobby.html", "lobby.js", "page.js", "style.css"]
    for name in assets:
        text = (STATIC / name).read_text(encoding="utf-8")
        assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/", text, re.I), name   # no CDN
        assert not re.search(r"@import|<link[^>]+href=\"(?!/static/)|<script[^>]+src=\"(?!/static/)", text), name


def test_why_answers_for_a_hex_that_is_refused_allowed_or_absent(tmp_path):
    t = table(tmp=tmp_path)
    c = client(t)
    game, rng = t.game, random.Random(2)
    while not any(a.args and a.args[0] in game.ruleset.board.adj for a in game.legal_actions()):
        game.apply(rng.choice(game.legal_actions()))      # to a decision that names hexes
    t.humans = [game.current_player]
    allowed = next(a for a in game.legal_actions() if a.args and a.args[0] in game.ruleset.board.adj)
    named = {x for a in game.legal_actions() for x in a.args}
    elsewhere = next(h for h in sorted(game.ruleset.board.adj) if h not in named)
    assert api(c, t.host, "why", {"hex": "ZZ99"})[1]["why"] == "there is no hex ZZ99 on this board"
    assert f"'{allowed.label}'" in api(c, t.host, "why", {"hex": allowed.args[0]})[1]["why"]
    refused = api(c, t.host, "why", {"hex": elsewhere})[1]["why"]
    assert f"{elsewhere}' is not allowed" in refused and re.search(r"\.rules:\d+\)", refused)


def test_undo_takes_back_the_person_s_move_and_the_bots_after_it(tmp_path):
    t = table(tmp=tmp_path)
    c = client(t)
    s = play_to_your_turn(c, t.host)
    api(c, t.host, "act", {"label": s["options"][0]["label"], "version": s["version"]})
    before = json.loads(t.game.to_json())
    s = play_to_your_turn(c, t.host)
    assert s["can_undo"] and t.game.decisions > before["history"].__len__()
    status, done = api(c, t.host, "undo", {})
    assert status == 200 and "took back" in done["done"]
    assert t.game.decisions == len(before["history"]) - 1
    two = table(humans=("p1", "p2"), tmp=tmp_path)
    c2 = client(two)
    api(c2, two.host, "act", {"label": "bid 8", "version": 0})
    status, refused = api(c2, two.host, "undo", {})
    assert status == 409 and "2 people play" in refused["error"] and two.game.decisions == 1


def test_save_and_load_use_the_save_format_of_play(tmp_path, monkeypatch):
    import tempfile
    monkeypatch.setattr(tempfile, "TemporaryDirectory", None)   # a save is loaded from its text
    t = table(tmp=tmp_path)
    c = client(t)
    s = play_to_your_turn(c, t.host)
    api(c, t.host, "act", {"label": s["options"][-1]["label"], "version": s["version"]})
    play_to_your_turn(c, t.host)
    seat = next(iter(t.seat_tokens))
    assert api(c, seat, "save", {})[0] == 403            # a save holds every secret
    status, saved = api(c, t.host, "save", {})
    assert status == 200 and json.loads(saved["text"])["format"] == "railrules-save-1"
    assert load_save(Path(saved["saved"])).to_json() == t.game.to_json()
    (tmp_path / "fresh").mkdir()
    fresh = table(tmp=tmp_path / "fresh")
    c2 = client(fresh)
    assert c2.post(f"/api/{next(iter(fresh.seat_tokens))}/load", content=saved["text"]).status_code == 403
    response = c2.post(f"/api/{fresh.host}/load", content=saved["text"])
    assert response.status_code == 200, response.text
    assert fresh.game.to_json() == t.game.to_json() and fresh.version == 1
    other = table("stephensons_rocket", tmp=tmp_path)
    response = client(other).post(f"/api/{other.host}/load", content=saved["text"])
    assert response.status_code == 422 and "cannot load" in response.json()["error"]


# ------------------------------------------------------------------ a whole game, as the page plays it
def test_a_whole_game_through_the_page_s_requests_ends_as_through_the_python_api(tmp_path):
    t = table(tmp=tmp_path)
    c = client(t)
    person, chosen = random.Random(5), []
    while True:
        s = play_to_your_turn(c, t.host)
        if s["over"]:
            break
        label = person.choice(s["options"])["label"]           # a click on an option
        status, done = api(c, t.host, "act", {"label": label, "version": s["version"]})
        assert status == 200 and done["done"] == label
        chosen.append(label)
    game = load_ruleset("chicago_express").new_game(3, SEED)
    bots = seat_bots("random", game.players, SEED)
    mine = iter(chosen)
    while not game.is_over:
        game.apply(next(mine) if game.current_player == "p1" else bots[game.current_player].choose(game))
    assert next(mine, None) is None and len(chosen) > 10
    assert s["scores"] == game.result["scores"] and s["winners"] == game.result["winners"]
    assert s["standings"].splitlines()[0].endswith(" decisions)") and " the game ends " in s["standings"] and t.game.digest() == game.digest()


# ------------------------------------------------------------------ secrets
SECRETS = {"p1": 765432, "p2": 987654, "p3": 876543}


def secret_table(tmp_path) -> Table:
    t = table("stephensons_rocket", humans=("p1", "p2"), tmp=tmp_path)
    for p, cash in SECRETS.items():
        t.game.execute(f"set {p}.cash = {cash}")
    return t


def test_a_seat_s_page_shows_no_other_seat_s_secret_cash(tmp_path):
    t = secret_table(tmp_path)
    c = client(t)
    tokens = {seat: tok for tok, seat in t.seat_tokens.items()}
    for seat in ("p1", "p2"):
        text = c.get(f"/api/{tokens[seat]}/state").text
        assert str(SECRETS[seat]) in text                        # its own cash: the test can fail
        assert not any(str(v) in text for p, v in SECRETS.items() if p != seat)
        assert c.post(f"/api/{tokens[seat]}/save").status_code == 403
    status, refused = api(c, tokens["p2"], "why", {"label": "extend"})    # in Player 1's turn
    assert status == 403 and "secrets" in refused["error"]
    assert api(c, tokens["p1"], "why", {"label": "extend"})[0] == 200


# ------------------------------------------------------------------ a real server, a real browser
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving(t: Table):
    """uvicorn serving ``t`` on 127.0.0.1 at a free port, in a thread; stopped on leaving."""
    import uvicorn
    server = uvicorn.Server(uvicorn.Config(make_app(t), host="127.0.0.1", port=free_port(),
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{server.config.port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        assert not thread.is_alive()


def raw_get(base: str, path: str) -> tuple[int, str]:
    """GET a path exactly as written (no client tidies its dots away)."""
    host, port = base.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        conn.putrequest("GET", path, skip_accept_encoding=True)
        conn.endheaders()
        response = conn.getresponse()
        return response.status, response.read().decode(errors="replace")
    finally:
        conn.close()


def test_uvicorn_serves_no_file_outside_the_assets_whatever_the_dots(tmp_path):
    with serving(table(tmp=tmp_path)) as base:
        for path in ("/static/../table.py", "/static/../../play.py", "/static/./../app.py",
                     "/static/../../../../../../etc/passwd", "/static/..%2f..%2fcli.py", "/../pyproject.toml"):
            status, text = raw_get(base, path)
            assert status in (400, 404), (path, status)
            assert "import" not in text and "root:" not in text
        assert raw_get(base, "/static/app.js")[0] == 200


def _cdp():
    if not (shutil.which("chromium") or shutil.which("chromium-browser")):
        pytest.skip("headless Chromium is not installed (apt-get install chromium; CI installs it)")
    from cdp import Chromium
    return Chromium


def _keep(shot: Path) -> None:
    """Copy a screenshot where RAILRULES_SCREENSHOTS points, to look at it."""
    import os
    folder = os.environ.get("RAILRULES_SCREENSHOTS")
    if folder:
        shutil.copy(shot, Path(folder) / shot.name)


def _bring(browser, selector: str) -> None:
    """Move the board's map (as a drag would) until the hex is in the middle of its pane."""
    browser.js(f"(b => zoomTo(view.scale, b.x + b.width / 2, b.y + b.height / 2))"
               f"(document.querySelector({json.dumps(selector)}).getBBox())")


ONLY_ONE = ("(() => { const by = {}; S.options.forEach(o => o.hexes.forEach(h => (by[h] = by[h] || []).push(o.label)));"
            " return Object.fromEntries(Object.entries(by).filter(([h, ls]) => ls.length === 1).map(([h, ls]) => [h, ls[0]])); })()")


@pytest.mark.parametrize("clicks", [12, pytest.param(None, marks=pytest.mark.slow, id="whole game")])
def test_chromium_plays_by_clicking_options_and_hexes(tmp_path, clicks):
    """A person plays seat 1 in the page (a whole game, or its first clicks and two on hexes), clicking
    options and hexes with the mouse at their place on the screen; the game stands (ends) as
    the same seeds and choices leave it through the Python API."""
    Chromium = _cdp()
    t = table(tmp=tmp_path)
    with serving(t) as base, Chromium() as browser:
        browser.open(base + t.links()["table"])
        assert browser.wait("document.querySelectorAll('#board g.hex').length") > 100
        person, chosen, hex_clicks, refused = random.Random(5), [], 0, ""
        while True:
            browser.wait("!!S && (S.options.length > 0 || S.over)")
            if browser.js("S.over") or (clicks and len(chosen) >= clicks and hex_clicks >= 2):
                break
            before = browser.js("S.decisions")
            only = browser.js(ONLY_ONE)     # hex -> the one option that names it
            if only and not refused:        # a hex no option names: the page says why not
                browser.js("document.getElementById('message').textContent = ''")
                _bring(browser, "#board g.hex:not(.can)")
                browser.click("#board g.hex:not(.can) polygon")
                refused = browser.wait("document.getElementById('message').textContent")
            if only and person.random() < 0.5:   # a hex one option names: the click takes it
                hex_id = person.choice(sorted(only))
                _bring(browser, f'#board g.hex[data-id="{hex_id}"]')
                browser.click(f'#board g.hex[data-id="{hex_id}"] polygon')
                chosen.append(only[hex_id])
                hex_clicks += 1
            else:
                label = person.choice(browser.js("S.options.map(o => o.label)"))
                browser.js(f"(d => d && (d.open = true))(document.querySelector("   # a folded list: opened
                           f"'#options button.option[data-label=\"{label}\"]').closest('details'))")
                browser.click(f'#options button.option[data-label="{label}"]')
                chosen.append(label)
            browser.wait(f"!!S && (S.decisions > {before} || S.over)")
            if len(chosen) == 8:
                _keep(browser.screenshot(tmp_path / "serve_chicago_express.png"))
        if clicks is None:
            status = browser.js("document.getElementById('status').textContent")
            assert "the game ends" in status and re.search(r"\bwins? with \d+|share the win", status), status
            _keep(browser.screenshot(tmp_path / "serve_chicago_express_end.png"))
    assert hex_clicks >= 2 and len(chosen) >= 12
    assert "not allowed" in refused or "no option names a hex" in refused, refused
    game = load_ruleset("chicago_express").new_game(3, SEED)
    bots = seat_bots("random", game.players, SEED)
    mine = iter(chosen)
    while game.decisions < t.game.decisions:
        game.apply(next(mine) if game.current_player == "p1" else bots[game.current_player].choose(game))
    assert next(mine, None) is None and t.game.digest() == game.digest()
    assert (t.game.result, t.game.is_over) == (game.result, clicks is None)


def test_chromium_undo_save_and_load_from_the_page(tmp_path):
    Chromium = _cdp()
    t = table(tmp=tmp_path)
    with serving(t) as base, Chromium() as browser:
        browser.open(base + t.links()["table"])
        browser.wait("!!S && S.options.length > 0")
        browser.click('#options button.option[data-label="bid 12"]')
        browser.wait("!!S && S.decisions > 1 && S.options.length > 0")
        turn = browser.js("S.decisions")
        browser.click("#save")
        browser.wait("document.getElementById('message').textContent.startsWith('saved to ')")
        browser.click('#options button.option[data-label="pass"]')
        browser.wait(f"!!S && S.decisions > {turn} && S.options.length > 0")
        browser.js("document.getElementById('message').textContent = ''")
        browser.click("#undo")
        browser.wait(f"S.decisions === {turn}")
        assert "took back" in browser.js("document.getElementById('message').textContent")
        browser.click("#undo")                      # and the bid before it
        browser.wait("S.decisions === 0")
        browser.choose_file("#load", t.save_path)
        browser.wait(f"S.decisions === {turn}")
        assert "loaded a game" in browser.js("document.getElementById('message').textContent")
        assert browser.js("document.getElementById('undo').disabled")   # nothing of this game to undo
    assert t.game.to_json() == load_save(t.save_path).to_json()


def test_chromium_seat_page_shows_no_other_seat_s_secret(tmp_path):
    Chromium = _cdp()
    t = secret_table(tmp_path)
    tokens = {seat: tok for tok, seat in t.seat_tokens.items()}
    with serving(t) as base, Chromium() as browser:
        for seat in ("p1", "p2"):
            browser.open(f"{base}/play/{tokens[seat]}")
            browser.wait("document.querySelectorAll('#board g.hex').length > 100 && "
                         "document.getElementById('summary').textContent.length > 0")
            text = browser.js("document.documentElement.outerHTML + document.body.innerText")
            assert str(SECRETS[seat]) in text
            assert not any(str(v) in text for p, v in SECRETS.items() if p != seat)
            _keep(browser.screenshot(tmp_path / f"serve_stephensons_rocket_{seat}.png"))
        # the table's page (hotseat): Player 1's view only once Player 1 asks for it
        browser.open(base + t.links()["table"])
        browser.wait("!!S && !document.getElementById('curtain').hidden")
        assert not any(str(v) in browser.js("document.body.innerText") for v in SECRETS.values())
        _keep(browser.screenshot(tmp_path / "serve_stephensons_rocket_curtain.png"))
        browser.click("#reveal")
        browser.wait(f"document.body.innerText.includes('{SECRETS['p1']}')")
        assert not any(str(v) in browser.js("document.body.innerText") for p, v in SECRETS.items() if p != "p1")


def test_the_command_resumes_a_save_prints_the_links_serves_them_and_saves_on_leaving(tmp_path):
    t = table(tmp=tmp_path)
    c = client(t)
    s = play_to_your_turn(c, t.host)
    api(c, t.host, "act", {"label": s["options"][0]["label"], "version": s["version"]})
    play_to_your_turn(c, t.host)
    saved = Path(api(c, t.host, "save", {})[1]["saved"])
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "railrules", "serve", "--resume", str(saved),
                             "--seats", "1,3", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        lines = []
        while not lines or not lines[-1].startswith("Ctrl-C") and lines[-1]:
            lines.append(proc.stdout.readline())
        links = dict(re.findall(r"^\s+(\S[^:]*):\s+(http://127\.0\.0\.1:\d+/play/\S+)$", "".join(lines), re.M))
        assert set(links) == {"table", "Player 1", "Player 3"}, lines
        deadline = time.monotonic() + 30
        while True:
            try:
                status, text = raw_get(f"http://127.0.0.1:{port}", "/api/" + links["Player 3"].rsplit("/", 1)[1] + "/state")
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not answer"
                time.sleep(0.2)
        state = json.loads(text)
        assert status == 200 and state["page"] == "Player 3" and state["seats"][1]["plays"] == "random"
        assert state["decisions"] == t.game.decisions > 0
        saved.unlink()
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=30)
    assert f"saved to {saved}" in out, (out, err)          # Ctrl-C or a stop: the game is saved
    assert load_save(saved).to_json() == t.game.to_json()


def test_serve_refuses_bad_options(capsys):
    from railrules.tools.cli import main
    assert main(["serve", "chicago_express", "--players", "3", "--seats", "5"]) == 2
    assert "seats 1 to 3" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["serve", "chicago_express", "--seats", "x"])
    assert "seat numbers" in capsys.readouterr().err


def test_chromium_bots_move_at_the_speed_the_page_chooses(tmp_path):
    """Bots alone (a watched game): paused, nothing moves until 'bot move' is clicked; at a
    speed, they move on their own, one move per request."""
    Chromium = _cdp()
    t = table(humans=(), tmp=tmp_path)
    t.delay = 3.0
    with serving(t) as base, Chromium() as browser:
        browser.open(base + t.links()["table"])
        browser.wait("!!S && document.getElementById('speed').value === '3000'")
        browser.js("(() => { const s = document.getElementById('speed'); s.value = '-1';"
                   " s.dispatchEvent(new Event('change')); })()")
        browser.wait("document.getElementById('speed').value === '-1'")
        time.sleep(1.0)
        paused_at = t.game.decisions
        assert paused_at <= 1 and browser.js("S.decisions") == paused_at
        browser.click("#botstep")
        browser.wait(f"S.decisions === {paused_at + 1}")
        assert browser.js("document.getElementById('status').textContent").startswith(t.last["by"] + ": " + t.last["label"])
        browser.js("(() => { const s = document.getElementById('speed'); s.value = '0';"
                   " s.dispatchEvent(new Event('change')); })()")
        browser.wait(f"S.decisions > {paused_at + 10}")
        _keep(browser.screenshot(tmp_path / "serve_bots_only.png"))
    assert t.version == t.game.decisions       # one version per move: no page stepped twice


def test_serve_without_the_web_extra_says_what_to_install(monkeypatch, capsys):
    from railrules.tools.cli import main
    monkeypatch.setitem(sys.modules, "uvicorn", None)     # as if it were not installed
    assert main(["serve", "chicago_express"]) == 1
    assert 'pip install ".[web]"' in capsys.readouterr().err


def test_hostile_bodies_and_numbers_get_a_4xx_with_words(tmp_path):
    """A label or ?have= of more than 4,300 digits, a body nested 100,000 deep and a lone
    surrogate were 500 "internal error" (the last as plain text, a traceback on the host's
    terminal)."""
    t = table(tmp=tmp_path)
    c = client(t)
    for path, body, status, words in [
            (f"/api/{t.host}/act", json.dumps({"label": "bid " + "9" * 5000, "version": 0}).encode(), 409, "5000 digits"),
            (f"/api/{t.host}/act", b'{"label": 1' + b"9" * 5000 + b"}", 400, "digits"),
            (f"/api/{t.host}/act", b"[" * 100_000 + b"]" * 100_000, 400, "nested too deeply"),
            (f"/api/{t.host}/act", b'{"label": "bid \\ud800", "version": 0}', 400, "lone surrogate"),
            (f"/api/{t.host}/why", b'{"label": "\\udfff"}', 400, "lone surrogate")]:
        response = c.post(path, content=body)
        assert response.status_code == status, (path, response.text[:300])
        assert words in response.json()["error"]
    response = c.get(f"/api/{t.host}/state?have=" + "9" * 5000)
    assert response.status_code == 200 and response.json()["version"] == t.version


def test_a_large_body_is_cut_at_the_limit_as_it_streams(tmp_path):
    """40 MB sent in chunks (no length declared) to uvicorn: refused past 8 MB, never held
    whole (the server read it all into memory before its check)."""
    import tracemalloc

    from railrules.tools.play.serve.app import MAX_BODY
    t = table(tmp=tmp_path)

    def chunks():
        for _ in range(40):
            yield b" " * 2 ** 20
    with serving(t) as base:
        host, port = base.removeprefix("http://").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=20)
        tracemalloc.start()
        try:
            try:
                conn.request("POST", f"/api/{t.host}/load", body=chunks(), encode_chunked=True)
            except OSError:   # the server answered and closed before the client was done
                pass
            response = conn.getresponse()
            status, text = response.status, response.read()
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
            conn.close()
    assert status == 413 and "too large" in json.loads(text)["error"]
    assert peak < 3 * MAX_BODY


def test_a_declared_length_over_the_limit_is_refused_before_the_body(tmp_path):
    """Content-Length of 300 MB and nothing sent: the answer comes at once (it waited for the
    body before)."""
    t = table(tmp=tmp_path)
    with serving(t) as base:
        host, port = base.removeprefix("http://").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=20)
        try:
            conn.putrequest("POST", f"/api/{t.host}/load")
            conn.putheader("Content-Length", str(300 * 2 ** 20))
            conn.endheaders()
            response = conn.getresponse()
            assert response.status == 413 and "too large" in json.loads(response.read())["error"]
        finally:
            conn.close()


def _as_a_browser_reads(text: str):
    """JSON as a page's JavaScript reads it: every number a double."""
    return json.loads(text, parse_int=lambda s: int(float(s)))


@pytest.mark.parametrize("name", shipped_rulesets())
def test_a_save_downloaded_by_the_page_loads_back(name, tmp_path):
    """The page parsed the save and wrote it out again: the generator's state (above 2^53)
    changed, and the file did not load ("rng: the save holds ... but its history gives ...")."""
    seed = 2 ** 60 + SEED   # (a game that never draws keeps its seed as the generator's state)
    t = table(name, players=3, humans=(), seed=seed, tmp=tmp_path)
    c = client(t)
    moves = random.Random(name)
    for _ in range(30):
        if t.game.is_over:
            break
        t.game.apply(moves.choice(t.game.legal_actions()))
    response = c.post(f"/api/{t.host}/save", json={})
    downloaded = _as_a_browser_reads(response.text)["text"]   # what the page's download holds
    assert json.loads(downloaded)["state"]["rng"] == t.game.state["rng"] > 2 ** 53
    (tmp_path / "fresh").mkdir()
    fresh = table(name, players=3, humans=(), seed=seed, tmp=tmp_path / "fresh")
    response = client(fresh).post(f"/api/{fresh.host}/load", content=downloaded)
    assert response.status_code == 200, response.text
    assert fresh.game.to_json() == t.game.to_json()


def test_a_busy_port_is_said_before_any_link(tmp_path, capsys):
    """It printed the links, then a raw [Errno 98] with exit 3."""
    from railrules.tools.cli import main
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code = main(["serve", "chicago_express", "--players", "3", "--port", str(port),
                     "--save", str(tmp_path / "g.save.json")])
    out, err = capsys.readouterr()
    assert code == 2 and f"port {port} is in use; try --port {port + 1}" in err
    assert "http://" not in out and "Errno" not in err


def test_links_of_a_server_on_every_address_name_this_machine(tmp_path, monkeypatch):
    """--host 0.0.0.0 printed http://0.0.0.0:... links, which lead nowhere."""
    import io

    import railrules.tools.play.serve as serve
    import uvicorn
    monkeypatch.setattr(uvicorn.Server, "run", lambda *a, **k: None)
    out = io.StringIO()
    serve.serve_table(table(tmp=tmp_path), "0.0.0.0", free_port(), out)
    assert f"http://{socket.gethostname()}:" in out.getvalue() and "http://0.0.0.0" not in out.getvalue()
