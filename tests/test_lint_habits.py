"""ruff's habits in `railrules lint`: --select/--ignore by code or prefix, the ruleset.yaml
lint: section, the inline `# lint: ignore[CODE]` comment, --fix and --diff, --watch."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from railrules.tools.author import fixes, lint
from railrules.tools.cli import main

BASE = Path(__file__).resolve().parent / "lint_corpus" / "base"


@pytest.fixture
def base(tmp_path) -> Path:
    root = tmp_path / "corpus"
    shutil.copytree(BASE, root)
    return root


def _misspell(root: Path) -> None:
    """Three problems: a misspelt name (RR102) and a misspelt reference in the YAML (RR201),
    both with a did-you-mean; an unused def (RR108, a warning) with none."""
    game = root / "rules" / "game.rules"
    game.write_text(game.read_text().replace("pay share_price from p to c", "pay share_prise from p to c")
                    + "\ndef unused(x) = x\n")
    comps = root / "components.yaml"
    comps.write_text(comps.read_text().replace("home: Beta", "home: Betta"))
    board = root / "board.yaml"
    assert "Beta" in board.read_text()


def _codes(capsys, *argv) -> tuple[int, list]:
    code = main(["lint", "--format", "json", *argv])
    return code, sorted(d["code"] for d in json.loads(capsys.readouterr().out))


def test_select_and_ignore_take_codes_and_prefixes(capsys, base):
    _misspell(base)
    assert _codes(capsys, str(base)) == (1, ["RR102", "RR108", "RR201"])
    assert _codes(capsys, str(base), "--select", "RR1") == (1, ["RR102", "RR108"])
    # RR102 is an error with which the ruleset does not load: no selection leaves it out
    assert _codes(capsys, str(base), "--select", "RR108,RR201") == (1, ["RR102", "RR108", "RR201"])
    assert _codes(capsys, str(base), "--ignore", "RR1", "--ignore", "RR201") == (1, ["RR102"])
    # the longer prefix wins, as in ruff
    assert _codes(capsys, str(base), "--ignore", "RR1", "--select", "RR102") == (1, ["RR102"])


def test_the_lint_section_of_ruleset_yaml_and_the_command_line_replacing_it(capsys, base):
    _misspell(base)
    meta = base / "ruleset.yaml"
    meta.write_text(meta.read_text() + "lint: {ignore: [RR108, RR2]}\n")
    assert _codes(capsys, str(base)) == (1, ["RR102"])
    assert _codes(capsys, str(base), "--ignore", "RR108") == (1, ["RR102", "RR201"])
    meta.write_text(meta.read_text().replace("lint: {ignore: [RR108, RR2]}", "lint: {ignore: [108]}"))
    code, found = _codes(capsys, str(base))   # the schema checks the section
    assert code == 1 and "RR004" in found


def test_an_inline_comment_suppresses_its_codes_on_its_line_only(capsys, base):
    _misspell(base)
    game = base / "rules" / "game.rules"
    game.write_text(game.read_text().replace("def unused(x) = x", "def unused(x) = x  # lint: ignore[RR109, RR108]"))
    comps = base / "components.yaml"
    comps.write_text(comps.read_text().replace("home: Betta, income: 3}", "home: Betta, income: 3}  # lint: ignore[RR102]"))
    # RR108 is silenced; the YAML line names another code: RR201 stays
    assert _codes(capsys, str(base)) == (1, ["RR102", "RR201"])
    comps.write_text(comps.read_text().replace("# lint: ignore[RR102]", "# lint: ignore"))
    assert _codes(capsys, str(base)) == (1, ["RR102"])


def test_diff_shows_the_fixes_and_fix_makes_them(capsys, base):
    _misspell(base)
    before = {p: p.read_text() for p in base.rglob("*") if p.is_file()}
    assert main(["lint", "--diff", str(base)]) == 1
    patch = capsys.readouterr().out
    assert "-    pay share_prise from p to c\n+    pay share_price from p to c\n" in patch
    assert "Betta" in patch and "+      Blue: {name: Blue Line, home: Beta, income: 3}" in patch
    assert {p: p.read_text() for p in before} == before          # --diff writes nothing
    assert main(["lint", str(base), "--fix"]) == 0                 # fixed, linted again: a warning left
    out, err = capsys.readouterr()
    assert "fixed 2 problem(s)" in err and "RR108" in out and "0 error(s), 1 warning(s)" in err
    assert "share_price from p to c" in (base / "rules" / "game.rules").read_text()
    assert main(["lint", "--diff", str(base)]) == 0 and capsys.readouterr().out == ""


def test_fix_of_a_file_that_cannot_be_written_names_it(capsys, base, monkeypatch):
    """A read-only file was an internal OSError (exit 3). (As root a mode bit refuses nothing:
    the refusal is the file system's, made here.)"""
    _misspell(base)
    real = Path.write_text

    def read_only(path, *args, **kwargs):
        if path.name == "game.rules":
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, *args, **kwargs)
    monkeypatch.setattr(Path, "write_text", read_only)
    assert main(["lint", str(base), "--fix"]) == 1
    err = capsys.readouterr().err
    assert "game.rules: Permission denied" in err and "internal error" not in err


def test_a_fix_replaces_only_the_misspelt_word_where_the_diagnostic_points():
    from railrules.interpreter.errors import Diagnostic, Pos
    text = "x = cash + cashh * cashh\n"
    d = Diagnostic("RR102", "undefined name 'cashh'", Pos("f.rules", 1, 19), hint="did you mean 'cash'?")
    fix = fixes.fix_of(d, text)
    assert (fix.start, fix.end, fix.old, fix.new) == (20, 25, "cashh", "cash")
    assert fixes.apply(text, [fix]) == "x = cash + cashh * cash\n"
    assert fixes.fix_of(Diagnostic("RR102", "undefined name 'zzz'", Pos("f.rules", 1, 1),
                                   hint="did you mean 'cash'?"), text) is None   # not on the line
    assert fixes.fix_of(Diagnostic("RR108", "never reached", Pos("f.rules", 1, 1)), text) is None


def test_watch_lints_again_after_a_change(base):
    runs = []
    game = base / "rules" / "game.rules"

    def sleep(_):   # the editor saves a change between two polls
        if len(runs) == 1:
            game.write_text(game.read_text() + "\n# a comment\n")

    lint.watch([str(base)], lambda: runs.append(1), interval=0, rounds=3, sleep=sleep)
    assert len(runs) == 2   # once at the start, once after the change; not after quiet polls
