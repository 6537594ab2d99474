"""The fence around the model's shell commands: bash runs inside bubblewrap (Linux), writing only where the person
said it may and, by default, reaching no network.

- ``probe.py``: can bubblewrap start here? Asked once per process.
- ``fence.py``: ``Fence``: what one session's commands may write and reach, and the bwrap command line for it.
- ``guards.py``: the project paths a command must not create or change (``.git/hooks``, ``.git/config``,
  ``.cat-code/``, ``.claude/``), held read-only even when they do not exist yet.
- ``seccomp.py``: the filter that refuses Unix sockets when the network is off (the filesystem's sockets would
  otherwise reach the host's daemons).
- ``loosening.py``: what a project's settings may not loosen without the person's consent.

Its settings (``sandbox: {mode, network, writable}``) are ``settings/sandbox.py``.

MCP servers and user hooks are the person's own programs and run outside the fence."""

SANDBOX_MODES = ("workspace-write", "read-only", "off")
"""The values of ``sandbox.mode`` (and of ``--sandbox``), the strongest first."""
