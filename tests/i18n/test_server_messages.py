"""Server-made texts travel with their message ids (docs/api.md, Messages).

Every id the server sends on the demo logs and the trainer logs (run
warnings, histogram pair reasons, anomaly messages and causes, and the
evidence texts: a run's framework and trainer evidence, its epoch source,
and every inference's evidence, reason and how-to-set) is in both
catalogs, and the English text sent beside it is the catalog's English
with the parameters sent (for anomalies and pair reasons, checked text for
text; a warning's English keeps its plural forms, so for warnings the
numbers sent are checked against the text instead). The anomaly detectors
are also run on the labelled cases of bench/anomaly_cases.py, which make
every kind of finding.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from tb_multiframework import i18n
from tb_multiframework.api.messages import evidence_message
from tb_multiframework.core import anomalies
from tb_multiframework.settings.layouts import resolve_layouts_path
from tests.conftest import DEMO_LOGS, ROOT, make_client

BASE = "/data/plugin/tb_multiframework"
TRAINERS = Path(ROOT) / "tests" / "data" / "trainers"
LOGDIRS = [Path(DEMO_LOGS)] + sorted(
    p
    for p in TRAINERS.iterdir()
    if p.is_dir() and p.name != "truth" and not p.name.startswith(".")
)
EN = i18n.catalog("en")
ZH = i18n.catalog("zh-CN")


def _get(client, route):
    response = client.get(f"{BASE}/{route}")
    assert response.status_code == 200, response.get_data(as_text=True)
    return json.loads(response.get_data(as_text=True))


def _check(message, english):
    assert message is not None, f"no message id for {english!r}"
    key, params = message["id"], message["params"]
    assert key in EN and key in ZH, key
    assert i18n.t(key, params) == english
    assert "{" not in re.sub(r"\{[^a-zA-Z_]", "", i18n.t(key, params, lang="zh-CN")), key


@pytest.mark.parametrize("logdir", LOGDIRS, ids=lambda p: p.name)
def test_run_warnings_and_anomalies_carry_known_ids(logdir):
    client, _ = make_client(str(logdir))
    runs = _get(client, "runs")["runs"]
    for run in runs:
        assert len(run["warningMessages"]) == len(run["warnings"])
        for text, message in zip(run["warnings"], run["warningMessages"]):
            assert message is not None, f"{run['run']}: {text!r}"
            assert message["id"] in EN and message["id"] in ZH
            # The numbers sent are the warning's own.
            for value in message["params"].values():
                if isinstance(value, int):
                    assert str(value) in text, (value, text)
    found = _get(client, "anomalies")["anomalies"]
    for a in found:
        _check(a["i18n"]["message"], a["message"])
        _check(a["i18n"]["cause"], a["cause"])


@pytest.mark.parametrize("logdir", LOGDIRS, ids=lambda p: p.name)
def test_evidence_and_inference_texts_carry_known_ids(logdir):
    client, _ = make_client(str(logdir))
    checked = 0
    for run in _get(client, "runs")["runs"]:
        pairs = [
            *zip(run["evidence"], run["evidenceMessages"]),
            *zip(run["trainerEvidence"], run["trainerEvidenceMessages"]),
            (run["epochSource"], run["epochSourceMessage"]),
        ]
        if run["resumeNote"]:
            pairs.append((run["resumeNote"], run["resumeNoteMessage"]))
        else:
            assert run["resumeNoteMessage"] is None

        assert len(run["evidenceMessages"]) == len(run["evidence"])
        for name, claim in run["inferences"].items():
            assert len(claim["evidenceMessages"]) == len(claim["evidence"])
            pairs += zip(claim["evidence"], claim["evidenceMessages"])
            for field in ("reason", "howToSet"):
                if claim[field]:
                    pairs.append((claim[field], claim[f"{field}Message"]))
                else:
                    assert claim[f"{field}Message"] is None, (name, field)
        for text, message in pairs:
            _check(message, text)
            checked += 1
    assert checked > 0


def test_the_demo_has_every_kind_of_inference_text():
    """Unknown inferences (reason and how to set) and each claim's evidence
    are on the demo, so the test above reads them all."""
    client, _ = make_client(str(DEMO_LOGS))
    runs = _get(client, "runs")["runs"]
    claims = [c for r in runs for c in r["inferences"].values()]
    assert any(r["resumeNote"] for r in runs)
    assert any(c["reason"] for c in claims)
    assert any(c["howToSet"] for c in claims)
    for name in ("framework", "trainer", "epochAxis", "resume", "parent"):
        assert any(r["inferences"][name]["evidence"] for r in runs), name


def test_metric_derivations_carry_their_ids():
    client, _ = make_client(str(DEMO_LOGS))
    metrics = _get(client, "metrics")["metrics"]
    notes = 0
    for entry in metrics:
        for member in entry["members"]:
            derivation = member["derivation"]
            parts = derivation.split("; ") if derivation else []
            assert len(member["derivationMessages"]) == len(parts)
            for text, message in zip(parts, member["derivationMessages"]):
                _check(message, text)
                notes += 1
    assert notes > 50


def test_scalars_reasons_carry_their_ids():
    """Every run on the epoch axis with a baseline: runs without epochs are
    excluded (series and difference), runs without the metric missing."""
    client, _ = make_client(str(DEMO_LOGS))
    runs = [r["run"] for r in _get(client, "runs")["runs"]]
    query = "&".join(f"run={r}" for r in runs)
    body = _get(
        client,
        f"scalars?metric=loss/val@epoch&x=epoch&baseline=pytorch_sgd&{query}",
    )
    pairs = [
        (entry["excluded"], entry["excludedMessage"])
        for key in ("series", "diffs")
        for entry in body[key]
        if entry.get("excluded")
    ]
    pairs += [(m["reason"], m["reasonMessage"]) for m in body["missing"]]
    kinds = {m["id"] for _, m in pairs if m}
    assert kinds == {"evidence.epoch.noInfo", "evidence.scalars.noMetricTag"}
    for text, message in pairs:
        _check(message, text)


def test_where_layouts_are_saved_carries_its_id(tmp_path, monkeypatch):
    """Each reason `resolve_layouts_path` gives for where layouts go."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    logdir = tmp_path / "logs"
    logdir.mkdir()
    blocked = tmp_path / "file"
    blocked.write_text("x")
    cases = [
        (str(logdir), None, "evidence.layouts.inLogdir"),
        (str(logdir), str(tmp_path / "mine"), "evidence.layouts.flag"),
        ("s3://bucket/logs", None, "evidence.layouts.notLocal"),
        ("", None, "evidence.layouts.noLogdir"),
        (str(blocked), None, "evidence.layouts.cannotHold"),
    ]
    for logdir_arg, directory, key in cases:
        _, reason = resolve_layouts_path(logdir_arg, flag_dir=directory)
        message = evidence_message(reason)
        _check(message, reason)
        assert message["id"] == key, (reason, message)


