"""`railrules test RULESET --mutate`: which rules no test pins down.

Coverage says which rules fire; this says whether the scenarios would notice a rule written
wrong. Small wrong edits (:mod:`.mutants`) are planted one at a time; a mutant that does not lint
clean is left out (counted); each other one is run against every scenario that passes on the
ruleset as it is and, with ``games``, against seeded random games played on the ruleset as it is:
the same seeds, the same choices by position in the list of legal actions, compared decision by
decision (labels, log lines) and at the end (the result). A mutant that some check notices is
*killed*; one that none notices *survived*: a rule, or a number, that no test pins down.

The score is the share of killed mutants among those of rules (the estimate and metrics are not
rules: their mutants are reported apart). Mutants run in worker processes with ``jobs`` > 1;
Ctrl-C stops the run and reports what finished (marked partial).
"""
from __future__ import annotations

import random
import sys
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from railrules.interpreter import load_ruleset
from railrules.interpreter.checks.lint_unreachable import ROOTS, RULES, reached
from railrules.interpreter.data.ruleset import check_ruleset, resolve_ruleset_path
from railrules.interpreter.dsl import nodes as n
from railrules.interpreter.dsl.nodes import walk
from railrules.interpreter.errors import RailrulesError

from railrules.tools.author.mutants import Mutant, mutants, yaml_name
from railrules.tools.author.scenarios import run_scenario, scenario_files

__all__ = ["Outcome", "Report", "mutate", "plant", "text_report"]

KILLED, SURVIVED, UNCLEAN = "killed", "survived", "not lint clean"


@dataclass
class Outcome:
    mutant: Mutant
    verdict: str
    by: str = ""        # what noticed it: a scenario and its message, or a game and its decision


@dataclass
class Report:
    ruleset: str
    planted: int                        # mutants of the ruleset in all
    outcomes: list = field(default_factory=list)
    equivalent: int = 0                 # mutants left out: they cannot change a game
    scenarios: int = 0                  # scenarios that pass as the ruleset is (the checks)
    games: int = 0
    partial: bool = False

    def of(self, verdict: str, counted: bool = True) -> list:
        return [o for o in self.outcomes if o.verdict == verdict and o.mutant.counted == counted]

    @property
    def score(self) -> float | None:
        """Killed among the judged mutants of rules (None when none was judged)."""
        killed, survived = len(self.of(KILLED)), len(self.of(SURVIVED))
        return killed / (killed + survived) if killed + survived else None

    def to_json(self) -> dict:
        def one(o: Outcome) -> dict:
            m = o.mutant
            return {"file": m.shown, "line": m.line, "kind": m.kind, "before": m.before, "after": m.after,
                    "definition": m.definition, "rule": m.rule, "verdict": o.verdict, "by": o.by,
                    "counted": m.counted}
        return {"ruleset": self.ruleset, "planted": self.planted, "equivalent": self.equivalent, "judged": len(self.outcomes),
                "score": self.score, "killed": len(self.of(KILLED)), "survived": len(self.of(SURVIVED)),
                "not_lint_clean": len([o for o in self.outcomes if o.verdict == UNCLEAN]),
                "not_rules": len([o for o in self.outcomes if not o.mutant.counted]),
                "scenarios": self.scenarios, "games": self.games, "partial": self.partial,
                "mutants": [one(o) for o in self.outcomes]}


# ------------------------------------------------------------------ the checks, as the ruleset is
@dataclass
class _Checks:
    name: str                           # the ruleset as named (a shipped name or a folder)
    root: Path
    scenarios: list                     # the scenario files that pass as the ruleset is
    games: list                         # (players, seed, [(label, new log lines)], result)


def _players(ruleset, seed: int) -> int:
    """Every number of players the ruleset allows, in turn, seed by seed."""
    low, high = ruleset.meta["players"]["min"], ruleset.meta["players"]["max"]
    return low + (seed - 1) % (high - low + 1)


