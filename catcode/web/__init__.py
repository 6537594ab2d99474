"""The local web view of memory (``catcode memory serve``): one page and its JSON API, on Starlette and uvicorn
(the optional ``web`` extra, imported only by that command).

- ``api.py``: the JSON API, the web's memory commands — ``ENDPOINTS``, its one table, and ``MemoryView``, the
  answers as plain Python (scopes, memories, history, diff, revert, search) over memory's front door.
- ``routes.py``: the Starlette application — the endpoints served, JSON that never holds markup, the page with its
  CSP nonce.
- ``guard.py``: ``Guard`` — Host header (DNS rebinding), token or one-time code → session cookie, same-origin
  changes, security headers.
- ``server.py``: the command — binding to 127.0.0.1, the token in the printed URL, uvicorn.
- ``opener.py``: ``--open``'s private page (0600) that sends the browser on with the one-time code, so that no
  secret is on the browser's command line.
- ``page.html``: the page: no build step, no outside resource; memory text is only ever inserted as text."""
