"""The one palette of the app: class colours, node tints, marker symbols, and a regression scale.

Class colours are Okabe & Ito's eight colour-blind-safe colours (Okabe & Ito 2008, "Color Universal
Design"), reordered so the first classes are the most distinct; class ``i >= 8`` gets a deterministic
extra hue ``h_i = (0.13 + 0.618034 * (i - 8)) mod 1`` (golden-ratio steps, so neighbours never clash)
at fixed saturation 0.60 and lightness 0.42. Every class colour is a chart mark (a bar, a point, a line), so
it keeps at least 3:1 contrast against the charts' white and light-grey (#F1F4F8) backgrounds (WCAG 1.4.11):
Okabe & Ito's orange, reddish purple, sky blue and yellow (2.3, 3.1, 2.3 and 1.3 to 1 on white) are drawn
with the same hue and saturation at a lower lightness (#BB8100, #C870A1, #1C93D7, #978E0C), and an extra hue
too light at 0.42 is darkened the same way (:func:`marks_contrast`). Marker symbols add shape to colour, so classes stay
distinguishable in grey-scale prints and for readers who cannot tell the colours apart.

Node fills follow scikit-learn's ``export_graphviz``: the tint grows with the purity of the node,

    alpha = (p_max - 1/K) / (1 - 1/K)          (K classes, p_max = the largest class share),
    fill  = mix(white, class colour, 0.12 + 0.55 * alpha),

so a pure leaf is clearly coloured and a 50/50 leaf almost white; black text stays legible on all.
Regression values map onto the Cividis scale (perceptually uniform, colour-blind safe).
"""

from __future__ import annotations

import colorsys

import numpy as np

__all__ = [
    "OKABE_ITO", "SYMBOLS", "SEQUENTIAL", "HIGHLIGHT", "PATH", "MUTED", "OPEN", "INTERNAL_FILL",
    "class_colors", "class_symbols", "color_at", "tint", "purity_tint", "node_fill", "value_color",
    "sequential_colorscale", "rgba", "contrast", "marks_contrast", "MARK_CONTRAST",
]

# Okabe-Ito, most distinct first: blue, orange, bluish green, vermillion, reddish purple, sky blue,
# yellow, black.
OKABE_ITO = ("#0072B2", "#BB8100", "#009E73", "#D55E00", "#C870A1", "#1C93D7", "#978E0C", "#000000")
#: least contrast of a class colour against the lightest chart background it meets (WCAG 1.4.11's 3:1)
MARK_CONTRAST, CHART_BACKGROUND = 3.0, "#F1F4F8"

# Plotly marker symbols, one per class (the star is kept for query points).
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "cross", "triangle-down", "pentagon",
           "hexagon", "triangle-left", "triangle-right", "hourglass", "bowtie", "star-square")

# Cividis (Nuñez, Anderton & Renslow 2018): sequential, perceptually uniform, colour-blind safe.
SEQUENTIAL = ("#00224e", "#123570", "#3b496c", "#575d6d", "#707173", "#8a8678", "#a59c74", "#c3b369",
              "#e1cc55", "#fee838")

HIGHLIGHT = "#000000"  # border of the node / region the last step split
PATH = "#D81B60"  # edges and borders along a query point's path (magenta, not a class colour)
MUTED = "#9E9E9E"  # greyed (pruned / marked) nodes and their borders
OPEN = "#FFFFFF"  # fill of an open (undecided) leaf
INTERNAL_FILL = "#F4F4F4"  # fill of internal nodes
BORDER = "#555555"


def _hex_to_rgb(color: str) -> np.ndarray:
    c = color.lstrip("#")
    return np.array([int(c[i:i + 2], 16) for i in (0, 2, 4)], dtype=float)


def _rgb_to_hex(rgb) -> str:
    r, g, b = (int(round(min(max(v, 0.0), 255.0))) for v in rgb)
    return f"#{r:02X}{g:02X}{b:02X}"


