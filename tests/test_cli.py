"""The `railrules` command, driven through ``tools.cli.main([...])`` with captured output.

Exit codes: 0 success (lint: clean), 1 failure (lint: errors), 2 usage. A verb never prints
a Python traceback.
"""
from __future__ import annotations

import io
import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from railrules.interpreter.errors import CODES
from railrules.tools.cli import build_parser, main

HERE = Path(__file__).resolve().parent
BASE = HERE / "lint_corpus" / "base"          # a small ruleset that lints clean


@pytest.fixture
def base(tmp_path) -> Path:
    root = tmp_path / "corpus"
    shutil.copytree(BASE, root)
    return root


@pytest.fixture
def broken(base) -> Path:
    """The base with an undefined name on line 3 and a missing citation (a warning)."""
    (base / "rules" / "extra.rules").write_text("procedure refund(p):\n    pass\n"
                                               "    pay amount from bank to p\n")
    meta = base / "ruleset.yaml"
    meta.write_text(meta.read_text().replace("  - rules/game.rules\n",
                                             "  - rules/game.rules\n  - rules/extra.rules\n"))
    return base


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def usage(capsys, *argv) -> tuple[int, str]:
    """argparse ends usage errors with SystemExit; return its code and the message."""
    with pytest.raises(SystemExit) as info:
        main(list(argv))
    out, err = capsys.readouterr()
    return info.value.code, out + err


# ---------------------------------------------------------------- lint: exit codes
def test_lint_of_a_clean_ruleset_exits_0(capsys, base):
    code, out, err = run(capsys, "lint", str(base))
    assert code == 0
    assert out.strip() == ""
    assert "0 error(s), 0 warning(s)" in err


def test_lint_with_errors_exits_1_and_shows_file_line_column(capsys, broken):
    code, out, err = run(capsys, "lint", str(broken))
    assert code == 1
    assert "rules/extra.rules:3:9: error RR102 undefined name 'amount'" in out
    # the source line, with the whole name underlined
    assert "    pay amount from bank to p\n            ^^^^^^\n" in out
    assert "1 error(s), 2 warning(s)" in err


def test_lint_with_only_warnings_exits_0(capsys, base):
    (base / "rules" / "game.rules").write_text(
        (base / "rules" / "game.rules").read_text() + "\ndef unused(x) = x\n")
    code, out, err = run(capsys, "lint", str(base))
    assert code == 0
    assert "warning RR108 function 'unused' is never reached" in out


def test_lint_errors_only_hides_warnings_but_not_the_exit_code(capsys, broken):
    code, out, err = run(capsys, "lint", "--errors-only", str(broken))
    assert code == 1
    assert "RR102" in out and "RR108" not in out and "RR109" not in out


def test_lint_accepts_a_file_inside_the_ruleset(capsys, broken):
    code, out, err = run(capsys, "lint", str(broken / "rules" / "extra.rules"))
    assert code == 1 and "RR102" in out


def test_lint_warns_about_an_unlisted_rules_file_and_parses_it_when_named(capsys, base):
    orphan = base / "rules" / "orphan.rules"
    orphan.write_text("def f(x) = x +\n")
    code, out, err = run(capsys, "lint", str(base))
    assert code == 0                                   # a warning: the folder itself is fine
    assert "warning RR207" in out and "orphan.rules" in out and "RR101" not in out
    code, out, err = run(capsys, "lint", str(orphan))  # named: its syntax is checked too
    assert code == 1
    assert "warning RR207" in out and "orphan.rules:1:15: error RR101" in out


def test_lint_reports_a_broken_scenario_with_file_line_and_column(capsys, base):
    (base / "scenarios").mkdir()
    (base / "scenarios" / "s.yaml").write_text(
        'description: "x"\nplayers: 2\nsteps:\n  - do: "pass; bid 3"\n')
    code, out, err = run(capsys, "lint", str(base))
    assert code == 1
    assert "scenarios/s.yaml:4:16: error RR208 no option or action 'bid' in the rules" in out


def test_lint_of_the_shipped_rulesets_covers_their_scenarios(capsys, monkeypatch, tmp_path):
    from railrules.interpreter.data.ruleset import resolve_ruleset_path
    from railrules.tools.author import lint, scenario_lint
    monkeypatch.setenv("RAILRULES_CACHE_DIR", str(tmp_path / "cache"))   # not a lint kept from before
    seen = []
    real = scenario_lint.lint_scenario
    monkeypatch.setattr(scenario_lint, "lint_scenario",
                        lambda path, *a: seen.append(path) or real(path, *a))
    assert [str(d) for d in lint.lint_paths(["german_railways"])] == []
    assert len(seen) == len(list((resolve_ruleset_path("german_railways") / "scenarios").glob("*.yaml")))


def test_lint_of_a_path_that_does_not_exist_exits_2_and_says_so(capsys, tmp_path, base):
    code, out, err = run(capsys, "lint", str(tmp_path / "nowhere"))
    assert code == 2 and "no ruleset, folder or file" in err and "nowhere" in err
    # inside a ruleset folder too: not "0 error(s)" for the ruleset around it
    code, out, err = run(capsys, "lint", str(base / "rules" / "nonexist.rules"))
    assert code == 2 and "nonexist.rules" in err and "error(s)" not in err


@pytest.mark.parametrize("rule", ["def twice(a, a) = a", "procedure twice(p, p):\n    pass",
                                  "const a = b + 1\nconst b = a + 1"])
def test_play_stops_where_lint_does_not_in_generated_code(capsys, base, rule):
    # a repeated parameter used to lint clean and stop every game with "internal error:
    # SyntaxError" (generated code); a constant cycle was "undefined name"
    game = base / "rules" / "game.rules"
    game.write_text(game.read_text() + "\n" + rule + "\n")
    code, out, err = run(capsys, "lint", "--select", "RR113,RR115", "--format", "json", str(base))
    lint_codes = {d["code"] for d in json.loads(out)}
    assert code == 1 and lint_codes <= {"RR113", "RR115"} and lint_codes
    code, out, err = run(capsys, "play", str(base), "--players", "2", "--bots", "random")
    assert code != 0 and "internal error" not in out + err
    assert lint_codes <= {c for c in ("RR113", "RR115") if c in out + err}


