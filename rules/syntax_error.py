"""GPU001: the file could not be parsed (reported by the engine itself)."""

from __future__ import annotations

import ast
from functools import cache
from typing import ClassVar

from gpulint.rule_api import SYNTAX_ERROR_CODE, SYNTAX_ERROR_NAME, Example, Rule, Tier


class SyntaxErrorRule(Rule):
    """
    ## What it does
    Reports a file that Python cannot parse, at the position of the error. In a notebook, a
    cell that is valid IPython is not reported.

    ## Evidence
    Valid IPython: magics (`%time`, `%%capture`), shell escapes (`!ls`), help (`obj?`), line
    magics and shell aliases written without their `%` as IPython's automagic allows
    (`pip install torch`, `cd ..`, `mkdir data`), lines pasted with the interpreter's
    `>>>`/`...` prompt, and cells IPython runs once it has cleaned them up (such a cell is
    skipped, neither reported nor checked, as its columns are not Python's): a cell indented
    as a whole, and one pasted from an IPython session with its `In [3]: ` and `...: `
    prompts.

    ## Why is this bad?
    Nothing else can be checked in a file that does not parse, and neither can the
    interpreter run it. gpulint reports the error as a finding instead of failing.

    Code that only a newer Python accepts is no error: gpulint reads the syntax of every
    Python up to 3.14 (`type` statements and type parameters, f-strings that reuse their
    quotes, t-strings) on whichever Python it runs. With `target-version` set (`py311`),
    each such construct newer than the target is reported, and the rest of the file is
    still checked.

    ## Fix safety
    There is no fix: correct the syntax error.
    """

    code = SYNTAX_ERROR_CODE
    name = SYNTAX_ERROR_NAME
    tier = Tier.DEFAULT
    tier_reason = "Nothing else is checked in a file that does not parse: always said"
    level = "error"
    message = "the file could not be parsed"
    nodes = ()
    #: The oldest Python the code must run on (`target-version`); None: any.
    target_version: ClassVar[tuple[int, int] | None] = None

    @classmethod
    def for_target(cls, version: tuple[int, int] | None) -> type[SyntaxErrorRule]:
        """The rule reporting syntax newer than `version` too (same code and docs)."""
        return cls if version is None else _with_target(cls, version)

    flagged = (Example("import pandas as pd\nfor row in pd.read_csv('a.csv').iterrows()\n    pass\n"),)
    ok = (
        Example(
            "import pandas as pd\nframe = pd.read_csv('a.csv')\n",
            reason="A file that parses: the other rules check it.",
        ),
    )

    def check(self, node: ast.AST, ctx: object) -> None:  # the engine reports syntax errors itself
        return None


@cache
def _with_target(rule: type[SyntaxErrorRule], version: tuple[int, int]) -> type[SyntaxErrorRule]:
    return type(
        rule.__name__,
        (rule,),
        {
            "target_version": version,
            "__module__": rule.__module__,
            "__doc__": rule.__doc__,
            "__qualname__": rule.__qualname__,
        },
    )
