"""A load kept in the user cache (data/ruleset.py, ``_kept``) is the load itself: a warm load
writes no code and gives the same generated code, hash and play as a cold one; any file the load
read or looked for, edited, added or removed, or another interpreter, or a damaged or foreign
entry, makes it load afresh; and a cache switched off keeps nothing."""
from __future__ import annotations

import json
import linecache
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from railrules.interpreter import cache, check_ruleset, load_ruleset
from railrules.interpreter.compile import sources
from railrules.interpreter.compile.statements import Compiler
from railrules.interpreter.data import ruleset as ruleset_module

CORPUS = Path(__file__).parent / "lint_corpus" / "base"


@pytest.fixture
def compiles(monkeypatch) -> list:
    """The rulesets the code generator compiled (one item per compile)."""
    done: list = []
    compile_ = Compiler.compile

    def counted(self, *args):
        done.append(self)
        return compile_(self, *args)
    monkeypatch.setattr(Compiler, "compile", counted)
    return done


@pytest.fixture
def base(tmp_path) -> Path:
    folder = tmp_path / "base"
    shutil.copytree(CORPUS, folder)
    return folder


def played(rs, seed: int = 3) -> tuple:
    game, rng, actions = rs.new_game(rs.players_min, seed), random.Random(seed), []
    while not game.is_over and game.decisions < 150:
        action = rng.choice(game.legal_actions())
        game.apply(action)
        actions.append(action.to_json())
    return actions, json.dumps(game.state, sort_keys=True, default=str)


@pytest.mark.parametrize("game, variant", [("chicago_express", None), ("chicago_express", "sell_back"),
                                           ("stephensons_rocket", None)])
def test_a_warm_load_is_the_cold_load(folder, compiles, game, variant):
    cold = load_ruleset(game, variant)
    assert len(compiles) == 1 and len(list(folder.glob("ruleset-*"))) == 1
    code, play = sources.listing(cold.program.space), played(cold)
    linecache.clearcache()                  # the generated lines come back with the entry
    warm = load_ruleset(game, variant)
    assert len(compiles) == 1               # no code written
    assert warm is not cold and warm.program.space is not cold.program.space
    assert sources.listing(warm.program.space) == code
    assert (warm.hash, warm.fingerprints, warm.variant) == (cold.hash, cold.fingerprints, cold.variant)
    assert played(warm) == play
    assert sources.listing(warm.program.space) == sources.listing(cold.program.space)   # units written in play


def test_the_base_and_each_variant_are_kept_apart(folder, compiles):
    rulesets = [load_ruleset("chicago_express", v) for v in (None, "sell_back", None, "sell_back")]
    assert len(compiles) == 2 and len(list(folder.glob("ruleset-*"))) == 2
    assert [rs.variant for rs in rulesets] == [None, "sell_back", None, "sell_back"]
    assert rulesets[0].hash != rulesets[1].hash and rulesets[1].hash == rulesets[3].hash


@pytest.mark.parametrize("edited", ["ruleset.yaml", "components.yaml", "board.yaml", "rules/game.rules"])
def test_an_edited_file_is_loaded_again(folder, compiles, base, edited):
    load_ruleset(str(base))
    (base / edited).write_text((base / edited).read_text() + "\n# edited\n")
    load_ruleset(str(base))
    assert len(compiles) == 2
    load_ruleset(str(base))
    assert len(compiles) == 2


def test_an_edit_is_what_the_next_load_sees(folder, base):
    assert "probe" not in load_ruleset(str(base)).functions
    with (base / "rules" / "game.rules").open("a") as fh:
        fh.write("\ndef probe(x) = x + 1\n")
    assert "probe" in load_ruleset(str(base)).functions


def test_an_edited_library_file_is_loaded_again(folder, compiles, tmp_path, monkeypatch):
    shipped = tmp_path / "rulesets"
    shutil.copytree(CORPUS, shipped / "corpus")
    (shipped / "library").mkdir()
    (shipped / "library" / "extra.rules").write_text("def extra(x) = x\n")
    meta = shipped / "corpus" / "ruleset.yaml"
    meta.write_text(meta.read_text().replace("rules:\n", "rules:\n  - library/extra.rules\n"))
    monkeypatch.setattr(ruleset_module, "rulesets_dir", lambda: shipped)
    assert "extra" in load_ruleset("corpus").functions
    (shipped / "library" / "extra.rules").write_text("def extra(x) = x\n\ndef more(x) = x\n")
    assert "more" in load_ruleset("corpus").functions
    assert len(compiles) == 2