def test_lint_of_a_file_reports_that_file_and_the_errors_that_stop_its_ruleset(capsys, broken):
    game = broken / "rules" / "game.rules"
    game.write_text(game.read_text() + "\ndef unused(x) = x\n")
    code, out, err = run(capsys, "lint", "--format", "json", str(game))
    found = {(Path(d["file"]).name, d["code"]) for d in json.loads(out)}
    # game.rules' own warning, and extra.rules' error (the ruleset does not load); not the
    # warnings of extra.rules, which was not asked about
    assert found == {("game.rules", "RR108"), ("extra.rules", "RR102")}
    assert code == 1


def test_lint_of_a_library_file_checks_it_with_every_ruleset_that_uses_it(capsys, monkeypatch, tmp_path):
    from railrules.interpreter import paths
    from railrules.tools.author import lint
    shipped = paths.rulesets_dir()
    fake = tmp_path / "rulesets"
    shutil.copytree(shipped / "library", fake / "library")
    for name in ("chicago_express", "german_railways"):
        shutil.copytree(shipped / name, fake / name)
    monkeypatch.setattr(lint, "rulesets_dir", lambda: fake)
    monkeypatch.setattr(lint, "shipped_rulesets", lambda: ["chicago_express", "german_railways"])
    library = fake / "library" / "network.rules"
    assert [r.name for r in lint.library_users(library)] == ["chicago_express", "german_railways"]
    assert lint.library_users(fake / "chicago_express" / "rules" / "build.rules") == []
    from railrules.interpreter.data import ruleset
    monkeypatch.setattr(ruleset, "rulesets_dir", lambda: fake)   # the loader's library is the copy
    code, out, err = run(capsys, "lint", "--format", "json", str(library))
    assert (code, json.loads(out)) == (0, [])
    library.write_text(library.read_text() + "\nprocedure lay(p, c):\n    cite \"x\"\n    call nowhere(p)\n")
    code, out, err = run(capsys, "lint", "--format", "json", str(library))
    found = [(Path(d["file"]).name, d["code"], d["line"]) for d in json.loads(out)]
    last = len(library.read_text().splitlines())
    # said once (not once per ruleset), in the library file, where the call is
    assert code == 1 and sorted(found) == [("network.rules", "RR106", last), ("network.rules", "RR108", last - 2),
                                           ("network.rules", "RR111", last)]


def test_lint_of_several_paths_reports_each(capsys, broken, tmp_path):
    loose = tmp_path / "loose.rules"
    loose.write_text("def f(x) = x +\n")
    code, out, err = run(capsys, "lint", "--format", "json", str(broken), str(loose))
    assert code == 1
    assert {(Path(d["file"]).name, d["code"]) for d in json.loads(out)} >= {
        ("extra.rules", "RR102"), ("loose.rules", "RR101")}


@pytest.mark.parametrize("argv", [
    ["lint", "--bogus"],
    ["lint", "--format", "xml"],
    ["lint", "--play", "many"],
    ["frobnicate"],
    ["simulate"],
    ["replay"],
    ["simulate", "chicago_express", "--games", "ten"],
])
def test_usage_errors_exit_2(capsys, argv):
    code, text = usage(capsys, *argv)
    assert code == 2
    assert "usage:" in text


def test_no_command_prints_help_and_exits_2(capsys):
    code, out, err = run(capsys)
    assert code == 2 and "usage:" in out


def test_play_without_a_ruleset_or_resume_exits_2(capsys):
    code, out, err = run(capsys, "play")
    assert code == 2 and "give a ruleset" in err


# ---------------------------------------------------------------- lint: formats
def test_lint_json_is_a_list_of_diagnostic_objects(capsys, broken):
    code, out, err = run(capsys, "lint", "--format", "json", str(broken))
    assert code == 1
    diags = json.loads(out)
    assert isinstance(diags, list) and len(diags) == 3
    for d in diags:
        assert {"file", "line", "column", "code", "severity", "message"} <= set(d)
        assert d["code"] in CODES and d["severity"] in ("error", "warning")
        assert isinstance(d["line"], int) and isinstance(d["column"], int)
    error = next(d for d in diags if d["severity"] == "error")
    assert (Path(error["file"]).name, error["line"], error["column"], error["code"]) == \
        ("extra.rules", 3, 9, "RR102")
    assert err == ""          # json output is for machines: no summary line


def test_lint_json_of_a_clean_ruleset_is_an_empty_list(capsys, base):
    code, out, err = run(capsys, "lint", "--format", "json", str(base))
    assert code == 0 and json.loads(out) == []


def test_lint_sarif_has_the_sarif_2_1_0_shape(capsys, broken):
    code, out, err = run(capsys, "lint", "--format", "sarif", str(broken))
    assert code == 1
    sarif = json.loads(out)
    assert sarif["version"] == "2.1.0"
    assert "sarif" in sarif["$schema"] and "2.1.0" in sarif["$schema"]
    assert len(sarif["runs"]) == 1
    driver = sarif["runs"][0]["tool"]["driver"]
    assert driver["name"] == "railrules"
    rule_ids = [r["id"] for r in driver["rules"]]
    assert sorted(rule_ids) == sorted(CODES)
    assert all(r["shortDescription"]["text"] for r in driver["rules"])
    results = sarif["runs"][0]["results"]
    assert len(results) == 3
    for r in results:
        assert r["ruleId"] in rule_ids
        assert r["level"] in ("error", "warning", "note")
        assert r["message"]["text"]
        location = r["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"]
        assert location["region"]["startLine"] >= 1 and location["region"]["startColumn"] >= 1
    error = next(r for r in results if r["level"] == "error")
    location = error["locations"][0]["physicalLocation"]
    assert error["ruleId"] == "RR102"
    assert location["artifactLocation"]["uri"].endswith("rules/extra.rules")
    assert (location["region"]["startLine"], location["region"]["startColumn"]) == (3, 9)


