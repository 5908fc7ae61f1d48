"""Hyper-parameters from every source, read from files the real writers made.

Fixtures (``scripts/demo/gen_hparams_fixtures.py``, real torch, tensorboardX,
VisualDL and Lightning writers; truth = the values handed to them)::

    tests/data/hparams_sources/
      torch_subrun/            add_scalar; add_hparams() -> <time.time()>/ sub-run
      hf_text/                 add_text("args"), add_text("model_config") (JSON)
      files/                   events + hparams.json
      tbx/                     tensorboardX add_hparams() -> sub-run
      visualdl/                VisualDL LogWriter.add_hparams
      lightning/version_0/     TensorBoardLogger: hparams.yaml + hparams summary
      yaml/                    events + config.yaml (PyYAML)

and the demo runs (seeds/*: torch add_hparams(run_name='.'), Keras
hparams KerasCallback; ddp/rank_*: config.json).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil

import pytest

from tb_multiframework.ingest import visualdl_wire
from tests import eventfiles
from tests.conftest import DEMO_LOGS, ROOT, make_client

SOURCES = os.path.join(ROOT, "tests", "data", "hparams_sources")
TRUTH = os.path.join(ROOT, "tests", "data", "demo_truth")


def _truth(part):
    with open(os.path.join(SOURCES, f"truth_{part}.json")) as handle:
        return json.load(handle)


def _expected(nested, prefix=""):
    """The documented flattening, written independently of the code."""
    out = {}
    for key, value in nested.items():
        name = prefix + key
        if isinstance(value, dict):
            out.update(_expected(value, name + "."))
        elif isinstance(value, list):
            out[name] = json.dumps(value)
        elif isinstance(value, float) and value == int(value):
            out[name] = int(value)
        else:
            out[name] = value
    return out


@pytest.fixture(scope="module")
def runs():
    client, _ = make_client(SOURCES)
    body = json.loads(client.get("/data/plugin/tb_multiframework/runs").data)
    return {r["run"]: r for r in body["runs"]}


def _sources(run):
    return set(run["hparamsSources"].values())


def test_torch_add_hparams_subrun_belongs_to_its_run(runs):
    want = _expected(_truth("torch")["torch_subrun"])
    sub = [r for r in runs if r.startswith("torch_subrun/")]
    assert len(sub) == 1
    assert runs["torch_subrun"]["hparams"] == want
    assert runs[sub[0]]["hparams"] == want
    assert _sources(runs["torch_subrun"]) == {
        f"hparams_plugin: _hparams_/session_start_info (in {sub[0]})"
    }
    assert runs["torch_subrun"]["warnings"] == []


def test_hugging_face_args_and_model_config_text(runs):
    truth = _truth("torch")["hf_text"]
    want = _expected(truth["args"])
    want.update(_expected(truth["model_config"], "model_config."))
    assert runs["hf_text"]["hparams"] == want
    assert runs["hf_text"]["hparamsSources"]["learning_rate"] == (
        "hf_args: args/text_summary"
    )


def test_hparams_json_beside_the_logs(runs):
    assert runs["files"]["hparams"] == _expected(_truth("torch")["files"])
    assert _sources(runs["files"]) == {"config_file: hparams.json"}


def test_tensorboardx_add_hparams(runs):
    assert runs["tbx"]["hparams"] == _expected(_truth("paddle")["tbx"])
    assert all(r["warnings"] == [] for n, r in runs.items() if "tbx" in n)


def test_visualdl_add_hparams(runs):
    assert runs["visualdl"]["hparams"] == _expected(
        _truth("paddle")["visualdl"]
    )
    assert _sources(runs["visualdl"]) == {"visualdl: add_hparams"}
    assert "hparam" in runs["visualdl"]["otherTags"]


def test_lightning_hparams_yaml_beats_its_lossy_summary(runs):
    run = runs["lightning/version_0"]
    # Lightning's own summary stores use_amp=True as 1.0 and flattens with
    # '/'; the YAML keeps the bool and the nesting, and wins.
    assert run["hparams"] == _expected(
        _truth("lightning")["lightning/version_0"]
    )
    assert run["hparams"]["use_amp"] is True
    assert _sources(run) == {"hparams_yaml: hparams.yaml"}
    assert "hparams" in run["otherTags"]  # the summary was read too


def test_config_yaml(runs):
    assert runs["yaml"]["hparams"] == _expected(_truth("lightning")["yaml"])


def test_config_hash_is_md5_of_sorted_json(runs):
    for run in runs.values():
        if not run["hparams"]:
            assert run["configHash"] == ""
            continue
        text = json.dumps(run["hparams"], sort_keys=True)
        assert run["configHash"] == hashlib.md5(text.encode()).hexdigest()[:8]


@pytest.fixture(scope="module")
def demo_runs():
    client, _ = make_client(DEMO_LOGS)
    body = json.loads(client.get("/data/plugin/tb_multiframework/runs").data)
    return {r["run"]: r for r in body["runs"]}


def _demo_hparams():
    for name in ("seeds_pytorch", "seeds_keras", "ddp"):
        with open(os.path.join(TRUTH, f"{name}.json")) as handle:
            yield from json.load(handle)["hparams"].items()


@pytest.mark.parametrize("run_dir,truth", sorted(_demo_hparams()))
def test_demo_runs_hparams(demo_runs, run_dir, truth):
    want = _expected(truth["values"])
    assert demo_runs[run_dir]["hparams"] == want
    # Keras' train/validation sub-runs share their directory's hparams.
    for sub in ("train", "validation"):
        if f"{run_dir}/{sub}" in demo_runs:
            assert demo_runs[f"{run_dir}/{sub}"]["hparams"] == want


def test_demo_groups(demo_runs):
    groups = {r: (v["group"], v["groupSource"]) for r, v in demo_runs.items()}
    assert groups["ddp/rank_0"] == ("ddp", "ddp ranks")
    assert groups["ddp/rank_1"] == ("ddp", "ddp ranks")
    for seed in range(3):
        assert groups[f"seeds/pytorch_seed{seed}"] == (
            "seeds/pytorch_seed*",
            "seed repeats",
        )
        for sub in ("", "/train", "/validation"):
            assert groups[f"seeds/keras_seed{seed}{sub}"] == (
                "seeds/keras_seed*",
                "seed repeats",
            )
    assert groups["keras_fit/train"] == ("keras_fit", "sub-runs")
    assert groups["pytorch_sgd"] == ("pytorch_sgd", "run")


def test_visualdl_hparam_descriptor_matches_visualdl_proto():
    """Our HParam message, field by field, against VisualDL's record.proto.

    scripts/demo/visualdl_record.proto was reconstructed byte-for-byte from
    VisualDL 2.5.3's shipped descriptor; parse its HParam block by hand.
    """
    fields = {
        f.name: (f.number, f.kind, f.repeated)
        for f in visualdl_wire.HPARAM.fields
    }
    info = {
        f.name: (f.number, f.kind, bool(f.oneof))
        for f in visualdl_wire.HPARAM_INFO.fields
    }
    assert fields == {
        "hparamInfos": (1, "message", True),
        "metricInfos": (2, "message", True),
        "name": (3, "string", False),
    }
    assert info == {
        "int_value": (1, "int64", True),
        "float_value": (2, "double", True),
        "string_value": (3, "string", True),
        "name": (4, "string", False),
    }
    proto = open(
        os.path.join(ROOT, "scripts", "demo", "visualdl_record.proto")
    ).read()
    block = proto[proto.index("message HParam {") :]
    for line in (
        "int64 int_value = 1;",
        "double float_value = 2;",
        "string string_value = 3;",
        "string name = 4;",
        "repeated HparamInfo hparamInfos = 1;",
        "repeated HparamInfo metricInfos = 2;",
        "string name = 3;",
    ):
        assert line in block


def test_side_files_are_reread_when_they_change(tmp_path):
    run = tmp_path / "run"
    shutil.copytree(os.path.join(SOURCES, "files"), run)
    client, plugin = make_client(str(tmp_path))

    def hparams():
        body = json.loads(
            client.get("/data/plugin/tb_multiframework/runs").data
        )
        return body["runs"][0]["hparams"], body["runs"][0]["warnings"]

    assert hparams()[0]["lr"] == 0.001
    (run / "hparams.json").write_text('{"lr": 0.5, "extra": "x"}')
    plugin._loader.reload()
    assert hparams()[0] == {"lr": 0.5, "extra": "x"}
    (run / "hparams.json").write_text('{"lr": ')  # broken: a warning, no crash
    plugin._loader.reload()
    values, warnings = hparams()
    assert values == {} and any("hparams.json: not JSON" in w for w in warnings)
    (run / "hparams.json").unlink()
    plugin._loader.reload()
    assert hparams() == ({}, [])


def test_hostile_side_files(tmp_path):
    run = tmp_path / "run"
    shutil.copytree(os.path.join(SOURCES, "files"), run)
    deep = "[" * 100_000 + "]" * 100_000
    (run / "hparams.json").write_text(deep)
    (run / "config.yaml").write_text(
        "a: !!python/object/apply:os.system ['echo pwned']\nb: 1\n"
    )
    (run / "config.json").write_bytes(b"\xff\xfe not utf-8")
    client, _ = make_client(str(tmp_path))
    body = json.loads(client.get("/data/plugin/tb_multiframework/runs").data)
    entry = body["runs"][0]
    # The YAML's python tag is read as text, never executed.
    assert entry["hparams"]["b"] == 1
    assert entry["hparams"]["a"].startswith("!tag:yaml.org,2002:python/object")
    assert any("config.json: not UTF-8" in w for w in entry["warnings"])
    assert any("hparams.json" in w for w in entry["warnings"])


def test_yaml_without_pyyaml_is_a_warning(tmp_path, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_yaml(name, *args, **kwargs):
        if name == "yaml":
            raise ImportError("no yaml")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_yaml)
    run = tmp_path / "run"
    shutil.copytree(os.path.join(SOURCES, "yaml"), run)
    client, _ = make_client(str(tmp_path))
    entry = json.loads(client.get("/data/plugin/tb_multiframework/runs").data)[
        "runs"
    ][0]
    assert entry["hparams"] == {}
    assert any("needs PyYAML" in w for w in entry["warnings"])
    assert entry["numPoints"] == 1  # the rest of the run is served


def test_undecodable_hparams_content_is_a_warning(tmp_path):
    from tensorboard.compat.proto import event_pb2

    event = event_pb2.Event(step=0, wall_time=1.0)
    value = event.summary.value.add(tag="_hparams_/session_start_info")
    value.metadata.plugin_data.plugin_name = "hparams"
    value.metadata.plugin_data.content = b"\xff\xff\xff"
    eventfiles.write(
        str(tmp_path / "run" / eventfiles.TORCH_NAME),
        eventfiles.record_bytes(
            [
                eventfiles.file_version_event(),
                event.SerializeToString(),
                eventfiles.scalar_event("loss", 1, 2.0, 0.5),
            ]
        ),
    )
    client, _ = make_client(str(tmp_path))
    entry = json.loads(client.get("/data/plugin/tb_multiframework/runs").data)[
        "runs"
    ][0]
    assert entry["hparams"] == {}
    assert entry["numPoints"] == 1
    assert any("undecodable hparams" in w for w in entry["warnings"])
