"""Null comparisons: how often `railrules compare` gives a false verdict when nothing changed.

    python -m railrules.tools.lab.nulls RULESET --procedure NAME [--comparisons 20] [--games 50]
        [--runs 20] [--block 25] [--max-games 100] [--players 3] [--jobs 1] [--json]

The null arm is the ruleset with one variant: the procedure ``NAME`` lists the options of its
first ``choose`` in reverse order, nothing else changed (:func:`reversed_options`). Random bots
choose uniformly among the legal actions, so under that variant they play another stream of
equally likely games, and every corrected verdict about it is a false one. The same seeds give the
same set-up and the same bot seeds in both arms, as in any comparison.

It plays ``--comparisons`` comparisons of ``--games`` paired games on disjoint seeds, counts
those with any corrected verdict under Holm and under Benjamini–Hochberg (the same games) with
Clopper–Pearson 95 % intervals, names the metrics that gave them, and prints the headline of the
first; then ``--runs`` runs of ``--until-verdict`` (blocks of ``--block`` up to ``--max-games``)
on fresh seeds, counting those that stopped with a verdict. Under the family-wise guarantee each
count should be about 1 in 20 or fewer. The CPU time of each part is reported (process time of
this process and its workers).
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from railrules.interpreter.paths import rulesets_dir

from railrules.tools.lab import compare, sequential, stats
from railrules.tools.lab.arms import Arms
from railrules.tools.lab.headline import headline

VARIANT = "reversed"


class NullError(ValueError):
    """A procedure that the null variant cannot be made of."""


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _ends_block(line: str, indent: int) -> bool:
    """Whether ``line`` closes a block whose lines are indented more than ``indent`` (blank lines
    and comments never do)."""
    return bool(line.strip()) and not line.lstrip().startswith("#") and _indent(line) <= indent


def reverse_choose(text: str, procedure: str) -> str:
    """The definition of ``procedure`` in the rules ``text``, alone, with the options of its first
    ``choose`` in reverse order (each option with its body and the comments right above it)."""
    lines = text.split("\n")
    head = re.compile(rf"procedure {re.escape(procedure)}\s*\(")
    start = next((i for i, line in enumerate(lines) if head.match(line)), None)
    if start is None:
        raise NullError(f"no 'procedure {procedure}(' at the start of a line")
    end = next((i for i in range(start + 1, len(lines)) if lines[i][:1] not in ("", " ")), len(lines))
    at = next((i for i in range(start, end) if lines[i].lstrip().startswith("choose ")), None)
    if at is None:
        raise NullError(f"procedure {procedure} has no choose")
    stop = next((i for i in range(at + 1, end) if _ends_block(lines[i], _indent(lines[at]))), end)
    inside = lines[at + 1:stop]
    level = min(_indent(x) for x in inside if x.strip() and not x.lstrip().startswith("#"))
    starts = []
    for i, line in enumerate(inside):
        if line.lstrip().startswith("option ") and _indent(line) == level:
            while i > 0 and inside[i - 1].lstrip().startswith("#") and _indent(inside[i - 1]) == level:
                i -= 1   # the comments right above an option go with it
            starts.append(i)
    if len(starts) < 2:
        raise NullError(f"the first choose of procedure {procedure} has fewer than two options")
    last = len(inside)
    while not inside[last - 1].strip():
        last -= 1
    options = [inside[a:b] for a, b in zip(starts, starts[1:] + [last])]
    out = lines[start:at + 1] + inside[:starts[0]] + [x for o in reversed(options) for x in o] \
        + inside[last:] + lines[stop:end]
    return "\n".join(out).rstrip() + "\n"


def reversed_options(ruleset: str, procedure: str, into: Path) -> str:
    """A copy of ``ruleset`` (a shipped name or a folder) in ``into`` with the variant
    ``reversed``: ``procedure`` with the options of its first choose in reverse order. Returns
    the copy's folder."""
    source = Path(ruleset) if Path(ruleset).is_dir() else rulesets_dir() / ruleset
    folder = into / f"{source.name}_null"
    shutil.copytree(source, folder)
    found = [f for f in sorted((folder / "rules").glob("*.rules"))
             if re.search(rf"^procedure {re.escape(procedure)}\s*\(", f.read_text(encoding="utf-8"), re.M)]
    if not found:
        raise NullError(f"no file of {folder / 'rules'} defines procedure {procedure}")
    (folder / "rules" / f"{VARIANT}.rules").write_text(reverse_choose(found[0].read_text(encoding="utf-8"), procedure),
                                                        encoding="utf-8")
    (folder / "variants").mkdir(exist_ok=True)
    (folder / "variants" / f"{VARIANT}.yaml").write_text(
        f'description: "{procedure} lists the options of its first choose in reverse order"\n'
        f"rules: [rules/{VARIANT}.rules]\n", encoding="utf-8")
    return str(folder)


def _cpu() -> float:
    """CPU seconds of this process and of its finished workers."""
    import resource
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _said(line: str) -> None:
    """A line of progress on stderr (what a long run has found so far)."""
    print(f"{line}; CPU {_cpu():.0f} s", file=sys.stderr, flush=True)


def _interval(k: int, n: int) -> list[float]:
    return [round(x, 3) for x in stats.clopper_pearson(k, n)]


