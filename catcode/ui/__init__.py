"""The terminal user interface. ``catcode`` with no arguments enters ``repl.run_interactive``.

- ``repl.py``: ``run_interactive`` (builds session, registry and prompt; piped stdin goes to ``piped.py``),
  ``build_registry`` (built-ins + ``session.extras["register_commands"]``), ``Conversation`` (runs one line:
  slash command or agent turn, never losing the session), ``Repl`` (the prompt loop, notices, SDK warm-up).
- ``render.py``: ``ReplEvents`` (agent events → screen), ``MarkdownStream`` (streamed Markdown with a spinner
  and a transient Live), ``PlainStream`` (piped output), tool-call, result and error lines.
- ``approval.py``: ``TerminalApprover`` (the permission prompt: arguments, coloured diff, y / n / n reason /
  a), ``ask_yes_no`` (``CommandContext.confirm``).
- ``completion.py``: ``ReplCompleter`` (slash commands with their help, subcommands, arguments, ``@path``).
- ``keys.py``: reading input: ``make_prompt`` (the main prompt: key bindings — Ctrl+C clears or hints, Alt+Enter
  inserts a newline —, per-project history, completion, bottom toolbar) and ``AnswerReader`` (one-line answers).
- ``history.py``: ``RedactedFileHistory``, the per-project typed-line history: redacted before it is written, 0600.
- ``piped.py``: ``run_piped``: stdin lines as successive messages, plain output, no prompts.
"""
