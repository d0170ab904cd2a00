"""GPU001: the file could not be parsed (reported by the engine itself)."""

from __future__ import annotations

import ast

from gpulint.engine import SYNTAX_ERROR_CODE, SYNTAX_ERROR_NAME
from gpulint.rule_api import Example, Rule, Tier


class SyntaxErrorRule(Rule):
    """
    ## What it does
    Reports a file that Python cannot parse, at the position of the error. In a notebook,
    a cell that is valid IPython is not reported: magics (`%time`, `%%capture`), shell
    escapes (`!ls`), help (`obj?`), line magics and shell aliases written without their
    `%` as IPython's automagic allows (`pip install torch`, `cd ..`, `mkdir data`), lines
    pasted with the interpreter's `>>>`/`...` prompt, and cells IPython runs once it has
    cleaned them up (such a cell is skipped, neither reported nor checked, as its columns
    are not Python's): a cell indented as a whole, and one pasted from an IPython session
    with its `In [3]: ` and `...: ` prompts.

    ## Why is this bad?
    Nothing else can be checked in a file that does not parse, and neither can the
    interpreter run it. gpulint reports the error as a finding instead of failing.

    ## Fix safety
    There is no fix: correct the syntax error.
    """

    code = SYNTAX_ERROR_CODE
    name = SYNTAX_ERROR_NAME
    tier = Tier.DEFAULT  # nothing else is checked in a file that does not parse: always said
    level = "error"
    message = "the file could not be parsed"
    nodes = ()
    flagged = (Example("import pandas as pd\nfor row in pd.read_csv('a.csv').iterrows()\n    pass\n"),)
    ok = (Example("import pandas as pd\nframe = pd.read_csv('a.csv')\n"),)

    def check(self, node: ast.AST, ctx: object) -> None:  # the engine reports syntax errors itself
        return None
