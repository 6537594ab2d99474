"""The permission prompt: ``TerminalApprover`` shows a tool call (its arguments and, for file writes, the
coloured diff) and reads a typed answer through an injected ``read(message) -> str`` function.

Answers, confirmed with Enter: ``y`` yes; ``n`` no; ``n <reason>`` no, and the reason goes back to the model;
``a`` always allow — for ``bash`` a scoped rule per command (``bash(git status*)``, see ``shell_rules``), for other
tools the tool — for the rest of the session; ``s`` the same, also saved to ``.cat-code/settings.local.yaml``
(through the injected ``save``). Empty (Enter) means no; Ctrl+C means no and stops the whole turn (the agent's
interrupt); Ctrl+D too, and then the session ends (on a terminal; elsewhere it is a no). Anything else asks again.

What is asked about is shown as it will run: every line of a command, its control characters made visible
(``text.visible``), and nothing cut without saying how much more there is."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from catcode.safety.permission_rules import suggested_rules
from catcode.safety.permissions import ApprovalRequest, Decision
from catcode.text import visible

if TYPE_CHECKING:
    from catcode.safety.plan_mode import PlanDecision

# Any: a tool call's input is the model's JSON object.

Reader = Callable[[str], str]
"""Shows ``message`` and returns the line typed (raises KeyboardInterrupt/EOFError on Ctrl+C/Ctrl+D)."""

REASK = "Answer y (yes), n (no), n <reason> (no, and tell the model why) or a (always allow this session)."
NO_RULE = (
    "This command cannot be allowed by a rule ($(…), backticks, redirections and expansions always ask): answer y or n."
)
NOT_OFFERED = "  a: not offered — $(…), backticks, redirections and expansions always ask"
LOCAL_SETTINGS = ".cat-code/settings.local.yaml"
STOPPED = "Not allowed; the turn is stopped."
SHOWN_LINES = 60  # lines of one argument shown in the question; past that, how many more there are
SHOWN_CHARS = 8000  # characters of one argument shown; past that, how many more there are

Saver = Callable[[list[str]], str]
"""Saves allow rules to the project's local settings (and records consent); returns a line to show."""


def parse_answer(answer: str) -> Decision | None:
    """The decision a typed answer means, or None when it means nothing (ask again)."""
    word, _, rest = answer.strip().partition(" ")
    word, reason = word.lower(), rest.strip()
    if not word:
        return Decision(False)
    if word in ("y", "yes") and not reason:
        return Decision(True)
    if word in ("a", "always") and not reason:
        return Decision(True, always=True)
    if word in ("s", "save") and not reason:
        return Decision(True, always=True, rules=("save",))
    if word in ("n", "no"):
        return Decision(False, reason=reason)
    return None


def is_diff(preview: str) -> bool:
    """Does ``preview`` look like a unified diff?"""
    return preview.startswith(("--- ", "diff ")) or "\n@@ " in preview


def diff_text(diff: str) -> Text:
    """A unified diff with additions green, removals red and hunk headers cyan."""
    out = Text()
    for line in diff.split("\n"):
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        elif line.startswith("@@"):
            style = "cyan"
        elif line.startswith(("\\", "…")):
            style = "dim"
        else:
            style = ""
        out.append(visible(line, exact=True) + "\n", style=style)
    out.rstrip()
    return out


def argument_lines(tool_input: dict[str, Any], skip: set[str] | None = None) -> Text:
    """``  key: value`` per argument, shown as it will be used: a value of several lines has each on a line of its
    own, every control character is made visible (``ls -la␍; rm``, ``\\u2028``), and what is too long to show
    (past ``SHOWN_LINES`` lines or ``SHOWN_CHARS`` characters) is said, never cut silently."""
    out = Text()
    for key, value in tool_input.items():
        if skip and key in skip:
            continue
        lines, left, count = shown_lines(visible(value if isinstance(value, str) else repr(value), exact=True))
        out.append(f"  {key}: ", style="dim")
        if len(lines) == 1 and not left:
            out.append(lines[0] + "\n")
            continue
        out.append(f"({count:,} line{'s' if count != 1 else ''})\n", style="dim")
        for line in lines:
            out.append(f"    {line}\n")
        if left:
            out.append(f"    … {left} not shown\n", style="yellow")
    out.rstrip()
    return out


