"""Speed and resource tags the frameworks log, under canonical names.

Keras `*_steps_per_second`, HF Trainer `train/train_runtime` and
`*_per_second`, MMEngine `time`/`data_time`, SB3 `time/fps` and the usual
hand-written `perf/step_time`, `gpu/memory_gb`, `gpu/utilization` tags meet
under one name each, with the factor that turns their unit into the
canonical one (seconds, per second, GB, percent): `speed_tag(run, tag)`.
Derived series (`[derived] time/step`, core/speed.py) are named here too,
so that `core.metrics` asks one function.

A unit the name states (`_ms`, `_mb`, `_pct`, ...) is used as stated. A
step time whose name states none is in seconds by the frameworks'
convention, and `check_step_time_unit` compares it with the step time
derived from wall time, converting milliseconds only when the two say so
(docs/conventions.md, "Logged speed and resources").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .speed import DERIVED_METRICS, DERIVED_NOTE, derived_name
from .types import RunInfo

CANONICAL_UNITS = {
    "time/step": "s",
    "time/data": "s",
    "time/total": "s",
    "time/eval": "s",
    "time/epoch": "s",
    "time/elapsed": "s",
    "throughput/steps_per_s": "steps/s",
    "throughput/samples_per_s": "samples/s",
    "throughput/tokens_per_s": "tokens/s",
    "throughput/eval_steps_per_s": "steps/s",
    "throughput/eval_samples_per_s": "samples/s",
    "gpu/memory_gb": "GB",
    "gpu/utilization": "%",
}
UNIT_FACTORS = {  # name suffix -> factor to the canonical unit
    "ms": 1e-3,
    "msec": 1e-3,
    "us": 1e-6,
    "s": 1.0,
    "sec": 1.0,
    "secs": 1.0,
    "seconds": 1.0,
    "gb": 1.0,
    "gib": 1.0,
    "mb": 1 / 1024,
    "mib": 1 / 1024,
    "bytes": 1 / 2**30,
    "pct": 1.0,
    "percent": 1.0,
}


@dataclass(frozen=True)
class SpeedTag:
    """A logged (or derived) speed/resource tag under its canonical name.

    Attributes:
        name: Canonical name (`time/step`, `throughput/steps_per_s`, ...).
        factor: Multiplies a logged value into the canonical unit.
        unit: The logged unit ("ms", "s", "steps/s", ...), "" if unstated.
        what: Who logs it and what it measures (the derivation shown).
        check_unit: A step time whose unit the name does not state.
    """

    name: str
    factor: float
    unit: str
    what: str
    check_unit: bool = False


_STEP_TIME = re.compile(
    r"(?:.*/)?(?:train_)?(?:step|batch|iter|iteration)_?time"
    r"(?:_(ms|msec|us|s|sec|secs|seconds))?"
)
_TIME_STEP = re.compile(r"(?:perf|speed|timing|time)/(?:step|iter)(?:_(ms|s))?")
_RATE = re.compile(
    r"(?:.*/)?(?:train_)?(samples|examples|images|imgs|steps|iters|it|"
    r"tokens)_?(?:per_?sec(?:ond)?|per_s|/s|ps)"
)
_GPU_MEM = re.compile(
    r"(?:.*/)?(?:gpu|cuda)[_/]?(?:mem|memory)(?:_allocated|_reserved|_used)?"
    r"(?:_(gb|gib|mb|mib|bytes))?"
)
_GPU_UTIL = re.compile(
    r"(?:.*/)?(?:gpu|cuda)[_/]?(?:util|utilization|utilisation)(?:_(pct|percent))?"
)
_RATE_NAMES = {
    "samples": "throughput/samples_per_s",
    "examples": "throughput/samples_per_s",
    "images": "throughput/samples_per_s",
    "imgs": "throughput/samples_per_s",
    "steps": "throughput/steps_per_s",
    "iters": "throughput/steps_per_s",
    "it": "throughput/steps_per_s",
    "tokens": "throughput/tokens_per_s",
}
_HF = {
    "train/train_runtime": (
        "time/total",
        "s",
        "HF Trainer: seconds of train()",
    ),
    "train/train_samples_per_second": (
        "throughput/samples_per_s",
        "samples/s",
        "HF Trainer: samples / train() seconds",
    ),
    "train/train_steps_per_second": (
        "throughput/steps_per_s",
        "steps/s",
        "HF Trainer: optimizer steps / train() seconds",
    ),
    "eval/runtime": ("time/eval", "s", "HF Trainer: seconds of an evaluation"),
    "eval/samples_per_second": (
        "throughput/eval_samples_per_s",
        "samples/s",
        "HF Trainer: evaluation samples a second",
    ),
    "eval/steps_per_second": (
        "throughput/eval_steps_per_s",
        "steps/s",
        "HF Trainer: evaluation steps a second",
    ),
}


def speed_tag(
    run: RunInfo, tag: str, *, run_tags: frozenset[str] = frozenset()
) -> SpeedTag | None:
    """The canonical speed/resource metric of a (run, tag), or None.

    Args:
        run: The run.
        tag: The raw tag.
        run_tags: The run's other scalar tags (MMEngine's `time` is named
            only beside its `data_time`).
    """
    derived = derived_name(tag)
    if derived is not None:
        return SpeedTag(
            derived,
            1.0,
            DERIVED_METRICS[derived][0],
            f"{DERIVED_NOTE}: {DERIVED_METRICS[derived][1]}",
        )
    low = tag.lower()
    if low in ("batch_steps_per_second", "epoch_steps_per_second"):
        level = low.split("_", 1)[0]
        what = (
            "Keras TensorBoard(write_steps_per_second): 1 / the batch's run "
            "time (between-batch time excluded)"
            if level == "batch"
            else "Keras TensorBoard(write_steps_per_second): the epoch's "
            "steps / its seconds (validation included)"
        )
        return SpeedTag("throughput/steps_per_s", 1.0, "steps/s", what)
    if low in _HF:
        name, unit, what = _HF[low]
        return SpeedTag(name, 1.0, unit, what)
    if low == "time/fps":
        return SpeedTag(
            "throughput/steps_per_s",
            1.0,
            "steps/s",
            "Stable-Baselines3: environment steps / seconds since learn() "
            "began (a running average)",
        )
    if low in ("time", "data_time") and {"time", "data_time"} <= run_tags:
        name = "time/step" if low == "time" else "time/data"
        what = (
            "MMEngine: mean seconds an iteration over the logging window"
            if low == "time"
            else "MMEngine: mean seconds of data loading an iteration"
        )
        return SpeedTag(name, 1.0, "s", what)
    return _user_tag(low)


def _user_tag(low: str) -> SpeedTag | None:
    found = _STEP_TIME.fullmatch(low) or _TIME_STEP.fullmatch(low)
    if found:
        return _with_unit("time/step", found.group(1), "step time", check=True)
    found = _RATE.fullmatch(low)
    if found:
        name = _RATE_NAMES[found.group(1)]
        return SpeedTag(
            name, 1.0, CANONICAL_UNITS[name], f"{found.group(1)} a second"
        )
    found = _GPU_MEM.fullmatch(low)
    if found:
        return _with_unit("gpu/memory_gb", found.group(1), "GPU memory")
    found = _GPU_UTIL.fullmatch(low)
    if found:
        return _with_unit("gpu/utilization", found.group(1), "GPU utilisation")
    return None


def _with_unit(
    name: str, suffix: str | None, what: str, *, check: bool = False
) -> SpeedTag:
    canonical = CANONICAL_UNITS[name]
    if suffix:
        factor = UNIT_FACTORS[suffix]
        note = f"{what} in {suffix} (from the name)"
        if factor != 1.0:
            note += f", × {factor:g} to {canonical}"
        return SpeedTag(name, factor, suffix, note)
    if name == "gpu/memory_gb":
        return SpeedTag(
            name, 1.0, "", f"{what}, unit unstated: shown as logged"
        )
    if name == "gpu/utilization":
        return SpeedTag(name, 1.0, "%", f"{what}, percent assumed")
    return SpeedTag(
        name,
        1.0,
        "",
        f"{what}, unit unstated: seconds by convention",
        check_unit=check,
    )


def check_step_time_unit(
    logged_median: float, derived_median: float | None
) -> tuple[float, str]:
    """The factor of a step time without a stated unit, with the evidence.

    Seconds unless the step time derived from wall time says milliseconds:
    the logged median is 300–3000 × the derived one (a step time logged in
    ms), where seconds would put it near 1 ×.

    Args:
        logged_median: Median of the logged values.
        derived_median: The run's median step time from wall time.
    """
    if derived_median is None or not derived_median > 0:
        return 1.0, "no step time from wall time to check the unit against"
    ratio = logged_median / derived_median
    if 300 <= ratio <= 3000:
        return 1e-3, (
            f"milliseconds: the logged median ({logged_median:.4g}) is "
            f"{ratio:.0f} × the step time from wall time "
            f"({derived_median:.4g} s); × 0.001 to seconds"
        )
    if 0.3 <= ratio <= 3:
        return 1.0, (
            f"seconds: the logged median is {ratio:.2f} × the step time from "
            "wall time"
        )
    return 1.0, (
        f"seconds by convention; the logged median is {ratio:.3g} × the step "
        "time from wall time (a part of the step, or another unit?)"
    )


_BATCH_KEYS = (  # hyper-parameter keys (last dotted part), strongest first
    "global_batch_size",
    "total_batch_size",
    "train_batch_size",
    "batch_size",
    "batchsize",
)
_BATCH_TAG = re.compile(r"(?:.*/)?(?:train_)?batch_?size")


def samples_per_step(
    hparams: dict[str, object],
    *,
    logged: dict[str, list[float]] | None = None,
    configured: float | None = None,
) -> tuple[float | None, str]:
    """Samples a step of a run, and where that comes from (or why not).

    Sources, first that exists: the config's `samplesPerStep`; HF Trainer's
    `per_device_train_batch_size` × `gradient_accumulation_steps`; one
    batch-size hyper-parameter (`global_batch_size`, `train_batch_size`,
    `batch_size`, ... at any nesting) whose values agree; a logged
    `batch_size` tag with one constant value.

    Args:
        hparams: The run's merged hyper-parameters (flat keys).
        logged: Values of the run's scalar tags that look like a batch size.
        configured: The config's `samplesPerStep` for the run.
    """
    if configured is not None:
        return configured, f"config samplesPerStep = {configured:g}"
    per_device = _positive(hparams.get("per_device_train_batch_size"))
    if per_device is not None:
        accumulate = _positive(hparams.get("gradient_accumulation_steps")) or 1
        return per_device * accumulate, (
            f"HF args per_device_train_batch_size = {per_device:g} × "
            f"gradient_accumulation_steps = {accumulate:g} (one process: the "
            "arguments do not record the world size; set samplesPerStep for "
            "a multi-process run)"
        )
    for key in _BATCH_KEYS:
        found = {
            k: v
            for k, v in hparams.items()
            if k.lower().rsplit(".", 1)[-1] == key and _positive(v) is not None
        }
        values = {_positive(v) for v in found.values()}
        if len(values) == 1:
            value = values.pop()
            assert value is not None
            names = ", ".join(sorted(found))
            return value, f"hyper-parameter {names} = {value:g}"
        if len(values) > 1:
            shown = ", ".join(f"{k} = {v}" for k, v in sorted(found.items()))
            return (
                None,
                f"unknown: batch sizes disagree ({shown}); set samplesPerStep",
            )
    for tag, points in sorted((logged or {}).items()):
        if _BATCH_TAG.fullmatch(tag.lower()) and points:
            if len(set(points)) == 1 and _positive(points[0]) is not None:
                return (
                    float(points[0]),
                    f"logged tag {tag} (constant {points[0]:g})",
                )
            return None, f"unknown: logged tag {tag} varies; set samplesPerStep"
    return None, (
        "unknown: no batch size in the hyper-parameters or a logged tag; set "
        "samplesPerStep for the run in the config"
    )


def is_batch_size_tag(tag: str) -> bool:
    return bool(_BATCH_TAG.fullmatch(tag.lower()))


def _positive(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if value > 0 and value == value else None
