"""catcode: a terminal coding agent on Claude whose centrepiece is memory across sessions.

The package in floors, lowest first; a module imports from its own floor or lower ones only
(``tests/test_import_cycles.py`` holds it to that, lazy imports included):

- the helpers every floor uses: ``errors``, ``log``, ``fsutil``, ``confined`` (reading a planted file only from
  where it belongs), ``boundary`` (text catcode did not write, in a tag it cannot close), ``file_modes``, ``text``,
  ``screen`` (the console that lets only catcode's own styling reach the terminal), ``names``, ``front_matter``,
  ``redact/`` (secrets out of anything written or shown) and ``programs`` (git, bubblewrap, the shell, found where
  the project cannot plant them);
- ``settings/``: what the layered settings say (one module per section), where files are, what was consented to;
- ``conversation/``: messages and content blocks, transcripts, images; ``hooks/``: the hook bus a session fires;
- ``providers/`` (the model API, tokens, prices) and ``sandbox/`` (the fence around bash);
- ``tools/``: the built-in tools and the facts each declares; ``safety/``: permissions, shell rules, project trust;
- ``session/``: the agent loop, compaction, instructions, todos; ``commands/``: the slash-command registry and the
  core commands;
- the features, each bringing its own tools, hooks and slash commands: ``memory/``, ``extensions/`` (user hooks,
  skills, the MCP client, subagents), ``checkpoints/``;
- ``app/``: the composition root (``build_session``); ``web/`` (the memory web view) and ``mcp_server/``
  (catcode's memory as an MCP server);
- the front ends: ``ui/`` (the interactive terminal) and ``cli/`` (the entry point, print mode and subcommands).
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
