"""Refusals and prompts in the game's words: over seeded games of every shipped ruleset, every
text a player reads about a decision — what is in progress, each legal action's line and what
its values are, the refusal of each value outside its domain and of each click on a hex no
option takes, and the end — is counted when it shows an internal name of the rules: a
parameter or a local by its name ('x', 'h', `sold_now yes`), or a field, variable, local or end
condition written in snake case. The goal, and what this test holds, is none.

The language's own pieces are tested too: a parameter's ``as`` text in the refusal, an end
condition's ``as`` text at the end, a unit's ``show`` lines in place of its raw locals, and lint
of all three."""
from __future__ import annotations

import random
import re

import pytest

from railrules.interpreter import IllegalAction, load_ruleset
from railrules.interpreter.paths import shipped_rulesets
from railrules.tools.common import words
from railrules.tools.play.summary import standings
from railrules.tools.play.table import Table, explain, paused_in
from railrules.tools.play.terminal import option_lines

DECISIONS = 150   # of each seeded game: every decision's texts are read, so games are cut short
SEEDS = (1, 2)
_SNAKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")


def _internal_names(ruleset) -> tuple[set, set]:
    """(every parameter and local of the rules' units, every snake_case name a player should not
    read: fields, variables, locals, parameters and end conditions — option names excepted:
    they are the labels)."""
    program = ruleset.program
    params = {v for code in program.codes.values() for i in code.instrs if hasattr(i, "options")
              for s in i.options for v in s.names}
    params |= {v for s in program.actions.values() for v in s.names}
    locals_ = {v for code in program.codes.values() for v in code.params} | params
    fields = {f for rec in ruleset.entities.values() for f in rec} | set(ruleset.names.variables)
    options = {s.name for code in program.codes.values() for i in code.instrs if hasattr(i, "options")
               for s in i.options} | set(program.actions)
    snake = {x for x in fields | locals_ | ruleset.names.ends if "_" in x} - options
    return locals_, snake


def shows_internal(text: str, locals_: set, snake: set, frame: dict | None = None) -> str:
    """The internal name ``text`` shows, or '': a parameter or local quoted, a local of the
    paused rule listed raw with its value (``frame``: each local's value as shown), or a
    snake_case name of the rules."""
    for quoted in re.findall(r"'([A-Za-z_]\w*)'", text):
        if quoted in locals_:
            return quoted
    for part in text.split("; "):
        part = part.split("): ", 1)[-1]
        for name, value in (frame or {}).items():
            if part in (name, f"{name} {value}"):
                return name
    return next((w for w in _SNAKE.findall(text) if w in snake), "")


def _refusals(game, table) -> list[str]:
    """The refusal of a value outside each offered option's domain, and of a click on each of a
    few hexes no legal action names."""
    out, legal = [], game.legal_actions()
    board = game.ruleset.board
    hexes = list(board.adj) if board is not None else []
    for a in {a.name: a for a in legal if a.args}.values():
        for k, value in enumerate(a.args):
            stray = -1 if isinstance(value, int) else next(
                (h for h in hexes if all(b.args[k:k + 1] != (h,) for b in legal if b.name == a.name)), "ZZ99")
            args = list(a.args)
            args[k] = stray
            out.append(explain(game, " ".join([a.name, *map(str, args)])))
    named = {x for a in legal for x in a.args}
    for h in [h for h in hexes if h not in named][:3]:
        out.append(table._why_hex(h))
    return out


def _texts_of_games(name: str):
    """(text, the locals of the rule paused when it was read) for every text of the seeded games."""
    ruleset = load_ruleset(name)
    for seed in SEEDS:
        game = ruleset.new_game(ruleset.players_min, seed)
        table = Table(game, list(game.players), "random", seed)
        rng = random.Random(seed)
        while not game.is_over and game.decisions < DECISIONS:
            frame = {k: game.machine.show(v) for k, v in game.state["stack"][-1]["L"].items()} \
                if game.state["stack"] else {}
            legal = game.legal_actions()
            texts = [paused_in(game), *(line for line, _ in option_lines(game, legal)),
                     *(words.described(game, a) for a in legal), *_refusals(game, table)]
            yield from ((t, frame) for t in texts)
            game.apply(rng.choice(legal))
        if game.is_over:
            yield standings(game), {}


