"""What users run: one command, ``railrules`` (:mod:`.cli`, the table of verbs, and
:mod:`.completion`, shell completion read from it), whose verbs live in rooms by what the user
does:

- :mod:`.author`: lint, fixes, the language server, doc, new, code, scenario tests;
- :mod:`.play`: the terminal and the browser (serve), replay, the step-through viewer;
- :mod:`.bots`: random, greedy, searching and user bots;
- :mod:`.lab`: simulate, compare, tune, tournament, coverage, bench and the runner;
- :mod:`.pictures`: the board model, text maps, SVG and PNG;
- :mod:`.agents`: PettingZoo and OpenSpiel adapters;
- :mod:`.common`: what the rooms share (output files, tables, diagnostics, the heap guard).

Arrows point down (``tests/test_imports.py`` keeps them so): the CLI imports anything; lab, author,
play and agents import bots, pictures, common and the interpreter; bots and pictures import only
common and the interpreter; the browser server imports only the play room; nothing imports the
CLI; no private name crosses a module.
"""
