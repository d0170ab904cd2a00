"""Writing fixes back: encodings, BOM, line endings and file mode survive; writes are atomic
and refused when the file changed on disk; imports a fix needs are added once; fixing is
idempotent and its output parses."""

from __future__ import annotations

import ast
import os
import stat
import textwrap

import pytest

import gpulint.files
import gpulint.runner
from gpulint import fix_text, lint_source
from gpulint.source import Source, SourceError

from .conftest import ITERROWS, ITERROWS_FIXED, ITERROWS_POSITION, write

LINE, COL = ITERROWS_POSITION

THREE_FIXES = textwrap.dedent('''\
    """Order reports."""
    import pandas as pd


    def sizes(orders: pd.DataFrame) -> list:
        return [("big" if row["qty"] > 10 else "small") for _, row in orders.iterrows()]


    def flags(orders: pd.DataFrame) -> list:
        return [("rush" if row["days"] < 2 else "normal") for _, row in orders.iterrows()]


    def points(orders: pd.DataFrame) -> list:
        out = []
        for _, row in orders.iterrows():
            out.append(3 if row["qty"] > 5 else 1)
        return out
''')


def _fix(cli, *paths: str):
    return cli("check", "--fix", "--unsafe-fixes", *paths)


def test_crlf_stays_crlf(project, cli):
    path = project / "sales.py"
    path.write_bytes(ITERROWS.replace("\n", "\r\n").encode())
    assert _fix(cli, "sales.py").code == 0
    data = path.read_bytes()
    assert data == ITERROWS_FIXED.replace("\n", "\r\n").encode()
    assert data.count(b"\n") == data.count(b"\r\n")


def test_crlf_with_an_added_import(project, cli):
    path = project / "orders.py"
    path.write_bytes(THREE_FIXES.replace("\n", "\r\n").encode())
    assert _fix(cli, "orders.py").code == 0
    data = path.read_bytes()
    assert b"import numpy as np\r\n" in data
    assert data.count(b"\n") == data.count(b"\r\n")


def test_utf8_bom_is_kept(project, cli):
    path = project / "sales.py"
    path.write_bytes(b"\xef\xbb\xbf" + ITERROWS.encode())
    assert _fix(cli, "sales.py").code == 0
    assert path.read_bytes() == b"\xef\xbb\xbf" + ITERROWS_FIXED.encode()


def test_latin1_file_is_written_back_as_latin1(project, cli):
    source = "# -*- coding: latin-1 -*-\n" + ITERROWS.replace("return out", "return out  # marge brute, café")
    path = project / "sales.py"
    path.write_bytes(source.encode("latin-1"))
    assert _fix(cli, "sales.py").code == 0
    data = path.read_bytes()
    assert b"caf\xe9" in data and "é".encode() not in data
    text = data.decode("latin-1")
    assert text.startswith("# -*- coding: latin-1 -*-\n")
    assert '    out = (sales["price"] - sales["cost"]).tolist()\n' in text


def test_file_mode_is_kept(project, cli):
    path = write(project / "sales.py", ITERROWS)
    path.chmod(0o755)
    assert _fix(cli, "sales.py").code == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o755
    assert path.read_text() == ITERROWS_FIXED


def test_write_is_atomic_and_leaves_no_temporary_files(project, cli):
    write(project / "sales.py", ITERROWS)
    assert _fix(cli, "sales.py").code == 0
    assert sorted(p.name for p in project.iterdir()) == ["sales.py"]


def test_symlink_is_kept_and_its_target_fixed(project, cli):
    real = write(project / "real.py", ITERROWS)
    os.symlink("real.py", project / "link.py")
    assert _fix(cli, "link.py").code == 0
    assert (project / "link.py").is_symlink()
    assert real.read_text() == ITERROWS_FIXED


