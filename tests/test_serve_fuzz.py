"""Fuzzing the JSON API of `railrules serve` (Starlette's test client over the real app).

Each example is a few requests in a row to a fresh table (so that a failing example replays and
shrinks exactly): any method, a path under ``/api/TOKEN/NAME`` with the table's token, a seat's, or
none that exists (or any other path, with raw percent escapes), a ``?have=`` of any text or number,
and a body of any JSON (huge numbers, deep nesting, lone surrogates, values of the wrong type where
a label, a version or a hex is read), of raw bytes, of a save of the game (whole, cut or edited:
``load``), or of the labels of the actions legal at that moment (so that some requests move the game
on).

The property: no answer is a 5xx; every refusal (4xx) is a JSON object ``{"error": text}`` and
leaves the table as it was (its game's state, its version, its last move and what can be undone).
Run with ``-s`` for the examples run and the statuses met.
"""
from __future__ import annotations

import json
import re
import warnings
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

pytest.importorskip("starlette", reason="railrules serve needs pip install '.[web]'")

with warnings.catch_warnings():   # Starlette asks for httpx2 instead of httpx; both work
    warnings.filterwarnings("ignore", "Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from railrules.interpreter import load_ruleset
from railrules.tools.play.serve import Table
from railrules.tools.play.serve.app import make_app

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")

NAMES = ["state", "act", "step", "why", "undo", "save", "load"]
METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]
HUGE = ["9" * 5000, "-" + "9" * 4400, "1e999", "-0", "007", "18446744073709551616", "NaN"]
ODD = ["%ED%A0%80", "%FF", "%00", "..", "%2e%2e", "%2F", "\u00e9", "\U0001f682", " ", ""]



