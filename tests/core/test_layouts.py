"""Tests for tb_multiframework.core.layouts (schema, import, matching).

Expected values are written out by hand from the rules in the module
docstring and TensorBoard's custom_scalars plugin, never produced by the
code under test.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from typing import Any

import pytest

from tb_multiframework.core import layouts as L
from tb_multiframework.core.layouts import Candidate, Match

# What torch.utils.tensorboard's add_custom_scalars writes for the layout
# {'Taiwan': {'twse': ['Multiline', ['twse/0050', 'twse/2330']]},
#  'USA': {'dow': ['Margin', ['dow/aaa', 'dow/bbb', 'dow/ccc']]}},
# as MessageToDict(preserving_proto_field_name=True) shows it.
TORCH_LAYOUT = {
    "category": [
        {
            "title": "Taiwan",
            "chart": [
                {
                    "title": "twse",
                    "multiline": {"tag": ["twse/0050", "twse/2330"]},
                }
            ],
        },
        {
            "title": "USA",
            "chart": [
                {
                    "title": "dow",
                    "margin": {
                        "series": [
                            {
                                "value": "dow/aaa",
                                "lower": "dow/bbb",
                                "upper": "dow/ccc",
                            }
                        ]
                    },
                }
            ],
        },
    ]
}


def _chart_json(**overrides: Any) -> dict[str, Any]:
    """A chart in full JSON form with the documented defaults."""
    chart: dict[str, Any] = {
        "title": "",
        "kind": "multiline",
        "tags": [],
        "metrics": [],
        "series": [],
        "runs": None,
        "x": "step",
        "smoothing": 0.6,
        "logY": False,
        "source": [],
    }
    chart.update(overrides)
    return chart


def _valid_layout() -> dict[str, Any]:
    return {
        "name": "Porting check",
        "categories": [
            {
                "title": "Losses",
                "charts": [
                    {
                        "title": "Loss",
                        "kind": "multiline",
                        "metrics": ["loss/"],
                        "runs": "torch|keras",
                        "x": "epoch",
                        "smoothing": 0.25,
                        "logY": True,
                    },
                    {
                        "title": "Band",
                        "kind": "margin",
                        "series": [
                            {
                                "value": "acc",
                                "lower": "acc_lo",
                                "upper": "acc_hi",
                            }
                        ],
                    },
                ],
            }
        ],
    }


# ---------------------------------------------------------------------------
# Import from runs


def test_torch_layout_fixture_is_what_message_to_dict_gives() -> None:
    layout_pb2 = pytest.importorskip(
        "tensorboard.plugins.custom_scalar.layout_pb2"
    )
    json_format = pytest.importorskip("google.protobuf.json_format")
    # Built the way torch.utils.tensorboard.summary.custom_scalars does.
    proto = layout_pb2.Layout(
        category=[
            layout_pb2.Category(
                title="Taiwan",
                chart=[
                    layout_pb2.Chart(
                        title="twse",
                        multiline=layout_pb2.MultilineChartContent(
                            tag=["twse/0050", "twse/2330"]
                        ),
                    )
                ],
            ),
            layout_pb2.Category(
                title="USA",
                chart=[
                    layout_pb2.Chart(
                        title="dow",
                        margin=layout_pb2.MarginChartContent(
                            series=[
                                layout_pb2.MarginChartContent.Series(
                                    value="dow/aaa",
                                    lower="dow/bbb",
                                    upper="dow/ccc",
                                )
                            ]
                        ),
                    )
                ],
            ),
        ]
    )
    as_dict = json_format.MessageToDict(proto, preserving_proto_field_name=True)
    assert as_dict == TORCH_LAYOUT


def test_convert_torch_layout() -> None:
    layout = L.convert_imported_layouts({"pytorch/run1": TORCH_LAYOUT})
    assert L.layout_to_json(layout) == {
        "name": "Logged in runs",
        "readOnly": True,
        "warnings": [],
        "categories": [
            {
                "title": "Taiwan",
                "closed": False,
                "source": ["pytorch/run1"],
                "charts": [
                    _chart_json(
                        title="twse",
                        tags=["twse/0050", "twse/2330"],
                        source=["pytorch/run1"],
                    )
                ],
            },
            {
                "title": "USA",
                "closed": False,
                "source": ["pytorch/run1"],
                "charts": [
                    _chart_json(
                        title="dow",
                        kind="margin",
                        series=[
                            {
                                "value": "dow/aaa",
                                "lower": "dow/bbb",
                                "upper": "dow/ccc",
                            }
                        ],
                        source=["pytorch/run1"],
                    )
                ],
            },
        ],
    }


def test_merge_by_category_title_skipping_duplicate_charts() -> None:
    def multiline(title: str, *tags: str) -> dict[str, Any]:
        return {"title": title, "multiline": {"tag": list(tags)}}

    run_a = {
        "category": [
            {"title": "Loss", "chart": [multiline("train", "loss/train")]},
            {"title": "Only A", "closed": True, "chart": [multiline("x", "x")]},
        ]
    }
    run_b = {
        "category": [
            {"title": "Only B", "chart": [multiline("y", "y")]},
            {
                "title": "Loss",
                "chart": [
                    multiline("train", "loss/train"),  # duplicate: skipped
                    multiline("val", "loss/val"),
                    multiline("train", "loss/train", "loss/ema"),  # differs
                ],
            },
        ]
    }
    # Keys out of order: runs are merged in sorted order, a before b.
    layout = L.convert_imported_layouts({"b": run_b, "a": run_a})
    categories = L.layout_to_json(layout)["categories"]
    assert [c["title"] for c in categories] == ["Loss", "Only A", "Only B"]
    assert [c["source"] for c in categories] == [["a", "b"], ["a"], ["b"]]
    assert [c["closed"] for c in categories] == [False, True, False]
    loss = categories[0]["charts"]
    assert [(c["title"], c["tags"], c["source"]) for c in loss] == [
        ("train", ["loss/train"], ["a", "b"]),
        ("val", ["loss/val"], ["b"]),
        ("train", ["loss/train", "loss/ema"], ["b"]),
    ]
    assert layout.read_only


def test_charts_merged_into_category_first_seen_in_later_run_are_kept() -> None:
    # TensorBoard loses run c's chart here (it extends a detached copy).
    layouts: dict[str, Any] = {
        "a": {"category": [{"title": "A", "chart": []}]},
        "b": {
            "category": [
                {
                    "title": "B",
                    "chart": [{"title": "1", "multiline": {"tag": ["1"]}}],
                }
            ]
        },
        "c": {
            "category": [
                {
                    "title": "B",
                    "chart": [{"title": "2", "multiline": {"tag": ["2"]}}],
                }
            ]
        },
    }
    layout = L.convert_imported_layouts(layouts)
    b = layout.categories[1]
    assert b.title == "B"
    assert [c.title for c in b.charts] == ["1", "2"]
    assert b.source == ("b", "c")


def test_newest_layout_of_a_run_wins() -> None:
    old = {"category": [{"title": "old", "chart": []}]}
    new = {"category": [{"title": "new", "chart": []}]}
    layout = L.convert_imported_layouts({"r": [old, new]})
    assert [c.title for c in layout.categories] == ["new"]


def test_import_tolerates_proto3_omissions_and_junk() -> None:
    layouts = {
        "r": {
            "category": [
                {
                    # No title: proto3 default "" is left out.
                    "chart": [
                        {"title": "empty", "multiline": {}},
                        {"title": "neither"},
                        {"margin": {"series": [{"value": "v", "upper": "u"}]}},
                        "junk",
                    ]
                }
            ]
        },
        "s": 42,
    }
    layout = L.convert_imported_layouts(layouts)  # type: ignore[arg-type]
    (category,) = layout.categories
    assert category.title == ""
    assert [(c.title, c.kind) for c in category.charts] == [
        ("empty", "multiline"),
        ("", "margin"),
    ]
    assert category.charts[1].series == (L.MarginSeries("v", "", "u"),)
    joined = "\n".join(layout.warnings)
    assert "run 's'" in joined
    assert "'neither': neither multiline nor margin" in joined
    assert "chart[3]: not an object" in joined
    assert "no tag regexes" in joined


def test_imported_bad_regex_warns_and_matches_nothing() -> None:
    layouts: dict[str, Any] = {
        "r": {
            "category": [
                {
                    "title": "c",
                    "chart": [
                        {"title": "bad", "multiline": {"tag": ["loss[", "acc"]}}
                    ],
                }
            ]
        }
    }
    layout = L.convert_imported_layouts(layouts)
    (warning,) = layout.warnings
    assert "'loss['" in warning and "position 4" in warning
    chart = layout.categories[0].charts[0]
    candidates = [Candidate("r", "loss["), Candidate("r", "accuracy")]
    # The broken regex matches nothing; the good one still works.
    assert L.match_chart(chart, candidates) == [Match("r", "accuracy")]


def test_imported_layout_can_be_duplicated_as_a_user_layout() -> None:
    imported = L.layout_to_json(
        L.convert_imported_layouts({"run": TORCH_LAYOUT})
    )
    imported["name"] = "My copy"
    layout = L.validate_layout(imported)
    assert not layout.read_only
    assert layout.categories[0].source == ()
    assert layout.categories[0].charts[0].tags == ("twse/0050", "twse/2330")


def test_no_layouts_gives_empty_read_only_layout() -> None:
    layout = L.convert_imported_layouts({})
    assert layout.categories == () and layout.read_only


# ---------------------------------------------------------------------------
# Validation


def test_valid_layout_and_defaults() -> None:
    obj = {
        "name": "Вход/損失 ✓ (v2)",
        "categories": [
            {
                "title": "t",
                "charts": [{"title": "c", "kind": "multiline", "tags": ["a"]}],
            }
        ],
    }
    assert L.layout_to_json(L.validate_layout(obj)) == {
        "name": "Вход/損失 ✓ (v2)",
        "readOnly": False,
        "warnings": [],
        "categories": [
            {
                "title": "t",
                "closed": False,
                "source": [],
                "charts": [_chart_json(title="c", tags=["a"])],
            }
        ],
    }


def test_round_trip_is_stable() -> None:
    first = L.layout_to_json(L.validate_layout(_valid_layout()))
    assert first["categories"][0]["charts"][0] == _chart_json(
        title="Loss",
        metrics=["loss/"],
        runs="torch|keras",
        x="epoch",
        smoothing=0.25,
        logY=True,
    )
    assert L.layout_to_json(L.validate_layout(first)) == first
    assert json.loads(json.dumps(first)) == first


def test_empty_run_filter_means_every_run() -> None:
    obj = _valid_layout()
    obj["categories"][0]["charts"][0]["runs"] = ""
    assert L.validate_layout(obj).categories[0].charts[0].runs is None


def test_integer_smoothing_is_a_number() -> None:
    obj = _valid_layout()
    obj["categories"][0]["charts"][0]["smoothing"] = 0
    assert L.validate_layout(obj).categories[0].charts[0].smoothing == 0.0


def _chart0(obj: dict[str, Any]) -> dict[str, Any]:
    chart: dict[str, Any] = obj["categories"][0]["charts"][0]
    return chart


def _margin(obj: dict[str, Any]) -> dict[str, Any]:
    chart: dict[str, Any] = obj["categories"][0]["charts"][1]
    return chart


# (mutation of _valid_layout(), the exact message expected)
_C0 = "categories[0].charts[0]"
_C1 = "categories[0].charts[1]"
_BAD_LAYOUTS = [
    (
        lambda o: _chart0(o).update(smoothing=True),
        f"{_C0}.smoothing: expected a number, got boolean true",
    ),
    (
        lambda o: _chart0(o).update(smoothing="0.5"),
        f'{_C0}.smoothing: expected a number, got string "0.5"',
    ),
    (
        lambda o: _chart0(o).update(smoothing=1.0),
        f"{_C0}.smoothing: must be in [0, 1), got 1.0",
    ),
    (
        lambda o: _chart0(o).update(smoothing=-0.1),
        f"{_C0}.smoothing: must be in [0, 1), got -0.1",
    ),
    (
        lambda o: _chart0(o).update(smoothing=float("nan")),
        f"{_C0}.smoothing: must be in [0, 1), got nan",
    ),
    (
        lambda o: _chart0(o).update(logY=1),
        f"{_C0}.logY: expected true or false, got number 1",
    ),
    (
        lambda o: o["categories"][0].update(closed="yes"),
        'categories[0].closed: expected true or false, got string "yes"',
    ),
    (
        lambda o: _chart0(o).update(metrics="loss"),
        f'{_C0}.metrics: expected an array, got string "loss"',
    ),
    (
        lambda o: _chart0(o).update(metrics=[3]),
        f"{_C0}.metrics[0]: expected a string, got number 3",
    ),
    (
        lambda o: o.update(categories={}),
        "categories: expected an array, got object",
    ),
    (
        lambda o: o["categories"].append("x"),
        'categories[1]: expected an object, got string "x"',
    ),
    (
        lambda o: _chart0(o).update(title=None),
        f"{_C0}.title: expected a string, got null",
    ),
    (
        lambda o: o.update(colour="red"),
        (
            "layout: unknown key 'colour' (allowed: categories, name, readOnly, "
            "warnings)"
        ),
    ),
    (
        lambda o: _chart0(o).update(color="red"),
        (
            f"{_C0}: unknown key 'color' (allowed: kind, logY, metrics, runs, "
            "series, smoothing, source, tags, title, x)"
        ),
    ),
    (
        lambda o: _margin(o)["series"][0].update(mid="m"),
        f"{_C1}.series[0]: unknown key 'mid' (allowed: lower, upper, value)",
    ),
    (lambda o: o.pop("name"), "layout: missing key 'name'"),
    (
        lambda o: _chart0(o).pop("kind"),
        f"{_C0}: missing key 'kind' (multiline or margin)",
    ),
    (
        lambda o: _chart0(o).update(kind="bar"),
        f'{_C0}.kind: must be multiline or margin; got string "bar"',
    ),
    (
        lambda o: _chart0(o).update(x="time"),
        (
            f"{_C0}.x: must be one of step, epoch, relative, wall, progress; "
            'got string "time"'
        ),
    ),
    (
        lambda o: _chart0(o).update(tags=["loss"]),
        (
            f"{_C0}: a multiline chart needs exactly one of 'tags' and 'metrics' "
            "non-empty"
        ),
    ),
    (
        lambda o: _chart0(o).update(metrics=[]),
        (
            f"{_C0}: a multiline chart needs exactly one of 'tags' and 'metrics' "
            "non-empty"
        ),
    ),
    (
        lambda o: _chart0(o).update(series=_margin(o)["series"]),
        (
            f"{_C0}.series: only margin charts have series; a multiline chart "
            "selects lines with tags or metrics"
        ),
    ),
    (
        lambda o: _margin(o).update(tags=["acc"]),
        (
            f"{_C1}.tags: a margin chart names exact tags in 'series', not tags "
            "regexes"
        ),
    ),
    (
        lambda o: _margin(o).update(series=[]),
        f"{_C1}.series: a margin chart needs a series",
    ),
    (
        lambda o: _margin(o)["series"][0].pop("lower"),
        f"{_C1}.series[0]: missing key 'lower'",
    ),
    (
        lambda o: _margin(o)["series"][0].update(upper=""),
        f"{_C1}.series[0].upper: must name a tag, got ''",
    ),
    (
        lambda o: _chart0(o).update(metrics=[""]),
        f"{_C0}.metrics[0]: must not be an empty regex",
    ),
    (
        lambda o: _chart0(o).update(runs="torch("),
        (
            f"{_C0}.runs: missing ), unterminated subpattern at position 5 in "
            "regex 'torch('"
        ),
    ),
    (
        lambda o: _chart0(o).update(metrics=["loss", r"(a)\1"]),
        (
            f"{_C0}.metrics[1]: a backreference (\\N or (?P=name)) is not "
            "supported (names are matched in linear time, which rules out "
            "backtracking) in regex '(a)\\\\1'"
        ),
    ),
    # Names.
    (lambda o: o.update(name=""), "name: must not be empty"),
    (lambda o: o.update(name=7), "name: expected a string, got number 7"),
    (
        lambda o: o.update(name="   "),
        "name: must not be only whitespace: '   '",
    ),
    (
        lambda o: o.update(name=" a"),
        "name: must not start or end with whitespace: ' a'",
    ),
    (
        lambda o: o.update(name="a\tb"),
        (
            "name: control or invisible character U+0009 at position 1 in "
            "'a\\tb'"
        ),
    ),
    (
        lambda o: o.update(name="ab\u200bc"),
        (
            "name: control or invisible character U+200B at position 2 in "
            "'ab\\u200bc'"
        ),
    ),
    (
        lambda o: o.update(name="x" * 101),
        f"name: 101 characters, more than 100: '{'x' * 79}…'",
    ),
    (
        lambda o: o["categories"][0].update(title="a\x00"),
        (
            "categories[0].title: control or invisible character U+0000 at "
            "position 1 in 'a\\x00'"
        ),
    ),
    (
        lambda o: _chart0(o).update(title="t" * 201),
        f"{_C0}.title: 201 characters, more than 200: '{'t' * 79}…'",
    ),
    # Caps.
    (
        lambda o: o.update(categories=[{"title": str(i)} for i in range(51)]),
        "categories: 51 entries, more than 50",
    ),
    (
        lambda o: o["categories"][0].update(
            charts=[{"title": "c", "kind": "multiline", "tags": ["a"]}] * 51
        ),
        "categories[0].charts: 51 entries, more than 50",
    ),
    (
        lambda o: _chart0(o).update(metrics=["a"] * 21),
        f"{_C0}.metrics: 21 entries, more than 20",
    ),
    (
        lambda o: _margin(o).update(series=_margin(o)["series"] * 21),
        f"{_C1}.series: 21 entries, more than 20",
    ),
    (
        lambda o: _chart0(o).update(metrics=["a" * 501]),
        (
            f"{_C0}.metrics[0]: regex of 501 characters, more than 500: "
            f"'{'a' * 79}…'"
        ),
    ),
]


@pytest.mark.parametrize(
    ("mutate", "message"),
    _BAD_LAYOUTS,
    ids=[str(i) for i in range(len(_BAD_LAYOUTS))],
)
def test_validation_errors(mutate: Any, message: str) -> None:
    obj = _valid_layout()
    mutate(obj)
    with pytest.raises(ValueError) as info:
        L.validate_layout(obj)
    assert str(info.value) == message


def test_bad_regex_reports_chart_regex_and_position() -> None:
    obj = _valid_layout()
    obj["categories"].append(
        {
            "title": "second",
            "charts": [
                {
                    "title": "c",
                    "kind": "multiline",
                    "tags": ["ok", "also", "loss/[train"],
                }
            ],
        }
    )
    with pytest.raises(ValueError) as info:
        L.validate_layout(obj)
    position = "loss/[train".index("[")  # 5: the bracket never closed
    assert str(info.value) == (
        "categories[1].charts[0].tags[2]: unterminated character set at "
        f"position {position} in regex 'loss/[train'"
    )


def test_total_size_cap() -> None:
    # Every count within its cap, the whole over 256 KiB:
    # 50 categories x 50 charts x a 200-character title > 500 000 bytes.
    chart = {"title": "t" * 200, "kind": "multiline", "tags": ["a"]}
    obj = {
        "name": "big",
        "categories": [
            {"title": str(i), "charts": [chart] * 50} for i in range(50)
        ],
    }
    size = len(json.dumps(obj, separators=(",", ":")).encode())
    assert size > 256 * 1024
    with pytest.raises(ValueError, match=r"^layout: \d+ bytes of JSON, more "):
        L.validate_layout(obj)
    # The same layout with 5 categories fits.
    obj["categories"] = obj["categories"][:5]
    assert len(L.validate_layout(obj).categories) == 5


def test_size_cap_counts_filled_in_defaults() -> None:
    # About 241 KB as sent, about 340 KB once every chart has all its keys:
    # refused, so that a saved layout always validates when read back.
    chart = {"title": "t" * 196, "kind": "multiline", "tags": ["a"]}
    obj: dict[str, Any] = {
        "name": "big",
        "categories": [
            {"title": str(i), "charts": [chart] * 20} for i in range(50)
        ],
    }
    assert len(json.dumps(obj, separators=(",", ":"))) < 256 * 1024
    with pytest.raises(ValueError, match="once defaults are filled in"):
        L.validate_layout(obj)
    # 12 charts a category fit, and their full form validates again.
    for category in obj["categories"]:
        category["charts"] = [chart] * 12
    full = L.layout_to_json(L.validate_layout(obj))
    assert len(json.dumps(full, separators=(",", ":"))) > 200_000
    assert L.layout_to_json(L.validate_layout(full)) == full


def test_not_an_object_and_not_json() -> None:
    with pytest.raises(ValueError, match="^layout: expected an object, got"):
        L.validate_layout([])
    with pytest.raises(ValueError, match="^layout: not JSON data"):
        L.validate_layout({"name": "a", "categories": {1, 2}})


@pytest.mark.parametrize(
    "name", ["a", "x" * 100, "run 1 / loss (ema) – v2.json", "名前", "a b"]
)
def test_good_names(name: str) -> None:
    assert L.validate_layout_name(name) == name


@pytest.mark.parametrize(
    ("pattern", "refused"),
    [
        # Nested repeats are fine: matching is linear whatever the pattern.
        ("(a+)+", None),
        ("(.*)*x", None),
        ("(?:.*){20}", None),
        (r"(\w+/)*loss", None),
        ("(a|aa)+$", None),
        (".*loss.*", None),
        # Only a backtracking engine has these.
        ("(?=(a+)+)", "a lookahead"),
        (r"(?:\w+/)*+loss", "a possessive repeat"),
        (r"(?:(?>\w+)/)*loss", "an atomic group"),
        (r"(\w)\1", "a backreference"),
    ],
)
def test_only_backtracking_constructs_are_refused(
    pattern: str, refused: str | None
) -> None:
    problem = L.regex_problem(pattern)
    if refused is None:
        assert problem is None
    elif refused in _NEW_IN_311 and sys.version_info < (3, 11):
        # Python 3.10's re has no possessive repeats or atomic groups: its
        # own parse error refuses them first, which is what matters.
        assert problem is not None
        assert problem.message.startswith(_NEW_IN_311[refused])
    else:
        assert problem is not None and problem.message.startswith(refused)


# What Python 3.10's parser says about syntax that arrived in 3.11.
_NEW_IN_311 = {
    "a possessive repeat": "multiple repeat",
    "an atomic group": "unknown extension ?>",
}


# ---------------------------------------------------------------------------
# Matching


def _chart(**fields: Any) -> L.Chart:
    return L.Chart(title="c", kind=fields.pop("kind", "multiline"), **fields)


_TAGS = ["loss/train", "train/loss", "val/loss_ema", "epoch_loss", "lr"]
_RUNS = ["exp1/torch_a", "tf/keras/train"]
_CANDIDATES = [Candidate(run, tag) for run in _RUNS for tag in _TAGS]


def _pairs(matches: list[Match]) -> list[tuple[str, str]]:
    return [(m.run, m.tag) for m in matches]


def test_tag_regex_is_anchored_at_start_only() -> None:
    # TensorBoard: regex.match(tag) -- start anchored, end open.
    chart = _chart(tags=("loss",))
    assert _pairs(L.match_chart(chart, _CANDIDATES)) == [
        ("exp1/torch_a", "loss/train"),
        ("tf/keras/train", "loss/train"),
    ]
    chart = _chart(tags=("(train|val)/loss",), runs="torch")
    assert _pairs(L.match_chart(chart, _CANDIDATES)) == [
        ("exp1/torch_a", "train/loss"),
        ("exp1/torch_a", "val/loss_ema"),
    ]


def test_several_regexes_union_without_duplicates() -> None:
    chart = _chart(tags=(".*loss$", "epoch", "e"), runs="keras")
    assert _pairs(L.match_chart(chart, _CANDIDATES)) == [
        ("tf/keras/train", "epoch_loss"),
        ("tf/keras/train", "train/loss"),
    ]


def test_run_regex_searches_anywhere_in_the_run_name() -> None:
    chart = _chart(tags=("lr",), runs="keras/tr")
    assert _pairs(L.match_chart(chart, _CANDIDATES)) == [
        ("tf/keras/train", "lr")
    ]
    chart = _chart(tags=("lr",), runs="^keras")
    assert L.match_chart(chart, _CANDIDATES) == []


def test_inline_flags_work_per_regex() -> None:
    # TensorBoard's joined form "((?i)LR)|(x)" is an error on Python 3.11.
    chart = _chart(tags=("(?i)LR", "x"))
    assert _pairs(L.match_chart(chart, _CANDIDATES)) == [
        ("exp1/torch_a", "lr"),
        ("tf/keras/train", "lr"),
    ]


def test_metric_regexes_use_canonical_names() -> None:
    candidates = [
        Candidate("torch", "Loss/train", "loss/train"),
        Candidate("keras/train", "epoch_loss", "loss/train"),
        Candidate("keras/validation", "epoch_loss", "loss/val"),
        Candidate("torch", "weird", None),
    ]
    chart = _chart(metrics=("loss/(train|val)$",))
    assert L.match_chart(chart, candidates) == [
        Match("keras/train", "epoch_loss", "loss/train"),
        Match("keras/validation", "epoch_loss", "loss/val"),
        Match("torch", "Loss/train", "loss/train"),
    ]
    # "train" is not at the start of any canonical name.
    assert L.match_chart(_chart(metrics=("train",)), candidates) == []


def test_margin_needs_all_three_tags_in_the_same_run() -> None:
    series = (L.MarginSeries("acc", "acc_lo", "acc_hi"),)
    candidates = [
        Candidate("a", "acc", "accuracy/train"),
        Candidate("a", "acc_lo"),
        Candidate("a", "acc_hi"),
        Candidate("b", "acc"),
        Candidate("b", "acc_lo"),
        Candidate("c", "acc_hi"),
        Candidate("c", "acc"),
        Candidate("c", "acc_lo"),
        Candidate("c", "acc_lo"),  # duplicate candidate
        Candidate("d", "other"),
    ]
    chart = _chart(kind="margin", series=series)
    assert L.match_chart(chart, candidates) == [
        Match("a", "acc", "accuracy/train", lower="acc_lo", upper="acc_hi"),
        Match("c", "acc", None, lower="acc_lo", upper="acc_hi"),
    ]
    # A margin tag is exact, not a regex.
    chart = _chart(
        kind="margin", series=(L.MarginSeries("ac.", "acc_lo", "acc_hi"),)
    )
    assert L.match_chart(chart, candidates) == []


def test_overlong_names_never_match() -> None:
    long_tag = "loss/" + "x" * L.MAX_MATCH_SUBJECT_CHARS
    long_ok = "loss/" + "x" * (L.MAX_MATCH_SUBJECT_CHARS - 5)
    candidates = [Candidate("r", t) for t in (long_tag, long_ok, "loss/a")]
    assert _pairs(L.match_chart(_chart(tags=("loss",)), candidates)) == [
        ("r", "loss/a"),
        ("r", long_ok),
    ]


# ---------------------------------------------------------------------------
# Preview


def test_preview_reports_each_bad_regex_and_keeps_matching() -> None:
    obj = {
        "name": "draft",
        "categories": [
            {
                "title": "c",
                "charts": [
                    {
                        "title": "typing",
                        "kind": "multiline",
                        "tags": ["lr", "loss/[tr", "(?P<a>x)(?P=a)"],
                    },
                    {
                        "title": "bad run filter",
                        "kind": "multiline",
                        "tags": ["lr"],
                        "runs": "(torch",
                    },
                ],
            }
        ],
    }
    preview = L.preview_layout(obj, _CANDIDATES)
    assert preview.error == (
        "categories[0].charts[0].tags[1]: unterminated character set at "
        "position 5 in regex 'loss/[tr'"
    )
    first, second = preview.charts
    assert [(m.run, m.tag) for m in first.matches] == [
        ("exp1/torch_a", "lr"),
        ("tf/keras/train", "lr"),
    ]
    assert [(p.path, p.position) for p in first.regex_errors] == [
        ("categories[0].charts[0].tags[1]", 5),
        ("categories[0].charts[0].tags[2]", None),
    ]
    assert first.regex_errors[0].message == (
        "unterminated character set at position 5"
    )
    # An unusable run filter: no run is known to pass, nothing matches.
    assert second.matches == () and second.total_matches == 0
    assert second.regex_errors[0].path == "categories[0].charts[1].runs"
    assert second.regex_errors[0].message == (
        "missing ), unterminated subpattern at position 0"
    )
    as_json = L.preview_to_json(preview)
    assert as_json["charts"][0]["regexErrors"][0] == {
        "path": "categories[0].charts[0].tags[1]",
        "pattern": "loss/[tr",
        "message": "unterminated character set at position 5",
        "position": 5,
    }
    assert json.loads(json.dumps(as_json)) == as_json


def test_preview_of_valid_layout_has_no_error() -> None:
    obj = {
        "name": "ok",
        "categories": [
            {
                "title": "c",
                "charts": [{"title": "t", "kind": "multiline", "tags": ["lr"]}],
            }
        ],
    }
    preview = L.preview_layout(obj, _CANDIDATES)
    assert preview.error is None
    assert preview.charts[0].total_matches == 2


def test_preview_margin_lists_runs_missing_tags() -> None:
    obj = {
        "name": "m",
        "categories": [
            {
                "title": "c",
                "charts": [
                    {
                        "title": "band",
                        "kind": "margin",
                        "series": [
                            {"value": "v", "lower": "lo", "upper": "hi"}
                        ],
                    }
                ],
            }
        ],
    }
    candidates = [
        Candidate("full", "v"),
        Candidate("full", "lo"),
        Candidate("full", "hi"),
        Candidate("partial", "v"),
        Candidate("none", "other"),
    ]
    (chart,) = L.preview_layout(obj, candidates).charts
    assert [m.run for m in chart.matches] == ["full"]
    assert chart.missing == (L.MissingTags("partial", ("lo", "hi")),)


def test_preview_caps_the_listed_matches() -> None:
    candidates = [Candidate("r", f"t{i:04d}") for i in range(250)]
    obj = {
        "name": "n",
        "categories": [
            {
                "title": "c",
                "charts": [{"title": "t", "kind": "multiline", "tags": ["t"]}],
            }
        ],
    }
    (chart,) = L.preview_layout(obj, candidates).charts
    assert chart.total_matches == 250
    assert len(chart.matches) == 200
    assert chart.matches[-1].tag == "t0199"


@pytest.mark.parametrize(
    "obj",
    [
        None,
        "text",
        [1, 2],
        {"categories": "x"},
        {"categories": [1, {"charts": "x"}, {"charts": [None, 5]}]},
        {
            "categories": [
                {
                    "charts": [
                        {
                            "kind": 3,
                            "tags": [None, 4, "", "a" * 600],
                            "runs": ["x"],
                            "series": [{"value": 1}, "s"],
                            "title": ["t"],
                        }
                    ]
                }
            ]
        },
        {"name": "a", "categories": {1, 2}},
    ],
)
def test_preview_never_raises(obj: Any) -> None:
    preview = L.preview_layout(obj, _CANDIDATES)
    assert preview.error is not None
    json.dumps(L.preview_to_json(preview))


def test_preview_does_not_change_its_input() -> None:
    obj = _valid_layout()
    before = copy.deepcopy(obj)
    L.preview_layout(obj, _CANDIDATES)
    L.validate_layout(obj)
    assert obj == before


# ---------------------------------------------------------------------------
# Purity


def test_core_layouts_imports_no_tensorboard_or_werkzeug() -> None:
    # protobuf 3.x installs a namespace .pth that imports `google` when
    # Python starts: only what the import itself adds counts.
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import tb_multiframework.core.layouts\n"
        "bad = sorted(m for m in set(sys.modules) - before if m.split('.')[0] in "
        "{'tensorboard', 'werkzeug', 'google', 'torch', 'tensorflow', "
        "'paddle'})\n"
        "print(bad)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


# Logged layouts are bounded (anyone can write the files); every part left
# out is counted.


def _logged(categories: int, charts: int, tags: int) -> dict[str, Any]:
    return {
        "category": [
            {
                "title": f"c{c}",
                "chart": [
                    {
                        "title": f"c{c} chart {k}",
                        "multiline": {
                            "tag": [f"t{c}_{k}_{j}" for j in range(tags)]
                        },
                    }
                    for k in range(charts)
                ],
            }
            for c in range(categories)
        ]
    }


def test_logged_layout_categories_and_charts_are_capped_and_counted() -> None:
    from tb_multiframework.core.layouts import imported

    n = imported.MAX_IMPORTED_CATEGORIES + 37
    layout = L.convert_imported_layouts({"r": _logged(n, 1, 1)})
    assert len(layout.categories) == imported.MAX_IMPORTED_CATEGORIES
    assert layout.warnings == (
        f"37 categories beyond the first "
        f"{imported.MAX_IMPORTED_CATEGORIES:,} left out, with their charts",
    )
    per = 7
    n = imported.MAX_IMPORTED_CHARTS // per + 3  # whole categories
    layout = L.convert_imported_layouts({"r": _logged(n, per, 1)})
    kept = sum(len(c.charts) for c in layout.categories)
    assert kept == imported.MAX_IMPORTED_CHARTS
    assert layout.warnings[-1].startswith(
        f"{n * per - imported.MAX_IMPORTED_CHARTS:,} charts left out"
    )


def test_logged_layout_patterns_are_capped_per_chart_and_in_all() -> None:
    from tb_multiframework.core.layouts import imported

    extra = 23
    layout = L.convert_imported_layouts(
        {"r": _logged(1, 1, imported.MAX_IMPORTED_PATTERNS + extra)}
    )
    (chart,) = layout.categories[0].charts
    assert chart.tags == tuple(
        f"t0_0_{j}" for j in range(imported.MAX_IMPORTED_PATTERNS)
    )
    assert layout.warnings == (
        f"run 'r': category[0].chart[0] 'c0 chart 0': {extra} tag regexes "
        f"beyond the first {imported.MAX_IMPORTED_PATTERNS} left out",
    )
    per_chart = imported.MAX_IMPORTED_PATTERNS
    charts = imported.MAX_IMPORTED_PATTERNS_TOTAL // per_chart + 5
    layout = L.convert_imported_layouts({"r": _logged(1, charts, per_chart)})
    kept = layout.categories[0].charts
    assert (
        sum(len(c.tags) for c in kept) == imported.MAX_IMPORTED_PATTERNS_TOTAL
    )
    assert layout.warnings[-1].startswith("5 charts left out")


def test_logged_layout_warnings_are_capped_and_counted() -> None:
    from tb_multiframework.core.layouts import imported

    junk = imported.MAX_IMPORTED_WARNINGS + 41
    layout = L.convert_imported_layouts(
        {"r": {"category": [{"title": "A", "chart": ["junk"] * junk}]}}
    )
    assert len(layout.warnings) == imported.MAX_IMPORTED_WARNINGS + 1
    assert layout.warnings[-1] == "… and 41 more warnings"
    assert (
        layout.warnings[0]
        == "run 'r': category[0].chart[0]: not an object; skipped"
    )


def test_logged_layout_long_titles_are_cut_after_merging() -> None:
    long_a = "x" * 300 + "a"
    long_b = "x" * 300 + "b"
    chart = {"title": "y" * 1000, "multiline": {"tag": ["loss"]}}
    layout = L.convert_imported_layouts(
        {
            "r": {
                "category": [
                    {"title": long_a, "chart": [chart]},
                    {"title": long_b, "chart": [chart] * 1000},  # one chart
                ]
            }
        }
    )
    a, b = layout.categories  # titles equal after the cut stay apart
    cut = "x" * (L.MAX_TITLE_CHARS - 1) + "…"
    assert a.title == b.title == cut
    assert len(b.charts) == 1
    assert b.charts[0].title == "y" * (L.MAX_TITLE_CHARS - 1) + "…"
