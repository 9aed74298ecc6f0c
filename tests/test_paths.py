"""What people read names a ruleset's files from the ruleset folder
(``chicago_express/rules/turn.rules:11``, ``library/auction.rules:8``), never by the folder the
package is installed in (site-packages) nor the working folder. Each command runs from a folder
outside the source tree, where a path relative to the working folder would be absolute."""
from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from railrules.interpreter import load_ruleset
from railrules.interpreter.paths import in_ruleset, place_in_ruleset, rulesets_dir
from railrules.tools.cli import main
from railrules.tools.play.table import explain, paused_in
from railrules.tools.play.terminal import play_human

PREFIX = str(rulesets_dir().resolve().parent)   # the source tree, or site-packages/railrules


def _clean(text: str) -> None:
    assert text.strip()
    assert PREFIX not in text and "site-packages" not in text, \
        [line for line in text.splitlines() if PREFIX in line or "site-packages" in line][:3]


@pytest.fixture(autouse=True)
def elsewhere(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_ruleset_file_is_named_from_its_folder():
    root = rulesets_dir()
    assert in_ruleset(str(root / "chicago_express" / "rules" / "turn.rules"), 11) == \
        "chicago_express/rules/turn.rules:11"
    assert in_ruleset(str(root / "library" / "auction.rules")) == "library/auction.rules"
    assert place_in_ruleset(f"{root}/german_railways/board.yaml:3") == "german_railways/board.yaml:3"
    assert in_ruleset("/nowhere/x.rules", 2) == "/nowhere/x.rules:2"  # no ruleset folder: as given
    assert in_ruleset("<expression>") == "<expression>"


def test_the_play_prompt_and_why_name_rules_from_the_ruleset_folder():
    game = load_ruleset("chicago_express").new_game(3, 1)
    where = paused_in(game)
    assert re.search(r"\((library|chicago_express)/[\w/]+\.rules:\d+\)", where), where
    answer = explain(game, "bid 1000")
    _clean(where + "\n" + answer)
    out = io.StringIO()
    play_human(game, game.current_player, "random", 1, Path("g.save.json"),
               inp=io.StringIO("why bid 1000\nquit\n"), out=out)
    _clean(out.getvalue())
    assert re.search(r"(library|chicago_express)/[\w/]+\.rules:\d+", out.getvalue())


def test_doc_coverage_test_and_view_name_rules_from_the_ruleset_folder(capsys, elsewhere):
    assert main(["doc", "stephensons_rocket"]) == 0
    doc = capsys.readouterr().out
    _clean(doc)
    assert "stephensons_rocket/rules/" in doc
    assert main(["coverage", "chicago_express", "--games", "2", "--jobs", "1", "--json"]) in (0, 1)
    cov = capsys.readouterr().out
    _clean(cov)
    assert "library/auction.rules:" in cov
    main(["test", "chicago_express"])
    tested = capsys.readouterr().out
    _clean(tested)
    assert "chicago_express/scenarios/" in tested
    log, page = elsewhere / "g.log", elsewhere / "g.html"
    assert main(["play", "chicago_express", "--bots", "random", "--players", "3", "--seed", "2",
                 "--log", str(log)]) == 0
    assert main(["view", str(log), "-o", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    _clean(html)
    assert re.search(r'"rule":"chicago_express/rules/[\w/]+\.rules:\d+"', html)
