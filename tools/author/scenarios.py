"""Scenario tests kept as data: ``rulesets/<game>/scenarios/*.yaml``.

A scenario starts a game (players, seed, optional variant) and runs its steps in order:

* ``do: "bid 8; pass; pass"`` — apply actions by label (``;`` separates several);
* ``set: "set Red.income = 22"`` — put a position in place with set/pay/add/remove;
* ``expect: "p1.cash == 12"`` — a rules-language expression that must be true;
* ``legal: "bid 8"`` / ``illegal: "bid 7"`` (with optional ``reason: text``);
* ``turn: p2`` — whose choice it is; ``over: true`` — whether the game has ended;
* ``do: "bid 5"`` with ``seat: p2`` — that seat commits in a round of secret choices;
  ``deciding: [p1, p3]`` — the seats still to commit; ``unseen: "bid 5"`` with ``seat: p1`` —
  the text is in neither that seat's view nor its log (``seat`` left out: an onlooker's);
  ``logged: "buys 2 cards for $180"`` (optional ``seat``) — a line of that log holds the text;
* ``winners: [p1, p2]`` and ``reasons: [house_supply_low]`` — how the game ended.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from railrules.interpreter import load_ruleset
from railrules.interpreter.data.ruleset import ruleset_folders, variant_file
from railrules.interpreter.data.schema import validate
from railrules.interpreter.data.yaml_source import load_yaml
from railrules.interpreter.errors import Diagnostic, IllegalAction, Pos, RailrulesError, Sink

from railrules.tools.author.scenario_lint import display


@dataclass
class ScenarioResult:
    file: str
    description: str
    failures: list = field(default_factory=list)   # Diagnostics
    steps: int = 0

    @property
    def passed(self) -> bool:
        return not self.failures


def scenario_files(ruleset_root: Path) -> list[Path]:
    """A ruleset's scenarios: those of the rulesets it extends (the base first), which its
    overlays must pass too, then its own."""
    return [p for folder in ruleset_folders(ruleset_root) for p in sorted((folder / "scenarios").glob("*.yaml"))]


def run_scenario(ruleset_name: str, path: Path, cache: dict | None = None, keep: list | None = None,
                 load=load_ruleset) -> ScenarioResult:
    """Run one scenario file; every problem becomes a failure diagnostic, never an exception.
    With ``keep`` (a list), only the steps that move the game (``do``, ``set``) are run, and
    the game they leave is put in ``keep`` (for ``--record``). ``load(name, variant)`` makes
    the ruleset (``cache`` keeps what it made): ``railrules test --mutate`` loads an edited copy."""
    shown = display(path)
    sink = Sink()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        return ScenarioResult(shown, "?", [Diagnostic("RR001", f"cannot read: {err}", Pos(shown, 1, 1))])
    data, positions = load_yaml(text, shown, sink)
    if data is None or not validate(data, "scenario", positions, sink):
        return ScenarioResult(shown, "?", sink.errors)
    result = ScenarioResult(shown, data["description"])
    cache = cache if cache is not None else {}
    variant = data.get("variant")
    if variant is not None and variant_file(variant) is not None:
        # a scenario is the ruleset's own data: it may name only the ruleset's own variants
        result.failures.append(Diagnostic(
            "RR205", f"a scenario names a variant of its ruleset by name, not a file ('{variant}')",
            positions.value_of("variant"), hint="name a file of the ruleset's variants/ folder, "
            "without '.yaml'"))
        return result
    try:
        if (ruleset_name, variant) not in cache:
            cache[(ruleset_name, variant)] = load(ruleset_name, variant)
        game = cache[(ruleset_name, variant)].new_game(data["players"], data.get("seed", 0))
    except RailrulesError as err:
        result.failures += err.diagnostics
        return result
    if keep is not None:
        keep.append(game)
    for i, step in enumerate(data["steps"]):
        if keep is not None and "do" not in step and "set" not in step:
            continue
        where = positions.of("steps", i)
        code = "RR306"
        try:
            problem = _step(game, step, where)
        except RailrulesError as err:
            problem = "; ".join(d.message for d in err.diagnostics)
            code = err.diagnostics[0].code if err.diagnostics[0].code in _OWN_CODES else code
        result.steps += 1
        if problem:
            asked = _asked_by_overlay(game, path)
            if asked:
                problem = f"step {i + 1} diverged: {problem}"
            result.failures.append(Diagnostic(code, problem, where, hint=asked))
            break
    return result


def _asked_by_overlay(game, path: Path) -> str | None:
    """When a scenario of a base runs on an overlay of it: which overlay definitions ask the
    question the game waits on (the choose, or options added to it), or None."""
    layers = [f.resolve() for f in game.ruleset.layers]
    home = path.resolve().parent.parent
    if home not in layers[:-1] or not game.state["waiting"]:
        return None
    above = layers[layers.index(home) + 1:]

    def overlay(pos) -> bool:
        return pos is not None and any(Path(pos.file).resolve().is_relative_to(f) for f in above)
    choose = game.machine.question()
    options = sorted({s.name for s in choose.options})
    if overlay(choose.pos):
        return (f"the overlay asks this question ({', '.join(options)}) at {choose.pos}, "
                "where its base asks none")
    added = [f"{s.name} at {s.pos}" for s in choose.options if overlay(s.pos)]
    if added:
        return f"the overlay adds options to the question asked here: {', '.join(added)}"
    return None


_OWN_CODES = {"RR314"}   # the scenario's own data refused (a set: of a type the rules never store)


def _step(game, step: dict, where: Pos) -> str | None:
    if "do" in step:
        for label in [x.strip() for x in step["do"].split(";") if x.strip()]:
            try:
                game.apply(label, player=step.get("seat"))
            except IllegalAction as err:
                return f"'{label}' was refused: {err.diagnostics[0].message}"
    elif "unseen" in step:
        return _unseen(game, step["unseen"], step.get("seat"))
    elif "logged" in step:
        return _logged(game, step["logged"], step.get("seat"))
    elif "deciding" in step:
        if game.deciding != step["deciding"]:
            return f"expected {', '.join(step['deciding']) or 'nobody'} deciding, but it is {', '.join(game.deciding) or 'nobody'}"
    elif "set" in step:
        game.execute(step["set"], where)
    elif "expect" in step:
        value = game.evaluate(step["expect"], where)
        if value is not True:
            return f"expected {step['expect']}, got {_explain(game, step['expect'], where) or literal(value)}"
    elif "legal" in step:
        labels = [a.label for a in game.legal_actions()]
        if step["legal"] not in labels:
            reason = _reason(game, step["legal"])
            return f"'{step['legal']}' should be legal but is not ({reason}); legal: {_few(labels)}"
    elif "illegal" in step:
        labels = [a.label for a in game.legal_actions()]
        if step["illegal"] in labels:
            return f"'{step['illegal']}' should be illegal but is legal"
        reason = _reason(game, step["illegal"])
        if "reason" in step and step["reason"] not in reason:
            return f"'{step['illegal']}' is refused with '{reason}', not '{step['reason']}'"
    elif "turn" in step:
        if game.current_player != step["turn"]:
            return f"expected {step['turn']} to choose, but it is {game.current_player}"
    elif "winners" in step:
        if not game.is_over or game.result["winners"] != step["winners"]:
            return f"expected winners {step['winners']}, got {game.result and game.result['winners']}"
    elif "reasons" in step:
        if not game.is_over or game.result["reasons"] != step["reasons"]:
            return f"expected end reasons {step['reasons']}, got {game.result and game.result['reasons']}"
    elif "over" in step:
        if game.is_over != step["over"]:
            return f"expected the game {'over' if step['over'] else 'running'}, it is not"
    return None


def _unseen(game, text: str, seat: str | None) -> str | None:
    """The problem if ``text`` is in what ``seat`` (None: an onlooker) sees: its view or its log."""
    view = json.dumps(game.view(seat), ensure_ascii=False)
    lines = [line for line in game.messages_for(seat) if text in line]
    if lines or text in view:
        where = f"its log ('{lines[0]}')" if lines else "its view"
        return f"'{text}' should be hidden from {seat or 'an onlooker'}, but {where} shows it"
    return None


def _logged(game, text: str, seat: str | None) -> str | None:
    """The problem if no line of the log ``seat`` (None: an onlooker) reads holds ``text``."""
    lines = game.messages_for(seat)
    if any(text in line for line in lines):
        return None
    last = "; ".join(f"'{line}'" for line in lines[-3:]) or "none"
    return f"'{text}' should be in {seat or 'an onlooker'}'s log, but no line holds it (the last: {last})"


def _reason(game, label: str) -> str:
    return game.machine.why_illegal(game.to_action(label))[0]


def _few(labels: list) -> str:
    return ", ".join(labels[:12]) + (" ..." if len(labels) > 12 else "")


def _explain(game, text: str, where: Pos) -> str:
    """For ``a == b`` style expectations, both sides' values: ``p1.cash = 10 (expected 12)``;
    for ``a and b``, the parts that are false."""
    for joiner in (" and ", " or "):
        if joiner in text:
            if joiner == " or ":
                return ""
            false = [part for part in text.split(joiner) if _value(game, part, where) is not True]
            return "; ".join(_explain(game, part, where) or f"{part.strip()} is false" for part in false)
    for op in ("==", "!=", "<=", ">=", "<", ">"):
        if op in text:
            left, right = (x.strip() for x in text.split(op, 1))
            got, want = _value(game, left, where), _value(game, right, where)
            if got is _UNKNOWN:
                return ""
            shown = literal(want) if want is not _UNKNOWN else right
            return f"{left} = {literal(got)} (expected {op if op != '==' else ''}{' ' if op != '==' else ''}{shown})"
    return ""


_UNKNOWN = object()


def _value(game, text: str, where: Pos):
    try:
        return game.evaluate(text.strip(), where)
    except RailrulesError:
        return _UNKNOWN


def literal(value, names=None) -> str:
    """A value as the rules language writes it (``true``, ``none``, ``[a1, b2]``, ``7/2``); a
    string is written bare when it is one of ``names`` (entities, players; any name if None)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(literal(v, names) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k, names)}: {literal(v, names)}" for k, v in value.items()) + "}"
    if isinstance(value, str):
        bare = value in names if names is not None else value.replace("_", "a").isalnum() and value[:1].isalpha()
        return value if bare else json.dumps(value)
    return str(value)


