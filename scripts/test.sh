#!/usr/bin/env bash
# Runs the whole suite against the built wheel (README command 2).
#   bash scripts/test.sh [extra pytest arguments]
#
# Leaves the user's Python as it was: everything goes into a virtual
# environment of its own, .venv-test/ in the checkout (made again when the
# Python asked for changes). There it builds the sdist and, from it, the
# wheel (`python -m build`), installs the wheel with the test extra, and runs
# pytest from a directory holding links to everything in the checkout except
# the package, so `import tb_multiframework` (in pytest, its xdist workers
# and every process the tests start) is the installed wheel, never the
# source tree; tests/conftest.py checks that (TBMF_TEST_WHEEL=1).
#
# Environment:
#   PYTHON          the interpreter for the venv (default: python3, >= 3.10)
#   TBMF_TEST_VENV  the venv's directory (default: .venv-test)
#   PIP_CONSTRAINT  as pip reads it, e.g. version floors (.ci/floors.txt)
#   TBMF_TEST_PACKAGES  install the wheel with these packages instead of
#                   its test extra (for a selection of tests that needs less)
#
# Without arguments: the tests not marked e2e on two workers (pytest-xdist),
# then the e2e tests (real TensorBoard, Chromium) one at a time. With
# arguments: one serial pytest run with them. A skipped test fails the run
# (TBMF_FORBID_SKIPS=1), and so does a run that collects no test (exit 5).
# Needs: Python >= 3.10 with venv; Debian's chromium for the browser tests
# (installed here with apt-get when missing and running as root).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
PYTHON=${PYTHON:-python3}
VENV=${TBMF_TEST_VENV:-$REPO/.venv-test}
started=$(date +%s)

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

version() { "$1" -c 'import sys; print(sys.version)'; }
if [ ! -x "$VENV/bin/python" ] ||
  [ "$(version "$VENV/bin/python")" != "$(version "$PYTHON")" ]; then
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV"
fi
PY=$VENV/bin/python
unset PYTHONPATH
pip() { "$PY" -m pip -q --disable-pip-version-check "$@"; }
env -u PIP_CONSTRAINT "$PY" -m pip -q --disable-pip-version-check install build

WORK=$(mktemp -d "${TMPDIR:-/tmp}/tbmf-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# Built without PIP_CONSTRAINT: the floors pin an old setuptools for the
# installed TensorBoard, the build backend needs its own (pyproject.toml).
if ! env -u PIP_CONSTRAINT "$PY" -m build -o "$WORK/dist" . >"$WORK/build.log" 2>&1; then
  cat "$WORK/build.log" >&2
  echo "error: building the sdist and wheel failed" >&2
  exit 1
fi
wheel=$(ls "$WORK"/dist/tb_multiframework-*.whl)
# Uninstalled first: an earlier wheel of the same version would be kept.
pip uninstall -y tb-multiframework
if [ -n "${TBMF_TEST_PACKAGES:-}" ]; then
  # A leg that runs a few tests installs only what they need.
  # shellcheck disable=SC2086
  pip install "$wheel" $TBMF_TEST_PACKAGES
else
  pip install "$wheel[test]"
fi
echo "testing $(basename "$wheel") on $("$PY" -V) in $VENV"

# The checkout minus the package (and what building left there).
mkdir "$WORK/tree"
for entry in "$REPO"/* "$REPO"/.[!.]*; do
  case "$(basename "$entry")" in
    tb_multiframework | .git | .venv-* | build | dist | *.egg-info) ;;
    *) [ -e "$entry" ] && ln -s "$entry" "$WORK/tree/" ;;
  esac
done
cd "$WORK/tree"

export TBMF_TEST_WHEEL=1 TBMF_FORBID_SKIPS=1
pytest() {
  local status=0
  "$PY" -m pytest -q -rs --durations=10 -p no:cacheprovider "$@" || status=$?
  if [ "$status" = 5 ]; then
    echo "error: no test ran (pytest $*)" >&2
  fi
  return "$status"
}
if [ $# -gt 0 ]; then
  pytest "$@"
else
  # --dist loadfile: a file's tests share one worker (module fixtures once).
  # Both run; either failing fails the script.
  status=0
  pytest -n 2 --dist loadfile -m "not e2e" tests || status=$?
  # The browser tests one at a time: on two workers (tried, 0.76x the
  # time) a full run met a dashboard that never drew in 30 s, which one at
  # a time has never shown.
  pytest -m e2e tests || status=$?
  echo "scripts/test.sh: $(($(date +%s) - started)) s"
  exit "$status"
fi
echo "scripts/test.sh: $(($(date +%s) - started)) s"
