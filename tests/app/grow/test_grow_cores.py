"""The Cores setting (shared with Ensembles, Evaluate and Prune) reaches the Grow page's single tree."""

from __future__ import annotations

from ui import state

GROW = "pages/grow.py"


def test_grow_page_tree_uses_the_cores_setting(app_test):
    at = app_test(GROW)
    assert not at.exception
    assert at.session_state[state.GROWER].n_jobs is None          # automatic: every core
    at.session_state[state.N_JOBS] = 1
    at.session_state[state.GROWER] = None                         # the next tree is made with the setting
    at.run()
    assert not at.exception
    grower = at.session_state[state.GROWER]
    assert grower.n_jobs == 1 and grower.threads == 1
    at.button(key="_w_grow_grow").click().run()                   # Grow to end, on one core
    assert not at.exception
    assert at.session_state[state.GROWER].tree.n_leaves > 1
