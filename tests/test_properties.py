"""Property tests on generated Python source (hypothesmith).

- The engine never raises, whatever valid (or nearly valid) Python it is given, also
  when the source mentions a data library so that the full walk runs, and inside loops.
- Every flagged example of every rule, surrounded by generated statements or with its
  names changed, fixes (with unsafe fixes) to code that parses, and fixing it again
  changes nothing.
"""

from __future__ import annotations

import ast
import io
import keyword
import textwrap
import tokenize
import unicodedata

import hypothesmith
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gpulint import all_rules, fix_text, lint_source

SETTINGS = dict(
    deadline=None,
    database=None,  # nothing written into the project folder
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)

# hypothesmith's own validity checks compile generated code, which warns about odd literals
pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")

FLAGGED = [(rule.code, example.source) for rule in all_rules() for example in rule.flagged if rule.code != "GPU001"]
PREAMBLE = "import pandas as pd\nimport numpy as np\ndf = pd.read_csv('data.csv')\n"


def _parses(source: str) -> bool:
    try:
        ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return False
    return True


def _lint_all_ways(source: str) -> None:
    """Plain; after imports that switch the full walk on; inside a loop and a function."""
    lint_source(source)
    lint_source(PREAMBLE + source)
    body = textwrap.indent(source, "        ") or "        pass\n"
    lint_source(f"{PREAMBLE}def run(frame: pd.DataFrame):\n    for _, row in frame.iterrows():\n{body}\n")


def _assert_fix_is_stable(source: str) -> None:
    fixed = fix_text(source, unsafe_fixes=True)
    if _parses(source):
        assert _parses(fixed), f"fix produced invalid code:\n{fixed}"
    else:
        assert fixed == source, "a file that does not parse must be left alone"
    again = fix_text(fixed, unsafe_fixes=True)
    assert again == fixed, "fixing twice must equal fixing once"


@pytest.mark.slow
@settings(max_examples=80, **SETTINGS)
@given(hypothesmith.from_grammar())
def test_engine_never_raises_on_generated_source(source):
    _lint_all_ways(source)


@pytest.mark.slow
@settings(max_examples=8, **SETTINGS)
@given(hypothesmith.from_node())
def test_engine_never_raises_on_generated_syntax_trees(source):
    _lint_all_ways(source)


def _statements() -> st.SearchStrategy[str]:
    """Generated statements that parse on their own, ending in a newline."""
    return hypothesmith.from_grammar().filter(_parses).map(lambda s: s if s.endswith("\n") or not s else s + "\n")


@pytest.mark.slow
@pytest.mark.skipif(not FLAGGED, reason="no rule has flagged examples")
@settings(max_examples=60, **SETTINGS)
@given(example=st.sampled_from(FLAGGED), prefix=_statements(), suffix=_statements())
def test_fixes_of_surrounded_examples_parse_and_are_idempotent(example, prefix, suffix):
    code, source = example
    mutated = prefix + source + suffix
    assume(_parses(mutated))
    lint_source(mutated)
    _assert_fix_is_stable(mutated)


def _identifiers() -> st.SearchStrategy[str]:
    ascii_names = st.from_regex(r"\A[a-z_][a-z0-9_]{0,7}\Z")
    unicode_names = st.sampled_from(["données", "ταμπλό", "表", "row_é", "ÄÖÜ"])
    return st.one_of(ascii_names, unicode_names).filter(
        lambda s: s.isidentifier() and not keyword.iskeyword(s) and unicodedata.normalize("NFKC", s) == s
    )


def _names(source: str) -> list[str]:
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return sorted({t.string for t in tokens if t.type == tokenize.NAME and not keyword.iskeyword(t.string)})


def _rename(source: str, old: str, new: str) -> str:
    """Replace every NAME token `old` by `new` (attributes and keywords of that name too)."""
    lines = source.splitlines(keepends=True)
    tokens = [
        t for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type == tokenize.NAME and t.string == old
    ]
    for token in reversed(tokens):  # right to left keeps the earlier columns valid
        row, col = token.start
        line = lines[row - 1]
        lines[row - 1] = line[:col] + new + line[col + len(old) :]
    return "".join(lines)


@pytest.mark.slow
@pytest.mark.skipif(not FLAGGED, reason="no rule has flagged examples")
@settings(max_examples=60, **SETTINGS)
@given(data=st.data())
def test_fixes_of_renamed_examples_parse_and_are_idempotent(data):
    code, source = data.draw(st.sampled_from(FLAGGED), label="example")
    renamed = source
    for _ in range(data.draw(st.integers(1, 3), label="renames")):
        old = data.draw(st.sampled_from(_names(renamed)), label="old")
        new = data.draw(_identifiers(), label="new")
        renamed = _rename(renamed, old, new)
    assume(_parses(renamed))
    lint_source(renamed)
    _assert_fix_is_stable(renamed)


def _bound_names(source: str) -> list[str]:
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.alias) and node.asname:
            # `import torch` / `from x import y` name a module or symbol: not free to rename
            names.add(node.asname)
    return sorted(names)


def _renaming_keeps_meaning(example, old: str) -> bool:
    """Renaming every `old` token is a pure rename unless `old` is also a keyword argument
    or an attribute (`device=device`, `torch.device`), or the stem of a name the fix
    derives from it (`weights` -> `weights_device`), or a special method (`__getitem__`),
    which Python calls by its name."""
    if old.startswith("__") and old.endswith("__"):
        return False
    for node in [*ast.walk(ast.parse(example.source)), *ast.walk(ast.parse(example.fixed))]:
        if isinstance(node, ast.keyword) and node.arg == old or isinstance(node, ast.Attribute) and node.attr == old:
            return False
    derived = {n.id for n in ast.walk(ast.parse(example.fixed)) if isinstance(n, ast.Name)}
    return not any(name.startswith(old + "_") for name in derived)


RENAMABLE = [
    pytest.param(rule, index, old, id=f"{rule.code}-{index}-{old}")
    for rule in all_rules()
    if rule.code != "GPU001"
    for index, example in enumerate(rule.flagged)
    if example.fixed is not None
    for old in _bound_names(example.source)
    if _renaming_keeps_meaning(example, old)
]


@pytest.mark.parametrize(("rule", "index", "old"), RENAMABLE)
@pytest.mark.parametrize("new", ["données", "表x"])
def test_fixing_commutes_with_renaming(rule, index, old, new):
    # A name the example binds, renamed to a fresh non-ASCII one (so character and byte
    # columns differ): the fix is the documented fix with the same name changed.
    example = rule.flagged[index]
    renamed = _rename(example.source, old, new)
    assert fix_text(renamed, unsafe_fixes=True) == _rename(example.fixed, old, new)


def test_renaming_helper_renames_tokens_only():
    source = "value = 1  # value\nprint(value, 'value', obj.value)\n"
    assert _rename(source, "value", "données") == ("données = 1  # value\nprint(données, 'value', obj.données)\n")
