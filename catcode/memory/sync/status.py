"""What a sync reports: ``SyncReport`` (what ``catcode memory sync`` prints) and ``SyncStatus``, this machine's
last outcome, kept in ``.git/catcode-sync.json`` (per machine, never versioned) for ``remote show`` and for the
notice of a background sync."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from catcode.fsutil import atomic_write_text
from catcode.log import get_logger

log = get_logger(__name__)

STATUS_FILE = "catcode-sync.json"


@dataclass
class SyncReport:
    """What a sync did: changes received and sent, and one line per merge decision worth knowing."""

    url: str
    received: int = 0
    sent: int = 0
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """What ``catcode memory sync`` prints."""
        if not self.received and not self.sent:
            head = f"Memory is up to date with {self.url}."
        else:
            head = f"Synced with {self.url}: received {changes(self.received)}, sent {changes(self.sent)}."
        return [head, *self.notes]


@dataclass(frozen=True)
class SyncStatus:
    """The outcome of this machine's last sync (``.git/catcode-sync.json``)."""

    time: str
    ok: bool
    message: str


def read_status(root: Path) -> SyncStatus | None:
    """The last sync's outcome on this machine, if one was recorded."""
    try:
        data = json.loads((Path(root) / ".git" / STATUS_FILE).read_text(encoding="utf-8"))
        return SyncStatus(time=str(data["time"]), ok=bool(data["ok"]), message=str(data["message"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def changes(count: int) -> str:
    """``1 change``, ``3 changes``."""
    return f"{count} change" + ("" if count == 1 else "s")


def record_status(root: Path, ok: bool, message: str) -> None:
    """Record the outcome of a sync just run at ``root`` (a failure to record is logged, never raised)."""
    status = {"time": datetime.now().astimezone().isoformat(timespec="seconds"), "ok": ok, "message": message}
    try:
        atomic_write_text(Path(root) / ".git" / STATUS_FILE, json.dumps(status, ensure_ascii=False) + "\n")
    except OSError as exc:
        log.warning("sync_status_unwritable", error=str(exc))
