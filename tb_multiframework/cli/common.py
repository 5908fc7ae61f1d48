"""What every `tbmf` command shares: reading the logdir, naming runs and
metrics, errors, numbers and tables.

Only the standard library is imported here at module level; the data stack
(numpy, protobuf, the readers) is imported when a command reads a logdir.
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
import os
import shutil
import sys
import threading
import time
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from tb_multiframework.wiring import Stack

EXIT_OK = 0
EXIT_FAILED = 1  # a check failed, anomalies of a listed kind were found
EXIT_USAGE = 2  # unknown run, metric, axis, file, or a malformed argument
EXIT_INTERRUPTED = 130  # Ctrl-C

PROGRESS_AFTER_S = 1.0  # seconds of reading before the progress bar shows
_PROGRESS_TICK_S = 0.1  # seconds between redraws
_LISTED_CHOICES = 8  # names listed in an "unknown ..." message
MISSING = "—"


class UsageError(Exception):
    """A user mistake: printed as one line, exit code 2, no traceback."""


def add_logdir_arguments(parser: argparse.ArgumentParser) -> None:
    """LOGDIR and the options of every command that reads one."""
    parser.add_argument(
        "logdir",
        metavar="LOGDIR",
        help="the log directory, as given to tensorboard --logdir",
    )
    parser.add_argument(
        "--config",
        metavar="PATH",
        default="",
        help="config file (per-run settings, metric aliases); default: "
        "LOGDIR/.tb_multiframework/config.json when present, as in the tab",
    )
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no progress bar and no warnings on stderr",
    )


def load(args: argparse.Namespace) -> Stack:
    """Reads the whole logdir in-process, as the tab's first load does.

    Raises:
      UsageError: the logdir or config does not exist or is malformed.
    """
    logdir = args.logdir
    if "://" not in logdir and not os.path.isdir(logdir):
        raise UsageError(f"LOGDIR {logdir!r} is not a directory")
    if args.config and not os.path.isfile(args.config):
        raise UsageError(f"config file {args.config!r} does not exist")
    from tb_multiframework import wiring  # noqa: PLC0415 - numpy & readers

    stack = wiring.build_stack(logdir, config_path=args.config, layouts=False)
    if stack.config_file.error:
        if args.config:
            raise UsageError(stack.config_file.error)
        warn(args, f"{stack.config_file.error}; reading without it")
    show = not args.quiet and sys.stderr.isatty()
    with Progress(f"reading {logdir}", enabled=show) as progress:
        stack.loader.reload(progress=progress.update)
    stack.loader.loaded_once.set()
    return stack


def warn(args: argparse.Namespace, message: str) -> None:
    """A warning on stderr, unless --quiet."""
    if not getattr(args, "quiet", False):
        print(f"tbmf: warning: {printable(message)}", file=sys.stderr)


def warn_run_problems(
    args: argparse.Namespace, runs: Iterable[dict[str, Any]]
) -> None:
    """Says on stderr which of these runs have file problems."""
    for run in runs:
        for problem in run.get("warnings", ()):
            warn(args, f"run {run['run']}: {problem}")


class Progress:
    """A progress bar on stderr, drawn only once reading takes a while.

    `update(done, total)` may be called from the reading thread as often as
    it likes; a background thread redraws at most every 0.1 s, starting
    after `PROGRESS_AFTER_S`, and clears the line at the end.
    """

    def __init__(
        self, label: str, *, enabled: bool, stream: TextIO | None = None
    ) -> None:
        self._label = label
        self._enabled = enabled
        self._stream = stream or sys.stderr
        self._done = self._total = 0
        self._started = time.monotonic()
        self._stop = threading.Event()
        self._drawn = False
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Progress:
        if self._enabled:
            self._thread = threading.Thread(
                target=self._tick, name="tbmf-progress", daemon=True
            )
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._drawn:
            self._stream.write("\r\x1b[K")
            self._stream.flush()

    def update(self, done: int, total: int) -> None:
        self._done, self._total = done, total

    def line(self, width: int) -> str:
        """The bar as text, at most `width` characters."""
        elapsed = time.monotonic() - self._started
        done, total = self._done, self._total
        tail = f" {done / 1e6:.1f}/{total / 1e6:.1f} MB {elapsed:.1f} s"
        if total <= 0:
            return f"tbmf: {self._label} {done / 1e6:.1f} MB {elapsed:.1f} s"[
                :width
            ]
        fraction = min(done / total, 1.0)
        head = f"tbmf: {self._label} "
        pct = f" {fraction * 100:3.0f}%"
        room = width - len(head) - len(pct) - len(tail) - 2
        if room < 10:
            return (head + pct + tail)[:width]
        filled = int(round(fraction * room))
        return f"{head}[{'#' * filled}{'-' * (room - filled)}]{pct}{tail}"

    def _tick(self) -> None:
        if self._stop.wait(PROGRESS_AFTER_S):
            return
        while True:
            width = shutil.get_terminal_size((80, 24)).columns - 1
            self._stream.write("\r" + self.line(width))
            self._stream.flush()
            self._drawn = True
            if self._stop.wait(_PROGRESS_TICK_S):
                return


# Names: runs and metrics.


def choices_text(wanted: str, names: Sequence[str], kind: str) -> str:
    """`did you mean 'b'? runs: a, b, c, ... (12)` for an error message."""
    close = difflib.get_close_matches(wanted, names, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    if not names:
        return f"{hint}there are no {kind}"
    shown = ", ".join(names[:_LISTED_CHOICES])
    more = f", … ({len(names)} in all)" if len(names) > _LISTED_CHOICES else ""
    return f"{hint}{kind}: {shown}{more}"


def resolve_run(token: str, runs: Sequence[str]) -> list[str]:
    """The runs a RUN argument names: that run and the runs under it.

    `keras_fit` names `keras_fit/train` and `keras_fit/validation`; a run
    that has sub-runs (a torch run with `add_scalars` sub-runs, a Keras
    run directory holding hyper-parameters) names itself first, then them.

    Raises:
      UsageError: no run has that name or lies under it.
    """
    prefix = token.rstrip("/") + "/"
    found = [token] if token in runs else []
    found += [run for run in runs if run.startswith(prefix)]
    if found:
        return found
    raise UsageError(
        f"unknown run {token!r}; {choices_text(token, list(runs), 'runs')}"
    )


def resolve_metrics(
    token: str, metrics: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The metric entries a --metric argument names.

    A key (`loss/train@epoch`) names one entry; a name (`loss/train`)
    names every level of it.

    Raises:
      UsageError: no metric has that key or name.
    """
    found = [m for m in metrics if m["key"] == token] or [
        m for m in metrics if m["name"] == token
    ]
    if not found:
        keys = [m["key"] for m in metrics]
        raise UsageError(
            f"unknown metric {token!r}; {choices_text(token, keys, 'metrics')}"
        )
    return found


