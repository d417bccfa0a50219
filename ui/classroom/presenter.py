"""Classroom mode on the Grow page: presenter view, narration, the quiz, keyboard shortcuts, class links.

- The switches (presenter view, quiz, narration language) are widgets bound to the address bar
  (``?presenter=true&quiz=true&lang=de``), so a copied link reopens them; lessons set them through
  :func:`set_switches` before the page draws.
- Presenter view hides the sidebar and the panels below the diagram, puts the diagram and the plot
  one under the other at full width and enlarges the fonts; the Step / Undo / Play buttons stay.
- Keyboard: Streamlit's own button shortcuts (``st.button(shortcut=...)``, see :data:`SHORTCUTS`);
  they are ignored while typing in an input field.
- Narration: the engine's sentence for the latest step under the diagram, and every step's sentence in
  the narrated log (:mod:`engine.teach.narration`).
- Quiz: see :mod:`ui.classroom.quiz`.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from engine.errors import EngineError
from engine.teach.i18n import LANGUAGES
from engine.teach.narration import narrate_step_lines, row_noun
from ui import state
from ui.access import aria_tree
from ui.widgets import NARRATION_LIMIT, md_escape

PRESENTER, QUIZ, LANG, SCREEN = "presenter", "quiz", "lang", "screen"  # widget keys = query parameter names
#: Presenter view's "Screen" choices: the window's width in CSS px that the diagram is planned for. "auto" (the
#: default): the width the browser reports (:data:`SCREEN_JS`); a number overrides it (a link for another screen).
SCREENS = (1366, 1920, 2560)
AUTO = "auto"
SCREEN_PX = "_screen_px"  # the window's width as the browser reported it (session only)
PROBE = "dtx_screen_probe"  # the hidden container of the number input the browser writes the width into
#: How the window's width reaches the server: Streamlit 1.67's st.context has no width, and a v2 component's
#: script comes from a ``blob:`` address the proxy's Content-Security-Policy refuses. This constant page script
#: (allowed by its hash in deploy/dtx-site.inc) types ``window.innerWidth`` into the hidden number input as a
#: user would (the input's own setter, an input event, Enter) whenever the app is idle and the width the server
#: last received (``px=N;`` beside the input) is not the window's (at most every 2 s, checked after each change of
#: the page and every 1.5 s: the first draw of presenter view, a resize, a lost try). No user data reaches it.
SCREEN_JS = """<script>
(() => {
  if (window.__dtxScreen) { window.__dtxScreen(); return; }
  let sentAt = 0;
  const check = () => {
    const box = document.querySelector(".st-key-dtx_screen_probe");
    const input = box && box.querySelector("input");
    const app = document.querySelector("[data-testid='stApp']");
    if (!input || !app || app.getAttribute("data-test-script-state") === "running") return;
    const width = Math.round(window.innerWidth);
    const known = /px=(\\d+);/.exec(box.textContent);
    if (!(width > 0) || (known && Number(known[1]) === width) || Date.now() - sentAt < 2000) return;
    sentAt = Date.now();
    const set = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set;
    for (const text of ["", String(width)]) {
      set.call(input, text);
      input.dispatchEvent(new Event("input", {bubbles: true}));
    }
    input.dispatchEvent(new KeyboardEvent("keydown", {key: "Enter", code: "Enter", keyCode: 13, bubbles: true}));
  };
  window.__dtxScreen = check;
  new MutationObserver(check).observe(document.body, {childList: true, subtree: true, attributes: true,
                                                     attributeFilter: ["data-test-script-state"]});
  window.addEventListener("resize", () => setTimeout(check, 400));
  setInterval(check, 1500);  // a width typed while a run was starting may be lost: type it again
  check();
})();
</script>"""
_CODES = {name: code for code, name in LANGUAGES.items()}  # "Deutsch" -> "de" (the URL says lang=Deutsch)
NARRATIONS = "_classroom_narrations"  # cache: (data_version, history key, lang) -> list of sentences
#: Toolbar action -> Streamlit shortcut (one key per button; Step is the right arrow).
SHORTCUTS = {"step": "Right", "undo": "Left", "reset": "Home", "play": "P"}
LOG_LIMIT = 150  # narrated steps listed in the log
KEY_HELP = "Keys: → step · ← undo · Home reset · P play/pause"

PRESENTER_CSS = """
<style>
section[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stSidebarCollapseButton"], [data-testid="stExpandSidebarButton"] { display: none !important; }
html { font-size: 19px; }
.stMainBlockContainer, [data-testid="stMainBlockContainer"] { max-width: 100%; padding-top: 1.2rem; padding-bottom: 1rem; }
.stMainBlockContainer [data-testid="stVerticalBlock"] { gap: 0.4rem; }
.st-key-narration p { font-size: 1.45rem; line-height: 1.45; }
[data-testid="stMain"] { overflow-anchor: none; }  /* a panel growing above a pressed button moves no scroll */
.st-key-dtx_screen_probe, [data-testid="stLayoutWrapper"]:has(> .st-key-dtx_screen_probe) { display: none !important; }
</style>
"""
NARRATION_CSS = """
<style>
.stMainBlockContainer, [data-testid="stMainBlockContainer"] { padding-top: 3.5rem; }
.stMainBlockContainer h1 { padding-top: 0; padding-bottom: 0; }
.st-key-grow_diagram [data-testid="stElementContainer"]:has(> [data-testid="stHtml"] script) { display: none; }
.st-key-narration { border-left: 0.3rem solid #0072B2; padding-left: 0.8rem; }
.st-key-narration p { font-size: 1.12rem; }
</style>
"""


@dataclass(frozen=True)
class Switches:
    """The classroom switches as the page should use them this run."""

    presenter: bool = False
    quiz: bool = False
    lang: str = "en"
    screen: int = SCREENS[0]
    detected: bool = False  # ``screen`` is the width the browser reported (the "auto" choice)


def set_switches(*, presenter: bool | None = None, quiz: bool | None = None, lang: str | None = None,
                 screen: int | None = None) -> None:
    """Set the switches before their widgets draw (lessons, tests); None leaves one as it is."""
    ss = st.session_state
    if screen is not None:
        ss[SCREEN] = int(screen) if str(screen).isdigit() and int(screen) in SCREENS else AUTO
    if presenter is not None:
        ss[PRESENTER] = bool(presenter)
    if quiz is not None:
        ss[QUIZ] = bool(quiz)
    if lang is not None:
        ss[LANG] = LANGUAGES.get(lang, LANGUAGES["en"])


def switches() -> Switches:
    """The switches' current values (without drawing them)."""
    ss = st.session_state
    lang = _CODES.get(ss.get(LANG), "en")
    choice = ss.get(SCREEN, _from_url(SCREEN, AUTO))
    # before their widgets first draw, a link's switches are only in the address (?presenter=true&screen=1920)
    presenter = ss[PRESENTER] if PRESENTER in ss else _from_url(PRESENTER, "") == "true"
    reported = ss.get(SCREEN_PX)
    detected = choice not in SCREENS and isinstance(reported, (int, float)) and reported > 0
    screen = choice if choice in SCREENS else int(reported) if detected else SCREENS[0]
    return Switches(bool(presenter), bool(ss.get(QUIZ, False)), lang, screen, detected)


def _from_url(name: str, default):
    """The address's value of a switch (``default`` when missing; a number for a numeric default)."""
    value = st.query_params.get(name)
    if value is None:
        return default
    if isinstance(default, int) or name == SCREEN:
        return int(value) if value.isdigit() else default
    return value.strip().lower()


def classroom_bar(intro: str | None = None, extra=None) -> Switches:
    """Presenter / Quiz toggles and the narration language, in one row; returns the switches.

    Draw it before anything that depends on presenter view (the switches may come from the URL). ``intro``:
    the page's instructions, a tooltip beside the keys (outside presenter view). ``extra``: a function drawn in
    the row's last column in presenter view (the Grow page's "Start a live class": at the top of the window,
    beside Step, so that pressing it scrolls nothing away).
    """
    ss = st.session_state
    if LANG in ss and ss[LANG] not in _CODES:
        ss[LANG] = LANGUAGES.get(ss[LANG], LANGUAGES["en"])
    presenter = switches().presenter  # (from the URL or the session; the toggle below draws the same value)
    widths = [1.3, 0.8, 1.2, 1.9, 0.8, 1.6] if presenter else [1.5, 1, 1.4, 2.4]
    c1, c2, c3, c4, *rest = st.columns(widths, vertical_alignment="center")
    c1.toggle("Presenter view", key=PRESENTER, bind="query-params",
              help="For a projector: hides the settings and panels, enlarges the diagram, plots and "
                   "text. Step, Undo and Play stay, with their keys.")
    c2.toggle("Quiz", key=QUIZ, bind="query-params",
              help="Before each step, guess which feature (and threshold) wins; then the gain table is "
                   "revealed and the score kept.")
    c3.selectbox("Narration", list(_CODES), key=LANG, bind="query-params",
                 label_visibility="collapsed", help="Language of the narrated steps.")
    sw = switches()
    if sw.presenter:  # the diagram is planned for the projector's width: every box it can hold, whole names
        keys, screen = (c4, rest[0]) if rest else c4.columns([3, 2], vertical_alignment="center")
        # the option's text is the URL's value (?screen=1920): Streamlit seeds a bound select from its text
        screen.selectbox("Screen width (px)", (AUTO, *SCREENS), key=SCREEN, bind="query-params",
                         label_visibility="collapsed", format_func=str,
                         help="Screen width in px: the width of the projector's or screen's window. The diagram is "
                              "planned for it, so a wide screen shows more nodes and whole names. auto: the width "
                              "this browser window has; a number plans for another screen (a link to share).")
        sw = switches()
        keys.caption(KEY_HELP + (f" · screen px (auto = {sw.screen:d}):" if sw.detected else " · screen px:"))
        with st.container(key=PROBE):  # hidden: the browser types its window's width here (SCREEN_JS)
            st.number_input("Window width (px)", key=SCREEN_PX, value=None, min_value=0, step=1,
                            label_visibility="collapsed")
            st.caption(f"px={int(ss.get(SCREEN_PX) or 0):d};")  # what the server has: the script compares
            st.html(SCREEN_JS, unsafe_allow_javascript=True, width="content")  # (runs though not displayed)
        if extra is not None and rest:
            with rest[1]:
                extra()
        sw = switches()
    else:
        c4.caption(KEY_HELP, help=intro)
    st.html(PRESENTER_CSS if sw.presenter else NARRATION_CSS)
    return sw


def link_params() -> dict[str, str]:
    """The switches as query parameters for a shared link (only those that are on / not English)."""
    sw = switches()
    out = {}
    if sw.presenter:
        out[PRESENTER] = "true"
    if sw.quiz:
        out[QUIZ] = "true"
    if sw.lang != "en":
        out[LANG] = LANGUAGES[sw.lang]
    if sw.presenter and not sw.detected and sw.screen != SCREENS[0]:  # a width chosen by hand, not this window's
        out[SCREEN] = str(sw.screen)
    return out


# ----------------------------------------------------------------------------------- narration
def narrations(grower, lang: str = "en", last: int | None = None) -> list[list[str]]:
    """The sentences of the records in ``grower.history`` (the latest ``last`` of them, or all), cached per
    session and language.

    The cache key of a record is a hash of the history up to it, so undo and replays reuse the
    sentences, and a record whose nodes were removed later (a collapse) keeps the sentences it had.
    One that can no longer be narrated (never seen before its nodes went) gets an empty list. Only the
    records asked for are narrated: each needs its node's candidate splits, and "Grow to end" can leave
    thousands of records.
    """
    ss = st.session_state
    cache = ss.get(NARRATIONS)
    if not isinstance(cache, dict) or cache.get("version") != state.data_version() or len(cache) > 20_000:
        cache = ss[NARRATIONS] = {"version": state.data_version()}
    noun = row_noun(state.current_dataset_name())
    history = grower.history
    first = 0 if last is None else max(0, len(history) - last)
    out, prefix = [], 0
    for rec in history:
        prefix = _record_key(prefix, rec)
        if rec.index < first:
            continue
        key = (lang, prefix)
        if key not in cache:
            try:
                cache[key] = narrate_step_lines(rec, grower, lang=lang, noun=noun)
            except EngineError:
                cache[key] = []
        out.append(cache[key])
    return out


def _record_key(prefix: int, rec) -> int:
    """The narration cache's key of ``rec``: a hash of the history up to it (``prefix``: the one before)."""
    test = None if rec.split is None else (rec.split.describe(), rec.split.gain)
    return hash((prefix, rec.index, rec.action, rec.node_id, test, rec.stopped))


def narrate_latest(grower, cache: dict, dataset_name: str) -> None:
    """Put the latest record's sentences (every language) into ``cache`` now, while its nodes exist: a lesson
    replayed with a collapse later on (:mod:`ui.classroom.lesson_io`) tells its steps as they were told."""
    prefix = 0
    for rec in grower.history:
        prefix = _record_key(prefix, rec)
    noun = row_noun(dataset_name)
    for lang in LANGUAGES:
        try:
            cache[(lang, prefix)] = narrate_step_lines(grower.history[-1], grower, lang=lang, noun=noun)
        except EngineError:
            cache[(lang, prefix)] = []


LATEST = "_narration_latest"  # (grower, steps, tree fingerprint, language, data version) -> the latest sentence


def latest_narration(grower, lang: str = "en") -> str | None:
    """The sentence(s) of the latest step, or None before the first step; remembered until the tree or the
    language changes (its cache key hashes the whole history: ~0.1 s on every click after 6,000 steps)."""
    if not grower.history:
        return None
    key = (id(grower), id(grower.history[-1]), len(grower.history), grower.n_steps, grower.tree.fingerprint, lang,
           state.data_version())
    kept = st.session_state.get(LATEST)
    if not (isinstance(kept, tuple) and kept[0] == key):
        kept = st.session_state[LATEST] = (key, " ".join(narrations(grower, lang, last=1)[-1]) or None)
    return kept[1]


def render_narration(grower, lang: str = "en") -> None:
    """The latest step in words, under the diagram (text labels, not only colours)."""
    text = latest_narration(grower, lang)
    note = state.step_note(grower)  # the teacher's own note on this step (a lesson file carries it)
    with aria_tree.status("narration"), st.container(key="narration"):  # read out after each step
        if text is None:
            st.markdown(md_escape("Press Step (or the right arrow key): each step is explained here in words."))
        else:  # the engine's sentences whole (their names are cut in the engine): C4.5 in German runs to 529
            st.markdown(md_escape(text, limit=NARRATION_LIMIT))  # characters, and md_escape's 300 cut it mid-word
        if note:
            with st.container(key="step_note"):
                st.markdown(":material/edit_note: **Note:** " + md_escape(note, limit=1000))


def render_narrated_log(grower, lang: str = "en", limit: int = LOG_LIMIT) -> None:
    """Every step's sentences, newest first (the latest ``limit`` steps)."""
    history = grower.history
    if not history:
        st.caption("No steps yet: the narrated steps appear here.")
        return
    texts = narrations(grower, lang, last=limit)
    notes = state.step_notes(grower)  # the teacher's notes, by steps taken
    st.markdown("**Narrated steps** (newest first)")
    pairs = list(zip(history[-limit:], texts))
    for rec, lines in reversed(pairs):
        note = notes.get(rec.index + 1)
        st.markdown(f"**{rec.index + 1:d}.** " + md_escape(" ".join(lines) or rec.action, limit=NARRATION_LIMIT)
                    + (" *Note:* " + md_escape(note, limit=1000) if note else ""))
    if len(history) > limit:
        st.caption(f"The {len(history) - limit:,} earlier steps are in the step log table and its CSV export.")


# -------------------------------------------------------------------------------------- pruning
def render_prune_narration(result, limit: int = LOG_LIMIT) -> None:
    """A pruning result's decisions in words (for the Prune page), in the session's narration language."""
    from engine.teach.narration_prune_boost import narrate_prune_result

    try:
        lines = narrate_prune_result(result, lang=switches().lang, noun=row_noun(state.current_dataset_name()))
    except Exception as exc:  # noqa: BLE001 - the words are an extra: never cost the page its log
        from ui.errors import LOG

        LOG.error("Pruning narration failed: %s", exc, exc_info=exc)
        return
    if not lines:
        return
    with st.expander(f"The decisions in words ({len(lines):,})"):
        for i, line in enumerate(lines[:limit], start=1):
            st.markdown(f"{i:d}\\. " + md_escape(line, limit=NARRATION_LIMIT))
        if len(lines) > limit:
            st.caption(f"{len(lines) - limit:,} more decisions are in the log table above.")
