"""`railrules test`: choosing scenarios (``-k``), reporting them (text, ``--json``,
``--junit``) and recording expectations (``--record``)."""
from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path
from xml.etree import ElementTree as ET

from railrules.interpreter.data.ruleset import resolve_ruleset_path, ruleset_around
from railrules.interpreter.paths import in_ruleset, shipped_rulesets

from railrules.tools.common import diagnostics, outputs
from railrules.tools.common.verbs import EXIT_FAIL, EXIT_OK, EXIT_USAGE
from railrules.tools.author.scenario_lint import display
from railrules.tools.author.scenarios import append_steps, recorded, run_scenario, scenario_files

_TOKEN = re.compile(r"\(|\)|[^\s()]+")


def matcher(pattern: str | None):
    """A test of a text against a pytest ``-k`` expression: words (substrings, any case)
    joined by ``and``, ``or``, ``not`` and brackets. Raises ValueError if it does not parse."""
    if not pattern:
        return lambda text: True
    tokens = _TOKEN.findall(pattern)
    pos = 0

    def peek():
        return tokens[pos] if pos < len(tokens) else None

    def take():
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def joined(word: str, part, combine):
        def parse():
            left = part()
            while peek() == word:
                take()
                right = part()
                left = (lambda a, b: lambda t: combine(a(t), b(t)))(left, right)
            return left
        return parse

    both = joined("and", lambda: negation(), lambda a, b: a and b)
    either = joined("or", both, lambda a, b: a or b)

    def negation():
        if peek() == "not":
            take()
            inner = negation()
            return lambda t: not inner(t)
        if peek() == "(":
            take()
            inner = either()
            if peek() != ")":
                raise ValueError(f"-k {pattern!r}: a bracket is not closed")
            take()
            return inner
        word = peek()
        if word is None or word in ("and", "or", ")"):
            raise ValueError(f"-k {pattern!r}: a word is missing")
        take()
        return lambda t: word.lower() in t.lower()

    test = either()
    if pos != len(tokens):
        raise ValueError(f"-k {pattern!r}: unexpected {tokens[pos]!r}")
    return test


def chosen(targets: list[str], pattern: str | None) -> list[tuple[str, Path]]:
    """(ruleset folder, scenario file) of every scenario named or under the rulesets named
    (default: every shipped one) that ``pattern`` matches. Raises ValueError for a name that
    is neither."""
    test = matcher(pattern)
    out = []
    for target in targets or shipped_rulesets():
        path = Path(target)
        if path.suffix in (".yaml", ".yml") and path.is_file() and path.name != "ruleset.yaml":
            root = ruleset_around(str(path.parent))  # a scenario runs on the ruleset above it
            if root is None:
                raise ValueError(f"no ruleset.yaml in the folders above the scenario '{target}': a scenario "
                                 "runs on the ruleset whose folder holds it (RULESET/scenarios/NAME.yaml)")
            files = [path]
        else:
            root = resolve_ruleset_path(target)
            files = scenario_files(root) if root is not None else []
        if root is None:
            raise ValueError(f"no ruleset or scenario file '{target}': name a shipped ruleset, a folder "
                             "holding a ruleset.yaml, or a scenario file in a ruleset's folder")
        for f in files:
            if test(f"{root.name} {f.stem} {_description(f)}"):
                out.append((str(root), f))
    return out


