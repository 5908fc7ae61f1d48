"""`tb_multiframework.read("s3://...")`: a remote logdir, read as the tab
reads it (TensorBoard's filesystem layer, boto3), against a real S3 API
(moto in server mode, the fixture of tests/e2e/test_s3.py).

The writer fixtures are uploaded to a bucket; a fresh process (TensorBoard's
S3 support reads its environment at import) reads the bucket and prints its
frames; they must equal the frames of the same files read from disk. A
bucket path with nothing under it is a clear error.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import tb_multiframework as tbmf
from tests.conftest import ROOT
from tests.e2e.test_s3 import _client, _s3_env
from tests.e2e.test_s3 import s3_endpoint as s3_endpoint  # the fixture

WRITERS = os.path.join(ROOT, "tests", "data", "writers")
BUCKET = "tbmf-frames"

_READ = r"""
import json, sys
import tb_multiframework as tbmf
try:
    exp = tbmf.read(sys.argv[1])
except (FileNotFoundError, tbmf.NoRunsError) as error:
    print(json.dumps({"error": type(error).__name__, "message": str(error)}))
    sys.exit(0)
frame = exp.scalar_frame(tbmf.FIXED_COLUMNS)
print(json.dumps({
    "runs": exp.runs.run.tolist(),
    "frameworks": exp.runs.framework.tolist(),
    "rows": [[str(r), str(t), int(s), float(w), float(v)] for r, t, s, w, v
             in zip(frame.run, frame.tag, frame.step, frame.wall_time,
                    frame.value)],
    "histograms": len(exp.histograms),
}, allow_nan=True))
"""


def _read(url: str, env: dict[str, str]) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", _READ, url],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=dict(env, PYTHONPATH=ROOT),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_s3_logdir_reads_like_the_same_files_on_disk(s3_endpoint, tmp_path):
    env = _s3_env(s3_endpoint, tmp_path)
    client = _client(env)
    client.create_bucket(Bucket=BUCKET)
    for folder, _, files in os.walk(WRITERS):
        for name in files:
            if name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            key = "logs/" + os.path.relpath(path, WRITERS).replace(os.sep, "/")
            client.upload_file(path, BUCKET, key)
    remote = _read(f"s3://{BUCKET}/logs", env)
    local = tbmf.read(WRITERS)
    frame = local.scalar_frame(tbmf.FIXED_COLUMNS)
    assert remote["runs"] == local.runs.run.tolist()
    assert remote["frameworks"] == local.runs.framework.tolist()
    rows = [
        [str(r), str(t), int(s), float(w), float(v)]
        for r, t, s, w, v in zip(
            frame.run, frame.tag, frame.step, frame.wall_time, frame.value
        )
    ]
    assert json.dumps(remote["rows"]) == json.dumps(rows)
    assert remote["histograms"] == len(local.histograms)
    missing = _read(f"s3://{BUCKET}/nothing-here", env)
    assert missing["error"] in ("FileNotFoundError", "NoRunsError")
    assert "nothing-here" in missing["message"]
