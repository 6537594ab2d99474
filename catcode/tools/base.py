"""Tool, ToolResult, ToolContext and ToolRegistry.

One idiom per tool: a pydantic input model + a function + a docstring, turned into a ``Tool`` by the
``@tool`` decorator. The registry validates input and turns every failure into an ``is_error`` result."""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_type_hints

from pydantic import BaseModel, ValidationError

from catcode.errors import CatcodeError
from catcode.log import get_logger
from catcode.tools.facts import Permission as Permission
from catcode.tools.facts import canonical, changes_project, permission_of

if TYPE_CHECKING:
    from catcode.conversation.messages import ImageBlock
    from catcode.sandbox.fence import Fence

# Any: a tool's input and its JSON schema are JSON objects; a tool function takes its own input model (a subclass
# of BaseModel), which a Callable over BaseModel would refuse.

log = get_logger(__name__)


@dataclass
class ToolResult:
    """What a tool hands back to the model."""

    text: str
    is_error: bool = False
    images: list[ImageBlock] = field(default_factory=list)  # what the model sees after the text
    total_lines: int | None = None  # lines of the whole output when ``text`` keeps only part of it (a long command)


@dataclass
class ToolContext:
    """Where and how tools run."""

    project_root: Path
    allowed_dirs: list[Path] = field(default_factory=list)  # readable/writable outside the project root
    read_only_dirs: list[Path] = field(default_factory=list)  # readable outside the project (skill folders)
    cancel: threading.Event = field(default_factory=threading.Event)  # set when the user interrupts
    output: Callable[[str], None] | None = None  # live output of a running tool (any thread), for the screen
    # called with the tool and its input just before a tool that may change the project's files runs (the turn's
    # checkpoint), outside any sandbox
    before_change: Callable[[Tool, BaseModel], None] | None = None
    bash_timeout: int = 120  # seconds: the bash tool's timeout when a call gives none (setting ``bash_timeout``)
    sandbox: Fence | None = None  # the fence bash commands run in (None: no sandbox at all)
    # a file a deny rule keeps read_file from reading (``Read(.env)``): grep leaves it out too
    read_denied: Callable[[Path], bool] | None = None


ToolFunction = Callable[[Any, ToolContext], ToolResult]
PreviewFunction = Callable[[Any, ToolContext], str | None]
LegacyFunction = Callable[[str, dict[str, Any]], dict[str, Any]]
"""``(name called, input) -> input``: a call made with an earlier name or input shape, in the tool's own shape."""


def renamed(fields: dict[str, str]) -> LegacyFunction:
    """A ``LegacyFunction`` that renames earlier input fields (``{"path": "file_path"}``); a field given under its
    own name wins."""

    def convert(name: str, raw: dict[str, Any]) -> dict[str, Any]:
        if not any(key in fields for key in raw):
            return raw
        converted = {fields[key]: value for key, value in raw.items() if key in fields}
        converted.update({key: value for key, value in raw.items() if key not in fields})
        return converted

    return convert


@dataclass
class Tool:
    """A tool the model can call."""

    name: str
    description: str
    input_model: type[BaseModel]
    function: ToolFunction
    permission: Permission = Permission.READ
    preview: PreviewFunction | None = None  # what would change (a unified diff) for the approval prompt
    key_arg: str | None = None  # the argument shown when the call is rendered compactly
    schema: dict[str, Any] | None = None  # the input JSON schema when it does not come from input_model (MCP tools)
    concurrent: bool = False  # several calls in one reply may run at the same time (the task tool)
    interactive: bool = False  # it talks with the person itself (ExitPlanMode): no live view while it runs
    legacy: LegacyFunction | None = None  # reads a call made with an earlier name or input shape (``read_file``)
    _spec: dict[str, Any] | None = field(default=None, repr=False, compare=False)

    def spec(self) -> dict[str, Any]:
        """The Messages API description of this tool (built once: it is sent with every request)."""
        if self._spec is None:
            schema = dict(self.schema) if self.schema is not None else _untitled(self.input_model.model_json_schema())
            schema.pop("title", None)
            self._spec = {"name": self.name, "description": self.description, "input_schema": schema}
        return self._spec

    def parse(self, raw: dict[str, Any]) -> BaseModel:
        """Validate ``raw`` input; raises ``ToolError`` with a readable message."""
        try:
            return self.input_model.model_validate(raw)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'input'}: {e['msg']}" for e in exc.errors())
            raise ToolInputError(f"Invalid input for {self.name}: {problems}") from None


