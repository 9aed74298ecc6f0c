"""Your own bot on the command line: ``--bots package.module:Class[:name=value...]``
in play, simulate, compare, bench and coverage; the protocol (made with a seed and options,
shown the seat's view and the legal actions only) and its refusals (RR401), before any game."""
from __future__ import annotations

import json
import random

import pytest

from railrules.interpreter import load_ruleset
from railrules.interpreter.errors import RailrulesError
from railrules.interpreter.paths import rulesets_dir
from railrules.tools.bots.players import BotSpecError, UsersBot, make_bot, seat_bots
from railrules.tools.cli import main

EXAMPLE = "railrules.tools.agents.example_bot:ThriftyBot"
COIN_RACE = str(rulesets_dir() / "templates" / "coin_race")

# a module of the user's, written into the working folder of each test that needs it
MODULE = '''
import random

class Watcher:
    """Records what it was shown; takes the last legal action or a random one."""
    settings = {"last": True}
    shown = []

    def __init__(self, seed, last=True):
        self.rng, self.last = random.Random(seed), last

    def choose(self, view, legal):
        Watcher.shown.append((view, legal))
        return legal[-1] if self.last else self.rng.choice(legal)

class Loose:
    """No settings declared: its options come as strings."""
    def __init__(self, seed, **options):
        self.seed, self.options = seed, options

    def choose(self, view, legal):
        return legal[0]

class Cheat:
    def __init__(self, seed):
        pass

    def choose(self, view, legal):
        return "win the game"

class Crashes:
    def __init__(self, seed):
        pass

    def choose(self, view, legal):
        raise ZeroDivisionError("oops")

class Exits:
    def __init__(self, seed):
        pass

    def choose(self, view, legal):
        raise SystemExit(7)


class Stop(BaseException):
    """An exception of the user's own outside Exception (as KeyboardInterrupt is)."""

class Stops:
    def __init__(self, seed):
        pass

    def choose(self, view, legal):
        raise Stop("no more")


class NoChoose:
    def __init__(self, seed):
        pass

class NoSeed:
    def __init__(self):
        pass

    def choose(self, view, legal):
        return legal[0]

class Static:
    """choose may be a static method."""
    def __init__(self, seed):
        pass

    @staticmethod
    def choose(view, legal):
        return legal[0]

class OneArgument:
    def __init__(self, seed):
        pass

    def choose(self, view):
        return None

not_a_class = 3
'''


