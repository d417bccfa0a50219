"""Introduction: what the explorer does and where to click first."""

from __future__ import annotations

import re
from pathlib import Path

import streamlit as st
from streamlit.errors import StreamlitAPIException

from ui import state

ROOT = Path(__file__).resolve().parent.parent

# (script, title, icon, what it is for). Pages that do not exist yet are simply not listed.
TOUR = [
    ("pages/data.py", "Data", ":material/table_view:",
     "Pick a sample or upload a CSV, check each column's kind, choose the target and the split."),
    ("pages/grow.py", "Grow", ":material/account_tree:",
     "Choose the algorithm (ID3, C4.5, CART), impurity and stopping rules; grow the tree one "
     "split at a time, click any box of the diagram to read its gain table with the arithmetic, "
     "and pick which open leaf splits next."),
    ("pages/prune.py", "Prune", ":material/content_cut:",
     "Cut the tree back (cost-complexity, reduced-error) and watch accuracy change."),
    ("pages/evaluate.py", "Evaluate", ":material/fact_check:",
     "Accuracy, confusion matrix and errors on the train, validation and test rows."),
    ("pages/rules.py", "Rules", ":material/rule:", "The tree as if-then rules."),
    ("pages/ensembles.py", "Ensembles", ":material/forest:",
     "Bagging, random forests and boosting: many trees voting together."),
    ("pages/theory.py", "Theory", ":material/functions:",
     "Impurity curves, why gain favours many-valued columns, how much data a tree needs."),
    ("pages/lessons.py", "Lessons", ":material/school:", "Guided exercises for a class."),
    ("pages/join.py", "Join a live class", ":material/groups:",
     "For students: follow the teacher's tree on your own phone or laptop and vote on the next split "
     "(the teacher starts the class in the Grow page's presenter view)."),
]


def link(path: str, label: str, icon: str) -> None:
    """A link to a page, or plain text when the page is not registered in this version."""
    try:
        st.page_link(path, label=label, icon=icon)
    except StreamlitAPIException:
        st.markdown(f"{icon} {label}")  # md-safe: the constant PAGES list above


st.title("Decision-tree explorer")
st.markdown(
    "Watch a decision tree learn, **one split at a time**. For every node you see which question "
    "the algorithm asks, which alternatives it compared and the arithmetic behind its choice."
)

name = state.current_dataset_name()
st.info(
    "A small classic is already loaded: Mitchell's *Play tennis* (14 days, 4 weather columns). "
    "Go straight to **Grow**, or choose other data first." if name == state.DEFAULT_SAMPLE
    else "Your data is loaded. Check it on **Data**, then go to **Grow**.",
    icon=":material/lightbulb:",
)

st.subheader("Three steps")
first, second, third = st.columns(3, gap="medium")
with first.container(border=True):
    st.markdown("**1 \u00b7 Choose data**  \nPick a sample or upload a CSV file. The target and the "
                "kind of each column are detected for you; change them if you like.")
    link("pages/data.py", "Open Data", ":material/table_view:")
with second.container(border=True):
    st.markdown("**2 \u00b7 Grow the tree**  \nPick an algorithm and press **Step**: each press "
                "splits one node and shows the gain of every candidate.")
    if (ROOT / "pages/grow.py").is_file():
        link("pages/grow.py", "Open Grow", ":material/account_tree:")
with third.container(border=True):
    st.markdown("**3 \u00b7 Check it**  \nPrune the tree, test it on rows it has not seen and "
                "compare it with an ensemble of trees.")
    for path, title, icon, _ in TOUR[2:5]:
        if (ROOT / path).is_file():
            link(path, f"Open {title}", icon)
            break

st.subheader("Pages")
for path, title, icon, blurb in TOUR:
    if (ROOT / path).is_file():
        left, right = st.columns([1, 4], vertical_alignment="center")
        with left:
            link(path, title, icon)
        right.caption(blurb)

st.subheader("Good to know")
st.markdown(
    "- The **sidebar** always shows the active data set, its target and the random seed.\n"
    "- Tree diagrams pan by dragging and zoom with the mouse wheel once you click in them (or hold Ctrl); "
    "until then the wheel scrolls the page. Double-click shows the whole view, a “+k nodes” box shows the "
    "tree below it, and the buttons above a diagram lead back up.\n"
    "- Changing the data, the target or the split **resets the tree**.\n"
    "- Your tree lives in your browser session only; uploaded files are kept in memory, never written to disk."
)

st.subheader("User guide")
st.caption("Every page and control explained, how to run the app for a class, and what makes it fast "
           "(the same text as docs/USER_GUIDE.md).")
with st.expander("Read the user guide", icon=":material/menu_book:"):
    guide = ROOT / "docs" / "USER_GUIDE.md"
    if guide.is_file():
        # Our own text (no user content): its relative links point into the repository, so they are cut.
        text = guide.read_text(encoding="utf-8").split("\n", 1)[1]
        st.markdown(re.sub(r"\[([^\]]+)\]\((?!https?:)[^)]*\)", r"\1", text))
    else:
        st.info("The user guide (docs/USER_GUIDE.md) is not part of this installation.")
