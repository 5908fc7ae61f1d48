"""The `Experiment` that `read(logdir)` returns (reading.py).

An `Experiment` holds one data stack built by `wiring.build_stack`, the
same the tab and `tbmf` build: the same readers fill the same store, and
every frame is computed by the same api and core code as the HTTP routes
(`Api.runs`, `Api.scalar_payload`, `Api.histograms`, `Api.config_diff`,
`Api.anomaly_payload`, the store's series and `core.axes`), then only laid
out as columns. `refresh()` reads what was appended since, incrementally.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from tb_multiframework import wiring
from tb_multiframework.api.anomalies import AnomalyQuery
from tb_multiframework.api.scalars import ScalarQuery
from tb_multiframework.core import groups
from tb_multiframework.core.aggregate import AGGREGATES, BANDS, check_choice
from tb_multiframework.frames import display, progress
from tb_multiframework.frames.compare import aggregate_columns, compare_columns
from tb_multiframework.frames.names import (
    TbmfWarning,
    UnknownNameError,
    check_name,
    resolve_metric,
    resolve_runs,
)
from tb_multiframework.frames.scalars import check_columns, scalar_columns
from tb_multiframework.frames.tables import (
    codes,
    column,
    objects,
    snake_case,
    to_frame,
)


class Experiment:
    """Every run of a logdir, as frames. Made by `read`.

    Frames are pandas DataFrames (numpy `Table`s without pandas), computed
    anew by each call from the data read so far: keep one in a variable
    rather than asking twice.
    """

    def __init__(
        self, logdir: str, stack: wiring.Stack, pandas: Any, show: bool | None
    ) -> None:
        self._logdir = logdir
        self._stack = stack
        self._api = stack.api
        self._pandas = pandas
        self._show = show

    # Reading.

    @property
    def logdir(self) -> str:
        """The logdir, as given to `read`."""
        return self._logdir

    def refresh(self) -> Experiment:
        """Reads what was appended since the last read (new files, new
        bytes, new runs; rewritten files again); returns the experiment."""
        loader = self._stack.loader
        assert loader is not None
        with progress.reading(f"reading {self._logdir}", self._show) as bar:
            loader.reload(progress=bar.update)  # type: ignore[call-arg]
        loader.loaded_once.set()
        return self

    # Frames.

    def _frame(
        self,
        columns: dict[Any, Any],
        *,
        attrs: dict[str, Any] | None = None,
        index: tuple[str, np.ndarray] | None = None,
        column_names: Sequence[str] | None = None,
    ) -> Any:
        cls = None
        if self._pandas is not None:
            from tb_multiframework.frames.pandas_frame import (  # noqa: PLC0415
                frame_class,
            )

            cls = frame_class(self._pandas)
        return to_frame(
            columns,
            self._pandas,
            attrs=attrs,
            index=index,
            column_names=column_names,
            frame_class=cls,
        )

    def _runs_json(self) -> dict[str, Any]:
        return self._api.runs()

    @property
    def runs(self) -> Any:
        """One row per run: run, framework, writer, trainer, group, format,
        points, histograms, steps and times, epoch source, attempts, config
        hash, warnings, then one `hparam:<key>` column per hyper-parameter
        (`GET runs`)."""
        runs = self._runs_json()["runs"]
        keys = sorted({k for r in runs for k in r["hparams"]})
        fields = {
            "run": "run",
            "framework": "framework",
            "writer": "writer",
            "trainer": "trainer",
            "group": "group",
            "format": "format",
            "points": "numPoints",
            "histograms": "numHistograms",
            "first_step": "firstStep",
            "last_step": "lastStep",
            "start_time": "startTime",
            "end_time": "endTime",
            "epoch_source": "epochSource",
            "resume_note": "resumeNote",
            "parent": "parent",
            "sub_run": "subRun",
            "config_hash": "configHash",
        }
        columns: dict[str, Any] = {
            name: column([r[key] for r in runs]) for name, key in fields.items()
        }
        columns["attempts"] = np.array(
            [len(r["attempts"]) for r in runs], dtype=np.int64
        )
        columns["warnings"] = objects([tuple(r["warnings"]) for r in runs])
        for key in keys:
            columns[f"hparam:{key}"] = objects(
                [r["hparams"].get(key) for r in runs]
            )
        return self._frame(columns, attrs={"tbmf": "runs"})

    @property
    def metrics(self) -> Any:
        """The metric index (`GET metrics`): one row per (metric key, run,
        tag), with the member's level and what its numbers are."""
        rows = [
            (
                e["key"],
                e["name"],
                e["level"],
                m["run"],
                m["tag"],
                m["level"],
                m["aggregation"],
            )
            for e in self._api.metrics()["metrics"]
            for m in e["members"]
        ]
        names = (
            "key",
            "name",
            "level",
            "run",
            "tag",
            "member_level",
            "aggregation",
        )
        return self._frame(
            {n: objects([r[i] for r in rows]) for i, n in enumerate(names)},
            attrs={"tbmf": "metrics"},
        )

    @property
    def scalars(self) -> Any:
        """Every scalar point: `scalar_frame()` with all its columns."""
        return self.scalar_frame()

    def scalar_frame(
        self,
        columns: Sequence[str] | None = None,
        *,
        runs: str | Iterable[str] | None = None,
        tags: str | Iterable[str] | None = None,
        metric: str | None = None,
        value_dtype: str = "auto",
    ) -> Any:
        """Every scalar point, one row each (see `frames/scalars.py` for the
        columns and their types).

        Args:
          columns: the columns wanted (default all); `run`, `tag`, `step`,
            `value` and `wall_time` are always there.
          runs: only these runs (or the runs under these directories).
          tags: only these raw tags.
          metric: only this metric's tags (a key, or a name with one level).
          value_dtype: "auto" (float32 when every value is a float32, as
            writers store them) or "float64".

        Raises:
          UnknownNameError: an unknown run, tag or metric.
          ValueError: an unknown column or value_dtype.
        """
        wanted = check_columns(columns)
        ctx = self._api.context()
        run_names = resolve_runs(runs, sorted(ctx.summaries))
        tag_set = None
        if tags is not None:
            tag_list = [tags] if isinstance(tags, str) else list(tags)
            every = sorted(
                {t for s in ctx.summaries.values() for t in s.scalar_tags}
            )
            for tag in tag_list:
                if check_name(tag, "a tag") not in every:
                    raise UnknownNameError("tag", tag, every)
            tag_set = set(tag_list)
        pairs = None
        if metric is not None:
            key = resolve_metric(metric, _metric_keys(ctx))
            pairs = {
                (m.run, t)
                for m in ctx.metrics[key].members
                for t in (m.tag, *m.aliases)
            }
            run_names = tuple(
                r
                for r in (run_names or sorted(ctx.summaries))
                if any(run == r for run, _ in pairs)
            )
            tag_set = {t for _, t in pairs} & (tag_set or {t for _, t in pairs})
        found = scalar_columns(
            self._stack.store,
            ctx,
            columns=wanted,
            runs=None if run_names is None else set(run_names),
            tags=tag_set,
            value_dtype=value_dtype,
            pairs=pairs,
        )
        return self._frame(found, attrs={"tbmf": "scalars"})

    @property
    def hparams(self) -> Any:
        """Hyper-parameters, tidy: run, key, value, source (where the value
        came from: `hparams_plugin`, `hparams_yaml`, `config_file`, ...)."""
        rows = []
        for run in self._runs_json()["runs"]:
            sources = run.get("hparamsSources", {})
            for key, value in sorted(run["hparams"].items()):
                rows.append((run["run"], key, value, sources.get(key, "")))
        names = ("run", "key", "value", "source")
        return self._frame(
            {n: objects([r[i] for r in rows]) for i, n in enumerate(names)},
            attrs={"tbmf": "hparams"},
        )

    @property
    def histograms(self) -> Any:
        """Every histogram: run, tag, step, epoch, wall_time, edges (N + 1)
        and counts (N), as `GET histograms` normalises them."""
        return self.histogram_frame()

    def histogram_frame(
        self,
        *,
        runs: str | Iterable[str] | None = None,
        tags: str | Iterable[str] | None = None,
    ) -> Any:
        """`histograms` of some runs or tags (names as in `scalar_frame`)."""
        ctx = self._api.context()
        run_names = resolve_runs(runs, sorted(ctx.summaries))
        tag_list = (
            None
            if tags is None
            else ([tags] if isinstance(tags, str) else list(tags))
        )
        rows: dict[str, list[Any]] = {
            k: []
            for k in (
                "run",
                "tag",
                "step",
                "epoch",
                "wall_time",
                "edges",
                "counts",
            )
        }
        for run in run_names or sorted(ctx.summaries):
            for tag in ctx.summaries[run].histogram_tags:
                if tag_list is not None and tag not in tag_list:
                    continue
                answer = self._api.histograms(run, tag, "epoch")
                for h in answer["steps"]:
                    rows["run"].append(run)
                    rows["tag"].append(tag)
                    rows["step"].append(h["step"])
                    rows["epoch"].append(np.nan if h["x"] is None else h["x"])
                    rows["wall_time"].append(h["wallTime"])
                    rows["edges"].append(h["edges"])
                    rows["counts"].append(h["counts"])
        columns: dict[str, Any] = {
            "run": codes(rows["run"]),
            "tag": codes(rows["tag"]),
            "step": np.array(rows["step"], dtype=np.int64),
            "epoch": np.array(rows["epoch"], dtype=np.float64),
            "wall_time": np.array(rows["wall_time"], dtype=np.float64),
            "edges": objects(rows["edges"]),
            "counts": objects(rows["counts"]),
        }
        return self._frame(columns, attrs={"tbmf": "histograms"})

    # Comparisons.

    def _selection(
        self,
        metric: str | None,
        tag: str | None,
        runs: str | Iterable[str] | None,
        extra_run: str | None = None,
    ) -> tuple[str | None, tuple[str, ...]]:
        """(metric key, runs) of a comparison, checked."""
        if (metric is None) == (tag is None):
            raise ValueError("name a metric, or a raw tag with tag=")
        ctx = self._api.context()
        names = sorted(ctx.summaries)
        run_names = resolve_runs(runs, names) or ()
        if extra_run is not None:
            check_name(extra_run, "baseline")
            if extra_run not in ctx.summaries:
                raise UnknownNameError("run", extra_run, names)
            if run_names and extra_run not in run_names:
                run_names = (extra_run, *run_names)
        if metric is not None:
            return resolve_metric(metric, _metric_keys(ctx)), run_names
        check_name(tag, "tag")
        having = [r for r in names if tag in ctx.summaries[r].scalar_tags]
        if not having:
            every = sorted(
                {t for s in ctx.summaries.values() for t in s.scalar_tags}
            )
            raise UnknownNameError("tag", str(tag), every)
        return None, run_names or tuple(having)

    def compare(
        self,
        metric: str | None = None,
        *,
        tag: str | None = None,
        runs: str | Iterable[str] | None = None,
        x: str = "step",
        baseline: str | None = None,
        smoothing: float = 0.0,
        smoothing_mode: str = "ema",
        diff_mode: str = "difference",
        batch_values: str = "logged",
    ) -> Any:
        """One metric (or raw tag) across runs, aligned on an axis.

        A wide frame indexed by x: columns `("value", run)`, with smoothing
        `("smoothed", run)`, with a baseline `("diff", run)` (and
        `("diff_smoothed", run)`): the Compare view's series and difference
        curves at full resolution (docs/conventions.md). `attrs` says which
        tags, and which runs were left out and why. `.plot()` draws it.

        Raises:
          UnknownNameError: an unknown metric, tag, run or baseline.
          ValueError: a bad axis, weight or mode; a baseline without the
            metric.
        """
        return self._wide(
            metric,
            tag,
            runs,
            layout=functools.partial(compare_columns, smoothing=smoothing),
            column_names=("kind", "run"),
            x=x,
            smoothing=smoothing,
            smoothing_mode=smoothing_mode,
            baseline=baseline,
            diff_mode=diff_mode,
            batch_values=batch_values,
        )

    def aggregate(
        self,
        metric: str | None = None,
        *,
        tag: str | None = None,
        runs: str | Iterable[str] | None = None,
        by: str = "group",
        center: str = "mean",
        band: str = "std",
        baseline_group: str | None = None,
        x: str = "step",
        smoothing: float = 0.0,
        smoothing_mode: str = "ema",
    ) -> Any:
        """Each group's center and band of a metric, aligned on an axis.

        `by`: group, framework, writer, trainer or `hparam:<key>`; `center`:
        mean or median; `band`: std, ci95, minmax or none. A wide frame
        indexed by x with columns `(group, stat)` (see `frames/compare.py`);
        the definitions are the tab's (docs/conventions.md "Groups and
        aggregates").
        """
        check_name(by, "by")
        groups.check_group_by(by)
        check_choice(center, AGGREGATES[1:], "center")
        check_choice(band, BANDS, "band")
        return self._wide(
            metric,
            tag,
            runs,
            layout=aggregate_columns,
            column_names=("group", "stat"),
            x=x,
            smoothing=smoothing,
            smoothing_mode=smoothing_mode,
            group_by=by,
            aggregate=center,
            band=band,
            baseline_group=baseline_group,
            include_series=False,
        )

    def _wide(
        self,
        metric: str | None,
        tag: str | None,
        runs: str | Iterable[str] | None,
        *,
        layout: Callable[[dict[str, Any]], Any],
        column_names: tuple[str, str],
        **fields: Any,
    ) -> Any:
        """A wide frame of the `GET scalars` answer at full resolution."""
        key, run_names = self._selection(
            metric, tag, runs, fields.get("baseline")
        )
        # In-process: every point (points=None) of any number of series.
        query = ScalarQuery(
            runs=run_names,
            tag=tag,
            metric=key,
            points=None,
            max_series=None,
            **fields,
        )
        index, columns, attrs = layout(self._api.scalar_payload(query))
        attrs["metric"] = key or tag
        _warn_left_out(attrs)
        return self._frame(
            columns,
            attrs=attrs,
            index=(fields["x"], index),
            column_names=column_names,
        )

    def anomalies(
        self,
        *,
        runs: str | Iterable[str] | None = None,
        metric: str | None = None,
        tag: str | None = None,
        kinds: Iterable[str] | None = None,
        x: str = "step",
    ) -> Any:
        """The tab's anomaly findings (`GET anomalies`), one row each: run,
        tag, metric, kind, step, end_step, x_start, x_end, severity,
        message, cause."""
        ctx = self._api.context()
        key = None
        if metric is not None:
            key = resolve_metric(metric, _metric_keys(ctx))
        query = AnomalyQuery(
            runs=resolve_runs(runs, sorted(ctx.summaries)) or (),
            tag=tag,
            metric=key,
            kinds=None if kinds is None else frozenset(kinds),
            x=x,
        )
        payload = self._api.anomaly_payload(query)
        found = payload["anomalies"]
        names = (
            "run",
            "tag",
            "metric",
            "kind",
            "step",
            "endStep",
            "severity",
            "message",
            "cause",
        )
        columns: dict[str, Any] = {
            snake_case(n): column([a[n] for a in found]) for n in names
        }
        columns["x_start"] = np.array(
            [np.nan if a["x"] is None else a["x"][0] for a in found], np.float64
        )
        columns["x_end"] = np.array(
            [np.nan if a["x"] is None else a["x"][1] for a in found], np.float64
        )
        attrs = {
            "tbmf": "anomalies",
            "x": x,
            "total": payload["total"],
            "truncated": payload["truncated"],
        }
        return self._frame(columns, attrs=attrs)

    def config_diff(self, runs: Sequence[str]) -> Any:
        """Hyper-parameters of 2-20 runs side by side (`GET config_diff`):
        indexed by key, a `differs` column, then one column per run, the
        differing keys first."""
        ctx = self._api.context()
        names = resolve_runs(runs, sorted(ctx.summaries)) or ()
        answer = self._api.config_diff(tuple(names))
        keys = answer["keys"]
        flag = "differs" if "differs" not in names else "differs (any run)"
        columns: dict[str, Any] = {
            flag: np.array([k["differs"] for k in keys], dtype=bool)
        }
        for run in answer["runs"]:
            columns[run] = objects([k["values"].get(run) for k in keys])
        index = ("key", objects([k["key"] for k in keys]))
        attrs = {"tbmf": "config_diff", "config_hashes": answer["configHashes"]}
        return self._frame(columns, attrs=attrs, index=index)

    # Display.

    def _summary(self) -> tuple[list[dict[str, Any]], list[str]]:
        body = self._runs_json()
        return body["runs"], list(body["errors"])

    def __repr__(self) -> str:
        runs, errors = self._summary()
        frameworks: dict[str, int] = {}
        for run in runs:
            frameworks[run["framework"]] = (
                frameworks.get(run["framework"], 0) + 1
            )
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(frameworks.items()))
        points = sum(r["numPoints"] for r in runs)
        warned = sum(1 for r in runs if r["warnings"])
        tail = f"; {warned} runs with warnings" if warned else ""
        tail += f"; {len(errors)} errors" if errors else ""
        return (
            f"<Experiment {self._logdir!r}: {len(runs)} runs ({kinds}), "
            f"{points:,} scalar points{tail}>"
        )

    def _repr_html_(self) -> str:
        runs, errors = self._summary()
        return display.experiment_html(
            self._logdir,
            [
                {
                    "run": r["run"],
                    "framework": r["framework"],
                    "writer": r["writer"],
                    "trainer": r["trainer"],
                    "group": r["group"],
                    "points": r["numPoints"],
                    "warnings": r["warnings"],
                }
                for r in runs
            ],
            points=sum(r["numPoints"] for r in runs),
            histograms=sum(r["numHistograms"] for r in runs),
            errors=errors,
        )


def _warn_left_out(attrs: dict[str, Any]) -> None:
    note = display.attrs_note(attrs)
    if note:
        warnings.warn(note, TbmfWarning, stacklevel=4)


def _metric_keys(ctx: Any) -> dict[str, str]:
    return {key: entry.name for key, entry in ctx.metrics.items()}
