#!/usr/bin/env bash
# Installs what the tests need and runs the whole suite (README command 2).
#   bash scripts/test.sh [extra pytest arguments]
# Needs: Python >= 3.10 with pip; Debian's chromium for the browser tests
# (installed here with apt-get when missing and running as root).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq chromium >/dev/null
  else
    echo "error: /usr/bin/chromium is missing; install Debian's chromium" >&2
    exit 1
  fi
fi

# A CJK font: the zh-CN browser tests measure Chinese labels (tofu boxes
# would not overflow where real glyphs do) and screenshot them.
if ! fc-list :lang=zh 2>/dev/null | grep -q .; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq fonts-wqy-microhei >/dev/null
  else
    echo "error: no CJK font; install Debian's fonts-wqy-microhei" >&2
    exit 1
  fi
fi

python3 -m pip install -q --disable-pip-version-check -e '.[test]'

# Any skipped test fails the run (browser tests must really run), and
# pytest's exit code 5 ("no tests ran") fails it too, through set -e.
# The ten slowest tests are listed at the end (the fuzz test's budget is
# 60 s; the suite's ~20 min).
export TBMF_FORBID_SKIPS=1
python3 -m pytest -q -rs --durations=10 "$@"
