"""`railrules coverage`: which rules fired in many bot games, and how often.

Every procedure, trigger (``on EVENT``, counted when its ``when`` held), action, option of a
``choose`` and end condition of the ruleset is listed with how often it fired and in how many
games; the ones that never fired are listed apart, each with the reason the ruleset gives for it
(``coverage: {unfired: {NAME: why}}`` in ruleset.yaml) or marked unexplained, so that a rule the
bots never reach is seen and either explained or fixed. The games are those of
:mod:`tools.lab.compare` with one arm, so they are seeded, seated and parallel the same way.
"""
from __future__ import annotations

from collections import Counter

from railrules.interpreter.checks.lint_coverage import rules_of
from railrules.interpreter.paths import place_in_ruleset

from railrules.tools.common import verbs
from railrules.tools.common.tables import Table


def _fired(record: dict) -> dict:
    """(kind, name) -> times fired in one game record of :func:`tools.lab.compare.play_game`."""
    out = {}
    for name, v in record["rules"].items():
        out[("trigger" if name.startswith("on ") else "procedure", name)] = v
    for name, v in record["actions"].items():
        out[("action", name)] = out[("option", name)] = v
    for name in record["reasons"]:
        out[("end", name)] = 1
    return out


def coverage(result: dict, ruleset) -> dict:
    """The coverage table of a one-arm :func:`tools.lab.compare.run_arms` result."""
    records = [r for rs in result["records"].values() for r in rs if r["error"] is None]
    fired: Counter = Counter()
    games: Counter = Counter()
    for r in records:
        seen = _fired(r)
        fired.update(seen)
        games.update(seen.keys())
    reasons = ((ruleset.meta.get("coverage") or {}).get("unfired") or {})
    rows = []
    for rule in rules_of(ruleset):
        key = (rule["kind"], rule["name"])
        row = dict(rule, where=place_in_ruleset(rule["where"]), fired=fired[key], games=games[key])
        if not row["fired"]:
            row["why"] = reasons.get(rule["name"])
        rows.append(row)
    never = [r for r in rows if not r["fired"]]
    return {"ruleset": result["ruleset"], "players": result["players"], "bots": result["bots"],
            "seed": result["seed"], "games": result["games"], "finished": len(records),
            "partial": result["partial"], "rules": rows,
            "never": [{"name": r["name"], "kind": r["kind"], "why": r["why"]} for r in never],
            "unexplained": sum(r["why"] is None for r in never),
            "errors": [r["error"] for rs in result["records"].values() for r in rs if r["error"]]}


def table(cov: dict) -> Table:
    title = (f"{cov['ruleset']}: rule coverage over {cov['finished']} games of {cov['games']}"
             f"{' (PARTIAL: stopped early)' if cov['partial'] else ''}, {cov['players']} players, "
             f"bots {cov['bots']}, seeds {cov['seed']}..{cov['seed'] + cov['games'] - 1}")
    t = Table(title, ["kind", "rule", "fired", "games", "where"], right=(2, 3))
    for k, r in enumerate(cov["rules"]):
        t.rows.append([r["kind"], r["name"], str(r["fired"]), str(r["games"]), r["where"]])
        if not r["fired"]:
            t.marked.add(k)
    t.notes += [f"never fired: {len(cov['never'])} of {len(cov['rules'])} rules"
                f" ({cov['unexplained']} without a reason in ruleset.yaml's coverage: unfired)"]
    t.notes += [f"  {r['kind']} {r['name']}: {r['why'] or 'NOT EXPLAINED'}" for r in cov["never"]]
    t.notes += [f"error: {e}" for e in cov["errors"][:5]]
    return t


# ------------------------------------------------------------------ the verb: railrules coverage
def add_arguments(parser) -> None:
    parser.description = (
        "Play N seeded bot games and list every rule of the ruleset with how often it fired and in "
        "how many games; the rules that never fired are listed apart with the reason ruleset.yaml "
        "gives (coverage: {unfired: {NAME: why}}) or NOT EXPLAINED. Ctrl-C or --time-limit stops "
        "early and reports the games finished (exit 130).")
    parser.add_ruleset()
    parser.add_games(200, forced=False)
    parser.add_parallel()


def run(args) -> int:
    import sys

    from railrules.tools.lab.arms import ArmError, Arms
    from railrules.tools.lab.compare import run_arms
    try:
        with Arms(args.ruleset, [args.variant] if args.variant else [], []) as arms:
            ruleset = arms[-1].ruleset
            result = run_arms(arms[-1:], args.games, verbs.players(ruleset, args.players), args.bot,
                              args.seed, args.jobs, args.time_limit,
                              progress=sys.stderr.isatty() and not args.json, cluster=args.cluster)
    except ArmError as err:
        raise verbs.Usage(str(err)) from None
    cov = coverage(result, ruleset)
    code = verbs.figures(cov, args.json, table)
    return code if code != verbs.EXIT_OK or not cov["errors"] else verbs.EXIT_FAIL
