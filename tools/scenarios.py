"""Scenario tests kept as data: ``rulesets/<game>/scenarios/*.yaml``.

A scenario starts a game (players, seed, optional variant) and runs its steps in order:

* ``do: "bid 8; pass; pass"`` — apply actions by label (``;`` separates several);
* ``set: "set Red.income = 22"`` — put a position in place with set/pay/add/remove;
* ``expect: "p1.cash == 12"`` — a rules-language expression that must be true;
* ``legal: "bid 8"`` / ``illegal: "bid 7"`` (with optional ``reason: text``);
* ``turn: p2`` — whose choice it is; ``over: true`` — whether the game has ended;
* ``winners: [p1, p2]`` and ``reasons: [house_supply_low]`` — how the game ended.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from railrules.interpreter import load_ruleset
from railrules.interpreter.data.ruleset import variant_file
from railrules.interpreter.data.schema import validate
from railrules.interpreter.data.yaml_source import load_yaml
from railrules.interpreter.errors import Diagnostic, IllegalAction, Pos, RailrulesError, Sink


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
    return sorted((ruleset_root / "scenarios").glob("*.yaml"))


def run_scenario(ruleset_name: str, path: Path, cache: dict | None = None) -> ScenarioResult:
    """Run one scenario file; every problem becomes a failure diagnostic, never an exception."""
    shown = str(path)
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
            cache[(ruleset_name, variant)] = load_ruleset(ruleset_name, variant)
        game = cache[(ruleset_name, variant)].new_game(data["players"], data.get("seed", 0))
    except RailrulesError as err:
        result.failures += err.diagnostics
        return result
    for i, step in enumerate(data["steps"]):
        where = positions.of("steps", i)
        try:
            problem = _step(game, step, where)
        except RailrulesError as err:
            problem = "; ".join(d.message for d in err.diagnostics)
        result.steps += 1
        if problem:
            result.failures.append(Diagnostic("RR306", problem, where))
            break
    return result


def _step(game, step: dict, where: Pos) -> str | None:
    if "do" in step:
        for label in [x.strip() for x in step["do"].split(";") if x.strip()]:
            try:
                game.apply(label)
            except IllegalAction as err:
                return f"'{label}' was refused: {err.diagnostics[0].message}"
    elif "set" in step:
        game.execute(step["set"], where)
    elif "expect" in step:
        value = game.evaluate(step["expect"], where)
        if value is not True:
            return f"expected {step['expect']}, but it is {value!r}{_explain(game, step['expect'], where)}"
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


def _reason(game, label: str) -> str:
    return game.machine.why_illegal(game.to_action(label))[0]


def _few(labels: list) -> str:
    return ", ".join(labels[:12]) + (" ..." if len(labels) > 12 else "")


def _explain(game, text: str, where: Pos) -> str:
    """For ``a == b`` style expectations, show the left side's value."""
    if " and " in text or " or " in text:
        return ""
    for op in ("==", "!=", "<=", ">=", "<", ">"):
        if op in text:
            left = text.split(op, 1)[0].strip()
            try:
                return f" ({left} is {game.evaluate(left, where)!r})"
            except RailrulesError:
                return ""
    return ""


def run_all(ruleset_name: str, root: Path) -> list[ScenarioResult]:
    cache: dict = {}
    return [run_scenario(ruleset_name, p, cache) for p in scenario_files(root)]
