"""Ground truth for the trainer matrix: what each library logged, and why.

Each generator runs a real training library (MMEngine, Stable-Baselines3,
Ignite, Accelerate, Keras, VisualDL, tensorboardX, ...) and lets the library
write its own logs. `Recorder` wraps the writer's `add_scalar` (and the
`add_scalars` / `add_hparams` of writers that make sub-runs) so that every
scalar is recorded as the library handed it over, *together with what the
training loop was doing at that moment*: which loop (`train`, `val`, `test`,
`rollout`, ...) was running, in which 0-based epoch, after how many of the
epoch's batches. The generator keeps that context up to date from the
library's own hooks/callbacks (`Recorder.context`).

From it follows the right interpretation of every point, independently of
any reader: on the epoch axis (docs/conventions.md) a point logged after `b`
of an epoch's `n` batches of epoch `k` sits at `k + b/n`, an epoch-level
value of epoch `k` at `k + 1`. What cannot be known from the files (the
split of a tag with no split word, a trainer nobody detects) is written down
as the truth too, so that a test can tell "right", "unknown" and "wrong"
apart.

Saved layout (`<truth_dir>/<name>.json`)::

    {"trainer": "<matrix row>", "versions": {...}, "notes": [...],
     "runs": {"<run dir>": {
        "framework": ..., "writer": ..., "trainer": ..., "parent": ...,
        "subRun": "add_scalars" | "add_hparams" | null,
        "stepsPerEpoch": n | null, "epochs": m | null,
        "resumes": [{"step": s, "tags": [...]}],
        "tags": {"<tag>": {
            "steps": [...], "values": [...],
            "loop": [...], "epoch": [...], "batch": [...],
            "x": [...]            # right epoch position, null if none
            "split": ..., "level": ..., "aggregation": ...,
            "current": [...]      # false where a later attempt re-logged it
        }}}}}

numpy + stdlib only: every generator imports it inside its own venv.
"""

from __future__ import annotations

import json
import os
import platform
import re
import threading
from typing import Any, Callable

UNKNOWN = None  # a fact the files cannot show: "unknown" is the right answer


class Recorder:
    """Records every scalar a library hands its writer, with loop context.

    Attributes:
        context: What the training loop is doing now: `loop` (str), `epoch`
            (0-based int or None), `batch` (batches done in this epoch, int or
            None), `epoch_level` (True while logging a value that describes a
            whole epoch). Generators update it from the library's hooks.
    """

    def __init__(self, logdir: str, name: str) -> None:
        self.logdir = os.path.abspath(logdir)
        self.name = name
        self.context: dict[str, Any] = {
            "loop": "train",
            "epoch": None,
            "batch": None,
            "epoch_level": False,
        }
        self.runs: dict[str, dict[str, Any]] = {}
        self.notes: list[str] = []
        self.versions: dict[str, str] = {"python": platform.python_version()}
        self._lock = threading.Lock()
        self._depth = threading.local()

    # What a test needs about each run, beyond its points.

    def run(self, run_dir: str, **facts: Any) -> dict[str, Any]:
        """The entry of one run directory (relative to the logdir)."""
        entry = self.runs.setdefault(
            run_dir,
            {
                "framework": UNKNOWN,
                "writer": UNKNOWN,
                "trainer": UNKNOWN,
                "parent": None,
                "subRun": None,
                "stepsPerEpoch": None,
                "epochs": None,
                "resumes": [],
                "tags": {},
            },
        )
        entry.update(facts)
        return entry

    def rel(self, path: str) -> str:
        """A writer's directory relative to the logdir, `/`-separated."""
        rel = os.path.relpath(os.path.abspath(path), self.logdir)
        return "." if rel == "." else rel.replace(os.sep, "/")

    def record(self, run_dir: str, tag: str, step: int, value: float) -> None:
        """Records one scalar point with the current context."""
        ctx = self.context
        with self._lock:
            series = self.run(run_dir)["tags"].setdefault(
                tag,
                {
                    "steps": [],
                    "values": [],
                    "loop": [],
                    "epoch": [],
                    "batch": [],
                    "epochLevel": [],
                },
            )
            series["steps"].append(int(step))
            series["values"].append(float(value))
            series["loop"].append(ctx["loop"])
            series["epoch"].append(ctx["epoch"])
            series["batch"].append(ctx["batch"])
            series["epochLevel"].append(bool(ctx["epoch_level"]))

    def wrap(
        self,
        cls: type,
        method: str,
        run_dir_of: Callable[[Any], str],
        *,
        unpack: Callable[..., list[tuple[str, str, int, float]]] | None = None,
    ) -> None:
        """Wraps `cls.method` so each call is recorded before it runs.

        Args:
            cls: The writer class (e.g. torch's `SummaryWriter`).
            method: `add_scalar` by default semantics `(tag, value, step)`.
            run_dir_of: The writer instance's run directory.
            unpack: For other signatures: (self, *args, **kwargs) -> list of
                (run_dir, tag, step, value) to record.
        """
        original = getattr(cls, method)
        recorder = self

        def wrapped(writer: Any, *args: Any, **kwargs: Any) -> Any:
            # A writer's add_scalars may call its own add_scalar: record the
            # outermost call only.
            depth = getattr(recorder._depth, "n", 0)
            if depth == 0:
                if unpack is not None:
                    points = unpack(writer, *args, **kwargs)
                else:
                    points = [_scalar_call(writer, run_dir_of, args, kwargs)]
                for run_dir, tag, step, value in points:
                    recorder.record(run_dir, tag, step, value)
            recorder._depth.n = depth + 1
            try:
                return original(writer, *args, **kwargs)
            finally:
                recorder._depth.n = depth

        setattr(cls, method, wrapped)

    def save(self, truth_dir: str) -> str:
        """Writes `<truth_dir>/<name>.json` (one line per list)."""
        os.makedirs(truth_dir, exist_ok=True)
        doc = {
            "trainer": self.name,
            "versions": self.versions,
            "notes": self.notes,
            "runs": self.runs,
        }
        text = json.dumps(doc, indent=1, sort_keys=True)
        text = re.sub(
            r"\[\s+([^\[\]{}]*?)\s+\]",
            lambda m: "[" + re.sub(r",\s+", ",", m.group(1)) + "]",
            text,
        )
        path = os.path.join(truth_dir, f"{self.name}.json")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text + "\n")
        return path


