"""Tools the model can call.

- ``base.py``: ``Tool``, ``ToolResult``, ``ToolContext``, ``ToolRegistry`` and the ``@tool`` decorator.
- ``paths.py``: resolving paths inside the project (symlinks included) or refusing them.
- ``files.py``: ``read_file``, ``write_file``, ``edit_file``.
- ``search.py``: ``list_files`` (glob) and ``grep`` (regex).
- ``shell.py``: ``bash`` (project root as cwd, timeout, capped output, process-group kill), inside the session's
  sandbox (``catcode.sandbox``) unless it is off or the person allowed a call to leave it.
"""