@pytest.fixture
def users(tmp_path, monkeypatch):
    """The user's module ``mybots`` in the working folder (imported from there, as `python -m` would)."""
    (tmp_path / "mybots.py").write_text(MODULE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield __import__("mybots")
    import sys
    sys.modules.pop("mybots", None)


def test_the_users_bot_is_shown_the_view_and_the_legal_actions_only(users):
    bot = make_bot("mybots:Watcher", 3)
    assert isinstance(bot, UsersBot)
    game = load_ruleset("chicago_express").new_game(3, 4)
    for _ in range(30):
        action = bot.choose(game)
        view, legal = users.Watcher.shown[-1]
        assert view == game.view(game.current_player) and view["turn"] == game.current_player
        assert legal == game.legal_actions() and action == legal[-1]
        game.apply(action)


def test_a_static_choose_follows_the_protocol(users):
    game = load_ruleset(COIN_RACE).new_game(2, 1)
    assert make_bot("mybots:Static", 1).choose(game) == game.legal_actions()[0]


def test_settings_are_converted_and_undeclared_options_come_as_strings(users):
    assert make_bot("mybots:Watcher:last=", 1).bot.last is False      # bool("") as for the built-ins
    loose = make_bot("mybots:Loose:depth=3:name=x", 7).bot
    assert loose.seed == 7 and loose.options == {"depth": "3", "name": "x"}


def test_same_seed_same_choices():
    def play(seed):
        game = load_ruleset("chicago_express").new_game(3, 2)
        bots = seat_bots(f"{EXAMPLE}:whim=0.5", game.players, seed)
        for _ in range(40):
            game.apply(bots[game.current_player].choose(game))
        return game.log()["actions"]
    assert play(5) == play(5)


@pytest.mark.parametrize("spec, why", [
    ("nosuchmodule:Bot", "cannot import nosuchmodule: ModuleNotFoundError"),
    ("mybots:Missing", "mybots has no class Missing"),
    ("mybots:not_a_class", "mybots has no class not_a_class"),
    ("mybots:NoChoose", "no method choose(self, view, legal)"),
    ("mybots:OneArgument", "no method choose(self, view, legal)"),
    ("mybots:NoSeed", "NoSeed(seed, ) failed: TypeError"),
    ("mybots:Watcher:speed=3", "has no setting 'speed=3' (its settings: last=True)"),
    ("mybots:Loose:3", "'3' is not name=value"),
])
def test_a_bot_that_cannot_be_used_is_refused_with_rr401(users, spec, why):
    with pytest.raises(BotSpecError) as err:
        make_bot(spec, 1)
    assert str(err.value).startswith(f"RR401 bot {spec.split(':')[0]}:") and why in str(err.value)


def test_refused_on_the_command_line_before_any_game(users, capsys):
    with pytest.raises(SystemExit) as out:
        main(["simulate", COIN_RACE, "--games", "3", "--bots", "mybots:NoChoose"])
    assert out.value.code == 2
    captured = capsys.readouterr()
    assert "RR401" in captured.err and "choose(self, view, legal)" in captured.err and not captured.out


@pytest.mark.parametrize("cls, message", [("Cheat", "which is not one of the"), ("Crashes", "ZeroDivisionError: oops"),
                                          ("Exits", "SystemExit: 7")])
def test_a_bot_that_breaks_the_protocol_in_a_game_stops_it_with_rr401(users, cls, message):
    game = load_ruleset(COIN_RACE).new_game(2, 1)
    bot = make_bot(f"mybots:{cls}", 1)
    with pytest.raises(RailrulesError) as err:
        bot.choose(game)
    assert err.value.diagnostics[0].code == "RR401" and message in str(err.value)


@pytest.mark.parametrize("cls, said", [("Exits", "SystemExit: 7"), ("Stops", "Stop: no more")])
@pytest.mark.parametrize("verb", ["simulate", "compare", "tournament"])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_bot_that_exits_ends_its_games_with_words_and_the_run_fails(users, capsys, cls, said, verb, jobs):
    """A SystemExit of the user's bot ended a run silently with its code; another exception
    outside Exception was a traceback (one process) or a stop by Ctrl-C, exit 130 (--jobs 2).
    Each of its games ends with RR401 naming the bot and the game's seed; the run fails (exit 1)."""
    argv = [verb, COIN_RACE, "--games", "2", "--players", "2", "--jobs", jobs]
    argv += ["--bots", f"mybots:{cls},random"] if verb == "tournament" else ["--bots", f"mybots:{cls}"]
    assert main(argv) == 1
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "stopped early" not in out + err
    for seed in (1, 2):
        assert f"seed {seed}" in out and f"RR401 bot mybots:{cls} failed in choose: {said}" in out


def test_simulate_with_jobs_gives_the_same_figures(users, capsys):
    """Worker processes import the user's module too."""
    figures = []
    for jobs in ("1", "2"):
        assert main(["simulate", COIN_RACE, "--games", "6", "--players", "2", "--json", "--jobs", jobs,
                     "--bots", "mybots:Watcher:last=,random"]) == 0
        r = json.loads(capsys.readouterr().out)
        figures.append((r["wins_by_seat"], r["decisions_mean"], r["finished"]))
    assert figures[0] == figures[1] and figures[0][2] == 6


@pytest.mark.parametrize("argv", [
    ["play", COIN_RACE, "--seed", "3", "--players", "2", "--bots", EXAMPLE],
    ["compare", COIN_RACE, "--games", "2", "--players", "2", "--json", "--bots", f"{EXAMPLE},random"],
    ["coverage", COIN_RACE, "--games", "2", "--players", "2", "--json", "--bots", EXAMPLE],
    ["bench", COIN_RACE, "--games", "2", "--players", "2", "--lint-runs", "1", "--json", "--bots", EXAMPLE],
])
def test_every_verb_that_plays_bots_takes_a_users_bot(argv, capsys):
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out and (argv[0] == "play" or "ThriftyBot" in out)


def test_the_example_bot_spends_least():
    game = load_ruleset("chicago_express").new_game(3, 1)
    bot = make_bot(EXAMPLE, 1)
    rng = random.Random(1)
    for _ in range(60):
        legal = game.legal_actions()
        chosen = bot.choose(game)

        def cost(a):
            return sum(x for x in a.args if isinstance(x, int) and not isinstance(x, bool))
        assert cost(chosen) == min(cost(a) for a in legal)
        game.apply(rng.choice(legal))


def test_the_readmes_example_bot_runs(tmp_path, monkeypatch, capsys):
    from pathlib import Path
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    code = readme.split("**Your own bot.**", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    (tmp_path / "mybot.py").write_text(code, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert main(["simulate", COIN_RACE, "--games", "3", "--players", "2", "--json",
                     "--bots", "mybot:Thrifty:whim=0.2,random"]) == 0
    finally:
        import sys
        sys.modules.pop("mybot", None)
    assert json.loads(capsys.readouterr().out)["finished"] == 3
