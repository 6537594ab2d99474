"""The log lines written before structlog is imported (``catcode.log.early_line``) are the lines structlog's own
pipeline writes: same fields, same order, same masking — for any event."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import structlog
from hypothesis import given
from hypothesis import strategies as st

from catcode import log as logsetup
from tests.slowness import bound

METHODS = ["debug", "info", "warning", "error", "exception", "critical"]
SECRETS = ["sk-ant-api03-abcdefghijklmnop", "Bearer abcdefghijklmnopqrstu", "AKIAIOSFODNN7EXAMPLE", "plain words"]
KEYS = ["path", "count", "api_key", "Authorization", "password", "detail", "level", "timestamp", "exception", "x"]
STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z")

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text() | st.sampled_from(SECRETS),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS) | st.text(), inner, max_size=3),
    max_leaves=8,
)


class Lines:
    """A stand-in for the stdlib logger structlog hands its rendered line to."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []

    def __getattr__(self, method: str) -> Any:
        return lambda line: self.lines.append((method, line))


def structlog_line(method: str, event: str, args: tuple[Any, ...], kw: dict[str, Any], level: int) -> str | None:
    out = Lines()
    logger = structlog.wrap_logger(
        out, processors=logsetup.processors(), wrapper_class=structlog.make_filtering_bound_logger(level)
    )
    getattr(logger, method)(event, *args, **kw)
    assert len(out.lines) <= 1
    return out.lines[0][1] if out.lines else None


def same_line(early: str | None, ours: str | None) -> None:
    assert (early is None) == (ours is None)
    if early is None or ours is None:
        return
    a, b = json.loads(early), json.loads(ours)
    assert list(a) == list(b)  # the same fields in the same order
    assert STAMP.fullmatch(a.pop("timestamp")) and STAMP.fullmatch(b.pop("timestamp"))
    assert a == b


@given(
    method=st.sampled_from(METHODS),
    level=st.sampled_from([logging.DEBUG, logging.INFO, logging.WARNING]),
    event=st.text() | st.sampled_from(SECRETS),
    kw=st.dictionaries(st.sampled_from(KEYS) | st.from_regex(r"[a-z_]{1,12}", fullmatch=True), values, max_size=5),
    exc=st.sampled_from(["none", "true", "instance"]),
)
def test_early_lines_are_the_lines_structlog_writes(
    method: str, level: int, event: str, kw: dict[str, Any], exc: str
) -> None:
    kw.pop("event", None)
    try:
        raise ValueError(f"bad key {SECRETS[0]}")
    except ValueError as error:
        if exc != "none":
            kw["exc_info"] = True if exc == "true" else error
        early = logsetup.early_line(method, event, (), dict(kw), level)
        ours = structlog_line(method, event, (), dict(kw), level)
    same_line(early, ours)
    if early is not None:
        assert SECRETS[0] not in early and SECRETS[1] not in early  # masked like every other line


def test_interpolation_and_no_exception_match_too() -> None:
    for args in [(1, "two"), ({"name": "x"},)]:
        event = "got %s and %s" if len(args) == 2 else "named %(name)s"
        same_line(
            logsetup.early_line("info", event, args, {}, logging.INFO),
            structlog_line("info", event, args, {}, logging.INFO),
        )
    # exc_info asked for outside any exception: nothing to render, like structlog
    same_line(
        logsetup.early_line("exception", "oops", (), {}, logging.INFO),
        structlog_line("exception", "oops", (), {}, logging.INFO),
    )


def test_a_logger_used_before_structlog_takes_any_field_name(tmp_path: Any) -> None:
    """Through ``get_logger`` in a process that has not imported structlog: fields named like the logger's own
    parameters (``name``, ``method``, ``event``...) are fields of the line, as structlog would write them."""
    import subprocess
    import sys

    log_file = tmp_path / "catcode.log"
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from catcode import log\n"
        f"log.configure(Path({str(log_file)!r}))\n"
        "log.get_logger('catcode.x').info('memory_file_read_redacted', name='db-login', method='m', args=1)\n"
        "assert 'structlog' not in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=bound(60))
    assert done.returncode == 0, done.stderr
    line = json.loads(log_file.read_text(encoding="utf-8").splitlines()[-1])
    assert line["event"] == "memory_file_read_redacted" and (line["name"], line["method"], line["args"]) == (
        "db-login",
        "m",
        1,
    )


def test_a_log_that_cannot_be_written_is_one_line_not_tracebacks(capsys: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(logsetup.QuietFileHandler, "said", False)
    handler = logsetup.QuietFileHandler("/dev/full", encoding="utf-8")  # every write: No space left on device
    logger = logging.getLogger("catcode.test.full")
    logger.addHandler(handler)
    try:
        for number in range(20):
            logger.warning("line %d", number)
    finally:
        logger.removeHandler(handler)
        handler.close()
    err = capsys.readouterr().err
    assert err == "catcode: cannot write the log /dev/full (No space left on device); log lines are dropped\n"
