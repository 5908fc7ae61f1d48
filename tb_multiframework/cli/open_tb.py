"""`tbmf open`: TensorBoard on just some runs, and the tab's deep link.

TensorBoard is started with `--logdir_spec RUN:LOGDIR/RUN,...`, which keeps
each run's name (the tab reads the spec with TensorBoard's own parser); the
printed link opens the Frameworks tab's Compare view with those runs
selected, in the URL format of `frontend/state.js`:
`<url>#tb_multiframework&tbmf.view=compare&tbmf.sel=<runs>&tbmf.cm=<metric>`.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import threading
import webbrowser
from typing import Any
from urllib.parse import quote

from tb_multiframework.cli import common, lang

PLUGIN_ID = "tb_multiframework"  # state.js PLUGIN_ID: the tab's hash id
PARENT_PREFIX = "tbmf."  # state.js PARENT_PREFIX
# State keys: state.js KEYS (view, selection) and compare.js COMPARE_KEYS.
STATE_KEYS = {
    "view": "view",
    "selection": "sel",
    "metric": "cm",
    "axis": "cx",
    "baseline": "cb",
}
_URL_LINE = re.compile(r"TensorBoard \S+ at (http://\S+?)/? \(Press CTRL\+C")
_SPEC_UNSAFE = re.compile(r"[,:]")  # they separate --logdir_spec entries


def register(commands: Any) -> None:
    parser = common.add_command(
        commands,
        "open",
        lang.tr("cli.help.open.summary"),
        lang.tr("cli.help.open.epilog"),
    )
    parser.add_argument(
        "runs",
        metavar="RUN",
        nargs="+",
        help=lang.option_help("cli.help.open.runs"),
    )
    parser.add_argument(
        "--metric", metavar="M", help=lang.option_help("cli.help.open.metric")
    )
    parser.add_argument(
        "--x", metavar="AXIS", help=lang.option_help("cli.help.open.x")
    )
    parser.add_argument(
        "--port", type=int, help=lang.option_help("cli.help.open.port")
    )
    parser.add_argument(
        "--host",
        default="localhost",
        help=lang.option_help("cli.help.open.host"),
    )
    parser.add_argument(
        "--browser",
        action="store_true",
        help=lang.option_help("cli.help.open.browser"),
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.x is not None:
        common.check_axis(args.x)
    logdir = args.logdir
    if "://" not in logdir and not os.path.isdir(logdir):
        raise common.UsageError(
            lang.tr("cli.err.notADirectory", logdir=repr(logdir))
        )
    from tb_multiframework import wiring  # noqa: PLC0415 - numpy, readers

    on_disk = wiring.build_stack(logdir, layouts=False).loader.runs_on_disk()
    tokens = _chosen(args.runs, on_disk)
    spec = logdir_spec(logdir, tokens)
    config = args.config or _default_config(logdir)
    stack = _load_spec(args, spec, config)
    runs = [r["run"] for r in stack.api.runs()["runs"]]
    metric = _metric_key(stack, args.metric) if args.metric else None
    baseline = _baseline(stack, tokens[0], runs, metric)
    command = [
        sys.executable,
        "-m",
        "tensorboard.main",
        "--logdir_spec",
        spec,
        "--host",
        args.host,
    ]
    if args.port is not None:
        command += ["--port", str(args.port)]
    if config:
        command += ["--tbmf_config", config]
    layouts = os.path.join(logdir, ".tb_multiframework")
    if "://" not in logdir and os.path.isdir(layouts):
        command += ["--tbmf_layouts_dir", layouts]
    state = {"view": "compare", "selection": encode_list(sorted(runs))}
    if metric:
        state["metric"] = metric
    if args.x and args.x != "step":
        state["axis"] = args.x
    if baseline and len(runs) > 1:
        state["baseline"] = baseline
    return _serve(args, command, state)


def encode_list(items: list[str]) -> str:
    """state.js encodeList: comma-separated, `%` and `,` escaped."""
    return ",".join(
        item.replace("%", "%25").replace(",", "%2C") for item in items
    )


def deep_link(base_url: str, state: dict[str, str]) -> str:
    """The TensorBoard URL that opens the tab in this state.

    The hash is tf_storage's: the tab id, then `key=value` items with
    `encodeURIComponent`-encoded keys and values (state.js
    formatTensorBoardHash).
    """
    items = [
        f"{_uri_component(PARENT_PREFIX + STATE_KEYS[key])}="
        f"{_uri_component(value)}"
        for key, value in state.items()
    ]
    return base_url.rstrip("/") + "/#" + "&".join([PLUGIN_ID, *items])


def _uri_component(text: str) -> str:
    """JavaScript's encodeURIComponent."""
    return quote(text, safe="-_.!~*'()")


