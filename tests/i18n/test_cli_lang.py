"""`tbmf` in Chinese: `--lang zh-CN`, or a `zh_*` locale, for its messages
and the fixed texts of the report cards; the cards carry their language;
`--help` too.

Each case runs the real command in a subprocess with a controlled locale.
Expected texts are read from the zh-CN catalog file with `json`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

import tb_multiframework.i18n
from tests.conftest import DEMO_LOGS, ROOT

# The installed package's catalog (under scripts/test.sh the wheel's: the
# test tree has no package folder).
ZH = json.loads(
    (
        Path(tb_multiframework.i18n.__file__).parent / "catalogs" / "zh-CN.json"
    ).read_text("utf-8")
)
PAIR = ("-a", "pytorch_sgd", "-b", "keras_fit", "--x", "epoch")


def _tbmf(
    *args: str, locale: str | None, columns: int | None = None
) -> subprocess.CompletedProcess:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("LC_ALL", "LC_MESSAGES", "LANG")
    }
    if locale is not None:
        env["LANG"] = locale
    if columns is not None:
        env["COLUMNS"] = str(columns)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", "tb_multiframework.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def _zh_title(candidate: str, baseline: str) -> str:
    return (
        ZH["report.md.title"]
        .replace("{candidate}", f"`{candidate}`")
        .replace("{baseline}", f"`{baseline}`")
    )


@pytest.mark.parametrize(
    "how",
    [("--lang", "zh-CN", None), ("", "", "zh_CN.UTF-8")],
    ids=["option", "locale"],
)
def test_markdown_card_in_chinese(tmp_path, how):
    option, value, locale = how
    card = tmp_path / "card.md"
    args = ["report", DEMO_LOGS, *PAIR, "--out", str(card)]
    if option:
        args += [option, value]
    done = _tbmf(*args, locale=locale)
    assert done.returncode == 0, done.stderr
    lines = card.read_text("utf-8").split("\n")
    assert lines[0] == _zh_title("keras_fit", "pytorch_sgd")
    header = lines[2]
    for key in (
        "report.col.metric",
        "report.col.candidate",
        "report.col.change",
    ):
        assert f" {ZH[key]} " in header, header
    (footer,) = [line for line in lines if line.startswith("<sub")]
    assert footer.startswith('<sub lang="zh-CN">tbmf '), footer
    assert ZH["report.md.footer"].split("{")[0].strip() in footer


def test_an_english_locale_or_option_keeps_english(tmp_path):
    card = tmp_path / "card.md"
    # --lang en wins over a Chinese locale.
    done = _tbmf(
        "report",
        DEMO_LOGS,
        *PAIR,
        "--out",
        str(card),
        "--lang",
        "en",
        locale="zh_CN.UTF-8",
    )
    assert done.returncode == 0, done.stderr
    text = card.read_text("utf-8")
    assert text.startswith("#### Training parity: `keras_fit` vs baseline")
    assert "<sub>tbmf " in text and "lang=" not in text


def test_html_report_carries_its_language(tmp_path):
    page = tmp_path / "report.html"
    done = _tbmf(
        "--lang",
        "zh-CN",
        "report",
        DEMO_LOGS,
        *PAIR,
        "--metric",
        "loss/val",
        "--out",
        str(page),
        locale=None,
    )
    assert done.returncode == 0, done.stderr
    html = page.read_text("utf-8")
    assert '<html lang="zh-CN">' in html
    for key in (
        "report.html.summary",
        "report.html.config",
        "report.html.runs",
    ):
        assert f"<h2>{ZH[key]}</h2>" in html, key
    assert ZH["report.direction.min"] in html  # loss: lower is better
    english = _tbmf(
        "report",
        DEMO_LOGS,
        *PAIR,
        "--metric",
        "loss/val",
        "--out",
        str(tmp_path / "en.html"),
        locale="en_US.UTF-8",
    )
    assert english.returncode == 0, english.stderr
    assert '<html lang="en">' in (tmp_path / "en.html").read_text("utf-8")


def test_usage_errors_in_chinese():
    done = _tbmf("list", "/no/such/logdir", locale="zh_CN.UTF-8")
    assert done.returncode == 2
    prefix = ZH["cli.error"].split("{")[0]
    assert done.stderr.startswith(prefix), done.stderr
    # argparse's own errors get the same frame.
    bad = _tbmf("list", DEMO_LOGS, "--lang", "fr", locale=None)
    assert bad.returncode == 2
    assert bad.stderr.startswith("tbmf: error: "), bad.stderr
    zh_bad = _tbmf("list", DEMO_LOGS, "--sort", locale="zh_CN.UTF-8")
    assert zh_bad.returncode == 2
    assert zh_bad.stderr.startswith(ZH["cli.usageError"].split("{")[0])


def _fill(key: str, **params) -> str:
    """The zh-CN text of `key` with its placeholders filled (independently of
    the package's own `fill`)."""
    text = ZH[key]
    for name, value in params.items():
        text = text.replace("{" + name + "}", str(value))
    return text


def test_list_headers_in_chinese():
    done = _tbmf(
        "list", DEMO_LOGS, "--width", "300", "--lang", "zh-CN", locale=None
    )
    assert done.returncode == 0, done.stderr
    header = done.stdout.split("\n")[0].split()
    expected = [
        ZH[f"cli.col.{name}"]
        for name in ("run", "group", "framework", "writer", "trainer")
    ]
    assert header[:5] == expected, header
    assert not any(word.isascii() for word in header), header


SEEDS = ("-a", "seeds/pytorch_seed0", "-b", "seeds/pytorch_seed1")
CHECK = ("check", DEMO_LOGS, *SEEDS, "--metric", "loss/train", "--rtol", "10")
DIFF = ("diff", DEMO_LOGS, "pytorch_sgd", "keras_fit/train")


def test_diff_and_check_in_chinese():
    diff = _tbmf(*DIFF, locale="zh_CN.UTF-8")
    assert diff.returncode == 0, diff.stderr
    english = _tbmf(*DIFF, "--json", locale="zh_CN.UTF-8")
    first = json.loads(english.stdout)["metrics"][0]
    lines = diff.stdout.split("\n")
    direction = ZH["report.direction." + first["direction"]]
    head = f"{first['metric']}  {direction}  "
    assert any(line.startswith(head) for line in lines), diff.stdout
    assert ZH["cli.diff.config"].split("{")[0] + ZH["cli.config.none"] in lines
    for key in ("last", "best"):
        assert any(
            line.startswith("  " + ZH[f"report.compare.{key}"])
            for line in lines
        )
    check = _tbmf(*CHECK, "--lang", "zh-CN", locale=None)
    assert check.returncode == 0, check.stderr
    result = json.loads(_tbmf(*CHECK, "--json", locale=None).stdout)
    lo, hi = result["checks"][0]["checkedRange"]
    within = _fill(
        "cli.check.pass",
        checked=result["checks"][0]["checked"],
        limit="rtol 10, atol 0",
        span=f"{ZH['axis.step']} {lo:g}–{hi:g}",
    )
    assert check.stdout.startswith("PASS  "), check.stdout
    assert check.stdout.rstrip().endswith(within), check.stdout


def test_anomaly_messages_in_chinese():
    done = _tbmf("anomalies", DEMO_LOGS, "--lang", "zh-CN", locale=None)
    assert done.returncode == 0, done.stderr
    payload = json.loads(
        _tbmf("anomalies", DEMO_LOGS, "--json", locale=None).stdout
    )
    lines = done.stdout.rstrip("\n").split("\n")
    assert lines[-1] == _fill(
        "cli.anomalies.found", n=payload["total"], series=payload["series"]
    )
    assert len(lines) == len(payload["anomalies"]) + 2
    for line, found in zip(lines[1:-1], payload["anomalies"]):
        message = found["i18n"]["message"]
        text = _fill(message["id"], **message["params"])
        cell = line.rsplit("  ", 1)[-1]  # the last column, maybe cut short
        assert cell == text or (
            cell.endswith("…") and text.startswith(cell[:-1])
        ), (line, text)


def test_the_cli_own_usage_errors_in_chinese():
    axis = _tbmf(*DIFF, "--x", "nope", "--lang", "zh-CN", locale=None)
    assert axis.returncode == 2
    axes = "step, epoch, relative, wall, progress"
    message = _fill("cli.err.unknownAxis", axis="'nope'", axes=axes)
    assert axis.stderr.strip() == _fill("cli.error", message=message)
    run = _tbmf("diff", DEMO_LOGS, "pytorch_sgd", "nope", locale="zh_CN.UTF-8")
    assert run.returncode == 2
    head = _fill("cli.err.unknownRun", run="'nope'", choices="")
    noun = _fill(
        "cli.choices.list", hint="", kind=ZH["cli.noun.runs"], names=""
    )
    assert run.stderr.startswith(_fill("cli.error", message=head + noun))
    english = _tbmf("diff", DEMO_LOGS, "pytorch_sgd", "nope", locale=None)
    assert english.stderr.startswith("tbmf: error: unknown run 'nope'; runs: ")


# `tbmf --help` in Chinese: the texts are the catalog's, the layout fits
# the terminal, and no English prose is left.

HELP_COMMANDS = (
    "list",
    "diff",
    "export",
    "report",
    "check",
    "anomalies",
    "open",
)
# Words a Chinese help keeps: names, formats, and what the user types (axis,
# column, field and option values, commands).
KEPT_WORDS = {
    *("TensorBoard", "PyTorch", "PaddlePaddle", "Frameworks", "Markdown"),
    *("CSV", "JSON", "HTML", "EMA", "KS", "NaN", "DDP", "AUC", "IoU"),
    *("Wasserstein", "Kolmogorov", "Smirnov", "Ctrl", "stdout", "stderr"),
    *("tensorboard", "tbmf", "rank", "zh", "CN", "en", "atol", "rtol"),
    *HELP_COMMANDS,
    *("step", "epoch", "relative", "wall", "progress", "all", "last", "best"),
    *("run", "group", "framework", "writer", "trainer", "config", "points"),
    *("steps", "duration", "warn", "format", "configHash", "bestStep"),
    *("value", "smoothed", "tag"),
}


def _help(*args: str, locale: str | None = None) -> str:
    done = _tbmf(*args, "--help", locale=locale, columns=80)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _squeezed(text: str) -> str:
    """Without whitespace: argparse re-wraps help texts."""
    return "".join(text.split())


def _width(line: str) -> int:
    return sum(
        2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line
    )


@pytest.mark.parametrize(
    "args, locale",
    [
        (("--lang", "zh-CN", "diff"), None),
        (("diff", "--lang=zh-CN"), "en_US.UTF-8"),
        (("diff",), "zh_CN.UTF-8"),
    ],
    ids=["option", "option-after", "locale"],
)
def test_diff_help_in_chinese(args, locale):
    text = _help(*args, locale=locale)
    flat = _squeezed(text)
    for key in (
        "cli.help.diff.summary",
        "cli.help.common.runA",
        "cli.help.common.config",
        "cli.help.common.smoothing",
        "cli.help.common.lang",
        "cli.help.common.help",
    ):
        assert _squeezed(ZH[key]) in flat, key
    # The epilog as written: examples kept, prose translated.
    assert ZH["cli.help.diff.epilog"] in text
    assert "\n  tbmf diff runs/ tf_run torch_run\n" in text
    for key in ("cli.help.positionals", "cli.help.options"):
        assert f"\n{ZH[key]}:\n" in text, key
    usage = text.split("\n")
    assert usage[0].startswith(ZH["cli.help.usage"] + "tbmf diff [-h]")
    # The usage's next lines start under its first option, on screen.
    indent = _width(ZH["cli.help.usage"] + "tbmf diff ")
    assert usage[1].startswith(" " * indent + "[")
    assert usage[1][indent] == "["


def test_english_help_under_a_chinese_locale_with_lang_en():
    text = _help("diff", "--lang", "en", locale="zh_CN.UTF-8")
    assert text.startswith("usage: tbmf diff [-h]")
    assert "show this help message and exit" in text
    assert not any(unicodedata.east_asian_width(c) == "W" for c in text)


@pytest.mark.parametrize("command", [None, *HELP_COMMANDS])
def test_no_english_left_in_the_chinese_help(command):
    text = _help("--lang", "zh-CN", *([command] if command else []))
    body = text.split("\n\n", 1)[1]  # the usage line is options only
    lines = [
        line
        for line in body.split("\n")
        # example command lines and their continuations
        if not re.match(r"\s+tbmf |\s{6}--", line)
    ]
    prose = "\n".join(lines)
    for pattern in (
        r"`[^`]*`",  # code
        r"\{[^}]*\}",  # choices
        r"(?<![\w-])--?[A-Za-z][\w-]*",  # options
        r"\b[A-Z][A-Z0-9_]+\b",  # metavars
        r"\S*[/_.=@:]\S*",  # keys, paths, tags, FROM:TO
    ):
        prose = re.sub(pattern, " ", prose)
    assert not re.search(r"[A-Za-z]{2,} +[A-Za-z]{2,}", prose), prose
    words = set(re.findall(r"[A-Za-z]{2,}", prose))
    assert words <= KEPT_WORDS, sorted(words - KEPT_WORDS)
    # and it fits an 80-column terminal (a CJK character takes two)
    wide = [line for line in text.split("\n") if _width(line) > 80]
    assert not wide, wide


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["diff", "--lang", "zh-CN", "x"], "zh-CN"),
        (["--lang=zh-CN", "list"], "zh-CN"),
        (["--lang", "zh-CN", "list", "--lang", "en"], "en"),  # argparse: last
        (["list", "--lang", "fr"], None),  # argparse rejects it later
        (["list", "--lang"], None),
        (["open", "--", "--lang", "zh-CN"], None),  # a RUN, not an option
        (["list", "runs/"], None),
    ],
)
def test_the_language_is_read_from_argv_before_parsing(argv, expected):
    from tb_multiframework.cli import lang

    assert lang.from_argv(argv) == expected


def test_chinese_help_wraps_by_display_width():
    from tb_multiframework.cli import lang

    text = "配置文件（各运行的设置、指标别名）；默认：存在时使用 LOGDIR/config.json。"
    lines = lang.wrap_wide(text, 20)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    # a word is never cut
    assert any(line.startswith("LOGDIR/config.json") for line in lines)
    for line in lines:
        # a closing mark may hang over by one character, never start a line
        assert _width(line.rstrip("，。；：、）")) <= 20, lines
        assert line[0] not in "，。；：、）", lines
