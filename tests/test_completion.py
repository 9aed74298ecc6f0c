"""Shell completion: the candidates the parser gives, and bash completing a real command line
with the TAB key (pexpect), as a person types it."""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from railrules.interpreter.paths import shipped_rulesets
from railrules.tools.cli import build_parser, main
from railrules.tools.completion import SHELLS, candidates

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = sorted(p.stem for p in (ROOT / "rulesets" / "chicago_express" / "variants").glob("*.yaml"))


@pytest.mark.parametrize("words, expected", [
    ([""], sorted(build_parser()._subparsers._group_actions[0].choices)),   # every verb
    (["co"], ["code", "codes", "compare", "completion", "coverage"]),
    (["compare", ""], shipped_rulesets()),
    (["compare", "chi"], ["chicago_express"]),
    (["compare", "chicago_express", "--variant", ""], VARIANTS),
    (["compare", "chicago_express", "--players", "3", "--variant", "house"], ["house_threshold_4"]),
    (["lint", "--format", ""], ["text", "json", "sarif"]),
    (["lint", "--format", "json", "ste"], ["stephensons_rocket"]),
    (["completion", ""], list(SHELLS)),
    (["view", "--output", ""], []),          # a file: left to the shell
    (["replay", ""], []),                    # a log file: left to the shell
])
def test_candidates_come_from_the_parser(words, expected):
    assert candidates(build_parser(), words) == expected


def test_options_of_a_verb_and_of_the_command():
    assert {"--svg", "--png", "--ids", "--step", "--variant"} <= set(candidates(build_parser(), ["render", "x", "--"]))
    assert candidates(build_parser(), ["--v"]) == ["--version"]


def test_completion_prints_a_script_for_each_shell(capsys):
    for shell in SHELLS:
        assert main(["completion", shell]) == 0
        assert "railrules __complete" in capsys.readouterr().out
    assert main(["__complete", "compare", "chi"]) == 0
    assert capsys.readouterr().out.split() == ["chicago_express"]
    assert main(["__complete", "lint", "--format", ""]) == 0     # the verb's own options, loaded
    assert capsys.readouterr().out.split() == ["text", "json", "sarif"]


@pytest.mark.skipif(not shutil.which("bash"), reason="no bash on this machine")
def test_bash_completes_with_tab(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
               PS1="$ ", HOME=str(tmp_path), INPUTRC="/dev/null")
    child = pexpect.spawn("bash", ["--norc", "--noprofile"], env=env, cwd=str(tmp_path),
                          encoding="utf-8", timeout=30, dimensions=(40, 200))
    child.expect(r"\$ ")
    child.sendline('eval "$(railrules completion bash)"')
    child.expect(r"\$ ")
    child.send("railrules compare chi\t")
    child.expect("chicago_express ")
    child.send("--variant house\t")
    child.expect("house_threshold_4")
    child.send("\x01echo \r")   # Ctrl-A: to the start of the line, to print it rather than run it
    child.expect(r"\rrailrules compare chicago_express --variant house_threshold_4\r\n")
    child.sendline("exit")
    child.expect(pexpect.EOF)