def recorded(ruleset_name: str, path: Path, cache: dict | None = None) -> tuple[ScenarioResult, list[dict]]:
    """The steps that state the position a scenario's ``do``/``set`` steps reach: one
    ``expect`` per entity (and one for the globals) of what differs from the game's start,
    whose turn it is, whether it is over. For the author to review, not to trust blindly."""
    keep: list = []
    result = run_scenario(ruleset_name, path, cache, keep)
    if not keep or not result.passed:
        return result, []
    game = keep[0]
    start = game.ruleset.new_game(game.state["players"], game.state["seed"]).state
    names = set(game.state["entities"]) | set(game.ruleset.names.entities)
    steps: list[dict] = []
    for ent, rec in game.state["entities"].items():
        before = start["entities"].get(ent, {})
        parts = [part for key, value in rec.items() if key not in ("id", "kind") and value != before.get(key)
                 for part in _differences(f"{ent}.{key}", value, before.get(key), names)]
        if parts:
            steps.append({"expect": " and ".join(parts)})
    parts = [part for key, value in game.state["globals"].items() if value != start["globals"].get(key)
             for part in _differences(key, value, start["globals"].get(key), names)]
    if parts:
        steps.append({"expect": " and ".join(parts)})
    steps.append({"over": True} if game.is_over else {"turn": game.current_player})
    return result, steps


