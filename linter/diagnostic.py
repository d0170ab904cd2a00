"""The one shape every finding takes on its way from the engine to the front-ends.

Positions are 1-based lines and 0-based *character* columns. Front-ends convert:
JSON/text/SARIF add 1 to columns, the LSP layer converts to UTF-16, flake8 gets `ast` offsets.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import Any

#: The finding for a file that cannot be parsed (rule GPU001, reported by the engine itself).
SYNTAX_ERROR_CODE = "GPU001"
SYNTAX_ERROR_NAME = "syntax-error"

#: Version of the JSON shape of a diagnostic (CLI json output, SARIF properties, LSP data).
SCHEMA_VERSION = 1


class Applicability(enum.Enum):
    """How a fix may be applied, from most to least permissive. One notion serves both
    sides: a rule declares the best its fixes offer (`Rule.fix`; None: no fix), and each fix
    it produces carries its own, never more permissive than the rule's."""

    SAFE = "safe"  # applied by --fix
    UNSAFE = "unsafe"  # applied with --unsafe-fixes
    DISPLAY = "display-only"  # shown as a suggestion, never applied

    def within(self, limit: Applicability) -> bool:
        """This is no more permissive than `limit` (DISPLAY is within UNSAFE, within SAFE)."""
        return _PERMISSIVENESS[self] <= _PERMISSIVENESS[limit]


_PERMISSIVENESS = {Applicability.DISPLAY: 0, Applicability.UNSAFE: 1, Applicability.SAFE: 2}


@dataclass(frozen=True, kw_only=True)
class Facts:
    """What a rule hands its fixer about one finding (a rule subclasses it with the nodes
    and names its fixer needs). The rule decides how the finding's fix may be applied:
    `applicability`, never more permissive than the rule's declared `fix`; the fixer renders
    a fix of exactly that applicability, or declines (the rule's suggestion is then shown).
    Never serialised."""

    applicability: Applicability


@dataclass(frozen=True, order=True)
class Position:
    line: int  # 1-based
    col: int  # 0-based character offset


@dataclass(frozen=True)
class Edit:
    """Replace the text between `start` and `end` with `content`."""

    start: Position
    end: Position
    content: str
    #: In a notebook, the cell the positions are relative to (1-based); None in a file.
    cell: int | None = None

    def to_json(self) -> dict[str, Any]:
        shape: dict[str, Any] = {
            "content": self.content,
            "location": {"row": self.start.line, "column": self.start.col + 1},
            "end_location": {"row": self.end.line, "column": self.end.col + 1},
        }
        if self.cell is not None:
            shape["cell"] = self.cell
        return shape


@dataclass(frozen=True)
class Fix:
    applicability: Applicability
    message: str
    edits: tuple[Edit, ...] = ()
    #: Names the fix introduces (e.g. a list it collects into); two fixes introducing the
    #: same name are never applied in the same pass. Not serialised.
    introduces: frozenset[str] = field(default=frozenset(), compare=False)

    def applies(self, unsafe_fixes: bool) -> bool:
        if not self.edits:
            return False
        if self.applicability is Applicability.SAFE:
            return True
        return unsafe_fixes and self.applicability is Applicability.UNSAFE

    def to_json(self) -> dict[str, Any]:
        return {
            "applicability": self.applicability.value,
            "message": self.message,
            "edits": [edit.to_json() for edit in self.edits],
        }


@dataclass(frozen=True)
class Record:
    """What a collector noted at a place of the source (readiness's operations): not a
    finding, so no code, no fix and no `# noqa` applies to it."""

    start: Position
    end: Position
    payload: Any
    #: In a notebook, the cell (1-based) that `start` and `end` are relative to.
    cell: int | None = None


@dataclass(frozen=True)
class Diagnostic:
    code: str
    name: str
    message: str
    start: Position
    end: Position
    fix: Fix | None = None
    url: str | None = None
    noqa_line: int | None = None
    #: The rule's `Facts` for its fixer (ast nodes, names, the applicability it decided);
    #: never serialised.
    context: Facts | None = field(default=None, compare=False, repr=False)
    #: In a notebook, the cell (1-based) that `start`, `end` and `noqa_line` are relative to.
    cell: int | None = None

    def fixable(self, unsafe_fixes: bool) -> bool:
        return self.fix is not None and self.fix.applies(unsafe_fixes)

    @property
    def suggestion(self) -> str | None:
        """The rule's concrete advice for this finding (its fix's message, display-only
        ones included), which every front-end shows; None where the rule computed none."""
        return self.fix.message if self.fix is not None and self.fix.message else None

    def with_fix(self, fix: Fix | None) -> Diagnostic:
        return replace(self, fix=fix)

    def to_json(self, filename: str) -> dict[str, Any]:
        """The ruff-compatible JSON shape, plus gpulint's `name` and `schema`."""
        return {
            "cell": self.cell,
            "code": self.code,
            "name": self.name,
            "message": self.message,
            "filename": filename,
            "location": {"row": self.start.line, "column": self.start.col + 1},
            "end_location": {"row": self.end.line, "column": self.end.col + 1},
            "fix": self.fix.to_json() if self.fix else None,
            "noqa_row": self.noqa_line if self.noqa_line is not None else self.start.line,
            "url": self.url,
            "schema": SCHEMA_VERSION,
        }
