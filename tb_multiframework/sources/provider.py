"""The `provider` source: runs read through TensorBoard's data provider.

Each reload lists every run's series (one call per kind), re-reads the runs
whose listing changed, whole, and swaps each into the store at once. The
provider API has no "points since" query, so a run that grows is read again
in full; series of runs that did not change are not read at all.

What a provider gives differs from the files in three ways, each surfaced:
* sampling: TensorBoard keeps 1000 points a scalar series and 100 (Rust data
  server) or 500 (Python multiplexer) a histogram series unless told
  otherwise; series that look sampled get a run warning and a catalog notice
  with the flag that keeps every point;
* restarts: a provider keeps one point per step (a step logged again drops
  the later-stepped points logged before it), the files source keeps all;
* detection: file names and writer metadata are hidden
  (see `provider_detect`).
VisualDL files no provider knows: they are read as files from the data's
location when this process can read it, otherwise the catalog says so.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from typing import Any, Callable, Iterator, Mapping

import numpy as np
from tensorboard.context import RequestContext
from tensorboard.data.provider import RunTagFilter

from tb_multiframework.core.hparams import HParamSource
from tb_multiframework.ingest import hparams
from tb_multiframework.ingest.attempts import AttemptTracker
from tb_multiframework.ingest.loader import Loader, ReloadStats
from tb_multiframework.ingest.periodic import PeriodicReload
from tb_multiframework.ingest.run_meta import describe_run
from tb_multiframework.settings.config import Config
from tb_multiframework.sources import SourceStatus, logdir_readable
from tb_multiframework.sources.provider_convert import (
    add_layouts,
    converted_legacy,
    normalise,
)
from tb_multiframework.sources.provider_detect import (
    ProviderEvidence,
    detect_provider_run,
)
from tb_multiframework.store.store import RunMeta, Store

logger = logging.getLogger(__name__)

_EXPERIMENT = ""  # TensorBoard's id of its one experiment
_ALL_POINTS = 2**31 - 1  # `downsample` that asks for every point kept
_SCALARS = "scalars"
_HISTOGRAMS = "histograms"
_CUSTOM_SCALARS = "custom_scalars"
_OWN_PLUGINS = (_SCALARS, _HISTOGRAMS, _CUSTOM_SCALARS)
# Plugin names as the files source names the same kinds of data.
_OTHER_KINDS = {
    "graphs": "graph",
    "graph_run_metadata": "run_metadata",
    "graph_run_metadata_graph": "run_metadata",
    "graph_tagged_run_metadata": "run_metadata",
    "audio": "audios",
    "": "tensors",
}
_RUN_GRAPH_TAG = "__run_graph__"
# Points a series keeps by default: scalars (both readers), histograms
# (Rust data server, Python multiplexer).
_DEFAULT_SAMPLES = {_SCALARS: (1000,), _HISTOGRAMS: (100, 500)}
_MAX_TAGS_NAMED = 5  # sampled tags named in one run warning


@dataclasses.dataclass
class _Listing:
    """One run's series as listed: (tag, max step, max wall time) per kind."""

    start_time: float | None = None
    scalars: dict[str, tuple[int, float]] = dataclasses.field(
        default_factory=dict
    )
    histograms: dict[str, tuple[int, float]] = dataclasses.field(
        default_factory=dict
    )
    layouts: dict[str, tuple[int, float]] = dataclasses.field(
        default_factory=dict
    )
    display_names: dict[str, str] = dataclasses.field(default_factory=dict)
    other_tags: dict[str, set[str]] = dataclasses.field(default_factory=dict)
    hparams: list[HParamSource] = dataclasses.field(default_factory=list)
    problems: list[str] = dataclasses.field(default_factory=list)

    def signature(self) -> tuple[Any, ...]:
        return (
            self.hparams,
            sorted(self.scalars.items()),
            sorted(self.histograms.items()),
            sorted(self.layouts.items()),
        )