def color_at(i: int) -> str:
    """Colour of the ``i``-th class: Okabe-Ito for i < 8, then golden-ratio hues."""
    if i < 0:
        raise ValueError("A class index is never negative.")
    if i < len(OKABE_ITO):
        return OKABE_ITO[i]
    h = (0.13 + 0.618034 * (i - len(OKABE_ITO))) % 1.0
    lightness = 0.42
    while True:  # darker in steps of 0.01 until the colour stands out from the chart's background
        r, g, b = colorsys.hls_to_rgb(h, lightness, 0.60)
        color = _rgb_to_hex((r * 255, g * 255, b * 255))
        if marks_contrast(color) >= MARK_CONTRAST or lightness <= 0.2:
            return color
        lightness -= 0.01


def _luminance(color: str) -> float:
    """WCAG 2.1 relative luminance of ``#RRGGBB``."""
    c = _hex_to_rgb(color) / 255.0
    lin = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return float(0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2])


def contrast(a: str, b: str) -> float:
    """WCAG 2.1 contrast ratio ``(L1 + 0.05) / (L2 + 0.05)`` of two colours (1 to 21)."""
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def marks_contrast(color: str) -> float:
    """Contrast of a chart mark's colour against the lightest chart background (:data:`CHART_BACKGROUND`)."""
    return contrast(color, CHART_BACKGROUND)


def class_colors(classes) -> dict:
    """``{label: "#RRGGBB"}`` in the order of ``classes`` (e.g. ``dataset.classes``)."""
    return {c: color_at(i) for i, c in enumerate(classes)}


def class_symbols(classes) -> dict:
    """``{label: plotly marker symbol}`` in the order of ``classes`` (cycles after 14 classes)."""
    return {c: SYMBOLS[i % len(SYMBOLS)] for i, c in enumerate(classes)}


def tint(color: str, amount: float) -> str:
    """``mix(white, color, amount)``: 0 gives white, 1 the colour itself."""
    a = min(max(float(amount), 0.0), 1.0)
    return _rgb_to_hex(255.0 + a * (_hex_to_rgb(color) - 255.0))


def rgba(color: str, alpha: float) -> str:
    """``rgba(r,g,b,alpha)`` string for Plotly fills."""
    r, g, b = _hex_to_rgb(color).astype(int)
    return f"rgba({r},{g},{b},{alpha:.3g})"


def purity_tint(purity: float, n_classes: int) -> float:
    """Tint amount ``0.12 + 0.55 * alpha`` with ``alpha = (p - 1/K) / (1 - 1/K)`` clipped to [0, 1]."""
    if n_classes <= 1:
        alpha = 1.0
    else:
        alpha = (float(purity) - 1.0 / n_classes) / (1.0 - 1.0 / n_classes)
    if not np.isfinite(alpha):
        alpha = 0.0
    return 0.12 + 0.55 * min(max(alpha, 0.0), 1.0)


def node_fill(value, classes) -> str:
    """Fill of a classification node from its class shares ``value`` (majority colour, purity tint)."""
    v = np.asarray(value, dtype=float)
    if v.size == 0 or not np.isfinite(v).all() or v.sum() <= 0:
        return OPEN
    k = int(np.argmax(v))
    return tint(color_at(k), purity_tint(v[k] / v.sum(), len(classes)))


def value_color(value: float, vmin: float, vmax: float) -> str:
    """Colour of a regression value on :data:`SEQUENTIAL`, linear between ``vmin`` and ``vmax``."""
    if not (np.isfinite(vmin) and np.isfinite(vmax)) or vmax <= vmin:
        t = 0.5
    else:
        t = min(max((float(value) - vmin) / (vmax - vmin), 0.0), 1.0)
    pos = t * (len(SEQUENTIAL) - 1)
    i = min(int(np.floor(pos)), len(SEQUENTIAL) - 2)
    f = pos - i
    rgb = (1 - f) * _hex_to_rgb(SEQUENTIAL[i]) + f * _hex_to_rgb(SEQUENTIAL[i + 1])
    return _rgb_to_hex(rgb)


def sequential_colorscale() -> list[list]:
    """:data:`SEQUENTIAL` as a Plotly colorscale ``[[0, c0], ..., [1, c9]]``."""
    n = len(SEQUENTIAL) - 1
    return [[i / n, c] for i, c in enumerate(SEQUENTIAL)]
