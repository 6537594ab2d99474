#!/usr/bin/env bash
# Run the whole test suite from a fresh clone: creates its own virtualenv, installs catcode with its dev, web,
# bedrock and vertex extras (Bedrock and Vertex AI are tested against local fakes of them), checks lint and types,
# then runs every test. Needs only Python 3.11+, pip and git; the browser test also needs Debian's chromium,
# installed here when running as root with apt (as CI does), else that test says it is skipped; the sandbox tests
# need bubblewrap (bwrap), installed the same way, else they say they are skipped.
#
# `scripts/test.sh quick [ARGS]` is the inner loop: the same checks, then only the in-process tiers (no test that
# drives catcode in a terminal, starts a process of it, or is one of the few slow ones; tests/conftest.py assigns
# the tiers), with the `dev` Hypothesis profile instead of `ci`. Anything else is passed to pytest
# (`scripts/test.sh --cov` measures the coverage of catcode/).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${CATCODE_TEST_VENV:-.venv-test}"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip >/dev/null
"$VENV/bin/python" -m pip install -q --disable-pip-version-check -e ".[dev,web,bedrock,vertex]"
if [ ! -x /usr/bin/chromium ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian's chromium for the browser test (once)..." >&2
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >/dev/null 2>&1 \
    || echo "Could not install chromium: the browser test will be skipped (outside CI)" >&2
fi
if ! command -v bwrap >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing bubblewrap for the sandbox tests (once)..." >&2
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap; } >/dev/null 2>&1 \
    || echo "Could not install bubblewrap: the sandbox tests will be skipped (outside CI)" >&2
fi
# The TypeScript Agent SDK for tests/cli/test_agent_sdk_ts.py, once, into a gitignored cache (npm's optional native
# Claude Code binaries are left out: the SDK runs catcode); without npm, or offline, that test says it is skipped.
TS_SDK="${CATCODE_TS_SDK:-$PWD/.cache/agent-sdk-ts}"
if [ ! -f "$TS_SDK/node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs" ] && command -v npm >/dev/null 2>&1; then
  npm install --silent --prefix "$TS_SDK" --omit=optional --no-audit --no-fund @anthropic-ai/claude-agent-sdk \
    >/dev/null 2>&1 || echo "Could not install the TypeScript Agent SDK: its test will be skipped" >&2
fi
export CATCODE_TS_SDK="$TS_SDK"
"$VENV/bin/ruff" check catcode tests scripts
"$VENV/bin/ruff" format --check --quiet catcode tests scripts
"$VENV/bin/mypy" catcode
if [ "${1:-}" = quick ]; then
  shift
  set -- -m "not e2e and not process and not slow" --hypothesis-profile=dev "$@"
else
  set -- --hypothesis-profile=ci "$@"
fi
PATH="$PWD/$VENV/bin:$PATH" exec "$VENV/bin/python" -m pytest "$@"
