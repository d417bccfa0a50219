"""Small shared widgets: safe text, one-shot messages, the shared sidebar.

User text (file names, column names, category values, share-link parameters) is data. Streamlit
renders ``st.markdown``, ``st.caption``, ``st.info`` ... bodies as Markdown with LaTeX (``$``), colour
(``:red[...]``), icon (``:material/x:``) and GFM auto-link syntax, so user text goes through
:func:`md_escape` before it is put in a Markdown string (``tests/hardening/test_markdown_escaping.py``
checks every f-string placeholder handed to Streamlit), and never into ``unsafe_allow_html``.
"""

from __future__ import annotations

import re

import streamlit as st

from ui import state

_FLASH = "_flash_messages"
_SEED_WIDGET = "_w_sidebar_seed"
# Every ASCII punctuation character may be backslash-escaped in CommonMark; escaping all of them
# also neutralises Streamlit's extensions ($...$, :color[...], :material/icon:, ~~, <tags>).
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>$~:&\"'=^%@;,/?])")
# GFM's auto-links (``http://x``, ``https://x``, ``www.x``, ``a@b.c``, ``mailto:``/``xmpp:``) are found in
# the text *after* backslash escapes are resolved, so escaping cannot stop them. An invisible WORD JOINER
# (U+2060) in ``:/``, ``@x`` and ``www.`` breaks each pattern; it does not change what people read and
# adds no line-break opportunity.
_LINK_BREAK = re.compile(r"(?<=:)(?=/)|(?<=@)(?=\w)|(?i:(?<=www)(?=\.))")
WORD_JOINER = "\u2060"
#: Longest user text shown in one piece (a 100 kB share-link parameter must not become a 100 kB warning).
MD_LIMIT = 300
#: characters of the app's own narration shown at once (its sentences name features and classes, escaped with
#: it): C4.5 on golf in German narrates one step in 529 characters
NARRATION_LIMIT = 2000


def md_escape(text: object, limit: int | None = MD_LIMIT) -> str:
    """``text`` as literal Markdown: punctuation backslash-escaped, runs of white space as one space,
    auto-links defeated, cut to ``limit`` characters with an ellipsis (``None``: no cut).

    The one function for every place user text meets Markdown (names, values, file names, link text).
    Example: ``md_escape("a_b $x$")`` gives ``a\\_b \\$x\\$`` (shown as ``a_b $x$``), and
    ``md_escape("http://h")`` shows ``http://h`` as text, not as a link.
    """
    flat = shorten(text, limit) if limit is not None else " ".join(str(text).split())
    return _MD_SPECIAL.sub(r"\\\1", _LINK_BREAK.sub(WORD_JOINER, flat))


def shorten(text: object, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis (for labels and captions)."""
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[: limit - 1] + "\u2026"


# ----------------------------------------------------------------------------- one-shot messages
#: the icon of each kind of message (flashes, and notes that outlive a run: ui.classroom.live_roster)
FLASH_ICONS = {"success": ":material/check_circle:", "info": ":material/info:",
               "warning": ":material/warning:", "error": ":material/error:"}


def flash(kind: str, text: str) -> None:
    """Queue a message (``kind`` in success/info/warning/error) for the top of the next page run.

    Use it from widget callbacks, which run before the page draws. ``text`` is Markdown: escape
    user text with :func:`md_escape`.
    """
    if kind not in ("success", "info", "warning", "error"):
        raise ValueError(f"flash kind must be success, info, warning or error, not {kind!r}")
    st.session_state.setdefault(_FLASH, []).append((kind, text))


def show_flashes() -> None:
    """Show and forget the queued messages."""
    for kind, text in st.session_state.pop(_FLASH, []):
        getattr(st, kind)(text, icon=FLASH_ICONS[kind])


# ------------------------------------------------------------------------------------- sidebar
def _on_seed_change() -> None:
    from engine.errors import EngineError

    try:
        state.set_seed(st.session_state[_SEED_WIDGET])
        flash("info", f"Random seed set to {state.current_seed():d}: the data was split again and "
                      "the tree was reset.")
    except EngineError as err:
        flash("error", md_escape(err))


def sidebar_summary() -> None:
    """The shared sidebar block: active data set, target, task, rows, split, and the random seed."""
    ds = state.current_dataset()
    split = state.current_split()
    with st.sidebar:
        st.markdown(f"**Data set** \u00b7 {md_escape(shorten(state.current_dataset_name(), 40))}")
        if ds.task == "classification":
            task = f"classification, {len(ds.classes)} classes"
        else:
            task = "regression"
        st.markdown(f"**Target** \u00b7 {md_escape(shorten(ds.target, 40))} ({task})")  # md-safe: a count
        parts = [f"{len(split.train):,} train"]
        if split.validation is not None and len(split.validation):
            parts.append(f"{len(split.validation):,} validation")
        if split.test is not None and len(split.test):
            parts.append(f"{len(split.test):,} test")
        rows = " \u00b7 ".join(parts)
        st.markdown(f"**Rows** \u00b7 {len(ds):,} ({rows})")  # md-safe: counts joined by " · "
        if state.current_model() is not None:
            st.markdown(f"**Model** \u00b7 {md_escape(shorten(state.current_model_name(), 40))}")
        if st.session_state.get(_SEED_WIDGET) != state.current_seed():
            st.session_state[_SEED_WIDGET] = state.current_seed()
        st.number_input(
            "Random seed", min_value=0, max_value=state.MAX_SEED, step=1, key=_SEED_WIDGET,
            on_change=_on_seed_change,
            help="Used for the train/test split, random feature subsets and ensembles. "
                 "The same seed gives the same results.",
        )


# ------------------------------------------------------------------------------ cores for many trees
def cores_setting(container=None) -> int | None:
    """The "Cores" choice (shared by the Ensembles, Evaluate and Prune pages through ``state.N_JOBS``) and,
    when a Dask cluster is configured for the server, where the trees go. Returns ``n_jobs`` for the engine."""
    from engine.grow.parallel import cpu_count, dask_scheduler

    box = container if container is not None else st
    cores = cpu_count()
    options = list(range(cores + 1))                     # 0 = automatic (None for the engine)
    if st.session_state.get(state.N_JOBS) not in options:
        st.session_state[state.N_JOBS] = 0
    box.selectbox(
        "Cores", options, key=state.N_JOBS, persist_state="session",
        format_func=lambda v: f"automatic (all {cores})" if v == 0 else (f"{v} core" + ("" if v == 1 else "s")),
        help="Independent trees (ensemble members, folds, learning-curve and instability runs) grow on this "
             "many processor cores at once, and a single tree (Grow to end) splits each level's work over "
             "them; the results are the same for every choice. Automatic uses all cores when there is "
             "enough work and one core for small data.")
    address = dask_scheduler()
    if address:
        box.caption(f"Trees are sent to the Dask cluster at {md_escape(address)}.")
    return state.current_n_jobs()
