"""JSON output: a list of diagnostics in ruff's JSON shape plus gpulint's `name`."""

from __future__ import annotations

import json as _json
from collections.abc import Sequence

from ..runner import FileResult


def render(results: Sequence[FileResult]) -> str:
    items = [diagnostic.to_json(result.display) for result in results for diagnostic in result.diagnostics]
    return _json.dumps(items, indent=2, ensure_ascii=False) + "\n"
