"""The tree diagram as an ARIA tree (the WAI-ARIA tree-view pattern), for the keyboard and screen readers.

Plotly draws the diagram as one picture: a screen reader hears its text run together, and the keyboard cannot
reach a box. :func:`describe` puts beside every tree chart a ``tree`` with one ``treeitem`` per drawn box (a
node, or a ``+k nodes`` box), nested as in the diagram (``aria-level``, ``aria-setsize``/``aria-posinset``,
``aria-expanded``; the inspector's node ``aria-selected``), each named by what a sighted reader reads
(:func:`engine.viz.tree_labels.node_name`). The keyboard works as the pattern says: Tab reaches the tree once
(roving tabindex), Up/Down go to the previous/next item, Right opens an item or goes to its first child, Left
closes it or goes to its parent, Home/End to the first/last item, ``*`` opens the siblings, Enter (or Space)
does what a click on the box does (the Grow page opens the node in the inspector; a ``+k nodes`` box shows
the subtree below it) by sending the chart the same selection event a click sends. (The script also gives
the keyboard focus back to a keyed widget that a rerun draws anew, e.g. Step pressed with Enter.) The focused box is
outlined on the diagram (a dashed purple frame drawn through Plotly's own relayout, as
:data:`ui.charts.OVERLAY_JS` draws its shapes, so the chart is not sent again) and its name is shown below
the chart; the focus stays on its node across Step, Undo and the reruns an Enter causes (the nearest
ancestor that is left when it goes).

Security: ``st.html`` takes constant text only and the proxy's Content-Security-Policy runs an inline script
only by its hash (deploy/dtx-site.inc). So the items travel as JSON text in a hidden container (``st.text``:
never interpreted), and one constant script, :data:`ARIA_JS`, builds the tree with ``textContent``-safe DOM
calls (``setAttribute``; never ``innerHTML``). The same script gives every container whose key starts with
:data:`STATUS_PREFIX` ``role="status"`` (a polite live region: narration, live vote counts, the reveal),
see :func:`status`.
"""

from __future__ import annotations

import json

import streamlit as st

from engine.viz.tree_figure import FOLD
from engine.viz.tree_labels import fold_name, node_name

__all__ = ["ARIA_PREFIX", "DATA_PREFIX", "STATUS_PREFIX", "ARIA_JS", "ARIA_CSS", "tree_payload", "describe", "status",
           "container_key"]

ARIA_PREFIX = "dtx_aria_"  # the container holding a chart and its ARIA tree
DATA_PREFIX = "dtx_ariajson_"  # the hidden container holding the tree's items as JSON text
STATUS_PREFIX = "dtx_status_"  # containers that are polite live regions (role="status")


def container_key(key: str) -> str:
    """Key of the container that holds the chart ``key`` and its ARIA tree."""
    return ARIA_PREFIX + key


