"""What every `tbmf` command shares: reading the logdir, naming runs and
metrics, errors, output (numbers and tables live in `textfmt`, the progress
bar in `progress`).

Only the standard library is imported here at module level; the data stack
(numpy, protobuf, the readers) is imported when a command reads a logdir.
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
import os
import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, TextIO

# Commands reach the formatting and the progress bar through this module.
from tb_multiframework.cli import lang
from tb_multiframework.cli.progress import Progress
from tb_multiframework.cli.textfmt import MISSING as MISSING
from tb_multiframework.cli.textfmt import Column as Column
from tb_multiframework.cli.textfmt import display_width as display_width
from tb_multiframework.cli.textfmt import elide as elide
from tb_multiframework.cli.textfmt import format_duration as format_duration
from tb_multiframework.cli.textfmt import format_int as format_int
from tb_multiframework.cli.textfmt import format_percent as format_percent
from tb_multiframework.cli.textfmt import format_signed as format_signed
from tb_multiframework.cli.textfmt import format_value as format_value
from tb_multiframework.cli.textfmt import printable as printable
from tb_multiframework.cli.textfmt import render_table as render_table

if TYPE_CHECKING:
    from tb_multiframework.wiring import Stack

EXIT_OK = 0
EXIT_FAILED = 1  # a check failed, anomalies of a listed kind were found
EXIT_USAGE = 2  # unknown run, metric, axis, file, or a malformed argument
EXIT_BROKEN = 3  # a dependency is missing or incompatible
EXIT_INTERRUPTED = 130  # Ctrl-C

_LISTED_CHOICES = 8  # names listed in an "unknown ..." message


def column(title: str, *args: Any, **kwargs: Any) -> Column:
    """A table column whose header is in the chosen language (`title` stays
    the name `--sort` and `--filter` use)."""
    kwargs.setdefault("label", lang.heading(title))
    return Column(title, *args, **kwargs)


class UsageError(Exception):
    """A user mistake: printed as one line, exit code 2, no traceback."""


def add_command(
    commands: Any, name: str, help_text: str, epilog: str
) -> argparse.ArgumentParser:
    """A command's parser, with LOGDIR and the options every command has."""
    parser: argparse.ArgumentParser = commands.add_parser(
        name,
        help=help_text.replace("%", "%%"),
        description=help_text,
        epilog=epilog,
        formatter_class=lang.HelpFormatter,
        add_help=False,
    )
    lang.add_help_option(parser)
    add_logdir_arguments(parser)
    return parser


def add_metrics_argument(
    parser: argparse.ArgumentParser, help_text: str
) -> None:
    """`--metric M`, repeatable."""
    parser.add_argument(
        "--metric", metavar="M", action="append", default=[], help=help_text
    )


def add_logdir_arguments(parser: argparse.ArgumentParser) -> None:
    """LOGDIR and the options of every command that reads one."""
    parser.add_argument(
        "logdir",
        metavar="LOGDIR",
        help=lang.option_help("cli.help.common.logdir"),
    )
    parser.add_argument(
        "--config",
        metavar="PATH",
        default="",
        help=lang.option_help("cli.help.common.config"),
    )
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help=lang.option_help("cli.help.common.quiet"),
    )


def load(args: argparse.Namespace) -> Stack:
    """Reads the whole logdir in-process, as the tab's first load does.

    Raises:
      UsageError: the logdir or config does not exist or is malformed.
    """
    logdir = args.logdir
    if "://" not in logdir and not os.path.isdir(logdir):
        raise UsageError(lang.tr("cli.err.notADirectory", logdir=repr(logdir)))
    if args.config and not os.path.isfile(args.config):
        raise UsageError(lang.tr("cli.err.noConfig", path=repr(args.config)))
    from tb_multiframework import wiring  # noqa: PLC0415 - numpy & readers

    stack = wiring.build_stack(logdir, config_path=args.config, layouts=False)
    if stack.config_file.error:
        if args.config:
            raise UsageError(stack.config_file.error)
        warn(
            args,
            lang.tr("cli.warn.configIgnored", error=stack.config_file.error),
        )
    show = not args.quiet and sys.stderr.isatty()
    with Progress(
        lang.tr("cli.progress.reading", logdir=logdir), enabled=show
    ) as progress:
        stack.loader.reload(progress=progress.update)
    stack.loader.loaded_once.set()
    return stack


