"""Message catalogs: the text users read, in English and Simplified Chinese.

The bottom layer: it imports nothing of the package, and anything may import
it. The catalogs are JSON files (`catalogs/<lang>.json`, a flat map of message
id → text) shared by the server, the `tbmf` CLI and the tab (which fetches
them through `GET i18n`).

Texts hold `{name}` placeholders and nothing else: no ICU plurals, selects
or number formats. Plural-free by design: every message is written so that
one form reads right for any count ("runs: 3", "3 个运行"), which Chinese
needs anyway and English tolerates; numbers are formatted by the caller
(the tab with `Intl`) before they are put in.
"""

from __future__ import annotations

import functools
import json
import os
import re
import types
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: Languages with a complete catalog, the default first.
LANGUAGES = ("en", "zh-CN")
DEFAULT_LANG = "en"

_CATALOG_DIR = Path(__file__).resolve().parent / "catalogs"
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
# Environment variables naming the user's locale, in POSIX precedence.
_LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")


def normalize_lang(value: str | None) -> str | None:
    """A supported language for a language tag or POSIX locale, or None.

    `zh`, `zh-CN`, `zh_CN.UTF-8`, `zh-Hans`, `zh_TW` → `zh-CN` (the one
    Chinese catalog); `en`, `en_US.UTF-8`, `C`, `POSIX` → `en`; anything
    else (including an empty value) → None.
    """
    if not value:
        return None
    tag = value.split(".")[0].split("@")[0].replace("_", "-").lower()
    if tag == "zh" or tag.startswith("zh-"):
        return "zh-CN"
    if tag in ("en", "c", "posix") or tag.startswith("en-"):
        return "en"
    return None


def lang_from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The language of the POSIX locale (`LC_ALL`, `LC_MESSAGES`, `LANG`).

    The first variable that is set decides, as for any POSIX program; a
    locale without a catalog is English.
    """
    env = os.environ if environ is None else environ
    for name in _LOCALE_VARIABLES:
        if env.get(name):
            return normalize_lang(env[name]) or DEFAULT_LANG
    return DEFAULT_LANG


@functools.cache
def catalog(lang: str) -> Mapping[str, str]:
    """The messages of one supported language (id → text), read once.

    Raises:
        ValueError: `lang` is not one of LANGUAGES.
    """
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; one of {LANGUAGES}")
    return _read_catalog(lang)


@functools.cache
def _read_catalog(lang: str) -> Mapping[str, str]:
    path = _CATALOG_DIR / f"{lang}.json"
    with path.open(encoding="utf-8") as f:
        return types.MappingProxyType(dict(json.load(f)))


def messages(lang: str) -> dict[str, str]:
    """Every message of `lang`, an English text where `lang` lacks one."""
    merged = dict(catalog(DEFAULT_LANG))
    merged.update(catalog(lang))
    return merged


def fill(text: str, params: Mapping[str, Any] | None = None) -> str:
    """`text` with each `{name}` replaced by `params[name]`.

    A placeholder without a parameter stays as written, so a missing
    parameter shows instead of vanishing.
    """
    if not params:
        return text
    return _PLACEHOLDER.sub(
        lambda m: (
            str(params[m.group(1)]) if m.group(1) in params else m.group(0)
        ),
        text,
    )


def t(
    key: str,
    params: Mapping[str, Any] | None = None,
    *,
    lang: str = DEFAULT_LANG,
) -> str:
    """The message `key` in `lang` (else English, else the key itself)."""
    text = catalog(lang).get(key)
    if text is None:
        text = catalog(DEFAULT_LANG).get(key, key)
    return fill(text, params)


def message(key: str, **params: Any) -> dict[str, Any]:
    """A message for the wire: `{"id": key, "params": {...}}`.

    Parameters must be JSON values (strings, numbers, booleans, None).
    """
    return {"id": key, "params": params}
