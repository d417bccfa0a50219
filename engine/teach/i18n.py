"""Translation tables for the classroom narration: message id -> template, one table per language.

Adding a language means adding one dict to :data:`MESSAGES` with every id of the English table (a test
checks that the ids and the ``{placeholders}`` match) and its row nouns to :data:`NOUNS`. Templates are
``str.format`` strings with named fields; ids ending in ``.one`` / ``.other`` are the singular and
plural of one phrase (:func:`plural` picks one). German uses a decimal comma (:func:`fmt`).
"""

from __future__ import annotations

import math
import string

from engine.errors import ConfigError

#: language code -> its name in that language (for a language picker).
LANGUAGES: dict[str, str] = {"en": "English", "de": "Deutsch"}

#: Row nouns: id -> language -> (singular, plural). The narration says "14 days" for Play Tennis.
NOUNS: dict[str, dict[str, tuple[str, str]]] = {
    "row": {"en": ("row", "rows"), "de": ("Zeile", "Zeilen")},
    "day": {"en": ("day", "days"), "de": ("Tag", "Tage")},
    "visit": {"en": ("visit", "visits"), "de": ("Besuch", "Besuche")},
    "flower": {"en": ("flower", "flowers"), "de": ("Blume", "Blumen")},
    "passenger": {"en": ("passenger", "passengers"), "de": ("Passagier", "Passagiere")},
    "point": {"en": ("point", "points"), "de": ("Punkt", "Punkte")},
    "wine": {"en": ("wine", "wines"), "de": ("Wein", "Weine")},
    "patient": {"en": ("patient", "patients"), "de": ("Patient", "Patienten")},
    "sample": {"en": ("sample", "samples"), "de": ("Probe", "Proben")},
}

