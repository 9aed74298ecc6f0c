"""The page of `railrules serve` on a phone, a tablet and a desktop, in headless Chromium: no
sideways scroll and no control outside the screen's width, the board's texts at a readable size
where it opens, the board zooming (buttons, wheel, pinch) and panning (drag) in its pane, and a
choice among many hexes made on the board, its list of buttons folded unless asked for.
Screenshots go where RAILRULES_SCREENSHOTS points, to be looked at."""
from __future__ import annotations

import math

import pytest

from railrules.interpreter.paths import shipped_rulesets
from test_serve import _bring, _cdp, _keep, serving, table

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")

SCREENS = {"phone": (390, 844), "tablet": (820, 1180), "desktop": (1440, 900)}
READABLE = {"name": 11, "label": 9}   # the smallest font size on screen, in CSS pixels

MEASURE = """(() => {
  const width = innerWidth;
  const outside = [...document.querySelectorAll("button, select, input, a, summary, label, textarea")]
    .filter(e => e.getClientRects().length > 0)
    .map(e => { const r = e.getBoundingClientRect();
                return {what: e.id || e.textContent.trim().slice(0, 30) || e.tagName, left: r.left, right: r.right}; })
    .filter(c => c.left < -0.5 || c.right > width + 0.5);
  const pane = document.getElementById("board").getBoundingClientRect();
  const svg = document.querySelector("#board svg");
  const scale = svg.getScreenCTM().a;
  const texts = [...svg.querySelectorAll("text.name, text.label")].map(t => {
    const r = t.getBoundingClientRect();
    return {cls: t.getAttribute("class"), px: +t.getAttribute("font-size") * scale,
            inside: r.left >= pane.left && r.right <= pane.right && r.top >= pane.top && r.bottom <= pane.bottom};
  });
  return {scrollWidth: document.documentElement.scrollWidth, width, outside, texts,
          pane: [pane.left, pane.right, pane.width, pane.height]};
})()"""


def _ready(browser) -> None:
    browser.wait("!!S && document.querySelectorAll('#board g.hex').length > 50 && view.scale > 0 && "
                 "(S.options.length > 0 || !document.getElementById('curtain').hidden)", timeout=90)


@pytest.mark.parametrize("name", shipped_rulesets())
def test_the_page_fits_a_phone_a_tablet_and_a_desktop_with_the_board_readable(name, tmp_path):
    Chromium = _cdp()
    t = table(name=name, tmp=tmp_path)
    with serving(t) as base, Chromium() as browser:
        for screen, (width, height) in SCREENS.items():
            browser.resize(width, height)
            browser.open(base + t.links()["table"])
            _ready(browser)
            seen = browser.js(MEASURE)
            _keep(browser.screenshot(tmp_path / f"screen_{name}_{screen}.png"))
            where = f"{name} on a {screen} ({width} px)"
            assert seen["width"] == width and seen["scrollWidth"] <= width, where
            assert seen["outside"] == [], where
            left, right, pane_width, pane_height = seen["pane"]
            assert left >= 0 and right <= width and pane_width >= width * 0.6 and pane_height >= 300, where
            for cls, least in READABLE.items():
                sizes = [x["px"] for x in seen["texts"] if x["cls"] == cls]
                assert sizes and min(sizes) >= least - 0.01, (where, cls, min(sizes))
            assert sum(x["inside"] for x in seen["texts"]) >= 6, where   # the pane shows the board


def _view(browser) -> dict:
    return browser.js("({scale: view.scale, x: view.x, y: view.y, fit: fitScale(), map: view.map,"
                      " box: document.querySelector('#board svg').getAttribute('viewBox').split(' ').map(Number),"
                      " pane: (r => [r.left, r.top, r.width, r.height])(document.getElementById('board').getBoundingClientRect())})")


def _under(browser, x: float, y: float) -> list:
    """The picture's point under the screen's point (x, y)."""
    return browser.js(f"(() => {{ const svg = document.querySelector('#board svg'); const p = svg.createSVGPoint();"
                      f" p.x = {x}; p.y = {y}; const q = p.matrixTransform(svg.getScreenCTM().inverse()); return [q.x, q.y]; }})()")


