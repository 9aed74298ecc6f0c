"""A unit's block that goes on to the next block at its end falls into it (compile/units.py):
no ``continue`` round the loop to pick it by ``pc`` again; a unit whose blocks all go on so
has no loop at all, and plays as before, paused and resumed at each choice."""
from __future__ import annotations

from railrules.interpreter import load_ruleset
from railrules.tools.author.generated import generated
from test_language import write_ruleset

COMPONENTS = """\
variables:
  counter: 0
player:
  cash: 5
"""

RULES = """\
procedure ask(p):
    choose by p:
        option yes:
            set counter += 1
        option no:
            pass

game:
    let p = players[0]
    call ask(p)
    set counter += 10
    call ask(p)
    end_game "done"

score p = counter
"""


def test_blocks_that_go_on_fall_into_the_next(tmp_path):
    folder = str(write_ruleset(tmp_path, RULES, COMPONENTS))
    [unit] = [s for _, s in generated(folder, "game") if s.startswith("# unit game\n")]
    assert "continue" not in unit and "while True" not in unit
    game = load_ruleset(folder).new_game(1, 1)
    for label in ("yes", "no"):
        [action] = [a for a in game.legal_actions() if a.label == label]
        game.apply(action)
    assert game.is_over and game.state["globals"]["counter"] == 11
