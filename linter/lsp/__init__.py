"""`gpulint server`: gpulint's findings and fixes in any editor, over the Language Server
Protocol on standard input and output.

The server needs the optional `lsp` extra (`pip install gpulint[lsp]`: pygls and
lsprotocol); nothing here imports them until the server starts, so gpulint itself works
without them. Standard output carries protocol messages only; logs go to standard error.
"""

from __future__ import annotations

MISSING_EXTRA = "the language server needs the `lsp` extra: pip install 'gpulint[lsp]'"


def lsp_available() -> bool:
    """Whether pygls and lsprotocol can be imported."""
    import importlib.util

    return all(importlib.util.find_spec(name) is not None for name in ("pygls", "lsprotocol"))


def serve() -> None:
    """Run the language server on standard input/output until the client says exit."""
    from .server import start_io

    start_io()