def test_lint_sarif_places_lineless_diagnostics_at_line_1(capsys, tmp_path):
    (tmp_path / "stray.yaml").write_text("a: 1\n")   # not in a ruleset folder: RR206, no line
    code, out, err = run(capsys, "lint", "--format", "sarif", str(tmp_path / "stray.yaml"))
    region = json.loads(out)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert code == 1 and region == {"startLine": 1, "startColumn": 1}


def test_lint_play_samples_games(capsys, base):
    code, out, err = run(capsys, "lint", "--play", "5", "--format", "json", str(base))
    assert code == 0
    assert all(d["severity"] == "warning" for d in json.loads(out))


# ---------------------------------------------------------------- simulate
def test_simulate_json_prints_exactly_one_object(capsys):
    code, out, err = run(capsys, "simulate", "chicago_express", "--games", "3", "--players", "3",
                         "--seed", "5", "--json")
    assert code == 0
    result = json.loads(out)           # the whole of stdout is one JSON value
    assert isinstance(result, dict)
    assert {"ruleset", "games", "finished", "wins_by_seat", "end_reasons", "decisions_mean",
            "playouts_per_second"} <= set(result)
    assert result["ruleset"] == "chicago_express"
    assert result["games"] == 3 and result["finished"] == 3
    assert set(result["wins_by_seat"]) == {"p1", "p2", "p3"}
    assert sum(result["wins_by_seat"].values()) >= 3
    assert sum(result["end_reasons"].values()) >= 3
    assert result["decisions_mean"] > 0 and result["playouts_per_second"] > 0


def test_simulate_is_reproducible_by_seed(capsys):
    runs = []
    for _ in range(2):
        code, out, err = run(capsys, "simulate", str(BASE), "--games", "5", "--players", "2",
                             "--json")
        result = json.loads(out)
        runs.append({k: result[k] for k in ("wins_by_seat", "end_reasons", "decisions_mean")})
    assert runs[0] == runs[1]


def test_simulate_of_an_unknown_ruleset_is_rr206(capsys):
    code, out, err = run(capsys, "simulate", "no_such_game", "--json")
    assert code == 1 and "RR206" in err


# ---------------------------------------------------------------- play --log and replay
@pytest.fixture
def recorded(capsys, tmp_path) -> Path:
    """A log of a whole bot game of Chicago Express."""
    log = tmp_path / "game.log.json"
    code, out, err = run(capsys, "play", "chicago_express", "--bots", "random", "--players", "3",
                         "--seed", "2", "--log", str(log))
    assert code == 0 and f"log written to {log}" in out
    return log


def test_replay_of_a_recorded_game_succeeds(capsys, recorded):
    actions = json.loads(recorded.read_text())["actions"]
    code, out, err = run(capsys, "replay", str(recorded))
    assert code == 0
    assert f"replayed {len(actions)} actions of chicago_express: identical (over:" in out


def _tamper(log: Path, index: int, action) -> None:
    data = json.loads(log.read_text())
    data["actions"][index] = action
    log.write_text(json.dumps(data))


def test_replay_of_a_log_with_an_illegal_action_names_the_action(capsys, recorded):
    actions = json.loads(recorded.read_text())["actions"]
    _tamper(recorded, 9, ["bid", 999])                      # the 10th action
    code, out, err = run(capsys, "replay", str(recorded))
    assert code == 1
    assert "RR305" in err
    assert f"diverges at action 10 of {len(actions)} (['bid', 999])" in err


def test_replay_of_a_log_with_another_legal_action_fails(capsys, recorded):
    data = json.loads(recorded.read_text())
    first = data["actions"][0]
    assert first[0] == "bid"
    _tamper(recorded, 0, [first[0], first[1] + 1])           # a different, still legal, bid
    code, out, err = run(capsys, "replay", str(recorded))
    assert code == 1 and "RR305" in err


def test_replay_of_a_log_with_an_action_removed_fails(capsys, recorded):
    data = json.loads(recorded.read_text())
    del data["actions"][-1]
    recorded.write_text(json.dumps(data))
    code, out, err = run(capsys, "replay", str(recorded))
    assert code == 1 and "RR305" in err


@pytest.mark.parametrize("fraction", [0.0, 0.3, 0.9])
def test_replay_of_a_truncated_log_is_rr304(capsys, recorded, fraction):
    text = recorded.read_text()
    recorded.write_text(text[:int(len(text) * fraction)])
    code, out, err = run(capsys, "replay", str(recorded))
    assert code == 1 and "RR304" in err


def test_replay_of_a_missing_log_is_rr304(capsys, tmp_path):
    code, out, err = run(capsys, "replay", str(tmp_path / "missing.json"))
    assert code == 1 and "RR304" in err


def test_replay_of_a_log_for_another_ruleset_fails(capsys, recorded):
    data = json.loads(recorded.read_text())
    data["ruleset"] = "no_such_game"
    recorded.write_text(json.dumps(data))
    code, out, err = run(capsys, "replay", str(recorded))
    assert code == 1 and "RR206" in err


# ---------------------------------------------------------------- play at the terminal
def play(capsys, monkeypatch, text: str, *argv) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    return run(capsys, "play", *argv)


def test_play_uses_the_current_stdin_and_stdout(capsys, monkeypatch, tmp_path):
    # play was imported long before this test replaced the streams: it reads the current ones
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    save = tmp_path / "game.save.json"
    code, out, err = run(capsys, "play", "chicago_express", "--players", "3", "--save", str(save))
    assert code == 0 and f"saved to {save}" in out