def test_file_changed_on_disk_is_not_written(project, cli, monkeypatch):
    path = write(project / "sales.py", ITERROWS)
    edited = ITERROWS + "\n# saved by an editor meanwhile\n"
    original = gpulint.runner.process_source

    def edit_while_fixing(*args, **kwargs):
        result = original(*args, **kwargs)
        path.write_text(edited)  # someone saves the file after gpulint read it
        return result

    monkeypatch.setattr(gpulint.runner, "process_source", edit_while_fixing)
    run = _fix(cli, "sales.py")
    assert run.code == 2
    assert path.read_text() == edited
    errors = [line for line in run.errors if line.startswith("error:")]
    assert errors == ["error: sales.py: not written: the file changed on disk while it was being fixed"]
    # what is reported is the file as it still is: the finding was not fixed
    assert any(line.startswith(f"sales.py:{LINE}:{COL}: GPU102") for line in run.lines)
    assert not any(line.startswith("Fixed") for line in run.lines)


def test_failed_rename_leaves_the_file_and_no_temporary(project, cli, monkeypatch):
    path = write(project / "sales.py", ITERROWS)

    def refuse(source, target):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(gpulint.files.os, "replace", refuse)
    run = _fix(cli, "sales.py")
    assert run.code == 2
    assert path.read_text() == ITERROWS
    assert [line for line in run.errors if line.startswith("error:")] == [
        "error: sales.py: not written: permission denied"
    ]
    assert sorted(p.name for p in project.iterdir()) == ["sales.py"]


def test_other_files_are_fixed_when_one_cannot_be_written(project, cli, monkeypatch):
    first = write(project / "a.py", ITERROWS)
    second = write(project / "b.py", ITERROWS)
    real_replace = os.replace

    def refuse_a(source, target):
        if os.path.basename(target) == "a.py":
            raise PermissionError(13, "Permission denied")
        return real_replace(source, target)

    monkeypatch.setattr(gpulint.files.os, "replace", refuse_a)
    run = _fix(cli, "a.py", "b.py")
    assert run.code == 2
    assert first.read_text() == ITERROWS
    assert second.read_text() == ITERROWS_FIXED
    assert "Fixed 1 finding in 1 file." in run.lines


def test_numpy_import_added_once_for_several_fixes(project, cli):
    path = write(project / "orders.py", THREE_FIXES)
    run = _fix(cli, "orders.py")
    assert run.code == 0, run.stdout + run.stderr
    assert "Fixed 3 findings in 1 file." in run.lines
    fixed = path.read_text()
    tree = ast.parse(fixed)
    imports = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Import) and any(alias.name == "numpy" for alias in node.names)
    ]
    assert len(imports) == 1
    assert fixed.splitlines()[:3] == ['"""Order reports."""', "import pandas as pd", "import numpy as np"]
    assert fixed.count("np.where(") == 3
    assert "iterrows" not in fixed


def test_existing_numpy_import_is_reused(project, cli):
    source = THREE_FIXES.replace("import pandas as pd\n", "import numpy\nimport pandas as pd\n")
    path = write(project / "orders.py", source)
    assert _fix(cli, "orders.py").code == 0
    fixed = path.read_text()
    assert fixed.count("import numpy") == 1
    assert fixed.count("numpy.where(") == 3 and "np." not in fixed


def test_fixing_is_idempotent_and_output_parses():
    once = fix_text(THREE_FIXES, "orders.py", unsafe_fixes=True)
    ast.parse(once)
    assert fix_text(once, "orders.py", unsafe_fixes=True) == once
    assert lint_source(once, "orders.py") == []


def test_no_fix_is_applied_twice(project, cli):
    path = write(project / "orders.py", THREE_FIXES)
    run = _fix(cli, "orders.py")
    assert "Fixed 3 findings in 1 file." in run.lines
    fixed = path.read_text()
    again = _fix(cli, "orders.py")
    assert again.code == 0 and again.lines == ["All checks passed."]
    assert path.read_text() == fixed
    assert fixed.count(".tolist()") == 3


def test_safe_only_fix_run_writes_nothing_for_unsafe_fixes(project, cli):
    path = write(project / "orders.py", THREE_FIXES)
    before = path.stat().st_mtime_ns
    run = cli("check", "--fix", "orders.py")
    assert run.code == 1
    assert path.read_text() == THREE_FIXES
    assert path.stat().st_mtime_ns == before


