"""User regexes: Python's re vs our RE2 path vs the fallback worker.

For each pattern, matches it (`re.match` semantics, as layout charts do)
against a batch of tags and prints the median time of each engine and the
ratios. Typical patterns over realistic tags show what safety costs in the
common case; the issue's hostile patterns over long tags show what it buys
(Python's re is cut off after `--budget` seconds in a subprocess, since it
would not finish).

Usage: python bench/bench_regex.py [--tags 5000] [--repeat 5] [--budget 5]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import re
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tb_multiframework.core import safe_regex  # noqa: E402

TYPICAL = [
    r"loss",
    r"(train|val)/loss$",
    r".*acc.*",
    r"(?i)LOSS/\w+",
    r"[a-z]+/\d+$",
]
HOSTILE = [r"(a|aa)+$", r"(a|a)*$", r"(?:a?){30}a{30}", r"a*a*a*a*a*c"]


def _realistic_tags(count: int) -> list[str]:
    kinds = ["loss", "accuracy", "lr", "grad_norm", "val_loss", "epoch_acc"]
    splits = ["train", "val", "test", "eval"]
    return [
        f"{splits[i % 4]}/{kinds[i % 6]}_{i}" if i % 3 else f"layer{i}/weights"
        for i in range(count)
    ]


def _median_seconds(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _python_re(pattern: str, tags: list[str]) -> int:
    compiled = re.compile(pattern)
    return sum(compiled.match(t) is not None for t in tags)


def _python_re_bounded(pattern: str, tags: list[str], budget: float) -> str:
    """Python's re in a process killed after `budget` seconds."""
    process = multiprocessing.get_context("spawn").Process(
        target=_python_re, args=(pattern, tags)
    )
    started = time.perf_counter()
    process.start()
    process.join(budget)
    if process.is_alive():
        process.kill()
        process.join()
        return f"> {budget:.0f} s (killed)"
    return f"{time.perf_counter() - started:.3f} s (with process start)"


def _engine(
    name: str, pattern: str, tags: list[str], repeat: int
) -> tuple[float, float]:
    """(cold: compiled afresh each time, warm: answers remembered)."""
    os.environ["TBMF_REGEX_ENGINE"] = name

    def cold() -> None:
        safe_regex._compile.cache_clear()
        safe_regex._ANSWERS.clear()
        safe_regex.compile(pattern).test(tags, "match")

    compiled = safe_regex.compile(pattern)
    compiled.test(tags, "match")
    return (
        _median_seconds(cold, repeat),
        _median_seconds(lambda: compiled.test(tags, "match"), repeat),
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tags", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--budget", type=float, default=5.0)
    args = parser.parse_args()
    tags = _realistic_tags(args.tags)
    print(f"{args.tags} realistic tags, median of {args.repeat}\n")
    print(
        "| pattern | Python re | ours, RE2 cold / warm | fallback worker "
        "cold / warm | RE2 cold / re |"
    )
    print("|---|---|---|---|---|")
    for pattern in TYPICAL:
        python = _median_seconds(
            lambda p=pattern: _python_re(p, tags), args.repeat
        )
        ours = _engine("re2", pattern, tags, args.repeat)
        worker = _engine("python", pattern, tags, args.repeat)
        print(
            f"| `{pattern}` | {python * 1e3:.2f} ms | {ours[0] * 1e3:.2f} / "
            f"{ours[1] * 1e3:.2f} ms | {worker[0] * 1e3:.2f} / "
            f"{worker[1] * 1e3:.2f} ms | {ours[0] / python:.1f}x |"
        )
    long_tags = ["a" * 10_000, "a" * 9_999 + "c", "a" * 10_000 + "b"]
    print("\nhostile patterns, 3 tags of 10,000 characters, cold\n")
    print("| pattern | Python re | ours, RE2 | ours, fallback worker |")
    print("|---|---|---|---|")
    for pattern in HOSTILE:
        python = _python_re_bounded(pattern, long_tags, args.budget)
        ours = _engine("re2", pattern, long_tags, args.repeat)[0]
        os.environ["TBMF_REGEX_ENGINE"] = "python"
        started = time.perf_counter()
        try:
            safe_regex.compile(pattern).test(long_tags, "match")
            worker = f"{(time.perf_counter() - started) * 1e3:.1f} ms"
        except safe_regex.RegexError:
            worker = (
                f"refused after {time.perf_counter() - started:.2f} s "
                "(budget 0.5 s)"
            )
        print(f"| `{pattern}` | {python} | {ours * 1e3:.2f} ms | {worker} |")
    os.environ.pop("TBMF_REGEX_ENGINE", None)


if __name__ == "__main__":
    main()