@dataclasses.dataclass
class _RunRead:
    """What a run's last read found, for its metadata."""

    listing: _Listing
    evidence: ProviderEvidence
    sampled: dict[str, tuple[str, int, int, int]]  # tag -> kind, n, lo, hi
    problems: list[str] = dataclasses.field(default_factory=list)
    # where the provider's series restart (the files' rules, tag by tag)
    attempt_starts: tuple[Any, ...] = ()


class ProviderSource(PeriodicReload):
    """Fills the store from TensorBoard's `context.data_provider`.

    Args:
      provider: a `tensorboard.data.provider.DataProvider`.
      store: where the data goes.
      config: returns the current user config (overrides).
      logdir: TensorBoard's `--logdir` ("" with `--grpc_data_provider`).
      flags: TensorBoard's flags (sampling, `--grpc_data_provider`).
      reason: why this source was chosen, for the catalog.
    """

    def __init__(
        self,
        provider: Any,
        store: Store,
        *,
        config: Callable[[], Config],
        logdir: str,
        flags: Any,
        reason: str = "",
    ) -> None:
        super().__init__()
        self._provider = provider
        self._store = store
        self._config = config
        self._logdir = logdir
        self._reason = reason
        self._remote = str(getattr(flags, "grpc_data_provider", "") or "")
        self._samples = _sample_limits(flags, remote=bool(self._remote))
        self._lock = threading.Lock()  # one reload at a time
        self._runs: dict[str, _RunRead] = {}
        self._visualdl: _VisualDLFiles | None = None
        self._data_location: str | None = None
        self._visualdl_notice = ""
        self.last_stats: ReloadStats | None = None

    # Source interface.

    def status(self) -> SourceStatus:
        notices = [self._visualdl_notice] if self._visualdl_notice else []
        sampled = [
            (run, tag, kind)
            for run, read in sorted(self._runs.items())
            for tag, (kind, *_rest) in sorted(read.sampled.items())
        ]
        if sampled:
            kinds = sorted({kind for _, _, kind in sampled})
            runs = sorted({run for run, _, _ in sampled})
            notices.append(
                f"{_count(len(sampled), 'series', 'series')} in "
                f"{_count(len(runs), 'run', 'runs')} look sampled by the data "
                "provider (it keeps a fixed number of points a series unless "
                "told otherwise): their charts show a sample, not every "
                f"point. To keep every point, {self._fix(kinds)}."
            )
        where = str(self._provider)
        if self._data_location:
            where += f", data at {self._data_location}"
        return SourceStatus(
            kind="provider",
            location=where,
            reason=self._reason,
            notices=tuple(notices),
        )

    def reload(self) -> ReloadStats:
        """Lists every run, re-reads those that changed, drops the gone."""
        with self._lock:
            started = time.monotonic()
            self._locate_visualdl()
            listings = self._list()
            for run in sorted(set(self._runs) - set(listings)):
                del self._runs[run]
                self._store.remove_run(run)
            changed = sorted(
                run
                for run, listing in listings.items()
                if run not in self._runs
                or self._runs[run].listing.signature() != listing.signature()
            )
            points = self._read_runs(changed, listings) if changed else 0
            # Parents before their sub-runs, which join the parent's group.
            metas: dict[str, RunMeta] = {}
            for run in sorted(self._runs):
                metas[run] = self._meta(run, self._runs[run], parents=metas)
                self._store.set_meta(metas[run])
            if self._visualdl is not None:
                self._visualdl.skip = set(self._runs)
                visualdl = self._visualdl.reload()
                points += visualdl.records
            self._store.compact()
            stats = ReloadStats(
                seconds=time.monotonic() - started,
                bytes_read=0,
                records=points,
                runs=len(self._runs),
            )
            self.last_stats = stats
            return stats

    # Listing and reading.

    def _call(self, method: str, **kwargs: Any) -> Any:
        return getattr(self._provider, method)(
            RequestContext(), experiment_id=_EXPERIMENT, **kwargs
        )

    def _list(self) -> dict[str, _Listing]:
        listings: dict[str, _Listing] = {}
        for run in self._call("list_runs"):
            listings[run.run_name] = _Listing(start_time=run.start_time)
        for field, method, plugin in (
            ("scalars", "list_scalars", _SCALARS),
            ("histograms", "list_tensors", _HISTOGRAMS),
            ("layouts", "list_tensors", _CUSTOM_SCALARS),
        ):
            found = self._call(method, plugin_name=plugin)
            for run, tags in found.items():
                listing = listings.setdefault(run, _Listing())
                for tag, series in tags.items():
                    getattr(listing, field)[tag] = (
                        int(series.max_step),
                        float(series.max_wall_time),
                    )
                    if series.display_name:
                        listing.display_names[tag] = series.display_name
        for plugin in self._other_plugins():
            for run, tags in self._other_series(plugin):
                listing = listings.setdefault(run, _Listing())
                kind = _OTHER_KINDS.get(plugin, plugin)
                names = {
                    "(graph)" if tag == _RUN_GRAPH_TAG else tag for tag in tags
                }
                listing.other_tags.setdefault(kind, set()).update(names)
                if plugin == hparams.PLUGIN_NAME:
                    _note_hparams(listing, tags)
        return listings

    def _other_plugins(self) -> list[str]:
        try:
            plugins = self._call("list_plugins")
        except NotImplementedError:  # providers may not list plugins
            return []
        return sorted(set(plugins) - set(_OWN_PLUGINS))

    def _other_series(
        self, plugin: str
    ) -> Iterator[tuple[str, Mapping[str, Any]]]:
        """(run, {tag: listed series}) of a plugin this tab does not chart."""
        for method in ("list_tensors", "list_blob_sequences"):
            yield from self._call(method, plugin_name=plugin).items()

    def _read_runs(
        self, runs: list[str], listings: Mapping[str, _Listing]
    ) -> int:
        """Reads `runs` whole, one at a time, and swaps each into the store.

        One run a request keeps each answer under a gRPC message limit
        (TensorBoard's is 256 MiB); a run too large for it is read one tag
        at a time.
        """
        points = 0
        for run in runs:
            listing = listings[run]
            read = _RunRead(listing, ProviderEvidence(), {})
            scratch = Store()
            # Final metadata (sub-runs need every run) is set after reading.
            scratch.set_meta(RunMeta(run, run, "unknown", "", "tfevents"))
            scalars = self._read("read_scalars", _SCALARS, run, listing.scalars)
            points += self._add_scalars(scratch, run, scalars, read)
            hists = self._read(
                "read_tensors", _HISTOGRAMS, run, listing.histograms
            )
            self._add_histograms(scratch, run, hists, read)
            layouts = self._read(
                "read_tensors", _CUSTOM_SCALARS, run, listing.layouts
            )
            add_layouts(scratch, run, layouts)
            self._runs[run] = read
            if self._store.has_run(run):
                scratch.set_meta(self._store.meta(run))
            else:
                scratch.set_meta(self._meta(run, read, store=scratch))
            self._store.replace_run(scratch, run)
        return points

    def _read(
        self, method: str, plugin: str, run: str, tags: Mapping[str, Any]
    ) -> dict[str, list[Any]]:
        """Every kept point of a run's series of one plugin, by tag."""
        if not tags:
            return {}
        try:
            found = self._call(
                method,
                plugin_name=plugin,
                downsample=_ALL_POINTS,
                run_tag_filter=RunTagFilter(runs=[run]),
            )
            return dict(found.get(run, {}))
        except Exception as error:  # noqa: BLE001 - gRPC's or the provider's
            if not _too_large(error) or len(tags) == 1:
                raise
        out: dict[str, list[Any]] = {}
        for tag in tags:
            found = self._call(
                method,
                plugin_name=plugin,
                downsample=_ALL_POINTS,
                run_tag_filter=RunTagFilter(runs=[run], tags=[tag]),
            )
            out.update(found.get(run, {}))
        return out

    def _add_scalars(
        self,
        scratch: Store,
        run: str,
        series: Mapping[str, list[Any]],
        read: _RunRead,
    ) -> int:
        points = 0
        # The provider hands each series in logged order, without files or
        # SessionLog events: a restart shows as a range logged again, which
        # the files' rule (ingest/attempts.py) tells from a second loop.
        tracker = AttemptTracker()
        for tag, data in series.items():
            n = len(data)
            steps = np.fromiter((d.step for d in data), np.int64, n)
            walls = np.fromiter((d.wall_time for d in data), np.float64, n)
            values = np.fromiter((d.value for d in data), np.float64, n)
            attempts, _ = tracker.assign(
                [tag],
                np.zeros(n, dtype=np.int64),
                steps,
                walls,
                np.arange(n, dtype=np.int64),
                [],
            )
            scratch.append_scalars(
                run, tag, steps, walls, values, attempts=attempts
            )
            points += n
            read.attempt_starts = tuple(tracker.starts)
            if read.listing.display_names.get(tag) == tag:
                read.evidence.note_legacy(
                    "series named by their tag (a converted simple_value)"
                )
            self._check_sampled(read, tag, _SCALARS, steps)
        return points

    def _add_histograms(
        self,
        scratch: Store,
        run: str,
        series: Mapping[str, list[Any]],
        read: _RunRead,
    ) -> None:
        for tag, data in series.items():
            named_legacy = read.listing.display_names.get(tag) == tag
            kept, edges, counts = [], [], []
            for datum in data:
                triples = np.asarray(datum.numpy, dtype=np.float64)
                legacy = named_legacy or converted_legacy(triples)
                try:
                    edge, count = normalise(triples, legacy=legacy)
                except ValueError as error:
                    read.problems.append(f"{tag} at step {datum.step}: {error}")
                    continue
                kept.append(datum)
                edges.append(edge)
                counts.append(count)
                if legacy:
                    read.evidence.note_legacy(
                        "histograms converted from HistogramProto"
                    )
                elif len(triples):
                    read.evidence.note_tf2("histograms stored as tensors")
            scratch.append_histograms(
                run,
                tag,
                [int(d.step) for d in kept],
                [float(d.wall_time) for d in kept],
                edges,
                counts,
            )
            steps = np.array([d.step for d in data], dtype=np.int64)
            self._check_sampled(read, tag, _HISTOGRAMS, steps)

    def _check_sampled(
        self, read: _RunRead, tag: str, kind: str, steps: np.ndarray
    ) -> None:
        """Notes a series whose length is a sampling limit with steps missing.

        A reservoir that overflowed holds exactly its capacity; a series
        that was logged at every step and kept whole has no gaps.
        """
        n = len(steps)
        if n == 0 or n not in self._samples.get(kind, ()):
            return
        low, high = int(steps.min()), int(steps.max())
        if high - low + 1 > n:
            read.sampled[tag] = (kind, n, low, high)

    # Metadata.

    def _meta(
        self,
        run: str,
        read: _RunRead,
        *,
        store: Store | None = None,
        parents: Mapping[str, RunMeta] | None = None,
    ) -> RunMeta:
        store = store or self._store
        detection = detect_provider_run(
            run,
            scalar_tags=store.summary(run).scalar_tags,
            other_tags=read.listing.other_tags,
            evidence=read.evidence,
        )
        return describe_run(
            detection,
            run=run,
            format="tfevents",
            store=store,
            other_tags=read.listing.other_tags,
            side_files=(),
            parents=parents,
            config=self._config(),
            hparams=tuple(read.listing.hparams),
            attempt_starts=read.attempt_starts,
            warnings=(
                *read.listing.problems[:_MAX_TAGS_NAMED],
                *read.problems[:_MAX_TAGS_NAMED],
                *self._sampled_warnings(read),
            ),
            display_names={
                tag: name
                for tag, name in read.listing.display_names.items()
                if name != tag
            },
        )

    def _sampled_warnings(self, read: _RunRead) -> list[str]:
        out = []
        for kind in (_SCALARS, _HISTOGRAMS):
            tags = sorted(t for t, s in read.sampled.items() if s[0] == kind)
            if not tags:
                continue
            named = ", ".join(
                f"{tag} ({read.sampled[tag][1]} points over steps "
                f"{read.sampled[tag][2]}..{read.sampled[tag][3]})"
                for tag in tags[:_MAX_TAGS_NAMED]
            )
            more = len(tags) - _MAX_TAGS_NAMED
            if more > 0:
                named += f" and {more} more"
            out.append(
                f"sampled by the data provider: {kind} {named}; to keep every "
                f"point, {self._fix([kind])}"
            )
        return out

    def _fix(self, kinds: list[str]) -> str:
        if self._remote:
            values = ",".join(f"{kind}=all" for kind in kinds)
            return f"start the data server with --samples-per-plugin={values}"
        values = ",".join(f"{kind}=0" for kind in kinds)
        return (
            f"restart TensorBoard with --samples_per_plugin={values} "
            "(0 keeps every point)"
        )

    # VisualDL files.

    def _locate_visualdl(self) -> None:
        """Finds where VisualDL files can be read from, once."""
        if self._data_location is not None:
            return
        location = self._logdir
        if not location:
            try:
                metadata = self._call("experiment_metadata")
                location = metadata.data_location or ""
            except NotImplementedError:
                location = ""
        self._data_location = location
        if location and logdir_readable(location):
            self._visualdl = _VisualDLFiles(
                location, self._store, config=self._config
            )
            return
        where = (
            f"the data's location ({location})"
            if location
            else ("the data's location (the provider does not say)")
        )
        self._visualdl_notice = (
            "VisualDL (vdlrecords) files are read only as files, and "
            f"{where} is not readable from this TensorBoard process: "
            "PaddlePaddle runs logged with VisualDL are not listed. Start "
            "TensorBoard with --logdir where the files are readable to see "
            "them."
        )


