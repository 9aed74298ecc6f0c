"""The language server under hostile edits (issue 28): a check runs under a time limit and always
publishes something; a lone surrogate, a buffer over 5 MB and values nested too deep are
diagnostics, and the server goes on. Spoken to over stdio with JSON-RPC, as test_lsp does."""
from __future__ import annotations

import pytest

pytest.importorskip("pygls", reason="the language server needs pygls (pip install '.[lsp]')")

from test_governor import META, NESTING, game_rules
from test_hostile import ruleset
from test_lsp import ROOT, Client, _change, _open

# 10^10 rounds of an exists, no memory: hours of work within its step budget (10^8, the most limits.steps allows)
ENDLESS_CONSTANT = ("const never = exists a in range(0, 100000) where (exists b in range(0, 100000) where a + b < 0)\n"
                    + game_rules())


@pytest.fixture
def client(monkeypatch):
    monkeypatch.setenv("RAILRULES_LSP_CHECK_SECONDS", "2")
    c = Client()
    c.request("initialize", {"processId": None, "rootUri": ROOT.as_uri(), "capabilities": {}})
    c.notify("initialized", {})
    yield c
    c.close()


def codes(found: list) -> list:
    return [(d["code"], d["range"]["start"]["line"]) for d in found]


def test_a_check_past_its_time_is_stopped_said_and_the_next_one_runs(client, tmp_path):
    root = ruleset(tmp_path, rules=ENDLESS_CONSTANT, meta=META % 10 ** 8)
    uri = _open(client, root / "main.rules", ENDLESS_CONSTANT)
    found = client.diagnostics(uri)
    assert codes(found) == [("RR313", 0)] and "more than 2 s" in found[0]["message"]
    # the stopped check let go: the next edit is checked (it would wait hours behind it)
    broken = game_rules("let y = undefined_name")
    _change(client, uri, broken, 2)
    assert codes(client.diagnostics(uri)) == [("RR102", 2)]


def test_a_lone_surrogate_is_a_diagnostic_and_the_check_goes_on(client, tmp_path):
    root = ruleset(tmp_path)
    text = game_rules("# a comment with a lone \ud800 surrogate")
    uri = _open(client, root / "main.rules", text)
    assert codes(client.diagnostics(uri)) == [("RR006", 2)]
    _change(client, uri, game_rules(), 2)
    assert client.diagnostics(uri) == []


def test_an_open_rules_file_over_5_mb_is_a_diagnostic_in_it(client, tmp_path):
    root = ruleset(tmp_path)
    text = game_rules() + "# padding\n" * 600_000
    uri = _open(client, root / "main.rules", text)
    found = client.diagnostics(uri)
    assert codes(found) == [("RR007", 0)] and "larger than 5 MB" in found[0]["message"]


def test_values_nested_too_deep_are_rr312_without_a_recursion_error(client, tmp_path):
    """A game that starts while lint checks (a conserve quantity is computed at the start)."""
    root = ruleset(tmp_path, rules=NESTING, meta=META % 10 ** 6,
                   components="constants: {base: 10}\nvariables: {x: 2, xs: [1]}\nplayer: {cash: 0}\n"
                              "conserve:\n  money: \"sum([p.cash for p in players])\"\n")
    uri = _open(client, root / "main.rules", NESTING)
    found = client.diagnostics(uri)
    assert ("RR312", 4) in codes(found)
    assert not any("Recursion" in d["message"] for d in found)
