"""The style of ``catcode/`` that a reader can hold the code to (``docs/design.md``, Style): a module over 450 lines
says in its docstring why it stays whole, and no Protocol is written without a member."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "catcode"
LONG = 450
"""Lines past which a module's docstring must say why it is one module ("Over 450 lines because ...")."""


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_a_module_over_450_lines_says_why_it_stays_whole() -> None:
    unexplained = []
    for path in modules():
        text = path.read_text(encoding="utf-8")
        docstring = (ast.get_docstring(ast.parse(text)) or "").lower()
        if len(text.splitlines()) > LONG and f"over {LONG} lines" not in docstring:
            unexplained.append(str(path.relative_to(PACKAGE.parent)))
    assert unexplained == []


def _is_protocol(base: ast.expr) -> bool:
    target = base.value if isinstance(base, ast.Subscript) else base  # Protocol[T] too
    return isinstance(target, ast.Name) and target.id == "Protocol"


def empty_protocols(tree: ast.Module) -> list[str]:
    """The classes of ``tree`` that derive from ``Protocol`` and declare nothing but a docstring."""
    return [
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        and any(_is_protocol(base) for base in node.bases)
        and all(isinstance(item, ast.Expr) and isinstance(item.value, ast.Constant) for item in node.body)
    ]


def test_no_protocol_is_empty() -> None:
    empty = {
        f"{path.relative_to(PACKAGE.parent)}:{name}"
        for path in modules()
        for name in empty_protocols(ast.parse(path.read_text(encoding="utf-8")))
    }
    assert empty == set()


def test_an_empty_protocol_is_found() -> None:
    source = '''
class A(Protocol):
    """Doc."""
class B(Protocol[T]):
    """Doc."""
class C(Protocol):
    def f(self) -> None: ...
'''
    tree = ast.parse(source)
    assert empty_protocols(tree) == ["A", "B"]
