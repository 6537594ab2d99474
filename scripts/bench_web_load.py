"""The web view under load (issue 38): requests per second and latency of the real ``catcode memory serve`` under
50 concurrent clients, against the web view as it was before reads were served concurrently — the baseline's
``catcode`` package (``BASELINE``, extracted with ``git archive`` into a temp folder) run by the same interpreter on
the same memory, in the same run, rounds interleaved.

Each client keeps one connection and sends a fixed mix: the scopes, the memory list, one memory, the last 50 changes,
one change's diff, and a search. Figures: requests per second (median of the rounds), p50 and p95 latency, their
ratios to the baseline; quality in the same run: failed requests (must be 0) and the share of answers equal to the
baseline's for the same request, once the servers are idle (must be 1.0).

``python scripts/bench_web_load.py`` prints them; scripts/bench.py imports ``bench_web_load``."""

from __future__ import annotations

import http.client
import json
import os
import signal
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from io import BytesIO
from pathlib import Path

import structlog

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_share import QUERIES, WORDS, _entry, _runtime, _wait_for_url

REPO = Path(__file__).resolve().parents[1]
BASELINE = "2b4b40d"  # the last commit whose web view answered one request at a time
CLIENTS = 50
PER_CLIENT = 20  # requests each client sends per round
ROUNDS = 3


def _baseline_package(into: Path) -> Path | None:
    """The baseline's ``catcode`` package extracted under ``into``; None when the commit is not in this clone."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", BASELINE, "catcode"], capture_output=True)
    if archive.returncode != 0:
        return None
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")
    return into


def _paths(change_id: str, number: int) -> list[str]:
    """Client ``number``'s mix of requests."""
    query = QUERIES[number % len(QUERIES)].replace(" ", "+")
    return [
        "/api/scopes",
        "/api/memory",
        "/api/memory/project/memory-0002",
        "/api/memory/history?limit=50",
        f"/api/memory/history/{change_id}",
        f"/api/search?q={query}&limit=10",
    ]


class Server:
    """A running ``catcode memory serve`` (the current package, or the baseline's with ``package``)."""

    def __init__(self, project: Path, env: dict[str, str], package: Path | None) -> None:
        env = dict(env)
        if package is not None:
            env["PYTHONPATH"] = str(package)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "catcode", "memory", "serve", "--port", "0"], cwd=project, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        self.port, token = _wait_for_url(self.proc)
        self.headers = {"Authorization": f"Bearer {token}"}

    def get(self, connection: http.client.HTTPConnection, path: str) -> tuple[int, bytes]:
        connection.request("GET", path, headers=self.headers)
        response = connection.getresponse()
        return response.status, response.read()

    def connect(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(timeout=30)


def _round(server: Server, changes: list[str]) -> tuple[float, list[float], int]:
    """``CLIENTS`` clients at once, ``PER_CLIENT`` requests each: seconds, each request's latency, failures."""
    latencies: list[float] = []
    failures = [0]
    guard = threading.Lock()
    start_line = threading.Barrier(CLIENTS + 1)

    def client(number: int) -> None:
        mix = _paths(changes[number % len(changes)], number)
        connection = server.connect()
        mine, failed = [], 0
        start_line.wait()
        for i in range(PER_CLIENT):
            began = time.perf_counter()
            try:
                status, _ = server.get(connection, mix[(number + i) % len(mix)])
                failed += status != 200
            except (OSError, http.client.HTTPException):
                failed += 1
                connection.close()
                connection = server.connect()
            mine.append(time.perf_counter() - began)
        connection.close()
        with guard:
            latencies.extend(mine)
            failures[0] += failed

    threads = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
    for thread in threads:
        thread.start()
    start_line.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    return time.perf_counter() - began, latencies, failures[0]


def _answers(server: Server, changes: list[str]) -> list[tuple[int, bytes]]:
    connection = server.connect()
    paths = [path for number, change in enumerate(changes[:3]) for path in _paths(change, number)]
    found = [server.get(connection, path) for path in paths]
    connection.close()
    return found


def _p(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000


def bench_web_load(memories: int = 300) -> dict[str, float | str]:
    """Requests per second, p50 and p95 of the web view under ``CLIENTS`` clients, now and at the baseline."""
    structlog.configure(logger_factory=structlog.ReturnLoggerFactory())
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        package = _baseline_package(base / "baseline")
        if package is None:
            return {"skipped": f"the baseline commit {BASELINE} is not in this clone"}
        project, home = base / "project", base / "home" / ".cat-code"
        project.mkdir()
        runtime = _runtime(home, project)
        for i in range(memories):
            runtime.store.update(_entry(i, WORDS), why="bench")
        changes = [change.sha for change in runtime.git.log(20)]
        env = {**os.environ, "CATCODE_HOME": str(home), "CATCODE_USER_ID": "bench", "HOME": str(base / "home")}
        rates: dict[str, list[float]] = {"now": [], "baseline": []}
        latencies: dict[str, list[float]] = {"now": [], "baseline": []}
        failed = 0
        answers: dict[str, list[tuple[int, bytes]]] = {}
        for _ in range(ROUNDS):
            for name in ("baseline", "now"):
                server = Server(project, env, package if name == "baseline" else None)
                try:
                    server.get(server.connect(), "/api/search?q=warm")  # opens the fact index once
                    seconds, samples, failures = _round(server, changes)
                    answers.setdefault(name, _answers(server, changes))
                finally:
                    server.stop()
                rates[name].append(len(samples) / seconds)
                latencies[name] += samples
                failed += failures
    equal = sum(
        status == 200 and _same(body, answers["baseline"][i][1]) for i, (status, body) in enumerate(answers["now"])
    )
    now_rps, base_rps = statistics.median(rates["now"]), statistics.median(rates["baseline"])
    return {
        "clients": CLIENTS,
        "requests_per_round": CLIENTS * PER_CLIENT,
        "requests_per_s": round(now_rps, 1),
        "baseline_requests_per_s": round(base_rps, 1),
        "ratio_requests_per_s_vs_baseline": round(now_rps / base_rps, 2),
        "p50_ms": round(_p(latencies["now"], 0.5), 1),
        "baseline_p50_ms": round(_p(latencies["baseline"], 0.5), 1),
        "p95_ms": round(_p(latencies["now"], 0.95), 1),
        "baseline_p95_ms": round(_p(latencies["baseline"], 0.95), 1),
        "ratio_p95_vs_baseline": round(_p(latencies["now"], 0.95) / _p(latencies["baseline"], 0.95), 2),
        "quality_failed_requests": failed,
        "quality_answers_equal_baseline_share": round(equal / len(answers["now"]), 3),
    }


def _same(body: bytes, other: bytes) -> bool:
    return json.loads(body) == json.loads(other)


if __name__ == "__main__":
    for key, value in bench_web_load().items():
        print(f"  {key:<42} {value}")