def test_the_board_zooms_with_buttons_wheel_and_pinch_and_pans_by_dragging(tmp_path):
    Chromium = _cdp()
    t = table(tmp=tmp_path)
    with serving(t) as base, Chromium(width=820, height=1180) as browser:
        browser.open(base + t.links()["table"])
        _ready(browser)
        start = _view(browser)
        browser.click("#zoomin")
        assert _view(browser)["scale"] == pytest.approx(start["scale"] * 1.4)
        browser.click("#zoomout")
        assert _view(browser)["scale"] == pytest.approx(start["scale"])
        browser.click("#zoomfit")
        fit = _view(browser)
        assert fit["scale"] == pytest.approx(fit["fit"])
        x, y, w, h = fit["box"]
        m = fit["map"]
        assert x <= m["x"] and y <= m["y"] and x + w >= m["x"] + m["width"] and y + h >= m["y"] + m["height"]

        left, top, width, height = fit["pane"]
        px, py = left + width * 0.3, top + height * 0.4
        before = _under(browser, px, py)
        browser.send("Input.dispatchMouseEvent", session=True, type="mouseWheel", x=px, y=py, deltaX=0, deltaY=-300)
        browser.wait(f"view.scale > {fit['scale'] * 1.2}")
        assert _view(browser)["scale"] == pytest.approx(fit["scale"] * math.exp(0.45))
        assert _under(browser, px, py) == pytest.approx(before, abs=0.5)   # the point under the wheel stays

        decisions, wheeled = browser.js("S.decisions"), _view(browser)
        browser.js("document.getElementById('message').textContent = ''")
        cx, cy = left + width / 2, top + height / 2
        browser.send("Input.dispatchMouseEvent", session=True, type="mousePressed", x=cx, y=cy, button="left", clickCount=1)
        for k in range(1, 6):
            browser.send("Input.dispatchMouseEvent", session=True, type="mouseMoved", x=cx + 16 * k, y=cy + 8 * k,
                         button="left", buttons=1)
        browser.send("Input.dispatchMouseEvent", session=True, type="mouseReleased", x=cx + 80, y=cy + 40,
                     button="left", clickCount=1)
        dragged = _view(browser)
        assert dragged["x"] == pytest.approx(wheeled["x"] - 80 / wheeled["scale"], abs=0.5)
        assert dragged["y"] == pytest.approx(wheeled["y"] - 40 / wheeled["scale"], abs=0.5)
        assert browser.js("S.decisions") == decisions        # a drag is no click on a hex
        assert browser.js("document.getElementById('message').textContent") == ""

        browser.send("Emulation.setTouchEmulationEnabled", session=True, enabled=True, maxTouchPoints=2)
        a, b = [cx - 30, cy], [cx + 30, cy]
        browser.send("Input.dispatchTouchEvent", session=True, type="touchStart",
                     touchPoints=[{"x": a[0], "y": a[1], "id": 1}, {"x": b[0], "y": b[1], "id": 2}])
        for k in range(1, 6):
            browser.send("Input.dispatchTouchEvent", session=True, type="touchMove",
                         touchPoints=[{"x": a[0] - 12 * k, "y": a[1], "id": 1}, {"x": b[0] + 12 * k, "y": b[1], "id": 2}])
        browser.send("Input.dispatchTouchEvent", session=True, type="touchEnd", touchPoints=[])
        pinched = _view(browser)
        assert pinched["scale"] == pytest.approx(dragged["scale"] * 180 / 60, rel=0.05)   # fingers 60 px apart, then 180
        assert browser.js("S.decisions") == decisions


def _to_many_hexes(t) -> str:
    """Let the game go on (bots, and the person's first option) until the person chooses among
    many hexes; the option's name."""
    for _ in range(400):
        current = t.game.current_player      # its seat's page: the table's is curtained in this game
        s = t.state(current if current in t.humans else None)
        assert not s["over"]
        names = [o["name"] for o in s["options"] if o["hexes"]]
        many = [n for n in dict.fromkeys(names) if names.count(n) > 8]
        if many:
            return many[0]
        if s["options"]:
            t.decide(s["current"], s["options"][0]["label"])
        else:
            t.bot_move()
    raise AssertionError("no choice among many hexes")


