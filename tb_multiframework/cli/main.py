"""`tbmf`: argument parsing and dispatch to one module per command.

Exit codes: 0 done (a check passed), 1 a check failed or anomalies of a
listed kind were found, 2 a usage error (unknown run, metric or axis, a
missing file, a malformed argument), 3 a dependency missing or of a version
that does not work, 130 interrupted. A user mistake or a broken install is
one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from tb_multiframework import __version__
from tb_multiframework.cli import (
    anomalies,
    check,
    diff,
    export,
    lang,
    list_runs,
    open_tb,
    report,
)
from tb_multiframework.cli.common import (
    EXIT_BROKEN,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    UsageError,
    printable,
)
from tb_multiframework.cli.textfmt import TerminalText

COMMANDS = (list_runs, diff, export, report, check, anomalies, open_tb)


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors, like every other usage error."""

    def error(self, message: str) -> NoReturn:  # noqa: D102
        self.exit(
            EXIT_USAGE,
            lang.tr("cli.usageError", message=message, prog=self.prog) + "\n",
        )


def build_parser() -> argparse.ArgumentParser:
    """The parser, its texts in the language `lang.use` chose."""
    parser = _Parser(
        prog="tbmf",
        description=lang.tr("cli.help.main.description"),
        epilog=lang.tr("cli.help.main.epilog"),
        formatter_class=lang.HelpFormatter,
        add_help=False,
    )
    lang.add_help_option(parser)
    parser.add_argument(
        "--version",
        action="version",
        version=f"tbmf {__version__}",
        help=lang.option_help("cli.help.main.version"),
    )
    commands = parser.add_subparsers(
        dest="command", metavar="COMMAND", required=True
    )
    for module in COMMANDS:
        module.register(commands)
    lang.add_option(parser, top=True)
    for command in commands.choices.values():
        lang.add_option(command, top=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs one command; returns its exit code."""
    if argv is None:
        argv = sys.argv[1:]
    # The language of --help and of argparse's own errors: --lang as
    # written on the command line, else the locale.
    lang.use(argparse.Namespace(lang=lang.from_argv(argv)))
    parser = build_parser()
    args = parser.parse_args(argv)
    lang.use(args)
    try:
        broken = _broken_dependency()
    except KeyboardInterrupt:
        print("tbmf: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    if broken:
        print(f"tbmf: cannot run: {printable(broken)}", file=sys.stderr)
        return EXIT_BROKEN
    if sys.stdout.isatty() and not isinstance(sys.stdout, TerminalText):
        sys.stdout = TerminalText(sys.stdout)
    try:
        return int(args.handler(args))
    except UsageError as error:
        return _usage_error(str(error))
    except (LookupError, ValueError) as error:
        # The api raises NotFound for an unknown name and ValueError for a
        # bad argument (the routes' 404 and 400); any other lookup error is
        # a bug and keeps its traceback.
        api = sys.modules.get("tb_multiframework.api.service")
        if isinstance(error, LookupError) and not (
            api is not None and isinstance(error, api.NotFound)
        ):
            raise
        return _usage_error(str(error.args[0] if error.args else error))
    except KeyboardInterrupt:
        print(lang.tr("cli.interrupted"), file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader (`| head`) left: stop quietly, also at exit's flush.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


def _broken_dependency() -> str:
    """Why the reading stack cannot be imported, or "" when it can.

    Commands import it lazily (so that `--help` is fast); importing it here
    first turns a missing or incompatible dependency into one line instead
    of a traceback in the middle of a command.
    """
    try:
        import tb_multiframework.api.service  # noqa: F401, PLC0415
        import tb_multiframework.wiring  # noqa: F401, PLC0415
    except Exception as error:  # noqa: BLE001 - any import failure
        reinstall = (
            f'"{sys.executable}" -m pip install --upgrade tb-multiframework'
        )
        if isinstance(error, ModuleNotFoundError):
            what = f"the package {error.name!r} is not installed"
        else:
            what = "a dependency does not work (most likely its version)"
        return (
            f"{what}: {type(error).__name__}: {error}; to fix it: {reinstall}"
        )
    return ""


def _usage_error(message: str) -> int:
    print(lang.tr("cli.error", message=printable(message)), file=sys.stderr)
    return EXIT_USAGE


def entry_point() -> None:
    """The `tbmf` console script."""
    sys.exit(main())


if __name__ == "__main__":
    entry_point()
