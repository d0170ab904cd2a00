"""Renderers: the libcst half of the fixers that rewrite code structurally.

A fixer plans on `ast` (its module in `gpulint.fixers`); the renderer writes the planned
edits and is imported only when a fix is rendered (applied, shown as a diff, or written into
a machine-readable report), so checking alone never loads libcst.
"""
