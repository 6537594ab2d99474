#!/bin/sh
# Install catcode from this checkout: a private virtualenv (with the `web`, `bedrock` and `vertex` extras, so every
# README example works, Claude on Amazon Bedrock and Google Vertex AI included)
# and a `catcode` link in a folder on your PATH. Run it again after `git pull` to update.
#   venv:  $CATCODE_VENV, default ${XDG_DATA_HOME:-~/.local/share}/catcode/venv
#   link:  $CATCODE_BIN_DIR, default the first of ~/.local/bin, ~/bin that is on PATH; else /usr/local/bin when it
#          is writable and on PATH (root; $CATCODE_SYSTEM_BIN names another such folder, for tests); else
#          ~/.local/bin — not on PATH yet (Debian puts it there at your next login, once it exists).
#   python: $PYTHON, default python3 (3.11 or newer).
# Standard output is shell code for the shell that runs it, so that the README's first command works as typed,
#     eval "$(scripts/install.sh)" && catcode
# even where the link's folder is not on PATH yet: then it is the `export PATH=...` that puts it there (for that
# shell; ~/.profile, or its next login, for new ones); `false` when the install failed; nothing otherwise. Run
# alone in a terminal, it prints none of it and says what to run instead. Everything for people goes to stderr.
# Uninstall: rm -r "$CATCODE_VENV" and the link.
set -eu
trap 'status=$?; if [ "$status" -ne 0 ] && [ ! -t 1 ]; then echo false; fi' EXIT
SRC=$(cd "$(dirname "$0")/.." && pwd)
PY=${PYTHON:-python3}
VENV=${CATCODE_VENV:-${XDG_DATA_HOME:-$HOME/.local/share}/catcode/venv}

on_path() {
  case ":$PATH:" in *":$1:"*) return 0 ;; *) return 1 ;; esac
}

if [ -n "${CATCODE_BIN_DIR:-}" ]; then
  BIN=$CATCODE_BIN_DIR
elif on_path "$HOME/.local/bin"; then
  BIN=$HOME/.local/bin
elif on_path "$HOME/bin"; then
  BIN=$HOME/bin
elif SYSTEM_BIN=${CATCODE_SYSTEM_BIN:-/usr/local/bin} && on_path "$SYSTEM_BIN" && [ -w "$SYSTEM_BIN" ]; then
  BIN=$SYSTEM_BIN
else
  BIN=$HOME/.local/bin
fi

if ! command -v "$PY" >/dev/null 2>&1; then
  echo "catcode needs Python 3.11 or newer: '$PY' was not found (set PYTHON=/path/to/python3.11)" >&2
  exit 1
fi
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "catcode needs Python 3.11 or newer; $PY is $("$PY" -V 2>&1) (set PYTHON=/path/to/python3.11)" >&2
  exit 1
fi
if [ ! -x "$VENV/bin/python" ]; then
  mkdir -p "$(dirname "$VENV")"
  if ! "$PY" -m venv "$VENV" >/dev/null 2>&1; then
    rm -rf "$VENV"
    echo "Could not create a virtualenv with $PY -m venv (on Debian or Ubuntu: apt install python3-venv)" >&2
    exit 1
  fi
fi
echo "Installing catcode into $VENV ..." >&2
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade "$SRC[web,bedrock,vertex]" >&2  # stdout: the shell's
mkdir -p "$BIN"
ln -sf "$VENV/bin/catcode" "$BIN/catcode"

VERSION=$("$BIN/catcode" --version)
echo "Installed $VERSION: $BIN/catcode" >&2
if ! on_path "$BIN"; then
  if [ "$BIN" = "$HOME/.local/bin" ] && grep -qs '\.local/bin' "$HOME/.profile"; then
    LATER="your ~/.profile puts it on PATH from your next login"
  else
    LATER="add that line to ~/.profile for new shells"
  fi
  QUOTED="'$(printf '%s' "$BIN" | sed "s/'/'\\\\''/g")'"
  LINE="export PATH=$QUOTED:\"\$PATH\""
  if [ -t 1 ]; then
    echo "$BIN is not on your PATH: run  $LINE  ($LATER)" >&2
  else
    echo "$LINE"
    echo "$BIN was not on your PATH: added for this shell ($LATER)" >&2
  fi
elif [ "$(command -v catcode)" != "$BIN/catcode" ]; then
  echo "Another catcode comes first on your PATH: $(command -v catcode) (remove it, or run $BIN/catcode)" >&2
fi
