"""Strict JSON: depth checked before parsing, non-JSON refused by name.

`nesting_depth` is checked differentially against a character-by-character
lexer written here, on random texts (seed printed), and against the depth of
the parsed value for random valid JSON.
"""

import json
import os
import random

import pytest

from tb_multiframework.core import strict_json


def _reference_depth(data: bytes) -> int:
    """The same lexer, one character at a time: a quote after an odd run of
    backslashes is escaped, any other opens or closes a string; brackets
    count outside strings."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in data:
        if byte == 0x5C:
            escaped = not escaped
            continue
        was_escaped, escaped = escaped, False
        if byte == 0x22:
            in_string ^= not was_escaped
        elif not in_string and byte in b"[{":
            depth += 1
            deepest = max(deepest, depth)
        elif not in_string and byte in b"]}":
            depth -= 1
    return deepest


def _value_depth(value) -> int:
    if isinstance(value, list):
        return 1 + max(map(_value_depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(_value_depth, value.values()), default=0)
    return 0


def _random_value(rng: random.Random, depth: int):
    roll = rng.random()
    if depth > 12 or roll < 0.3:
        return "".join(
            rng.choice('[]{}"\\ab\n') for _ in range(rng.randrange(6))
        )
    if roll < 0.4:
        return rng.choice([None, True, 1, -2.5])
    if roll < 0.7:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {
        _random_value(rng, 99): _random_value(rng, depth + 1)
        for _ in range(rng.randrange(4))
    }


@pytest.fixture
def rng():
    seed = int(os.environ.get("TBMF_FUZZ_SEED", random.randrange(1 << 32)))
    print(f"seed {seed} (TBMF_FUZZ_SEED={seed} replays it)")
    return random.Random(seed)


def test_depth_matches_a_reference_lexer_on_random_text(rng):
    for _ in range(3000):
        data = bytes(rng.choice(b'[]{}"\\a ') for _ in range(rng.randrange(40)))
        assert strict_json.nesting_depth(data) == _reference_depth(data), data


def test_depth_of_valid_json_is_the_values_depth(rng):
    for _ in range(1000):
        value = _random_value(rng, 0)
        text = json.dumps(value, ensure_ascii=rng.random() < 0.5)
        assert strict_json.nesting_depth(text.encode()) == _value_depth(value)
        assert strict_json.loads(text) == value


def test_depth_check_is_linear_on_hostile_text():
    # A regex that strips strings goes quadratic on unterminated ones.
    for data in (b'"\\' * 250_000, b"[" * 500_000, b'"' * 500_000):
        assert strict_json.nesting_depth(data) == _reference_depth(data)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[" * 65 + "]" * 65, "nested 65 levels deep; at most 64"),
        ("[" * 100_000, "nested 100000 levels"),
        ("[NaN]", "NaN is not a JSON value"),
        ("[-Infinity]", "-Infinity is not a JSON value"),
        ("[1e400]", "number 1e400 is out of range"),
        ("[" + "1" * 31 + "]", "integer of 31 digits"),
        ('{"a": 1, "a": 2}', "duplicate key 'a'"),
        (b'["\xc3"]', "not UTF-8"),
        ("[1,]", "not JSON"),
    ],
)
def test_refused(text, words):
    with pytest.raises(strict_json.JsonError, match=None) as raised:
        strict_json.loads(text)
    assert words in str(raised.value)


def test_accepted_at_the_limits():
    assert strict_json.loads("[" * 64 + "]" * 64) is not None
    assert strict_json.loads("[" + "9" * 30 + ', -1e308, "[\\"{"]') == [
        int("9" * 30),
        -1e308,
        '["{',
    ]
