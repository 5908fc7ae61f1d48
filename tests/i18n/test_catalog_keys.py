"""Both catalogs hold the same keys, every key is used, every key used exists.

Keys are found in the sources as quoted strings that start with one of the
catalogs' namespaces (`"hist.pair.swap"`, `t("layouts.saved", ...)`,
`say("anomaly.explosion", ...)`). A key built at run time is a template
(`\\`axis.${id}\\``, `f"anomaly.drift.{name}{...}"`) or a prefix
(`"anomaly.rank."`): it must match at least one key, and the keys it
matches count as used.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CATALOGS = REPO / "tb_multiframework" / "i18n" / "catalogs"
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
# A quoted string with an optional f prefix, one pattern a quote character
# (so a key in '...' inside an f"..." string is found too); backticks are
# JS template literals, in Python they are only docs. An empty string is
# one too, so that `["", "key"]` is not read as the string `", "`.

QUOTES = {".py": "\"'", ".js": "\"'`"}


def _quoted(quote: str) -> re.Pattern[str]:
    q = re.escape(quote)
    return re.compile(rf"(\bf)?{q}((?:(?!{q})[^\\\n])*){q}")


def _catalog(lang):
    return json.loads((CATALOGS / f"{lang}.json").read_text("utf-8"))


EN, ZH = _catalog("en"), _catalog("zh-CN")
NAMESPACES = {key.split(".")[0] for key in EN}


def _sources():
    yield from (REPO / "frontend").rglob("*.js")
    yield from (REPO / "tb_multiframework").rglob("*.py")


def _references():
    """(file, pattern, exact) for every catalog key named in the sources."""
    out = []
    for path in _sources():
        if "vendor" in path.parts:
            continue
        source = path.read_text("utf-8")
        matches = [
            m
            for quote in QUOTES[path.suffix]
            for m in _quoted(quote).finditer(source)
        ]
        for m in matches:
            text = m.group(2)
            head = re.split(r"[.{$]", text, maxsplit=1)[0]
            bare = re.sub(r"\$?\{[^}]*\}", "", text)
            if (
                head not in NAMESPACES
                or "." not in text
                or re.search(r"[\s<]", bare)
                or bare.endswith((".json", ".js"))
            ):
                continue
            dynamic = "${" in text or (m.group(1) and "{" in text)
            if dynamic:
                parts = re.split(r"\$\{[^}]*\}|\{[^}]*\}", text)
                pattern = ".*".join(re.escape(p) for p in parts)
            elif text.endswith("."):
                pattern = re.escape(text) + ".+"
            else:
                pattern = re.escape(text)
            exact = not dynamic and not text.endswith(".")
            out.append((path.relative_to(REPO), pattern, exact, text))
    return out


REFERENCES = _references()


def test_both_catalogs_have_the_same_keys():
    assert sorted(set(EN) - set(ZH)) == [], "missing in zh-CN"
    assert sorted(set(ZH) - set(EN)) == [], "missing in en"


def test_every_text_has_the_same_placeholders_in_both():
    differ = {
        key: (EN[key], ZH[key])
        for key in EN
        if set(PLACEHOLDER.findall(EN[key]))
        != set(PLACEHOLDER.findall(ZH.get(key, "")))
    }
    assert not differ, differ


def test_chinese_texts_are_chinese():
    # A text left in English in the zh-CN catalog: no CJK character in a
    # text that has words (names, symbols and the language's own name aside).
    cjk = re.compile(r"[\u3000-\u30ff\u4e00-\u9fff\uff00-\uffef]")
    same = [
        key
        for key, text in ZH.items()
        if re.search(r"[A-Za-z]{3,}", PLACEHOLDER.sub("", text))
        and not cjk.search(text)
        and key not in {"shell.language"}
        and not key.startswith("hist.distance.")
    ]
    assert not same, same


def test_every_key_named_in_the_sources_exists():
    missing = [
        f"{path}: {text}"
        for path, pattern, exact, text in REFERENCES
        if not any(re.fullmatch(pattern, key) for key in EN)
    ]
    assert not missing, "\n".join(missing)


def test_every_key_is_used():
    patterns = [re.compile(pattern) for _, pattern, _, _ in REFERENCES]
    orphans = [
        key for key in EN if not any(p.fullmatch(key) for p in patterns)
    ]
    assert not orphans, orphans


def test_the_scanner_finds_what_it_must():
    """The scan itself: a literal, a JS template and an f-string template."""
    texts = {text for _, _, _, text in REFERENCES}
    assert "shell.tab.histograms" in texts
    assert "axis.${model.axis}" in texts
    assert any(t.startswith("anomaly.drift.{name}") for t in texts)


# The frontend files whose user-facing texts all come from the catalogs.
CONVERTED = [
    "frontend/app.js",
    "frontend/anomalies.js",
    "frontend/anomalylayer.js",
    "frontend/format.js",
    "frontend/intl.js",
    "frontend/keyboard.js",
    "frontend/views/compare.js",
    "frontend/views/histograms.js",
    "frontend/views/layouts.js",
    *sorted(
        str(p.relative_to(REPO))
        for p in (REPO / "frontend" / "components").glob("*.js")
    ),
    "frontend/views/runs.js",
    "frontend/views/metrics.js",
    "frontend/colors.js",
    "frontend/filter.js",
    *sorted(
        str(p.relative_to(REPO))
        for folder in ("compare", "histograms", "layouts", "metrics", "runs")
        for p in (REPO / "frontend" / "views" / folder).glob("*.js")
    ),
]

# A property that puts its value in front of the user.
_SHOWN = re.compile(
    r"""(?:\btext|\btitle|\blabel|\bplaceholder|"aria-label"|emptyText|"""
    r"""\bmessage|\bconfirm|\bcancel)\s*:\s*(["'`])([^"'`\n]*)\1"""
)


def _code(path):
    """A JS file without its comments (line numbers kept)."""
    text = (REPO / path).read_text("utf-8")
    text = re.sub(
        r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S
    )
    return re.sub(r"(^|[^:\"'`\\])//[^\n]*", r"\1", text)


# Literals of the converted files that the user never reads as text:
# console messages, CSS selectors and values, font names, and the names of
# trainers (products, not translated).
_NOT_TEXT = re.compile(
    r"^tb_multiframework: |^:|> button$|-gradient\(|sans-serif|^Helvetica Neue$"
    r"|^(HF Trainer|Keras fit|Paddle hapi)$"
)
# Code before a literal that makes it a value of the API or a selector.
_NOT_SHOWN_AFTER = ("=== ", "!== ", "closest(", "querySelector(")


def test_no_english_literal_in_the_converted_views():
    """A sentence (two words or more), or a word given to a property the
    user reads (text, title, label, ...), written in the code instead of
    coming from the catalogs."""
    found = []
    for path in CONVERTED:
        code = _code(path)
        for quote in "\"'`":
            for m in _quoted(quote).finditer(code):
                if code[m.end() : m.end() + 1] == ":" or code[
                    : m.start()
                ].endswith(_NOT_SHOWN_AFTER):
                    continue  # an object's key, an API value, a selector
                text = re.sub(r"\$\{[^}]*\}", "", m.group(2))
                words = re.findall(r"(?<![\w.-])[A-Za-z]{2,}(?![\w.-])", text)
                if (

                    len(words) >= 2
                    and " " in text
                    and "tbmf" not in text
                    and not _NOT_TEXT.search(text)
                ):

                    if not text.startswith("translate("):
                        found.append(f"{path}: {m.group(2)}")
        for m in _SHOWN.finditer(code):
            if re.search(r"[A-Za-z]{2,}", re.sub(r"\$\{[^}]*\}", "", m.group(2))):
                found.append(f"{path}: {m.group(0)}")
    assert not found, "\n".join(found)
