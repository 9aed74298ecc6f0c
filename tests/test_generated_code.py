"""Generated code a developer can read: `railrules code` prints it with the
rules as comments, and tracebacks show its lines (linecache)."""
from __future__ import annotations

import linecache
import re
import traceback

import pytest

from railrules.interpreter import load_ruleset
from railrules.interpreter.paths import rulesets_dir, shipped_rulesets
from railrules.tools.cli import main
from railrules.interpreter.compile.sources import listing
from railrules.tools.author.generated import generated


@pytest.mark.parametrize("name", shipped_rulesets())
def test_every_generated_function_is_listed_compiles_and_names_its_rule(name):
    found = generated(name)
    assert len(found) > 20
    for fn_name, source in found:
        code = compile(source, fn_name, "exec")   # the comments keep it valid Python
        assert code.co_consts
        assert re.fullmatch(r"# (unit \S+|\S+:\d+)", source.splitlines()[0]), source[:200]
        assert linecache.getlines(fn_name), fn_name


def test_a_name_selects_the_functions_written_for_it(capsys):
    assert main(["code", "chicago_express", "estimate"]) == 0
    out = capsys.readouterr().out
    assert "# estimate p = p.cash" in out and "def fast(run, L):" in out
    assert main(["code", "chicago_express", "no_such_rule_anywhere"]) == 1
    assert "no generated function" in capsys.readouterr().out


def test_the_checked_view_prints_the_checked_modes_code(capsys):
    assert main(["code", "chicago_express", "estimate", "--checked"]) == 0
    out = capsys.readouterr().out
    assert "# estimate p = p.cash" in out and "def checked(run, L):" in out
    assert "_get_attr(run, _local(L, 'p'), 'cash')" in out and "try:" not in out


def test_the_listing_names_rule_files_from_the_ruleset_not_the_install(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)   # (not the checkout: paths are not relative to it either)
    for flags in ([], ["--list"], ["--checked"]):
        assert main(["code", "chicago_express", *flags]) == 0
        out = capsys.readouterr().out
        assert str(rulesets_dir().resolve()) not in out and str(rulesets_dir()) not in out
        assert "library/auction.rules:" in out and "chicago_express/rules/" in out


def test_no_generated_line_is_too_long_to_read():
    """Code lines are broken inside their brackets (a comment carries a whole rule line)."""
    for _, source in generated("chicago_express"):
        code = [line for line in source.splitlines() if not line.lstrip().startswith("#")]
        assert max(map(len, code)) <= 200


def test_a_unit_says_which_rule_each_part_comes_from():
    [(_, source)] = [f for f in generated("chicago_express", "proc:share_auction")]
    assert source.startswith("# unit proc:share_auction\ndef unit(run, F):")
    assert "turn.rules:" in source and "call english_auction" in source


def test_a_traceback_through_generated_code_shows_the_generated_line():
    ruleset = load_ruleset("german_railways")   # (whose defs are not all written in place)
    defs = [v for k, v in ruleset.program.space.items() if k.startswith("_def")]
    assert defs

    class NoRun:   # a run without its fields: the def's first line fails
        pass
    with pytest.raises(AttributeError) as err:
        defs[0](NoRun(), *([None] * (defs[0].__code__.co_argcount - 1)))
    frame = traceback.extract_tb(err.value.__traceback__)[-1]
    assert frame.filename.startswith("<rules ") and frame.line == "run.steps = _s = run.steps + 1"


def test_linecache_keeps_a_bounded_number_of_generated_sources(monkeypatch):
    from railrules.interpreter.compile import sources
    monkeypatch.setattr(sources, "_KEPT", 5)
    names = [sources.register(f"x = {i}\n", "<rules bounded.rules:1>") for i in range(12)]
    assert len(set(names)) == 12
    assert [bool(linecache.getlines(n)) for n in names] == [False] * 7 + [True] * 5
    assert linecache.getline(names[-1], 1) == "x = 11\n"


_LOAD = re.compile(r"\s*(?:if '[^']+' in L:\s*)?(?:v_\w+|_turn\d+|_each\d+, _at\d+) = L\['[^']+'\]")
_STORE = re.compile(r"\s*L\['[^']+'\] = (?:v_\w+|_turn\d+|\[_each\d+, _at\d+\])|\s*L\.pop\('[^']+', None\)")


@pytest.mark.parametrize("name", shipped_rulesets())
def test_a_units_locals_are_python_locals_and_the_frame_is_read_only_where_it_is_entered_or_left(name):
    """A unit called directly takes its parameters as Python arguments and has
    no dict of locals; one that pauses reads the frame's dict only to load a local and writes it
    only to store one (where it is entered, where it leaves, where a local is written through)."""
    ruleset = load_ruleset(name)
    program = ruleset.program
    for key in program.codes:
        program.units[key]
        if key in program.straight:
            program.direct_units[key]
    sources = [source for _, source in listing(program.space) if source.startswith("# unit ")]
    direct = [s for s in sources if "def unit(run, F):" not in s]
    assert direct and len(direct) < len(sources)
    for source in sources:
        code = [line.split("  # ")[0] for line in source.splitlines()[2:]]
        if source in direct:
            assert not [line for line in code if "L[" in line or "L.pop" in line], source
        else:
            wrong = [line for line in code if ("L[" in line or "L.pop" in line)
                     and not (_LOAD.fullmatch(line) or _STORE.fullmatch(line))]
            assert not wrong, wrong
