"""Eval Workbench: defensible evaluation numbers, each with its denominator and conventions."""

__version__ = "0.1.0"