def _play(ruleset, players: int, seed: int, record: list | None = None):
    """A seeded random game: the action at a position drawn from ``random.Random(seed)`` among
    the legal ones. With ``record`` (the decisions of the ruleset as it is) the game stops at the
    first difference and says where; without, it returns the decisions made and the result."""
    game = ruleset.new_game(players, seed)
    rng = random.Random(seed)
    made, shown = [], 0
    budget = ruleset.decision_budget
    while not game.is_over and game.decisions < budget:
        legal = game.legal_actions()
        if not legal:
            return made, "the game stopped with no legal action"
        action = legal[rng.randrange(len(legal))]
        game.apply(action)
        lines = game.messages_for(None)
        step = (action.label, lines[shown:])
        shown = len(lines)
        if record is not None:
            if len(made) >= len(record) or record[len(made)] != step:
                return made, f"decision {len(made) + 1} differs"
        made.append(step)
    return made, game.result


def checks(name: str, games: int = 0) -> _Checks:
    """The scenarios that pass, and ``games`` recorded random games, on the ruleset as it is."""
    root = resolve_ruleset_path(name) or Path(name).resolve()
    cache: dict = {}
    passing = [p for p in scenario_files(root) if run_scenario(name, p, cache).passed]
    recorded = []
    if games:
        ruleset = load_ruleset(name)
        for seed in range(1, games + 1):
            players = _players(ruleset, seed)
            made, result = _play(ruleset, players, seed)
            recorded.append((players, seed, made, result))
    return _Checks(name, root, passing, recorded)


# ------------------------------------------------------------------ one mutant
def judge(checks: _Checks, mutant: Mutant) -> Outcome:
    """Run every check against one mutant."""
    texts = {mutant.path: mutant.text}
    _, diags = check_ruleset(checks.name, None, texts)
    errors = [d for d in diags if d.severity == "error"]
    if errors:
        return Outcome(mutant, UNCLEAN, f"{errors[0].code} {errors[0].message}")
    loaded: dict = {}

    def load(name, variant=None):
        return load_ruleset(name, variant, texts=texts)

    for path in checks.scenarios:
        result = run_scenario(checks.name, path, loaded, load=load)
        if not result.passed:
            return Outcome(mutant, KILLED, f"scenario {path.name}: {result.failures[0].message}")
    if checks.games:
        try:
            ruleset = load(checks.name)
        except RailrulesError as err:
            return Outcome(mutant, KILLED, f"the mutant does not load: {err.diagnostics[0].message}")
        for players, seed, made, result in checks.games:
            try:
                steps, got = _play(ruleset, players, seed, made)
            except RailrulesError as err:
                return Outcome(mutant, KILLED, f"game seed {seed}: {err.diagnostics[0].message}")
            if isinstance(got, str):
                return Outcome(mutant, KILLED, f"game seed {seed}: {got}")
            if len(steps) != len(made) or got != result:
                return Outcome(mutant, KILLED, f"game seed {seed}: the result differs")
    return Outcome(mutant, SURVIVED)


# ------------------------------------------------------------------ many mutants
def names_read(defs: list, roots: tuple = ROOTS) -> set:
    """The definitions reached from ``roots`` and the names they read (variables, constants,
    fields)."""
    names, _ = reached(defs, roots)
    found = set(names)
    for d in defs:
        if type(d) in roots or getattr(d, "name", None) in names or isinstance(d, n.HandlerDef):
            found |= {x.name for x in walk(d) if isinstance(x, (n.Var, n.Attr))}
    return found


def plant(name: str, budget: int | None, seed: int) -> tuple[list[Mutant], int, int]:
    """The mutants to judge: all of the ruleset's, or ``budget`` of them drawn with ``seed``
    (in file and line order); how many there are in all; how many were left out as equivalent:
    a YAML number that no definition reads by its name cannot change a game."""
    ruleset = load_ruleset(name)
    root = resolve_ruleset_path(name) or Path(name).resolve()
    found = mutants(root, list(ruleset.meta["rules"]), names_read(ruleset.definitions, RULES))
    anywhere = names_read(ruleset.definitions)
    kept = [m for m in found if yaml_name(m.definition) in (None, *anywhere)]
    equivalent = len(found) - len(kept)
    if budget is not None and budget < len(kept):
        keep = sorted(random.Random(seed).sample(range(len(kept)), budget))
        return [kept[i] for i in keep], len(kept), equivalent
    return kept, len(kept), equivalent


_WORKER: dict = {}


def _start_worker(name: str, games: int) -> None:
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # the parent stops the run
    _WORKER["checks"] = checks(name, games)


def _judge_in_worker(mutant: Mutant) -> Outcome:
    return judge(_WORKER["checks"], mutant)


