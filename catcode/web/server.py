"""``catcode memory serve``: the web view on 127.0.0.1 (another address only when asked, with a warning), behind a
fresh random token printed in its URL, served by uvicorn until Ctrl+C. ``--open`` hands the browser a private page
(``opener.py``) that sends it on with a one-time code — neither the token nor the code is ever on the browser's
command line, which every local user can read; ``guard.py`` exchanges the code once for an HttpOnly,
SameSite=Strict cookie.

Starlette and uvicorn are the optional ``web`` extra, imported here only: without them the command says how to
install them. uvicorn's access log is off — every URL carries the token."""

from __future__ import annotations

import secrets
import socket
import sys
import webbrowser
from collections.abc import Callable
from typing import TYPE_CHECKING

from catcode.errors import CatcodeError
from catcode.web.opener import redirect_page

if TYPE_CHECKING:
    from catcode.memory.service import MemoryDoor

INSTALL_HINT = "The web view needs the web extra: pip install 'catcode[web]' (Starlette and uvicorn)."
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
EVERY_INTERFACE = ("0.0.0.0", "::", "")


def serve_memory(door: MemoryDoor, *, host: str, port: int, open_browser: bool, say: Callable[[str], None]) -> None:
    """Serve the memory behind ``door`` until interrupted. ``say`` prints a line for the person."""
    try:
        import uvicorn

        from catcode.web.routes import create_app
    except ImportError:
        raise CatcodeError(INSTALL_HINT) from None
    from catcode.web.api import MemoryView

    sock = listen(host, port)
    port = sock.getsockname()[1]
    token = secrets.token_urlsafe(32)
    view = MemoryView(door)
    app = create_app(view, token=token, hosts=allowed_hosts(host, port), any_address=host in EVERY_INTERFACE)
    url = f"http://{_url_host(host)}:{port}/?token={token}"
    if host not in LOOPBACK_NAMES:
        sys.stderr.write(
            f"Warning: listening on {host} rather than 127.0.0.1: anyone who can reach that address and learns the "
            "token can read and change your memories.\n"
        )
    say(f"Memory web view: {url}")
    say("Ctrl+C stops it.")
    config = uvicorn.Config(
        app, log_config=None, access_log=False, lifespan="off", server_header=False, date_header=False
    )
    page = None
    if open_browser:  # a private page holds the one-time code: the browser's command line is anyone's to read
        page = redirect_page(door.paths.home, f"http://{_url_host(host)}:{port}/?code={app.one_time_code()}")
        webbrowser.open(page.as_uri())
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:
        pass  # uvicorn shut down cleanly, then passed Ctrl+C on: it is how this command is meant to end
    finally:
        view.close()
        sock.close()
        if page is not None:
            page.unlink(missing_ok=True)
    say("Stopped.")


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0: a free one). Raises ``CatcodeError`` when it cannot."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise CatcodeError(f"Cannot listen on {host}: {exc.strerror or exc}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        hint = "; pick another with --port N (0 picks a free one)" if port else ""
        raise CatcodeError(f"Cannot listen on {host}:{port}: {exc.strerror or exc}{hint}") from None
    return sock


def allowed_hosts(host: str, port: int) -> set[str]:
    """The Host headers a request may carry. A server on every interface takes the loopback names and this
    machine's own names here (and any IP address: ``Guard``'s ``any_address``), never another DNS name."""
    loopback = {"127.0.0.1", "localhost", "[::1]"}
    if host in EVERY_INTERFACE:
        names = loopback | {name for name in (socket.gethostname(), socket.getfqdn()) if name}
    else:
        names = {_url_host(host)} | (loopback if host in LOOPBACK_NAMES else set())
    found = {f"{name}:{port}" for name in names}
    if port == 80:  # browsers leave the default port out
        found |= names
    return {h.lower() for h in found}


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host
