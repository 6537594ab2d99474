"""One-time consent for what a project directory asks of the person.

A cloned repository is not trusted. Its settings may not weaken the permission prompts, and its MCP servers,
hooks, skills and agent definitions are not used, until the person has said yes once for that project. Each
thing asked for is a ``ConsentItem``; the answer is remembered per project, per item and per fingerprint of the
item's content in ``$CATCODE_HOME/consent.yaml`` — the user's own file, never one inside the project, so a
repository cannot ship its own consent. When an item's content changes, its fingerprint changes and the person
is asked again. Refusals are remembered too (a "no" is not asked again every start); ``forget`` clears them.

Who decides: ``gate`` asks the ``Asker`` about every item with no recorded answer, all of them in one question.
Without an asker (print mode, piped input) nothing is asked or remembered: unknown items are left out for this
run and one line says so."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import yaml

from catcode.fsutil import atomic_write_text, locked
from catcode.log import get_logger

# Any: the consent file is JSON, checked as it is read.

log = get_logger(__name__)

CONSENT_FILE = "consent.yaml"


@dataclass(frozen=True)
class ConsentItem:
    """One thing a project asks for: a setting that weakens permissions, a server or hook to run, a skill..."""

    kind: str
    """What sort of thing: ``settings``, ``mcp``, ``hook``, ``skill`` or ``agent``."""
    key: str
    """Stable within its kind for one project, e.g. ``permissions.mode`` or ``server github``."""
    summary: str
    """One line for the person, e.g. ``permission mode bypass (.cat-code/settings.yaml)``."""
    content: str
    """Exactly what is consented to (a command line, a rule, a file's text); its hash is the fingerprint."""

    @property
    def id(self) -> str:
        """``kind:key``, unique within a project."""
        return f"{self.kind}:{self.key}"

    @property
    def fingerprint(self) -> str:
        """sha256 of ``content``: a changed item is a new question."""
        return hashlib.sha256(self.content.encode("utf-8")).hexdigest()


class Asker(Protocol):
    """Asks the person about a project's items in one question; True allows them all."""

    def __call__(self, project_root: Path, items: Sequence[ConsentItem]) -> bool:
        """Show the items and return the answer; Ctrl+C or Enter counts as no."""
        ...


class ConsentStore:
    """Recorded answers in ``$CATCODE_HOME/consent.yaml`` (0600, written atomically under a lock).

    Layout: ``projects: {<abs project root>: {<item id>: {allowed, fingerprint, at}}}``. A file that cannot be
    read counts as "no answers" (everything is asked again), is logged, and is replaced at the next answer."""

    def __init__(self, home: Path) -> None:
        self.path = home / CONSENT_FILE
        self._lock = home / ".consent.lock"

    def _read(self) -> dict[str, Any]:
        try:
            data = yaml.safe_load(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            log.warning("consent_file_unreadable", path=str(self.path), exc_info=True)
            return {}
        return data if isinstance(data, dict) else {}

    def _answers(self, data: dict[str, Any], project_root: Path) -> dict[str, Any]:
        projects = data.get("projects")
        answers = projects.get(str(project_root)) if isinstance(projects, dict) else None
        return answers if isinstance(answers, dict) else {}

    def decision(self, project_root: Path, item: ConsentItem) -> bool | None:
        """The recorded answer for this exact item, or None when never asked or its content changed."""
        answer = self._answers(self._read(), project_root).get(item.id)
        if not isinstance(answer, dict) or answer.get("fingerprint") != item.fingerprint:
            return None
        allowed = answer.get("allowed")
        return allowed if isinstance(allowed, bool) else None

    def record(self, project_root: Path, items: Sequence[ConsentItem], allowed: bool) -> None:
        """Remember the answer for ``items`` (replacing any earlier answer for the same ids)."""
        if not items:
            return
        with locked(self._lock):
            data = self._read()
            projects = data.setdefault("projects", {})
            if not isinstance(projects, dict):
                projects = data["projects"] = {}
            answers = projects.setdefault(str(project_root), {})
            if not isinstance(answers, dict):
                answers = projects[str(project_root)] = {}
            stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            for item in items:
                answers[item.id] = {"allowed": allowed, "fingerprint": item.fingerprint, "at": stamp}
            atomic_write_text(self.path, yaml.safe_dump(data, sort_keys=True, allow_unicode=True))

    def forget(self, project_root: Path) -> int:
        """Drop every answer recorded for this project (it will be asked again); how many there were."""
        with locked(self._lock):
            data = self._read()
            projects = data.get("projects")
            if not isinstance(projects, dict) or str(project_root) not in projects:
                return 0
            count = len(self._answers(data, project_root))
            del projects[str(project_root)]
            atomic_write_text(self.path, yaml.safe_dump(data, sort_keys=True, allow_unicode=True))
            return count

    def answers(self, project_root: Path) -> dict[str, bool]:
        """Every recorded answer of this project, by item id (for ``catcode config`` and tests)."""
        return {
            key: bool(value.get("allowed"))
            for key, value in self._answers(self._read(), project_root).items()
            if isinstance(value, dict)
        }


def gate(
    store: ConsentStore,
    project_root: Path,
    items: Sequence[ConsentItem],
    ask: Asker | None,
    notify: Callable[[str], None] = lambda line: None,
) -> list[ConsentItem]:
    """The items that may be used: those allowed before, plus — when ``ask`` is given — those the person allows
    now, all new ones in one question. Refused items (now or before) and, without an asker, unanswered ones are
    left out with one line through ``notify``."""
    allowed: list[ConsentItem] = []
    unknown: list[ConsentItem] = []
    refused: list[ConsentItem] = []
    for item in items:
        decision = store.decision(project_root, item)
        if decision is None:
            unknown.append(item)
        elif decision:
            allowed.append(item)
        else:
            refused.append(item)
    if unknown and ask is not None:
        answer = ask(project_root, unknown)
        store.record(project_root, unknown, answer)
        (allowed if answer else refused).extend(unknown)
        log.info("consent_answered", project=str(project_root), items=[i.id for i in unknown], allowed=answer)
        unknown = []
    if refused:
        notify(f"Not using from this project (you said no): {_names(refused)} — `catcode config trust` asks again")
    if unknown:
        notify(f"Not using from this project until you allow it in an interactive session: {_names(unknown)}")
    return [item for item in items if item in allowed]


def _names(items: Sequence[ConsentItem]) -> str:
    shown = [item.summary for item in items[:3]]
    more = f" and {len(items) - 3} more" if len(items) > 3 else ""
    return "; ".join(shown) + more


def consent_question(project_root: Path, items: Sequence[ConsentItem]) -> str:
    """The text shown before asking: what the project wants, and that the answer is remembered."""
    lines = [f"This project ({project_root}) asks for things that need your consent:"]
    lines += [f"  - {item.summary}" for item in items]
    lines.append("Your answer is remembered for this project until these change.")
    return "\n".join(lines)


def terminal_asker(read: Callable[[str], str], write: Callable[[str], None]) -> Asker:
    """An ``Asker`` for a terminal: ``write`` shows the question, ``read(prompt)`` returns the typed line (and
    raises KeyboardInterrupt or EOFError on Ctrl+C / Ctrl+D, which mean no, as does Enter)."""

    def ask(project_root: Path, items: Sequence[ConsentItem]) -> bool:
        write(consent_question(project_root, items) + "\n")
        try:
            answer = read("Allow them? [y/N] ")
        except (KeyboardInterrupt, EOFError):
            write("\n")
            return False
        return answer.strip().lower() in ("y", "yes")

    return ask