def test_play_explains_mistyped_input_and_prompts_again(capsys, monkeypatch, tmp_path):
    save = tmp_path / "game.save.json"
    typed = "0\n999\nfrobnicate\nbid 1\n\nhelp\n"
    code, out, err = play(capsys, monkeypatch, typed, "chicago_express", "--players", "3",
                          "--seed", "1", "--save", str(save))
    assert code == 0
    assert out.count("choose a number from 1 to") == 2            # "0" and "999"
    assert out.count("not allowed:") == 2                         # "frobnicate" and "bid 1"
    assert "'frobnicate' is not a choice now; the choices are: bid, pass" in out
    assert "cannot 'bid 1': 1 is not one of the choices for the amount Player 1 bids (from 7 to 40)" in out
    assert "Type the number of an action" in out.split("Your choice", 1)[1]   # "help"
    assert out.count("Your choice") == 7                          # six lines, then end of input
    assert f"saved to {save}" in out


def test_end_of_input_saves_a_game_that_resume_loads(capsys, monkeypatch, tmp_path):
    save = tmp_path / "game.save.json"
    code, out, err = play(capsys, monkeypatch, "1\n1\n", "chicago_express", "--players", "3",
                          "--seed", "1", "--save", str(save))
    assert code == 0 and f"saved to {save}" in out
    saved = json.loads(save.read_text())
    assert saved["format"] == "railrules-save-1" and saved["ruleset"] == "chicago_express"
    history = saved["state"]["history"]
    assert len(history) >= 2                                       # two of ours, maybe bots' too

    code, out, err = play(capsys, monkeypatch, "", "--resume", str(save))
    assert code == 0
    assert "Chicago Express" in out and f"saved to {save}" in out
    assert json.loads(save.read_text())["state"]["history"] == history   # nothing was lost


def test_resume_continues_from_the_saved_position(capsys, monkeypatch, tmp_path):
    save = tmp_path / "game.save.json"
    play(capsys, monkeypatch, "1\n", "chicago_express", "--players", "3", "--seed", "4",
         "--save", str(save))
    before = json.loads(save.read_text())["state"]["history"]
    code, out, err = play(capsys, monkeypatch, "1\n", "--resume", str(save))
    assert code == 0
    after = json.loads(save.read_text())["state"]["history"]
    assert after[:len(before)] == before and len(after) > len(before)


def test_play_quit_saves_too(capsys, monkeypatch, tmp_path):
    save = tmp_path / "game.save.json"
    code, out, err = play(capsys, monkeypatch, "quit\n1\n", "chicago_express", "--players", "3",
                          "--save", str(save))
    assert code == 0 and save.is_file() and json.loads(save.read_text())["state"]["history"] == []


def test_play_resume_of_a_damaged_save_is_rr304(capsys, tmp_path):
    save = tmp_path / "game.save.json"
    save.write_text('{"format": "railrules-save-1", "ruleset": "chicago_express", "state": {')
    code, out, err = run(capsys, "play", "--resume", str(save))
    assert code == 1 and "RR304" in err


def test_play_with_a_seat_out_of_range_exits_2(capsys):
    code, out, err = run(capsys, "play", "chicago_express", "--players", "3", "--seat", "5")
    assert code == 2 and "--seat must be 1 to 3" in err


# ---------------------------------------------------------------- codes and help
def test_codes_lists_every_code(capsys):
    code, out, err = run(capsys, "codes")
    assert code == 0
    listed = [line.split()[0] for line in out.splitlines() if line.startswith("RR")]
    assert listed == sorted(CODES)
    for c, (name, *_) in CODES.items():
        assert f"{c} {name}:" in out


def test_codes_explains_one_code(capsys):
    code, out, err = run(capsys, "codes", "rr101")
    assert code == 0 and out.startswith("RR101 syntax:") and "fix:" in out and "example:" in out


def test_codes_of_an_unknown_code_exits_2(capsys):
    code, out, err = run(capsys, "codes", "RR999")
    assert code == 2 and "no code RR999" in err


def test_codes_markdown_has_a_row_per_code(capsys):
    code, out, err = run(capsys, "codes", "--markdown")
    rows = [line for line in out.splitlines() if line.startswith("| RR")]
    assert code == 0 and len(rows) == len(CODES)


VERBS = sorted(build_parser()._subparsers._group_actions[0].choices)


def test_the_verbs_are_the_documented_ones():
    assert {"lint", "play", "simulate", "replay", "codes", "test", "bench", "list"} <= set(VERBS)


@pytest.mark.parametrize("verb", [None] + VERBS)
def test_every_verb_has_help_that_exits_0(capsys, verb):
    code, text = usage(capsys, *([verb] if verb else []), "--help")
    assert code == 0
    assert text.startswith("usage: railrules" + (f" {verb}" if verb else ""))


