"""Checks every ruleset's property tests share: how a finished game's result must look, and
that its log replays byte for byte. Each returns a list of failure lines (empty: all good)."""
from __future__ import annotations

from dataclasses import dataclass, field

MAX_REPORTED = 10


@dataclass
class Run:
    """One seeded game as a property test records it; each game's tests add their own fields."""
    players: int
    seed: int
    game: object                          # the Game, played to its end
    start_json: str                       # the state right after new_game
    conserve_start: dict                  # name -> value right after new_game
    actions: list = field(default_factory=list)    # JSON form of every applied action
    # (index, state JSON before actions[index], JSON of the legal actions at that point)
    snapshots: list = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.players} players, seed {self.seed}"

    @classmethod
    def start(cls, ruleset, players: int, seed: int) -> "Run":
        game = ruleset.new_game(players=players, seed=seed)
        return cls(players, seed, game, game.to_json(), conserved(ruleset, game))

    def offer_snapshot(self, i: int, legal: list, keep: int, pick) -> None:
        """Keep decision point ``i`` (the game as it is now) with the chance that leaves ``keep``
        of them chosen uniformly over the whole game (reservoir sampling; ``pick`` is the
        sampling's own seeded generator, so the actions chosen do not depend on it)."""
        slot = i if i < keep else pick.randrange(i + 1)
        if slot < keep:
            item = (i, self.game.to_json(), [a.to_json() for a in legal])
            if len(self.snapshots) < keep:
                self.snapshots.append(item)
            else:
                self.snapshots[slot] = item


def conserved(ruleset, game) -> dict:
    """Every quantity the ruleset's components.yaml declares under `conserve`."""
    return {name: fn(game.machine, {}) for name, fn in ruleset.conserve}


def report(failures: list) -> str:
    more = f"\n... and {len(failures) - MAX_REPORTED} more" if len(failures) > MAX_REPORTED else ""
    return "\n".join(failures[:MAX_REPORTED]) + more


def result_problems(name: str, game, end_reasons: set | None = None) -> list:
    """Over, scored by cash (every shipped game), the richest win (ties share), a known
    reason, and no action offered any more."""
    if not game.is_over:
        return [f"{name}: not over after {game.decisions} decisions"]
    out = []
    result = game.result
    cash = {p: game.state["entities"][p]["cash"] for p in game.players}
    if result["scores"] != cash:
        out.append(f"{name}: scores {result['scores']} are not the players' cash {cash}")
    best = max(cash.values())
    if result["winners"] != [p for p in game.players if cash[p] == best]:
        out.append(f"{name}: winners {result['winners']}, cash {cash} (the richest win, ties share)")
    if not result["reasons"] or (end_reasons and not set(result["reasons"]) <= end_reasons):
        out.append(f"{name}: end reasons {result['reasons']}")
    if game.legal_actions() or game.current_player is not None:
        out.append(f"{name}: a finished game still offers actions")
    return out


def replay_problems(ruleset, name: str, game, start_json: str, actions: list) -> list:
    """The game's log names it, holds its actions and final digest, and replays exactly."""
    final = game.to_json()
    log = game.log()
    out = []
    if (log["ruleset"], log["players"], log["seed"]) != (ruleset.name, game.state["players"],
                                                        game.state["seed"]):
        out.append(f"{name}: the log names {log['ruleset']} {log['players']} {log['seed']}")
    if log["actions"] != actions:
        out.append(f"{name}: the log's actions are not the ones played")
    # the digest is of the state in memory (unchanged since the first state format, so that old
    # logs still check), not of the save's text: the saved final state, loaded, has it
    from railrules.interpreter import Game
    if log["final_state_sha256"] != Game.from_json(ruleset, final).digest():
        out.append(f"{name}: the log's final digest is not the state's")
    again = ruleset.new_game(players=log["players"], seed=log["seed"])
    if again.to_json() != start_json:
        return out + [f"{name}: a new game with the same seed starts differently"]
    for action in log["actions"]:
        again.apply(action)
    if again.to_json() != final or again.digest() != log["final_state_sha256"]:
        out.append(f"{name}: the replayed state differs")
    return out


def round_trip_problems(ruleset, name: str, game, snapshots: list, actions: list,
                        play_on: str = "all") -> list:
    """Each snapshot (decision index, state JSON, legal actions as JSON) loads losslessly with
    the same legal actions; played on with the recorded actions (every snapshot, or only the
    last with ``play_on="last"``), it ends in the game's final state."""
    from railrules.interpreter import Game
    out = []
    final = game.to_json()
    for k, (index, text, legal) in enumerate(snapshots):
        where = f"{name}, saved before decision {index}"
        loaded = Game.from_json(ruleset, text)
        if loaded.to_json() != text:
            out.append(f"{where}: from_json(to_json()) is not lossless")
            continue
        if [a.to_json() for a in loaded.legal_actions()] != legal:
            out.append(f"{where}: the legal actions differ after loading")
            continue
        if play_on == "all" or k == len(snapshots) - 1:
            for action in actions[index:]:
                loaded.apply(action)
            if loaded.to_json() != final:
                out.append(f"{where}: continuing with the same actions ends elsewhere")
    return out


def played(name: str, players: int, seed: int, actions: int):
    """A game of the shipped ruleset ``name`` after ``actions`` random decisions (fewer when it
    ends), chosen by ``random.Random(seed)``."""
    import random

    from railrules.interpreter import load_ruleset
    game = load_ruleset(name).new_game(players, seed)
    rng = random.Random(seed)
    for _ in range(actions):
        if game.is_over:
            break
        game.apply(rng.choice(game.legal_actions()))
    return game
