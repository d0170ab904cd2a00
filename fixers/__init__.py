"""Fixers: one module per fixable rule, named like the rule's module, exposing
`plan(diagnostic, ctx)`: on `ast`, a `Plan` (applicability, message, renderer) or a
`Decline` with its reason. Structural rewrites are written by their renderer in `render/`,
with libcst, only when a fix is applied or shown."""