def _text(size: int):
    """Any text, surrogates too, as a part of an address (percent-escaped UTF-8)."""
    return st.text(max_size=size).map(lambda s: quote(s, safe="", errors="surrogatepass"))


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(min_value=10 ** 30) | st.floats()
    | st.text(max_size=30) | st.sampled_from(["\ud800", "a\udfffb", "\x00"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)
RAW = st.one_of(
    st.binary(max_size=200),
    st.sampled_from(HUGE),
    st.integers(1, 200_000).map(lambda n: "[" * n + "]" * n),
    st.integers(1, 200_000).map(lambda n: '{"label":' * n + "1" + "}" * n),
    st.sampled_from(['{"label": "\\ud800"}', '"\\udfff"', '{"version": 1e400}', '{"label": 1' + "0" * 5000 + "}",
                     '{"label": "bid 8", "version": ' + "9" * 5000 + "}", "[]", "3", "null", "{", "\ufeff{}"]))

SAVES: list = []   # the text of a save of the served game


def _saves():
    return st.sampled_from(SAVES).flatmap(lambda text: st.one_of(
        st.just(text), st.integers(0, len(text)).map(lambda n: text[:n]),
        st.tuples(st.integers(0, len(text)), st.sampled_from(HUGE + ["[", "}", "\ud800", '"', "-1"]))
        .map(lambda c: text[:c[0]] + c[1] + text[c[0]:]),
        st.sampled_from(sorted(set(re.findall(r"\d+", text)))).flatmap(
            lambda n: st.sampled_from(HUGE + ["0", "-1", "999"]).map(lambda m: text.replace(n, m, 1)))))


def _table(ruleset, folder: Path):
    """A fresh table of a game a few decisions in, and a client of its app: each example starts
    from the same position, so that a failing example replays (and shrinks) exactly."""
    game = ruleset.new_game(3, 5)
    for _ in range(6):
        game.apply(game.legal_actions()[-1])
    table = Table(game, ["p1", "p2"], "random", 5, folder / "game.save.json", delay=0)
    seat = next(iter(table.seat_tokens))
    return table, TestClient(make_app(table), raise_server_exceptions=False), {"host": table.host, "seat": seat}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder, ruleset = tmp_path_factory.mktemp("served"), load_ruleset("chicago_express")
    SAVES.append(_table(ruleset, folder)[0].save(None)["text"])   # a save whose text (whole, cut, edited) is loaded back
    return lambda: _table(ruleset, folder)


def _snapshot(table) -> tuple:
    """What a refused request must leave as it was."""
    return (id(table.game), table.game.digest(), table.version, json.dumps(table.last, sort_keys=True),
            tuple(table.mine), table.game.decisions)


STATS: dict = {"examples": 0, "statuses": {}}


@pytest.fixture(scope="module", autouse=True)
def _summary():
    yield
    print(f"\nserve fuzz: {STATS['examples']} requests, statuses {dict(sorted(STATS['statuses'].items()))}")


@st.composite
def requests(draw, table, tokens):
    right = draw(st.integers(0, 9)) < 7    # most requests are well formed, up to their body
    name = draw(st.sampled_from(NAMES) if right else st.sampled_from(NAMES) | _text(12) | st.sampled_from(ODD))
    method = "GET" if right and name == "state" else "POST" if right else draw(st.sampled_from(METHODS))
    token = draw(st.sampled_from(["host", "seat"]).map(tokens.get) if right
                 else _text(30) | st.sampled_from(ODD) | st.sampled_from(["host", "seat"]).map(tokens.get))
    path = f"/api/{token}/{name}" if right else draw(st.sampled_from([
        f"/api/{token}/{name}", f"/play/{token}", f"/static/{name}", f"/api/{token}/{name}/{name}", f"/{name}", "/"]))
    have = draw(st.none() | st.sampled_from(HUGE) | _text(20) | st.integers().map(str) | st.sampled_from(ODD))
    if have is not None:
        path += f"?have={have}"
    legal = [a.label for a in table.game.legal_actions()] if not table.game.is_over else ["pass"]
    # The shape of what is drawn must not depend on the game's state (Hypothesis replays a
    # prefix and refuses a strategy that draws differently): an index of fixed range, not
    # sampled_from(legal), whose range changes as the game moves.
    label = st.integers(0, 255).map(lambda i: legal[i % len(legal)]) | JSON
    version = st.just(table.version) | JSON
    body = draw(st.one_of(
        st.none(),
        st.fixed_dictionaries({}, optional={"label": label, "version": version, "hex": JSON}).map(json.dumps),
        JSON.map(lambda v: json.dumps(v)),
        RAW,
        _saves()))
    kind = draw(st.sampled_from(["application/json", "text/plain", "application/x-www-form-urlencoded", None]))
    return method, path, body, kind


def _send(client, method, path, body, kind):
    headers = {"content-type": kind} if kind else {}
    content = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else body
    return client.request(method, path, content=content, headers=headers)


def _check(served, data) -> None:
    """A few requests in a row to a fresh table (so that some of them meet a game already moved on)."""
    table, client, tokens = served()
    for _ in range(data.draw(st.integers(1, 4))):
        _one(table, client, data.draw(requests(table, tokens)))


def _one(table, client, request) -> None:
    method, path, body, kind = request
    before = _snapshot(table)
    response = _send(client, method, path, body, kind)
    status = response.status_code
    STATS["examples"] += 1
    STATS["statuses"][status] = STATS["statuses"].get(status, 0) + 1
    assert status < 500, (method, path, body, response.text[:300])
    if status >= 400:
        assert _snapshot(table) == before, (method, path, body, status)
        if method != "HEAD":
            assert response.headers["content-type"].startswith("application/json"), (path, response.text[:300])
            answer = response.json()
            assert isinstance(answer, dict) and isinstance(answer.get("error"), str) and answer["error"], answer
    elif path.startswith("/api/") and method != "HEAD":
        assert isinstance(response.json(), dict)


def _examples(n: int):
    return settings(max_examples=n, deadline=None, derandomize=False,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])


@_examples(60)
@given(data=st.data())
def test_any_request_is_answered_in_json_and_a_refused_one_changes_nothing(served, data):
    _check(served, data)


@pytest.mark.slow
@_examples(800)
@given(data=st.data())
def test_many_requests_are_answered_in_json_and_refused_ones_change_nothing(served, data):
    _check(served, data)


def test_the_fuzzed_table_is_a_real_game(served):
    """The requests above can move the game: the table's token and the legal labels reach it."""
    table, client, tokens = served()
    version = table.version
    label = table.game.legal_actions()[0].label if table.game.current_player in table.humans else None
    if label is None:
        response = client.post(f"/api/{tokens['host']}/step", json={"version": version})
    else:
        response = client.post(f"/api/{tokens['host']}/act", json={"label": label, "version": version})
    assert response.status_code == 200 and table.version == version + 1
    assert Path(table.save_path).parent.is_dir()


@pytest.mark.parametrize("token", ["%C2%80", "%C3%A9t%C3%A9", "%F0%9F%9A%82", "%ED%A0%80"])
def test_a_token_of_any_text_is_refused_in_json(served, token):
    """Found by the fuzz above: a token with a letter outside ASCII was an internal error (500;
    the token's comparison takes ASCII text only)."""
    _, client, _ = served()
    for path in (f"/api/{token}/state", f"/play/{token}"):
        response = client.get(path)
        assert response.status_code == 404 and "no game page" in response.json()["error"]