def test_a_variant_file_made_after_it_was_missing_is_checked(folder, base, tmp_path):
    variant = tmp_path / "mine.yaml"
    assert [d.code for d in check_ruleset(str(base), str(variant))[1]] == ["RR205"]
    variant.write_text("description: fewer rounds\nadd:\n  constants: {fewer: 2}\n", encoding="utf-8")
    ruleset, diags = check_ruleset(str(base), str(variant))
    assert ruleset is not None and ruleset.constants["fewer"] == 2 and "RR205" not in [d.code for d in diags]


def test_an_overlay_loads_again_when_its_base_or_a_file_it_looked_for_changes(folder, compiles, base, tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "ruleset.yaml").write_text("name: mine\nextends: ../base\n")
    (base / "variants").mkdir()
    (base / "variants" / "v.yaml").write_text('description: "the base\'s"\nadd:\n  constants: {whose: 1}\n')
    assert load_ruleset(str(mine), "v").constants["whose"] == 1
    assert load_ruleset(str(mine), "v").constants["whose"] == 1
    assert len(compiles) == 1
    (base / "components.yaml").write_text((base / "components.yaml").read_text() + "\n# edited\n")
    load_ruleset(str(mine), "v")
    assert len(compiles) == 2
    (mine / "variants").mkdir()              # the overlay's own variant of that name comes first
    (mine / "variants" / "v.yaml").write_text('description: "the overlay\'s"\nadd:\n  constants: {whose: 2}\n')
    assert load_ruleset(str(mine), "v").constants["whose"] == 2
    assert len(compiles) == 3


@pytest.mark.parametrize("junk", [b"", b"not an entry\n", None])
def test_a_damaged_or_foreign_entry_is_loaded_again(folder, compiles, base, tmp_path, junk):
    cold = load_ruleset(str(base))
    (entry,) = folder.glob("ruleset-*")
    if junk is None:   # another load's entry, well formed, under this one's name
        other = tmp_path / "other"
        shutil.copytree(CORPUS, other)
        load_ruleset(str(other))
        (foreign,) = set(folder.glob("ruleset-*")) - {entry}
        junk = foreign.read_bytes()
    entry.write_bytes(junk)
    again = load_ruleset(str(base))
    assert len(compiles) == 3 if junk.startswith(b"ruleset-") else len(compiles) == 2
    assert again.root == cold.root and again.hash == cold.hash
    load_ruleset(str(base))                  # written again, and read
    assert len(compiles) == (3 if junk.startswith(b"ruleset-") else 2)


def test_another_interpreter_does_not_read_the_entry(folder, compiles, base, monkeypatch):
    load_ruleset(str(base))
    monkeypatch.setattr(cache, "source_digest", lambda: "another interpreter")
    load_ruleset(str(base))
    assert len(compiles) == 2


def test_the_interpreters_source_names_the_entries():
    files = {str(p.relative_to(p.parents[1])) for p in cache.source_files() if p.suffix != ".json"}
    assert {"compile/units.py", "compile/statements.py", "compile/expressions.py", "compile/legal.py",
            "engine/machine.py", "dsl/rules.lark", "data/ruleset.py"} <= files
    assert any(p.suffix == ".json" for p in cache.source_files())   # the schemas


def test_the_interpreters_hash_is_kept_under_its_files_sizes_and_times(folder, tmp_path, monkeypatch):
    """The hash of the interpreter's source is worked out from the files' content once, then read
    from the cache while each file has the same size and time of change; an edited file is read
    and hashed again (and a cache switched off hashes every time)."""
    source = tmp_path / "source.py"
    source.write_text("x = 1\n")
    monkeypatch.setattr(cache, "source_files", lambda: [source])
    reads: list = []
    read_bytes = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: reads.append(self) or read_bytes(self))
    digest = cache.source_digest.__wrapped__
    first = digest()
    assert reads == [source] and digest() == first and reads == [source]   # (kept: not read again)
    source.write_text("x = 22\n")
    assert digest() != first and reads == [source, source]
    monkeypatch.setenv("RAILRULES_CACHE_DIR", "")
    assert digest() == digest() and len(reads) == 4


def test_nothing_is_kept_when_the_cache_is_off(monkeypatch, compiles, base):
    monkeypatch.setenv("RAILRULES_CACHE_DIR", "")
    first, second = load_ruleset(str(base)), load_ruleset(str(base))
    assert len(compiles) == 2 and first.hash == second.hash


def test_a_load_that_fails_is_not_kept(folder, base):
    (base / "rules" / "game.rules").write_text("def broken( = \n")
    with pytest.raises(Exception):
        load_ruleset(str(base))
    assert not list(folder.glob("ruleset-*"))


