"""Tests of catcode.subagents."""
