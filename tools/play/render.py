"""`railrules render`: the board of a game (new, saved or logged at a step), as text or as an
SVG or PNG picture (:mod:`railrules.tools.pictures`)."""
from __future__ import annotations

import sys
from pathlib import Path

from railrules.tools.common import verbs


def add_arguments(parser) -> None:
    parser.description = (
        "Draw a ruleset's board at the start of a game, a saved game's, or a logged game's at a step: "
        "as text (the ruleset's render: {hex: ...}), or with --svg as a picture (terrain, labels, "
        "every company's marks in its colour, a legend, the public state), as the ruleset's render: "
        "key declares.")
    parser.add_one_game("draw the board of this saved game instead")
    parser.add_argument("--log", help="draw the board of this logged game (at its end, or at --step)")
    parser.add_argument("--step", type=parser.count(0), help="with --log: the game after this many actions")
    parser.add_argument("--svg", metavar="FILE", help="write an SVG picture here instead of printing text")
    parser.add_argument("--png", metavar="FILE", help="write the picture as PNG here (drawn by the "
                        "system's headless Chromium: apt-get install chromium)")
    parser.add_argument("--ids", action="store_true", help="write each hex's id in the picture")
    parser.add_argument("--force", action="store_true", help="allow --svg and --png to overwrite existing files")


def run(args) -> int:
    from railrules.tools.common.outputs import write
    from railrules.tools.pictures.board_model import board_model
    from railrules.tools.pictures.board_view import board_picture
    from railrules.tools.pictures.svg_board import to_svg
    from railrules.tools.play.terminal import open_game
    if args.step is not None and not args.log:
        raise verbs.Usage("--step needs --log LOG (the game at that step of the log)")
    verbs.check_outputs({"--svg": args.svg, "--png": args.png}, args.force)
    if args.log:
        from railrules.tools.play.replay import read_log, replay
        game, _ = replay(read_log(Path(args.log)), args.log, args.ruleset, step=args.step,
                         hint="draw it with the rules it was made with: name their folder before --log")
    else:
        game = open_game(args, "render")
        if game is None:
            return verbs.EXIT_USAGE
    if not args.svg and not args.png:
        print(board_picture(game))
        return verbs.EXIT_OK
    picture = to_svg(board_model(game), ids=args.ids)
    try:
        if args.svg:
            write(Path(args.svg), picture)
            print(f"wrote {args.svg}")
        if args.png:
            from railrules.tools.pictures.png import svg_to_png
            svg_to_png(picture, Path(args.png))
            print(f"wrote {args.png}")
    except OSError as err:
        print(f"railrules render: cannot write {err.filename or args.png}: {err.strerror or err}",
              file=sys.stderr)
        return verbs.EXIT_FAIL
    except RuntimeError as err:  # no browser to draw the PNG with
        print(f"railrules render: {err}", file=sys.stderr)
        return verbs.EXIT_FAIL
    return verbs.EXIT_OK
