"""JSON round trip of trees, validated: a tree file from a user is data, never code.

``tree_to_json(tree) -> str`` and ``tree_from_json(text) -> Tree``. Loading checks the size and the
encoding here, then every field, id and link in :mod:`engine.tree.decode`; anything wrong raises ``DataError``.
"""

from __future__ import annotations

import json

from engine.errors import DataError
from engine.tree.store import Tree

MAX_JSON_BYTES = 20_000_000


def tree_to_json(tree) -> str:
    return json.dumps(tree.to_dict(), allow_nan=True)


def tree_from_json(text: str | bytes):
    if isinstance(text, bytes):
        if len(text) > MAX_JSON_BYTES:
            raise DataError("The tree file is larger than 20 MB; that is not a tree this app wrote.")
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise DataError("The tree file is not UTF-8 text; choose a JSON file saved by this app.") from None
    if len(text) > MAX_JSON_BYTES:
        raise DataError("The tree file is larger than 20 MB; that is not a tree this app wrote.")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise DataError("The tree file is not valid JSON; choose a file saved by this app.") from None
    return tree_from_dict(data)


def tree_from_dict(d):
    """The tree a ``Tree.to_dict`` made (validated: see :meth:`engine.tree.store.Tree.from_dict`)."""
    return Tree.from_dict(d)
