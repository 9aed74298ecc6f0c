"""Exact rationals: the one type a rule's division makes (``7 / 2`` is 7/2, never 3.5).

Every module takes ``Fraction`` from here, so the implementation is chosen in one place. It is
quicktions' ``Fraction``, a C (Cython) build of the standard library's ``fractions.Fraction``
with the same behaviour: ``str`` ("7/2"), comparisons and hashes equal to ints and
``fractions.Fraction``, and ``floor``/``ceil``/``//``/``round``/``numerator`` giving plain ``int``.
Whole numbers stay ``int``: only a division makes a fraction, and a whole-number fraction
becomes an ``int`` when it is stored.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:   # quicktions ships no type hints; its Fraction has the standard one's API
    from fractions import Fraction
else:
    from quicktions import Fraction

__all__ = ["Fraction"]