def test_the_working_folder_counts_only_where_it_shows(folder, compiles, base, tmp_path, monkeypatch):
    """Files inside the working folder are shown relative to it: a load from another folder
    shows them otherwise, and is a load of its own; a folder that shows them alike shares it."""
    def shown(rs) -> str:
        return next(iter(rs.names.functions.values())).pos.file
    monkeypatch.chdir(tmp_path)
    assert shown(load_ruleset(str(base))) == "base/rules/game.rules"
    for elsewhere in ("one", "two"):
        (tmp_path / elsewhere).mkdir()
        monkeypatch.chdir(tmp_path / elsewhere)
        assert shown(load_ruleset(str(base))) == str(base / "rules" / "game.rules")
    assert len(compiles) == 2
    monkeypatch.chdir(base.parent)
    assert shown(load_ruleset("base")) == "base/rules/game.rules"   # a path from here


def test_what_is_kept_is_the_same_whatever_was_played_before(folder, tmp_path):
    """A board is shared by the loads of one process, and keeps answers (frontiers, reaches)
    as games ask them: the entry leaves them out, so it holds what the files give."""
    fresh = load_ruleset("chicago_express")
    played(fresh, seed=5)
    (entry,) = folder.glob("ruleset-*")
    entry.unlink()
    again = load_ruleset("chicago_express")    # loaded afresh: the same board, its answers kept
    assert again.board is fresh.board and fresh.board.frontiers
    kept = load_ruleset("chicago_express")
    assert kept.board is not fresh.board
    assert not kept.board.frontiers and not kept.board.reaches and not kept.board.distances
    assert played(kept, seed=5) == played(again, seed=5)


def test_lints_check_of_a_ruleset_is_kept_with_its_warnings(folder, base, monkeypatch):
    from railrules.interpreter import checks
    from railrules.interpreter.data.ruleset import check_ruleset
    with (base / "rules" / "game.rules").open("a") as fh:
        fh.write("\ndef unused_one(x) = x + 1\n")     # a warning: nothing calls it
    ran: list = []
    run_checks = checks.run_checks
    monkeypatch.setattr(checks, "run_checks", lambda *a, **k: ran.append(1) or run_checks(*a, **k))
    cold_rs, cold = check_ruleset(str(base))
    warm_rs, warm = check_ruleset(str(base))
    assert ran == [1] and cold and warm == cold
    assert warm_rs is not None and warm_rs.hash == cold_rs.hash
    monkeypatch.setenv("RAILRULES_CACHE_DIR", "")
    assert check_ruleset(str(base))[1] == cold and ran == [1, 1]


@pytest.mark.parametrize("name", ["chicago_express", "baltimore_ohio"])
def test_a_ruleset_read_from_the_cache_plays_without_writing_code(folder, monkeypatch, name):
    """The entry keeps every code unit (a straight one's direct code too) and legal-actions
    lister written (Program.write_all): a process that reads it writes and compiles none of
    them (written on first use, they were about half of what its first games cost), nor any
    other code, and plays the games the fresh load plays."""
    from railrules.interpreter.compile import sources
    fresh = load_ruleset(name)    # made, and kept with its code written
    expected = [played(fresh, seed=seed) for seed in (1, 2)]
    kept = load_ruleset(name)

    def written(source, filename):   # (every function written is registered: sources.define)
        raise AssertionError(f"code written after a load from the cache: {filename}")
    monkeypatch.setattr(sources, "register", written)
    assert kept is not fresh and [played(kept, seed=seed) for seed in (1, 2)] == expected


def test_a_process_playing_from_the_cache_imports_no_stage_of_a_load(folder, tmp_path):
    """A ruleset read from the user cache needs neither the parser (nor Lark), the schema (nor
    PyYAML), the checks nor the overlays: a process that reads it and lists its first legal
    actions imports none of them (they are most of what a fresh process would import)."""
    code = ("import sys; from railrules.interpreter import load_ruleset; "
            "load_ruleset('chicago_express').new_game(3, 1).legal_actions(); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('lark', 'yaml', 'jsonschema') "
            "or m.startswith(('railrules.interpreter.dsl.parser', 'railrules.interpreter.data.schema', "
            "'railrules.interpreter.data.overlay', 'railrules.interpreter.data.snippets', "
            "'railrules.interpreter.checks'))))")
    first = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    assert "lark" in first.stdout and "yaml" in first.stdout   # (the load that made the entry)
    kept = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert kept.returncode == 0, kept.stderr
    assert kept.stdout.strip() == "[]"
