"""``catcode memory serve --open``: the browser is handed a private file, never a secret on its command line.

A program's command line is readable by every local user (``/proc/PID/cmdline``, ``ps``): a one-time code in the
URL the browser was started with could be read and redeemed first by another process, leaving the person's own
browser with a 401. So, as Jupyter does, the code goes into a small HTML page written only for the person (0600,
in ``$CATCODE_HOME/web/``, a 0700 folder) that sends the browser on to ``/?code=…``; the browser's command line holds
only that file's path. The code still works once, and the page is removed when the server stops."""

from __future__ import annotations

import html
import json
import os
import tempfile
from pathlib import Path

from catcode.fsutil import ensure_private_dir

__all__ = ["redirect_page"]

_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0;url={attribute}">
<title>catcode memory</title></head>
<body><p>Opening <a href="{attribute}">your memory</a>…</p>
<script>window.location.replace({script});</script></body></html>
"""


def redirect_page(home: Path, url: str) -> Path:
    """A new private page in ``home``'s ``web/`` folder that sends the browser to ``url``."""
    folder = ensure_private_dir(home / "web")
    fd, name = tempfile.mkstemp(prefix="open-", suffix=".html", dir=folder)  # 0600, a name nobody can guess
    script = json.dumps(url).replace("<", "\\u003c")
    with os.fdopen(fd, "w", encoding="utf-8") as page:
        page.write(_PAGE.format(attribute=html.escape(url, quote=True), script=script))
    return Path(name)