def _tools_loaded(*argv: str) -> list:
    """The modules of tools/ a fresh process has loaded after `railrules ARGV` (a help: it exits)."""
    import subprocess
    code = ("import sys\nfrom railrules.tools.cli import main\ntry:\n    main(sys.argv[1:])\n"
            "except SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('railrules.tools')), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=120)
    return eval(done.stderr.strip().splitlines()[-1])


def test_a_verbs_module_is_loaded_only_when_the_verb_is_named():
    assert _tools_loaded("--help") == ["railrules.tools", "railrules.tools.cli"]
    loaded = _tools_loaded("lint", "--help")
    assert "railrules.tools.author.lint" in loaded
    assert not [m for m in loaded if m.startswith(("railrules.tools.lab", "railrules.tools.play"))]


# ---------------------------------------------------------------- --variant PATH
@pytest.fixture
def my_variant(tmp_path) -> Path:
    """A variant file of the user's, outside every ruleset, with a rules file beside it."""
    folder = tmp_path / "mine"
    (folder / "rules").mkdir(parents=True)
    (folder / "rules" / "score.rules").write_text("score p = p.cash * 2\n")
    path = folder / "double.yaml"
    path.write_text('description: "a longer game, scored double"\n'
                    "constants:\n  max_rounds: 5\nrules:\n  - rules/score.rules\n")
    return path


def test_a_variant_file_anywhere_overlays_any_ruleset(base, my_variant, tmp_path):
    from railrules.interpreter import load_ruleset
    plain = load_ruleset(str(base))
    mine = load_ruleset(str(base), str(my_variant))
    assert plain.constants["max_rounds"] == 3 and mine.constants["max_rounds"] == 5
    assert mine.variant == str(my_variant.resolve()) and mine.hash != plain.hash
    scores = [d for d in mine.definitions if type(d).__name__ == "ScoreDef"]
    assert len(scores) == 1 and scores[0].pos.file.endswith("score.rules")   # the variant's rule
    # the hash follows the content, not the place: the same files elsewhere hash the same
    moved = tmp_path / "elsewhere"
    shutil.copytree(my_variant.parent, moved)
    assert load_ruleset(str(base), str(moved / "double.yaml")).hash == mine.hash


def test_lint_checks_a_variant_file_like_a_shipped_variant(capsys, base, my_variant):
    code, out, err = run(capsys, "lint", str(base), "--variant", str(my_variant))
    assert code == 0, out
    my_variant.write_text('description: "misspelt"\nconstants:\n  max_round: 5\n'
                          "rules:\n  - ../escape.rules\n")
    code, out, err = run(capsys, "lint", str(base), "--variant", str(my_variant))
    assert code == 1
    assert f"{my_variant}:3:3: error RR204 the variant sets constant 'max_round'" in out
    assert f"{my_variant}:5:5: error RR005 '../escape.rules' is outside the variant's folder" in out


def test_a_missing_variant_file_is_rr205_and_a_lone_variant_file_gets_a_hint(capsys, base, tmp_path):
    code, out, err = run(capsys, "lint", str(base), "--variant", str(tmp_path / "nope.yaml"))
    assert code == 1 and "RR205 no variant file" in out
    code, out, err = run(capsys, "simulate", str(base), "--variant", str(tmp_path / "nope.yaml"))
    assert code == 1 and "RR205" in err
    lone = tmp_path / "lone.yaml"
    lone.write_text('description: "x"\n')
    code, out, err = run(capsys, "lint", str(lone))
    assert code == 1 and f"railrules lint RULESET --variant {lone}" in out


def test_simulate_and_play_take_a_variant_file(capsys, base, my_variant):
    code, out, err = run(capsys, "simulate", str(base), "--variant", str(my_variant), "--games", "2",
                         "--players", "2", "--json")
    assert code == 0 and json.loads(out)["finished"] == 2
    code, out, err = run(capsys, "play", str(base), "--variant", str(my_variant), "--bots", "random",
                         "--players", "2", "--seed", "3")
    assert code == 0 and "winner" in out


# ---------------------------------------------------------------- new
def test_new_writes_the_template_that_lints_clean_tests_and_plays(capsys, monkeypatch, tmp_path):
    from railrules.tools.author.lint import lint_paths
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "new", "my_game")
    assert code == 0 and "wrote my_game/" in out
    assert "name: my_game\n" in (tmp_path / "my_game" / "ruleset.yaml").read_text()
    assert [str(d) for d in lint_paths(["my_game"])] == []
    code, out, err = run(capsys, "test", "my_game")
    assert code == 0 and "1 passed, 0 failed" in out
    code, out, err = run(capsys, "play", "my_game", "--bots", "random", "--players", "3", "--seed", "4")
    assert code == 0 and "winner" in out and "reached 10" in out


def test_new_from_a_ruleset_is_an_overlay_of_it_that_lints_tests_and_plays(capsys, monkeypatch, tmp_path):
    from railrules.tools.author.lint import lint_paths
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "new", "my_rocket", "--from", "stephensons_rocket")
    assert code == 0 and "an overlay of stephensons_rocket" in out
    folder = tmp_path / "my_rocket"
    assert sorted(p.name for p in folder.iterdir()) == ["my_rocket.rules", "ruleset.yaml"]
    assert "extends: stephensons_rocket\n" in (folder / "ruleset.yaml").read_text()
    assert [str(d) for d in lint_paths([str(folder)])] == []
    code, out, err = run(capsys, "test", "stephensons_rocket", "-k", "merge")
    base = out.splitlines()[-1].split(" passed")[0]
    code, out, err = run(capsys, "test", "my_rocket", "-k", "merge")
    assert code == 0 and int(base) > 0 and f"{base} passed, 0 failed" in out   # the base's scenarios, on the overlay
    # an overlay of a folder names it by its path, from the new folder
    code, out, err = run(capsys, "new", "games/mine", "--from", "./my_rocket")
    assert code == 0 and "extends: ../../my_rocket\n" in (tmp_path / "games" / "mine" / "ruleset.yaml").read_text()
    code, out, err = run(capsys, "play", "games/mine", "--bots", "random", "--players", "2", "--seed", "2")
    assert code == 0 and "winner" in out
    from railrules.interpreter import load_ruleset
    assert load_ruleset("games/mine").name == "mine"


def test_new_from_a_shipped_ruleset_with_copy_is_a_renamed_working_copy(capsys, monkeypatch, tmp_path):
    from railrules.tools.author.lint import lint_paths
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "new", "games/my_express", "--from", "chicago_express", "--copy")
    assert code == 0 and "library/" in out          # says where the shared library stays
    folder = tmp_path / "games" / "my_express"
    assert (folder / "scenarios").is_dir() and (folder / "variants").is_dir()
    assert [str(d) for d in lint_paths([str(folder)])] == []
    code, out, err = run(capsys, "play", str(folder), "--bots", "random", "--players", "3", "--seed", "2")
    assert code == 0 and "winner" in out
    from railrules.interpreter import load_ruleset
    assert load_ruleset(str(folder)).name == "my_express"


