"""Every module has one import name: ``railrules.…``. The checkout is not put on ``sys.path`` by
the tests, so ``interpreter`` or ``tools`` imported as top-level packages (a second copy of every
module, with classes that are not the same classes) would fail here rather than pass by chance."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_no_module_of_the_package_is_loaded_under_a_second_name():
    import railrules.tools.cli  # noqa: F401 - the command and everything it imports at start
    doubles = sorted(m for m in sys.modules if m.split(".")[0] in ("interpreter", "tools", "rulesets"))
    assert doubles == []


def test_the_package_imports_from_outside_the_checkout(tmp_path):
    """From another folder (the checkout not on sys.path), the installed name is the one."""
    code = ("import sys, railrules.interpreter, railrules.tools.generated; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('interpreter', 'tools')))")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