@pytest.mark.slow
@pytest.mark.parametrize("name", shipped_rulesets())
def test_no_text_a_player_reads_shows_an_internal_name(name):
    ruleset = load_ruleset(name)
    locals_, snake = _internal_names(ruleset)
    counted, found = 0, []
    for text, frame in _texts_of_games(name):
        counted += 1
        shown = shows_internal(text, locals_, snake, frame)
        if shown:
            found.append((shown, text))
    assert counted > 1000
    assert not found, f"{len(found)} of {counted} texts show an internal name, e.g. {found[:5]}"


def test_the_detector_finds_what_the_texts_showed_before():
    locals_, snake = {"x", "h", "p", "sold_now", "go_on"}, {"sold_now", "go_on", "can_sell"}
    assert shows_internal("3 is not one of the choices for 'x' (from 7 to 40)", locals_, snake)
    assert shows_internal("in market_turn (rules/market.rules:3): sold_now; can_sell no", locals_, snake)
    assert shows_internal("in build_network (library/network.rules:22): p Player 1", locals_, snake,
                          {"p": "Player 1"})
    assert not shows_internal("in english_auction (library/auction.rules:11): high bid 8 by Player 2",
                              locals_, snake, {"p": "Player 1", "high": "Player 2"})


# ------------------------------------------------------------------ the language's pieces
GAME = """
end_condition rich as "{winner_name()} has {limit} or more": exists q in players where q.cash >= limit
end_condition plain: houses < 0

def winner_name() = max_by(players, q => q.cash)
score p = p.cash

procedure bids(p):
    cite "a test"
    show "the pot holds {pot}"
    show none
    let pot = 3
    choose by p:
        option bid(x in range(1, 5) as "an amount {p} may bid, at most 4"):
            require x < 4 else "{x} is too much"
            pay x from bank to p
        option take(h in hexes):
            pass
    check_end

game:
    cite "a test"
    each p in turn:
        call bids(p)
"""


@pytest.fixture()
def tiny(tmp_path):
    (tmp_path / "ruleset.yaml").write_text(
        "name: tiny\ntitle: Tiny\nplayers: {min: 2, max: 2}\nrules: [rules.rules]\n"
        "components: components.yaml\nboard: board.yaml\n")
    (tmp_path / "components.yaml").write_text(
        "constants: {limit: 4}\nvariables: {houses: 1}\nplayer: {cash: 0}\n"
        "kinds:\n  banks:\n    entities:\n      bank: {name: Bank, cash: 0, unlimited: true}\n")
    (tmp_path / "board.yaml").write_text("hexes:\n  A1: {}\n  A2: {}\n")
    (tmp_path / "rules.rules").write_text(GAME)
    return load_ruleset(str(tmp_path))


def test_a_value_outside_the_domain_is_refused_in_the_parameters_words(tiny):
    game = tiny.new_game(2, 1)
    with pytest.raises(IllegalAction) as err:
        game.apply("bid 9")
    assert err.value.diagnostics[0].message.endswith(
        "'bid 9': 9 is not one of the choices for an amount Player 1 may bid, at most 4 (from 1 to 4)")
    assert words.described(game, game.legal_actions()[0]) == "1 is an amount Player 1 may bid, at most 4"
    with pytest.raises(IllegalAction) as err:   # a parameter with no `as` text is named as before
        game.apply("take ZZ")
    assert "one of the choices for 'h'" in err.value.diagnostics[0].message


def test_a_rule_with_show_lines_shows_them_instead_of_its_locals(tiny):
    game = tiny.new_game(2, 1)
    assert paused_in(game).endswith("rules.rules:8): the pot holds 3")   # `show none` says nothing


def test_the_end_says_why_in_the_end_conditions_words_and_who_won(tiny):
    game = tiny.new_game(2, 1)
    game.apply("bid 3")
    game.apply("bid 2")
    game.apply("bid 2")
    assert game.is_over
    text = standings(game)
    assert text.splitlines()[0] == "Player 1 has 4 or more: the game ends (after 3 decisions)"
    assert text.splitlines()[1] == "Player 1 wins with 5"
    assert words.example(game) == "pass"   # nothing is legal once the game is over


