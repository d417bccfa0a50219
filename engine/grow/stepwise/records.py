"""One growth step's record (:class:`StepRecord`), and :func:`changes_state`, the mark of a Grower method
after which its cached ``tree`` is made again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, wraps

from engine.split.records import Split


@dataclass(frozen=True)
class StepRecord:
    """One growth step: the node split (or the leaves closed), with why.

    ``runner_up`` (the second-best feature's split) and ``gain_table`` are computed when first asked for.
    """

    index: int
    action: str  # "split" | "forced" | "collapse" | "finish"
    node_id: int | None  # a "finish" record's node: the leaf chosen by step(node_id) that closed, others still open
    split: Split | None
    children: tuple[int, ...]
    stopped: tuple[tuple[int, str], ...]
    _grower: "Grower" = field(default=None, repr=False, compare=False)

    @cached_property
    def runner_up(self) -> Split | None:
        if self.action != "split" or self._grower is None:
            return None
        ranked = self._grower.candidates(self.node_id)
        return ranked[1] if len(ranked) > 1 else None

    @cached_property
    def gain_table(self):
        """The node's gain table (one row per feature)."""
        if self.node_id is None or self.split is None or self._grower is None:
            return None
        return self._grower.gain_table(self.node_id)


def changes_state(method):
    """Marks a public Grower method that may change the tree: the cached ``tree`` is made again after it."""

    @wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        finally:
            self.__dict__.pop("_tree_cache", None)
    return wrapper


__all__ = ["StepRecord", "changes_state"]