def test_evidence_texts_are_read_by_their_most_specific_message():
    found = evidence_message("tag 'train/epoch' (fractional epochs)")
    assert found == {
        "id": "evidence.source.tagFractional",
        "params": {"tag": "'train/epoch'"},
    }
    assert evidence_message("tag 'epoch'")["id"] == "evidence.source.tag"
    found = evidence_message(
        "attempt 1 from step 249: tag 'Loss' logged step 249 again in a new file"
    )
    assert found["id"] == "evidence.resume.newFile"
    assert found["params"] == {
        "attempt": "1", "step": "249", "tag": "'Loss'", "again": "249"
    }
    assert i18n.t(found["id"], found["params"], lang="zh-CN") == (
        "第 1 次尝试从第 249 步开始：标签 'Loss' 在新文件中再次记录了第 249 步"
    )
    # A text no message knows has none (the tab shows its English).
    assert evidence_message("a text the server never writes") is None
    assert evidence_message("tag epoch") is None  # a name is quoted


def test_file_damage_and_skipped_file_warnings_carry_their_ids(tmp_path):
    """A demo event file with a corrupt record header in the middle and a
    torn header at its end, beside a compressed copy and a file whose name
    is no log file name: each warning comes with its message."""
    source = next((Path(DEMO_LOGS) / "pytorch_sgd").glob("*tfevents*"))
    run = tmp_path / "damaged"
    run.mkdir()
    data = bytearray(source.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 8] = b"\xff" * 8
    (run / source.name).write_bytes(bytes(data) + b"\x01\x02\x03")
    (run / f"{source.name}.gz").write_bytes(b"x")
    (run / "notes.tfevents").write_bytes(b"x")
    client, _ = make_client(str(tmp_path))
    (entry,) = _get(client, "runs")["runs"]
    ids = []
    for text, message in zip(entry["warnings"], entry["warningMessages"]):
        _check(message, text)
        ids.append(message["id"])
    assert sorted(ids) == [
        "warning.file.corrupt.header",
        "warning.file.pendingHeader",
        "warning.skipped.compressed",
        "warning.skipped.notLogName",
    ]
    corrupt = entry["warningMessages"][ids.index("warning.file.corrupt.header")]
    assert i18n.t(corrupt["id"], corrupt["params"], lang="zh-CN").startswith(
        f"{source.name}：第 "
    )


