"""Fixers: one module per fixable rule, named like the rule's module, exposing `fix(diagnostic, ctx)`."""