class _VisualDLFiles(Loader):
    """The files loader, limited to VisualDL files of runs no provider has."""

    def __init__(
        self, logdir: str, store: Store, *, config: Callable[[], Config]
    ) -> None:
        super().__init__(logdir, store, config=config)
        self.skip: set[str] = set()

    def _discover(
        self,
    ) -> tuple[list[tuple[str, str, str, str]], dict[str, dict[str, str]]]:
        found, skipped = super()._discover()
        kept = [
            f for f in found if f[3] == "visualdl" and f[0] not in self.skip
        ]
        runs = {f[0] for f in kept}
        return kept, {run: why for run, why in skipped.items() if run in runs}


def _note_hparams(listing: _Listing, tags: Mapping[str, Any]) -> None:
    """Hyper-parameters from `hparams` summaries: their values travel in
    the listed metadata (plugin content), so no read is needed."""
    for tag, series in sorted(tags.items()):
        if tag != hparams.SESSION_START_TAG:
            continue
        try:
            found = hparams.from_plugin_content(
                series.plugin_content, where=tag
            )
        except ValueError as error:
            listing.problems.append(f"{tag}: {error}")
            continue
        if found is not None:
            listing.hparams.append(found)


def _too_large(error: Exception) -> bool:
    """Whether a provider call failed for the size of its answer."""
    code = getattr(error, "code", None)
    name = getattr(code(), "name", "") if callable(code) else ""
    return name == "RESOURCE_EXHAUSTED"


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _sample_limits(flags: Any, *, remote: bool) -> dict[str, tuple[int, ...]]:
    """Series lengths that mean "the reservoir overflowed", per plugin.

    TensorBoard's `--samples_per_plugin` sets them for the data it reads
    itself (0 keeps all); a remote data server's are unknown, so the
    defaults count.
    """
    limits = dict(_DEFAULT_SAMPLES)
    given = getattr(flags, "samples_per_plugin", None) or {}
    if remote or not isinstance(given, dict):
        return limits
    for plugin, count in given.items():
        limits[plugin] = () if int(count) <= 0 else (int(count),)
    return limits