def _untitled(schema: dict[str, Any]) -> dict[str, Any]:
    """A model's JSON schema without the ``title`` pydantic gives each property (sent with every request, read by
    nobody: the property's name says it)."""
    properties = schema.get("properties")
    if isinstance(properties, dict):
        schema = {**schema, "properties": {
            name: {k: v for k, v in spec.items() if k != "title"} if isinstance(spec, dict) else spec
            for name, spec in properties.items()
        }}  # fmt: skip
    return schema


class ToolInputError(CatcodeError):
    """The model sent input that does not match the tool's schema."""


def tool(
    name: str | None = None,
    *,
    permission: Permission | None = None,
    preview: PreviewFunction | None = None,
    key_arg: str | None = None,
    legacy: LegacyFunction | None = None,
) -> Callable[[ToolFunction], Tool]:
    """Make a ``Tool`` from ``def fn(args: InputModel, ctx: ToolContext) -> ToolResult`` with a docstring. The
    permission of one of catcode's own tools is its row in ``tools/facts.py``; ``permission`` is for any other."""

    def wrap(fn: ToolFunction) -> Tool:
        params = list(inspect.signature(fn).parameters)
        model = get_type_hints(fn)[params[0]]
        return Tool(
            name=name or fn.__name__,
            description=inspect.cleandoc(fn.__doc__ or ""),
            input_model=model,
            function=fn,
            permission=permission or permission_of(name or fn.__name__) or Permission.READ,
            preview=preview,
            key_arg=key_arg,
            legacy=legacy,
        )

    return wrap


class ToolRegistry:
    """The tools offered to the model, by name, in registration order."""

    def __init__(self, tools: list[Tool] | None = None) -> None:
        self._tools: dict[str, Tool] = {}
        self._absent: list[Callable[[str], str | None]] = []
        for t in tools or []:
            self.register(t)

    def register(self, t: Tool) -> None:
        """Add ``t`` (a later tool of the same name replaces the earlier)."""
        self._tools[t.name] = t

    def get(self, name: str) -> Tool | None:
        """The tool called ``name`` (or one of catcode's tools by an earlier name: ``read_file`` is ``Read``)."""
        found = self._tools.get(name)
        if found is None and (own := canonical(name)) is not None:
            found = self._tools.get(own)
        return found

    def remove(self, name: str) -> None:
        """Stop offering the tool ``name`` (``--tools``)."""
        self._tools.pop(name, None)

    def names(self) -> list[str]:
        """Registered names in order."""
        return list(self._tools)

    def explain_absent(self, why: Callable[[str], str | None]) -> None:
        """Add ``why(name)``: why a tool the model called is not here yet (None: not one ``why`` knows of)."""
        self._absent.append(why)

    def unknown(self, name: str) -> str:
        """What the model is told when it calls ``name``, which is not registered: why, where a part knows (an
        MCP server still starting), else the tools there are."""
        for why in self._absent:
            reason = why(name)
            if reason:
                return reason
        return f"Unknown tool {name}. Available tools: {', '.join(self.names())}"

    def specs(self, hidden: Callable[[str], bool] | None = None) -> list[dict[str, Any]]:
        """API descriptions of the tools offered — all but those ``hidden`` names (a tool denied as a whole) — in a
        stable order (prompt caching depends on it)."""
        return [t.spec() for t in self._tools.values() if hidden is None or not hidden(t.name)]

    def execute(self, t: Tool, args: BaseModel, ctx: ToolContext) -> ToolResult:
        """Run ``t``; any exception becomes an ``is_error`` result. ``KeyboardInterrupt`` propagates. A tool that
        may change the project's files (``facts.changes_project``: not memory's) is preceded by
        ``ctx.before_change``."""
        if ctx.before_change is not None and changes_project(t.name, t.permission):
            ctx.before_change(t, args)
        try:
            result = t.function(args, ctx)
        except CatcodeError as exc:
            return ToolResult(str(exc), is_error=True)
        except Exception as exc:
            log.exception("tool_crashed", tool=t.name)
            return ToolResult(f"Tool {t.name} failed: {type(exc).__name__}: {exc}", is_error=True)
        if not isinstance(result, ToolResult):
            return ToolResult(str(result))
        return result
