"""The README's first ruleset is a working game: written out as it stands, it lints clean and plays."""
import re
from pathlib import Path

from railrules.interpreter import check_ruleset, load_ruleset

ROOT = Path(__file__).resolve().parents[1]


def _files(readme: str) -> dict:
    """The blocks that follow a bold file name: **`name`** then a fenced block."""
    pattern = re.compile(r"\*\*`([^`]+)`\*\*\s*\n\s*```[a-z]*\n(.*?)```", re.S)
    return {name: body for name, body in pattern.findall(readme)}


def test_the_first_ruleset_in_the_readme_lints_clean_and_plays(tmp_path):
    files = _files((ROOT / "README.md").read_text(encoding="utf-8"))
    assert set(files) == {"ruleset.yaml", "components.yaml", "rules/game.rules"}
    for name, body in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(body, encoding="utf-8")
    ruleset, diags = check_ruleset(str(tmp_path))
    assert ruleset is not None and diags == []
    game = load_ruleset(str(tmp_path)).new_game(players=2, seed=1)
    while not game.is_over:
        game.apply(game.legal_actions()[-1])
    assert game.result["winners"] == ["p1"] and game.result["scores"]["p1"] == 10
