"""Triboard: a test-only game on a triangular board, to show the viewer draws a board it has never seen.

Not a product game: it lives in tests and is registered by the tests that use it
(:func:`referee.core.registry.register`). See :mod:`tests.games.triboard.game`.
"""

from tests.games.triboard.game import TriBoard

__all__ = ["TriBoard"]