_EN = {
    # nodes and counts
    "node": "Node {id}",
    "nodes": "Nodes {ids}",
    "and": "and",
    "more.one": "{n} more",
    "more.other": "{n} more",
    "node_summary": "{node} ({n} {noun}, {counts}, {criterion} {impurity})",
    "node_summary_reg": "{node} ({n} {noun}, mean {mean}, {criterion} {impurity})",
    "crit.entropy": "entropy",
    "crit.gini": "Gini",
    "crit.misclassification": "misclassification",
    "crit.variance": "variance",
    "subject.entropy": "the entropy",
    "subject.gini": "the Gini impurity",
    "subject.misclassification": "the misclassification error",
    "subject.variance": "the variance",
    # split tests
    "test.multiway": "{feature} ({branches})",
    "test.multiway_many": "{feature} ({k} branches)",
    "test.threshold": "{feature} at {threshold}",
    "test.subset": "{feature} ({{{values}}} vs. the rest)",
    "test.equals": "{feature} ({value} vs. the rest)",
    # what a split does
    "effect.perfect": "it separates the {noun} perfectly",
    "effect.drop": "{subject} drops from {before} to {after}",
    "effect.drop_pure.one": "{subject} drops from {before} to {after} and {k} of {m} branches is pure",
    "effect.drop_pure.other": "{subject} drops from {before} to {after} and {k} of {m} branches are pure",
    "score.gain": "gain {gain}",
    "score.gain_ratio": "gain ratio {ratio}, gain {gain}",
    "runner.gain": "{feature} would gain only {gain}",
    "runner.gain_ratio": "{feature} would reach a gain ratio of only {ratio}",
    "runner.tie": "{feature} would score just as much ({score}), but the earlier column wins the tie",
    "runner.none": "no other feature can split this node",
    "runner.none_eligible": "no other feature passes the average-gain filter",
    "runner.filtered": "{feature} has a higher gain ratio ({ratio}) but a gain below the average, so it may not compete",
    "split": "{node} is split on {test}: {effect} ({score}); {runner}.",
    "forced": "{node} is split by hand on {test}: {effect} ({score}); {verdict}.",
    "forced.best": "this is also the best choice",
    "forced.worse": "the best choice would have been {best} ({score})",
    # leaves, finish, collapse
    "leaf": "{node} becomes a leaf predicting {prediction}: {reason}.",
    "leaves": "{nodes} become leaves: {reason}.",
    "finish.one": "The tree is finished: {leaves} leaf, depth {depth}.",
    "finish.other": "The tree is finished: {leaves} leaves, depth {depth}.",
    "still_open": "Other leaves are still open: Step goes on with them.",
    "collapse": "{node} is collapsed by hand into a leaf predicting {prediction}.",
    "reason.pure": "all {noun} have the same label",
    "reason.pure_reg": "all {noun} have the same value",
    "reason.max_depth": "the maximum depth is reached",
    "reason.min_samples_split": "too few {noun} to split",
    "reason.min_samples_leaf": "no split leaves enough {noun} in every child",
    "reason.no_split": "no feature separates the {noun}",
    "reason.min_gain": "the best gain is below the minimum",
    "reason.min_impurity_decrease": "the weighted impurity decrease (node share × gain) is below the minimum",
    "reason.chi2": "the best split is not statistically significant",
    "reason.validation": "splitting does not improve validation accuracy",
    "reason.max_leaf_nodes": "the maximum number of leaves is reached",
    "reason.collapsed": "it was collapsed by hand",
    "reason.pruned": "it was pruned",
    # pruning
    "prune.one": "Pruning {node} to a leaf predicting {prediction} removes {k} leaf",
    "prune.other": "Pruning {node} to a leaf predicting {prediction} removes {k} leaves",
    "prune.keep": "{node} keeps its subtree: as a leaf, the {measure} would go from {before} to {after}.",
    "prune.alpha": "its effective α = {alpha} is the smallest in the tree",
    "prune.change": "the {measure} goes from {before} to {after}",
    "measure.validation": "validation error",
    "measure.pessimistic": "estimated error",
    "measure.training": "training error",
    "measure.test": "test error",
    # boosting
    "boost.round": ("Round {round}: {learner} misclassifies {wrong} of {n} {noun} (weighted error {error}), "
                    "so its vote weight is α = {alpha}"),
    "boost.factor": "the weights of the misclassified {noun} grow by a factor of {factor} before normalising",
    "boost.shrink": ("the weights of the correctly classified {noun} are multiplied by {factor}; after "
                     "normalising, the misclassified {noun} carry {share} of the total weight"),
    "boost.perfect": ("Round {round}: {learner} classifies all {noun} correctly (weighted error 0); "
                      "boosting stops here because nothing is left to correct."),
    "boost.chance": ("Round {round}: {learner} is no better than chance (weighted error {error}); "
                     "boosting stops here."),
    "learner.stump": "the stump {test}",
    "learner.tree": "a tree with {leaves} leaves",
    "learner.text": "the learner ({text})",
    # gradient boosting
    "gboost.start": "Start: F₀ = {start} for all {noun}, {what}",
    "gboost.start.mean": "the mean of the target",
    "gboost.start.logodds": "the log-odds ln(p / (1 − p)) of the second class's share p",
    "gboost.start.logs": "the logarithms of the class shares (centred)",
    "gboost.round": ("Round {round}: {trees} on the pseudo-residuals ({residual}) of {n} {noun}, first split "
                     "{test}; learning rate {rate} × each leaf's value is added to the running prediction F. "
                     "The training loss goes from {before} to {after}"),
    "gboost.trees.one": "a tree with {leaves} leaves is grown",
    "gboost.trees.other": "{k} trees (one per class, {leaves} leaves in all) are grown",
    "gboost.residual.reg": "target − F",
    "gboost.residual.cls": "1 for the class, else 0, − the predicted probability",
    "gboost.newton": "each leaf takes one Newton step: sum of the residuals / sum of p(1 − p)",
    "gboost.test": "the test loss is {test}; it is lowest after round {best}",
    "gboost.nosplit": "no split (every residual alike)",
}