def _scalar_call(
    writer: Any,
    run_dir_of: Callable[[Any], str],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> tuple[str, str, int, float]:
    names = ("tag", "scalar_value", "global_step")
    given = dict(zip(names, args))
    given.update(kwargs)
    tag = given.get("tag")
    value = given.get("scalar_value", given.get("value"))
    step = given.get("global_step", given.get("step"))
    return run_dir_of(writer), str(tag), int(step or 0), to_float(value)


def to_float(value: Any) -> float:
    """A tensor, numpy scalar or number as a Python float."""
    if hasattr(value, "item"):
        return float(value.item())
    return float(value)


def finish(
    entry: dict[str, Any],
    *,
    steps_per_epoch: int | None,
    tag_facts: dict[str, dict[str, Any]],
    default: dict[str, Any] | None = None,
) -> None:
    """Adds the right interpretation to a run entry's recorded tags.

    `x` (the epoch position of each point) follows from the recorded context:
    an epoch-level value of epoch k at k + 1, a point logged after b of n
    batches of epoch k at k + b/n; None where the loop had no epochs.

    Args:
        entry: `Recorder.run(...)`.
        steps_per_epoch: Batches an epoch (n), None without epochs.
        tag_facts: Per tag: split, level, aggregation (UNKNOWN where the
            files cannot show it).
        default: Facts for tags not in `tag_facts`.
    """
    entry["stepsPerEpoch"] = steps_per_epoch
    epochs = set()
    for tag, series in entry["tags"].items():
        facts = dict(default or {})
        facts.update(tag_facts.get(tag, {}))
        missing = {"split", "level", "aggregation"} - set(facts)
        if missing:
            raise ValueError(f"tag {tag!r}: no truth for {sorted(missing)}")
        series.update(facts)
        xs = []
        for k, b, level in zip(
            series["epoch"], series["batch"], series["epochLevel"]
        ):
            if k is None:
                xs.append(None)
            elif level:
                xs.append(float(k + 1))
                epochs.add(k)
            elif b is None or not steps_per_epoch:
                xs.append(None)
            else:
                xs.append(round(k + b / steps_per_epoch, 9))
                epochs.add(k)
        series["x"] = xs
        series.setdefault("current", [True] * len(series["steps"]))
    entry["epochs"] = (max(epochs) + 1) if epochs else None


def version_of(module: Any) -> str:
    """A module's `__version__`, or "?"."""
    return str(getattr(module, "__version__", "?"))
