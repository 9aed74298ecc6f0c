"""`railrules view LOG -o FILE.html`: a page to step through a logged game, looked at
in headless Chromium: the step asked for in the address is the one shown, also when the address
changes in the open page; no table header is broken mid-word; ids in the tables get a key."""
from __future__ import annotations

import json
import re
import shutil

import pytest

import browser

from railrules.tools.pictures.board_model import board_model
from railrules.tools.cli import main
from railrules.tools.play.replay import read_log, replay


@pytest.fixture(scope="module")
def logged(tmp_path_factory):
    folder = tmp_path_factory.mktemp("view")
    log = folder / "game.log"
    assert main(["play", "chicago_express", "--bots", "random", "--players", "3", "--seed", "5",
                 "--log", str(log)]) == 0
    page = folder / "game.html"
    assert main(["view", str(log), "-o", str(page)]) == 0
    return log, page


def _data(page) -> dict:
    text = page.read_text(encoding="utf-8")
    return json.loads(re.search(r'<script id="game-data" type="application/json">(.*?)</script>',
                                text, re.S).group(1))


def test_the_page_stands_alone_and_holds_every_step(logged):
    log, page = logged
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)=["']?(http|//)""", text)  # nothing fetched: works offline
    data, actions = _data(page), read_log(log)["actions"]
    assert len(data["frames"]) == len(actions) + 1
    assert [f["action"] for f in data["frames"][1:]] == actions
    last = data["frames"][-1]["log"]   # the last step names the end and the winners in words
    end = last[-1].splitlines()
    assert end[0].endswith(f": the game ends (after {len(actions)} decisions)") and " win" in end[1]
    assert not any(" the game ends " in line for f in data["frames"][:-1] for line in f["log"])
    for step in (0, len(actions) // 2, len(actions)):  # the track of a step is the board's then
        game, _ = replay(read_log(log), str(log), step=step)
        model = board_model(game)
        drawn = data["frames"][step]["marks"]
        assert drawn.count('class="track-node"') == sum(len(h.track) for h in model.hexes if h.col is not None)
        assert drawn.count('<g class="track"') == sum(len(shared) for _, _, shared in model.track)
    assert all(f["rule"].endswith(tuple(f":{n}" for n in range(1, 999))) for f in data["frames"][1:])


@pytest.mark.parametrize("where", ["end", "middle", "back to the start"])
def test_chromium_shows_the_step_in_the_address(logged, where, tmp_path):
    log, page = logged
    data = _data(page)
    last = len(data["frames"]) - 1
    step = {"end": last, "middle": last // 2, "back to the start": 0}[where]
    dom = browser.dom_at(page, f"step={step}")
    assert f"step {step} of {last}" in dom
    drawn = data["frames"][step]["marks"]
    for kind in ('<circle class="track-node"', '<g class="track"'):
        assert dom.count(kind) == drawn.count(kind)
    assert dom.count('<circle class="track-node"') > 0
    shown = next(f["displays"] for f in reversed(data["frames"][:step + 1]) if f["displays"] is not None)
    drawn = re.search(r'<div id="displays">(.*?)</div>', dom, re.S).group(1)
    assert drawn.count('<g class="display"') == shown.count('<g class="display"') == 3  # this step's
    assert ("to choose:" in drawn) != data["frames"][step]["over"]
    action = data["frames"][step]["action"]
    shown = re.search(r'<span id="action">(.*?)</span>', dom).group(1)
    assert shown.startswith(" ".join(map(str, action))) if action else shown == "(the start)"


def test_view_refuses_what_it_cannot_do(logged, tmp_path, capsys):
    log, page = logged
    assert main(["view", str(log), "-o", str(page)]) == 2  # exists: not overwritten
    assert "--force" in capsys.readouterr().err
    assert main(["view", str(tmp_path / "missing.log"), "-o", str(tmp_path / "x.html")]) == 1
    assert "RR304" in capsys.readouterr().err
    assert main(["view", str(log), "-o", str(tmp_path / "no" / "x.html")]) == 1
    assert "cannot write" in capsys.readouterr().err


@pytest.fixture(scope="module")
def holdings(tmp_path_factory):
    """A page of a game whose players' table gives share holdings by the companies' ids."""
    folder = tmp_path_factory.mktemp("view_shares")
    log, page = folder / "game.log", folder / "game.html"
    assert main(["play", "german_railways", "--bots", "random", "--players", "3", "--seed", "5",
                 "--log", str(log)]) == 0
    assert main(["view", str(log), "-o", str(page)]) == 0
    return log, page


def _chromium(width: int):
    if not (shutil.which("chromium") or shutil.which("chromium-browser")):
        pytest.skip("headless Chromium is not installed (apt-get install chromium; CI installs it)")
    from cdp import Chromium
    return Chromium(width=width, height=900)


def test_changing_the_step_in_the_address_of_the_open_page_moves_to_it(logged):
    _, page = logged
    last = len(_data(page)["frames"]) - 1
    with _chromium(1200) as browser:
        browser.open(page.as_uri() + "#step=2")
        browser.wait("!!document.getElementById('where') && document.getElementById('where').textContent.startsWith('step 2 ')")
        for step in (last // 2, 0, last):
            browser.js(f"location.hash = 'step={step}'")
            browser.wait(f"document.getElementById('where').textContent.startsWith('step {step} of')")
            assert browser.js("+document.getElementById('slider').value") == step


ONE_LINE = ("[...document.querySelectorAll('th')].filter(th => { const r = document.createRange();"
            " r.selectNodeContents(th); return new Set([...r.getClientRects()].map(b => Math.round(b.top))).size > 1; })"
            ".map(th => th.textContent)")


@pytest.mark.parametrize("width", [390, 1200])
def test_no_table_header_is_broken_and_the_ids_of_holdings_get_a_key(holdings, width):
    _, page = holdings
    last = len(_data(page)["frames"]) - 1
    with _chromium(width) as browser:
        browser.open(f"{page.as_uri()}#step={last}")
        browser.wait("document.querySelectorAll('th').length > 0")
        assert "shares_left" in browser.js("document.getElementById('panels').textContent")
        assert browser.js(ONE_LINE) == []
        held = browser.js("[...document.querySelectorAll('td')].map(td => td.textContent)"
                          ".flatMap(t => [...t.matchAll(/([A-Z]+):\\d/g)].map(m => m[1]))")
        keyed = browser.js("[...document.querySelectorAll('.key b')].map(b => b.textContent)")
        assert held and set(held) <= set(keyed)