def tree_payload(tree, plan, *, label: str, selected=None, selectable: bool = False, unknown_inner: bool = False,
                 open_nodes=None, marked=(), marked_label: str = "pruned", names: dict | None = None) -> dict:
    """The ARIA tree of one view (``plan``, a :class:`~engine.viz.tree_layout.ViewPlan`) as plain data: one item
    per drawn box, in the plan's pre-order, with its node id and kind, spoken name, level, position among its
    siblings, child items and where its box is drawn (CSS px, as the figure's axes: the outline's place).

    ``selected``: the inspector's node (``aria-selected`` when ``selectable``: a click/Enter selects a node).
    ``unknown_inner``: the file holds no row counts for inner nodes (names without counts, as the boxes).
    ``open_nodes``: ids of the open leaves (default: the drawn leaves without a stop reason, as the figure).
    ``marked``: subtrees greyed in the figure (a pruning preview): their items' names end in ``marked_label``.
    ``names``: a dict kept for this tree object (:func:`describe` keeps one per session): the names made before
    are reused (a branch's wording costs ~0.7 ms; a click that only moves the selection makes none)."""
    nodes = tree.nodes
    items = plan.items
    open_ids = ({nid for nid, kind in items if kind != FOLD and nodes[nid].is_leaf and nodes[nid].stop_reason is None}
                if open_nodes is None else {int(i) for i in open_nodes})
    parent = [-1] * len(items)
    for i, kids in enumerate(plan.children):
        for c in kids:
            parent[c] = i
    grey = set()
    for m in marked:
        if 0 <= int(m) < len(nodes) and nodes[int(m)] is not None:
            grey.update(tree.subtree_ids(int(m)))
    size = plan.size
    fold_h = size.line_h + 2 * size.pad
    out = []
    for i, (nid, kind) in enumerate(items):
        node = nodes[nid]
        siblings = plan.children[parent[i]] if parent[i] >= 0 else (i,)
        if kind == FOLD:
            cut = bool(grey) and (nid in grey or all(c in grey for c in node.children))  # the figure's "+k pruned"
            name = fold_name(node, int(plan.hidden[i])) + (f"; {marked_label}" if cut else "")
        else:
            known = not (unknown_inner and (not node.is_leaf or (node.n_node_samples == 0 and not node.weight > 0)))
            memo_key = (nid, nid in open_ids, known)
            name = names.get(memo_key) if names is not None else None
            if name is None:
                name = node_name(tree, node, open_ids=open_ids, known=known)
                if names is not None:
                    names[memo_key] = name
            if nid in grey:
                name += f"; {marked_label}"
        out.append({"id": int(nid), "kind": int(kind), "name": name, "level": int(plan.level[i]) + 1,
                    "size": len(siblings), "pos": siblings.index(i) + 1, "kids": list(plan.children[i]),
                    "x": round(float(plan.x[i]), 1), "top": round(float(plan.top[i]), 1),
                    "h": round(fold_h if kind == FOLD else size.box_h, 1)})
    sel = None if selected is None else int(selected)
    return {"label": label, "w": round(float(size.box_w), 1), "selectable": bool(selectable),
            "selected": sel if sel is not None and sel in plan.drawn else None, "items": out}


#: Hides the containers of the items' JSON text (and their layout wrappers); the container of a chart and its
#: tree is the frame the tree is placed in (a literal: st.html takes constant text only).
ARIA_CSS = ("<style>[class*='st-key-dtx_ariajson_'], [data-testid='stLayoutWrapper']:has(> [class*='st-key-dtx_ariajson_'])"
            " { display: none !important; } [class*='st-key-dtx_aria_'] { position: relative; }"
            " .dtx-aria-caption { font-size: 0.85rem; border-left: 3px dashed #6A1B9A; padding: 0 0.5rem;"
            " color: inherit; }</style>")

