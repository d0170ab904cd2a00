"""Colour for the human-readable output: on a terminal only, as the conventions say.

The order follows CPython's own (`_colorize`): `NO_COLOR` (set and not empty) turns colour
off; otherwise `FORCE_COLOR` (set and not empty) turns it on, terminal or not (for CI logs
that render ANSI codes); otherwise colour is used when the stream is a terminal whose
`TERM` is not `dumb`. See https://no-color.org and https://force-color.org.
"""

from __future__ import annotations

import os
from typing import IO
from collections.abc import Mapping

RESET = "\033[0m"
_CODES = {"bold": "1", "red": "31", "green": "32", "yellow": "33", "blue": "34", "cyan": "36"}


def wants_color(stream: IO[str], environ: Mapping[str, str] | None = None) -> bool:
    """Whether text written to `stream` should carry ANSI colour codes."""
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR"):
        return True
    if env.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


class Style:
    """Paints text with ANSI codes when enabled; leaves it as it is otherwise."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def paint(self, text: str, *styles: str) -> str:
        if not self.enabled or not text or not styles:
            return text
        return f"\033[{';'.join(_CODES[s] for s in styles)}m{text}{RESET}"


PLAIN = Style(False)
