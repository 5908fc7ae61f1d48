"""User regexes: Python syntax, linear-time matching, refusals by name.

The translation to RE2 is checked differentially against Python's own `re`
on random patterns and names (seeded; TBMF_FUZZ_SEED=<n> replays): same
answer for match, search and fullmatch, same span for every group. Names
are short so that Python's backtracking stays fast. Documented differences
are kept out of the generator: `$` before a final newline, `\\b` next to
non-ASCII letters, and `\\B` on an empty name (which Python before 3.14
never matches).
"""

from __future__ import annotations

import os
import random
import re
import sys
import time

import pytest

from tb_multiframework.core import safe_regex

SEED = int(os.environ.get("TBMF_FUZZ_SEED") or random.randrange(1 << 32))
ISSUE_PATTERNS = [r"(a|aa)+$", r"(a|a)*$", r"(?:a?){30}a{30}", r"a*a*a*a*a*c"]
ATOMS = [
    "a",
    "b",
    "A",
    ".",
    "[ab]",
    "[^a]",
    r"\d",
    r"\w",
    r"\s",
    r"\W",
    "é",
    "[a-c1]",
    r"[\d_]",
    "[^b1]",
    r"\.",
    " ",
]


def _random_pattern(rng: random.Random, depth: int = 0) -> tuple[str, bool]:
    r"""A pattern, and whether its group spans are comparable: not when a
    repeat's body can match empty (`(a|b*)+`, `(\s??)+`), where Python
    stops a loop after an empty iteration and RE2 may not; both agree
    whether there is a match, not always on the spans."""
    roll = rng.random()
    if depth > 3 or roll < 0.35:
        return rng.choice(ATOMS), True
    if roll < 0.5:
        parts = [
            _random_pattern(rng, depth + 1) for _ in range(rng.randint(2, 3))
        ]
        return "".join(p for p, _ in parts), all(ok for _, ok in parts)
    if roll < 0.6:
        parts = [_random_pattern(rng, depth + 1) for _ in range(2)]
        return "|".join(p for p, _ in parts), all(ok for _, ok in parts)
    if roll < 0.75:
        inner, ok = _random_pattern(rng, depth + 1)
        shape = rng.choice(["({})", "(?:{})", f"(?P<g{depth}>{{}})"])
        return shape.format(inner), ok
    if roll < 0.9:
        body, ok = _random_pattern(rng, depth + 1)
        quant = rng.choice(["*", "+", "?", "{2}", "{1,3}", "{0,2}", "{2,}"])
        lazy = "?" if rng.random() < 0.3 else ""
        try:
            nullable = re.fullmatch(body, "") is not None or any(
                anchor in body
                for anchor in ("^", "$", "\\A", "\\Z", "\\b", "\\B")
            )
        except re.error:  # e.g. a group name used twice: refused anyway
            nullable = True
        return f"(?:{body}){quant}{lazy}", ok and not nullable
    if roll < 0.95:
        return rng.choice(["^", "$", r"\A", r"\Z", r"\b", r"\B"]), True
    # Scoped (?a:...) is left out: Python applies it to \w but not to \W.
    inner, ok = _random_pattern(rng, depth + 1)
    return f"(?{rng.choice('ism')}:{inner})", ok


def _random_name(rng: random.Random, ascii_only: bool) -> str:
    chars = "aAb1 _.\n" + ("" if ascii_only else "éÉ٣")
    name = "".join(rng.choice(chars) for _ in range(rng.randint(0, 8)))
    return name.rstrip("\n")  # `$` before a final newline differs


_NESTED_QUANTIFIER = re.compile(r"[*+?}]\)[*+?{]")


@pytest.mark.skipif(safe_regex.engine() != "re2", reason="needs google-re2")
def test_translation_agrees_with_python_re_on_random_patterns():
    print(f"seed {SEED} (TBMF_FUZZ_SEED={SEED} replays it)")
    rng = random.Random(SEED)
    checked = 0
    for _ in range(3000):
        pattern, spans_comparable = _random_pattern(rng)
        if rng.random() < 0.1:
            pattern = "(?a)" + pattern
        if _NESTED_QUANTIFIER.search(pattern):
            # Python's re, the reference, backtracks exponentially on a
            # quantified group ending in a quantifier (seed 2924831513 hung
            # the suite on "(?:(?:(?:(?:[^b1])*){2,}){0,2}?)+"); RE2 does
            # not, so the reference cannot judge it in bounded time.
            continue
        try:
            python = re.compile(pattern)
        except re.error:
            with pytest.raises(safe_regex.RegexError):
                safe_regex.compile(pattern)
            continue
        ours = safe_regex.compile(pattern)
        ascii_only = "\\b" in pattern or "\\B" in pattern
        for _ in range(8):
            name = _random_name(rng, ascii_only)
            if not name and "\\B" in pattern:
                continue  # Python < 3.14: \B never matches an empty string
            for how in ("match", "search", "fullmatch"):
                expected = getattr(python, how)(name)
                got = getattr(ours, how)(name)
                where = f"{pattern!r} {how} {name!r} (seed {SEED})"
                assert (got is None) == (expected is None), where
                assert ours.test([name], how) == [expected is not None], where
                if expected is not None and spans_comparable:
                    spans = tuple(
                        expected.span(i) for i in range(python.groups + 1)
                    )
                    assert got.spans == spans, where
                checked += 1
    assert checked > 30000


