"""What users run: one command, ``railrules`` (:mod:`.cli`, the table of verbs and the options
several share, and :mod:`.completion`, shell completion read from it), whose verbs live in rooms
by what the user does; each verb's module owns its options (``add_arguments``) and its work
(``run``):

- :mod:`.author`: lint, fixes, the language server, doc, new, code, codes, scenario tests;
- :mod:`.play`: the terminal and the browser (serve), replay, the step-through viewer, render, list;
- :mod:`.bots`: random, greedy, searching and user bots;
- :mod:`.lab`: simulate, compare, tune, tournament, coverage, bench and the runner;
- :mod:`.pictures`: the board model, text maps, SVG and PNG;
- :mod:`.agents`: PettingZoo and OpenSpiel adapters;
- :mod:`.common`: what the rooms share (output files, tables, diagnostics, the heap guard, what
  the verbs share when they run).

Arrows point down (``tests/test_imports.py`` keeps them so): the CLI imports anything; lab, author,
play and agents import bots, pictures, common and the interpreter (lab also author: bench times
lint); bots and pictures import only common and the interpreter; the browser server imports only
the play room and common; nothing imports the CLI; no private name crosses a module.
"""
