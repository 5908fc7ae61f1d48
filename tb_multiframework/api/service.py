"""JSON payloads of the HTTP API, built from the store and core.

Each method takes already-parsed arguments and returns a plain dict; it
raises `NotFound` for an unknown run, tag, metric or layout and `ValueError`
for a bad argument, which `plugin.py` turns into 404 and 400 responses.
What every request needs about the runs (run info, epoch maps, the metric
index) is derived once per data version and config (`context.py`), and
whole answers are cached by their arguments and that same version.

`Api` is the one entry point of the routes and the `tbmf` command line; the
answers themselves are computed by `scalars.py` (scalars, export),
`histograms.py` (histograms), `anomalies.py` (anomalies),
`experiments.py` (hyper-parameters, groups), `run_answers.py` (runs, the
metric index's members, speed, metric summaries) and `layout_answers.py`
(layouts and their preview), and written out by `encoding.py` (JSON,
packed arrays, CSV cells).
"""

from __future__ import annotations

import collections
import contextlib
import functools
import threading
from collections.abc import Callable, Hashable, Iterator
from typing import Any

from tb_multiframework.api import (
    catalog,
    experiments,
    layout_answers,
    run_answers,
)
from tb_multiframework.api.anomalies import (
    AnomalyFinder,
    AnomalyQuery,
    NotFoundError,
)
from tb_multiframework.api.context import (
    Context,
    ContextBuilder,
    NotFound,
)
from tb_multiframework.api.encoding import (
    Encoded,
    csv_safe_cell,
    encode_json,
    pack_arrays,
    to_json,
)
from tb_multiframework.api.histograms import HistogramAnswers, HistogramQuery
from tb_multiframework.api.layout_answers import LayoutsUnavailable
from tb_multiframework.api.placed import PlacedCache
from tb_multiframework.api.run_entries import run_entries
from tb_multiframework.api.scalars import (
    MAX_EXPORT_ROWS,
    SCALAR_ENCODINGS,
    ScalarAnswers,
    ScalarQuery,
)
from tb_multiframework.core.budget import Budget
from tb_multiframework.core.compare import Selection
from tb_multiframework.core.types import TRAINERS
from tb_multiframework.settings.config import Config, ConfigFile
from tb_multiframework.settings.corrections import save_run_settings
from tb_multiframework.settings.layouts import LayoutStore
from tb_multiframework.sources import Source
from tb_multiframework.store import allocator, collector
from tb_multiframework.store.store import Store

# Names other modules import from here, wherever they are defined.
__all__ = [
    "MAX_EXPORT_ROWS",
    "SCALAR_ENCODINGS",
    "Api",
    "Encoded",
    "HistogramQuery",
    "LayoutsUnavailable",
    "NotFound",
    "ScalarQuery",
    "csv_safe_cell",
    "encode_json",
    "pack_arrays",
    "to_json",
]

_CACHE_ENTRIES = 64  # answers kept per data version
# ... and their bytes, at most: a few answers of many runs' points would
# otherwise keep hundreds of MiB (the soak's reached 66 MB).
_CACHE_BYTES = 32 * 2**20
# Answers computed at once (the machine: 2 cores). Others wait their turn
# without holding the GIL, so a light request (runs, a kept answer) shares
# the interpreter with at most this many computations, not with every
# client's: under eight clients the `runs` probe waited behind all of them.
COMPUTE_SLOTS = 2
ANOMALY_SECONDS = 5.0  # new anomaly results one request computes, at most