def logdir_spec(logdir: str, tokens: list[str]) -> str:
    """`name:path,...` naming every chosen directory by its run path.

    Raises:
      UsageError: a name the spec syntax cannot carry (`,` or `:`).
    """
    entries = []
    for token in tokens:
        if _SPEC_UNSAFE.search(token) or token.startswith("/"):
            raise common.UsageError(
                f"run {token!r}: TensorBoard's --logdir_spec cannot name a "
                "run containing ',' or ':'; use tensorboard --logdir instead"
            )
        path = logdir.rstrip("/") + "/" + token if token != "." else logdir
        if "://" not in path:
            path = os.path.abspath(path)
            if "," in path:
                raise common.UsageError(
                    f"the path {path!r} contains ',', which --logdir_spec "
                    "cannot carry"
                )
        entries.append(f"{token}:{path}")
    return ",".join(entries)


def _chosen(tokens: list[str], on_disk: list[str]) -> list[str]:
    """The RUN arguments, checked, without repeats or nested ones."""
    chosen: list[str] = []
    for token in tokens:
        common.resolve_run(token, on_disk)  # raises for an unknown run
        name = token.rstrip("/") or token
        if name not in chosen:
            chosen.append(name)

    def inside(token: str, other: str) -> bool:
        return token != other and (
            other == "." or token.startswith(other + "/")
        )

    return [t for t in chosen if not any(inside(t, o) for o in chosen)]


def _default_config(logdir: str) -> str:
    path = os.path.join(logdir, ".tb_multiframework", "config.json")
    return path if "://" not in logdir and os.path.isfile(path) else ""


def _load_spec(args: argparse.Namespace, spec: str, config: str) -> Any:
    """Reads just the chosen runs, as the tab will."""
    from tb_multiframework import wiring  # noqa: PLC0415

    stack = wiring.build_stack(
        "", logdir_spec=spec, config_path=config, layouts=False
    )
    if stack.config_file.error:
        raise common.UsageError(stack.config_file.error)
    show = not args.quiet and sys.stderr.isatty()
    with common.Progress("reading the runs", enabled=show) as progress:
        stack.loader.reload(progress=progress.update)
    stack.loader.loaded_once.set()
    return stack


def _metric_key(stack: Any, token: str) -> str:
    return str(common.pick_metric(token, stack.api.metrics()["metrics"])["key"])


def _baseline(
    stack: Any, token: str, runs: list[str], metric: str | None
) -> str | None:
    """The first RUN's run: the one with the metric when it names several."""
    mine = common.resolve_run(token, runs)
    if metric is None:
        return mine[0]
    entry = next(
        m for m in stack.api.metrics()["metrics"] if m["key"] == metric
    )
    member = common.member_of(entry, mine, token)
    return member[0] if member else None


_STOP_SECONDS = 15.0  # for TensorBoard to exit after Ctrl-C, then killed


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _serve(
    args: argparse.Namespace, command: list[str], state: dict[str, str]
) -> int:
    """Runs TensorBoard; prints the link once it listens; waits for it."""
    process = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    assert process.stderr is not None
    # A `kill` of tbmf stops TensorBoard too, as Ctrl-C does.
    signal.signal(signal.SIGTERM, _interrupt)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, _interrupt)
    printed = False
    try:
        for line in process.stderr:
            match = _URL_LINE.search(line)
            if match and not printed:
                link = deep_link(match.group(1), state)
                print(link, flush=True)
                printed = True
                if args.browser:
                    webbrowser.open(link)
            elif not args.quiet:
                sys.stderr.write(line)
        code = process.wait()
    except KeyboardInterrupt:
        # What it still writes is read (a full pipe would keep it from
        # exiting) by a thread that nothing waits for: a process it started
        # may hold the pipe open after it is gone.
        threading.Thread(target=process.stderr.read, daemon=True).start()
        process.terminate()
        try:
            process.wait(timeout=_STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()  # it did not stop
            process.wait()
        return common.EXIT_INTERRUPTED
    if not printed:
        raise common.UsageError(
            f"TensorBoard exited with code {code} before it listened"
        )
    return code
