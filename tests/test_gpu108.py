"""GPU108 read-in-loop: what is a file read, precedence over GPU101, and odd code."""

from __future__ import annotations

import textwrap

import pytest

from gpulint import Applicability, fix_text, lint_source

from .execution import assert_same_result, run_example

HEADER = "import pandas as pd\n\nframe = pd.DataFrame()\npaths = ['a.csv', 'b.csv']\n"


def _codes(source: str) -> list[str]:
    return [d.code for d in lint_source(source)]


@pytest.mark.parametrize(
    "body",
    [
        "for path in paths:\n    frame = pd.concat([frame, pd.read_csv(path)])\n",
        "for path in paths:\n    frame = pd.concat((pd.read_csv(path), frame))\n",
        "for path in paths:\n    frame = pd.concat(objs=[frame, pd.read_excel(path, sheet_name=0)])\n",
        "for path in paths:\n    frame = pd.concat([frame, pd.read_feather(path)[['a', 'b']]])\n",
        "for path in paths:\n    frame = pd.concat([frame, pd.read_csv(path).query('a > 0').reset_index()])\n",
        "for path in paths:\n    part = pd.read_parquet(path)\n    if len(part):\n        frame = pd.concat([frame, part])\n",
        "for path in paths:\n    frame = frame.append(pd.read_csv(path))\n",
        "i = 0\nwhile i < 2:\n    frame = pd.concat([frame, pd.read_csv(paths[i])])\n    i += 1\n",
        "for group in [paths]:\n    for path in group:\n        frame = pd.concat([frame, pd.read_csv(path)])\n",
    ],
)
def test_file_reads_grown_into_a_frame_are_flagged_once(body):
    codes = _codes(HEADER + body)
    assert codes.count("GPU108") == 1 and "GPU101" not in codes, codes


@pytest.mark.parametrize(
    "body",
    [
        # a chunked reader: one file, read once (GPU101's)
        "for chunk in pd.read_csv('big.csv', chunksize=100):\n    frame = pd.concat([frame, chunk])\n",
        "for chunk in pd.read_json('big.json', lines=True, chunksize=100):\n    frame = pd.concat([frame, chunk])\n",
        # every sheet is a dict of frames, not a frame
        "for path in paths:\n    frame = pd.concat([frame, pd.read_excel(path, sheet_name=None)])\n",
    ],
)
def test_reads_that_are_not_whole_frames_are_not_gpu108(body):
    assert "GPU108" not in _codes(HEADER + body)


@pytest.mark.parametrize(
    "body",
    [
        "frames = []\nfor path in paths:\n    frames.append(pd.read_csv(path))\nframe = pd.concat(frames)\n",
        "frame = pd.concat([pd.read_csv(path) for path in paths])\n",
        "for path in paths:\n    copy = pd.concat([frame, pd.read_csv(path)])\n",
        "frame = pd.concat([frame, pd.read_csv('one.csv')])\n",
        "for path in paths:\n    def load(p=path):\n        return pd.concat([frame, pd.read_csv(p)])\n",
        "def read_csv(path):\n    return path\n\nfor path in paths:\n    frame = frame + [read_csv(path)]\n",
    ],
)
def test_near_misses(body):
    assert _codes(HEADER + body) == []


@pytest.mark.parametrize(
    ("imports", "hint"),
    [
        ("import pandas as pd\n", "list"),
        ("import dask.dataframe as pd\n", "dd.read_csv(paths)"),
        ("import cudf as pd\n", "one call"),
    ],
)
def test_the_suggestion_is_display_only_and_names_the_library_idiom(imports, hint):
    source = (
        imports + "frame = pd.DataFrame()\nfor path in ['a.csv']:\n    frame = pd.concat([frame, pd.read_csv(path)])\n"
    )
    [finding] = [d for d in lint_source(source) if d.code == "GPU108"]
    assert finding.fix is not None and finding.fix.applicability is Applicability.DISPLAY and not finding.fix.edits
    assert hint in finding.fix.message
    assert fix_text(source, unsafe_fixes=True) == source


def test_the_message_names_the_grown_frame():
    [finding] = lint_source(
        HEADER + "for path in paths:\n    self_frame = frame\n    frame = pd.concat([frame, pd.read_csv(path)])\n"
    )
    assert "`frame`" in finding.message and finding.start.line == 7


def test_idiom_equals_the_loop_on_files_with_different_dtypes():
    """The documented idiom, run against the loop on files whose columns differ in dtype."""
    setup = textwrap.dedent("""\
        import os
        import tempfile
        folder = tempfile.mkdtemp(prefix="gpulint-test-")
        paths = []
        for part, values in enumerate([[1, 2], [1.5], ["x", "y"]]):
            path = os.path.join(folder, f"{part}.csv")
            pd.DataFrame({"v": values[:N] if N else []}).to_csv(path, index=False)
            paths.append(path)
    """)
    loop = "frame = pd.DataFrame()\nfor path in paths:\n    frame = pd.concat([frame, pd.read_csv(path)], ignore_index=True)\n"
    idiom = "frame = pd.concat([pd.read_csv(path) for path in paths], ignore_index=True)\n"
    for n in (0, 1, 2):
        assert_same_result(
            run_example(setup, loop, "frame", n=n), run_example(setup, idiom, "frame", n=n), strict=False
        )


ODD_CODE = {
    "star-target": "for *rest, path in [paths]:\n    frame = pd.concat([frame, pd.read_csv(path)])\n",
    "walrus": "for path in paths:\n    frame = pd.concat([frame, (part := pd.read_csv(path))])\n",
    "nested-class": "for path in paths:\n    class Reader:\n        frame = pd.read_csv(path)\n"
    "    frame = pd.concat([frame, pd.read_csv(path)])\n",
    "loop-else": "for path in paths:\n    frame = pd.concat([frame, pd.read_csv(path)])\nelse:\n    frame = frame.copy()\n",
    "match": "for path in paths:\n    match path:\n        case 'a.csv':\n"
    "            frame = pd.concat([frame, pd.read_csv(path)])\n        case _:\n            pass\n",
    "async-for": "async def load(stream):\n    frame = pd.DataFrame()\n    async for path in stream:\n"
    "        frame = pd.concat([frame, pd.read_csv(path)])\n    return frame\n",
}


@pytest.mark.parametrize("body", list(ODD_CODE.values()), ids=list(ODD_CODE))
def test_odd_but_valid_code_is_handled(body):
    source = HEADER + body
    assert _codes(source).count("GPU108") == 1
    assert fix_text(source, unsafe_fixes=True) == source
