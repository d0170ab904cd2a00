"""Small helpers over the standard library's `ast`, shared by rules and fixers.

Dependency-free on purpose: detectors run on `ast` only (libcst is for fixers).
"""

from __future__ import annotations

import ast


def is_reference(node: ast.AST) -> bool:
    """A name or an attribute chain over a name (`frame`, `self.frame`): an expression
    that can be written twice without calling anything."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)
