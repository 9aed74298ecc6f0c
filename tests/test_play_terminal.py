"""`railrules play` in a real terminal, as a person plays it (pexpect): choose, ask why an action
is refused, take a decision back, look at the map, and read what the screen shows."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")
ROOT = Path(__file__).resolve().parents[1]


def test_a_person_plays_asks_why_undoes_and_looks_at_the_map(tmp_path):
    child = pexpect.spawn(sys.executable, ["-m", "railrules", "play", "chicago_express", "--players", "3",
                                           "--seed", "2", "--save", str(tmp_path / "g.save.json")],
                          cwd=str(ROOT), encoding="utf-8", timeout=60, dimensions=(50, 120))
    # the auction in progress: the rule waiting for the choice, its bid and who is still in
    child.expect(r"in english_auction \(library/auction\.rules:\d+\): .*no bid yet: the least bid is \d+; "
                 r"in turn Player 1, Player 2, Player 3")
    child.expect(r"Your choice \(Player 1\):")
    child.expect("> ")
    child.sendline("why bid 999")
    child.expect(r"'bid 999' is not allowed: .* \(library/auction\.rules:\d+\)")
    child.expect("> ")
    child.sendline("bid 7")
    child.expect("Player 1 bids 7")
    child.expect(r"Player 2: (bid \d+|pass)")
    child.expect(r"in english_auction .*high bid \d+ by Player [23]")
    child.expect("> ")
    child.sendline("undo")
    child.expect(r"took back \d+ decision\(s\): your turn again")
    child.expect(r"players:\s+Player 1\s+cash=40")   # the whole state again, as before the bid
    child.expect("> ")
    child.sendline("undo")
    child.expect("nothing to undo")
    child.expect("> ")
    child.sendline("map")
    child.expect(r"\s+A\s+B\s+C")                       # the column letters (hex ids) of the map
    child.expect(r"marks: (\x1b\[[\d;]*m)*\w [^\r\n]*PRR")   # the legend, each in its colour
    child.expect("> ")
    child.sendline("pass")
    child.expect(r"Player 2: ")
    child.expect("> ")
    child.sendline("quit")
    child.expect("saved to")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and (tmp_path / "g.save.json").is_file()