def test_the_words_are_linted(tiny):
    from railrules.interpreter import check_ruleset
    bad = GAME.replace('as "an amount {p} may bid, at most 4"', 'as "an amount {q} may bid"') \
        .replace('show "the pot holds {pot}"', 'show "the pot holds {pott}"') \
        .replace('as "{winner_name()} has', 'as "{winer_name()} has')
    (tiny.root / "rules.rules").write_text(bad)
    _, found = check_ruleset(str(tiny.root))
    undefined = {d.message for d in found if d.code in ("RR102", "RR106")}
    assert any("'q'" in m for m in undefined) and any("'pott'" in m for m in undefined)
    assert any("winer_name" in m for m in undefined), undefined


def test_as_and_show_are_words_only_where_they_are_written(tiny):
    from railrules.interpreter.dsl.parser import parse_rules
    from railrules.interpreter.errors import Sink
    sink = Sink()
    parse_rules("procedure f(as, show):\n    cite \"x\"\n    let as2 = as + show\n", "t.rules", sink)
    assert not sink.errors


@pytest.mark.parametrize("name", shipped_rulesets())
def test_every_end_condition_of_a_shipped_game_says_what_happened(name):
    ruleset = load_ruleset(name)
    for variant in [None, *ruleset.variants()]:
        program = load_ruleset(name, variant).program
        ends = [end for end, _ in program.end_conditions]
        assert ends and not set(ends) - set(program.end_words), (variant, set(ends) - set(program.end_words))


def test_the_page_gets_an_example_of_the_games_own_and_each_options_words():
    ruleset = load_ruleset("chicago_express")
    game = ruleset.new_game(3, 1)
    table = Table(game, list(game.players), "random", 1)
    state = table.state(None)
    assert state["example"] == "bid 7" and state["example"] in [o["label"] for o in state["options"]]
    bids = [o for o in state["options"] if o["name"] == "bid"]
    assert bids[0]["about"] == "7 is the amount Player 1 bids"
    assert [o["about"] for o in state["options"] if o["name"] == "pass"] == [""]
    assert "high" not in state["paused"] and "no bid yet: the least bid is 7" in state["paused"]
    seat_page = table.state("p2")    # not this seat's turn: no example of another seat's options
    assert seat_page["example"] == "" and seat_page["options"] == []


def test_the_terminal_help_and_why_give_a_label_of_the_game_at_hand():
    from railrules.tools.play.terminal import help_text
    ruleset = load_ruleset("baltimore_ohio")
    game = ruleset.new_game(3, 1)
    label = words.example(game)
    assert label in [a.label for a in game.legal_actions()]
    assert f"(e.g. '{label}';" in help_text(game) and "bid 8" not in help_text(game)
    assert explain(game, "").endswith(f"e.g. why {label})")


def test_a_secret_that_reaches_a_show_line_or_a_description_is_refused_where_it_arrives(tiny):
    from railrules.interpreter import check_ruleset
    root = tiny.root
    (root / "ruleset.yaml").write_text((root / "ruleset.yaml").read_text() + "secret: {players: [cash]}\n")
    leaky = GAME.replace('show "the pot holds {pot}"', 'show "{p} holds {p.cash}"') \
        .replace('as "an amount {p} may bid, at most 4"', 'as "at most {p.cash}"') \
        .replace('option take(h in hexes):', 'option take(h in hexes as "a hex; the others hold {[q.cash for q in players]}"):')
    (root / "rules.rules").write_text(leaky.replace('as "{winner_name()} has {limit} or more"', ""))
    _, found = check_ruleset(str(root))
    leaks = [(d.pos.line, d.message) for d in found if d.code == "RR116"]
    lines = leaky.splitlines()
    show_line = next(i for i, t in enumerate(lines, 1) if "show \"{p} holds" in t)
    take_line = next(i for i, t in enumerate(lines, 1) if "option take(" in t)
    assert any(line == show_line and "show line" in m for line, m in leaks), leaks
    assert any(line == take_line and "description" in m for line, m in leaks), leaks
    assert not any("at most" in lines[line - 1] and "description" in m for line, m in leaks)   # the chooser's own