_DE = {
    "node": "Knoten {id}",
    "nodes": "Knoten {ids}",
    "and": "und",
    "more.one": "{n} weiterer",
    "more.other": "{n} weitere",
    "node_summary": "{node} ({n} {noun}, {counts}, {criterion} {impurity})",
    "node_summary_reg": "{node} ({n} {noun}, Mittelwert {mean}, {criterion} {impurity})",
    "crit.entropy": "Entropie",
    "crit.gini": "Gini",
    "crit.misclassification": "Fehlklassifikation",
    "crit.variance": "Varianz",
    "subject.entropy": "Die Entropie",
    "subject.gini": "Der Gini-Index",
    "subject.misclassification": "Die Fehlklassifikationsrate",
    "subject.variance": "Die Varianz",
    "test.multiway": "{feature} ({branches})",
    "test.multiway_many": "{feature} ({k} Zweige)",
    "test.threshold": "{feature} bei {threshold}",
    "test.subset": "{feature} ({{{values}}} gegen den Rest)",
    "test.equals": "{feature} ({value} gegen den Rest)",
    "effect.perfect": "Das trennt die {noun} perfekt",
    "effect.drop": "{subject} sinkt von {before} auf {after}",
    "effect.drop_pure.one": "{subject} sinkt von {before} auf {after} und {k} von {m} Zweigen ist rein",
    "effect.drop_pure.other": "{subject} sinkt von {before} auf {after} und {k} von {m} Zweigen sind rein",
    "score.gain": "Gewinn {gain}",
    "score.gain_ratio": "Gewinnverhältnis {ratio}, Gewinn {gain}",
    "runner.gain": "{feature} brächte nur {gain}",
    "runner.gain_ratio": "{feature} käme nur auf ein Gewinnverhältnis von {ratio}",
    "runner.tie": "{feature} wäre genauso gut ({score}), aber bei Gleichstand gewinnt die frühere Spalte",
    "runner.none": "kein anderes Merkmal kann diesen Knoten teilen",
    "runner.none_eligible": "kein anderes Merkmal besteht den Filter des durchschnittlichen Gewinns",
    "runner.filtered": "{feature} hat ein höheres Gewinnverhältnis ({ratio}), aber einen unterdurchschnittlichen Gewinn und darf daher nicht antreten",
    "split": "{node} wird nach {test} geteilt: {effect} ({score}); {runner}.",
    "forced": "{node} wird von Hand nach {test} geteilt: {effect} ({score}); {verdict}.",
    "forced.best": "das ist auch die beste Wahl",
    "forced.worse": "am besten wäre {best} gewesen ({score})",
    "leaf": "{node} wird ein Blatt mit Vorhersage {prediction}: {reason}.",
    "leaves": "{nodes} werden Blätter: {reason}.",
    "finish.one": "Der Baum ist fertig: {leaves} Blatt, Tiefe {depth}.",
    "finish.other": "Der Baum ist fertig: {leaves} Blätter, Tiefe {depth}.",
    "still_open": "Andere Blätter sind noch offen: Schritt macht mit ihnen weiter.",
    "collapse": "{node} wird von Hand zu einem Blatt mit Vorhersage {prediction} zusammengefasst.",
    "reason.pure": "Alle {noun} haben dieselbe Klasse",
    "reason.pure_reg": "Alle {noun} haben denselben Wert",
    "reason.max_depth": "Die maximale Tiefe ist erreicht",
    "reason.min_samples_split": "Es gibt zu wenige {noun} für eine Teilung",
    "reason.min_samples_leaf": "Keine Teilung lässt genug {noun} in jedem Kind",
    "reason.no_split": "Kein Merkmal trennt die {noun}",
    "reason.min_gain": "Der beste Gewinn liegt unter dem Minimum",
    "reason.min_impurity_decrease": "Die gewichtete Unreinheitsabnahme (Knotenanteil × Gewinn) liegt unter dem Minimum",
    "reason.chi2": "Die beste Teilung ist statistisch nicht signifikant",
    "reason.validation": "Die Teilung verbessert die Validierungsgenauigkeit nicht",
    "reason.max_leaf_nodes": "Die maximale Zahl der Blätter ist erreicht",
    "reason.collapsed": "Er wurde von Hand zusammengefasst",
    "reason.pruned": "Er wurde gestutzt",
    "prune.one": "{node} wird zu einem Blatt mit Vorhersage {prediction} gestutzt, dabei fällt {k} Blatt weg",
    "prune.other": "{node} wird zu einem Blatt mit Vorhersage {prediction} gestutzt, dabei fallen {k} Blätter weg",
    "prune.keep": "{node} behält seinen Teilbaum: Als Blatt ginge der {measure} von {before} auf {after}.",
    "prune.alpha": "sein effektives α = {alpha} ist das kleinste im Baum",
    "prune.change": "der {measure} geht von {before} auf {after}",
    "measure.validation": "Validierungsfehler",
    "measure.pessimistic": "geschätzte Fehler",
    "measure.training": "Trainingsfehler",
    "measure.test": "Testfehler",
    "boost.round": ("Runde {round}: {learner} klassifiziert {wrong} der {n} {noun} falsch (gewichteter Fehler "
                    "{error}), daher ist sein Stimmgewicht α = {alpha}"),
    "boost.factor": "die Gewichte der falsch klassifizierten {noun} wachsen vor dem Normieren um den Faktor {factor}",
    "boost.shrink": ("die Gewichte der richtig klassifizierten {noun} werden mit {factor} multipliziert; nach "
                     "dem Normieren tragen die falsch klassifizierten {noun} {share} des Gesamtgewichts"),
    "boost.perfect": ("Runde {round}: {learner} klassifiziert alle {noun} richtig (gewichteter Fehler 0); "
                      "das Boosting endet hier, weil nichts mehr zu korrigieren ist."),
    "boost.chance": ("Runde {round}: {learner} ist nicht besser als Raten (gewichteter Fehler {error}); "
                     "das Boosting endet hier."),
    "learner.stump": "Der Stumpf {test}",
    "learner.tree": "Ein Baum mit {leaves} Blättern",
    "learner.text": "Der Lerner ({text})",
    "gboost.start": "Start: F₀ = {start} für alle {noun}, {what}",
    "gboost.start.mean": "der Mittelwert des Ziels",
    "gboost.start.logodds": "die Log-Odds ln(p / (1 − p)) des Anteils p der zweiten Klasse",
    "gboost.start.logs": "die Logarithmen der Klassenanteile (zentriert)",
    "gboost.round": ("Runde {round}: Auf den Pseudo-Residuen ({residual}) von {n} {noun} {trees}, erster "
                     "Split {test}; Lernrate {rate} × Blattwert wird zur laufenden Vorhersage F addiert. "
                     "Der Trainingsverlust geht von {before} auf {after}"),
    "gboost.trees.one": "wird ein Baum mit {leaves} Blättern gelernt",
    "gboost.trees.other": "werden {k} Bäume gelernt (einer je Klasse, zusammen {leaves} Blätter)",
    "gboost.residual.reg": "Ziel − F",
    "gboost.residual.cls": "1 für die Klasse, sonst 0, − die vorhergesagte Wahrscheinlichkeit",
    "gboost.newton": "jedes Blatt macht einen Newton-Schritt: Summe der Residuen / Summe von p(1 − p)",
    "gboost.test": "der Testverlust ist {test}; am kleinsten ist er nach Runde {best}",
    "gboost.nosplit": "kein Split (alle Residuen gleich)",
}