def test_the_demo_has_a_warning_and_an_anomaly_to_check():
    client, _ = make_client(str(DEMO_LOGS))
    assert any(r["warnings"] for r in _get(client, "runs")["runs"])
    assert _get(client, "anomalies")["anomalies"]


def test_histogram_pair_reasons_carry_their_ids():
    client, _ = make_client(str(DEMO_LOGS))
    body = _get(
        client, "histogram_pairs?runA=pytorch_sgd&runB=keras_fit%2Ftrain"
    )
    assert body["pairs"]
    for pair in body["pairs"]:
        assert len(pair["reasonMessages"]) == len(pair["reasons"])
        for text, message in zip(pair["reasons"], pair["reasonMessages"]):
            _check(message, text)


def test_every_kind_of_finding_has_its_message():
    sys.path.insert(0, str(Path(ROOT) / "bench"))
    import anomaly_cases  # noqa: PLC0415

    seen = set()
    for case in anomaly_cases.make_cases(7, per_kind=4, clean=0):
        for finding in _findings(case):
            assert finding.message_id, finding
            _check(
                {"id": finding.message_id, "params": finding.message_params},
                finding.message,
            )
            seen.add(finding.kind)
    assert seen == set(anomaly_cases.ALL_KINDS)


def _findings(case):
    """The detectors over one case (as bench/anomaly_cases.detect_case)."""
    lr = case.series.get(case.lr) if case.lr else None
    lr_input = None if lr is None else (lr.steps, lr.values)
    out = []
    for curve in case.series.values():
        if curve.role != "lr":
            out += anomalies.detect_series(
                curve.steps,
                curve.values,
                direction=curve.direction,
                validation=curve.role == "val",
                lr=lr_input,
            )
    if case.pair:
        train, val = (case.series[k] for k in case.pair)
        for axis in ("step", "epoch"):
            on_train, on_val = anomalies.detect_pair(
                (train.steps, train.values),
                (val.steps, val.values),
                direction=val.direction,
                axis=axis,
            )
            out += on_train + on_val
    if case.group:
        members = [case.series[k] for k in case.group]
        for items in anomalies.detect_group(
            [(m.steps, m.values) for m in members],
            names=list(case.group),
            direction=members[0].direction,
        ):
            out += items
    return out
