"""A lint kept in the user cache (tools/author/lint.py, ``lint_paths``) is the lint itself: a
warm lint checks nothing and says what an uncached one says; a rules, YAML, scenario or library
file edited, a scenario, variant or rules file added, or a damaged entry, makes it lint afresh;
and a cache switched off keeps nothing."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from railrules.interpreter.data import ruleset as ruleset_module
from railrules.tools.author import lint

CORPUS = Path(__file__).parent / "lint_corpus" / "base"

SCENARIO = """\
description: a scenario lint finds fault with
players: 3
steps:
  - do: "buy Red; by Red"
  - do: "extend Rde A1"
  - expect: "round == rounds and nothing == 1"
"""


@pytest.fixture
def base(tmp_path) -> Path:
    """The lint corpus' base ruleset with a scenario that lint finds fault with."""
    root = tmp_path / "base"
    shutil.copytree(CORPUS, root)
    (root / "scenarios").mkdir()
    (root / "scenarios" / "faults.yaml").write_text(SCENARIO, encoding="utf-8")
    return root


@pytest.fixture
def linted(monkeypatch) -> list:
    """The lints run afresh (one item per run)."""
    runs: list = []
    fresh = lint._lint_paths

    def counted(*args):
        runs.append(args)
        return fresh(*args)
    monkeypatch.setattr(lint, "_lint_paths", counted)
    return runs


SHORT_SCENARIO = SCENARIO.replace("steps:", "variant: short\nsteps:")   # a scenario of the variant below


def _add_short_variant(root: Path) -> None:
    (root / "variants").mkdir()
    (root / "variants" / "short.yaml").write_text("description: fewer rounds\nset:\n  constants: {max_rounds: 2}\n",
                                                  encoding="utf-8")


def said(*paths: str, **options) -> list[str]:
    return [f"{d} [{d.hint}]" for d in lint.lint_paths(list(paths), **options)]


def test_a_warm_lint_checks_nothing_and_says_what_an_uncached_one_says(folder, base, linted, monkeypatch):
    cold = said(str(base))
    assert any("RR208" in d for d in cold) and any("RR201" in d for d in cold) and any("RR102" in d for d in cold)
    assert len(linted) == 1
    assert sorted(e.name.rsplit("-", 1)[0] for e in folder.glob("lint-*")) == ["lint", "lint-ruleset"]
    assert said(str(base)) == cold and len(linted) == 1
    monkeypatch.setenv("RAILRULES_CACHE_DIR", "")
    assert said(str(base)) == cold and len(linted) == 2


def test_each_question_is_kept_apart(folder, base, linted):
    assert said(str(base), ignore=["RR201"]) != said(str(base)) and len(linted) == 2
    assert said(str(base / "scenarios" / "faults.yaml")) == said(str(base)) and len(linted) == 3
    assert said(str(base), ignore=["RR201"]) != said(str(base)) and len(linted) == 3


def test_the_shipped_rulesets_warm_are_the_shipped_rulesets_uncached(folder, linted, monkeypatch):
    warm = [said(), said()]
    assert warm[0] == warm[1] and len(linted) == 1
    monkeypatch.setenv("RAILRULES_CACHE_DIR", "")
    assert said() == warm[0] and len(linted) == 2


