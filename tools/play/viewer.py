"""`railrules view LOG -o FILE.html`: one self-contained page to step through a logged game.

The page holds the board once (the SVG picture of :mod:`tools.pictures.svg_board`, without marks) and,
for every step, what changes: the track and pieces (drawn by the same writer), the hex labels that differ
from the start, the action taken and who took it, the log lines it wrote and the public state
tables. A slider, buttons and the arrow keys move through the steps; ``#step=N`` in the address
opens step N (also when changed in the open page). A table's ids (share holdings) get a key
of their names. Nothing is fetched: the page works offline. Only public information is shown
(the view of no player: secret fields read ``hidden``, secret log lines are left out).
"""
from __future__ import annotations

import html
import json

from railrules.interpreter.checks.lint_coverage import rules_of
from railrules.interpreter.paths import place_in_ruleset

from railrules.tools.pictures.board_model import BoardModel, board_model
from railrules.tools.play.summary import standings
from railrules.tools.pictures.svg_board import centres, displays_svg, marks_layer, to_svg


def to_html(log: dict, where: str, ruleset_path: str | None = None, force: bool = False) -> str:
    from railrules.tools.play.replay import steps
    frames: list[dict] = []
    owners: dict[str, tuple[str, str]] = {}
    base_labels: dict[str, str] = {}
    at: dict | None = None
    first: BoardModel | None = None
    seen_messages, by, rules = 0, "", {}
    hint = ("write it with --force-rules to see where the game diverges, or --ruleset PATH to use "
            "the rules it was made with")
    for i, game in enumerate(steps(log, where, ruleset_path, force, hint=hint)):
        model = board_model(game)
        if first is None:
            first, at = model, centres(model)
            base_labels = {h.id: h.label for h in model.hexes}
            rules = {r["name"]: place_in_ruleset(r["where"]) for r in rules_of(game.ruleset)
                     if r["kind"] in ("action", "option")}
        for m, (name, colour) in model.owners.items():
            owners.setdefault(m, (name, colour))
        model.owners = {**model.owners, **owners}  # the colour an entity was first drawn in
        lines = game.messages_for(None)
        action = log["actions"][i - 1] if i else None
        frames.append({
            "action": action,
            "by": by if i else "",
            "rule": rules.get(action[0], "") if action else "",
            "marks": marks_layer(model, at),
            "displays": _changed(displays_svg(model), frames),
            "labels": {h.id: h.label for h in model.hexes if h.label != base_labels.get(h.id)},
            "log": list(lines[seen_messages:]) + ([standings(game, game.view(None))] if game.is_over else []),
            "panels": model.panels,
            "over": game.is_over,
        })
        seen_messages = len(lines)
        who = game.current_player
        by = str(game.state["entities"].get(who, {}).get("name", who)) if who else ""
    assert first is not None  # steps() yields the starting position first
    first.owners = owners
    board = to_svg(first, marks=False, panels=False, displays=False)
    data = {"frames": frames, "owners": [[m, n, c] for m, (n, c) in owners.items()],
            "base": base_labels}
    title = f"{first.title}: {log['players']} players, seed {log['seed']}"
    return _PAGE.format(title=html.escape(title), board=board, steps=len(frames) - 1,
                        data=json.dumps(data, separators=(",", ":")).replace("</", "<\\/"))


