"""`# noqa` suppressions: blanket, with codes, malformed (warned, never blanket), and only
real comments count."""

from __future__ import annotations

import re
import textwrap

import pytest

from gpulint import lint_source
from gpulint.noqa import parse_directives
from gpulint.source import Source

from .conftest import ITERROWS, write

LOOP = "    for _, row in sales.iterrows():"


def _with_comment(comment: str) -> str:
    assert LOOP in ITERROWS
    return ITERROWS.replace(LOOP, f"{LOOP}  {comment}")


@pytest.mark.parametrize(
    "comment, suppressed",
    [
        ("# noqa", True),
        ("# NOQA", True),
        ("#noqa", True),
        ("# noqa: GPU102", True),
        ("# noqa:GPU102", True),
        ("# noqa:GPU102,E501", True),
        ("# noqa: E501, GPU102", True),
        ("# noqa: E501 GPU102", True),
        ("# noqa : GPU102", True),
        ("# noqa: PERF401,FURB118,GPU102", True),
        ("# noqa: GPU102  # loop kept on purpose", True),
        ("# type: ignore  # noqa: GPU102", True),
        ("# noqa because the frame is tiny", True),  # flake8 reads this as a blanket noqa
        # Free text after the codes, as flake8 allows it.
        ("# noqa: GPU102 (http link too long)", True),
        ("# noqa: GPU102 kept on purpose", True),
        ("# noqa: E501, GPU102 (frame is tiny)", True),
        ("# noqa:E501,GPU102 see the README", True),
        ("# noqa: GPU102. The frame is tiny", True),
        ("# noqa: E501 (GPU102 is fine here)", False),  # a code in the free text is not listed
        ("# noqa: E501 some reason", False),
        ("# noqa: E501", False),
        ("# noqa: GPU101", False),
        ("# noqa: GPU10", False),
        ("# noqa:", False),
        ("# noqa: not-a-code", False),
        ("# noqa: gpu102", False),
        ("# noqa-GPU102", False),
        ("# noqaGPU102", False),
        ("# see noqa docs", False),
    ],
)
def test_directive_on_the_finding_line(comment, suppressed):
    codes = [d.code for d in lint_source(_with_comment(comment), "sales.py")]
    assert codes == ([] if suppressed else ["GPU102"])


def test_noqa_on_another_line_does_nothing():
    source = ITERROWS.replace("    out = []", "    out = []  # noqa")
    assert [d.code for d in lint_source(source, "sales.py")] == ["GPU102"]


def test_noqa_inside_a_string_literal_does_nothing():
    source = ITERROWS.replace(LOOP, '    for _, row in sales.iterrows(): label = "# noqa"')
    source = source.replace('        out.append(row["price"] - row["cost"])\n', "")
    assert "# noqa" in source
    assert [d.code for d in lint_source(source, "sales.py")] == ["GPU102"]
    comprehension = textwrap.dedent("""\
        import pandas as pd

        def f(frame: pd.DataFrame) -> list:
            return [(row["a"], "# noqa: GPU102") for _, row in frame.iterrows()]
    """)
    assert [d.code for d in lint_source(comprehension, "c.py")] == ["GPU102"]


def test_noqa_inside_a_multiline_string_does_nothing():
    source = textwrap.dedent('''\
        import pandas as pd

        def f(frame: pd.DataFrame) -> list:
            note = """
            # noqa
            """
            return [row["a"] for _, row in frame.iterrows()]
    ''')
    # line 5 is string content, not a comment; the finding is on line 7 anyway
    assert [(d.code, d.start.line) for d in lint_source(source, "m.py")] == [("GPU102", 7)]
    directives, _ = parse_directives(Source.from_text(source), frozenset({"GPU102"}))
    assert directives == {}


def test_noqa_suppresses_a_finding_in_a_comprehension():
    source = textwrap.dedent("""\
        import pandas as pd

        def f(frame: pd.DataFrame) -> list:
            return [row["a"] for _, row in frame.iterrows()]  # noqa: GPU102
    """)
    assert lint_source(source, "c.py") == []


def test_noqa_on_a_syntax_error_line():
    assert [d.code for d in lint_source("def f(:\n", "s.py")] == ["GPU001"]
    assert lint_source("def f(:  # noqa: GPU001\n", "s.py") == []
    assert [d.code for d in lint_source("def f(:  # noqa: GPU102\n", "s.py")] == ["GPU001"]