def test_a_choice_among_many_hexes_is_made_on_the_board_its_list_folded(tmp_path):
    Chromium = _cdp()
    t = table(name="stephensons_rocket", tmp=tmp_path)
    name = _to_many_hexes(t)
    with serving(t) as base, Chromium(width=390, height=844) as browser:
        browser.open(base + t.links()["table"])
        _ready(browser)
        browser.click("#reveal")
        browser.wait("S && S.options.length > 0 && !document.getElementById('choice').hidden")   # (S is none while the lifted view loads)
        group = f'#options .group[data-name="{name}"]'
        hexes = browser.js(f"S.options.filter(o => o.name === {name!r}).map(o => o.hexes[0])")
        assert len(hexes) > 8
        shown = f"[...document.querySelectorAll('{group} button.option')].filter(b => b.checkVisibility())"
        assert browser.js(shown + ".length") == 0               # folded
        assert "click a highlighted hex" in browser.js(f"document.querySelector('{group} .hint').textContent")
        lit = browser.js("[...document.querySelectorAll('#board g.hex.can')].map(g => g.getAttribute('data-id'))")
        assert sorted(lit) == sorted(set(hexes))
        assert browser.js("document.querySelectorAll('#board g.highlight polygon').length") >= len(set(hexes))
        _keep(browser.screenshot(tmp_path / "screen_many_hexes_phone.png"))
        in_pane = ("[...document.querySelectorAll('#board g.hex.can')].some(g => { const r = g.getBoundingClientRect(),"
                   " p = document.getElementById('board').getBoundingClientRect(); return r.left >= p.left &&"
                   " r.right <= p.right && r.top >= p.top && r.bottom <= p.bottom; })")
        assert browser.js(in_pane)                              # opened where the hexes are
        browser.js("zoomTo(view.scale, view.map.x, view.map.y + view.map.height)")   # the far corner
        assert not browser.js(in_pane)
        browser.js("toTheHexes()")                              # as a new state does
        assert browser.js(in_pane)
        before = browser.js("S.decisions")
        browser.click(f"{group} summary")                      # asked for: the list opens
        assert browser.js(shown + ".length") == len(hexes)
        browser.js(f"document.querySelector('{group} input.filter').value = {hexes[0]!r};"
                   f"document.querySelector('{group} input.filter').dispatchEvent(new Event('input'))")
        kept = browser.js(shown + ".map(b => b.getAttribute('data-label'))")
        assert kept and all(hexes[0] in label for label in kept)
        def bring(h):
            _bring(browser, f'#board g.hex[data-id="{h}"]')
        several = sorted(h for h in set(hexes) if hexes.count(h) > 1)
        if several:                      # a hex several options name: the list shows those
            bring(several[0])
            browser.click(f'#board g.hex[data-id="{several[0]}"] polygon')
            browser.wait(f"document.getElementById('choicetitle').textContent === 'options on {several[0]}'")
            on = browser.js("[...document.querySelectorAll('#options button.option')].filter(b => b.checkVisibility())"
                            ".map(b => b.getAttribute('data-label'))")
            assert len(on) == hexes.count(several[0]) and all(several[0] in label for label in on)
            browser.click(f'#options button.option[data-label="{on[0]}"]')
            chosen = on[0]
        else:                            # a hex one option names: the click takes it
            chosen = browser.js(f"S.options.find(o => o.hexes.includes({hexes[0]!r})).label")
            bring(hexes[0])
            browser.click(f'#board g.hex[data-id="{hexes[0]}"] polygon')
        browser.wait(f"S.decisions > {before}")
    assert t.last["label"] == chosen


def test_a_long_list_of_anything_is_folded_with_a_filter(tmp_path):
    """The page given a choice among 50 entities (no game ships one that long: the list is
    drawn from a state whose options are replaced)."""
    Chromium = _cdp()
    t = table(tmp=tmp_path)
    with serving(t) as base, Chromium(width=390, height=844) as browser:
        browser.open(base + t.links()["table"])
        _ready(browser)
        browser.js("drawOptions({...S, options: Array.from({length: 50}, (_, k) => ({label: 'pick e' + k, name: 'pick',"
                   " args: ['e' + k], names: '', cost: '', hexes: []}))})")
        group = '#options .group[data-name="pick"]'
        shown = f"[...document.querySelectorAll('{group} button.option')].filter(b => b.checkVisibility()).length"
        assert browser.js(shown) == 0
        assert browser.js(f"document.querySelector('{group} .hint').textContent") == "50 choices"
        browser.click(f"{group} summary")
        assert browser.js(shown) == 50
        browser.js(f"(f => {{ f.value = 'e4'; f.dispatchEvent(new Event('input')); }})(document.querySelector('{group} input.filter'))")
        assert browser.js(shown) == 11     # e4 and e40 to e49
        assert browser.js(MEASURE)["outside"] == []