def test_diff_of_a_crlf_file_writes_nothing(project, cli):
    path = project / "sales.py"
    data = ITERROWS.replace("\n", "\r\n").encode()
    path.write_bytes(data)
    run = cli("check", "--diff", "--unsafe-fixes", "sales.py")
    assert run.code == 1
    assert path.read_bytes() == data
    lines = run.stdout_bytes.split(b"\n")
    assert b'+    out = (sales["price"] - sales["cost"]).tolist()\r' in lines
    assert b"--- a/sales.py" in lines  # diff headers are the diff's own, plain LF


def test_unencodable_fix_result_is_an_error_not_a_crash():
    source = Source.from_bytes("# coding: latin-1\nx = 'é'\n".encode("latin-1"))
    assert source.encoding == "iso8859-1"
    with pytest.raises(SourceError, match="iso8859-1 cannot encode"):
        source.with_text(source.text + "y = '€'\n").to_bytes()


def test_lone_cr_line_endings(project, cli):
    """Old Mac line endings: positions, noqa and any fix all see the interpreter's lines."""
    source = ITERROWS.replace("return out", 'label = "é"; return out')
    path = project / "sales.py"
    path.write_bytes(source.replace("\n", "\r").encode())
    run = cli("check", "sales.py")
    assert run.lines[0].startswith(f"sales.py:{LINE}:{COL}: GPU102")
    suppressed = source.replace("sales.iterrows():", "sales.iterrows():  # noqa: GPU102")
    (project / "quiet.py").write_bytes(suppressed.replace("\n", "\r").encode())
    assert cli("check", "quiet.py").code == 0
    cli("check", "--fix", "--unsafe-fixes", "sales.py")
    data = path.read_bytes()
    assert b"\n" not in data  # whatever was done kept the file's line endings
    ast.parse(data.decode())


def test_text_with_a_leading_byte_order_mark_keeps_it():
    fixed = fix_text("\ufeff" + ITERROWS, "sales.py", unsafe_fixes=True)
    assert fixed == "\ufeff" + ITERROWS_FIXED
    [diagnostic] = lint_source("\ufeff" + ITERROWS, "sales.py")
    assert (diagnostic.start.line, diagnostic.start.col + 1) == (LINE, COL)


def test_two_fixes_wanting_the_same_new_name_get_distinct_names():
    """Fixes built independently may pick the same fresh name: they go in separate passes,
    and the second, re-linted, sees the name taken."""
    from gpulint import fix_text

    source = (
        "import pandas as pd\n\n"
        "sales = pd.read_csv('s.csv')\n"
        "a = pd.DataFrame()\n"
        "for _, g in sales.groupby('r'):\n"
        "    a = pd.concat([a, g.head(1)])\n"
        "b = pd.DataFrame()\n"
        "for _, g in sales.groupby('k'):\n"
        "    b = pd.concat([b, g.tail(1)])\n"
    )
    fixed = fix_text(source)
    assert "parts = [a]" in fixed and "parts_2 = [b]" in fixed
    assert "a = pd.concat(parts)" in fixed and "b = pd.concat(parts_2)" in fixed


def test_a_fix_that_is_not_applied_does_not_take_a_name():
    """Only the safe fix applies here: it must get the plain name, not `parts_2`."""
    from gpulint import fix_text

    source = (
        "import pandas as pd\n\n"
        "sales = pd.read_csv('s.csv')\n"
        "rows = pd.DataFrame()\n"
        "for i in range(3):\n"
        "    rows = pd.concat([rows, pd.DataFrame([{'i': i}])])\n"
        "top = pd.DataFrame()\n"
        "for _, g in sales.groupby('k'):\n"
        "    top = pd.concat([top, g.head(1)])\n"
    )
    fixed = fix_text(source)
    assert "parts = [top]" in fixed and "parts_2" not in fixed
    assert "rows = pd.concat([rows, pd.DataFrame([{'i': i}])])" in fixed


