"""The terminal user interface. ``catcode`` with no arguments enters ``repl.run_interactive``.

- ``repl.py``: ``start_interactive``/``run_interactive`` (draws the prompt first, the session is built behind it);
  ``prompt_loop.py``: ``Repl`` (the header, resuming a session when asked, a first message, then the prompt loop and
  its notices). ``front_ends.start`` sends piped input to ``piped.py``.
- ``first_screen.py``: what the prompt needs before the session exists (model, mode, toolbar, paths).
- ``session_start.py``: ``SessionStart`` (the session built in a background thread once the prompt is drawn, then
  the SDK warm-up; waited for by the first line sent) and ``build_conversation`` (session, registry, screen objects).
- ``render.py``: ``MarkdownStream`` (streamed Markdown with a spinner and a transient Live), ``PlainStream``
  (piped output), tool-call, result and error lines.
- ``approval.py``: ``TerminalApprover`` (the permission prompt: arguments, coloured diff, y / n / n reason /
  a), ``ask_yes_no`` (``CommandContext.confirm``).
- ``completion.py``: ``ReplCompleter`` (slash commands with their help, subcommands, arguments, ``@path``).
- ``keys.py``: reading input: ``make_prompt`` (the main prompt, drawn before the session exists: key bindings —
  Ctrl+C clears or hints or ends a Ctrl+R search, Alt+Enter or ``\\`` Enter inserts a newline, Shift+Tab cycles the
  mode, Ctrl+O pages the last tool output —, per-project history, completion, bottom toolbar with dollars) and
  ``AnswerReader`` (one-line answers).
- ``history.py``: ``RedactedFileHistory``, the per-project typed-line history: redacted before it is written, 0600.
- ``line_runner.py``: ``Conversation`` (runs one line: slash command or agent turn with ``@path`` attachments,
  never losing the session), ``build_registry``; shared by the REPL and piped input (which do not import each other).
- ``events.py``: ``ReplEvents`` (agent events → screen); ``progress.py``: the spinner's elapsed seconds and a
  running tool's live view (clock, output tail).
- ``status_line.py``: ``StatusLine``, the person's status-line command (Claude Code's ``statusLine``) under the
  prompt.
- ``mcp_wait.py``: ``TerminalWait``, the "waiting for MCP server echo… Esc to send without it" line and its Esc.
- ``piped.py``: ``run_piped``: everything piped in is ONE message; the answer on stdout, progress on stderr.
"""
