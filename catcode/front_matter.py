"""YAML front matter — a ``---`` line, YAML fields, a ``---`` line, then the body — the format of memory files
(``memory/store/entry_file.py``) and of ``SKILL.md`` (``extensions/skills/``), read and written through pyyaml.

Reading uses libyaml's ``CSafeLoader`` when pyyaml was built with it (5 to 10 times faster than the pure-Python
loader: a store of 10,000 memories is read at start), else ``SafeLoader``. Writing keeps a scalar plain where YAML
allows it and double-quotes it otherwise, never single-quoted or folded: a double-quoted scalar writes any text on
one line with escapes, so a description stays one line of the file."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import yaml

# Any: front matter is YAML data.

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_CLOSING = re.compile(r"^---[ \t]*\r?$", re.M)


class _Dumper(yaml.SafeDumper):
    """yaml's safe dumper, with double quotes wherever it would choose single quotes, and no anchors (two equal
    dates are written twice, not as ``&id001`` and ``*id001``)."""

    def ignore_aliases(self, data: Any) -> bool:
        return True

    def choose_scalar_style(self) -> str:
        style = super().choose_scalar_style()
        return '"' if style == "'" else style


def read(text: str, error: Callable[[str], Exception], *, missing: str) -> tuple[dict[str, Any], str]:
    """The fields of ``text``'s front matter and the body after it (as it is). Raises ``error(missing)`` when
    ``text`` does not start with a ``---`` line (a leading BOM aside), and ``error("broken front matter: ...")``
    when the front matter has no closing ``---`` line, is not valid YAML, or is not a mapping."""
    first, newline, rest = text.removeprefix("\ufeff").partition("\n")
    if first.rstrip() != "---" or not newline:
        raise error(missing)
    closing = _CLOSING.search(rest)
    problem = "no closing '---' line"
    if closing is not None:
        try:
            fields = yaml.load(rest[: closing.start()], Loader=_LOADER)
        except yaml.YAMLError as exc:
            problem = _yaml_problem(exc)
        else:
            if isinstance(fields, dict):
                return fields, rest[closing.end() + 1 :]
            problem = "not a mapping of keys to values"
    raise error(f"broken front matter: {problem}")


def write(fields: dict[str, Any], body: str) -> str:
    """``fields`` as front matter (in their order, non-ASCII text as it is), then ``body``."""
    text = yaml.dump(fields, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=math.inf)
    return f"---\n{text}---\n{body}"


def _yaml_problem(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    where = f" at line {mark.line + 2}" if mark is not None else ""  # +2: 0-based, after the opening '---' line
    problem = getattr(exc, "problem", None) or type(exc).__name__
    hint = " (quote a value that contains ': ')" if "mapping values" in str(problem) else ""
    return f"not valid YAML: {problem}{where}{hint}"
