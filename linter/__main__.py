"""`python -m gpulint`: the same as the `gpulint` command."""

from .cli import run

run()
