"""The documentation keeps up with the code: every builtin and every diagnostic code is documented."""
from pathlib import Path

from railrules.interpreter.dsl import builtins
from railrules.interpreter.errors import CODES
from railrules.tools.author.codes import codes_markdown

ROOT = Path(__file__).resolve().parents[1]


def test_every_builtin_is_in_the_language_reference():
    text = (ROOT / "interpreter" / "dsl" / "LANGUAGE.md").read_text(encoding="utf-8")
    missing = [name for name in builtins.ALL if f"| `{name}` |" not in text]
    assert not missing, f"LANGUAGE.md has no row for {missing}"


def test_the_codes_page_is_generated_from_the_registry():
    page = (ROOT / "interpreter" / "CODES.md").read_text(encoding="utf-8")
    assert page == codes_markdown(), "regenerate: railrules codes --markdown > interpreter/CODES.md"
    assert all(f"| {code} |" in page for code in CODES)


def test_the_commands_page_is_the_parsers_own_help():
    """tools/COMMANDS.md holds every verb's full help as the parser writes it: a snapshot that
    keeps every verb, option, default and help text as it is, and the page in step."""
    from railrules.tools.cli import VERBS, commands_page
    page = (ROOT / "tools" / "COMMANDS.md").read_text(encoding="utf-8")
    assert page == commands_page(page), "regenerate: railrules __commands"
    assert [line for line in page.splitlines() if line.startswith("## ")] == \
        ["## `railrules`"] + [f"## `railrules {name}`" for name, _, _ in VERBS]
    assert "  --lint-runs LINT_RUNS\n                        lint runs to take the median of\n" in page


def test_the_commands_page_keeps_the_notes_written_between_the_help_blocks():
    from railrules.tools.cli import commands_page
    page = commands_page()
    noted = page.replace("## `railrules play`\n\n", "## `railrules play`\n\nA note by hand.\n\n")
    assert noted != page and commands_page(noted) == noted
    stale = page.replace("hide warnings", "hide the warnings")
    assert commands_page(stale) == page


def test_the_doc_verb_lists_every_definition_with_its_citations(capsys):
    from railrules.interpreter import load_ruleset
    from railrules.interpreter.dsl import nodes as n
    from railrules.interpreter.paths import shipped_rulesets
    from railrules.tools.cli import main
    for name in shipped_rulesets():
        assert main(["doc", name]) == 0
        page = capsys.readouterr().out
        rs = load_ruleset(name)
        procs = [d.name for d in rs.definitions if isinstance(d, n.ProcDef)]
        assert procs and all(f"### `{p}(" in page for p in procs), name
        assert "(no citation)" not in page.split("## Functions")[0], f"{name}: an uncited rule"


def test_the_editor_grammar_colours_every_keyword_of_the_language():
    import json
    import re
    lark = (ROOT / "interpreter" / "dsl" / "rules.lark").read_text(encoding="utf-8")
    keywords = set(re.findall(r'"([a-z_]+)"', lark))
    grammar = json.loads((ROOT / "tools" / "vscode" / "syntaxes" / "rules.tmLanguage.json").read_text(encoding="utf-8"))
    pattern = next(p["match"] for p in grammar["patterns"] if p["name"] == "keyword.control.rules")
    assert keywords and all(re.search(pattern, k) for k in keywords)
    assert not re.search(pattern, "players")  # names are not keywords
    package = json.loads((ROOT / "tools" / "vscode" / "package.json").read_text(encoding="utf-8"))
    assert package["contributes"]["grammars"][0]["path"] == "./syntaxes/rules.tmLanguage.json"