def _description(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("description:"):
            return line.split(":", 1)[1].strip().strip("\"'")
    return ""


# ------------------------------------------------------------------ the verb: railrules test
def add_arguments(parser) -> None:
    parser.description = "Run every scenarios/*.yaml of the given rulesets (default: all)."
    parser.add_argument("rulesets", nargs="*", help="ruleset names or folders, or scenario files")
    parser.add_argument("-k", dest="pattern", metavar="EXPRESSION",
                        help="run only the scenarios whose ruleset, file name or description match, as "
                        "pytest -k: words (substrings, any case) with and, or, not and brackets")
    parser.add_argument("--junit", metavar="FILE", help="also write the results as JUnit XML (for CI)")
    parser.add_argument("--force", action="store_true", help="replace an existing --junit file")
    parser.add_argument("--json", action="store_true", help="print the results as JSON instead of text")
    parser.add_argument("--record", action="store_true",
                        help="for each scenario chosen: play its do/set steps and add at its end the "
                        "expect, turn and over steps that state the position reached, for you to review")
    parser.add_argument("--mutate", action="store_true",
                        help="plant small wrong edits in the ruleset's rules and numbers, one at a time, "
                        "and report those no scenario (nor --games) notices, with a mutation score")
    parser.add_argument("--budget", type=parser.count(1), default=100, metavar="N",
                        help="with --mutate: how many mutants to judge, drawn with --seed (default 100)")
    parser.add_argument("--all", dest="budget", action="store_const", const=None,
                        help="with --mutate: judge every mutant")
    parser.add_argument("--seed", type=int, default=1, help="with --mutate: the seed of the draw (default 1)")
    parser.add_argument("--games", type=parser.count(0), default=0, metavar="K",
                        help="with --mutate: also play K seeded random games on each mutant and compare "
                        "them, decision by decision, with the ruleset's own (default 0)")
    parser.add_argument("--jobs", type=parser.count(1), default=1,
                        help="with --mutate: worker processes (default 1)")


def run(args) -> int:
    if args.mutate:
        from railrules.tools.author.mutate import run_mutate
        return run_mutate(args)
    try:
        picked = chosen(args.rulesets, args.pattern)
    except ValueError as err:
        print(f"railrules test: {err}", file=sys.stderr)
        return EXIT_USAGE
    if args.record:
        return _record(picked)
    if args.junit:   # before any scenario runs: a missing folder, a link, a file not to replace
        try:
            outputs.check({"--junit": args.junit}, args.force)
        except outputs.OutputError as err:
            print(f"railrules test: {err}", file=sys.stderr)
            return EXIT_USAGE
    cache: dict = {}
    results = []
    for root, path in picked:
        start = time.perf_counter()
        results.append((run_scenario(root, path, cache), time.perf_counter() - start))
    failed = sum(not r.passed for r, _ in results)
    if args.json:
        print(json.dumps([{"file": in_ruleset(r.file), "description": r.description, "passed": r.passed,
                           "steps": r.steps, "seconds": round(t, 4),
                           "failures": [d.to_dict() for d in r.failures]} for r, t in results], indent=2))
    else:
        for r, _ in results:
            print(f"{'ok  ' if r.passed else 'FAIL'}  {in_ruleset(r.file)}  {r.description}")
            for d in r.failures:
                print("      " + diagnostics.long(d).replace("\n", "\n      "))
        print(f"{len(results) - failed} passed, {failed} failed"
              + (f", {_total(args) - len(results)} deselected" if args.pattern else ""))
    if args.junit:
        try:
            tree = junit(results).getroot()
            assert tree is not None   # junit() makes a tree with its root
            outputs.write(Path(args.junit), ET.tostring(tree, encoding="utf-8", xml_declaration=True))
        except outputs.OutputError as err:
            print(f"railrules test: {err}", file=sys.stderr)
            return EXIT_FAIL
    return EXIT_FAIL if failed or not results else EXIT_OK


def _total(args) -> int:
    return len(chosen(args.rulesets, None))


def junit(results: list) -> ET.ElementTree:
    """JUnit XML, as CI services read it: one testcase per scenario, a failure per failing one."""
    failed = sum(not r.passed for r, _ in results)
    suite = ET.Element("testsuite", name="railrules scenarios", tests=str(len(results)),
                       failures=str(failed), errors="0", time=f"{sum(t for _, t in results):.3f}")
    for r, t in results:
        case = ET.SubElement(suite, "testcase", classname=Path(r.file).parent.parent.name,
                             name=Path(r.file).stem, file=r.file, time=f"{t:.3f}")
        if not r.passed:
            failure = ET.SubElement(case, "failure", message=r.failures[0].message)
            failure.text = "\n".join(diagnostics.short(d) for d in r.failures)
    root = ET.Element("testsuites")
    root.append(suite)
    return ET.ElementTree(root)


def _record(picked: list) -> int:
    cache: dict = {}
    status = EXIT_OK
    for root, path in picked:
        result, steps = recorded(root, path, cache)
        shown = display(path)
        if not steps:
            print(f"railrules test --record: {shown}: its do/set steps do not play through:", file=sys.stderr)
            for d in result.failures:
                print("      " + diagnostics.long(d).replace("\n", "\n      "), file=sys.stderr)
            status = EXIT_FAIL
            continue
        try:
            append_steps(path, steps)
        except ValueError as err:
            print(f"railrules test --record: {err}", file=sys.stderr)
            status = EXIT_FAIL
            continue
        print(f"{shown}: recorded {len(steps)} step(s) at its end; review them:")
        for step in steps:
            print(f"  {json.dumps(step)}")
    return status
