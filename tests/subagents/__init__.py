"""Tests of catcode.extensions.subagents."""
