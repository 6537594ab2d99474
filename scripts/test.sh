#!/usr/bin/env bash
# Run the whole test suite from a fresh clone: creates its own virtualenv, installs catcode with its dev
# extras, checks lint, then runs every test. Needs only Python 3.11+, pip and git.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${CATCODE_TEST_VENV:-.venv-test}"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip >/dev/null
"$VENV/bin/python" -m pip install -q --disable-pip-version-check -e ".[dev]"
"$VENV/bin/ruff" check catcode tests scripts
PATH="$PWD/$VENV/bin:$PATH" exec "$VENV/bin/python" -m pytest "$@"