def test_new_never_overwrites_and_refuses_bad_names(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "mine.txt").write_text("keep me")
    code, out, err = run(capsys, "new", "taken")
    assert code == 2 and "already exists" in err and "never overwrites" in err
    assert [p.name for p in (tmp_path / "taken").iterdir()] == ["mine.txt"]
    code, out, err = run(capsys, "new", "My-Game")
    assert code == 2 and "'My-Game' cannot name a ruleset" in err and "'my_game'" in err
    code, out, err = run(capsys, "new", "fine", "--from", "no_such_game")
    assert code == 2 and "no ruleset 'no_such_game'" in err and not (tmp_path / "fine").exists()


def test_new_refuses_the_name_of_a_shipped_ruleset_unless_given_as_a_path(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "new", "chicago_express")
    assert code == 2 and "shipped ruleset" in err and "./chicago_express" in err and "my_chicago_express" in err
    assert not (tmp_path / "chicago_express").exists()
    code, out, err = run(capsys, "new", "./chicago_express")
    assert code == 0 and (tmp_path / "chicago_express" / "ruleset.yaml").is_file()
    assert "also a shipped ruleset" in out      # and it says what that means


def test_the_template_is_the_readmes_first_ruleset():
    import re
    from railrules.tools.author.new import TEMPLATE, templates_dir
    readme = (HERE.parent / "README.md").read_text(encoding="utf-8")
    blocks = dict(re.findall(r"\*\*`([^`]+)`\*\*\s*\n\s*```[a-z]*\n(.*?)```", readme, re.S))
    for name, body in blocks.items():
        assert (templates_dir() / TEMPLATE / name).read_text(encoding="utf-8") == body, name


# ---------------------------------------------------------------- nothing lost on bad input
def test_save_to_a_missing_folder_at_the_prompt_reports_and_play_goes_on(capsys, monkeypatch, tmp_path):
    save = tmp_path / "game.save.json"
    code, out, err = play(capsys, monkeypatch, f"save {tmp_path}/no/such/x.json\n1\nquit\n",
                          "chicago_express", "--players", "3", "--seed", "1", "--save", str(save))
    assert code == 0
    assert f"not saved: cannot write {tmp_path}/no/such/x.json: the folder {tmp_path}/no/such does not exist" in out
    assert "the game goes on" in out and not (tmp_path / "no").exists()
    assert len(json.loads(save.read_text())["state"]["history"]) >= 1     # the "1" was played


def test_save_at_the_prompt_never_overwrites_a_file_it_did_not_write(capsys, monkeypatch, tmp_path):
    other = tmp_path / "other.json"
    other.write_text("precious")
    save = tmp_path / "game.save.json"
    typed = f"save {other}\nsave {tmp_path}/mine.json\n1\nsave {tmp_path}/mine.json\nquit\n"
    code, out, err = play(capsys, monkeypatch, typed, "chicago_express", "--players", "3",
                          "--seed", "1", "--save", str(save))
    assert code == 0 and other.read_text() == "precious"
    assert f"not saved: {other} already exists" in out and "--force" in out
    assert out.count(f"saved to {tmp_path}/mine.json") == 2       # its own file: overwritten
    assert json.loads((tmp_path / "mine.json").read_text())["state"]["history"]
    code, out, err = play(capsys, monkeypatch, f"save {other}\nquit\n", "chicago_express",
                          "--players", "3", "--seed", "1", "--save", str(save), "--force")
    assert code == 0 and json.loads(other.read_text())["format"] == "railrules-save-1"


def test_an_existing_save_file_is_refused_before_the_game_unless_forced(capsys, monkeypatch, tmp_path):
    save = tmp_path / "game.save.json"
    save.write_text("an older game")
    code, out, err = play(capsys, monkeypatch, "quit\n", "chicago_express", "--players", "3",
                          "--save", str(save))
    assert code == 2 and "already exists" in err and "--force" in err
    assert "Your choice" not in out and save.read_text() == "an older game"
    code, out, err = play(capsys, monkeypatch, "quit\n", "chicago_express", "--players", "3",
                          "--save", str(save), "--force")
    assert code == 0 and json.loads(save.read_text())["format"] == "railrules-save-1"