@pytest.mark.parametrize(
    "comment, warning, suppressed",
    [
        ("# noqa: GPU102, not-a-code", "malformed code(s) in noqa directive: not-a-code", True),
        ("# noqa: not-a-code", "malformed code(s) in noqa directive: not-a-code", False),
        ("# noqa:gpu102", "malformed code(s) in noqa directive: gpu102", False),
        ("# noqa:", "`# noqa:` without codes", False),
        ("# noqa: GPU999", "unknown gpulint code(s) in noqa directive: GPU999", False),
        ("# noqa GPU102", "`# noqa` codes need a colon", True),
        ("# noqa: GPU10x", "malformed code(s) in noqa directive: GPU10x", False),
        ("# noqa: GPU1O2", "malformed code(s) in noqa directive: GPU1O2", False),
        ("# noqa: GPU102 E50l (typo)", "malformed code(s) in noqa directive: E50l", True),
        ("# noqa: ,", "`# noqa:` without codes", False),
        ("# noqa: (URL too long)", "malformed code(s) in noqa directive: (URL", False),
    ],
)
def test_malformed_directives_are_warned_and_never_blanket(project, cli, comment, warning, suppressed):
    write(project / "sales.py", _with_comment(comment))
    run = cli("check", "sales.py")
    assert run.code == (0 if suppressed else 1)
    assert ("GPU102" in run.stdout) is not suppressed
    warnings = [line for line in run.errors if line.startswith("warning:")]
    assert len(warnings) == 1, run.errors
    assert warnings[0].startswith("warning: sales.py:5: ")
    assert warning in warnings[0]
    assert cli("check", "--quiet", "sales.py").stderr == ""


@pytest.mark.parametrize(
    "comment",
    [
        "# noqa: E501, PERF401, GPU102",
        "# noqa: GPU102 (http link too long)",
        "# noqa: GPU102 some reason",
        "# noqa:E501,GPU102",
        "# noqa: GPU102 py3 only",
    ],
)
def test_well_formed_directives_are_not_warned(project, cli, comment):
    write(project / "sales.py", _with_comment(comment))
    run = cli("check", "sales.py")
    assert run.code == 0
    assert run.stderr == ""


@pytest.mark.parametrize(
    "comment, codes",
    [
        ("# noqa: E501 (http link too long)", {"E501"}),
        ("# noqa: E501 some reason", {"E501"}),
        ("# noqa:E501,W291", {"E501", "W291"}),
        ("# noqa: E501,W291 because", {"E501", "W291"}),
        ("# noqa: E501 W291", {"E501", "W291"}),
    ],
)
def test_code_lists_read_as_flake8_reads_them(comment, codes):
    defaults = pytest.importorskip("flake8.defaults")

    flake8 = defaults.NOQA_INLINE_REGEXP.search(comment)
    assert flake8 is not None and set(re.split(r"[,\s]+", flake8.group("codes").strip())) == codes
    directives, warnings = parse_directives(Source.from_text(f"x = 1  {comment}\n"), frozenset())
    assert directives[1].codes == codes and warnings == []


def test_noqa_in_json_output_and_noqa_row(project, cli):
    import json

    write(project / "sales.py", _with_comment("# noqa: E501"))
    (item,) = json.loads(cli("check", "--output-format", "json", "sales.py").stdout)
    assert item["noqa_row"] == 5


def test_a_multi_line_finding_is_silenced_on_its_last_line_too():
    from gpulint import lint_source

    source = (
        "import pandas as pd\n\n"
        "def f(df: pd.DataFrame):\n"
        "    return df.apply(\n"
        "        lambda r: r['a'] - r['b'],\n"
        "        axis=1,\n"
        "    )  # noqa: GPU104\n"
    )
    assert lint_source(source) == []
    assert [d.code for d in lint_source(source.replace("# noqa: GPU104", "# noqa: GPU102"))] == ["GPU104"]
    middle = source.replace("    )  # noqa: GPU104\n", "    )\n").replace("axis=1,", "axis=1,  # noqa: GPU104")
    assert [d.code for d in lint_source(middle)] == ["GPU104"], "a line inside the span does not count"


# -- codes split from GPU301 -----------------------------------------------------------------

SPLIT = """\
import torch

device = torch.device("cuda")
model = torch.nn.Linear(4, 1).to(device)
total = 0.0
for batch in range(10_000):
    loss = model(torch.randn(2, 4, device=device)).mean()
    loss.backward()
    total += loss.item()  {total}
    print(loss.item())  {read}
    kept = loss.detach().cpu()  {copy}
"""


def _host_codes(**comments: str) -> list[str]:
    source = SPLIT.format(**{"total": "", "read": "", "copy": "", **comments})
    return [d.code for d in lint_source(source) if d.code in {"GPU301", "GPU307", "GPU308"}]


def test_a_noqa_for_the_code_a_rule_was_split_from_still_silences_it():
    assert _host_codes() == ["GPU308", "GPU307", "GPU301"]
    assert _host_codes(total="# noqa: GPU301", read="# noqa: GPU301", copy="# noqa: GPU301") == []
    assert _host_codes(total="# noqa: GPU308", read="# noqa: GPU307") == ["GPU301"]


def test_the_new_codes_do_not_silence_the_old_one_nor_each_other():
    assert _host_codes(total="# noqa: GPU307", read="# noqa: GPU308", copy="# noqa: GPU307, GPU308") == [
        "GPU308",
        "GPU307",
        "GPU301",
    ]


def test_a_file_exemption_for_the_old_code_covers_the_codes_split_from_it():
    exempt = "# gpulint: noqa: GPU301\n" + SPLIT.format(total="", read="", copy="")
    assert [d.code for d in lint_source(exempt) if d.code.startswith("GPU30")] == []
