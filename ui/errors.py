"""Showing errors to people: engine errors as their own sentence, anything else as a calm apology.

The engine raises :class:`engine.errors.EngineError` subclasses whose message is already one plain
sentence, so the app shows that sentence (escaped: it may quote a column name or a value, which is
user text). Anything else is a bug: the user sees a friendly
message, the traceback goes to the server log (never to the browser).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from engine.errors import EngineError
from ui.widgets import md_escape

LOG = logging.getLogger("dtexplorer")

UNEXPECTED_MESSAGE = (
    "Something went wrong while drawing this page. Your data and tree are still there: "
    "try the last action again, or pick another page. (The details were written to the server log.)"
)


def show_engine_error(err: EngineError) -> None:
    """Show an engine error's sentence in a red box (as text: it may quote user text)."""
    st.error(md_escape(err, limit=1000), icon=":material/error:")


def show_unexpected_error(exc: BaseException, *, where: str = "page") -> None:
    """Log ``exc`` with its traceback on the server and show a friendly message instead."""
    LOG.error("Unexpected error in %s: %s", where, exc, exc_info=exc)
    st.error(UNEXPECTED_MESSAGE, icon=":material/sentiment_dissatisfied:")


@contextmanager
def friendly_errors(where: str = "page") -> Iterator[None]:
    """Run a block; engine errors become ``st.error(sentence)``, other errors a logged apology.

    Streamlit's own control flow (``st.rerun``, ``st.stop``, page switches) derives from
    ``BaseException`` and passes through untouched.
    """
    try:
        yield
    except EngineError as err:
        show_engine_error(err)
    except Exception as exc:  # noqa: BLE001 - last line of defence, logged above
        show_unexpected_error(exc, where=where)
