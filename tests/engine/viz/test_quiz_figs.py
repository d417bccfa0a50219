"""The class's guesses as bars: right feature marked in words and colour, names escaped."""

from engine.viz.palette import MUTED
from engine.viz.quiz_figs import RIGHT, votes_figure


def test_bars_count_guesses_and_mark_the_right_feature_in_text():
    fig = votes_figure({"Outlook": 3, "Wind": 1, "Humidity": 0}, {"Outlook"}, teacher_pick="Wind")
    bar = fig.data[0]
    assert list(bar.y) == [3, 1, 0]
    assert list(bar.text) == ["3 (75%)", "1 (25%)", "0 (0%)"]
    assert list(bar.x) == ["Outlook<br><b>✓ right</b>", "Wind<br>teacher", "Humidity"]
    assert list(bar.marker.color) == [RIGHT, MUTED, MUTED]
    assert "4 answers" in fig.layout.title.text


def test_feature_names_are_escaped_and_no_answers_is_fine():
    fig = votes_figure({"<b>$x$</b>": 0}, set())
    assert fig.data[0].x == ("&lt;b&gt;&#36;x&#36;&lt;/b&gt;",)
    assert list(fig.data[0].text) == ["0"]
