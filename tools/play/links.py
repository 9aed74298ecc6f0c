"""The links file: a browser table's secret tokens kept beside its save, so that a restart of the
same save (`railrules serve --resume NAME.save.json`, or a lobby's restart) hands out the same
links as before, and the links already sent to friends keep working.

``NAME.links.json`` beside ``NAME.save.json`` (``FILE.links.json`` beside a save of another
name) holds the token of the table's page and of each seat's, the seats people play and the
bots. It is kept beside the save, not in it: a save is handed around (downloaded from the page,
sent with a question, continued by `railrules play`), and whoever holds a token plays that
seat. The links file stays with the host: written readable by its owner only (as every file
railrules writes, :mod:`..common.outputs`: mode 0600 where the system has modes), and no token
is written in a save, a log or any page but the table's own.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from railrules.tools.common import outputs

FORMAT = "railrules-links-1"
_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,128}")


def links_path(save: Path) -> Path:
    """The links file of the table saved at ``save``."""
    name = Path(save).name
    stem = name[:-len(".save.json")] if name.endswith(".save.json") else name
    return Path(save).with_name(stem + ".links.json")


def read_links(save: Path) -> tuple[dict | None, str]:
    """What the links file beside ``save`` keeps, ``{"host": TOKEN, "seats": {seat: TOKEN},
    "people": [seat...], "bots": SPECS}``, and ''; or None and why there is none to use (the
    table gets new links)."""
    path = links_path(save)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, f"{save} has no links file ({path.name}): new links, kept there from now on"
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as err:
        return None, f"cannot read the links file {path}: {getattr(err, 'strerror', None) or err}: new links"
    why = _misfit(data)
    if why:
        return None, f"{path} is not a links file ({why}): new links"
    return {k: data[k] for k in ("host", "seats", "people", "bots")}, ""


def _misfit(data) -> str:
    """What is wrong with a links file's content ('' when nothing)."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return f"its format is not {FORMAT}"
    seats, people = data.get("seats"), data.get("people")
    tokens = [data.get("host"), *(seats.values() if isinstance(seats, dict) else [None])]
    if not all(isinstance(t, str) and _TOKEN.fullmatch(t) for t in tokens):
        return "a token is not 16 to 128 letters, digits, - or _"
    if not (isinstance(people, list) and all(isinstance(p, str) for p in people)):
        return "people must be a list of seats"
    if not isinstance(data.get("bots"), str):
        return "bots must be text"
    return ""


def write_links(table, save: Path) -> str:
    """Keep ``table``'s tokens, people and bots beside ``save``; '' or why they are not kept."""
    text = json.dumps({"format": FORMAT, "save": Path(save).name, "host": table.host, "seats": table.tokens,
                       "people": table.humans, "bots": table.specs}, indent=1)
    try:
        outputs.write(links_path(save), text)
    except outputs.OutputError as err:
        return f"the links are not kept ({err}): a restart will give new links"
    return ""


__all__ = ["FORMAT", "links_path", "read_links", "write_links"]
