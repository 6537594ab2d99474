#!/bin/sh
# Install catcode from this checkout: a private virtualenv (with the `web`, `bedrock` and `vertex` extras, so every
# README example works, Claude on Amazon Bedrock and Google Vertex AI included)
# and a `catcode` link in a folder on your PATH. Run it again after `git pull` to update.
#   venv:  $CATCODE_VENV, default ${XDG_DATA_HOME:-~/.local/share}/catcode/venv
#   link:  $CATCODE_BIN_DIR, default the first of ~/.local/bin, ~/bin that is on PATH; else /usr/local/bin when it
#          is writable and on PATH (root); else ~/.local/bin, and the last line says how to put it on PATH.
#   python: $PYTHON, default python3 (3.11 or newer).
# Uninstall: rm -r "$CATCODE_VENV" and the link.
set -eu
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
elif on_path /usr/local/bin && [ -w /usr/local/bin ]; then
  BIN=/usr/local/bin
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
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade "$SRC[web,bedrock,vertex]"
mkdir -p "$BIN"
ln -sf "$VENV/bin/catcode" "$BIN/catcode"

VERSION=$("$BIN/catcode" --version)
echo "Installed $VERSION: $BIN/catcode" >&2
if ! on_path "$BIN"; then
  if [ "$BIN" = "$HOME/.local/bin" ] && grep -qs '\.local/bin' "$HOME/.profile"; then
    LATER="your ~/.profile puts it on PATH from your next login"
  else
    LATER="and add that line to ~/.profile"
  fi
  echo "$BIN is not on your PATH: run  export PATH=\"$BIN:\$PATH\"  ($LATER)" >&2
elif [ "$(command -v catcode)" != "$BIN/catcode" ]; then
  echo "Another catcode comes first on your PATH: $(command -v catcode) (remove it, or run $BIN/catcode)" >&2
fi
