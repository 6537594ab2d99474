"""The fence around the model's shell commands: bash runs inside bubblewrap (Linux), writing only where the person
said it may and, by default, reaching no network.

- ``probe.py``: can bubblewrap start here, and with which flags does it hold (no capability, as root too)? Asked
  once per process; ``proof.py``: the trial run inside the fence that proves it (the probe and ``catcode doctor``).
- ``fence.py``: ``Fence``: what one session's commands may write, read and reach, and the bwrap command line for it.
- ``guards.py``: the project paths a command must not create or change, held read-only even when they do not exist
  yet: ``.cat-code/``, ``.claude/`` and the table of ``git_files.py`` (every file git reads settings or programs from).
- ``hardlinks.py``: the project's files hard-linked outside it (pnpm's store), found off the command's path.
- ``hidden.py``: what a command cannot read (credential stores, catcode's own folders); ``environment.py``: the
  variables it does not get.
- ``seccomp.py``: the filter that refuses io_uring, and Unix sockets when the network is off (the filesystem's
  sockets would otherwise reach the host's daemons).
- ``loosening.py``: what a project's settings may not loosen without the person's consent.

Its settings (``sandbox: {mode, network, writable, hidden, readable, env}``) are ``settings/sandbox.py``. bubblewrap
itself is found by ``catcode.programs``, never in the project.

MCP servers and user hooks are the person's own programs and run outside the fence."""

SANDBOX_MODES = ("workspace-write", "read-only", "off")
"""The values of ``sandbox.mode`` (and of ``--sandbox``), the strongest first."""