def test_many_fixes_in_one_file_all_apply_with_distinct_names():
    """Fixes applied in the same pass take distinct names, so a dozen fit in one run."""
    from gpulint import fix_text, lint_source

    lines = ["import pandas as pd", "", "sales = pd.read_csv('s.csv')"]
    for j in range(12):
        lines += [
            f"out{j} = pd.DataFrame()",
            "for _, g in sales.groupby('k'):",
            f"    out{j} = pd.concat([out{j}, g.head(1)])",
        ]
    fixed = fix_text("\n".join(lines) + "\n")
    assert [d.code for d in lint_source(fixed)] == []
    names = {f"parts_{j}" for j in range(2, 13)} | {"parts"}
    assert all(f"{name} = [" in fixed for name in names)


def test_a_fix_that_only_adds_an_import_introduces_no_name():
    from gpulint import lint_source, rule_by_key

    example = rule_by_key("GPU102").flagged[2]  # its rewrite needs `import numpy as np`
    [diagnostic] = [d for d in lint_source(example.source) if d.code == "GPU102"]
    assert any("import numpy" in edit.content for edit in diagnostic.fix.edits)
    assert diagnostic.fix.introduces == frozenset()


# -- imports a fix needs: reused only where they run before the rewritten code -------------
# The fix used: GPU205's rewrite of `[x if x > 1 else 0 for x in a]` over a Series,
# `np.where(...).tolist()`.

#: A Series read from JSON: data of a size the code does not show (a literal would be toy-sized).
ARRAY = "import io\nimport pandas as pd\na = pd.read_json(io.StringIO('[3, 1, 2]'), typ='series')\n"


def _run(code: str) -> dict:
    namespace: dict = {"__name__": "fixed"}
    exec(compile(code, "fixed.py", "exec"), namespace)
    return namespace


def _numpy_imports(code: str) -> list[ast.Import]:
    return [
        node
        for node in ast.walk(ast.parse(code))
        if isinstance(node, ast.Import) and any(alias.name == "numpy" for alias in node.names)
    ]


def test_a_fix_before_the_files_own_import_adds_one_that_runs_first():
    source = ARRAY + "first = [x if x > 1 else 0 for x in a]\nimport numpy as np\nlast = np.sort(a).tolist()\n"
    fixed = fix_text(source, unsafe_fixes=True)
    assert "for x in a" not in fixed
    assert _run(fixed)["first"] == [3, 0, 2]  # not a NameError
    assert fixed.splitlines()[:3] == ["import io", "import pandas as pd", "import numpy as np"]
    assert fix_text(fixed, unsafe_fixes=True) == fixed


def test_a_function_defined_before_the_import_gets_an_import_that_runs_first():
    source = ARRAY + "def first():\n    return [x if x > 1 else 0 for x in a]\nimport numpy as np\nvalue = first()\n"
    fixed = fix_text(source, unsafe_fixes=True)
    assert _run(fixed)["value"] == [3, 0, 2]
    assert len(_numpy_imports(fixed)) == 2


def test_an_import_above_the_statement_is_reused():
    source = (
        "import numpy as np\n" + ARRAY + "def first():\n    return [x if x > 1 else 0 for x in a]\nvalue = first()\n"
    )
    fixed = fix_text(source, unsafe_fixes=True)
    assert len(_numpy_imports(fixed)) == 1 and "np.where(a" in fixed
    assert _run(fixed)["value"] == [3, 0, 2]


@pytest.mark.parametrize(
    ("other", "name"),
    [
        ("def g(np):\n    return np\n", "numpy"),  # `np` is a parameter somewhere: not always NumPy
        ("del np\n", "numpy"),
        ("np = 1\nnumpy = 2\n", "np_2"),
    ],
)
def test_a_name_bound_to_something_else_is_not_taken_for_numpy(other, name):
    source = "import numpy as np\n" + ARRAY + other + "first = [x if x > 1 else 0 for x in a]\n"
    fixed = fix_text(source, unsafe_fixes=True)
    assert f"first = {name}.where(a" in fixed
    assert _run(fixed)["first"] == [3, 0, 2]
    assert fix_text(fixed, unsafe_fixes=True) == fixed