#: The one constant page script behind every chart's ARIA tree (see the module docstring). Its SHA-256 is in
#: the proxy's script-src (deploy/dtx-site.inc; tests/ui/test_aria_tree.py checks).
ARIA_JS = """<script>
(() => {
  if (window.__dtxAria) { window.__dtxAria(); return; }
  const views = {};
  const OUTLINE = "aria:focus";
  const keyOf = box => {
    const c = [...box.classList].find(n => n.startsWith("st-key-dtx_aria_"));
    return c ? c.slice("st-key-dtx_aria_".length) : null;
  };
  const relayout = (gd, shapes) => {
    const bar = gd._fullLayout && gd._fullLayout._modeBar;
    const zoom = bar && bar.buttons.flat().find(b => b && b.name === "zoomIn2d");
    if (!zoom) return false;
    zoom.click(gd, {currentTarget: {getAttribute: n => (n === "data-attr" ? "shapes" : shapes), setAttribute: () => {}}});
    return true;
  };
  const outline = (box, view) => {
    const gd = box.querySelector(".js-plotly-plot");
    if (!gd || !gd._fullLayout) return;
    const it = view.focused && view.data ? view.data.items[view.current] : null;
    const w = it ? view.data.w / 2 + 4 : 0;
    const want = it ? [it.x - w, it.x + w, -(it.top - 4), -(it.top + it.h + 4)] : null;
    const now = (gd.layout.shapes || []).find(s => s.name === OUTLINE);
    const have = now ? [now.x0, now.x1, now.y0, now.y1] : null;
    if (JSON.stringify(want) === JSON.stringify(have)) return;
    const shapes = (gd.layout.shapes || []).filter(s => s.name !== OUTLINE);
    if (want) {
      shapes.push({name: OUTLINE, type: "rect", xref: "x", yref: "y", layer: "above", x0: want[0], x1: want[1],
                   y0: want[2], y1: want[3], line: {color: "#6A1B9A", width: 3, dash: "dash"},
                   fillcolor: "rgba(0,0,0,0)"});
    }
    window.__dtxAriaRelayouts = (window.__dtxAriaRelayouts || 0) + 1;
    relayout(gd, shapes);
  };
  const caption = (box, view) => {
    let cap = box.__dtxCaption;
    if (!cap || !cap.isConnected) {
      cap = box.__dtxCaption = document.createElement("div");
      cap.className = "dtx-aria-caption";
      cap.setAttribute("aria-hidden", "true");
      box.appendChild(cap);
    }
    const it = view.focused && view.data ? view.data.items[view.current] : null;
    const text = it ? it.name : "";  // changed only when it differs: each change wakes the page's observers
    if (cap.hidden !== !it) cap.hidden = !it;
    if (cap.textContent !== text) cap.textContent = text;
  };
  const show = (box, view) => { outline(box, view); caption(box, view); };
  const trailOf = (data, i) => {
    const parent = {};
    data.items.forEach((it, j) => it.kids.forEach(k => { parent[k] = j; }));
    const out = [];
    for (let j = i; j !== undefined; j = parent[j]) out.unshift(`${data.items[j].id}:${data.items[j].kind}`);
    return out;
  };
  const visible = tree => [...tree.querySelectorAll("[role=treeitem]")].filter(el => !el.parentElement.closest("[role=group][hidden]"));
  const setOpen = (view, el, open) => {
    const group = el.querySelector(":scope > [role=group]");
    if (!group) return;
    el.setAttribute("aria-expanded", String(open));
    group.hidden = !open;
    const k = view.data.items[el.__dtxI];
    (open ? view.closed.delete(`${k.id}:${k.kind}`) : view.closed.add(`${k.id}:${k.kind}`));
  };
  const move = (box, view, el) => {
    if (!el) return;
    view.tree.querySelectorAll("[role=treeitem][tabindex='0']").forEach(o => o.setAttribute("tabindex", "-1"));
    el.setAttribute("tabindex", "0");
    view.current = el.__dtxI;
    view.trail = trailOf(view.data, view.current);
    el.focus({preventScroll: true});
    show(box, view);
  };
  const activate = (box, view, i) => {
    const it = view.data.items[i];
    if (it.kind === 0 && !view.data.selectable) return;
    const gd = box.querySelector(".js-plotly-plot");
    if (!gd || !gd._fullData) return;
    const c = gd._fullData.findIndex(t => t.name === "nodes");
    if (c < 0) return;
    const trace = gd._fullData[c];
    gd.emit("plotly_selected", {points: [{curveNumber: c, pointNumber: i, pointIndex: i, x: trace.x[i], y: trace.y[i],
                                          customdata: [it.id, it.kind], data: gd.data[c], fullData: trace}]});
  };
  const keydown = (box, view, e) => {
    const el = e.target.closest("[role=treeitem]");
    if (!el || e.altKey || e.ctrlKey || e.metaKey) return;
    const list = visible(view.tree), at = list.indexOf(el);
    const open = el.getAttribute("aria-expanded");
    const up = el.parentElement.closest("[role=treeitem]");
    switch (e.key) {
      case "ArrowDown": move(box, view, list[at + 1]); break;
      case "ArrowUp": move(box, view, list[at - 1]); break;
      case "Home": move(box, view, list[0]); break;
      case "End": move(box, view, list[list.length - 1]); break;
      case "ArrowRight":
        if (open === "false") setOpen(view, el, true);
        else if (open === "true") move(box, view, el.querySelector(":scope > [role=group] > [role=treeitem]"));
        break;
      case "ArrowLeft":
        if (open === "true") setOpen(view, el, false);
        else move(box, view, up);
        break;
      case "*":
        [...el.parentElement.children].forEach(s => { if (s.getAttribute("aria-expanded") === "false") setOpen(view, s, true); });
        break;
      case "Enter": case " ": activate(box, view, el.__dtxI); break;
      default: return;
    }
    e.preventDefault();
    e.stopPropagation();  // the page's own shortcuts (Step on Right, Undo on Left, Reset on Home) stay out of the tree
  };
  const build = (box, key, data) => {
    const view = views[key] || (views[key] = {closed: new Set(), trail: null, focused: false, current: 0});
    const old = view.tree && view.tree.isConnected && box.contains(view.tree) ? view.tree : null;
    const active = document.activeElement;
    const hadFocus = old ? old.contains(active) : view.focused && (!active || active === document.body);
    view.data = data;
    const tree = document.createElement("div");
    tree.setAttribute("role", "tree");
    tree.setAttribute("aria-label", data.label);
    tree.className = "dtx-aria-tree";
    tree.style.cssText = "position:absolute;left:0;top:0;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap;";
    const els = data.items.map((it, i) => {
      const el = document.createElement("div");
      el.setAttribute("role", "treeitem");
      el.setAttribute("aria-label", it.name);
      el.setAttribute("aria-level", String(it.level));
      el.setAttribute("aria-setsize", String(it.size));
      el.setAttribute("aria-posinset", String(it.pos));
      el.setAttribute("tabindex", "-1");
      if (data.selectable && it.kind === 0) el.setAttribute("aria-selected", String(it.id === data.selected));
      el.__dtxI = i;
      return el;
    });
    const byKey = {};
    data.items.forEach((it, i) => {
      byKey[`${it.id}:${it.kind}`] = i;
      if (!it.kids.length) return;
      const group = document.createElement("div");
      group.setAttribute("role", "group");
      it.kids.forEach(k => group.appendChild(els[k]));
      els[i].appendChild(group);
      const open = !view.closed.has(`${it.id}:${it.kind}`);
      els[i].setAttribute("aria-expanded", String(open));
      group.hidden = !open;
    });
    if (els.length) tree.appendChild(els[0]);
    let cur = null;
    for (const k of (view.trail || []).slice().reverse()) { if (byKey[k] !== undefined) { cur = byKey[k]; break; } }
    if (cur === null) cur = data.selected !== null && byKey[`${data.selected}:0`] !== undefined ? byKey[`${data.selected}:0`] : 0;
    for (let p = els[cur] && els[cur].parentElement; p && p !== tree; p = p.parentElement) {
      if (p.getAttribute("role") === "treeitem" && p.getAttribute("aria-expanded") === "false") setOpen(view, p, true);
    }
    view.current = cur;
    if (els[cur]) els[cur].setAttribute("tabindex", "0");
    tree.addEventListener("keydown", e => keydown(box, view, e));
    tree.addEventListener("focusin", e => {
      const el = e.target.closest("[role=treeitem]");
      view.focused = true;
      if (el && el.__dtxI !== view.current) { move(box, view, el); return; }
      show(box, view);
    });
    tree.addEventListener("focusout", e => {
      if (view.building || (e.relatedTarget && tree.contains(e.relatedTarget))) return;
      view.focused = false;
      show(box, view);
    });
    view.building = true;
    if (old) old.replaceWith(tree); else box.appendChild(tree);
    view.tree = tree;
    view.building = false;
    if (hadFocus && els[cur]) { view.focused = true; els[cur].focus({preventScroll: true}); view.trail = trailOf(data, cur); }
    show(box, view);
  };
  // A rerun may draw a widget anew (its element replaced): the keyboard focus would fall to the page's start. The
  // keyed widget that had the focus gets it back when it is drawn again (Step pressed with Enter stays focused).
  let last = null;
  document.addEventListener("focusin", e => {
    const t = e.target;
    const box = t instanceof Element && !t.closest(".dtx-aria-tree") ? t.closest("[class*='st-key-']") : null;
    const key = box && [...box.classList].find(c => c.startsWith("st-key-"));
    last = key ? {el: t, key} : null;
  }, true);
  const refocus = () => {
    if (!last || last.el.isConnected) return;
    if (document.activeElement && document.activeElement !== document.body) { last = null; return; }
    const box = document.querySelector("." + CSS.escape(last.key));
    const el = box && box.querySelector("button:not([disabled]), input:not([disabled]), textarea, select, a[href], [tabindex='0']");
    if (el) el.focus({preventScroll: true});
  };
  const scan = () => {
    refocus();
    document.querySelectorAll("[class*='st-key-dtx_aria_']").forEach(box => {
      const key = keyOf(box);
      if (!key) return;
      const holder = box.querySelector("[class*='st-key-dtx_ariajson_'] [data-testid='stText']");
      const text = holder ? holder.textContent : "";
      const view = views[key];
      if (view && view.text === text && view.tree && box.contains(view.tree)) { show(box, view); return; }
      let data;
      try { data = JSON.parse(text); } catch (e) { return; }
      if (!data || !Array.isArray(data.items)) return;
      build(box, key, data);
      views[key].text = text;
    });
    document.querySelectorAll("[class*='st-key-dtx_status_']:not([role=status])").forEach(el => {
      el.setAttribute("role", "status");
      el.setAttribute("aria-live", "polite");
    });
  };
  let queued = false;
  const later = () => { if (!queued) { queued = true; setTimeout(() => { queued = false; scan(); }, 30); } };
  window.__dtxAria = later;
  new MutationObserver(later).observe(document.body, {childList: true, subtree: true, characterData: true});
  scan();
})();
</script>"""


