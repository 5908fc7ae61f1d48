"""The language of `tbmf`'s messages and report cards.

`--lang en|zh-CN` (before or after the command), else the POSIX locale
(`LC_ALL`, `LC_MESSAGES`, `LANG`: `zh_*` → zh-CN), else English. The texts
are the catalogs the tab uses (`tb_multiframework/i18n`). Names from the
logs, numbers and the API's own error texts are not translated.
"""

from __future__ import annotations

import argparse
from typing import Any

from tb_multiframework import i18n

_current = i18n.DEFAULT_LANG


def add_option(parser: argparse.ArgumentParser, *, top: bool) -> None:
    """Adds `--lang` (on a command's parser it does not reset the value
    given before the command)."""
    parser.add_argument(
        "--lang",
        choices=i18n.LANGUAGES,
        default=None if top else argparse.SUPPRESS,
        help="language of messages and reports (default: from the locale, "
        "LANG=zh_CN.UTF-8 → zh-CN; else en)",
    )


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