def test_the_default_save_name_never_overwrites_an_earlier_game(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    first = tmp_path / "chicago_express-seed3.save.json"
    first.write_text("an older game with the same seed")
    code, out, err = play(capsys, monkeypatch, "quit\n", "chicago_express", "--players", "3",
                          "--seed", "3")
    assert code == 0 and "saved to chicago_express-seed3-2.save.json" in out
    assert first.read_text() == "an older game with the same seed"


def test_without_seed_a_random_seed_is_drawn_and_printed(capsys, monkeypatch, tmp_path):
    seeds = set()
    for i in range(3):
        save = tmp_path / f"g{i}.save.json"
        code, out, err = play(capsys, monkeypatch, "quit\n", "chicago_express", "--players", "3",
                              "--save", str(save))
        header = out.splitlines()[0]
        seed = int(header.split("seed ")[1].split()[0])
        assert f"(drawn at random: --seed {seed} plays this game again)" in header
        assert json.loads(save.read_text())["state"]["seed"] == seed
        seeds.add(seed)
    assert len(seeds) > 1          # three draws from a million, all equal: not random
    code, out, err = play(capsys, monkeypatch, "quit\n", "chicago_express", "--players", "3",
                          "--seed", "42", "--save", str(tmp_path / "fixed.json"))
    assert "seed 42\n" in out and "drawn at random" not in out


def test_a_bad_log_path_is_a_usage_error_before_the_game_starts(capsys, tmp_path):
    for bad, why in [(tmp_path / "no" / "game.log", "does not exist"), (tmp_path, "is a folder")]:
        code, out, err = run(capsys, "play", "chicago_express", "--bots", "random", "--players", "3",
                             "--seed", "1", "--log", str(bad))
        assert code == 2 and f"--log {bad}: " in err and why in err
        assert out == ""                                  # no game was played


@pytest.mark.parametrize(("argv", "message"), [
    (["simulate", "chicago_express", "--games", "-5"], "--games: must be at least 1, not -5"),
    (["simulate", "chicago_express", "--games", "0"], "--games: must be at least 1, not 0"),
    (["play", "chicago_express", "--players", "0"], "--players: must be at least 1, not 0"),
    (["play", "chicago_express", "--seat", "-1"], "--seat: must be at least 1, not -1"),
    (["bench", "--lint-runs", "0"], "--lint-runs: must be at least 1"),
    (["lint", "--play", "-2"], "--play: must be at least 0"),
])
def test_counts_out_of_range_are_usage_errors(capsys, argv, message):
    code, text = usage(capsys, *argv)
    assert code == 2 and message in text and "Traceback" not in text


@pytest.mark.parametrize("verb", ["play", "simulate"])
def test_a_player_count_outside_the_games_range_is_a_usage_error(capsys, verb):
    extra = ["--bots", "random"] if verb == "play" else ["--games", "1"]
    code, out, err = run(capsys, verb, "chicago_express", "--players", "9", *extra)
    assert code == 2
    assert f"railrules {verb}: --players: chicago_express is for 2 to 6 players, not 9" in err


def test_a_diagnostic_without_a_place_has_no_file_line_column_prefix(chicago, tmp_path):
    from railrules.interpreter.errors import Diagnostic, Pos, RailrulesError
    with pytest.raises(RailrulesError) as info:
        chicago.new_game(players=9)
    assert str(info.value).startswith("error RR301 chicago_express is for 2 to 6 players")
    assert ":0:0" not in str(info.value)
    assert str(Diagnostic("RR205", "x", Pos(str(tmp_path), 0, 0))) == f"{tmp_path}: error RR205 x"
    assert str(Diagnostic("RR101", "x", Pos("a.rules", 3, 4))) == "a.rules:3:4: error RR101 x"


def test_leaving_saves_elsewhere_when_the_save_file_cannot_be_written(chicago, monkeypatch, tmp_path):
    from railrules.tools.play.terminal import play_human
    monkeypatch.chdir(tmp_path)
    game = chicago.new_game(3, 1)
    out = io.StringIO()
    code = play_human(game, "p1", "random", 1, tmp_path / "gone" / "x.save.json",
                      inp=io.StringIO("1\n"), out=out)
    text = out.getvalue()
    assert code == 0 and "cannot save to" in text
    saved = list(tmp_path.glob("railrules-chicago_express-*.save.json"))
    assert len(saved) == 1 and f"saved to {saved[0].name}" in text
    assert json.loads(saved[0].read_text())["state"]["history"] == game.state["history"] != []


def _railrules(args: list, typed: bytes, cwd: Path) -> tuple[int, str, str]:
    """Run the command as a person does, in its own process, typing ``typed`` into a pipe."""
    import subprocess
    proc = subprocess.run([sys.executable, "-m", "railrules", *args], input=typed, cwd=cwd,
                          capture_output=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(HERE.parent)})
    return proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")


def test_play_through_a_pipe_survives_bad_input_and_saves(tmp_path):
    typed = (b"save /nonexistent/x.json\n"       # cannot be written: reported, play goes on
             b"\xff\xfebid 7\n"                   # not UTF-8: refused alone
             b"bid 7\n"                           # the next line is read normally
             b"quit\n")
    code, out, err = _railrules(["play", "chicago_express", "--players", "3", "--seed", "5"],
                                typed, tmp_path)
    assert code == 0 and "Traceback" not in out + err
    assert "not saved: cannot write /nonexistent/x.json" in out
    assert "that line is not UTF-8 text" in out
    assert "Player 1 bids 7" in out
    save = tmp_path / "chicago_express-seed5.save.json"
    assert f"saved to {save.name}" in out
    assert json.loads(save.read_text())["state"]["history"][0] == ["bid", 7]
    code, out, err = _railrules(["play", "--resume", save.name], b"", tmp_path)   # end of input
    assert code == 0 and f"saved to {save.name}" in out
    code, out, err = _railrules(["play", "chicago_express", "--players", "3", "--seed", "5",
                                 "--save", save.name], b"quit\n", tmp_path)
    assert code == 2 and "already exists" in err


# ---------------------------------------------------------------- logs and saves name their rules
@pytest.fixture
def own_copy(tmp_path) -> Path:
    """A user's own copy of Chicago Express, outside the checkout."""
    import shutil
    from railrules.interpreter.paths import rulesets_dir
    copy = tmp_path / "my_express"
    shutil.copytree(rulesets_dir() / "chicago_express", copy)
    return copy


