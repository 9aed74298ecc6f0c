"""`railrules serve` as a host keeps a table: the hotseat page sent no secret before its person
lifts the curtain, links that survive a restart of the real server, and the lobby of a server of
several tables (listed, started, refused)."""
from __future__ import annotations

import json
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