def warn(args: argparse.Namespace, message: str) -> None:
    """A warning on stderr, unless --quiet."""
    if not getattr(args, "quiet", False):
        print(
            lang.tr("cli.warning", message=printable(message)), file=sys.stderr
        )


def warn_run_problems(
    args: argparse.Namespace, runs: Iterable[dict[str, Any]]
) -> None:
    """Says on stderr which of these runs have file problems."""
    for run in runs:
        for problem in run.get("warnings", ()):
            warn(
                args, lang.tr("cli.runProblem", run=run["run"], problem=problem)
            )


# Names: runs and metrics.


def choices_text(wanted: str, names: Sequence[str], kind: str) -> str:
    """`did you mean 'b'? runs: a, b, c, ... (12)` for an error message."""
    close = difflib.get_close_matches(wanted, names, n=1)
    hint = lang.tr("cli.choices.hint", name=repr(close[0])) if close else ""
    noun = lang.term("cli.noun.", kind)
    if not names:
        return lang.tr("cli.choices.none", hint=hint, kind=noun)
    shown = ", ".join(names[:_LISTED_CHOICES])
    more = (
        lang.tr("cli.choices.more", n=len(names))
        if len(names) > _LISTED_CHOICES
        else ""
    )
    return lang.tr("cli.choices.list", hint=hint, kind=noun, names=shown + more)


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
        lang.tr(
            "cli.err.unknownRun",
            run=repr(token),
            choices=choices_text(token, list(runs), "runs"),
        )
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
            lang.tr(
                "cli.err.unknownMetric",
                metric=repr(token),
                choices=choices_text(token, keys, "metrics"),
            )
        )
    return found


def pick_metric(
    token: str,
    metrics: Sequence[dict[str, Any]],
    runs: Sequence[str] = (),
) -> dict[str, Any]:
    """The one metric entry a --metric argument names, for the commands
    that show one metric (`export`, `anomalies`, `open`).

    Every command reads --metric the same way (`resolve_metrics`): a key
    names itself, a name (`loss/train`) every level of it. Where a name has
    several levels, the one the runs (all runs when `runs` is empty) log
    at a level of their own is taken (`batch_loss` is @batch, a PyTorch
    `Loss/train` of unknown level is in every level), then the level with
    the most of the runs, then the first in the metric index.

    Raises:
      UsageError: no metric has that key or name.
    """
    entries = resolve_metrics(token, metrics)
    if len(entries) == 1:
        return entries[0]
    wanted = set(runs)

    def score(entry: dict[str, Any]) -> tuple[int, int]:
        members = [
            m for m in entry["members"] if not wanted or m["run"] in wanted
        ]
        stated = sum(m.get("level") is not None for m in members)
        return stated, len({m["run"] for m in members})

    best = max(score(e) for e in entries)
    return next(e for e in entries if score(e) == best)


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
            lang.tr(
                "cli.err.ambiguousMetric",
                token=repr(token),
                n=len(hits),
                metric=entry["key"],
                runs=", ".join(hits),
            )
        )
    return next(iter(hits.items()), None)


def check_axis(axis: str) -> str:
    """Raises UsageError for an axis the tab does not have."""
    from tb_multiframework.core.axes import AXES  # noqa: PLC0415 - numpy

    if axis not in AXES:
        raise UsageError(
            lang.tr(
                "cli.err.unknownAxis", axis=repr(axis), axes=", ".join(AXES)
            )
        )
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


def write_output(path: str | None, text: str | Iterable[str]) -> None:
    """Writes a command's output (text, or pieces of it) to stdout, or
    atomically to a file.

    A failed write leaves an existing file as it was.

    Raises:
      UsageError: the file cannot be written.
    """
    pieces = [text] if isinstance(text, str) else text
    if not path or path == "-":
        for piece in pieces:
            sys.stdout.write(piece)
        return
    target = os.path.abspath(path)
    directory = os.path.dirname(target)
    temp = os.path.join(
        directory, f".{os.path.basename(target)}.tbmf-{os.getpid()}.tmp"
    )
    try:
        with open(temp, "w", encoding="utf-8", newline="") as handle:
            for piece in pieces:
                handle.write(piece)
        os.replace(temp, target)
    except OSError as error:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise UsageError(
            lang.tr(
                "cli.err.cannotWrite",
                path=repr(path),
                why=error.strerror or error,
            )
        ) from None