@pytest.mark.parametrize(
    "source",
    [
        "import io, pandas as pd; a = pd.read_json(io.StringIO('[3, 1, 2]'), typ='series'); "
        "first = [x if x > 1 else 0 for x in a]\nimport numpy as np\n",
        '"""Doc."""; import io, pandas as pd; a = pd.read_json(io.StringIO("[3, 1, 2]"), typ="series"); '
        "first = [x if x > 1 else 0 for x in a]\n",
        '"""Doc."""\nfrom __future__ import annotations\n'
        + ARRAY
        + "first = [x if x > 1 else 0 for x in a]\nimport numpy as np\n",
    ],
)
def test_the_added_import_runs_first_on_any_layout(source):
    fixed = fix_text(source, unsafe_fixes=True)
    assert "for x in a" not in fixed
    assert _run(fixed)["first"] == [3, 0, 2]
    assert fix_text(fixed, unsafe_fixes=True) == fixed


def test_a_fix_editing_code_above_its_finding_places_its_import_above_that_code():
    """The statement a fix's imports must precede is that of its first edit, when that
    comes before the finding's own statement."""
    from gpulint.diagnostic import Applicability, Diagnostic, Edit, Position
    from gpulint.fixing import apply_edits, attach_fixes, ready

    class EditsAbove:
        code = "GPU999"
        fix = Applicability.SAFE
        suggestion = None

        @staticmethod
        def fixer():
            def plan(diagnostic, ctx):
                name, edits = ctx.ensure_import("numpy", "np")
                at = Position(1, 0)
                return ready(Applicability.SAFE, "", (*edits, Edit(at, at, f"x = {name}.zeros(1)\n")))

            return plan

    source = Source.from_text("y = 1\nimport numpy as np\nz = 2\n")
    finding = Diagnostic("GPU999", "test", "", Position(3, 0), Position(3, 5))
    [fixed], warnings = attach_fixes(source, ast.parse(source.text), [finding], [EditsAbove])
    assert warnings == []
    text = apply_edits(source, fixed.fix.edits)
    assert text == "import numpy as np\nx = np.zeros(1)\ny = 1\nimport numpy as np\nz = 2\n"
    _run(text)


@pytest.mark.parametrize("breaking", ["(\n", "x = " + "a." * 50_000 + "b\n"], ids=["unclosed", "nested too deeply"])
def test_a_fix_that_produces_invalid_code_is_left_out_and_the_fixes_chosen_with_it_apply(monkeypatch, breaking):
    """When the fixes of a pass together give code that does not parse, only the fix that
    breaks it on its own is dropped (and reported); the others still apply."""

    from gpulint import all_rules, pipeline
    from gpulint.diagnostic import Applicability, Edit, Fix, Position

    expected = pipeline.fix_source(Source.from_text(ITERROWS), all_rules(), True)
    assert expected.changed
    end = Position(ITERROWS.count("\n") + 1, 0)
    real = pipeline.attach_fixes

    def with_a_bad_fix(source, tree, diagnostics, rules, unsafe_fixes, index=None, render=True):
        diagnostics, warnings = real(source, tree, diagnostics, rules, unsafe_fixes, index, render)
        if source.text != ITERROWS:
            return diagnostics, warnings
        bad = diagnostics[0]._replace(code="GPU999", fix=Fix(Applicability.SAFE, "breaks", (Edit(end, end, breaking),)))
        return [bad, *diagnostics], warnings

    monkeypatch.setattr(pipeline, "attach_fixes", with_a_bad_fix)
    outcome = pipeline.fix_source(Source.from_text(ITERROWS), all_rules(), True)
    assert outcome.source.text == expected.source.text
    assert [d.code for d in outcome.applied] == [d.code for d in expected.applied]
    reported = [w for w in outcome.warnings if "GPU999" in w]
    assert len(reported) == 1 and "invalid code; not applied" in reported[0]
