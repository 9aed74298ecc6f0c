"""interpreter/dsl/TUTORIAL.md, run as a designer would follow it: every block in it is either a file
(the block after a bold file name, **`path`**) written into an empty folder, or shell commands
(lines starting `$ `) run there in order, each followed by the lines its output must hold (in
order; `...` stands for lines left out) and ending with status 0 unless it says `# exit status N`.
The files the tutorial writes are the ones in rulesets/templates/ (branch_lines, share_sales), so the game there is the game the
tutorial teaches."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TUTORIAL = ROOT / "interpreter" / "dsl" / "TUTORIAL.md"
FINISHED = ROOT / "rulesets" / "templates"

_BLOCK = re.compile(r"^```([a-z]*)\n(.*?)^```\n", re.S | re.M)
_FILE = re.compile(r"\*\*`([^`]+)`\*\*\s*$")
_STATUS = re.compile(r"#\s*exit status (\d+)\s*$")


def steps(text: str) -> list[tuple]:
    """The tutorial's blocks in order: ("file", path, text) or ("run", command, expected lines)."""
    out: list[tuple] = []
    for m in _BLOCK.finditer(text):
        lang, body = m.group(1), m.group(2)
        before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        named = _FILE.search(before)
        if named:
            out.append(("file", named.group(1), body))
            continue
        assert lang == "sh" and body.startswith("$ "), \
            f"a block the test cannot run (neither a named file nor `$ ` commands):\n{body}"
        for chunk in re.split(r"^\$ ", body, flags=re.M)[1:]:
            command, *expected = chunk.rstrip("\n").split("\n")
            out.append(("run", command, expected))
    return out


def check_output(command: str, output: str, expected: list[str]) -> None:
    """Each expected line is found in the output, in order (``...`` skips any number of lines)."""
    lines = [line.rstrip() for line in output.splitlines()]
    at = 0
    for want in expected:
        if want.strip() == "...":
            continue
        found = next((i for i in range(at, len(lines)) if lines[i] == want.rstrip()), None)
        assert found is not None, f"$ {command}\nexpected the line\n{want}\nafter line {at}; the output was:\n{output}"
        at = found + 1
    if expected and expected[-1].strip() != "..." and at != len(lines):
        raise AssertionError(f"$ {command}\nmore output than the tutorial shows after\n{expected[-1]}\n"
                             f"the output was:\n{output}")


def _tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


def test_the_tutorial_runs_as_written(tmp_path):
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "COLUMNS": "100", "NO_COLOR": "1"}
    for kind, what, body in steps(TUTORIAL.read_text(encoding="utf-8")):
        if kind == "file":
            target = tmp_path / what
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(body, encoding="utf-8")
            continue
        status = _STATUS.search(what)
        done = subprocess.run(["bash", "-o", "pipefail", "-c", what], cwd=tmp_path, env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
        assert done.returncode == (int(status.group(1)) if status else 0), \
            f"$ {what}\nexit status {done.returncode}; the output was:\n{done.stdout}"
        check_output(what, done.stdout, body)
    written = {f"{name}/{path}": text for name in ("branch_lines", "share_sales")
               for path, text in _tree(tmp_path / name).items()}
    assert written == {f"{name}/{path}": text for name in ("branch_lines", "share_sales")
                       for path, text in _tree(FINISHED / name).items()}, \
        "rulesets/templates/ is not what the tutorial writes: copy the files the tutorial shows there"


def test_every_block_of_the_tutorial_is_a_file_or_commands():
    found = steps(TUTORIAL.read_text(encoding="utf-8"))
    files = {what for kind, what, _ in found if kind == "file"}
    assert {"branch_lines/rules/game.rules", "share_sales/share_sales.rules"} <= files
    assert any(kind == "run" and what.startswith("railrules compare") for kind, what, _ in found)


def test_the_output_check_fails_on_a_missing_or_extra_line():
    check_output("x", "a\nb\nc\n", ["a", "...", "c"])
    with pytest.raises(AssertionError, match="expected the line"):
        check_output("x", "a\nb\n", ["a", "c"])
    with pytest.raises(AssertionError, match="more output"):
        check_output("x", "a\nb\n", ["a"])