def member_of(
    entry: dict[str, Any], runs: Sequence[str], token: str
) -> tuple[str, str] | None:
    """The (run, tag) of a metric among the runs a RUN argument names.

    The run named exactly wins; else the one run under it that has the
    metric. The first tag of the run is used, as the tab's baseline and its
    metric summary do. None when none of the runs has the metric.

    Raises:
      UsageError: several runs under the argument have it.
    """
    hits: dict[str, str] = {}
    for m in entry["members"]:
        if m["run"] in runs:
            hits.setdefault(m["run"], m["tag"])
    if token in hits:
        return token, hits[token]
    if len(hits) > 1:
        raise UsageError(
            f"{token!r} names {len(hits)} runs with metric {entry['key']}: "
            f"{', '.join(hits)}; name one of them"
        )
    return next(iter(hits.items()), None)


def check_axis(axis: str) -> str:
    """Raises UsageError for an axis the tab does not have."""
    from tb_multiframework.core.axes import AXES  # noqa: PLC0415 - numpy

    if axis not in AXES:
        raise UsageError(f"unknown axis {axis!r}; axes: {', '.join(AXES)}")
    return axis


def parse_smoothing(text: str) -> float:
    """argparse type of --smoothing: a weight in [0, 1)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (math.isfinite(value) and 0.0 <= value < 1.0):
        raise argparse.ArgumentTypeError(f"must be in [0, 1), got {text}")
    return value


def parse_nonnegative(text: str) -> float:
    """argparse type of tolerances: a finite number >= 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (math.isfinite(value) and value >= 0.0):
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {text}")
    return value


# Output.


def print_json(payload: Any, stream: TextIO | None = None) -> None:
    """JSON as the routes send it: non-finite numbers as "NaN" strings."""
    (stream or sys.stdout).write(
        json.dumps(json_ready(payload), indent=1, allow_nan=False) + "\n"
    )


def json_ready(value: Any) -> Any:
    """Plain JSON types, non-finite floats as "NaN", "Infinity", ..."""
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        if value != value:
            return "NaN"
        return "Infinity" if value > 0 else "-Infinity"
    if isinstance(value, dict):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    if hasattr(value, "tolist"):  # numpy arrays and scalars
        return json_ready(value.tolist())
    return value


def printable(text: str) -> str:
    """A name made safe for a terminal: control characters escaped.

    Run and tag names come from files; an escape sequence in one must not
    drive the user's terminal.
    """
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


def format_value(value: float | None) -> str:
    """Five significant digits, as the tab shows values."""
    if value is None:
        return MISSING
    if isinstance(value, str):
        return value
    if not math.isfinite(value):
        return "NaN" if value != value else ("Inf" if value > 0 else "-Inf")
    magnitude = abs(value)
    if magnitude != 0 and (magnitude < 1e-4 or magnitude >= 1e9):
        return f"{value:.3e}"
    text = f"{value:.5g}"
    if "e" in text:  # 5 significant digits of a number >= 1e5
        text = f"{value:.0f}"
    return text


