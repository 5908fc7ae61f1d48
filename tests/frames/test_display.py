"""Jupyter display: compact HTML, framework badges, warnings visible, and
every run name, tag and value escaped (hostile names become text, never
markup). The HTML is checked with Python's own HTML parser: only the
elements the display writes may appear, and the hostile names must be in
the text, character for character."""

from __future__ import annotations

import html.parser
import os

import pytest

import tb_multiframework as tbmf
from tests import eventfiles
from tests.conftest import DEMO_LOGS

HOSTILE_RUN = "<script>alert('run')</script>"
HOSTILE_TAG = '"><img src=x onerror=alert(1)>/loss'
ALLOWED = {
    "style",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "span",
    "div",
    "b",
    "br",
}


class _Collect(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.attrs: list[tuple[str, str | None]] = []
        self.text: list[str] = []
        self.headers: list[str] = []
        self._in_th = False

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attrs += attrs
        self._in_th = tag == "th"

    def handle_endtag(self, tag):
        self._in_th = False

    def handle_data(self, data):
        self.text.append(data)
        if self._in_th:
            self.headers.append(data)


def _parsed(markup: str) -> _Collect:
    found = _Collect()
    found.feed(markup)
    found.close()
    return found


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    run = root / HOSTILE_RUN.replace("/", "∕")  # a directory name has no '/'
    events = [eventfiles.file_version_event()] + [
        eventfiles.scalar_event(HOSTILE_TAG, step, 10.0 + step, 0.5)
        for step in range(5)
    ]
    data = eventfiles.record_bytes(events)
    # A corrupt tail: the run gets a warning and its points are still read.
    eventfiles.write(
        os.path.join(run, "events.out.tfevents.1700000000.h.1.0"),
        data + b"\x10\x00\x00\x00\x00\x00\x00\x00garbage-garbage-garbage",
    )
    return tbmf.read(root), run.name


def test_experiment_html_escapes_every_name_and_shows_warnings(hostile):
    exp, run = hostile
    markup = exp._repr_html_()
    found = _parsed(markup)
    assert found.tags <= ALLOWED
    assert not any(name.startswith("on") for name, _ in found.attrs)
    text = "".join(found.text)
    assert run in text
    assert "⚠" in text and "1 runs with warnings" in text
    warning = exp.runs.warnings.iloc[0][0]
    assert warning and warning[:40] in text


def test_frames_escape_names_in_cells_and_headers(hostile):
    exp, run = hostile
    for frame in (exp.runs, exp.scalars, exp.compare(tag=HOSTILE_TAG)):
        found = _parsed(frame._repr_html_())
        assert found.tags <= ALLOWED, found.tags
        assert not any(name.startswith("on") for name, _ in found.attrs)
        text = "".join(found.text)
        assert run in text
    assert HOSTILE_TAG in "".join(_parsed(exp.scalars._repr_html_()).text)


def test_frameworks_are_badges_and_every_run_is_listed():
    exp = tbmf.read(DEMO_LOGS)
    markup = exp.runs._repr_html_()
    found = _parsed(markup)
    text = "".join(found.text)
    for run in exp.runs.run:
        assert run in text
    badges = markup.count('class="tbmf-b"')
    assert badges == len(exp.runs)
    assert "pytorch" in text and "tensorflow" in text and "paddle" in text
    # The runs table shows the hyper-parameters set most often that
    # differ, at most 12 (HF Trainer alone has over 100), and says so.
    assert "hparam:seed" in text
    shown = [h for h in found.headers if h.startswith("hparam:")]
    assert 0 < len(shown) <= 12
    hidden = len([c for c in exp.runs.columns if c.startswith("hparam:")])
    assert f"{hidden - len(shown)} hyper-parameter columns not shown" in text


def test_numpy_table_html_is_escaped_too(hostile):
    exp, run = hostile
    table = tbmf.read(exp.logdir, frames="numpy").scalars
    found = _parsed(table._repr_html_())
    assert found.tags <= ALLOWED
    assert HOSTILE_TAG in "".join(found.text)
    assert "tb-multiframework[pandas]" in "".join(found.text)
