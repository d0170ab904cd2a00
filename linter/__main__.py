"""`python -m gpulint`: the same as the `gpulint` command."""

from .cli import main

main(prog_name="gpulint")
