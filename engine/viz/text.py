"""The one escape for user text in figures, and the figures' font.

Plotly draws a subset of HTML in titles, tick labels, legends, hover labels, annotations and ``text``:
``<a href>`` becomes a live link, ``<b>``, ``<i>``, ``<br>``, ``<span style>``, ``<sub>``, ``<sup>`` and
entities apply, ``%{...}`` is a hover-template field and a ``$...$`` pair is TeX. User text (feature names,
class labels, category values, file names) is data: every figure builder of :mod:`engine.viz` (and the
app's own charts) passes it through :func:`escape` before it reaches a figure, and :func:`short_label`
when it goes into a sentence of a note.
"""

from __future__ import annotations

import html

__all__ = ["escape", "short_label", "FONT"]

#: The font of this package's figures.
FONT = {"size": 15}


def escape(text) -> str:
    """User text safe for Plotly labels and hover templates (``<``, ``>``, ``&``, ``%{`` and ``$``).

    ``<``, ``>`` and ``&`` become entities, so no tag (``<a href>`` would be a live link) and no entity of
    the user's is interpreted; ``%{`` gets a zero-width space, so it is not a hover-template field; a
    newline becomes a space. Values put on a category axis must be escaped too: Plotly draws the
    category values themselves as tick labels and puts them into ``%{x}`` / ``%{y}`` of hover templates.

    ``$`` becomes the entity ``&#36;``: Plotly treats a ``$...$`` pair as TeX and, without MathJax,
    drops it from the label (a column named ``$x$`` vanished from titles and notes).
    """
    return (html.escape(str(text), quote=False).replace("%{", "%\u200b{").replace("\n", " ")
            .replace("$", "&#36;"))


def short_label(text, limit: int = 40) -> str:
    """User text for a sentence in a figure note: cut to ``limit`` characters (with an ellipsis), escaped."""
    flat = " ".join(str(text).split())
    return escape(flat if len(flat) <= limit else flat[: limit - 1] + "\u2026")
