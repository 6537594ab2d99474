"""The built-in tools, in the order they are offered to the model.

The order is part of the prompt-cache prefix, so it never depends on anything but this list."""

from __future__ import annotations

from catcode.tools.base import Tool
from catcode.tools.files import edit_file, read_file, write_file
from catcode.tools.search import grep, list_files
from catcode.tools.shell import bash


def builtin_tools() -> list[Tool]:
    """Read, Glob, Grep, Write, Edit, Bash — reads first, then writes, then the shell."""
    return [read_file, list_files, grep, write_file, edit_file, bash]