class Api:
    """The data behind every route.

    Args:
      store: the series store.
      loader: the source filling it (for load state), None without one.
      config_file: the user config.
      layout_store: where user layouts are saved, with the reason for the
        place; None when no place is writable.
    """

    def __init__(
        self,
        store: Store,
        loader: Source | None,
        config_file: ConfigFile,
        layout_store: LayoutStore | None,
        layout_path_reason: str,
    ) -> None:
        self._store = store
        self._loader = loader
        self._config_file = config_file
        self._layout_store = layout_store
        self._layout_path_reason = layout_path_reason
        self._lock = threading.Lock()
        # Guards the context; `_building` while one request builds it.
        self._built = threading.Condition(self._lock)
        self._building = False
        self._context_key: tuple[Any, ...] | None = None
        self._context_value: Context | None = None
        self._cache: collections.OrderedDict[Hashable, Any] = (
            collections.OrderedDict()
        )
        self._cache_bytes = 0  # of the kept answers' JSON (not their gzip)
        # The `runs` entries of the last context, per value of all_tags.
        self._runs_kept: dict[bool, tuple[Context, list[dict[str, Any]]]] = {}
        self._computing = threading.BoundedSemaphore(COMPUTE_SLOTS)
        self._slot_held = threading.local()
        self._contexts = ContextBuilder(store)
        self._anomalies = AnomalyFinder(store)
        # Placed and smoothed series, kept across data versions.
        self._placed = PlacedCache()
        self._scalar_answers = ScalarAnswers(store, self._context, self._placed)
        self._histogram_answers = HistogramAnswers(store, self._context)

    # Derived state.

    def _config(self) -> Config:
        self._config_file.refresh()
        return self._config_file.config

    def _context(self) -> Context:
        """The context of the current data version and config.

        Built outside the lock every request takes (building reads every
        changed run: hundreds of milliseconds with a writer appending), by
        one request at a time; meanwhile others are answered from the
        previous context, a consistent older version, instead of waiting.
        """
        config = self._config()
        key = (self._store.version, config)
        with self._built:
            while True:
                if self._context_key == key and self._context_value is not None:
                    return self._context_value
                if self._settling(config):
                    return self._context_value  # see `settled_context`
                if not self._building:
                    self._building = True
                    break
                if self._context_value is not None:
                    return self._context_value  # the previous version
                self._built.wait()
        try:
            value = self._contexts.build(config)
        finally:
            with self._built:
                self._building = False
                self._built.notify_all()
        with self._built:
            self._context_value = value
            self._context_key = key
            self._cache.clear()
            self._cache_bytes = 0
        return value

    @contextlib.contextmanager
    def _compute_slot(self) -> Iterator[None]:
        """Holds one of `COMPUTE_SLOTS` while computing an answer (once per
        thread: a computation asking for another does not wait again)."""
        if getattr(self._slot_held, "held", False):
            yield
            return
        self._computing.acquire()
        self._slot_held.held = True
        try:
            yield
        finally:
            self._slot_held.held = False
            self._computing.release()

    def _version_of(self, ctx: Context) -> int:
        """The data version a context was built for (read before its build
        began, so never newer than what it shows): the tab refreshes its
        views when it changes, so `runs` says the version it answers from."""
        with self._lock:
            if self._context_value is ctx and self._context_key is not None:
                return int(self._context_key[0])
        return self._store.version

    def _settling(self, config: Config) -> bool:
        """Whether the background reload is still changing the store (after
        the first load, with a context of this config): then requests are
        answered from the last context, and the reload thread builds the
        next one when it is done (`settled_context`), so that no request
        waits for a build, nor builds one per append of a reload."""
        loader = self._loader
        return (
            loader is not None
            and getattr(loader, "reloading", False)
            and loader.loaded_once.is_set()
            and self._context_value is not None
            and self._context_key is not None
            and self._context_key[1] == config
        )

    def settled_context(self) -> None:
        """Builds the context of the data a reload left (the loader calls
        this after each background reload); requests meanwhile are answered
        from the previous one. Returns once that context is the current
        one, also when a request was building an older one meanwhile (the
        loader says the first load is done only then)."""
        while True:
            self._context()
            key = (self._store.version, self._config())
            with self._built:
                if self._context_key == key and self._context_value is not None:
                    return
                while self._building:
                    self._built.wait()

    def _cached(
        self,
        key: Hashable,
        compute: Callable[[], Any],
        *,
        compress: bool = True,
        keep: Callable[[Any], bool] | None = None,
    ) -> Encoded:
        ctx = self._context()  # clears the cache when the data changed
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        with self._compute_slot():
            with self._lock:  # computed by another while this one waited?
                if key in self._cache and self._context_value is ctx:
                    self._cache.move_to_end(key)
                    return self._cache[key]
            payload = compute()
            value = Encoded(encode_json(payload), compress=compress)
        if (keep is not None and not keep(payload)) or len(
            value.data
        ) > _CACHE_BYTES:
            return value
        with self._lock:
            if self._context_value is not ctx:
                # A newer context arrived while this was computed: the
                # cache is now that one's; this answer may be older.
                return value
            old = self._cache.pop(key, None)
            if old is not None:
                self._cache_bytes -= len(old.data)
            self._cache[key] = value
            self._cache_bytes += len(value.data)
            while (
                len(self._cache) > _CACHE_ENTRIES
                or self._cache_bytes > _CACHE_BYTES
            ):
                _, dropped = self._cache.popitem(last=False)
                self._cache_bytes -= len(dropped.data)
        return value

    # Runs and metrics.

    def runs(self, *, all_tags: bool = False) -> dict[str, Any]:
        """`GET runs`: the run catalog.

        Args:
          all_tags: list every tag of each run (else the first
            `catalog.MAX_LISTED_TAGS` of each kind, with the counts).
        """
        loader = self._loader
        # Read before the context: one built while the first load ended
        # holds part of it, and must not be answered as `loading: false`.
        loading = loader is not None and not loader.loaded_once.is_set()
        ctx = self._context()
        return run_answers.runs_json(
            ctx,
            list(self._run_entries(ctx, all_tags)),
            loader=loader,
            loading=loading,
            config_error=self._config_file.error,
            data_version=self._version_of(ctx),
        )

    def _run_entries(
        self, ctx: Context, all_tags: bool
    ) -> list[dict[str, Any]]:
        """The `runs` entries of a context, made once per context: the tab
        polls `runs`, and each entry reads its run's attempts in the store."""
        with self._lock:
            kept = self._runs_kept.get(all_tags)
        if kept is not None and kept[0] is ctx:
            return kept[1]
        entries = run_entries(self._store, ctx, all_tags)
        with self._lock:
            self._runs_kept[all_tags] = (ctx, entries)
        return entries

    def save_run_settings(self, body: Any) -> dict[str, Any]:
        """`POST run_settings`: saves the user's corrections of one run."""
        if not isinstance(body, dict) or set(body) != {"run", "set"}:
            raise ValueError('the body must be {"run": "<run>", "set": {...}}')
        run = body["run"]
        if not isinstance(run, str):
            raise ValueError("run must be a string")
        run_answers.known_runs(self._context(), (run,))
        with self._lock:
            saved = save_run_settings(
                self._config_file.path,
                run,
                body["set"],
                known_trainers=tuple(t for t in TRAINERS if t),
            )
        self._config_file.refresh()
        if self._config_file.error:
            raise ValueError(self._config_file.error)
        return saved

    def metrics(
        self,
        *,
        search: str = "",
        runs: tuple[str, ...] = (),
        keys: tuple[str, ...] = (),
        offset: int = 0,
        limit: int | None = None,
    ) -> dict[str, Any]:
        """`GET metrics`: the cross-framework metric index, or a page of it
        (`catalog.metric_page`; without `limit`, every entry)."""
        ctx = self._context()
        return catalog.metric_page(
            ctx,
            member_json=functools.partial(run_answers.metric_members, ctx),
            search=search,
            runs=runs,
            keys=keys,
            offset=offset,
            limit=limit,
        )

    def cached_page(self, route: str, **arguments: Any) -> Encoded:
        """`metrics` or `tags` (a page), kept per arguments and data version."""
        compute = self.metrics if route == "metrics" else self.tags
        key = (route, tuple(sorted(arguments.items())))
        return self._cached(key, lambda: compute(**arguments))

    def tags(
        self,
        *,
        search: str = "",
        runs: tuple[str, ...] = (),
        offset: int = 0,
        limit: int = catalog.DEFAULT_TAG_PAGE,
    ) -> dict[str, Any]:
        """`GET tags`: a page of every scalar tag (`catalog.tag_page`)."""
        return catalog.tag_page(
            self._context(),
            search=search,
            runs=runs,
            offset=offset,
            limit=limit,
        )

    def speed(self, runs: tuple[str, ...]) -> Encoded:
        """`GET speed`: each run's speed derived from wall time."""
        run_answers.known_runs(self._context(), runs)
        return self._cached(("speed", runs), lambda: self.speed_payload(runs))

    def speed_payload(self, runs: tuple[str, ...]) -> dict[str, Any]:
        """The `GET speed` answer as a dict (for `tbmf`)."""
        return run_answers.speed_payload(self._context(), self._store, runs)

    # Scalars.

    def scalars(self, query: ScalarQuery) -> Encoded:
        """`GET scalars`: aligned, smoothed, downsampled series and diffs."""
        return self._cached(
            ("scalars", query),
            lambda: self._scalar_answers.payload(query),
            compress=query.encoding != "b64",
        )

    def config_diff(self, runs: tuple[str, ...]) -> dict[str, Any]:
        """`GET config_diff`: hyper-parameters of 2+ runs side by side."""
        ctx = self._context()
        run_answers.known_runs(ctx, runs)
        return experiments.config_diff(ctx.experiments, runs)

    def metric_summary(self, metric: str) -> dict[str, Any]:
        """`GET metric_summary`: last/best of a metric per run, rank spread."""
        return run_answers.metric_summary(self._context(), self._store, metric)

    def export(self, query: ScalarQuery, fmt: str) -> tuple[Iterator[str], str]:
        """`GET export`: every aligned point as CSV or JSON text.

        Returns:
          (pieces of the body, made as they are read; content type).
        """
        return self._scalar_answers.export(query, fmt)

    # Histograms.

    def histograms(self, run: str, tag: str, axis: str) -> dict[str, Any]:
        """`GET histograms`: every histogram of a (run, tag)."""
        with self._compute_slot():
            return self._histogram_answers.histograms(run, tag, axis)

    def histogram_diff(
        self, query: HistogramQuery, at: float | None
    ) -> Encoded:
        """`GET histogram_diff`: two histograms on common edges, distances."""
        return self._cached(
            ("histogram_diff", query, at),
            lambda: self._histogram_answers.diff(query, at),
        )

    def histogram_distances(self, query: HistogramQuery) -> Encoded:
        """`GET histogram_distances`: the distances over training."""
        return self._cached(
            ("histogram_distances", query),
            lambda: self._histogram_answers.distances(query),
        )

    def histogram_pairs(self, run_a: str, run_b: str) -> dict[str, Any]:
        """`GET histogram_pairs`: suggested tag pairs between two runs."""
        return self._histogram_answers.pairs(run_a, run_b)

    # Layouts (layout_answers.py).

    def layouts(self) -> dict[str, Any]:
        """`GET layouts`: user layouts and those logged in the runs."""
        return layout_answers.layouts_json(
            self._store, self._layout_store, self._layout_path_reason
        )

    def save_layout(self, body: Any) -> dict[str, Any]:
        """`POST layouts`: validates and saves a user layout."""
        return layout_answers.save_layout(
            self._layout_store, self._layout_path_reason, body
        )

    def delete_layout(self, name: str) -> dict[str, Any]:
        """`DELETE layouts?name=`: removes a user layout."""
        return layout_answers.delete_layout(
            self._layout_store, self._layout_path_reason, name
        )

    def preview_layout(
        self, body: Any, *, should_stop: Callable[[], bool] | None = None
    ) -> dict[str, Any]:
        """`POST layout_preview`: what each chart's regexes match now."""
        return layout_answers.preview_layout(
            self._context, body, should_stop=should_stop
        )

    def memory_figures(self) -> dict[str, Any]:
        """Sizes of the store's data and of every cache kept across
        requests (`memtrace`, the soak's memory report)."""
        with self._lock:
            answers = list(self._cache.values())
        return {
            "storeDataBytes": self._store.data_bytes(),
            "answers": len(answers),
            "answerBytes": sum(len(a.data) for a in answers),
            "placed": self._placed.entries,
            "placedBytes": self._placed.nbytes,
            "anomalyResults": self._anomalies.kept,
            **self._contexts.figures(),
            **allocator.malloc_figures(),
            **collector.collector_figures(),
        }

    # In-process callers (the `tbmf` command line, the Python API).

    def context(self) -> Context:
        """What every answer reads about the runs, for the current data
        (run summaries and facts, epoch maps, the metric index, the
        experiments); rebuilt when the data or the config changes."""
        return self._context()

    def scalar_payload(self, query: ScalarQuery) -> dict[str, Any]:
        """The `GET scalars` answer as a dict of numpy arrays, uncached.

        `query.points` may be None here (every point, no downsampling),
        which the route never asks for.
        """
        return self._scalar_answers.payload(query)

    def selections(
        self, query: ScalarQuery
    ) -> tuple[list[Selection], list[dict[str, str]]]:
        """The (run, tag) series a `scalars` query names, and runs lacking them.

        The same series, epoch maps and run facts the routes compute with.

        Raises:
          NotFound: an unknown run, metric or tag.
        """
        return self._scalar_answers.selections(query)

    # Anomalies.

    def anomalies(
        self,
        query: AnomalyQuery,
        *,
        should_stop: Callable[[], bool] | None = None,
    ) -> Encoded:
        """`GET anomalies`: the flagged ranges of the series asked for.

        New results are computed for at most `ANOMALY_SECONDS` (kept ones
        cost nothing): the rest are `pending`, for the next request, and
        such a partial answer is not kept.
        """
        return self._cached(
            ("anomalies", query),
            # The budget starts once a compute slot is had, not while
            # waiting for one.
            lambda: self.anomaly_payload(
                query,
                budget=Budget(
                    float("inf"),
                    seconds=ANOMALY_SECONDS,
                    should_stop=should_stop,
                ),
            ),
            keep=lambda payload: not payload["pending"],
        )

    def anomaly_payload(
        self, query: AnomalyQuery, *, budget: Budget | None = None
    ) -> dict[str, Any]:
        """The `GET anomalies` answer as a dict (for callers without HTTP,
        such as a command line: no budget, every series looked at)."""
        try:
            payload = self._anomalies.payload(self._context(), query, budget)
        except NotFoundError as error:
            raise NotFound(str(error)) from None
        payload["dataVersion"] = self._store.version
        return payload
