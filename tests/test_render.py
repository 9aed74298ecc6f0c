"""`railrules render` and play's `map`: the board drawn from the ruleset's own render expression."""
from tools.board_view import board_picture
from tools.cli import main


def test_every_chicago_express_hex_is_drawn_in_its_place(chicago):
    game = chicago.new_game(players=3, seed=1)
    picture = board_picture(game)
    cells = [c for line in picture.splitlines()[1:] for c in line[4:].split()]
    assert len(cells) == len(chicago.kinds["hexes"]) == 160
    # New York (S3) is a start hex with the NYC train: row 3, first line (even column S)
    row = next(line for line in picture.splitlines() if line.startswith(" 3a"))
    assert row[4 + 18 * 4:].startswith("S1")


def test_render_without_a_declaration_says_so(capsys):
    assert main(["render", "german_railways"]) == 0
    assert "declares no `render" in capsys.readouterr().out


def test_render_of_a_saved_game_shows_its_trains(chicago, tmp_path, capsys):
    from tools.play import save
    game = chicago.new_game(players=3, seed=1)
    game.execute("add PRR to Q6.trains")
    path = tmp_path / "g.save.json"
    save(game, path)
    assert main(["render", "--resume", str(path)]) == 0
    # Q6: column Q (index 16, even: not shifted in odd-q), row 6, so the line " 6a"
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith(" 6a"))
    assert row[4 + 16 * 4:4 + 17 * 4].strip() == ".1"          # plain, one train
