"""The linter's corpus: every file under tests/lint_corpus/ is one broken input and the
diagnostics it must produce, written as comments on the offending lines (mypy style).

How a case is applied, how expectations are written and which diagnostics count are
described in tests/lint_corpus/README.md; in short: copy ``base/`` to a fresh folder, put
the case file where its name says, lint, and compare the (file, code, line, column,
severity) of the diagnostics with the expected ones -- exactly, as a multiset.
"""
from __future__ import annotations

import re
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from railrules.interpreter import check_ruleset
from railrules.interpreter.errors import CODES
from railrules.tools.author.lint import lint_paths

CORPUS = Path(__file__).resolve().parent / "lint_corpus"
BASE = CORPUS / "base"

# `# E: RR102 @9` (an error at column 9 of this line) or `# W: RR108 @1` (a warning).
MARKER = re.compile(rb"#\s*([EW]):\s*(RR\d{3})\s*@(\d+)")
# `# xfail: BUG: ...` in a case (or `xfail: BUG: ...` in its .expect): lint is known wrong here.
XFAIL = re.compile(rb"^\s*#?\s*xfail:\s*(BUG:.*?)\s*$", re.MULTILINE)

# what a `secret_` case's ruleset.yaml declares secret (added at its end: no line moves)
SECRET = "secret: {players: [cash], banks: [cash]}\n"

# case-name prefix -> where the case goes in the copied ruleset ("{name}" is the case's name)
PLACES = {
    "ruleset_": "ruleset.yaml",
    "components_": "components.yaml",
    "board_": "board.yaml",
    "game_": "rules/game.rules",
    "rules_": "rules/{name}",
    "secret_": "rules/{name}",
    "variant_": "variants/{name}",
    "select_": ".",
    "loose_": "{name}",
    "scenario_": "scenarios/{name}",
    "unlisted_": "rules/{name}",
    "bots_": "ruleset.yaml",
}


@dataclass(frozen=True)
class Expected:
    file: str        # relative to the ruleset folder (or to the loose folder)
    code: str
    line: int
    column: int
    severity: str    # "error" or "warning"

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.severity} {self.code}"


def _cases() -> list[Path]:
    return sorted(p for p in CORPUS.iterdir()
                  if p.is_file() and p.suffix not in (".expect", ".md")
                  and any(p.name.startswith(k) for k in PLACES))


def _place(case: Path) -> str:
    prefix = next(k for k in PLACES if case.name.startswith(k))
    return PLACES[prefix].format(name=case.name)


def expectations(case: Path) -> list[Expected]:
    """The diagnostics a case must produce: its end-of-line markers, then its .expect file."""
    where = _place(case)
    out = []
    for number, line in enumerate(case.read_bytes().split(b"\n"), 1):
        for sev, code, col in MARKER.findall(line):
            out.append(Expected(where, code.decode(), number, int(col),
                                "error" if sev == b"E" else "warning"))
    sidecar = case.with_name(case.name + ".expect")
    if sidecar.is_file():
        for raw in sidecar.read_text(encoding="utf-8").splitlines():
            words = raw.split("#", 1)[0].split()
            if not words or raw.lstrip().startswith("xfail:"):
                continue
            severity = "error"
            if words[0] == "W":
                severity, words = "warning", words[1:]
            code, line, col, *rest = words
            out.append(Expected(rest[0] if rest else where, code, int(line), int(col), severity))
    return out


def _xfail_reason(case: Path) -> str | None:
    for f in (case, case.with_name(case.name + ".expect")):
        if f.is_file():
            m = XFAIL.search(f.read_bytes())
            if m:
                return m.group(1).decode("utf-8", "replace")
    return None


def _params():
    for case in _cases():
        reason = _xfail_reason(case)
        marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
        yield pytest.param(case, id=case.name, marks=marks)


def _relative(file: str, root: Path) -> str:
    path = Path(file)
    try:
        return path.resolve().relative_to(root.resolve()).as_posix() or "."
    except ValueError:
        return file


def run_case(case: Path, tmp_path: Path) -> tuple[Path, list]:
    """Apply ``case`` to a fresh copy of the base; return (root, diagnostics)."""
    root = tmp_path / "corpus"
    shutil.copytree(BASE, root)
    where = _place(case)
    if case.name.startswith("loose_"):
        loose = tmp_path / "loose"
        loose.mkdir()
        shutil.copyfile(case, loose / case.name)
        return loose, lint_paths([str(loose / case.name)])
    if case.name.startswith("select_"):
        wanted = case.read_text(encoding="utf-8").split("#", 1)[0].strip()
        return root, check_ruleset(str(root), wanted)[1]
    (root / where).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(case, root / where)
    if case.name.startswith(("rules_", "secret_")):
        meta = root / "ruleset.yaml"
        text = meta.read_text(encoding="utf-8")
        # the same number of lines, so that positions in ruleset.yaml do not move
        text = text.replace("  - rules/game.rules\n", f"  [rules/game.rules, {where}]\n")
        if case.name.startswith("secret_"):
            text += SECRET
        meta.write_text(text, encoding="utf-8")
    if case.name.startswith(("scenario_", "unlisted_", "bots_")):
        return root, lint_paths([str(root)])
    if case.name.startswith("variant_"):
        return root, check_ruleset(str(root), Path(where).stem)[1]
    return root, check_ruleset(str(root))[1]


def reported(diags, root: Path, warnings: bool) -> list[Expected]:
    return [Expected(_relative(d.pos.file, root), d.code, d.pos.line, d.pos.column, d.severity)
            for d in diags if d.severity == "error" or warnings]


# ---------------------------------------------------------------- the corpus
def test_the_base_lints_clean():
    ruleset, diags = check_ruleset(str(BASE))
    assert ruleset is not None
    assert [str(d) for d in diags] == []


def test_the_base_lints_clean_through_the_cli():
    assert [str(d) for d in lint_paths([str(BASE)])] == []


def test_the_corpus_is_large_and_covers_every_static_code_twice():
    """Every code lint can report without playing (RR0xx, RR1xx, RR2xx) is expected by at
    least two cases that are not marked as known bugs."""
    cases = _cases()
    assert len(cases) >= 60
    working = [case for case in cases if _xfail_reason(case) is None]
    covered = Counter(code for case in working for code in {e.code for e in expectations(case)})
    static = [c for c in CODES if c < "RR300"]
    thin = {c: covered[c] for c in static if covered[c] < 2}
    assert thin == {}, f"codes with fewer than two working corpus cases: {thin}"


@pytest.mark.parametrize("case", _cases(), ids=lambda p: p.name)
def test_every_case_states_its_expectations(case):
    """A case without a marker or an .expect file would pass vacuously."""
    assert expectations(case), f"{case.name} has no '# E: RRnnn @col' marker and no .expect file"
    assert all(e.code in CODES for e in expectations(case))


@pytest.mark.parametrize("case", list(_params()))
def test_lint_corpus_case(case, tmp_path):
    expected = expectations(case)
    warnings = any(e.severity == "warning" for e in expected)
    root, diags = run_case(case, tmp_path)
    got = reported(diags, root, warnings)
    missing = sorted(map(str, (Counter(expected) - Counter(got)).elements()))
    extra = sorted(map(str, (Counter(got) - Counter(expected)).elements()))
    messages = "\n".join(str(d) for d in diags)
    assert (missing, extra) == ([], []), f"diagnostics reported:\n{messages}"
