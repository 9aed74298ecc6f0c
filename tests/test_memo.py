"""The bounded memos (interpreter/runtime/memo.py): a table never holds more than its bound, keeps what
was put last, and an answer kept by an object's identity is made once per object, never
mistaken for another object's."""
from __future__ import annotations

from railrules.interpreter.runtime.memo import keep, of_object


def test_a_table_is_emptied_when_full_and_keeps_the_last_answer():
    table: dict = {}
    for i in range(10):
        assert keep(table, i, i * i, 4) == i * i
        assert len(table) <= 4 and table[i] == i * i
    assert table == {8: 64, 9: 81}   # emptied at 4 entries (before 4 and 8), then 8 and 9 put


def test_an_answer_about_an_object_is_made_once_and_is_its_own():
    table: dict = {}
    made: list = []

    def make(xs):
        made.append(xs)
        return sum(xs)
    a, b = [1, 2], [1, 2]   # equal, not the same object
    assert [of_object(table, a, make, 8) for _ in range(3)] == [3, 3, 3]
    assert of_object(table, b, make, 8) == 3 and made == [a, b] and made[1] is b
    for i in range(20):   # past the bound: made again, still right
        assert of_object(table, [i], make, 8) == i and len(table) <= 8
    assert of_object(table, a, make, 8) == 3 and made[-1] is a
