"""Playing a game: at the terminal (:mod:`.terminal`), in the browser (:mod:`.serve`: one table,
or the several tables of a lobby, :mod:`.lobby`, each table's links kept beside its save,
:mod:`.links`), replayed from a log (:mod:`.replay`) or stepped through in a page
(:mod:`.viewer`), with a readable summary of the state (:mod:`.summary`); its board drawn
(:mod:`.render`); the shipped rulesets listed (:mod:`.shelf`).

May import: the interpreter, :mod:`..common`, :mod:`..bots`, :mod:`..pictures`; :mod:`.serve`
imports only this room and :mod:`..common` (and the interpreter).
"""
