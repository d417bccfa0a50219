"""Class colours are chart marks: each keeps WCAG 1.4.11's 3:1 against the charts' backgrounds (engine/viz/palette)."""

from __future__ import annotations

import pytest

from engine.viz import palette


def test_contrast_matches_wcag_examples():
    assert palette.contrast("#000000", "#FFFFFF") == pytest.approx(21.0)
    assert palette.contrast("#767676", "#FFFFFF") == pytest.approx(4.54, abs=0.01)


@pytest.mark.parametrize("background", ["#FFFFFF", palette.CHART_BACKGROUND])
def test_every_class_colour_stands_out_from_the_chart(background):
    low = {i: palette.color_at(i) for i in range(200)
           if palette.contrast(palette.color_at(i), background) < palette.MARK_CONTRAST}
    assert not low, low  # Okabe & Ito's yellow (#F0E442) alone was 1.3:1 on white


def test_the_light_okabe_ito_colours_keep_their_hue():
    import colorsys

    def hue(c):
        return colorsys.rgb_to_hls(*(int(c[i:i + 2], 16) / 255 for i in (1, 3, 5)))[0]

    original = {1: "#E69F00", 4: "#CC79A7", 5: "#56B4E9", 6: "#F0E442"}
    for i, c in original.items():
        assert hue(palette.OKABE_ITO[i]) == pytest.approx(hue(c), abs=0.01), (i, c, palette.OKABE_ITO[i])