def shown_lines(text: str) -> tuple[list[str], str, int]:
    """The lines of ``text`` that fit in the question, what does not ("3 more lines"; "" when all fits), and how
    many lines there are."""
    lines = text.split("\n")
    if len(lines) > 1 and not lines[-1]:
        lines.pop()  # a final line end changes nothing
    shown: list[str] = []
    room = SHOWN_CHARS
    for line in lines[:SHOWN_LINES]:
        shown.append(line[:room])
        room -= len(line)
        if room <= 0:
            break
    left = []
    if shown and len(shown[-1]) < len(lines[len(shown) - 1]):
        left.append(f"{len(lines[len(shown) - 1]) - len(shown[-1]):,} more characters of that line")
    if len(lines) > len(shown):
        more = len(lines) - len(shown)
        left.append(f"{more:,} more line{'s' if more != 1 else ''}")
    return shown, " and ".join(left), len(lines)


def ask_yes_no(read: Reader, question: str) -> bool:
    """A y/N question; anything but yes (including Ctrl+C) is no."""
    try:
        answer = read(f"{question} [y/N] ")
    except (KeyboardInterrupt, EOFError):
        return False
    return answer.strip().lower() in ("y", "yes")


class TerminalApprover:
    """An ``Approver`` that asks the person at the terminal."""

    def __init__(
        self,
        console: Console,
        read: Reader,
        save: Saver | None = None,
        end_session: Callable[[], None] | None = None,
    ) -> None:
        self.console = console
        self.read = read
        self.save = save
        self.end_session = end_session  # Ctrl+D at the prompt: the turn stops and the session ends

    def ask(self, request: ApprovalRequest) -> Decision:
        """Show the call and what "always" would allow, then read answers until one means something."""
        self.show(request)
        name = request.tool.name
        shell = request.tool.key_arg == "command"
        rules = suggested_rules(request.tool, request.input) if shell else [name]
        self._explain_always(rules, shell)
        keys = "y/n/a/s" if self.save is not None and rules else "y/n/a"
        while True:
            try:
                answer = self.read(f"Allow {visible(name)}? [{keys}, Enter = no] ")
            except KeyboardInterrupt:
                self.console.print(Text(STOPPED, style="yellow"))
                raise  # like Esc in Claude Code: the whole turn stops, not only this call
            except EOFError:
                if self.end_session is None:
                    self.console.print(Text("Not allowed.", style="yellow"))
                    return Decision(False)
                self.end_session()
                self.console.print(Text(STOPPED, style="yellow"))
                raise KeyboardInterrupt from None
            decision = parse_answer(answer)
            if decision is not None and decision.always and not rules:
                self.console.print(Text(NO_RULE, style="yellow"))
                continue
            if decision is not None and decision.always:
                return self._always(decision, rules if shell else [], rules)
            if decision is not None:
                return decision
            self.console.print(Text(REASK, style="yellow"))

    def ask_plan(self, plan: str) -> PlanDecision:
        """Plan mode: show the plan ``ExitPlanMode`` carries and read the person's ``PlanDecision``."""
        from catcode.ui.plan_prompt import ask_plan

        return ask_plan(self.console, self.read, plan)

    def _explain_always(self, rules: list[str], shell: bool) -> None:
        if not rules:
            self.console.print(Text(NOT_OFFERED, style="dim"))
            return
        line = visible(f"  a: always allow {', '.join(rules)} this session", exact=True)
        if self.save is not None:
            line += f" · s: and save to {LOCAL_SETTINGS}"
        self.console.print(Text(line, style="dim"))

    def _always(self, decision: Decision, scoped: list[str], shown: list[str]) -> Decision:
        """The decision for "a"/"s": scoped rules (none: the whole tool), saved when asked."""
        if decision.rules == ("save",) and self.save is not None:
            try:
                self.console.print(Text(self.save(shown), style="dim"))
            except Exception as exc:  # the call still runs; only the saving failed
                self.console.print(Text(f"Could not save the rule: {exc}", style="yellow"))
        return Decision(True, always=True, rules=tuple(scoped))

    def show(self, request: ApprovalRequest) -> None:
        """The tool, its arguments and, when it has one, the diff it would make."""
        tool = request.tool
        self.console.print(Text.assemble(("? ", "yellow bold"), (visible(tool.name), "bold"), " wants to run:"))
        preview = request.preview
        diff = preview is not None and is_diff(preview)
        # The diff already shows new content; repeating it as an argument would only push the diff off-screen.
        skip = {"content", "old_string", "new_string"} if diff else set()
        self.console.print(argument_lines(request.input, skip))
        if preview is not None and diff:
            self.console.print(diff_text(preview))
        elif preview:
            self.console.print(Text(visible(preview, exact=True), style="dim"))
