"""A typed ``/name args`` as the turn it stands for, as Claude Code expands it.

Arguments: ``$ARGUMENTS`` is everything after the name; ``$ARGUMENTS[N]`` and ``$N`` the N-th argument counting
from 0 (``/greet alice bob``: ``$0`` is alice, ``$1`` bob), split as a shell would (quotes group words); ``\\$``
keeps a dollar sign as it is. A command that uses none of them and is given arguments gets ``ARGUMENTS: …`` as its
last line. Then each ``!`cmd``` runs, in the project, inside the fence, and its output takes its place: it is checked
like any bash call, with the command's ``allowed-tools`` allowed too — a call that would ask asks the person (in
print mode nobody can: the command stops with one line saying which line needs a rule, as Claude Code's does). ``@path``
attaches a file as in any message. While the turn runs, ``allowed-tools`` are allowed and ``model`` is the model."""

from __future__ import annotations

import contextlib
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from catcode.errors import CatcodeError
from catcode.extensions.custom_commands.definitions import BANG, CommandDefinition

if TYPE_CHECKING:
    from catcode.session.session import Session

ESCAPED = "\uffff"
EXIT_LINE = re.compile(r"\n?exit code: 0$")


class CommandFailed(CatcodeError):
    """A custom command could not be expanded (a ``!`` line refused or failing); the message says which."""


@dataclass
class PreparedTurn:
    """The text a custom command stands for, and what holds while its turn runs."""

    text: str
    command: CommandDefinition
    session: Session

    @contextlib.contextmanager
    def during(self) -> Iterator[None]:
        """``allowed-tools`` allowed and ``model`` the model while the turn runs; both undone after."""
        from catcode.providers.pricing import model_alias
        from catcode.safety.permission_rules import Rule

        policy, provider = self.session.policy, self.session.provider
        added = [Rule.parse(rule) for rule in self.command.allowed_tools if _valid(rule)]
        before, model = list(policy.session_rules), provider.model
        policy.session_rules.extend(rule for rule in added if rule not in policy.session_rules)
        if self.command.model:
            provider.model = model_alias(self.command.model)
        try:
            yield
        finally:
            policy.session_rules[:] = before + [rule for rule in policy.session_rules if rule not in before + added]
            provider.model = model


def split_line(line: str) -> tuple[str, str]:
    """``/tools:greet alice bob`` → ``("tools:greet", "alice bob")``."""
    name, _, args = line.strip().removeprefix("/").partition(" ")
    return name, args.strip()


def arguments(text: str) -> list[str]:
    """The words of ``text`` as a shell splits them; whitespace-separated when the quotes do not close."""
    if not text.strip():
        return []
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def substitute(body: str, args: str) -> str:
    """``body`` with ``$ARGUMENTS``, ``$ARGUMENTS[N]`` and ``$N`` put in (Claude Code's rules, above)."""
    words = arguments(args)
    body = re.sub(r"(?<!\\)\\\$(?=\d|ARGUMENTS)", ESCAPED, body)
    used = False

    def nth(match: re.Match[str]) -> str:
        nonlocal used
        used = True
        index = int(match.group(1))
        return words[index] if index < len(words) else ""

    body = re.sub(r"\$ARGUMENTS\[(\d+)\]", nth, body)
    body = re.sub(r"\$(\d+)(?!\w)", nth, body)
    if "$ARGUMENTS" in body:
        used = True
        body = body.replace("$ARGUMENTS", args)
    if not used and args:
        body += f"\n\nARGUMENTS: {args}"
    return body.replace(ESCAPED, "$")


def prepare(command: CommandDefinition, args: str, session: Session) -> PreparedTurn:
    """The turn ``/name args`` stands for; ``CommandFailed`` when a ``!`` line is refused or cannot run."""
    body = substitute(command.body, args)
    with PreparedTurn("", command, session).during():
        body = BANG.sub(lambda match: _run(match.group(1), command, session), body)
    header = f"<command-name>/{command.name}</command-name>\n<command-args>{args}</command-args>\n"
    return PreparedTurn(header + body, command, session)


def _run(line: str, command: CommandDefinition, session: Session) -> str:
    """One ``!`` line's output (stdout and stderr as bash gave them), after the permission check."""
    from catcode.safety.permissions import ApprovalRequest, Verdict

    tool = session.tools.get("Bash")
    if tool is None:
        raise CommandFailed(f"/{command.name}: `{line}` cannot run: the bash tool is not available")
    tool_input = {"command": line}
    verdict, reason = session.policy.check(tool, tool_input)
    if verdict is Verdict.DENY:
        raise CommandFailed(f"/{command.name}: `{line}` was refused ({reason})")
    if verdict is Verdict.ASK:
        decision = session.agent.approver.ask(ApprovalRequest(tool, tool_input))
        if not decision.allowed:
            raise CommandFailed(
                f"/{command.name}: `{line}` was not run — allow it with allowed-tools: Bash({line}) in "
                f'{command.path.name}, or a rule such as --allowedTools "Bash({line})"'
            )
    result = session.tools.execute(tool, tool.parse(tool_input), session.context)
    if result.is_error:
        raise CommandFailed(f"/{command.name}: `{line}` failed: {result.text.strip().splitlines()[-1][:200]}")
    return EXIT_LINE.sub("", result.text).rstrip("\n")


def _valid(rule: str) -> bool:
    from catcode.safety.permission_rules import Rule

    try:
        Rule.parse(rule).check_tool(rule)
    except CatcodeError:
        return False
    return True
