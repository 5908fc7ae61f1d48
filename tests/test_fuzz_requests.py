"""Random malformed requests: no route answers 500, every answer is JSON.

Seeded and reproducible: the seed is printed, and `TBMF_FUZZ_SEED=<n>`
replays a run. GET requests take random arguments from a hostile corpus;
POST bodies are mutations of a valid layout (wrong types anywhere, huge
numbers, duplicates, `NaN` literals, deep nesting, non-UTF-8 bytes, cut
text). A failure message names the request, so it can be replayed alone.
"""

from __future__ import annotations

import json
import os
import random
import urllib.parse

import pytest

from tests.conftest import make_client

BASE = "/data/plugin/tb_multiframework"
JSON_HEADERS = {"Content-Type": "application/json", "X-XSRF-Protected": "1"}
GET_CASES = 2500  # random GET requests
POST_CASES = 3000  # random POST bodies

GET_ROUTES = {
    "/runs": [],
    "/metrics": [],
    "/scalars": [
        "run",
        "tag",
        "metric",
        "x",
        "smoothing",
        "smoothingMode",
        "points",
        "baseline",
        "diffMode",
        "xMin",
        "xMax",
    ],
    "/export": [
        "run",
        "tag",
        "metric",
        "x",
        "smoothing",
        "format",
        "xMin",
        "xMax",
    ],
    "/histograms": ["run", "tag", "x"],
    "/histogram_diff": ["runA", "tagA", "runB", "tagB", "x", "at", "bins"],
    "/histogram_distances": ["runA", "tagA", "runB", "tagB", "x", "bins"],
    "/histogram_pairs": ["runA", "runB"],
    "/layouts": ["name"],
    "/static/x": [],
}
RUNS = ["pytorch_sgd", "paddle_vdl", "keras_fit/train", "tf2_loop"]
TAGS = ["Loss/train", "epoch_loss", "weights/fc1.weight", "Params/fc1.weight"]
HOSTILE_TEXT = [
    "",
    " ",
    "0",
    "-1",
    "-0",
    "1e309",
    "-1e309",
    "nan",
    "NaN",
    "inf",
    "-Infinity",
    "1" * 5000,
    "0x10",
    "1_000",
    "2.5",
    "99999999999999999999",
    "step",
    "epoch",
    "wall",
    "csv",
    "json",
    "ema",
    "time",
    "ratio",
    "loss/train@batch",
    "loss/train@epoch",
    "../../etc/passwd",
    "%00",
    "\x00",
    "\u202e",
    "<script>",
    "'",
    '"',
    "\\",
    "(a|aa)+$",
    "a" * 5000,
    "é" * 100,
    "\ud800",
    "[",
    "{}",
    "null",
    "true",
    "=1+1",
]
VALID_LAYOUT = {
    "name": "fuzz",
    "categories": [
        {
            "title": "losses",
            "closed": False,
            "charts": [
                {
                    "title": "loss",
                    "kind": "multiline",
                    "tags": ["Loss/.*", "epoch_loss"],
                    "runs": "p.*",
                    "x": "step",
                    "smoothing": 0.6,
                    "logY": False,
                },
                {
                    "title": "margin",
                    "kind": "margin",
                    "series": [{"value": "a", "lower": "b", "upper": "c"}],
                },
            ],
        }
    ],
}
ODD_VALUES = [
    None,
    True,
    False,
    0,
    -1,
    1.5,
    -0.0,
    10**30,
    "",
    "x" * 600,
    [],
    {},
    [None],
    {"": None},
    "\u0000",
    "\ud800",
    "(a|aa)+$",
    "(a)\\1",
    "[",
    float("nan"),
    float("inf"),
    1e308,
    [[[[[[[[]]]]]]]],
]


def _seed() -> int:
    return int(os.environ.get("TBMF_FUZZ_SEED", random.randrange(1 << 32)))


def _check(response, what: str) -> None:
    status = response.status_code
    text = response.get_data()
    assert (
        status != 500 and status < 600
    ), f"{status} for {what}: {text[:300]!r}"
    if what.startswith("GET /static"):
        return
    if status == 200 and response.mimetype == "text/csv":
        assert what.startswith("GET /export"), what
        return
    assert response.mimetype == "application/json", f"{status} {what}"
    body = json.loads(text)
    if status >= 400:
        assert isinstance(body.get("error"), str) and body["error"], what


@pytest.fixture(scope="module")
def fuzz_client(tmp_path_factory):
    import shutil

    from tests.conftest import DEMO_LOGS

    target = tmp_path_factory.mktemp("fuzz") / "demo_logs"
    shutil.copytree(DEMO_LOGS, target)
    client, _ = make_client(str(target))
    return client


