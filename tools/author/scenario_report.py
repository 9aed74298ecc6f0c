"""`railrules test`: choosing scenarios (``-k``), reporting them (text, ``--json``,
``--junit``) and recording expectations (``--record``)."""
from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path
from xml.etree import ElementTree as ET

from railrules.interpreter.data.ruleset import resolve_ruleset_path
from railrules.interpreter.paths import in_ruleset, shipped_rulesets

from railrules.tools.common import diagnostics, outputs
from railrules.tools.author.scenario_lint import display
from railrules.tools.author.scenarios import append_steps, recorded, run_scenario, scenario_files

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
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
        if path.suffix in (".yaml", ".yml") and path.is_file() and path.parent.name == "scenarios":
            root = resolve_ruleset_path(str(path.parent.parent))
            files = [path] if root is not None else []
        else:
            root = resolve_ruleset_path(target)
            files = scenario_files(root) if root is not None else []
        if root is None:
            raise ValueError(f"no ruleset or scenario file '{target}'")
        for f in files:
            if test(f"{root.name} {f.stem} {_description(f)}"):
                out.append((str(root), f))
    return out


def _description(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("description:"):
            return line.split(":", 1)[1].strip().strip("\"'")
    return ""


def run_selected(args) -> int:
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
            outputs.write(Path(args.junit), ET.tostring(junit(results).getroot(), encoding="utf-8",
                                                       xml_declaration=True))
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
