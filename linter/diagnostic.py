"""The one shape every finding takes on its way from the engine to the front-ends.

Positions are 1-based lines and 0-based *character* columns. Front-ends convert:
JSON/text/SARIF add 1 to columns, the LSP layer converts to UTF-16, flake8 gets `ast` offsets.

Every check makes these classes, so none is a dataclass (making one costs about half a
millisecond, and importing `dataclasses`, with the `inspect` it imports, several more):
`Position`, `Edit` and `Record` are NamedTuples; `Fix` and `Diagnostic`, which leave a field
out of comparisons, and `Facts` are slots classes.
"""

from __future__ import annotations

import enum
from typing import Any, NamedTuple
from .slots_record import SlotsRecord

#: Set (by `gpulint check --debug`) to put a rule's traceback in its internal error, also in
#: the job processes that check files in parallel.
DEBUG_VARIABLE = "GPULINT_DEBUG"
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


class Facts:
    """What a rule hands its fixer about one finding (a rule subclasses it with the nodes
    and names its fixer needs). The rule decides how the finding's fix may be applied:
    `applicability`, never more permissive than the rule's declared `fix`; the fixer renders
    a fix of exactly that applicability, or declines (the rule's suggestion is then shown).
    Never serialised, and immutable.

    Not a dataclass (start-up: the default rules' facts are made on every check). A subclass
    is either a frozen dataclass that declares `applicability` itself, first, as
    `applicability: Applicability = field(kw_only=True)`, or a slots class whose `__init__`
    sets its own fields with `object.__setattr__` (see `ChainedWrite`)."""

    __slots__ = ("applicability",)

    applicability: Applicability

    def __init__(self, *, applicability: Applicability) -> None:
        object.__setattr__(self, "applicability", applicability)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: {type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: {type(self).__name__} is immutable")


class Position(NamedTuple):
    line: int  # 1-based
    col: int  # 0-based character offset


class Edit(NamedTuple):
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


class Fix(SlotsRecord):
    """A rule's fix: edits of one applicability. A slots record (start-up) rather than a
    NamedTuple: `introduces` and `declined` take no part in comparisons.

    A fix may be *planned* only (`rendered` false): its fixer decided, on `ast`, that it
    applies and how, but its edits were not written, because the run neither applies nor
    shows them (a check printing findings for people). Such a fix has no edits yet, and is
    applicable exactly as its rendered self would be."""

    __slots__ = ("applicability", "message", "edits", "introduces", "rendered", "declined")
    COMPARED = ("applicability", "message", "edits", "rendered")
    SHOWN = __slots__

    def __init__(
        self,
        applicability: Applicability,
        message: str,
        edits: tuple[Edit, ...] = (),
        introduces: frozenset[str] = frozenset(),
        rendered: bool = True,
        declined: str | None = None,
    ) -> None:
        self.applicability = applicability
        self.message = message
        self.edits = edits
        #: Names the fix introduces (e.g. a list it collects into); two fixes introducing the
        #: same name are never applied in the same pass. Not serialised.
        self.introduces = introduces
        self.rendered = rendered
        #: Why the rule's fixer wrote no rewrite for this finding, where it declined one (this
        #: fix is then the rule's display-only suggestion); shown by `--show-fixes`.
        self.declined = declined

    def applies(self, unsafe_fixes: bool) -> bool:
        if self.applicability is Applicability.DISPLAY or self.rendered and not self.edits:
            return False
        return self.applicability is Applicability.SAFE or unsafe_fixes

    def to_json(self) -> dict[str, Any]:
        return {
            "applicability": self.applicability.value,
            "message": self.message,
            "edits": [edit.to_json() for edit in self.edits],
        }


class Record(NamedTuple):
    """What a collector noted at a place of the source (readiness's operations): not a
    finding, so no code, no fix and no `# noqa` applies to it."""

    start: Position
    end: Position
    payload: Any
    #: In a notebook, the cell (1-based) that `start` and `end` are relative to.
    cell: int | None = None


class Diagnostic(SlotsRecord):
    """One finding. A slots record (start-up) rather than a NamedTuple: `context` takes no
    part in comparisons nor in its `repr`."""

    __slots__ = ("code", "name", "message", "start", "end", "fix", "url", "noqa_line", "context", "cell")
    COMPARED = ("code", "name", "message", "start", "end", "fix", "url", "noqa_line", "cell")
    SHOWN = COMPARED

    def __init__(
        self,
        code: str,
        name: str,
        message: str,
        start: Position,
        end: Position,
        fix: Fix | None = None,
        url: str | None = None,
        noqa_line: int | None = None,
        context: Facts | None = None,
        cell: int | None = None,
    ) -> None:
        self.code = code
        self.name = name
        self.message = message
        self.start = start
        self.end = end
        self.fix = fix
        self.url = url
        self.noqa_line = noqa_line
        #: The rule's `Facts` for its fixer (ast nodes, names, the applicability it decided);
        #: never serialised.
        self.context = context
        #: In a notebook, the cell (1-based) that `start`, `end` and `noqa_line` are relative to.
        self.cell = cell

    def fixable(self, unsafe_fixes: bool) -> bool:
        return self.fix is not None and self.fix.applies(unsafe_fixes)

    @property
    def suggestion(self) -> str | None:
        """The rule's concrete advice for this finding (its fix's message, display-only
        ones included), which every front-end shows; None where the rule computed none."""
        return self.fix.message if self.fix is not None and self.fix.message else None

    def with_fix(self, fix: Fix | None) -> Diagnostic:
        return self._replace(fix=fix)

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
