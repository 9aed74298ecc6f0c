"""Shell completion for the ``railrules`` command, read from its argparse parser.

``railrules completion bash|zsh|fish`` prints a script for the shell; the script asks
``railrules __complete WORD...`` (every word after the command name, the one being typed last)
for the candidates, one per line. So verbs, options, choices, ruleset names and a ruleset's
variant names come from the same parser and folders the command uses, and never drift.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from railrules.interpreter.paths import rulesets_dir, shipped_rulesets

SHELLS = ("bash", "zsh", "fish")

_BASH = """\
# railrules completion for bash: eval "$(railrules completion bash)"
_railrules_complete() {
    local IFS=$'\\n'
    COMPREPLY=($(railrules __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -o default -F _railrules_complete railrules
"""

_ZSH = """\
# railrules completion for zsh: eval "$(railrules completion zsh)"
autoload -U +X bashcompinit && bashcompinit
""" + _BASH.split("\n", 1)[1]

_FISH = """\
# railrules completion for fish: railrules completion fish | source
complete -c railrules -f -a '(railrules __complete (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null)'
"""

SCRIPTS = {"bash": _BASH, "zsh": _ZSH, "fish": _FISH}

# the arguments whose values are ruleset names (a folder path is completed by the shell)
_RULESET_DESTS = {"ruleset", "rulesets", "paths", "source"}


def script(shell: str) -> str:
    return SCRIPTS[shell]


def candidates(parser: argparse.ArgumentParser, words: list[str]) -> list[str]:
    """What may come at the last of ``words`` (the words after ``railrules``; the last one is
    the word being typed, perhaps empty), for the parser of the ``railrules`` command."""
    *done, typed = words or [""]
    verbs = _verbs(parser)
    verb = next((w for w in done if w in verbs), None)
    if verb is None:
        options = _option_strings(parser)
        return _starting(typed, options if typed.startswith("-") else sorted(verbs))
    sub = verbs[verb]
    after = done[done.index(verb) + 1:]
    pending = _option_waiting(sub, after)
    if pending is not None:
        return _starting(typed, _values(pending, after))
    if typed.startswith("-"):
        return _starting(typed, _option_strings(sub))
    positional = _positional_at(sub, after)
    return _starting(typed, _values(positional, after) if positional else [])


def _verbs(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _option_strings(parser: argparse.ArgumentParser) -> list[str]:
    return sorted(s for a in parser._actions for s in a.option_strings if s.startswith("--"))


def _takes_value(action: argparse.Action) -> bool:
    return action.nargs != 0


def _option_waiting(parser: argparse.ArgumentParser, after: list[str]) -> argparse.Action | None:
    """The option whose value is being typed: the last word is an option that takes one."""
    if not after:
        return None
    last = after[-1]
    for action in parser._actions:
        if last in action.option_strings and _takes_value(action):
            return action
    return None


def _positional_at(parser: argparse.ArgumentParser, after: list[str]) -> argparse.Action | None:
    """The positional argument the next word fills, skipping options and their values."""
    filled, skip = 0, False
    for word in after:
        if skip:
            skip = False
        elif word.startswith("-"):
            skip = any(word in a.option_strings and _takes_value(a) for a in parser._actions)
        else:
            filled += 1
    positionals = [a for a in parser._actions if not a.option_strings]
    for action in positionals:
        if action.nargs in ("*", "+"):
            return action
        if filled == 0:
            return action
        filled -= 1
    return None


def _values(action: argparse.Action, after: list[str]) -> list[str]:
    if action.choices:
        return [str(c) for c in action.choices]
    if action.dest in _RULESET_DESTS:
        return shipped_rulesets()
    if action.dest == "variant":
        return _variants(after)
    return []


def _variants(after: list[str]) -> list[str]:
    """The variants of the ruleset named among the words (its variants/ folder)."""
    for word in after:
        if word.startswith("-"):
            continue
        folder = rulesets_dir() / word if word in shipped_rulesets() else Path(word)
        found = sorted(p.stem for p in (folder / "variants").glob("*.yaml"))
        if found:
            return found
    return []


def _starting(typed: str, names: list[str]) -> list[str]:
    return [n for n in names if n.startswith(typed)]


# ------------------------------------------------------------------ the verb: railrules completion
def add_arguments(parser) -> None:
    parser.description = (
        "Print the script that completes railrules' verbs, options, ruleset and variant names in your "
        "shell. bash: eval \"$(railrules completion bash)\" in ~/.bashrc; zsh: the same with zsh in "
        "~/.zshrc; fish: railrules completion fish > ~/.config/fish/completions/railrules.fish")
    parser.add_argument("shell", choices=SHELLS)


def run(args) -> int:
    print(script(args.shell), end="")
    return 0
