"""Content validated by JSON Schema: the one validator of every game's data files.

A game keeps its content in JSON files under ``data/`` and, next to them, one JSON Schema (draft
2020-12) per file: ``data/schema/<name>.schema.json`` for ``data/<name>.json``. :func:`validate`
checks a document against its schema with the ``jsonschema`` package and raises
:class:`~referee.core.errors.ContentError`, whose message names the file, the path to the offending
value and what is wrong with it, plus the failing constraint's ``description`` when it has one
(``champions.json: champions[0].cards: has 5 items, expected 6 (a champion has exactly 6 cards)``).
What a schema cannot say (a reference to another file, a hex off the board) the game's
``content.py`` checks after the schema.

This module reads files only through :mod:`importlib.resources`, when a game's content loads.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match, relevance

from referee.core.errors import ContentError


@cache
def schema_for(package: str, file: str) -> Draft202012Validator:
    """Returns the validator of ``package``'s content file ``file`` (``data/schema/<name>.schema.json``).

    Raises:
        ContentError: the schema is missing, not JSON, or not a valid schema.
    """
    name = file.removesuffix(".json")
    path = resources.files(package).joinpath("data", "schema", f"{name}.schema.json")
    try:
        schema = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ContentError(f"cannot read the schema of {file}: {exc}") from exc
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def where(path: Iterable[Any]) -> str:
    """Returns a readable path into a document: ``champions[0].cards[2].colour``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _message(error: ValidationError) -> str:
    value = error.instance
    if error.validator in ("minItems", "maxItems") and isinstance(value, list):
        schema = error.schema if isinstance(error.schema, dict) else {}
        lo, hi = schema.get("minItems"), schema.get("maxItems")
        expected = f"{lo}" if lo == hi else f"{lo if lo is not None else 0}..{hi if hi is not None else 'any'}"
        text = f"has {len(value)} items, expected {expected}"
    elif error.validator in ("minProperties", "maxProperties") and isinstance(value, dict):
        text = f"has {len(value)} fields, expected {error.validator_value!r} at {error.validator[:3]}"
    elif error.validator == "not" and isinstance(error.schema, dict) and error.schema.get("description"):
        return str(error.schema["description"])
    else:
        text = error.message
    description = error.schema.get("description") if isinstance(error.schema, dict) else None
    return f"{text} ({description})" if description else text


def validate(document: Any, validator: Draft202012Validator, file: str) -> None:
    """Checks ``document`` (the parsed content of ``file``) against its schema.

    Raises:
        ContentError: the document breaks the schema; the message names the file, the path and the rule.
    """
    errors = list(validator.iter_errors(document))
    if not errors:
        return
    # The most relevant error; inside an anyOf or oneOf, the branch that came closest, unless the
    # alternatives carry a description of their own (then it says more than any one branch).
    error = max(errors, key=relevance)
    while error.context and not (isinstance(error.schema, dict) and error.schema.get("description")):
        error = best_match(error.context)
    raise ContentError(f"{file}: {where(error.absolute_path)}: {_message(error)}")