def _edited(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


@pytest.mark.parametrize("edit, seen", [
    pytest.param(lambda root: _edited(root / "rules" / "game.rules", "const rounds = max_rounds",
                                      "const rounds = max_rounds\nconst nothing = 1"),
                 lambda d: "name 'nothing'" not in d, id="rules"),
    pytest.param(lambda root: _edited(root / "ruleset.yaml", "max: 3", "max: 2"),
                 lambda d: "for 2 to 2 players" in d, id="ruleset.yaml"),
    pytest.param(lambda root: _edited(root / "components.yaml", "max_rounds: 3", "max_rounds: 3\n  nothing: 1"),
                 lambda d: "name 'nothing'" not in d, id="components"),
    pytest.param(lambda root: _edited(root / "scenarios" / "faults.yaml", "Rde", "Red"),
                 lambda d: "Rde" not in d, id="scenario"),
])
def test_an_edited_file_is_linted_afresh(folder, base, linted, edit, seen):
    cold = said(str(base))
    assert not all(seen(d) for d in cold)
    edit(base)
    warm = said(str(base))
    assert len(linted) == 2 and all(seen(d) for d in warm)


def test_of_several_rulesets_only_the_one_edited_is_linted_afresh(folder, base, tmp_path, monkeypatch):
    other = tmp_path / "other"
    shutil.copytree(base, other)
    roots: list = []
    fresh = lint._lint_root
    monkeypatch.setattr(lint, "_lint_root", lambda root, *args: roots.append(root) or fresh(root, *args))
    cold = said(str(base), str(other))
    assert sorted(roots) == sorted([base.resolve(), other.resolve()])
    _edited(other / "scenarios" / "faults.yaml", "Rde", "Red")
    warm = said(str(base), str(other))
    assert roots[2:] == [other.resolve()] and warm != cold
    monkeypatch.setenv("RAILRULES_CACHE_DIR", "")
    assert said(str(base), str(other)) == warm


def test_an_added_file_is_linted_afresh(folder, base, linted):
    said(str(base))
    (base / "scenarios" / "more.yaml").write_text(SCENARIO.replace("Rde", "Ble"), encoding="utf-8")
    assert any("more.yaml" in d and "Ble" in d for d in said(str(base)))
    (base / "rules" / "stray.rules").write_text("const stray = 1\n", encoding="utf-8")
    assert any("RR207" in d and "stray.rules" in d for d in said(str(base)))
    (base / "scenarios" / "variant.yaml").write_text(SHORT_SCENARIO, encoding="utf-8")
    assert any("no variant 'short'" in d for d in said(str(base)))
    _add_short_variant(base)
    assert not any("no variant 'short'" in d for d in said(str(base)))
    assert len(linted) == 5


def test_a_variant_added_to_the_ruleset_extended_is_linted_afresh(folder, base, tmp_path, linted):
    mine = tmp_path / "mine"
    (mine / "scenarios").mkdir(parents=True)
    (mine / "ruleset.yaml").write_text("name: mine\nextends: ../base\n", encoding="utf-8")
    (mine / "scenarios" / "short.yaml").write_text(SHORT_SCENARIO, encoding="utf-8")
    assert any("no variant 'short'" in d for d in said(str(mine)))
    _add_short_variant(base)
    assert not any("no variant 'short'" in d for d in said(str(mine)))
    assert len(linted) == 2


def test_a_loose_file_created_or_given_a_ruleset_is_linted_afresh(folder, tmp_path, linted):
    loose = tmp_path / "game" / "rules" / "loose.rules"
    loose.parent.mkdir(parents=True)
    assert any("RR206" in d for d in said(str(loose)))
    loose.write_text("const x = \n", encoding="utf-8")
    alone = said(str(loose))
    assert alone and not any("RR206" in d for d in alone)
    (tmp_path / "game" / "ruleset.yaml").write_text("name: game\n", encoding="utf-8")
    assert said(str(loose)) != alone and len(linted) == 3


def test_a_variant_file_given_is_linted_afresh_once_made_or_edited(folder, base, tmp_path, linted):
    variant = tmp_path / "mine.yaml"
    assert any("no variant file" in d for d in said(str(base), variants=[str(variant)]))
    variant.write_text("description: fewer rounds\nset:\n  constants: {max_rounds: 2}\n", encoding="utf-8")
    made = said(str(base), variants=[str(variant)])
    assert not any("no variant file" in d for d in made) and any("unknown key 'set'" in d for d in made)
    variant.write_text("description: fewer rounds\nadd:\n  constants: {nothing: 2}\n", encoding="utf-8")
    edited = said(str(base), variants=[str(variant)])
    assert edited and not any("unknown key" in d for d in edited)
    assert len(linted) == 3


def test_an_edited_library_file_is_linted_afresh(folder, base, tmp_path, linted, monkeypatch):
    shipped = tmp_path / "rulesets"
    (shipped / "library").mkdir(parents=True)
    (shipped / "library" / "extra.rules").write_text("def extra(x) = x\n", encoding="utf-8")
    _edited(base / "ruleset.yaml", "rules:\n", "rules:\n  - library/extra.rules\n")
    monkeypatch.setattr(ruleset_module, "rulesets_dir", lambda: shipped)
    assert not any("nowhere" in d for d in said(str(base)))
    (shipped / "library" / "extra.rules").write_text("def extra(x) = nowhere\n", encoding="utf-8")
    assert any("extra.rules" in d and "nowhere" in d for d in said(str(base)))
    assert len(linted) == 2


def test_a_damaged_entry_is_no_entry(folder, base, linted):
    cold = said(str(base))
    for entry in folder.glob("lint-*"):
        entry.write_bytes(entry.read_bytes()[:-5] + b"xxxxx")
    assert said(str(base)) == cold and len(linted) == 2


def test_a_cache_switched_off_keeps_nothing(tmp_path, base, linted, monkeypatch):
    monkeypatch.setenv("RAILRULES_CACHE_DIR", "")
    assert said(str(base)) == said(str(base)) and len(linted) == 2
    assert not list(tmp_path.rglob("lint-*"))


def test_a_lint_that_plays_is_not_kept(folder, base, linted):
    said(str(base), play=1)
    said(str(base), play=1)
    assert len(linted) == 2 and not list(folder.glob("lint-*"))
