"""Odd but valid code: the engine never raises and its answers stay sensible.

Every case goes through the public API (`lint_source`, `fix_text`, `lint_paths`) with all
registered rules, and every diagnostic is checked against the source it points into:
1-based lines that exist, character columns within the line, an end not before the start.
"""

from __future__ import annotations

import ast
import codecs
import json
import re
import subprocess
import sys
import textwrap

import pytest

import gpulint
from gpulint import fix_text, lint_paths, lint_source
from gpulint.engine import analyze
from gpulint.source import Source

KNOWN_CODES = {rule.code for rule in gpulint.all_rules()}


def _lines(text: str) -> list[str]:
    """Lines as Python's tokenizer counts them (\\n, \\r\\n and a lone \\r end a line)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def check(source: str, **kwargs) -> list[gpulint.Diagnostic]:
    """Lint, assert the diagnostics are well formed, and that fixing yields valid code."""
    diagnostics = lint_source(source, **kwargs)
    lines = _lines(source)
    for d in diagnostics:
        assert d.code in KNOWN_CODES, d
        assert 1 <= d.start.line <= len(lines), d
        assert 1 <= d.end.line <= len(lines), d
        assert (d.start.line, d.start.col) <= (d.end.line, d.end.col), d
        assert 0 <= d.start.col <= len(lines[d.start.line - 1]), d
        assert 0 <= d.end.col <= len(lines[d.end.line - 1]), d
    if not any(d.code == "GPU001" for d in diagnostics):
        fixed = fix_text(source, unsafe_fixes=True)
        # a byte order mark handed in is handed back, for writing the file as it was
        assert fixed.startswith("\ufeff") == source.startswith("\ufeff")
        ast.parse(fixed.removeprefix("\ufeff"))
    return diagnostics


def codes(source: str) -> list[str]:
    return [d.code for d in check(textwrap.dedent(source))]


# -- unusual statements and expressions ----------------------------------------------------

ODD_BUT_VALID = {
    "star-unpacking": (
        """
        import pandas as pd
        df = pd.read_csv("a.csv")
        first, *rest = df.columns
        *head, last = [1, 2, 3]
        [a, *b], c = [[1, 2], 3]
        (d, (e, *f)) = 1, (2, 3, 4)
        for (i, row) in df.iterrows():
            print(*row, **{})
        """,
        1,
    ),
    "walrus-in-comprehensions": (
        """
        import pandas as pd
        df = pd.read_csv("a.csv")
        positive = [y for _, row in df.iterrows() if (y := row["a"]) > 0]
        nested = [[(z := j) for j in range(i)] for i in range(3)]
        print(y, z)
        if any((hit := v) > 3 for v in range(5)):
            print(hit)
        """,
        1,
    ),
    "functions-and-classes-in-loops": (
        """
        import pandas as pd
        df = pd.read_csv("a.csv")
        for i in range(3):
            def inner(frame=df):
                for _, row in frame.iterrows():
                    print(row)
                return inner
            class Holder:
                rows = [r for _, r in df.iterrows()]
                def method(self):
                    return df
            while False:
                class Empty: ...
        """,
        2,
    ),
    "async": (
        """
        import pandas as pd
        async def main(df: pd.DataFrame):
            async with lock() as held, other() as (a, b):
                async for item in stream():
                    for _, row in df.iterrows():
                        await send(row)
            results = [x async for x in stream()]
            gen = (await y for y in results)
            return [r async for _, r in aiter_rows(df)]
        """,
        1,
    ),
    "for-else-and-while-else": (
        """
        import pandas as pd
        df = pd.read_csv("a.csv")
        for _, row in df.iterrows():
            if row["a"]:
                break
        else:
            pass
        while cond():
            continue
        else:
            for _, row in df.iterrows():
                pass
        """,
        2,
    ),
    "match-with-captures": (
        """
        import pandas as pd
        match command:
            case {"path": str(path), **rest}:
                df = pd.read_csv(path)
                for _, row in df.iterrows():
                    print(row)
            case [first, *others] if first:
                pass
            case Point(x=0, y=yy) | Point(x=yy, y=0):
                pass
            case {"kind": "frame", "value": pd.DataFrame() as frame}:
                pass
            case (1 | 2) as small:
                pass
            case _:
                pass
        """,
        1,
    ),
    "lambdas-with-defaults": (
        """
        import pandas as pd
        df = pd.read_csv("a.csv")
        f = lambda frame=df, *a, k=1, **kw: [r for _, r in frame.iterrows()]
        g = lambda: (lambda x=lambda: 1: x)()
        h = lambda x, /, y=(lambda: df)(): y
        """,
        1,
    ),
    "decorators": (
        """
        import functools
        from dataclasses import dataclass
        import pandas as pd

        @functools.lru_cache(maxsize=None)
        @(lambda f: f)
        def load(path: str) -> pd.DataFrame:
            return pd.read_csv(path)

        @dataclass(frozen=True)
        class Config:
            frame: pd.DataFrame
            size: int = 3

            @property
            def rows(self):
                return [r for _, r in self.frame.iterrows()]
        """,
        1,
    ),
    "annotations-without-value": (
        """
        import pandas as pd
        df: pd.DataFrame
        count: int
        obj.attr: int
        items[0]: "pd.Series"
        (paren): int
        for _, row in df.iterrows():
            pass
        """,
        1,
    ),
    "statements-outside-their-usual-place": (
        """
        import pandas as pd
        global df
        nonlocal_name = 1
        df = pd.read_csv("a.csv")
        break
        continue
        yield df
        await df
        return df
        """,
        0,
    ),
    "scopes-and-deletes": (
        """
        import pandas as pd
        def outer():
            df = pd.DataFrame()
            def reset():
                nonlocal df
                del df
            try:
                pass
            except* ValueError as group:
                del group
            finally:
                del (df)
        del pd, outer
        """,
        0,
    ),
    "one-liners-and-semicolons": (
        """
        import pandas as pd; df = pd.read_csv("a.csv")
        if df is not None: rows = [r for _, r in df.iterrows()]; print(rows)
        class K: x = 1; y = 2
        while 0: pass
        """,
        1,
    ),
    "f-strings-slices-and-calls": (
        """
        import pandas as pd
        df = pd.read_csv("a.csv")
        width = 10
        label = f"{df!r:>{width}} {df['a'][1:2:3]} {f'{width}'}"
        view = df.iloc[::2, [0, 1]][..., None] if False else df.iloc[1:, :]
        call(*[1], **{"a": 2}, key=[*range(3)], other={**{}})
        chained = 1 < width <= 20 != 3
        """,
        0,
    ),
}


@pytest.mark.parametrize("name", sorted(ODD_BUT_VALID))
def test_odd_but_valid_code(name):
    source, iterrows_findings = ODD_BUT_VALID[name]
    found = codes(source)
    assert "GPU001" not in found
    assert found.count("GPU102") == iterrows_findings, found


# -- deep nesting ------------------------------------------------------------------------------

ITERROWS_TAIL = "df = pd.read_csv('a.csv')\nrows = [r for _, r in df.iterrows()]\n"


@pytest.mark.parametrize(
    "expression",
    [
        " + ".join(["1"] * 500),
        " + ".join(["df"] * 2000),
        "pd.read_csv('a.csv')" + ".copy()" * 400,
        "(" * 150 + "1" + ")" * 150,
        "[" * 90 + "]" * 90,
        "f(" * 150 + ")" * 150,
        "not " * 800 + "x",
        "-" * 800 + "x",
        "lambda: " * 300 + "1",
    ],
    ids=[
        "plus-500",
        "plus-2000",
        "methods-400",
        "parens-150",
        "lists-90",
        "calls-150",
        "not-800",
        "neg-800",
        "lambda-300",
    ],
)
def test_deep_nesting_never_raises(expression):
    source = f"import pandas as pd\nx = {expression}\n{ITERROWS_TAIL}"
    diagnostics = check(source)
    analysis = analyze(Source.from_text(source))
    found = [d.code for d in diagnostics]
    if "GPU001" in found:
        # nested deeper than Python itself can parse: one clean syntax-error finding
        assert found == ["GPU001"]
        return
    too_deep = [w for w in analysis.warnings if "too deeply" in w]
    # either the file was analysed (and the loop after the expression was found), or the
    # analysis says that it was not: never a traceback, never a silent partial result
    if too_deep:
        assert found == []
    else:
        assert found == ["GPU102"], found


def test_nesting_deeper_than_the_parser_is_a_syntax_error_finding():
    source = "import pandas as pd\nx = " + " + ".join(["1"] * 50_000) + "\n"
    [diagnostic] = check(source)
    assert diagnostic.code == "GPU001"
    assert diagnostic.start.line == 1


@pytest.mark.parametrize("depth", [300, 5000])
def test_brackets_nested_past_the_parsers_limit_are_a_syntax_error_finding(tmp_path, depth):
    """More nested brackets than CPython's parser takes is its own limit, not syntax of a
    newer Python: the file gets one GPU001 finding (checked in a process of its own, as the
    concrete-syntax parser lowering would try crashes on such input)."""
    path = tmp_path / "deep.py"
    path.write_text("import torch\nx = " + "(" * depth + "1" + ")" * depth + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "gpulint", "check", "--no-cache", "--output-format", "json", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert [d["code"] for d in json.loads(done.stdout)] == ["GPU001"]


def test_deep_nesting_is_reported_by_lint_paths(tmp_path):
    path = tmp_path / "deep.py"
    path.write_text("import pandas as pd\nx = " + " + ".join(["1"] * 2000) + "\n" + ITERROWS_TAIL)
    [result] = list(lint_paths([path]))
    assert result.error is None
    assert [d.code for d in result.diagnostics] == ["GPU102"] or any("too deeply" in w for w in result.warnings)


def test_deeply_nested_blocks():
    depth = 60
    lines = ["import pandas as pd", "df = pd.read_csv('a.csv')"]
    for level in range(depth):
        keyword = ("if x:", "for i in y:", "while z:", "with w:", "def f():", "class C:")[level % 6]
        lines.append("    " * level + keyword)
    lines.append("    " * depth + "rows = [r for _, r in df.iterrows()]")
    found = [d.code for d in check("\n".join(lines) + "\n")]
    assert found == ["GPU102"]


# -- size and layout -------------------------------------------------------------------------------


@pytest.mark.slow
def test_very_long_file():
    filler = [f"value_{i} = {i} * 2  # line {i}" for i in range(20_000)]
    source = "import pandas as pd\n" + "\n".join(filler) + "\n" + ITERROWS_TAIL
    diagnostics = check(source)
    assert [(d.code, d.start.line) for d in diagnostics] == [("GPU102", 20_003)]


@pytest.mark.slow
def test_many_findings_in_one_file():
    loops = "".join(f"for _, row_{i} in df.iterrows():\n    print(row_{i})\n" for i in range(300))
    diagnostics = check("import pandas as pd\ndf = pd.read_csv('a.csv')\n" + loops)
    assert [d.code for d in diagnostics] == ["GPU102"] * 300
    assert [d.start.line for d in diagnostics] == list(range(3, 603, 2))


@pytest.mark.parametrize(
    "source",
    [
        "",
        "\n",
        "\n\n\n",
        "   \n\t\n",
        "# only a comment\n",
        "# -*- coding: utf-8 -*-\n# import pandas as pd\n",
        "#!/usr/bin/env python\n# pandas iterrows\n",
        '"""pandas docstring only"""\n',
        "\f",
        "pass",
    ],
    ids=repr,
)
def test_files_without_code(source):
    assert check(source) == []


def test_form_feeds():
    source = "\fimport pandas as pd\n\f\ndf = pd.read_csv('a.csv')\n\f\nfor _, row in df.iterrows():\n\f    pass\n"
    [diagnostic] = check(source)
    assert (diagnostic.code, diagnostic.start.line, diagnostic.start.col) == ("GPU102", 5, 14)


def test_tab_indentation_columns_count_characters():
    source = "import pandas as pd\ndef f(df: pd.DataFrame):\n\tfor _, row in df.iterrows():\n\t\tpass\n"
    [diagnostic] = check(source)
    line = source.splitlines()[2]
    assert diagnostic.code == "GPU102"
    assert (diagnostic.start.line, diagnostic.start.col) == (3, line.index("df.iterrows()"))


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
def test_line_endings(newline):
    source = newline.join(
        ["import pandas as pd", "", "df = pd.read_csv('a.csv')", "for _, row in df.iterrows():", "    pass", ""]
    )
    [diagnostic] = check(source)
    assert (diagnostic.code, diagnostic.start.line, diagnostic.start.col) == ("GPU102", 4, 14)
    fixed = fix_text(source, unsafe_fixes=True)
    assert set(re.findall(r"\r\n|\r|\n", fixed)) == {newline}


@pytest.mark.parametrize(
    "newline",
    ["\n", "\r\n", "\r"],
    ids=["lf", "crlf", "cr"],
)
def test_fixes_keep_the_line_endings(newline):
    rule = gpulint.rule_by_key("GPU102")
    example = rule.flagged[0]
    assert example.fixed is not None
    source = example.source.replace("\n", newline)
    fixed = fix_text(source, unsafe_fixes=True)
    assert fixed == example.fixed.replace("\n", newline)


def test_a_file_that_is_only_a_bom(tmp_path):
    path = tmp_path / "bom.py"
    path.write_bytes(codecs.BOM_UTF8)
    [result] = list(lint_paths([path]))
    assert result.error is None
    assert result.diagnostics == []


def test_bom_before_code(tmp_path):
    path = tmp_path / "bom.py"
    path.write_bytes(
        codecs.BOM_UTF8 + b"import pandas as pd; df = pd.read_csv('a'); r = [x for _, x in df.iterrows()]\n"
    )
    [result] = list(lint_paths([path]))
    assert result.error is None
    [diagnostic] = result.diagnostics
    line = "import pandas as pd; df = pd.read_csv('a'); r = [x for _, x in df.iterrows()]"
    assert (diagnostic.code, diagnostic.start.line, diagnostic.start.col) == ("GPU102", 1, line.index("df.iterrows"))


@pytest.mark.parametrize("text", ["\ufeff", "\ufeffimport pandas as pd\n"], ids=["bom-only", "bom-and-code"])
def test_text_that_starts_with_a_bom_is_linted_like_the_file(text):
    assert check(text) == []


def test_text_with_a_bom_before_a_finding():
    line = "import pandas as pd; df = pd.read_csv('a'); r = [x for _, x in df.iterrows()]"
    [diagnostic] = check("\ufeff" + line + "\n")
    assert (diagnostic.code, diagnostic.start.line, diagnostic.start.col) == ("GPU102", 1, line.index("df.iterrows"))


NON_ASCII_LINE = 'étiquettes = ["é", "日本語", "🐼"]; x = [r for _, r in données.iterrows()]'


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
def test_non_ascii_before_a_finding_columns_are_characters(newline):
    source = newline.join(["import pandas as pd", 'données = pd.read_csv("é.csv")', NON_ASCII_LINE, ""])
    [diagnostic] = check(source)
    start = NON_ASCII_LINE.index("données.iterrows()")
    assert diagnostic.code == "GPU102"
    assert (diagnostic.start.line, diagnostic.start.col) == (3, start)
    assert (diagnostic.end.line, diagnostic.end.col) == (3, start + len("données.iterrows()"))


def test_non_ascii_identifier_receiver_is_followed():
    source = "import pandas as pd\nταμπλό = pd.read_csv('a')\nfor _, γραμμή in ταμπλό.iterrows():\n    print(γραμμή)\n"
    [diagnostic] = check(source)
    column = source.splitlines()[2].index("ταμπλό.iterrows()")
    assert (diagnostic.code, diagnostic.start.line, diagnostic.start.col) == ("GPU102", 3, column)


@pytest.mark.parametrize(
    "source",
    ["import pandas as pd\nx = 1\x00\n", "import pandas as pd\nx = '\ud800'\n", "import pandas as pd\nif x:\n"],
    ids=["nul", "lone-surrogate", "truncated"],
)
def test_unparseable_text_is_one_syntax_error_finding(source):
    diagnostics = lint_source(source)
    assert [d.code for d in diagnostics] == ["GPU001"]
    assert fix_text(source, unsafe_fixes=True) == source


# -- large modules are parsed in slices ----------------------------------------------------------

#: Top-level code where a line at column 0 does not start a statement, and statements that
#: span lines in every way: each must stay whole when a large module is parsed in slices.
_SLICE_TRAPS = textwrap.dedent('''\
    import pandas as pd
    TEXT = """
    x = 1
    def not_code():
    """
    values = [
    1,
    ]
    total = 1 + \\
    2
    @staticmethod
    @property
    def decorated(frame: pd.DataFrame):
        out = []
    # a comment at column 0 inside a function
        for _, row in frame.iterrows():
            out.append(row["a"] + 1)
        return out
    if total:
        pass
    elif values:
        pass
    else:
        pass
    try:
        pass
    except ValueError:
        pass
    finally:
        pass
    for i in values:
        pass
    else:
        pass
    class Table:
        name = "x"
    f"""{
    total}"""
    ''')


def test_a_large_module_parsed_in_slices_is_the_same_tree(monkeypatch):
    """The tree of a module parsed in slices equals the one `ast.parse` builds, positions
    included, wherever the slices fall (slices of 1, 2, 3... lines try every boundary)."""
    import gpulint.engine

    text = "\n".join(f"def block_{n}():\n    pass\n" + _SLICE_TRAPS for n in range(4))
    expected = ast.dump(ast.parse(text), include_attributes=True)
    source = Source.from_text(text)
    monkeypatch.setattr(gpulint.engine, "_SLICE_TRIES", 100)  # tiny slices need many extensions
    for slice_lines in range(1, 12):
        monkeypatch.setattr(gpulint.engine, "_SLICE_LINES", slice_lines)
        assert gpulint.engine._parse_in_slices(source, "large.py") is not None
        tree = gpulint.engine.parse(source, "large.py")
        assert ast.dump(tree, include_attributes=True) == expected, slice_lines
        compile(tree, "large.py", "exec")


def test_a_large_module_gets_the_same_findings_and_fixes(monkeypatch):
    import gpulint.engine

    text = "\n".join(_SLICE_TRAPS.replace("decorated", f"decorated_{n}") for n in range(30))
    whole = check(text)
    fixed = fix_text(text, unsafe_fixes=True)
    assert whole and fixed != text
    monkeypatch.setattr(gpulint.engine, "_SLICE_LINES", 7)
    assert check(text) == whole
    assert fix_text(text, unsafe_fixes=True) == fixed


def test_a_large_module_with_a_syntax_error_reports_it_exactly(monkeypatch):
    import gpulint.engine

    text = _SLICE_TRAPS * 5 + "def broken(:\n" + _SLICE_TRAPS * 5
    expected = check(text)
    assert [d.code for d in expected] == ["GPU001"]
    monkeypatch.setattr(gpulint.engine, "_SLICE_LINES", 5)
    assert check(text) == expected