def _random_value(rng: random.Random) -> str:
    pick = rng.random()
    if pick < 0.3:
        return rng.choice(RUNS + TAGS)
    if pick < 0.8:
        return rng.choice(HOSTILE_TEXT)
    return "".join(
        chr(rng.randrange(1, 0x3000)) for _ in range(rng.randrange(1, 20))
    )


def test_random_get_requests_never_answer_500(fuzz_client):
    seed = _seed()
    print(f"fuzz seed {seed} (TBMF_FUZZ_SEED={seed} replays it)")
    rng = random.Random(seed)
    for case in range(GET_CASES):
        route = rng.choice(sorted(GET_ROUTES))
        names = GET_ROUTES[route] + ["junk"]
        pairs = [
            (rng.choice(names), _random_value(rng))
            for _ in range(rng.randrange(0, 8))
        ]
        query = urllib.parse.urlencode(pairs, errors="surrogatepass")
        if rng.random() < 0.05:
            query += "&%ZZ=%E0%A4&run=%FF"  # broken percent-encoding
        method = "GET" if rng.random() < 0.95 else rng.choice(["PUT", "PATCH"])
        response = fuzz_client.open(f"{BASE}{route}?{query}", method=method)
        _check(response, f"{method} {route}?{query} (case {case})")


def _mutate(rng: random.Random, node):
    """A copy of `node` with one random place replaced by an odd value."""
    if isinstance(node, dict) and node and rng.random() < 0.8:
        key = rng.choice(sorted(node))
        out = dict(node)
        roll = rng.random()
        if roll < 0.1:
            del out[key]
        elif roll < 0.2:
            out[rng.choice(["junk", "readOnly", "source", "warnings"])] = (
                rng.choice(ODD_VALUES)
            )
        else:
            out[key] = _mutate(rng, node[key])
        return out
    if isinstance(node, list) and node and rng.random() < 0.8:
        out = list(node)
        i = rng.randrange(len(out))
        if rng.random() < 0.15:
            out = out * rng.choice([2, 60])
        else:
            out[i] = _mutate(rng, out[i])
        return out
    return rng.choice(ODD_VALUES)


def _deep(depth: int, rng: random.Random) -> str:
    opener, closer = rng.choice([("[", "]"), ('{"a":', "}")])
    inner = rng.choice(["1", '"x"', "null", "[]"])
    return opener * depth + inner + closer * depth


def _random_body(rng: random.Random) -> bytes:
    roll = rng.random()
    envelope = {"layout": _mutate(rng, VALID_LAYOUT)}
    if rng.random() < 0.2:
        envelope["previousName"] = rng.choice(ODD_VALUES + ["fuzz"])
    if rng.random() < 0.2:
        envelope["overwrite"] = rng.choice(ODD_VALUES)
    if roll < 0.5:
        return json.dumps(envelope).encode("utf-8", "surrogatepass")
    if roll < 0.6:  # deep nesting, at the top or inside the layout
        depth = rng.choice([65, 100, 962, 963, 1000, 5000, 100_000])
        deep = _deep(depth, rng)
        if rng.random() < 0.5:
            return deep.encode()
        return (json.dumps(envelope)[:-1] + f', "x": {deep}}}').encode()
    text = json.dumps(envelope)
    if roll < 0.65:  # huge numbers
        return text.replace(
            "0.6",
            rng.choice(
                [
                    "1e999",
                    "-1e999",
                    "9" * 5000,
                    "1" * 31,
                    "0." + "0" * 400 + "1",
                ]
            ),
        ).encode()
    if roll < 0.7:  # NaN literals
        return text.replace(
            "0.6", rng.choice(["NaN", "Infinity", "-Infinity"])
        ).encode()
    if roll < 0.75:  # duplicate keys
        return text.replace(
            '"title": "loss"', '"title": "loss", "title": "x"'
        ).encode()
    if roll < 0.8:  # non-UTF-8 bytes, BOM, NUL
        raw = bytearray(text.encode())
        raw[rng.randrange(len(raw))] = rng.choice(
            [0xFF, 0xC3, 0x80, 0xED, 0x00]
        )
        return (
            bytes(raw)
            if rng.random() < 0.8
            else b"\xef\xbb\xbf" + text.encode()
        )
    if roll < 0.85:  # cut anywhere
        return text[: rng.randrange(len(text))].encode()
    if roll < 0.9:  # not an object
        return json.dumps(rng.choice(ODD_VALUES)).encode()
    if roll < 0.95:  # random bytes
        return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 200)))
    return (text + rng.choice(["", " ", "}", "]", "x", "\x00"]) * 2).encode()