def _differences(name: str, value, before, names) -> list[str]:
    if isinstance(value, dict) and isinstance(before, dict):
        return [f"{name}[{literal(k, names)}] == {literal(v, names)}" for k, v in value.items() if before.get(k) != v]
    return [f"{name} == {literal(value, names)}"]


def append_steps(path: Path, steps: list[dict]) -> None:
    """Add steps at the end of a scenario file, whose last key must be ``steps:`` (written as
    a block list), under a comment saying where they come from."""
    text = path.read_text(encoding="utf-8")
    keys = [line.split(":", 1)[0] for line in text.splitlines() if line[:1].isalpha()]
    if not keys or keys[-1] != "steps":
        raise ValueError(f"{display(path)}: steps: is not the file's last key; add the steps by hand")
    lines = ["  # recorded by `railrules test --record`: review each line before keeping it"]
    for step in steps:
        (key, value), = step.items()
        lines.append(f"  - {key}: {json.dumps(value) if isinstance(value, str) else literal(value)}")
    path.write_text(text.rstrip("\n") + "\n" + "\n".join(lines) + "\n", encoding="utf-8")


def run_all(ruleset_name: str, root: Path) -> list[ScenarioResult]:
    cache: dict = {}
    return [run_scenario(ruleset_name, p, cache) for p in scenario_files(root)]
