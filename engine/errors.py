"""Errors the engine raises: each carries one sentence a non-programmer understands.

The app catches :class:`EngineError` (the base) and shows ``str(err)`` with ``st.error``.
"""


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""


class DataError(EngineError):
    """The data cannot be loaded or learned from (file format, columns, values)."""


class ConfigError(EngineError, ValueError):
    """A parameter has a value that is not allowed; the message names it and what is allowed."""
