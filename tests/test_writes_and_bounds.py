"""Where a run may write, how much it reads, how it stops, and what the language server
makes of a URI that names no file:

- `--fix` and `--add-noqa` write only files within the paths given: a symbolic link out of
  them is linted, not written, with a warning; a link within them is written through;
- a source over gpulint's bounds (10 MiB, a line of 1,048,576 characters) gets one warning,
  not a parse that takes seconds and gigabytes, and the exit code is the other files';
- Ctrl-C exits 130, workers stopped, no file half-written;
- a `file:` URI with `%00` (or otherwise naming no possible file) is one log line, and the
  document is linted like an untitled one.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import textwrap
import time
from pathlib import Path

import pytest

from gpulint import fix_text
from gpulint.source import LINE_TOO_LONG, MAX_LINE, MAX_SOURCE, TOO_LARGE

from .conftest import CLEAN, GPULINT, ITERROWS, write

#: A GPU101 finding with a safe fix: `--fix` rewrites the file.
GROWN = textwrap.dedent("""\
    import pandas as pd

    orders = pd.read_csv("orders.csv")
    top_orders = pd.DataFrame()
    for region, group in orders.groupby("region"):
        top_orders = pd.concat([top_orders, group.nlargest(3, "revenue")])
""")
GROWN_FIXED = fix_text(GROWN)


def symlink(link: Path, target: str) -> None:
    try:
        os.symlink(target, link)
    except (OSError, NotImplementedError):
        pytest.skip("symbolic links are not available here")


# -- writes stay within the paths given --------------------------------------------------------


@pytest.fixture
def escaping(project: Path) -> Path:
    """tree/link.py -> ../outside/train.py, a file with a safe fix outside `tree`."""
    write(project / "outside" / "train.py", GROWN)
    (project / "tree").mkdir()
    symlink(project / "tree" / "link.py", "../outside/train.py")
    return project


def test_fix_does_not_write_through_a_link_out_of_the_given_paths(escaping: Path, cli):
    run = cli("check", "--fix", "tree")
    assert (escaping / "outside" / "train.py").read_text() == GROWN
    assert "warning: tree/link.py: not written: symlink to a file outside tree" in run.errors
    # Linted all the same: the finding remains, and the exit code says so.
    assert run.code == 1 and any(line.startswith("tree/link.py:6:") for line in run.lines)


@pytest.mark.parametrize("given", [["tree", "outside"], ["tree/link.py"]], ids=["both folders", "the link itself"])
def test_fix_writes_a_linked_file_that_is_within_the_given_paths(escaping: Path, cli, given: list[str]):
    run = cli("check", "--fix", *given)
    assert (escaping / "outside" / "train.py").read_text() == GROWN_FIXED != GROWN
    assert "not written" not in run.stderr and run.code == 0


def test_fix_writes_through_a_link_within_the_tree_atomically(project: Path, cli):
    target = write(project / "tree" / "sub" / "target.py", GROWN)
    symlink(project / "tree" / "link.py", "sub/target.py")  # walked before sub/: the link is the one linted
    inode = target.stat().st_ino
    run = cli("check", "--fix", "tree")
    assert run.code == 0 and "warning" not in run.stderr
    assert target.read_text() == GROWN_FIXED
    assert target.stat().st_ino != inode  # a new file renamed over the old one, not rewritten in place
    assert os.readlink(project / "tree" / "link.py") == "sub/target.py"


def test_add_noqa_does_not_write_through_a_link_out_of_the_given_paths(escaping: Path, cli):
    run = cli("check", "--add-noqa", "tree")
    assert (escaping / "outside" / "train.py").read_text() == GROWN
    assert "warning: tree/link.py: not written: symlink to a file outside tree" in run.errors


# -- bounded inputs ------------------------------------------------------------------------


def one_line_list(path: Path, size: int) -> Path:
    """`x = [1, 1, ...]` on one line, `size` bytes: Python's parser takes about 330 bytes of
    memory a byte of it."""
    count = (size - len("x = []\n")) // 3 + 1
    path.write_text("x = [" + ", ".join(["1"] * count) + "]\n")
    return path


def test_a_line_over_the_bound_is_one_warning_and_the_other_files_decide(project: Path, cli):
    big = one_line_list(project / "data.py", 2 * MAX_LINE)
    write(project / "sales.py", ITERROWS)
    started = time.monotonic()
    run = cli("check", ".")
    assert time.monotonic() - started < 10  # not a parse of millions of tokens
    assert big.stat().st_size > MAX_LINE
    assert [line for line in run.errors if "data.py" in line] == [f"warning: data.py: {LINE_TOO_LONG}"]
    assert "GPU001" not in run.stdout and "data.py" not in run.stdout
    assert run.code == 1  # sales.py's finding


def test_a_file_over_the_bound_is_not_read(project: Path, cli):
    line = "# " + "padding " * 9 + "\n"
    (project / "huge.py").write_text(line * (MAX_SOURCE // len(line) + 1))
    write(project / "clean.py", CLEAN)
    run = cli("check", ".")
    assert run.errors == [f"warning: huge.py: {TOO_LARGE}"]
    assert run.code == 0


def notebook(path: Path, code: str, output_bytes: int = 0) -> Path:
    cell = {
        "cell_type": "code",
        "metadata": {},
        "execution_count": 1,
        "source": code.splitlines(keepends=True),
        "outputs": [{"output_type": "stream", "name": "stdout", "text": ["x" * output_bytes]}],
    }
    document = {"cells": [cell], "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(document))
    return path


def test_the_bound_on_a_notebook_is_on_its_code_not_its_outputs(project: Path, cli):
    notebook(project / "outputs.ipynb", ITERROWS, output_bytes=MAX_SOURCE + 1)
    notebook(project / "data.ipynb", "x = [" + "1, " * (MAX_LINE // 3 + 1) + "]\n")
    run = cli("check", ".")
    assert run.errors == [f"warning: data.ipynb: {LINE_TOO_LONG}"]
    assert any(line.startswith("outputs.ipynb:cell 1:5:") and "GPU102" in line for line in run.lines), run.stdout
    assert run.code == 1


def test_standard_input_over_the_bound_is_one_warning(cli):
    run = cli("check", "-", input="x = [" + "1, " * (MAX_LINE // 3 + 1) + "]\n")
    assert run.errors == [f"warning: -: {LINE_TOO_LONG}"] and run.code == 0


# -- Ctrl-C ------------------------------------------------------------------------------------


def many_files(root: Path, count: int) -> str:
    """`count` files, each with 40 GPU102 findings (a second or more to fix them all); their text."""
    text = "import pandas as pd\n" + "".join(
        textwrap.dedent(f"""
        def f{index}(sales: pd.DataFrame) -> list:
            out = []
            for _, row in sales.iterrows():
                out.append(row["price"] - row["cost"])
            return out
    """)
        for index in range(40)
    )
    for index in range(count):
        (root / f"m{index:03}.py").write_text(text)
    return text


def wait_for(condition, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert process.poll() is None, "the run ended before it could be interrupted"
        assert time.monotonic() < deadline, "the run never started"
        time.sleep(0.02)


def group_is_gone(group: int, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.slow
@pytest.mark.skipif(os.name == "nt", reason="sends SIGINT")
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_exits_130_with_workers_stopped_and_nothing_half_written(tmp_path: Path, jobs: str):
    root = tmp_path / "many"
    root.mkdir()
    original = many_files(root, 100)
    fixed = fix_text(original, unsafe_fixes=True)
    files = sorted(root.glob("*.py"))
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        # A session of its own, so that SIGINT goes to the whole group, workers included, as
        # a terminal sends it on Ctrl-C.
        process = subprocess.Popen(
            [GPULINT, "check", "--no-cache", "--fix", "--unsafe-fixes", "--jobs", jobs, "."],
            cwd=root,
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,
        )
        try:
            wait_for(lambda: any(path.read_text() != original for path in files), process)
            os.killpg(process.pid, signal.SIGINT)
            code = process.wait(timeout=60)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
    message = err.read_text()
    assert code == 130, message
    assert "interrupted" in message and "Traceback" not in message and "Aborted" not in message
    assert group_is_gone(process.pid), "a worker process outlived the run"
    texts = [path.read_text() for path in files]
    assert set(texts) == {original, fixed}  # each file as it was or fully fixed: some of each
    assert sorted(p.name for p in root.iterdir()) == [p.name for p in files]  # no temporary file left


# -- the language server: URIs that name no file -----------------------------------------------

BAD_URIS = [
    "file:///tmp/a%00b.ipynb",  # a NUL byte
    "file:///tmp/a\x00b.py",
    "file:///tmp/\ud800x.py",  # an unpaired surrogate: no file name can hold it
    "file://[::1/x.py",  # not parsable
    "file:///tmp/" + "a/" * 1500 + "x.py",  # deeper than any folder there can be
]


@pytest.mark.parametrize("uri", BAD_URIS, ids=["%00", "NUL", "surrogate", "unparsable", "deep"])
def test_a_uri_naming_no_file_is_linted_like_an_untitled_document(uri: str):
    pytest.importorskip("pygls")
    from gpulint.lsp.server import lint_document, lint_notebook
    from gpulint.lsp.settings import Settings

    assert [d.code for d in lint_document(ITERROWS, 1, uri, Settings()).diagnostics] == ["GPU102"]
    (linted,) = lint_notebook(uri, [(f"{uri}#cell0", ITERROWS, 1)], Settings()).values()
    assert [d.code for d in linted.diagnostics] == ["GPU102"]


@pytest.mark.slow
@pytest.mark.asyncio
async def test_a_notebook_uri_with_a_nul_byte_is_one_log_line_and_the_server_goes_on(tmp_path: Path):
    pytest.importorskip("pytest_lsp")
    from lsprotocol import types

    from .test_lsp import codes, open_document, published, session

    notebook_uri = "file:///tmp/a%00b.ipynb"
    cell = "vscode-notebook-cell:/tmp/a%00b.ipynb#cell0"
    async with session() as (client, _):
        client.notebook_document_did_open(
            types.DidOpenNotebookDocumentParams(
                notebook_document=types.NotebookDocument(
                    uri=notebook_uri,
                    notebook_type="jupyter-notebook",
                    version=1,
                    cells=[types.NotebookCell(kind=types.NotebookCellKind.Code, document=cell)],
                ),
                cell_text_documents=[types.TextDocumentItem(uri=cell, language_id="python", version=1, text=ITERROWS)],
            )
        )
        assert codes(await published(client, cell, bool)) == ["GPU102"]
        # Still serving: a change is linted again, and another document too.
        client.notebook_document_did_change(
            types.DidChangeNotebookDocumentParams(
                notebook_document=types.VersionedNotebookDocumentIdentifier(uri=notebook_uri, version=2),
                change=types.NotebookDocumentChangeEvent(
                    cells=types.NotebookDocumentCellChanges(
                        text_content=[
                            types.NotebookDocumentCellContentChanges(
                                document=types.VersionedTextDocumentIdentifier(uri=cell, version=2),
                                changes=[types.TextDocumentContentChangeWholeDocument(text=CLEAN)],
                            )
                        ]
                    )
                ),
            )
        )
        assert codes(await published(client, cell, lambda found: not found)) == []
        other = open_document(client, write(tmp_path / "after.py", ITERROWS))
        assert codes(await published(client, other, bool)) == ["GPU102"]
        assert client.messages == []  # no internal error shown
        logged = [message.message for message in client.log_messages if "%00" in message.message]
        assert len(logged) == 1 and "names no file" in logged[0]