def _changed(svg: str, frames: list):
    """The displays of a step, or None when they are those of the step before (kept smaller)."""
    last = next((f["displays"] for f in reversed(frames) if f["displays"] is not None), None)
    return None if svg == last else svg


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: sans-serif; margin: 12px; }}
#bar {{ display: flex; gap: 8px; align-items: center; margin-bottom: 8px; }}
#slider {{ width: 420px; }}
#main {{ display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }}
#side {{ flex: 1 1 320px; max-width: 520px; font-size: 13px; overflow-wrap: anywhere; }}
#log {{ white-space: pre-wrap; background: #f6f6f6; padding: 6px; max-height: 260px; overflow: auto; }}
.panel {{ overflow-x: auto; }}
table {{ border-collapse: collapse; font-size: 12px; margin-top: 8px; overflow-wrap: normal; }}
td, th {{ border: 1px solid #ccc; padding: 2px 6px; text-align: left; }}
th {{ white-space: nowrap; }}
.key {{ margin: 2px 0 0; font-size: 12px; color: #444; }}
</style></head>
<body>
<h1 style="font-size:18px">{title}</h1>
<div id="bar">
<button id="prev" title="previous step (left arrow)">&#9664;</button>
<input id="slider" type="range" min="0" max="{steps}" value="0">
<button id="next" title="next step (right arrow)">&#9654;</button>
<span id="where"></span>
</div>
<div id="main">
<div id="board">{board}</div>
<div id="side">
<div><b>action</b>: <span id="action"></span></div>
<div><b>allowed by</b>: <span id="rule"></span></div>
<div id="log"></div>
<div id="displays"></div>
<div id="panels"></div>
</div></div>
<script id="game-data" type="application/json">{data}</script>
<script>
const DATA = JSON.parse(document.getElementById("game-data").textContent);
const slider = document.getElementById("slider");
function esc(t) {{ const d = document.createElement("div"); d.textContent = t; return d.innerHTML; }}
function show(i) {{
  i = Math.max(0, Math.min(DATA.frames.length - 1, i));
  slider.value = i;
  const f = DATA.frames[i];
  document.getElementById("marks").innerHTML = f.marks;
  let k = i;
  while (k > 0 && DATA.frames[k].displays === null) k--;
  document.getElementById("displays").innerHTML = DATA.frames[k].displays || "";
  for (const label of document.querySelectorAll("text.label")) {{
    const id = label.getAttribute("data-id");
    label.textContent = id in f.labels ? f.labels[id] : DATA.base[id];
  }}
  document.getElementById("where").textContent =
    "step " + i + " of " + (DATA.frames.length - 1) + (f.over ? " (game over)" : "");
  document.getElementById("action").textContent =
    f.action ? f.action.join(" ") + (f.by ? " (" + f.by + ")" : "") : "(the start)";
  document.getElementById("rule").textContent = f.rule || "-";
  document.getElementById("log").textContent = f.log.join("\\n");
  document.getElementById("panels").innerHTML = f.panels.map(([title, head, rows, key]) =>
    "<div class='panel'><table><caption><b>" + esc(title) + "</b></caption><tr>" + head.map(h => "<th>" + esc(h) + "</th>").join("") +
    "</tr>" + rows.map(r => "<tr>" + r.map(c => "<td>" + esc(c) + "</td>").join("") + "</tr>").join("") +
    "</table>" + (key.length ? "<p class='key'>" + key.map(([e, name]) => "<b>" + esc(e) + "</b>: " + esc(name)).join(", ") + "</p>" : "") +
    "</div>").join("");
  history.replaceState(null, "", "#step=" + i);
}}
slider.addEventListener("input", () => show(+slider.value));
document.getElementById("prev").addEventListener("click", () => show(+slider.value - 1));
document.getElementById("next").addEventListener("click", () => show(+slider.value + 1));
document.addEventListener("keydown", e => {{
  if (e.key === "ArrowLeft") show(+slider.value - 1);
  if (e.key === "ArrowRight") show(+slider.value + 1);
}});
function fromAddress() {{ const m = /step=(\\d+)/.exec(location.hash); show(m ? +m[1] : 0); }}
window.addEventListener("hashchange", fromAddress);   // a step typed in the address of the open page
fromAddress();
</script>
</body></html>
"""


# ------------------------------------------------------------------ the verb: railrules view
def add_arguments(parser) -> None:
    parser.description = (
        "Write a self-contained HTML page (works offline) to step through a game log: the board at "
        "each step, the action taken and the rule that offers it, the log lines and the public state; "
        "a slider, buttons and the arrow keys move, #step=N in the address opens step N.")
    parser.add_argument("log", help="a game log (railrules play --log FILE)")
    parser.add_argument("-o", "--output", required=True, metavar="FILE", help="the HTML file to write")
    parser.add_argument("--ruleset", help="the ruleset folder the log was made with (default: the one it names)")
    parser.add_argument("--force", action="store_true", help="allow -o to overwrite an existing file")
    parser.add_argument("--force-rules", action="store_true",
                        help="replay even if the rules changed since the log was made")


def run(args) -> int:
    from pathlib import Path

    from railrules.tools.common import verbs
    from railrules.tools.common.outputs import write
    from railrules.tools.play.replay import read_log
    out = Path(args.output)
    verbs.check_outputs({"-o": out}, args.force)
    page = to_html(read_log(Path(args.log)), args.log, args.ruleset, args.force_rules)
    write(out, page)
    print(f"wrote {out} ({len(page) // 1024} KB): open it in a browser")
    return verbs.EXIT_OK
