"""The interpreter knows no game: no shipped ruleset's name, title, or the proper name of one of
its entities (a company, a city) appears in the code or grammar of interpreter/ or tools/.
Examples there use neutral names; what a game needs lives in its ruleset. (The Markdown
documentation quotes the shipped rulesets on purpose and is not checked.)"""
from __future__ import annotations

import re
from pathlib import Path

from railrules.interpreter import load_ruleset
from railrules.interpreter.paths import shipped_rulesets

ROOT = Path(__file__).resolve().parents[1]
CODE = (".py", ".lark", ".json")
# entity names that are ordinary words of the engine's own vocabulary, not proper names
GENERIC = {"Bank", "Board"}


def _game_words() -> set:
    words = set()
    for name in shipped_rulesets():
        ruleset = load_ruleset(name)
        words |= {name, ruleset.meta.get("title", "")}
        hexes = set(ruleset.kinds.get("hexes", []))
        for eid, rec in ruleset.new_game(ruleset.players_min, 1).state["entities"].items():
            if eid.startswith("p") and eid[1:].isdigit():
                continue  # players: p1, p2...
            shown = rec.get("name")
            if isinstance(shown, str) and len(shown) >= 4 and shown != shown.lower():
                words.add(shown)   # a proper name: "Chicago", "Pennsylvania Railroad"
            if eid not in hexes and re.fullmatch(r"[A-Z][A-Z&]{2,}", eid):
                words.add(eid)     # a company's initials: PRR, B&O
    return words - GENERIC - {""}


def test_no_game_company_or_city_is_named_in_the_interpreter_or_the_tools():
    words = _game_words()
    assert "Chicago" in words and "chicago_express" in words  # the list is not empty by mistake
    pattern = re.compile(r"(?<![\w&])(" + "|".join(map(re.escape, sorted(words, key=len, reverse=True)))
                         + r")(?![\w&])")
    found = []
    for folder in ("interpreter", "tools"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in CODE:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                match = pattern.search(line)
                if match:
                    found.append(f"{path.relative_to(ROOT)}:{number}: {match.group(0)!r} in {line.strip()}")
    assert not found, "\n".join(found)
