"""Many memories, fast: memory files in catcode's documented format, written straight to a folder.

The growth benchmark (``scripts/bench_growth.py``) and the import test of 100,000 memories need stores of any
size in seconds; going through catcode's write path would measure the write path. Each memory has a name, a
one-line description, a type, dates spread over two years, and a few sentences drawn from a fixed vocabulary
(seeded: the same call writes the same files), so that a search has words to find and rank.

    python scripts/memory_files.py FOLDER COUNT [--type project] [--claude]

``--claude`` writes Claude Code's auto-memory layout (front matter ``name``, ``description``, ``type``), what
``catcode memory import FOLDER`` reads."""

from __future__ import annotations

import argparse
import os
import random
from datetime import date, timedelta
from pathlib import Path

from catcode.file_modes import private_dir

__all__ = ["memory_text", "write_memories"]

_VOCABULARY = (
    "api auth build cache client config database deploy docker editor error feature flag format git handler "
    "index invoice kafka lint logging login metrics migration module network order parser payment pipeline "
    "postgres queue redis release request retry review schema script search server service session shell "
    "storage stream style table template test timeout token tracing typing upload user vim webhook worker yaml "
    "always never prefer avoid use keep run check write read split merge rename move document explain"
)
_WORDS = _VOCABULARY.split()
_FIRST_DAY = date(2024, 1, 1)


def memory_text(n: int, rng: random.Random, *, kind: str = "project", claude: bool = False) -> tuple[str, str]:
    """The name and file text of memory number ``n``."""
    topic = rng.sample(_WORDS, 3)
    name = f"{'-'.join(topic)}-{n}"
    description = f"{topic[0].capitalize()} {' '.join(rng.choices(_WORDS, k=7))} ({n})"
    body = "\n".join(
        " ".join(rng.choices(_WORDS, k=rng.randint(8, 16))).capitalize() + "." for _ in range(rng.randint(2, 5))
    )
    day = (_FIRST_DAY + timedelta(days=rng.randrange(730))).isoformat()
    if claude:
        return name, f"---\nname: {name}\ndescription: {description}\ntype: {kind}\n---\n{body}\n"
    return name, (
        f"---\nname: {name}\ndescription: {description}\nmetadata:\n  type: {kind}\n  createdAt: {day}\n"
        f"  updatedAt: {day}\n---\n{body}\n"
    )


def write_memories(
    folder: Path, count: int, *, start: int = 0, seed: int = 0, kind: str = "project", claude: bool = False
) -> list[str]:
    """Write memories ``start`` … ``start + count - 1`` into ``folder`` (created 0700 with its parents, files 0600);
    their names."""
    private_dir(folder)
    rng = random.Random(seed * 1_000_003 + start)
    names = []
    for n in range(start, start + count):
        name, text = memory_text(n, rng, kind=kind, claude=claude)
        fd = os.open(folder / f"{name}.md", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, text.encode("utf-8"))
        finally:
            os.close(fd)
        names.append(name)
    return names


def main() -> None:
    """Write COUNT memories into FOLDER."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path)
    parser.add_argument("count", type=int)
    parser.add_argument("--type", default="project", choices=("user", "feedback", "project", "reference"))
    parser.add_argument("--claude", action="store_true", help="Claude Code's auto-memory layout")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    write_memories(args.folder, args.count, kind=args.type, claude=args.claude, seed=args.seed)


if __name__ == "__main__":
    main()
