"""`railrules new NAME [--from RULESET]`: write a ruleset folder for the user to edit."""
from __future__ import annotations

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


def new_ruleset(target: str, source: str | None = None) -> tuple[Path, list[str]]:
    """Copy a shipped ruleset (or any ruleset folder), or the minimal template, to ``target``
    and name it after the folder. Returns (the folder, notes for the user)."""
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


# ------------------------------------------------------------------ the verb: railrules new
def add_arguments(parser) -> None:
    parser.description = ("Write the folder NAME (a path; its last part becomes the ruleset's name): a "
                          "copy of RULESET with --from, else a minimal working game to start from. "
                          "Never overwrites an existing folder.")
    parser.add_argument("name", help="the folder to create, e.g. my_game or games/my_game")
    parser.add_argument("--from", dest="source", metavar="RULESET",
                        help="start from this ruleset (a shipped name or a folder) instead of the template")


def run(args) -> int:
    import sys
    try:
        folder, notes = new_ruleset(args.name, args.source)
    except UsageError as err:
        print(f"railrules new: {err}", file=sys.stderr)
        return 2
    origin = args.source or "the minimal template (the README's coin race)"
    print(f"wrote {folder}/ from {origin}")
    for note in notes:
        print(f"note: {note}")
    print(f"next: railrules lint {folder} && railrules test {folder} && railrules play {folder}")
    return 0