def comparisons(arms: list, count: int, games: int, players: int, seed: int, jobs: int = 1) -> dict:
    """``count`` null comparisons of ``games`` paired random games each on disjoint seeds (from
    ``seed``): how many have any corrected verdict under Holm and under Benjamini–Hochberg (the
    same games), the metrics that had them, and the first comparison's headline."""
    out: dict = {"comparisons": count, "games": games, "first headline": None}
    hits: dict = {"holm": [], "fdr": []}
    metrics: dict = {"holm": Counter(), "fdr": Counter()}
    started = _cpu()
    for c in range(count):
        first = seed + c * games
        records, stopped = compare.play(arms, 0, games, players, "random", first, jobs)
        if stopped:
            raise KeyboardInterrupt
        for correction in hits:
            result = compare.summarize(arms, records, games, stopped, players, "random", first, correction)
            found = [name for name, row in result["metrics"].items() if name not in compare.BALANCES
                     and row[arms[1].label]["change"]["significant"]]
            hits[correction].append(bool(found))
            metrics[correction].update(found)
            if correction == "holm" and out["first headline"] is None:
                out["first headline"] = headline(result)
        _said(f"comparison {c + 1}/{count}: Holm {sum(hits['holm'])}, BH {sum(hits['fdr'])} with a verdict")
    for correction, name in (("holm", "Holm"), ("fdr", "BH")):
        k = sum(hits[correction])
        out[name] = {"with a verdict": k, "interval": _interval(k, count), "metrics": dict(metrics[correction])}
    out["cpu seconds"] = round(_cpu() - started, 1)
    return out


def until_verdict(arms: list, runs: int, block: int, most: int, players: int, seed: int, jobs: int = 1) -> dict:
    """``runs`` runs of ``--until-verdict`` on the null on disjoint seeds (from ``seed``): how many
    stopped with a verdict, and at how many games."""
    stops: list = []
    metrics: Counter = Counter()
    started = _cpu()
    for r in range(runs):
        result = sequential.run(arms, block, most, players, "random", seed + r * most, jobs)
        found = [name for name, row in result["metrics"].items() if name not in compare.BALANCES
                 and row[arms[1].label]["change"]["significant"]]
        if result["partial"]:
            raise KeyboardInterrupt
        if found:
            stops.append(result["compared"])
            metrics.update(found)
        _said(f"until-verdict run {r + 1}/{runs}: {result['compared']} games, {len(stops)} stopped with a verdict")
    return {"runs": runs, "block": block, "max games": most, "with a verdict": len(stops),
            "interval": _interval(len(stops), runs), "stopped at": stops, "metrics": dict(metrics),
            "cpu seconds": round(_cpu() - started, 1)}


def _measure(arms: list, args) -> dict:
    """The null comparisons and --until-verdict runs the arguments ask for."""
    out: dict = {"ruleset": arms[0].ruleset.name, "procedure": args.procedure, "players": args.players}
    if args.comparisons:
        out["fixed"] = comparisons(arms, args.comparisons, args.games, args.players, args.seed, args.jobs)
    if args.runs:
        out["until verdict"] = until_verdict(arms, args.runs, args.block, args.max_games, args.players,
                                             args.seed + args.comparisons * args.games, args.jobs)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m railrules.tools.lab.nulls",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("ruleset", help="a shipped ruleset's name or a ruleset folder")
    parser.add_argument("--procedure", required=True, help="the procedure whose first choose is reversed")
    parser.add_argument("--comparisons", type=int, default=20)
    parser.add_argument("--games", type=int, default=50, help="paired games per comparison")
    parser.add_argument("--runs", type=int, default=20, help="runs of --until-verdict (0: none)")
    parser.add_argument("--block", type=int, default=25, help="--until-verdict: games per block")
    parser.add_argument("--max-games", type=int, default=100, help="--until-verdict: the most games per arm")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1, help="the first seed; the parts use disjoint seeds")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            folder = reversed_options(args.ruleset, args.procedure, Path(tmp))
        except (NullError, OSError) as err:
            parser.exit(2, f"{parser.prog}: {err}\n")
        with Arms(folder, [VARIANT], []) as arms:
            try:
                out = _measure(arms, args)
            except KeyboardInterrupt:   # Ctrl-C or SIGTERM: the runner stopped the games
                print(f"{parser.prog}: stopped early; the lines above say what was found so far", file=sys.stderr)
                return 130
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"{out['ruleset']}, {args.players} players, random bots; null: {args.procedure} reversed")
    fixed = out.get("fixed", {})
    for name in ("Holm", "BH") if fixed else ():
        f = fixed[name]
        print(f"  {name}: {f['with a verdict']}/{fixed['comparisons']} comparisons of {fixed['games']} paired games "
              f"with a verdict [{f['interval'][0]:.3f}, {f['interval'][1]:.3f}]"
              + (f"; metrics: {f['metrics']}" if f["metrics"] else ""))
    if fixed:
        print(f"  CPU {fixed['cpu seconds']} s; the first comparison's headline:")
        print("\n".join("    " + line for line in fixed["first headline"]))
    if "until verdict" in out:
        u = out["until verdict"]
        print(f"  --until-verdict (blocks of {u['block']} up to {u['max games']}): {u['with a verdict']}/{u['runs']} "
              f"runs stopped with a verdict [{u['interval'][0]:.3f}, {u['interval'][1]:.3f}]"
              + (f" at {u['stopped at']} games; metrics: {u['metrics']}" if u["stopped at"] else "")
              + f"; CPU {u['cpu seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
