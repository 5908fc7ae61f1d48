"""Group rules, hyper-parameter flattening, config diff, metric summaries."""

from __future__ import annotations

import numpy as np
import pytest

from tb_multiframework.core import groups, hparams
from tb_multiframework.core.direction import metric_direction
from tb_multiframework.core.summaries import rank_spread, summarize_series


def facts(run, logical=None, framework="pytorch", hp=None, config_group=None):
    return groups.RunFacts(
        run=run,
        logical=logical or run,
        framework=framework,
        hparams=hp or {},
        config_group=config_group,
    )


def assign(runs, rules=()):
    found = groups.assign_groups(runs, groups.default_rules(rules))
    return {run: (a.group, a.source) for run, a in found.items()}


@pytest.mark.parametrize(
    "names",
    [
        ["job/rank_0", "job/rank_1"],
        ["job/rank-0", "job/rank-1"],
        ["job/rank0", "job/rank1", "job/rank2"],
        ["job/worker_2", "job/worker_3"],
        ["job/local_rank_0", "job/local_rank_1"],
        ["job/RANK_0", "job/Rank_1"],
    ],
)
def test_rank_siblings_form_one_group_named_after_the_parent(names):
    found = assign([facts(n) for n in names])
    assert set(found.values()) == {("job", "ddp ranks")}


def test_rank_rule_needs_siblings_and_a_rank_name():
    found = assign([facts("a/rank_0"), facts("b/rank_1"), facts("c/ranking_1")])
    assert all(source == "run" for _, source in found.values())
    top = assign([facts("rank_0"), facts("rank_1")])
    assert set(top.values()) == {(".", "ddp ranks")}


def test_keras_subruns_under_rank_dirs_join_the_job():
    runs = [
        facts("job/rank_0/train", logical="job/rank_0"),
        facts("job/rank_0/validation", logical="job/rank_0"),
        facts("job/rank_1/train", logical="job/rank_1"),
    ]
    assert set(assign(runs).values()) == {("job", "ddp ranks")}


def test_seed_repeats_equal_but_for_seeds():
    hp = {"lr": 0.1, "opt": "adam"}
    runs = [
        facts("s/torch_seed0", hp={**hp, "seed": 0}),
        facts("s/torch_seed1", hp={**hp, "seed": 1}),
        facts("s/torch_seed2", hp={**hp, "seed": 2, "dropout": 0.5}),
        facts("s/torch_lr", hp={"lr": 0.2, "opt": "adam", "seed": 0}),
        # same values, other framework: a separate family
        facts("s/keras_seed0", framework="tensorflow", hp={**hp, "seed": 0}),
        facts("s/keras_seed1", framework="tensorflow", hp={**hp, "seed": 1}),
        # equal seeds too: exact re-runs, not seed repeats
        facts("r/a", hp={"lr": 1, "seed": 4}),
        facts("r/b", hp={"lr": 1, "seed": 4}),
    ]
    runs.append(
        facts("s/torch_seed3", hp={**hp, "seed": 3, "data.split_seed": 5})
    )
    found = assign(runs)
    assert found["s/torch_seed3"] == ("s/torch_seed*", "seed repeats")
    assert found["s/torch_seed0"] == ("s/torch_seed*", "seed repeats")
    assert found["s/torch_seed1"] == ("s/torch_seed*", "seed repeats")
    assert found["s/torch_seed2"] == ("s/torch_seed2", "run")  # extra key
    assert found["s/torch_lr"] == ("s/torch_lr", "run")
    assert found["s/keras_seed1"] == ("s/keras_seed*", "seed repeats")
    assert found["r/a"] == ("r/a", "run")


def test_seed_group_without_a_common_name_is_named_by_hash():
    hp = {"lr": 0.1}
    found = assign(
        [facts("x", hp={**hp, "seed": 1}), facts("y", hp={**hp, "seed": 2})]
    )
    assert found["x"] == (f"repeats {hparams.config_hash(hp)}", "seed repeats")


def test_config_rules_come_first_and_expand_groups():
    rules = groups.parse_group_rules(
        [{"pattern": r"^exp_(\w+?)_\d+$", "group": r"exp \1"}]
    )
    runs = [
        facts("exp_a_1"),
        facts("exp_a_2"),
        facts("job/rank_0", config_group="mine"),
        facts("job/rank_1"),
    ]
    found = assign(runs, rules)
    assert found["exp_a_1"] == ("exp a", "config rule")
    assert found["exp_a_2"] == ("exp a", "config rule")
    assert found["job/rank_0"] == ("mine", "config")
    # rank_1 alone is no longer a set of siblings
    assert found["job/rank_1"] == ("job/rank_1", "run")


@pytest.mark.parametrize(
    "bad",
    [
        "not a list",
        [{"pattern": "("}],
        [{"pattern": "(", "group": "g"}],
        [{"pattern": "a", "group": " "}],
        [{"pattern": "a" * 2000, "group": "g"}],
        [{"pattern": 1, "group": "g"}],
        [{"pattern": "a", "group": "g", "extra": 1}],
    ],
)
def test_bad_group_rules_are_errors(bad):
    with pytest.raises(ValueError):
        groups.parse_group_rules(bad)


def test_group_rule_with_a_missing_group_reference_is_an_error():
    (rule,) = groups.parse_group_rules([{"pattern": "a", "group": r"\3"}])
    with pytest.raises(ValueError, match="missing group"):
        rule.match("a")