def mutate(name: str, budget: int | None = 100, seed: int = 1, games: int = 0, jobs: int = 1,
           progress=None) -> Report:
    """Plant mutants in a ruleset and run its checks against each; Ctrl-C stops with what
    finished (``partial``). ``progress(done, total)`` is called as mutants are judged."""
    chosen, planted, equivalent = plant(name, budget, seed)
    base = checks(name, games)
    report = Report(name, planted, equivalent=equivalent, scenarios=len(base.scenarios), games=games)
    try:
        if jobs <= 1:
            for m in chosen:
                report.outcomes.append(judge(base, m))
                if progress:
                    progress(len(report.outcomes), len(chosen))
        else:
            with ProcessPoolExecutor(jobs, initializer=_start_worker, initargs=(name, games)) as pool:
                pending = {pool.submit(_judge_in_worker, m) for m in chosen}
                try:
                    while pending:
                        done, pending = wait(pending, timeout=1, return_when=FIRST_COMPLETED)
                        for f in done:
                            report.outcomes.append(f.result())
                            if progress:
                                progress(len(report.outcomes), len(chosen))
                finally:
                    for f in pending:
                        f.cancel()
    except KeyboardInterrupt:
        report.partial = True
    report.outcomes.sort(key=lambda o: (o.mutant.shown, o.mutant.line, o.mutant.kind, o.mutant.after))
    return report


# ------------------------------------------------------------------ what is printed
def text_report(report: Report) -> str:
    lines = []
    score = report.score
    judged = len(report.of(KILLED)) + len(report.of(SURVIVED))
    head = (f"mutation score {report.ruleset}: " + (f"{score:.0%}" if score is not None else "-") +
            f" ({len(report.of(KILLED))} of {judged} mutants of rules killed")
    unclean = len([o for o in report.outcomes if o.verdict == UNCLEAN])
    not_rules = len([o for o in report.outcomes if not o.mutant.counted and o.verdict != UNCLEAN])
    head += f"; {unclean} not lint clean, {not_rules} in the estimate or metrics, not counted)"
    lines.append(f"{len(report.outcomes)} of {report.planted} mutants judged ({report.equivalent} more "
                 "left out: YAML numbers no rule reads)"
                 f" against {report.scenarios} scenarios" + (f" and {report.games} games" if report.games else "")
                 + (" (PARTIAL: stopped before the end)" if report.partial else ""))
    survivors = report.of(SURVIVED)
    if survivors:
        lines.append("")
        lines.append("survived (no check noticed them), by definition:")
        by_definition: dict = {}
        for o in survivors:
            by_definition.setdefault(o.mutant.definition, []).append(o.mutant)
        for definition, ms in sorted(by_definition.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            lines.append(f"  {definition} ({len(ms)})")
            for m in ms:
                lines.append(f"    {m.shown}:{m.line}: {m.kind} {m.before!r} -> {m.after!r}: {m.rule}")
    lines.append("")
    lines.append(head)
    return "\n".join(lines)


def print_progress(done: int, total: int, out=sys.stderr) -> None:
    out.write(f"\r{done}/{total} mutants judged")
    if done == total:
        out.write("\n")
    out.flush()


def run_mutate(args) -> int:
    """`railrules test RULESET --mutate`: one ruleset, its report in text or JSON; exit 0 when
    it finished (whatever the score), 2 for a wrong call, 130 when stopped."""
    import json
    if len(args.rulesets) != 1 or args.pattern or args.record or args.junit:
        print("railrules test: --mutate takes one ruleset (a name or a folder) and none of -k, "
              "--record, --junit", file=sys.stderr)
        return 2
    name = args.rulesets[0]
    if resolve_ruleset_path(name) is None and not (Path(name) / "ruleset.yaml").is_file():
        print(f"railrules test: no ruleset '{name}'", file=sys.stderr)
        return 2
    try:
        report = mutate(name, args.budget, args.seed, args.games, args.jobs,
                        progress=print_progress if sys.stderr.isatty() and not args.json else None)
    except RailrulesError as err:
        for d in err.diagnostics:
            print(f"{d.where}{d.severity} {d.code} {d.message}", file=sys.stderr)
        return 1
    print(json.dumps(report.to_json(), indent=2) if args.json else text_report(report))
    return 130 if report.partial else 0
