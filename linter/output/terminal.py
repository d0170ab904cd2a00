"""Text from outside gpulint made safe to print on a terminal.

A file name, a source line, a message quoting code, a cache entry or a configuration key
may hold terminal controls: an escape sequence that sets the window title, moves the
cursor, clears the screen or hides text, a carriage return that overwrites what was
printed. The human outputs pass every such text through `printable` before adding their
own colour codes, so what reaches the terminal is text and gpulint's colours only. The
machine formats are left as they are: JSON and SARIF escape control characters. The
GitHub output drops them too, as its annotations land in a log shown as a terminal.
"""

from __future__ import annotations

import re

#: Whole escape sequences first (so no parameters are left behind as text), then any
#: other control character but tab and line feed: C0, DEL and C1.
_CONTROLS = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"  # CSI: ESC [ parameters, intermediates, final byte
    r"|\x1b[]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC, DCS, SOS, PM, APC: to BEL or ST
    r"|\x1b[ -/]*[0-~]?"  # any other escape sequence (ESC 7, ESC ( B, a lone ESC)
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"  # the rest of C0 (tab and line feed kept), DEL, C1
)


def printable(text: str) -> str:
    """`text` without terminal controls; the same object when it holds none."""
    if text.isprintable() or not _CONTROLS.search(text):  # the first: most text, at C speed
        return text
    return _CONTROLS.sub("", text)