#: language -> message id -> template.
MESSAGES: dict[str, dict[str, str]] = {"en": _EN, "de": _DE}

#: The decimal separator of each language.
DECIMAL = {"en": ".", "de": ","}


def check_language(lang: str) -> str:
    """``lang`` if it has a table, else ConfigError naming the languages there are."""
    if not isinstance(lang, str) or lang not in MESSAGES:
        raise ConfigError(f"lang must be one of {', '.join(sorted(MESSAGES))}, not {lang!r}.")
    return lang


def t(msg_id: str, lang: str = "en", **fields) -> str:
    """The template ``msg_id`` of ``lang`` filled with ``fields``."""
    table = MESSAGES[check_language(lang)]
    if msg_id not in table:
        raise ConfigError(f"There is no message {msg_id!r} in the {LANGUAGES[lang]} table.")
    return table[msg_id].format(**fields)


def plural(msg_id: str, count: float, lang: str = "en", **fields) -> str:
    """``msg_id + ".one"`` when ``count == 1``, else ``msg_id + ".other"`` (both languages use this rule)."""
    return t(f"{msg_id}.{'one' if count == 1 else 'other'}", lang, **fields)


def noun(noun_id: str, n: float, lang: str = "en") -> str:
    """The row noun for a count: ``noun("day", 1)`` is "day", ``noun("day", 5, "de")`` is "Tage"."""
    if not isinstance(noun_id, str) or noun_id not in NOUNS:
        raise ConfigError(f"noun must be one of {', '.join(sorted(NOUNS))}, not {noun_id!r}.")
    one, other = NOUNS[noun_id][check_language(lang)]
    return one if n == 1 else other


def fmt(x: float, lang: str = "en", digits: int = 3) -> str:
    """A score or impurity with ``digits`` decimals (1 decimal from 100 up), in the language's notation.

    ``fmt(0.9709, "de")`` is "0,971"; ``fmt(5929.88)`` is "5929.9".
    """
    x = float(x)
    if not math.isfinite(x):
        return "–"
    text = f"{x:.1f}" if abs(x) >= 100 else f"{x:.{digits}f}"
    if text.startswith("-") and float(text) == 0:
        text = text[1:]
    return text.replace(".", DECIMAL[check_language(lang)])


def fmt_sig(x: float, lang: str = "en", sig: int = 4) -> str:
    """``sig`` significant digits for small quantities such as an effective alpha: 0.0035, "0,0035"."""
    return f"{float(x):.{sig}g}".replace(".", DECIMAL[check_language(lang)])


def fmt_count(x: float, lang: str = "en") -> str:
    """A (weighted) row count: "5", or "2.5" / "2,5" when fractional (C4.5 missing values, boosting)."""
    x = float(x)
    if abs(x - round(x)) < 1e-9:
        return str(int(round(x)))
    return f"{x:.1f}".replace(".", DECIMAL[check_language(lang)])


def fmt_value(x: float, lang: str = "en") -> str:
    """A threshold or data value in short form (72.5, 1e-05), in the language's notation."""
    x = float(x)
    text = str(int(x)) if x.is_integer() and abs(x) < 1e15 else f"{x:.6g}"
    return text.replace(".", DECIMAL[check_language(lang)])


def join_words(items: list[str], lang: str = "en") -> str:
    """"a, b and c" / "a, b und c"."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {t('and', lang)} {items[-1]}"


def placeholders(template: str) -> set[str]:
    """The named fields of a template (for the table consistency test)."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}