NAMES = "_aria_names"  # session key: [(tree, {(node id, open, known): name}), ...], the latest trees first
NAMES_KEPT = 6  # trees whose names a session keeps (Grow's tree, Prune's before/after, a member, ...)


def _names_for(tree) -> dict:
    """The spoken names made for this tree object in this session (trees are immutable: one object per state)."""
    store = st.session_state.get(NAMES)
    if not isinstance(store, list):
        store = st.session_state[NAMES] = []
    for i, (kept, names) in enumerate(store):
        if kept is tree:
            store.insert(0, store.pop(i))
            return names
    store.insert(0, (tree, {}))
    del store[NAMES_KEPT:]
    return store[0][1]


def describe(tree, plan, *, key: str, label: str = "Decision tree", selected=None, selectable: bool = False,
             unknown_inner: bool = False, open_nodes=None, marked=(), marked_label: str = "pruned") -> None:
    """The ARIA tree of the chart ``key`` (call it inside ``st.container(key=container_key(key))``, beside the
    chart): the items' JSON in a hidden container and the page script :data:`ARIA_JS` that builds the tree.
    ``label``: the tree's accessible name (user text is fine: it is only ever set as an attribute)."""
    payload = tree_payload(tree, plan, label=label, selected=selected, selectable=selectable,
                           unknown_inner=unknown_inner, open_nodes=open_nodes, marked=marked,
                           marked_label=marked_label, names=_names_for(tree))
    st.html(ARIA_CSS)
    with st.container(key=DATA_PREFIX + key):
        st.text(json.dumps(payload, ensure_ascii=False, separators=(",", ":")))
    st.html(ARIA_JS, unsafe_allow_javascript=True, width="content")


def status(key: str):
    """A container that screen readers announce politely when its text changes (``role="status"``, set by
    :data:`ARIA_JS`): ``with aria_tree.status("grow_narration"): st.markdown(...)``."""
    st.html(ARIA_JS, unsafe_allow_javascript=True, width="content")
    return st.container(key=STATUS_PREFIX + key)
