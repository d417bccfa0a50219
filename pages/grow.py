"""Grow: build a decision tree one split at a time, see why each split won, and steer it by hand."""

from __future__ import annotations

from contextlib import nullcontext
from functools import partial

import streamlit as st

from engine.errors import EngineError
from ui.classroom import lesson_io, live_teacher, presenter as classroom, quiz as classroom_quiz, share
from ui.grow import exports, inspector, lesson_steps, query
from ui import state, tree_view, why
from ui.grow import controls as controls
from ui.grow import layout as layout
from ui.grow import settings as settings
from ui.grow import views as views
from ui.errors import friendly_errors, show_engine_error
from ui.model import grow_view as model_grow
from ui.widgets import md_escape

TABS = ["Inspect a node", "Step log", "Query point", "Why this prediction", "Export & share"]
W_TAB = "_w_grow_tab"
W_WIDE = "_w_grow_wide"

if state.current_model() is not None:  # a model trained elsewhere: its trees instead of the grower
    st.title("Grow")
    with friendly_errors("grow: model"):
        model_grow.render_page(state.current_model())
    st.stop()
# one row for the title and the classroom switches, the caption in the title's help: the tree starts in the
# upper half of a 1366 x 768 window (it started at ~500 px under a title, a caption and the switches' row)
heading, bar = (st.columns([1, 6], vertical_alignment="center") if not classroom.switches().presenter
                else (st.container(), st.container()))  # presenter view: no title, the tree first
share.apply_link_once()

split = state.current_split()
train = split.train
with bar:  # presenter view, quiz, narration language (may come from the URL); the page's instructions in a tooltip
    sw = classroom.classroom_bar(intro="Press **Step** to split one node, or **Play** to watch the tree grow. Click "
                                       "a box: the inspector beside the diagram shows its gain table and arithmetic; "
                                       "you can force another split or collapse a subtree.",
                                 extra=lambda: None if live_teacher.teaching() else live_teacher.start_button())
if not sw.presenter:
    heading.title("Grow")
if not sw.presenter:
    settings.settings_panel(train.task, has_validation=split.validation is not None and len(split.validation) > 0)

try:
    grower = controls.session_grower()
except EngineError as err:
    show_engine_error(err)
    if state.current_config().validation:
        st.page_link("pages/data.py", label="Set a validation share on the Data page",
                     icon=":material/table_view:")
    share.sync_link(None)
    st.stop()

controls.toolbar(grower, compact=sw.presenter)
tree = grower.tree
last = controls.last_split_node(grower)
query_values = query.current_query(grower.dataset)
query_result = query.query_result(tree, query_values, grower.dataset) if query_values else None

pictures = st.container() if sw.presenter else nullcontext()  # projector: the tree above the status line
status_col, wide_col = st.columns([5, 1], vertical_alignment="center")
status_col.markdown(f"**{controls.status_text(grower)}** &nbsp;·&nbsp; "
                    f"{settings.config_summary(state.current_config(), train.task, len(grower.dataset))}")
with status_col:
    lesson_steps.render_status(grower)  # "Step k of n of the prepared lesson" (a lesson opened before its end)
teaching = live_teacher.teaching(say=not sw.presenter)  # a live class (presenter view: its note is in the bar)
if teaching:
    live_teacher.sync(grower, controls.status_text(grower))  # students follow before the diagram draws
if teaching and not sw.presenter:  # (presenter view: "Start a live class" is in the classroom bar)
    live_teacher.render_compact()
if not sw.presenter:
    wide_col.toggle("Wide diagram", key=W_WIDE, help="The diagram takes the whole width; the node inspector "
                                                    "and the other tabs move below it.")
feats = controls.two_features()
if feats:
    st.caption(f"Two-feature mode: growing on {md_escape(feats[0])} and {md_escape(feats[1])} only "
               "(see the region plot).")

step_action = partial(controls.run_action, "step")  # the quiz claims its press itself (claim_press)
if sw.quiz and not sw.presenter:
    classroom_quiz.render_quiz(grower, step_action)

if sw.presenter:  # projector: the diagram beside the region plot or the class's panel (unless it is big)
    wide = ((bool(st.session_state.get(W_WIDE)) or not views.has_region_plot(grower)
             or tree.n_leaves >= views.WIDE_LEAVES) and not (sw.quiz or teaching))
else:  # the inspector's tabs beside the diagram, unless the user asks for the whole width
    wide = bool(st.session_state.get(W_WIDE))
with pictures:
    diagram_col, side_col = layout.areas(presenter=sw.presenter, wide=wide)
region_col = side_col if sw.presenter else diagram_col
with diagram_col, st.container(key="grow_diagram"):
    views.render_diagram(tree, highlight=last, path=query_result["path_ids"] if query_result else None,
                         big=sw.presenter, wide=wide, screen=sw.screen)
    classroom.render_narration(grower, sw.lang)
    if not sw.presenter:  # preparing a lesson: a note on this step, shown with the narration
        lesson_io.render_note_input(grower)
    if views.stop_reason_legend(tree):
        with st.expander("Why the leaves stopped"):
            st.text(views.stop_reason_legend(tree))
with region_col:
    if teaching and sw.presenter:  # projector: code, QR, answers so far, Reveal, the class's guesses
        live_teacher.render_panel(grower, controls.status_text(grower))
    if sw.quiz and sw.presenter:  # projector: the question beside the diagram
        classroom_quiz.render_quiz(grower, step_action)
    if views.has_region_plot(grower) or not sw.presenter:
        views.render_regions(grower, highlight=views.region_focus(tree, state.selected_node(), last),
                             query=query_values, two_features=feats, set_two_features=controls.set_two_features,
                             big=sw.presenter)

if sw.presenter:  # projector: nothing below the pictures
    share.sync_link(grower)
    st.stop()

with side_col:
    tabs = st.tabs(TABS, key=W_TAB, on_change="rerun")
    with tabs[0]:
        if tabs[0].open is not False:
            # a fragment: choosing a node, a candidate or a threshold reruns only the inspector
            st.fragment(inspector.render_inspector)(grower, narrow=not wide)
    with tabs[1]:
        if tabs[1].open is not False:
            views.render_step_log(grower)
            classroom.render_narrated_log(grower, sw.lang)
    with tabs[2]:
        if tabs[2].open is not False:
            query.render_query_form(grower.dataset, tree)
            query.render_query_result(tree, grower.dataset)
    with tabs[3]:
        if tabs[3].open is not False:
            with friendly_errors("grow: why"):
                why.render_for_tree(tree, grower.dataset, query.query_frame(query_values, grower.dataset)
                                    if query_values else None)
    with tabs[4]:
        if tabs[4].open is not False:
            st.subheader("Download")
            exports.render_downloads(tree, views.diagram_source(tree), views.cached_step_log(grower),
                                     state.current_dataset_name())
            st.subheader("Share a link")
            wanted = share.current_params(grower)
            kind, sentence = share.share_note(grower, wanted)
            getattr(st, kind)(sentence)
            if wanted:
                st.code(share.link_for(st.context.url, {**wanted, **classroom.link_params()}), language=None,
                        wrap_lines=True)
            st.subheader("Save as a lesson file")
            lesson_io.render_save(grower)
            st.subheader("Import a tree")
            exports.render_import(lambda t: tree_view.tree_chart(t, key="grow_import_tree"))

share.sync_link(grower)
