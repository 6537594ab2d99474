"""Tests of catcode.tools."""
