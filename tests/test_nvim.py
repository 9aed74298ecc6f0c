"""The language server in an editor nobody here wrote: Debian's neovim (0.7+), headless, its
built-in LSP client starting `railrules lsp` on a copy of a shipped ruleset
(tests/nvim/session.lua is the session: break a line, hover, go to definition, rename)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls", reason="the language server needs pygls (pip install '.[lsp]')")
NVIM = shutil.which("nvim")
pytestmark = pytest.mark.skipif(NVIM is None, reason="neovim is not installed (apt-get install neovim; "
                                                     ".ci/run installs it)")

HERE = Path(__file__).resolve().parent
SHIPPED = HERE.parent / "rulesets" / "chicago_express"


def _at(text: str, needle: str, offset: int = 0) -> dict:
    i = text.index(needle) + offset
    return {"line": text.count("\n", 0, i), "character": i - (text.rfind("\n", 0, i) + 1)}


def test_neovim_sees_diagnostics_hover_definition_and_rename(tmp_path):
    root = tmp_path / "my_express"
    shutil.copytree(SHIPPED, root)
    build = root / "rules" / "build.rules"
    text = build.read_text(encoding="utf-8")
    before = text
    broken = _at(text, "set c.income += income_gain(h)")
    spec = {
        "cmd": [sys.executable, "-m", "railrules", "lsp"], "root": str(root), "file": str(build),
        "out": str(tmp_path / "seen.json"),
        "broken_line": broken["line"], "old": "income_gain%(h%)", "new": "income_gainn(h)",
        "constant": _at(text, "max_build)"),
        "field": _at(text, "trains_left > 0"),
        "def": _at(text, "income_gain(h) ="), "new_name": "track_income",
    }
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    done = subprocess.run([NVIM, "--headless", "--clean", "-n", "-c", f"luafile {HERE / 'nvim' / 'session.lua'}"],
                          env={**os.environ, "RAILRULES_NVIM": str(tmp_path / "spec.json")},
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    seen = json.loads((tmp_path / "seen.json").read_text())
    assert "error" not in seen, (seen, done.stderr)
    assert seen["started"] is True
    # the error typed in, as vim.diagnostic.get() has it
    assert seen["got_diagnostics"] is True
    assert [(d["code"], d["lnum"]) for d in seen["diagnostics"]] == [("RR102", broken["line"])]
    assert "income_gainn" in seen["diagnostics"][0]["message"] and "income_gain" in seen["diagnostics"][0]["message"]
    assert seen["cleared"] is True   # the error mended, its diagnostic gone
    # hover of a constant of components.yaml
    assert "**max_build** (constant, a number) = `3`" in seen["hover"]
    # gd on a field jumps into components.yaml, onto the field
    assert Path(seen["definition_file"]) == root / "components.yaml"
    row, col = seen["definition_cursor"]
    assert seen["definition_line"][col:].startswith("trains_left")
    # the rename reached every use in the buffer; nothing was written
    renamed = "\n".join(seen["renamed"])
    assert "def track_income(h) =" in renamed and renamed.count("track_income(h)") == 3
    assert "income_gain" not in renamed
    assert seen["modified_on_disk"] is False and build.read_text(encoding="utf-8") == before
