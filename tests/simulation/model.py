"""``SimModel``: answers the memory pipeline's calls as a model would — and as a model sometimes fails to.

Messages carry a marker (``<<m12.3>>``: session 12, message 3) and some a fact (``REMEMBER f7 feedback
no-touch-tests: ...``). A good extraction proposes the facts of its window; a good consolidation adds each one, or
updates the memory of the same name when one exists. Outcomes are drawn from a seeded generator. Every DECISIVE
reply — the one after which the pipeline applies (or reviews) a window: a good consolidation, or a good extraction
finding nothing — is written to the events file with the window's markers and the facts saved, so the checker
knows what was extracted, and how often."""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from catcode.errors import ProviderError
from catcode.providers.base import ChatResponse
from catcode.providers.scripted import RecordedRequest, ScriptedProvider, text_response

MARKER = re.compile(r"<<m(\d+\.\d+)>>")
FACT = re.compile(r"REMEMBER (f\d+) (user|feedback|project|reference) ([a-z0-9-]+): ([^\n<]*)")
FACT_ID = re.compile(r"\bf\d+\b")
EXTRACTOR, CONSOLIDATOR = "You are a memory extractor", "You are a memory consolidator"
EXTRACTION_OUTCOMES = {"good": 70, "malformed": 8, "empty": 7, "truncated": 7, "error": 8}
CONSOLIDATION_OUTCOMES = {"good": 90, "truncated": 5, "error": 5}


class Events:
    """The events file: one JSON object a line, each written with one ``write`` (a kill never tears one)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def write(self, kind: str, **data: Any) -> None:
        """Append one event."""
        line = json.dumps({"kind": kind, **data}, ensure_ascii=False) + "\n"
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)

    def read(self) -> list[dict[str, Any]]:
        """Every event so far."""
        try:
            return [json.loads(line) for line in self.path.read_text(encoding="utf-8").splitlines() if line]
        except FileNotFoundError:
            return []


class SimModel:
    """The model of one session (``user`` in ``project``); ``tick`` is called first on every call (a kill point)."""

    def __init__(
        self, rng: random.Random, events: Events, *, user: str, project: str, good_only: bool = False,
        tick: Callable[[str], None] = lambda where: None,
    ) -> None:  # fmt: skip
        self.rng, self.events, self.user, self.project = rng, events, user, project
        self.good_only, self.tick = good_only, tick
        self.window: list[str] = []  # the markers of the last extraction, waiting for its consolidation

    def provider(self) -> ScriptedProvider:
        """A ``ScriptedProvider`` that asks this model every time."""
        provider = ScriptedProvider()

        def answer(request: RecordedRequest) -> ChatResponse:
            provider.queue(answer)
            return self(request)

        provider.queue(answer)
        return provider

    def __call__(self, request: RecordedRequest) -> ChatResponse:
        self.tick("model")
        prompt = request.messages[0].text
        if prompt.startswith(EXTRACTOR):
            return self._extract(prompt)
        if prompt.startswith(CONSOLIDATOR):
            return self._consolidate(prompt)
        return text_response("- earlier work in this project, summarised")

    def _outcome(self, weights: dict[str, int]) -> str:
        drawn = self.rng.choices(list(weights), list(weights.values()))[0]
        return "good" if self.good_only else drawn

    def _extract(self, prompt: str) -> ChatResponse:
        conversation = prompt.split("\n## Conversation\n", 1)[1]
        markers = MARKER.findall(conversation)
        candidates = [
            {"type": kind, "name": name, "description": f"{fid}: {text[:60]}", "content": f"{fid}: {text}"}
            for fid, kind, name, text in dict.fromkeys(FACT.findall(conversation))
        ]
        outcome = self._outcome(EXTRACTION_OUTCOMES)
        reply = json.dumps({"candidates": candidates}, ensure_ascii=False)
        if outcome == "error":
            raise ProviderError("API overloaded (529) after 4 retries", status=529)
        if outcome == "malformed":
            return text_response('Here you go: {"candidates": [{"type": "user", "name": ')
        if outcome == "empty":
            return text_response("")
        if outcome == "truncated":
            return text_response(reply[: max(len(reply) // 2, 16)])
        self.window = markers
        if not candidates:
            self.events.write("decided", project=self.project, markers=markers)
        return text_response(reply)

    def _consolidate(self, prompt: str) -> ChatResponse:
        existing = _existing(prompt)
        operations, added, replaced = [], [], []
        batch: dict[str, str] = {}  # name → the fact written under it so far in this batch (a later one replaces it)
        for kind, name, content in re.findall(r"^\d+\. \[(\w+)\] ([a-z0-9-]+): .*\n((?:   .*\n?)*)", prompt, re.M):
            body = "\n".join(line[3:] for line in content.rstrip("\n").split("\n"))
            fid = FACT_ID.search(body)
            entry = {"type": kind, "name": name, "description": body[:60], "content": body}
            if name in existing:
                operations.append({"action": "update", "targetName": name, "entry": entry})
                replaced += FACT_ID.findall(existing[name])
            else:
                operations.append({"action": "add", "targetName": None, "entry": entry})
            if fid:
                added.append({"id": fid.group(), "type": kind, "name": name, "text": body})
                if name in batch:
                    replaced.append(batch[name])
                batch[name] = fid.group()
        outcome = self._outcome(CONSOLIDATION_OUTCOMES)
        reply = json.dumps({"operations": operations}, ensure_ascii=False)
        if outcome == "error":
            raise ProviderError("API error (500)", status=500)
        if outcome == "truncated":
            return text_response(reply[: max(len(reply) // 2, 16)])
        self.events.write("decided", project=self.project, markers=self.window)
        replaced = [fid for fid in replaced if fid not in batch.values()]
        added = [fact for fact in added if fact["id"] in batch.values()]
        self.events.write("saved", user=self.user, project=self.project, facts=added, replaced=replaced)
        return text_response(reply)


def _existing(prompt: str) -> dict[str, str]:
    """The ``## Existing Memories`` of a consolidation prompt: name → its text."""
    section = prompt.split("\n## Existing Memories\n", 1)[1].split("\n## Candidates\n", 1)[0]
    blocks = re.split(r"^### ", section, flags=re.M)[1:]
    found = {}
    for block in blocks:
        head, _, body = block.partition("\n")
        found[head.split(" (", 1)[0]] = body
    return found
