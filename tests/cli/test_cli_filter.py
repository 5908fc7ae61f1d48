"""`tbmf list --filter` means what the tab's filter box means: the Python
(core/runfilter.py) and the JavaScript (frontend/views/runs/experiment.js,
frontend/filter.js) implementations on the same seeded random inputs, the
JavaScript run in Chromium."""

from __future__ import annotations

import functools
import http.server
import json
import random
import threading

import pytest

from tb_multiframework.core import runfilter
from tests.cli.conftest import ROOT
from tests.e2e.conftest import new_browser_page

pytestmark = pytest.mark.e2e

SEED = 20261130
CASES = 600
KEYS = [
    "lr",
    "train.lr",
    "framework",
    "points",
    "run",
    "seed",
    "hp:lr",
    "best",
    "steps",
    "configHash",
    "optimizer",
    "x-y/z:w",
    "_a",
]
OPS = ["<", "<=", ">", ">=", "=", "==", "!=", "~"]
VALUES = [
    "0.01",
    "1e-3",
    "adam",
    "ADAM",
    '"two words"',
    "'q'",
    "0x10",
    "  5",
    "Infinity",
    "1_0",
    "-0",
    "3.",
    ".5",
    "\u0663",
    "0b101",
    "-0x1",
    "1e21",
    "Ä",
    "\U0001f600",
    "null",
    "true",
    "k,v",
]
WORDS = [
    "keras",
    "pyt",
    "seed[0-1]",
    "PADDLE",
    "gl(o",
    "x",
    "\u00a0",
    ",",
    "  ",
    "\t",
]
CELLS = [
    0,
    1,
    -0.0,
    0.01,
    1e-3,
    1e-7,
    123456789.125,
    1e21,
    2.5e-7,
    16,
    5,
    "adam",
    "Adam",
    "ä",
    "\U0001f600",
    "\uffff",
    "",
    "two words",
    True,
    False,
    None,
    10,
    0.1 + 0.2,
]


def _random_text(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(0, 4)):
        if rng.random() < 0.6:
            space = rng.choice(["", " ", "\u3000"])
            parts.append(
                f"{rng.choice(KEYS)}{space}{rng.choice(OPS)}{space}"
                f"{rng.choice(VALUES)}"
            )
        else:
            parts.append(rng.choice(WORDS))
    return rng.choice([" ", ",", "  "]).join(parts)


@pytest.fixture(scope="module")
def frontend_page(browser):
    handler = functools.partial(
        http.server.SimpleHTTPRequestHandler, directory=f"{ROOT}/frontend"
    )
    handler.log_message = lambda *args: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    recorded = new_browser_page(browser)
    # The directory listing page has no icon; the test server none either.
    recorded.page.route(
        "**/favicon.ico", lambda route: route.fulfill(status=204)
    )
    recorded.page.goto(f"http://127.0.0.1:{server.server_port}/")
    yield recorded.page
    recorded.context.close()
    server.shutdown()
    recorded.assert_no_errors()


JS_RUN = """
async ({texts, cells}) => {
  const exp = await import("./views/runs/experiment.js");
  const parsed = texts.map((t) => exp.parseFilter(t));
  const matches = parsed.map(({clauses}) =>
    clauses.map((c) => cells.map((cell) => exp.clauseMatches(
      cell === "__undefined__" ? undefined : cell, c))));
  const numbers = [];
  for (const {clauses} of parsed) for (const c of clauses)
    numbers.push([c.value, Number(c.value)]);
  const strings = cells.map((c) => c === "__undefined__" ? null : String(c));
  return {parsed, matches, numbers: numbers.map(([v, n]) =>
    [v, Number.isNaN(n) ? "NaN" : n]), strings};
}
"""


def test_parse_and_match_agree_with_the_tab(frontend_page) -> None:
    print(f"seed {SEED}")
    rng = random.Random(SEED)
    texts = [_random_text(rng) for _ in range(CASES)]
    cells = [*CELLS, "__undefined__"]
    js = frontend_page.evaluate(JS_RUN, {"texts": texts, "cells": cells})
    for text, want, want_matches in zip(texts, js["parsed"], js["matches"]):
        clauses, rest = runfilter.parse_filter(text)
        got = [{"key": c.key, "op": c.op, "value": c.value} for c in clauses]
        assert (got, rest) == (want["clauses"], want["rest"]), repr(text)
        for clause, row in zip(clauses, want_matches):
            for cell, expected in zip(cells, row):
                value = runfilter.MISSING if cell == "__undefined__" else cell
                assert runfilter.clause_matches(value, clause) == expected, (
                    text,
                    clause,
                    cell,
                )
    for value, number in js["numbers"]:
        got = runfilter.js_number(value)
        assert (got != got and number == "NaN") or got == number, value
    for cell, text in zip(CELLS, js["strings"]):
        assert runfilter.js_string(cell) == text, cell


def test_run_matcher_and_keys(frontend_page) -> None:
    runs = [
        {
            "run": "seeds/pytorch_seed1",
            "displayName": "",
            "group": "seeds",
            "framework": "pytorch",
            "writer": "torch.utils.tensorboard",
        },
        {
            "run": "keras_fit/train",
            "displayName": "Keras fit",
            "group": "keras_fit",
            "framework": "tensorflow",
            "writer": "keras",
        },
    ]
    patterns = ["", "seed[0-1]", "KERAS", "fit$", "gl(o", "torch\\.", "^k"]
    js = frontend_page.evaluate(
        """async ({runs, patterns}) => {
          const f = await import("./filter.js");
          const exp = await import("./views/runs/experiment.js");
          return {
            matches: patterns.map((p) => runs.map((r) => f.runMatcher(p)(r))),
            keys: ["lr", "train.lr", "seed", "x"].map((k) => exp.resolveKey(
              ["train.lr", "optim.lr", "seed", "train.seed", "x"], k)),
          };
        }""",
        {"runs": runs, "patterns": patterns},
    )
    for pattern, row in zip(patterns, js["matches"]):
        assert [runfilter.run_matches(r, pattern) for r in runs] == row, pattern
    keys = ["train.lr", "optim.lr", "seed", "train.seed", "x"]
    assert [
        runfilter.resolve_key(keys, k) for k in ["lr", "train.lr", "seed", "x"]
    ] == js["keys"]
    assert json.dumps(js["keys"]) == '[null, "train.lr", "seed", "x"]'