def test_random_post_bodies_never_answer_500(fuzz_client):
    seed = _seed()
    print(f"fuzz seed {seed} (TBMF_FUZZ_SEED={seed} replays it)")
    rng = random.Random(seed)
    statuses: dict[int, int] = {}
    for case in range(POST_CASES):
        body = _random_body(rng)
        route = rng.choice(["/layouts", "/layout_preview"])
        response = fuzz_client.post(
            BASE + route, data=body, headers=JSON_HEADERS
        )
        _check(response, f"POST {route} body {body[:200]!r} (case {case})")
        statuses[response.status_code] = (
            statuses.get(response.status_code, 0) + 1
        )
    print("statuses", statuses)
    # Both paths were exercised: bodies accepted and bodies refused.
    assert statuses.get(200, 0) > 100 and statuses.get(400, 0) > 100


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("[" * 963 + "]" * 963, "nested 963 levels deep"),
        ('{"layout": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested"),
        ('{"layout": {"name": NaN}}', "NaN is not a JSON value"),
        ('{"layout": {"name": 1e999}}', "out of range"),
        ('{"layout": {"name": ' + "9" * 5000 + "}}", "integer of 5000 digits"),
        ('{"layout": {}, "layout": {}}', "duplicate key 'layout'"),
        (b'{"layout": "\xff"}', "not UTF-8"),
        ("", "not JSON"),
    ],
    ids=[
        "963-deep",
        "100k-deep",
        "nan",
        "1e999",
        "5000-digits",
        "dup-key",
        "not-utf8",
        "empty",
    ],
)
@pytest.mark.parametrize("route", ["/layouts", "/layout_preview"])
def test_unacceptable_json_bodies_are_a_json_400(
    fuzz_client, route, body, words
):
    response = fuzz_client.post(BASE + route, data=body, headers=JSON_HEADERS)
    assert (
        response.status_code == 400 and response.mimetype == "application/json"
    )
    assert words in json.loads(response.get_data())["error"]


def test_a_deeply_nested_config_file_is_an_error_not_a_crash(tmp_path):
    """Sibling of the deep body: the config file went through json.load, and
    5,000 levels raised RecursionError while the plugin was being built."""
    from tests import eventfiles

    eventfiles.write(
        str(tmp_path / "r" / eventfiles.TORCH_NAME),
        eventfiles.record_bytes([eventfiles.scalar_event("loss", 1, 1.0, 1.0)]),
    )
    eventfiles.write(
        str(tmp_path / ".tb_multiframework" / "config.json"),
        ('{"runs": ' + "[" * 5000 + "]" * 5000 + "}").encode(),
    )
    client, _ = make_client(str(tmp_path))
    response = client.get(BASE + "/runs")
    assert response.status_code == 200
    (error,) = json.loads(response.get_data())["errors"]
    assert "not used: nested 5001 levels deep" in error


def test_a_run_whose_name_is_not_utf8_is_matched_by_regexes(tmp_path):
    """Sibling found with the regex engine: os.walk gives a directory named
    with bytes that are not UTF-8 as lone surrogates, which RE2 (UTF-8 only)
    cannot take; with an alias runPattern every route answered 400."""
    from tests import eventfiles

    bad = os.path.join(os.fsencode(tmp_path), b"bad\xffname")
    os.makedirs(bad)
    with open(os.path.join(bad, eventfiles.TORCH_NAME.encode()), "wb") as f:
        f.write(
            eventfiles.record_bytes(
                [eventfiles.scalar_event("loss", 1, 1.0, 2.0)]
            )
        )
    eventfiles.write(
        str(tmp_path / ".tb_multiframework" / "config.json"),
        json.dumps(
            {
                "metricAliases": [
                    {
                        "pattern": "loss",
                        "metric": "x/train",
                        "runPattern": "bad.*",
                    }
                ]
            }
        ).encode(),
    )
    client, _ = make_client(str(tmp_path))
    run = os.fsdecode(b"bad\xffname")
    metrics = json.loads(client.get(BASE + "/metrics").get_data())["metrics"]
    assert [(m["key"], [x["run"] for x in m["members"]]) for m in metrics] == [
        ("x/train", [run])
    ]
    layout = {
        "name": "a",
        "categories": [
            {
                "title": "c",
                "charts": [
                    {
                        "title": "t",
                        "kind": "multiline",
                        "tags": ["lo"],
                        "runs": "d.n",
                    }
                ],
            }
        ],
    }
    response = client.post(
        BASE + "/layout_preview",
        data=json.dumps({"layout": layout}),
        headers=JSON_HEADERS,
    )
    assert response.status_code == 200
    (chart,) = json.loads(response.get_data())["charts"]
    assert [(m["run"], m["tag"]) for m in chart["matches"]] == [(run, "loss")]