_NEW_IN_311 = ("a possessive repeat", "an atomic group")


@pytest.mark.parametrize(
    ("pattern", "words"),
    [
        (r"(a)\1", "a backreference (\\N or (?P=name)) is not supported"),
        (r"(?P<x>a)(?P=x)", "a backreference"),
        (r"a(?=b)", "a lookahead (?=...) is not supported"),
        (r"a(?!b)", "a negative lookahead (?!...) is not supported"),
        (r"(?<=a)b", "a lookbehind (?<=...) is not supported"),
        (r"(?<!a)b", "a negative lookbehind (?<!...) is not supported"),
        (r"(a)?(?(1)b|c)", "a conditional group (?(N)yes|no) is not supported"),
        (r"a*+", "a possessive repeat (*+, ++, ?+, {m,n}+) is not supported"),
        (r"(?>a+)b", "an atomic group (?>...) is not supported"),
        (r"a{1001}", "a repeat count above 1000 (1001)"),
        (r"[^\Wa]", "a negated set holding \\D, \\W or \\S"),
        (r"(unclosed", "missing ), unterminated subpattern at position 0"),
        # A logged layout may hold any pattern: parsing is bounded too.
        ("a" * 1001, "regex of 1001 characters, more than 1000"),
        ("(" * 400 + ")" * 400, "groups nested too deeply"),
    ],
)
def test_refusals_name_the_construct(pattern, words):
    with pytest.raises(safe_regex.RegexError) as raised:
        safe_regex.compile(pattern)
    if sys.version_info < (3, 11) and words.startswith(_NEW_IN_311):
        # Python 3.10's re has no possessive repeats or atomic groups: its
        # own parse error refuses them first, which is what matters.
        assert raised.value.message.startswith(
            ("multiple repeat", "unknown extension ?>")
        ), raised.value.message
        return
    assert words in raised.value.message
    if "position" in words:
        assert raised.value.position == 0


@pytest.mark.skipif(safe_regex.engine() != "re2", reason="needs google-re2")
def test_issue_patterns_take_linear_time_on_10000_character_names():
    names = ["a" * 10_000, "a" * 9_999 + "c", "a" * 10_000 + "b"]
    for pattern in ISSUE_PATTERNS:
        compiled = safe_regex.compile(pattern)
        started = time.perf_counter()
        for how in ("match", "search", "fullmatch"):
            compiled.test(names, how)
        elapsed = time.perf_counter() - started
        assert elapsed < 0.1, f"{pattern}: {elapsed * 1000:.1f} ms"
    # And the answers are Python's (on names short enough for Python).
    for pattern in ISSUE_PATTERNS:
        for name in ("a" * 12, "a" * 11 + "c", "a" * 12 + "b"):
            assert safe_regex.compile(pattern).test([name], "match") == [
                re.match(pattern, name) is not None
            ]


def test_expand_reads_templates_as_python_does():
    found = safe_regex.compile(r"(?P<name>\w+)/(top(\d))?(x)?").fullmatch(
        "acc/top1"
    )
    python = re.fullmatch(r"(?P<name>\w+)/(top(\d))?(x)?", "acc/top1")
    for template in [r"\1/accuracy", r"\g<name>_\3", r"\g<2>-\4-", r"\\1\n\t"]:
        assert found.expand(template) == python.expand(template), template
    for bad in [r"\5", r"\g<nope>", r"\q"]:
        with pytest.raises((re.error, IndexError)) as expected:
            python.expand(bad)
        with pytest.raises(expected.type):
            found.expand(bad)


def test_the_python_fallback_refuses_a_slow_pattern_within_its_budget(
    monkeypatch,
):
    """Without google-re2, Python's re runs in a worker with a time budget:
    `(a|aa)+$` on 41 `a`s (14-25 s in re) is cut off and refused."""
    monkeypatch.setenv("TBMF_REGEX_ENGINE", "python")
    pattern = r"(a|aa)+$"
    compiled = safe_regex.compile(pattern)
    assert compiled.test(["aaab", "aa"], "match") == [False, True]
    started = time.perf_counter()
    with pytest.raises(safe_regex.RegexError) as raised:
        compiled.test(["a" * 41 + "b"], "match")
    elapsed = time.perf_counter() - started
    assert elapsed < safe_regex.BUDGET_SECONDS + 0.5
    assert "took longer than 0.5 s" in raised.value.message
    with pytest.raises(safe_regex.RegexError):
        safe_regex.compile(pattern)  # refused from now on
    # A new worker answers the next pattern.
    other = safe_regex.compile(r"(?P<q>.*)/top1")
    assert (
        other.fullmatch("acc/top1").expand(r"\g<q>/accuracy") == "acc/accuracy"
    )
    safe_regex._WORKER.too_slow.pop(pattern)


def test_the_plugin_imports_and_matches_without_google_re2():
    """google-re2 is an optional extra: without it the entry point still
    imports and regexes run on the fallback engine."""
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['re2'] = None\n"
        "import tb_multiframework.plugin\n"
        "from tb_multiframework.core import safe_regex\n"
        "r = safe_regex.compile(r'(?P<q>\\w+)/top1')\n"
        "print(safe_regex.engine(), r.fullmatch('acc/top1').expand(r'\\g<q>'))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "TBMF_REGEX_ENGINE"}
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=120,
    ).stdout
    assert out.split() == ["python", "acc"]
