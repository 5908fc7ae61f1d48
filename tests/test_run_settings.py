"""`POST run_settings`: the user's corrections saved in the config file.

Every correction is checked twice: in the file written (JSON read back with
the standard library) and in what the routes then say ("set by you", and
the inference changed accordingly). The save is atomic: a failed one leaves
the previous file byte for byte.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest

from tb_multiframework.settings import corrections
from tests.conftest import ROOT, make_client

BASE = "/data/plugin/tb_multiframework"
TRAINERS = os.path.join(ROOT, "tests", "data", "trainers")
HEADERS = {"X-XSRF-Protected": "1"}
MM = "mmengine_epoch/20261201_222720/vis_data"


@pytest.fixture
def setup(tmp_path):
    logdir = tmp_path / "logs"
    for run in ("mmengine_epoch", "restart", "sb3_ppo"):
        shutil.copytree(os.path.join(TRAINERS, run), logdir / run)
    config = tmp_path / "tbmf.json"
    config.write_text(
        json.dumps({"runs": {"other*": {"framework": "pytorch"}}}),
        encoding="utf-8",
    )
    client, plugin = make_client(str(logdir), tbmf_config=str(config))
    return client, config


def post(client, body, headers=HEADERS, content_type="application/json"):
    response = client.post(
        f"{BASE}/run_settings",
        data=json.dumps(body) if not isinstance(body, bytes) else body,
        headers=headers,
        content_type=content_type,
    )
    return response.status_code, json.loads(response.get_data(as_text=True))


def runs(client):
    response = client.get(f"{BASE}/runs")
    return {r["run"]: r for r in json.loads(response.get_data())["runs"]}


def members(client):
    response = client.get(f"{BASE}/metrics")
    return {
        (m["run"], m["tag"]): m
        for e in json.loads(response.get_data())["metrics"]
        for m in e["members"]
    }


def test_a_split_set_by_you_is_saved_and_shown(setup):
    client, config = setup
    assert members(client)[(MM, "accuracy")]["split"] is None
    code, body = post(client, {"run": MM, "set": {"splits": {"accuracy": "val"}}})
    assert code == 200, body
    saved = json.loads(config.read_text(encoding="utf-8"))
    assert saved["runs"]["other*"] == {"framework": "pytorch"}  # kept
    assert saved["runs"][MM] == {"splits": {"accuracy": "val"}}
    member = members(client)[(MM, "accuracy")]
    assert (member["split"], member["splitSource"]) == ("val", "user")
    assert "set by you" in member["derivation"]
    # null takes it back
    code, _ = post(client, {"run": MM, "set": {"splits": {"accuracy": None}}})
    assert code == 200
    assert MM not in json.loads(config.read_text())["runs"]
    assert members(client)[(MM, "accuracy")]["split"] is None


def test_trainer_epoch_axis_and_resume_corrections(setup):
    client, config = setup
    before = runs(client)
    assert before[MM]["trainer"] == "mmengine"
    assert before["restart"]["resumeNote"]
    assert before[MM]["hasEpochAxis"]
    for run, change in [
        (MM, {"trainer": "none", "epochAxis": False}),
        ("restart", {"notResumed": True}),
        ("sb3_ppo/PPO_1", {"stepsPerEpoch": 128, "epochBase": 1}),
    ]:
        code, body = post(client, {"run": run, "set": change})
        assert code == 200, body
    after = runs(client)
    mm = after[MM]
    assert mm["trainer"] == ""
    assert mm["inferences"]["trainer"]["status"] == "set by you"
    assert mm["hasEpochAxis"] is False
    assert mm["inferences"]["epochAxis"]["status"] == "set by you"
    assert "set by you" in mm["epochSource"]
    restart = after["restart"]
    assert restart["resumeNote"] == ""
    assert restart["inferences"]["resume"]["status"] == "set by you"
    # nothing superseded now: the re-logged steps 24..27 are a second loop;
    # step 28 logged right after 28 joins its loop as a repeat of it
    response = client.get(
        f"{BASE}/scalars?run=restart&tag=Loss/train&points=20000"
    )
    (series,) = json.loads(response.get_data())["series"]
    assert series["hidden"] == {"superseded": 0, "repeated": 1}
    assert series["total"] == 29 + 16 - 4 - 1  # steps 0..39, 24..27 apart
    loop2 = client.get(
        f"{BASE}/scalars?run=restart&tag=Loss/train \u27e8loop 2\u27e9"
    )
    (second,) = json.loads(loop2.get_data())["series"]
    assert second["steps"] == [24, 25, 26, 27]
    sb3 = after["sb3_ppo/PPO_1"]
    assert sb3["hasEpochAxis"] and sb3["epochSource"] == "config: 128 steps/epoch"
    assert sb3["inferences"]["epochAxis"]["status"] == "set by you"
    saved = json.loads(config.read_text(encoding="utf-8"))["runs"]
    assert saved[MM] == {"trainer": "none", "epochAxis": False}
    assert saved["restart"] == {"notResumed": True}
    assert saved["sb3_ppo/PPO_1"] == {"stepsPerEpoch": 128, "epochBase": 1}


def test_run_names_are_saved_as_exact_globs(tmp_path):
    logdir = tmp_path / "logs"
    name = "exp[1]*?"
    shutil.copytree(os.path.join(TRAINERS, "restart"), logdir / name)
    shutil.copytree(os.path.join(TRAINERS, "restart"), logdir / "exp1xx")
    config = tmp_path / "c.json"
    client, _ = make_client(str(logdir), tbmf_config=str(config))
    code, body = post(client, {"run": name, "set": {"notResumed": True}})
    assert code == 200, body
    assert body["pattern"] == "exp[[]1[]][*][?]"
    got = runs(client)
    assert got[name]["resumeNote"] == ""
    assert got["exp1xx"]["resumeNote"]  # the glob matches only its run


@pytest.mark.parametrize(
    ("body", "code", "words"),
    [
        ({"run": MM}, 400, "the body must be"),
        ({"run": MM, "set": {}, "x": 1}, 400, "the body must be"),
        ({"run": 3, "set": {"trainer": "none"}}, 400, "run must be"),
        ({"run": "nope", "set": {"trainer": "none"}}, 404, "unknown run"),
        ({"run": MM, "set": {}}, 400, "non-empty"),
        ({"run": MM, "set": {"framework": "x"}}, 400, "cannot set"),
        ({"run": MM, "set": {"trainer": "caffe"}}, 400, "not in"),
        ({"run": MM, "set": {"epochBase": 2}}, 400, "epochBase"),
        ({"run": MM, "set": {"epochBase": True}}, 400, "epochBase"),
        ({"run": MM, "set": {"epochAxis": "no"}}, 400, "epochAxis"),
        ({"run": MM, "set": {"stepsPerEpoch": -1}}, 400, "stepsPerEpoch"),
        ({"run": MM, "set": {"splits": {"a": "dev"}}}, 400, "not in"),
        ({"run": MM, "set": {"splits": []}}, 400, "splits"),
    ],
)
def test_bad_requests_name_the_problem_and_change_nothing(
    setup, body, code, words
):
    client, config = setup
    before = config.read_bytes()
    got, answer = post(client, body)
    assert got == code, answer
    assert words in answer["error"]
    assert config.read_bytes() == before


def test_mutation_rules(setup):
    client, config = setup
    before = config.read_bytes()
    body = {"run": MM, "set": {"trainer": "none"}}
    assert post(client, body, headers={})[0] == 403
    assert post(client, body, content_type="text/plain")[0] == 403
    response = client.get(f"{BASE}/run_settings")
    assert response.status_code == 405
    assert post(client, b"{not json")[0] == 400
    assert config.read_bytes() == before


def test_a_config_that_is_not_json_is_left_alone(setup):
    client, config = setup
    config.write_text("{broken", encoding="utf-8")
    code, answer = post(client, {"run": MM, "set": {"trainer": "none"}})
    assert code == 400 and "not valid JSON" in answer["error"]
    assert config.read_text(encoding="utf-8") == "{broken"


def test_a_failed_write_leaves_the_previous_file(setup, monkeypatch):
    client, config = setup
    before = config.read_bytes()

    def fail(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(corrections.os, "replace", fail)
    with pytest.raises(OSError):
        corrections.save_run_settings(
            str(config), MM, {"trainer": "none"}, known_trainers=("mmengine",)
        )
    assert config.read_bytes() == before
    leftovers = [p for p in os.listdir(config.parent) if p.startswith(".tbmf")]
    assert leftovers == []


def test_without_a_config_file_saving_is_unavailable():
    with pytest.raises(corrections.SettingsUnavailable, match="tbmf_config"):
        corrections.save_run_settings(
            "", "run", {"trainer": "none"}, known_trainers=()
        )


def test_the_logdirs_own_config_is_created(tmp_path):
    logdir = tmp_path / "logs"
    shutil.copytree(os.path.join(TRAINERS, "restart"), logdir / "restart")
    client, _ = make_client(str(logdir))
    code, body = post(client, {"run": "restart", "set": {"notResumed": True}})
    assert code == 200, body
    path = logdir / ".tb_multiframework" / "config.json"
    assert body["path"] == str(path)
    assert json.loads(path.read_text())["runs"] == {
        "restart": {"notResumed": True}
    }
    assert runs(client)["restart"]["resumeNote"] == ""
