"""`railrules new NAME [--from RULESET [--copy]]`: write a ruleset folder for the user to edit:
the minimal template, an overlay of RULESET (a few lines naming it as its base), or a copy."""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from railrules.interpreter.data.ruleset import resolve_ruleset_path
from railrules.interpreter.paths import rulesets_dir, shipped_rulesets

NAME = re.compile(r"^[a-z][a-z0-9_]*$")        # as schemas/ruleset.schema.json asks of `name:`
TEMPLATE = "coin_race"


class UsageError(Exception):
    """A request `new` refuses before writing anything (the CLI exits 2)."""


def templates_dir() -> Path:
    return rulesets_dir() / "templates"


def new_ruleset(target: str, source: str | None = None, copy: bool = False) -> tuple[Path, list[str]]:
    """Write an overlay of a shipped ruleset (or of any ruleset folder), or with ``copy`` a copy
    of it, or the minimal template, to ``target``, named after the folder. Returns (the folder,
    notes for the user)."""
    dest = Path(target).expanduser()
    name = dest.name
    if not NAME.match(name):
        fixed = re.sub(r"[^a-z0-9_]", "_", name.lower()).lstrip("0123456789_") or "my_game"
        raise UsageError(f"'{name}' cannot name a ruleset: use lower-case letters, digits and '_', "
                         f"starting with a letter (for example '{fixed}')")
    if name in shipped_rulesets() and "/" not in target and "\\" not in target:
        raise UsageError(f"'{name}' is the name of a shipped ruleset: a folder of that name here would "
                         f"be taken for it by play, list and lint. Choose another name (for example "
                         f"'my_{name}'), or give it as a path (./{name}) if that is what you want")
    if dest.exists():
        raise UsageError(f"'{dest}' already exists; railrules new never overwrites: choose another "
                         "name, or remove it first")
    origin = templates_dir() / TEMPLATE if source is None else resolve_ruleset_path(source)
    if origin is None:
        raise UsageError(f"no ruleset '{source}' to start from (shipped: "
                         f"{', '.join(shipped_rulesets())}; or give a folder with ruleset.yaml)")
    dest.parent.mkdir(parents=True, exist_ok=True)
    if source is not None and not copy:
        return _overlay(dest, origin), []
    shutil.copytree(origin, dest, ignore=shutil.ignore_patterns(".*", "__pycache__", "*.pyc"))
    meta = dest / "ruleset.yaml"
    text = meta.read_text(encoding="utf-8")
    renamed, count = re.subn(r"(?m)^name:[ \t]*\S.*$", f"name: {name}", text, count=1)
    meta.write_text(renamed if count else f"name: {name}\n{text}", encoding="utf-8")
    notes = []
    if any(line.strip().startswith("- library/") or "library/" in line
           for line in renamed.splitlines() if not line.lstrip().startswith("#")):
        notes.append("its rules: list names files of the shared library (library/...): they stay "
                     f"in {rulesets_dir() / 'library'}; copy one into the folder and list it "
                     "there to change it")
    if (rulesets_dir() / name / "ruleset.yaml").is_file():
        notes.append(f"'{name}' is also a shipped ruleset: in the folder that holds your copy, "
                     f"'{name}' means the copy (a path always wins); elsewhere give its path")
    return dest, notes


_OVERLAY = """\
# {name}: {base} with what this folder changes; nothing of {base} is copied, so a fix
# in it reaches this ruleset, and `railrules test` runs {base}'s scenarios on it too.
# Change values (constants:, variables:, entities:), add new ones (add:), and write rules in
# {name}.rules that replace, add or extend {base}'s (LANGUAGE.md, section 11: variants).
name: {name}
extends: {extends}
description: "{base}, with my changes"
rules:
  - {name}.rules
"""

_RULES = """\
# {name}: rules laid over {base}'s. A definition with the name of one of {base}'s replaces
# it; one with a new name is added. Without copying, you can also write:
#
#   before PROCEDURE(a, b):            rules run before one of {base}'s procedures
#   after PROCEDURE(a, b):             rules run after it
#   option NAME(x in D) after OTHER in PROCEDURE:   an option added to the choose offering OTHER
#   end_condition NAME or: EXPR        a clause joined to one of {base}'s end conditions
"""


def _overlay(dest: Path, origin: Path) -> Path:
    """A ruleset folder that extends ``origin``: its ruleset.yaml and an empty rules file."""
    shipped = origin.parent.resolve() == rulesets_dir().resolve()
    extends = origin.name if shipped else Path(os.path.relpath(origin, dest.resolve())).as_posix()
    values = {"name": dest.name, "base": origin.name, "extends": extends}
    dest.mkdir()
    (dest / "ruleset.yaml").write_text(_OVERLAY.format(**values), encoding="utf-8")
    (dest / f"{dest.name}.rules").write_text(_RULES.format(**values), encoding="utf-8")
    return dest


# ------------------------------------------------------------------ the verb: railrules new
def add_arguments(parser) -> None:
    parser.description = ("Write the folder NAME (a path; its last part becomes the ruleset's name): "
                          "with --from, an overlay of RULESET (a ruleset.yaml that extends it and an "
                          "empty rules file: nothing copied, so fixes in RULESET reach it), or with "
                          "--copy a copy of it; else a minimal working game to start from. Never "
                          "overwrites an existing folder.")
    parser.add_argument("name", help="the folder to create, e.g. my_game or games/my_game")
    parser.add_argument("--from", dest="source", metavar="RULESET",
                        help="start from this ruleset (a shipped name or a folder) instead of the template")
    parser.add_argument("--copy", action="store_true",
                        help="with --from: copy the ruleset's files instead of writing an overlay of it")


def run(args) -> int:
    import sys
    try:
        folder, notes = new_ruleset(args.name, args.source, args.copy)
    except UsageError as err:
        print(f"railrules new: {err}", file=sys.stderr)
        return 2
    origin = args.source or "the minimal template (the README's coin race)"
    made = "a copy of" if args.copy else "an overlay of" if args.source else "from"
    print(f"wrote {folder}/ {made} {origin}")
    for note in notes:
        print(f"note: {note}")
    print(f"next: railrules lint {folder} && railrules test {folder} && railrules play {folder}")
    return 0
