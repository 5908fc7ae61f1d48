"""The language of `tbmf`'s messages and report cards.

`--lang en|zh-CN` (before or after the command), else the POSIX locale
(`LC_ALL`, `LC_MESSAGES`, `LANG`: `zh_*` → zh-CN), else English. The texts
are the catalogs the tab uses (`tb_multiframework/i18n`). Names from the
logs, numbers and the API's own error texts are not translated.

`--help` is in that language too: `main` reads `--lang` from the command
line (`from_argv`) before it builds the parser, whose texts come from the
catalogs (`cli.help.*`).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from tb_multiframework import i18n
from tb_multiframework.cli.textfmt import display_width

_current = i18n.DEFAULT_LANG


def add_option(parser: argparse.ArgumentParser, *, top: bool) -> None:
    """Adds `--lang` (on a command's parser it does not reset the value
    given before the command)."""
    parser.add_argument(
        "--lang",
        choices=i18n.LANGUAGES,
        default=None if top else argparse.SUPPRESS,
        help=option_help("cli.help.common.lang"),
    )


def from_argv(argv: Sequence[str]) -> str | None:
    """The language `--lang X` or `--lang=X` names in `argv` (the last one,
    as argparse keeps the last), or None; read before the parser exists."""
    found = None
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        if arg.startswith("--lang="):
            value: str | None = arg.split("=", 1)[1]
        elif arg == "--lang":
            value = argv[i + 1] if i + 1 < len(argv) else None
        else:
            continue
        if value in i18n.LANGUAGES:
            found = value
    return found


def use(args: argparse.Namespace) -> str:
    """Sets the language from the arguments or the locale; returns it."""
    global _current
    _current = getattr(args, "lang", None) or i18n.lang_from_environment()
    return _current


def language() -> str:
    """The language chosen (`en` until `use` runs)."""
    return _current


def tr(key: str, **params: Any) -> str:
    """The catalog message `key` in the chosen language."""
    return i18n.t(key, params, lang=_current)


def option_help(key: str, **params: Any) -> str:
    """An option's `help=` from the catalog: argparse formats it with `%`,
    so a literal % of the text is doubled."""
    return tr(key, **params).replace("%", "%%")


def add_help_option(parser: argparse.ArgumentParser) -> None:
    """`-h/--help` and the section titles in the chosen language (the
    parser is made with `add_help=False`)."""
    parser.add_argument(
        "-h",
        "--help",
        action="help",
        help=option_help("cli.help.common.help"),
    )
    # argparse names its two sections itself; nothing else can rename them.
    parser._positionals.title = tr("cli.help.positionals")
    parser._optionals.title = tr("cli.help.options")


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """argparse's layout (descriptions and epilogs as written), its
    `usage: ` from the catalog, and help wrapped by display width where
    the text has wide characters (a CJK character takes two columns)."""

    def _format_usage(
        self,
        usage: str | None,
        actions: Any,
        groups: Any,
        prefix: str | None,
    ) -> str:
        if prefix is None:
            prefix = tr("cli.help.usage")
        # argparse indents the usage's next lines by len(prefix): a stand-in
        # as wide as the prefix on screen keeps them under the first.
        stand_in = "\0" * display_width(prefix)
        text = super()._format_usage(usage, actions, groups, stand_in)
        return text.replace(stand_in, prefix, 1)

    def _split_lines(self, text: str, width: int) -> list[str]:
        if display_width(text) == len(text):
            return super()._split_lines(text, width)
        return wrap_wide(text, width)


# Punctuation that never starts a line, and that never ends one.
_CLOSING = frozenset("，。、；：！？）》」』】”’")
_OPENING = frozenset("（《「『【“‘")


def wrap_wide(text: str, width: int) -> list[str]:
    """`text` in lines at most `width` columns wide, broken between words
    or wide characters (closing punctuation may hang over, opening
    punctuation moves to the next line); runs of spaces collapse, as
    argparse's own wrapping does."""
    lines: list[str] = []
    line = ""
    for token in _tokens(" ".join(text.split())):
        if token == " ":
            line += " " if line else ""
        elif (
            display_width(line + token) <= width
            or not line.strip()
            or token in _CLOSING
        ):
            line += token
        else:
            carried = line[-1] if line[-1] in _OPENING else ""
            lines.append(line[: len(line) - len(carried)].rstrip())
            line = carried + token
    if line.strip():
        lines.append(line.rstrip())
    return lines


def _tokens(text: str) -> list[str]:
    """Words of narrow characters, single wide characters and spaces."""
    tokens: list[str] = []
    word = ""
    for ch in text:
        if ch == " " or display_width(ch) == 2:
            tokens += [word, ch] if word else [ch]
            word = ""
        else:
            word += ch
    return tokens + [word] if word else tokens


def term(prefix: str, name: str) -> str:
    """The message `prefix + name` (`"axis." + "step"`), or `name` itself
    when there is none (names made from the logs, like the column `hp:lr`)."""
    key = prefix + name
    return tr(key) if key in i18n.catalog(i18n.DEFAULT_LANG) else name


def heading(title: str) -> str:
    """A table column's header in the chosen language."""
    return term("cli.col.", title)


def server_text(message: dict[str, Any] | None, english: str) -> str:
    """A server-made text (`{"id", "params"}` beside its English) in the
    chosen language; the English when the id has no message."""
    if (
        isinstance(message, dict)
        and isinstance(message.get("id"), str)
        and message["id"] in i18n.catalog(i18n.DEFAULT_LANG)
    ):
        return tr(message["id"], **(message.get("params") or {}))
    return english