def test_a_log_names_its_folder_and_a_changed_rule_is_named_before_any_replay(capsys, tmp_path, own_copy):
    log = tmp_path / "game.log.json"
    code, out, err = run(capsys, "play", str(own_copy), "--bots", "random", "--players", "3",
                         "--seed", "4", "--log", str(log))
    assert code == 0
    data = json.loads(log.read_text())
    assert data["path"] == str(own_copy) and data["engine"] and "def build_price" in data["fingerprints"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    import os
    os.chdir(elsewhere)                      # the log finds its folder from anywhere
    assert run(capsys, "replay", str(log))[0] == 0
    rules = own_copy / "rules" / "build.rules"
    rules.write_text(rules.read_text().replace("(count(h.trains) + 1)", "(count(h.trains) + 2)"))
    code, out, err = run(capsys, "replay", str(log))
    assert code == 1 and "RR305" in err and "changed def build_price" in err and "--force" in err
    code, out, err = run(capsys, "replay", str(log), "--force")
    assert "replaying anyway" in out or "RR305" in err   # it replays, to the divergence if any
    original = tmp_path / "original"
    import shutil
    from railrules.interpreter.paths import rulesets_dir
    shutil.copytree(rulesets_dir() / "chicago_express", original)
    assert run(capsys, "replay", str(log), "--ruleset", str(original))[0] == 0


def test_resume_takes_the_ruleset_given_beside_the_save(capsys, tmp_path, own_copy):
    from railrules.interpreter.saves import load_save
    from railrules.tools.play.table import save
    from railrules.interpreter import load_ruleset
    game = load_ruleset(str(own_copy)).new_game(3, 5)
    game.apply(game.legal_actions()[0])
    saved = tmp_path / "g.save.json"
    save(game, saved)
    moved = tmp_path / "moved"
    own_copy.rename(moved)                 # the folder the save names is gone
    assert load_save(saved, str(moved)).to_json() == game.to_json()
    rules = moved / "rules" / "develop.rules"
    rules.write_text(rules.read_text().replace('log "{p} declines to develop"', 'log "{p} passes"'))
    with pytest.raises(Exception) as err:
        load_save(saved, str(moved))
    assert "RR304" in str(err.value) and "changed procedure develop_turn" in str(err.value)


def _saved_after_one_bid(tmp_path, own_copy) -> Path:
    from railrules.interpreter import load_ruleset
    from railrules.tools.play.table import save
    game = load_ruleset(str(own_copy)).new_game(3, 5)
    game.apply(game.legal_actions()[0])            # Player 1 bids 7 for the PRR's share
    saved = tmp_path / "g.save.json"
    save(game, saved)
    return saved


def _edit(own_copy, name: str, old: str, new: str) -> None:
    path = own_copy / name
    assert old in path.read_text()
    path.write_text(path.read_text().replace(old, new))


def test_a_save_made_before_the_rules_changed_is_replayed_under_them_when_the_caller_listens(tmp_path, own_copy):
    from railrules.interpreter.saves import load_save
    saved = _saved_after_one_bid(tmp_path, own_copy)
    _edit(own_copy, "rules/develop.rules", 'log "{p} declines to develop"', 'log "{p} passes"')
    told: list[str] = []
    game = load_save(saved, tell=told.append)
    assert game.state["history"] == [["bid", 7]] and game.state["hash"] == game.ruleset.hash
    assert len(told) == 1 and "changed procedure develop_turn" in told[0] and "replayed under today's rules (1 decision)" in told[0]
    assert "the game is the same as the save's" in told[0]
    _edit(own_copy, "components.yaml", "houses: 20 ", "houses: 21 ")   # the same bid, another state
    told.clear()
    assert load_save(saved, tell=told.append).state["globals"]["houses"] == 21
    assert "the game differs from the save's: globals.houses: the save holds 20, but its history gives 21" in told[0]


def test_a_save_whose_history_the_changed_rules_refuse_is_not_loaded_and_says_where(tmp_path, own_copy):
    from railrules.interpreter.errors import BadSave
    from railrules.interpreter.saves import load_save
    saved = _saved_after_one_bid(tmp_path, own_copy)
    _edit(own_copy, "components.yaml", "income: 7, opening_bid: 7}", "income: 7, opening_bid: 8}")
    told: list[str] = []
    with pytest.raises(BadSave) as err:
        load_save(saved, tell=told.append)
    message = err.value.diagnostics[0].message
    assert "no longer replays under them: history[0]: [\"bid\", 7] is not legal" in message
    assert "changed entity PRR" in message and told == [] and saved.exists()


def test_play_resumes_a_save_made_before_the_rules_changed_and_says_so(capsys, tmp_path, own_copy):
    saved = _saved_after_one_bid(tmp_path, own_copy)
    _edit(own_copy, "rules/develop.rules", 'log "{p} declines to develop"', 'log "{p} passes"')
    code, out, err = run(capsys, "play", "--resume", str(saved), "--bots", "random")
    assert code == 0 and "the rules changed since this game was saved (changed procedure develop_turn)" in err
    assert "game over" in out.lower() or "wins" in out.lower()


def test_a_save_resumed_with_another_games_rules_says_so_in_one_line(capsys, tmp_path):
    from railrules.interpreter import load_ruleset
    from railrules.tools.play.table import save
    game = load_ruleset("chicago_express").new_game(3, 5)
    saved = tmp_path / "g.save.json"
    save(game, saved)
    code, _, err = run(capsys, "render", "stephensons_rocket", "--resume", str(saved))
    lines = [line for line in err.splitlines() if "RR304" in line]
    assert code != 0 and len(lines) == 1
    assert "a game of chicago_express, not of stephensons_rocket" in lines[0] and "more" not in err


def test_a_mistyped_option_gets_the_verbs_closest_one(capsys):
    code, text = usage(capsys, "lint", "chicago_express", "--slect", "RR1")
    assert code == 2 and "--slect" in text and "did you mean --select?" in text
    code, text = usage(capsys, "play", "chicago_express", "--sead=3")
    assert code == 2 and "did you mean --seed?" in text
    code, text = usage(capsys, "play", "chicago_express", "--zzzzzz")   # nothing close: argparse's words
    assert code == 2 and "unrecognized arguments: --zzzzzz" in text and "did you mean" not in text


def test_version_names_the_installed_package(capsys):
    import railrules
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"railrules {railrules.__version__}"
    assert railrules.__version__[0].isdigit()


def test_play_shows_what_each_option_costs_as_the_ruleset_declares():
    import random as rnd

    from railrules.interpreter import load_ruleset
    from railrules.tools.play.table import option_cost
    game = load_ruleset("chicago_express").new_game(3, 2)
    r = rnd.Random(3)
    while not any(a.name == "hex" for a in game.legal_actions()):
        game.apply(r.choice(game.legal_actions()))
    company = game.option_scope(game.legal_actions()[0])["c"]
    for a in game.legal_actions():
        if a.name == "hex":  # the price the rule will charge: build_price of the company and hex
            assert option_cost(game, a) == f"  costs {game.evaluate(f'build_price({company}, {a.args[0]})')}"
        else:
            assert option_cost(game, a) == ""