def test_hparams_owner_maps_add_hparams_subruns():
    known = {"run", "run/1712345678.123456", "run/Loss_train"}
    assert groups.hparams_owner("run/1712345678.123456", known) == "run"
    assert groups.hparams_owner("run/Loss_train", known) == "run/Loss_train"
    assert groups.hparams_owner("x/1712345678.1", known) == "x/1712345678.1"


def test_group_key_columns():
    kw = dict(
        run="r",
        group="g",
        framework="paddle",
        writer="",
        trainer="",
        hparams={"lr": 0.1, "opt": 'a"b', "amp": True, "n": None},
    )
    assert groups.group_key("group", **kw) == "g"
    assert groups.group_key("framework", **kw) == "paddle"
    assert groups.group_key("writer", **kw) == "unknown writer"
    assert groups.group_key("trainer", **kw) == "no trainer"
    assert groups.group_key("none", **kw) == "r"
    assert groups.group_key("hparam:lr", **kw) == "lr=0.1"
    assert groups.group_key("hparam:opt", **kw) == 'opt="a\\"b"'
    assert groups.group_key("hparam:amp", **kw) == "amp=true"
    assert groups.group_key("hparam:n", **kw) == "n=null"
    assert groups.group_key("hparam:zz", **kw) == "zz not set"
    for bad in ("frame", "hparam:", ""):
        with pytest.raises(ValueError):
            groups.check_group_by(bad)


def test_flatten_and_normalise():
    flat, problems = hparams.flatten(
        {
            "a": {"b": {"c": 1.0}, "d/e": 2},
            "f": [1, {"g": 2}],
            "h": None,
            "i": True,
            "j": float("inf"),
            "k": 2.5,
            "l": 2**60 * 1.0,
        }
    )
    assert problems == []
    assert flat == {
        "a.b.c": 1,
        "a.d.e": 2,
        "f": '[1, {"g": 2}]',
        "h": None,
        "i": True,
        "j": float("inf"),
        "k": 2.5,
        "l": 2**60 * 1.0,
    }
    assert type(flat["a.b.c"]) is int and type(flat["l"]) is float


def test_flatten_caps_hostile_input():
    deep = {}
    node = deep
    for _ in range(5000):
        node["k"] = {}
        node = node["k"]
    flat, _ = hparams.flatten(deep)
    assert len(flat) == 1 and len(next(iter(flat))) < 100
    wide = {str(i): i for i in range(hparams.MAX_HPARAMS + 10)}
    flat, problems = hparams.flatten(wide)
    assert len(flat) == hparams.MAX_HPARAMS and problems
    assert len(hparams.normalise_value("x" * 10_000)) == hparams.MAX_VALUE_CHARS


def test_merge_order_and_sources():
    merged = hparams.merge_sources(
        [
            hparams.HParamSource("tbmf_config", "cfg.json", {"lr": 9}),
            hparams.HParamSource("hparams_plugin", "tag", {"lr": 1, "a": 1}),
            hparams.HParamSource("hparams_yaml", "hparams.yaml", {"a": True}),
        ]
    )
    assert merged.values == {"a": True, "lr": 9}
    assert merged.sources == {
        "a": "hparams_yaml: hparams.yaml",
        "lr": "tbmf_config: cfg.json",
    }


def test_config_diff_differing_first_and_true_is_not_one():
    table = hparams.config_diff(
        {
            "A": {"lr": 0.1, "amp": True, "same": "x", "nan": float("nan")},
            "B": {
                "lr": 0.2,
                "amp": 1,
                "same": "x",
                "nan": float("nan"),
                "b": None,
            },
        }
    )
    assert [(d.key, d.differs) for d in table] == [
        ("amp", True),
        ("b", True),
        ("lr", True),
        ("nan", False),
        ("same", False),
    ]
    b = next(d for d in table if d.key == "b")
    assert b.present == {"A": False, "B": True} and b.values == {
        "A": None,
        "B": None,
    }


@pytest.mark.parametrize(
    "name,direction",
    [
        ("loss/train", "lower"),
        ("loss/val@epoch", "lower"),
        ("val_error", "lower"),
        ("epoch_time", "lower"),
        ("mse/val", "lower"),
        ("accuracy/val", "higher"),
        ("auc", "higher"),
        ("f1/test", "higher"),
        ("learning_rate/train", None),
        ("grad_norm", None),
    ],
)
def test_metric_direction(name, direction):
    assert metric_direction(name) == direction


def test_summarize_series():
    steps = np.array([3, 1, 2, 2])
    values = np.array([0.5, np.nan, 0.2, 0.1])
    found = summarize_series(steps, values, direction="min")
    assert (found.last, found.last_step) == (0.5, 3)
    assert (found.best, found.best_step) == (0.1, 2)
    found = summarize_series(steps, values, direction="max")
    assert (found.best, found.best_step) == (0.5, 3)
    assert summarize_series(steps, values, direction=None).best is None
    assert summarize_series([], [], direction="min").last is None


def test_rank_spread_at_the_last_common_step():
    found = rank_spread(
        [
            ([0, 1, 2, 3], [1, 1, 1, 2.0]),
            ([0, 1, 2], [1, 1, 1.0]),
            ([1, 2], [2, 1.6]),
        ]
    )
    # last common step is 2: values 1, 1, 1.6, mean 1.2, max |dev| 0.4
    assert found.step == 2
    assert found.spread == pytest.approx(0.4 / 1.2)
    assert rank_spread([([0], [1.0])]).spread is None
    assert rank_spread([([0], [1.0]), ([1], [2.0])]).step is None
    assert rank_spread([([0], [1.0]), ([0], [-1.0])]).spread is None  # mean 0
