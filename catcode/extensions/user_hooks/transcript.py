"""The conversation as Claude Code keeps its transcripts, for hooks that read ``transcript_path``: one JSON line per
message (``type``, ``message`` in the API's shape, ``sessionId``, ``cwd``, ``timestamp``, ``uuid``), appended as the
conversation grows, redacted like everything catcode writes, 0600 in ``$CATCODE_HOME/transcripts/<project-key>/``.
Written only when some hook is configured (the settings' or the Agent SDK's callbacks); kept like Claude Code's, for
hooks that read it after the session."""

from __future__ import annotations

import json
import os
import threading
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from catcode.conversation.messages import Message
from catcode.log import get_logger

log = get_logger(__name__)


class TranscriptLog:
    """Appends each message of one session to ``path``."""

    def __init__(self, path: Path, session_id: str, cwd: Path) -> None:
        self.path, self.session_id, self.cwd = path, session_id, str(cwd)
        self._lock = threading.Lock()

    def __call__(self, message: Message) -> None:
        """An ``Agent`` listener: one line for ``message`` (a failure is logged; the session goes on)."""
        from catcode.fsutil import ensure_private_dir
        from catcode.redact import redact_json

        line = {
            "type": message.role.value,
            "message": redact_json(message.to_api())[0],
            "sessionId": self.session_id,
            "cwd": self.cwd,
            "timestamp": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
            "uuid": str(uuid.uuid4()),
        }
        try:
            with self._lock:
                ensure_private_dir(self.path.parent)
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
                with os.fdopen(fd, "a", encoding="utf-8") as handle:
                    handle.write(json.dumps(line, ensure_ascii=False) + "\n")
        except OSError:
            log.warning("transcript_not_written", path=str(self.path), exc_info=True)


def transcript_file(home: Path, project_key: str, session_id: str) -> Path:
    """Where session ``session_id``'s transcript is kept."""
    return home / "transcripts" / project_key / f"{session_id}.jsonl"


def keep_transcript(listeners: list[Callable[[Message], None]], path: Path, session_id: str, cwd: Path) -> None:
    """Have the agent whose ``listeners`` these are keep the transcript at ``path`` (once, however many kinds of
    hooks ask for it)."""
    if not any(isinstance(listener, TranscriptLog) and listener.path == path for listener in listeners):
        listeners.append(TranscriptLog(path, session_id, cwd))
