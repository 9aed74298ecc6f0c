"""Players without a person: bot specs and the random, option, greedy, searching and user bots
(:mod:`.players`), and the search they share (:mod:`.search`: a seat's picture of the game).

May import: the interpreter and :mod:`..common`.
"""