def format_signed(value: float | None) -> str:
    """A change with its sign: +0.0032, −1.5."""
    if value is None:
        return MISSING
    text = format_value(value)
    if isinstance(value, float) and not math.isfinite(value):
        return text
    return text.replace("-", "−") if value < 0 else "+" + text


def format_percent(value: float | None) -> str:
    """A relative change: +12.3%, −0.4%."""
    if value is None or not math.isfinite(value):
        return MISSING
    return f"{value * 100:+.1f}%".replace("-", "−")


def format_int(value: int | None) -> str:
    return MISSING if value is None else f"{value:,}"


def format_duration(seconds: float | None) -> str:
    """850 ms, 42.5 s, 3 min 12 s, 1 h 04 min, 2 d 03 h (as the tab)."""
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
        return MISSING
    if seconds < 1:
        return f"{round(seconds * 1000)} ms"
    if seconds < 60:
        return f"{seconds:.1f} s" if seconds < 10 else f"{round(seconds)} s"
    minutes, secs = divmod(int(round(seconds)), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return f"{hours} h {minutes:02d} min"
    days, hours = divmod(hours, 24)
    return f"{days} d {hours:02d} h"


@dataclass(frozen=True)
class Column:
    """A table column.

    Attributes:
        title: Header text.
        align: "<" left or ">" right.
        elide: Whether long cells may be cut (ending in "…").
        min_width: Cells an elided column keeps at least.
        drop: Order in which columns are left out when even the narrowest
            table is too wide: highest first; 0 is never left out.
    """

    title: str
    align: str = "<"
    elide: bool = False
    min_width: int = 6
    drop: int = 0


def display_width(text: str) -> int:
    """Terminal cells of a string (East Asian wide characters take two)."""
    return sum(
        2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text
    )


def elide(text: str, width: int) -> str:
    """Cuts text to `width` cells, ending in "…" when cut."""
    if display_width(text) <= width:
        return text
    out, used = [], 0
    for ch in text:
        cells = display_width(ch)
        if used + cells > width - 1:
            break
        out.append(ch)
        used += cells
    return "".join(out) + "…"


def render_table(
    columns: Sequence[Column], rows: Sequence[Sequence[str]], width: int
) -> tuple[list[str], list[str]]:
    """An aligned table at most `width` cells wide where possible.

    The widest elidable columns give up cells first, down to their
    `min_width`; if that is not enough, columns are left out by `drop`.

    Returns:
        (lines, titles of the columns left out).
    """
    gap = 2
    keep = list(range(len(columns)))
    widths = [
        max([display_width(c.title)] + [display_width(r[i]) for r in rows])
        for i, c in enumerate(columns)
    ]

    def floor(i: int) -> int:
        c = columns[i]
        if not c.elide:
            return widths[i]
        return min(widths[i], max(c.min_width, display_width(c.title)))

    def total(indices: list[int], sizes: dict[int, int]) -> int:
        return sum(sizes[i] for i in indices) + gap * (len(indices) - 1)

    floors = {i: floor(i) for i in keep}
    droppable = sorted(
        (i for i in keep if columns[i].drop), key=lambda i: -columns[i].drop
    )
    dropped = []
    while total(keep, floors) > width and droppable:
        i = droppable.pop(0)
        keep.remove(i)
        dropped.append(columns[i].title)
    sizes = {i: widths[i] for i in keep}
    excess = total(keep, sizes) - width
    while excess > 0:
        candidates = [i for i in keep if sizes[i] > floors[i]]
        if not candidates:
            break
        widest = max(candidates, key=lambda i: sizes[i] - floors[i])
        sizes[widest] -= 1
        excess -= 1
    lines = []
    for cells in [[c.title for c in columns], *rows]:
        parts = []
        for i in keep:
            text = elide(cells[i], sizes[i])
            pad = " " * (sizes[i] - display_width(text))
            parts.append(text + pad if columns[i].align == "<" else pad + text)
        lines.append((" " * gap).join(parts).rstrip())
    return lines, dropped


def write_output(path: str | None, text: str) -> None:
    """Writes a command's output to stdout, or atomically to a file.

    A failed write leaves an existing file as it was.

    Raises:
      UsageError: the file cannot be written.
    """
    if not path or path == "-":
        sys.stdout.write(text)
        return
    target = os.path.abspath(path)
    directory = os.path.dirname(target)
    temp = os.path.join(
        directory, f".{os.path.basename(target)}.tbmf-{os.getpid()}.tmp"
    )
    try:
        with open(temp, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.replace(temp, target)
    except OSError as error:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise UsageError(
            f"cannot write {path!r}: {error.strerror or error}"
        ) from None
