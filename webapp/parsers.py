"""Request body parsers of the API.

They live apart from ``webapp.api`` because DRF reads ``DEFAULT_PARSER_CLASSES`` while importing its
views, which ``webapp.api`` imports.
"""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions, parsers

MAX_JSON_DEPTH = 32
"""The deepest nesting of arrays and objects a request body may have; no API input needs more than a few levels."""


def json_depth(value: Any) -> int:
    """Returns how deeply ``value`` nests arrays and objects (iteratively: no recursion limit to hit)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            deepest = max(deepest, depth)
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            deepest = max(deepest, depth)
            stack.extend((v, depth + 1) for v in item)
    return deepest


def has_nul(value: Any) -> bool:
    """Whether any string in ``value`` (keys included) holds a NUL character (iteratively)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


class BoundedJSONParser(parsers.JSONParser):
    """DRF's JSON parser, refusing with a 400 bodies nested deeper than :data:`MAX_JSON_DEPTH` or holding NUL.

    Python's decoder recurses once per level, so a body of a few hundred thousand ``[`` would
    otherwise end in ``RecursionError`` and a 500.
    """

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels") from None
        if json_depth(data) > MAX_JSON_DEPTH:
            raise exceptions.ParseError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
        if has_nul(data):
            # PostgreSQL's text and jsonb cannot hold NUL: refused here rather than a 500 at the write.
            raise exceptions.ParseError("JSON strings may not contain NUL characters")
        return data
