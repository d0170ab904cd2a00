"""The language server's parts that need no editor: position conversion, the edits behind
its code actions, its settings, and `gpulint server` without the `lsp` extra."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import given
from hypothesis import strategies as st

import gpulint.lsp
from gpulint import lint_source
from gpulint.diagnostic import Diagnostic, Position
from gpulint.fixing import apply_edits
from gpulint.lsp.actions import noqa_edit, replacement_edit
from gpulint.lsp.positions import DocumentPositions, from_client_column, to_client_column
from gpulint.lsp.settings import Settings
from gpulint.source import Source

from .conftest import ITERROWS, ITERROWS_DISPLAY_ONLY, invoke

CODECS = {"utf-8": ("utf-8", 1), "utf-16": ("utf-16-le", 2), "utf-32": ("utf-32-le", 4)}
#: Lines mixing ASCII, two- and three-byte characters and characters outside the BMP.
LINES = st.text(alphabet=st.sampled_from("ab =(é€😀\t𝔘"), max_size=12)


def units(text: str, encoding: str) -> int:
    codec, width = CODECS[encoding]
    return len(text.encode(codec)) // width


# -- positions ---------------------------------------------------------------------------------


@pytest.mark.parametrize("encoding", sorted(CODECS))
@given(line=LINES, data=st.data())
def test_columns_convert_to_code_units_and_back(encoding: str, line: str, data: st.DataObject):
    column = data.draw(st.integers(0, len(line)))
    client = to_client_column(line, column, encoding)
    assert client == units(line[:column], encoding)
    assert from_client_column(line, client, encoding) == column


def test_a_position_inside_a_character_rounds_down_and_past_the_end_is_the_end():
    line = "x😀y"
    assert from_client_column(line, 2, "utf-16") == 1  # between the two halves of 😀
    assert from_client_column(line, 3, "utf-8") == 1  # inside its four bytes
    assert from_client_column(line, 99, "utf-16") == 3
    assert to_client_column(line, 99, "utf-16") == 4


def test_document_positions_follow_the_line_breaks_python_uses():
    positions = DocumentPositions("a = 1\r\nb = '😀'\rc\n", "utf-16")
    assert positions.to_client(2, 5) == (1, 5)
    assert positions.to_client(2, 6) == (1, 7)
    assert positions.to_client(3, 1) == (2, 1)
    assert positions.from_client(1, 7) == (2, 6)
    # Past the last line: the end of the document, both ways.
    assert positions.to_client(9, 0) == (3, 0)
    assert positions.from_client(9, 3) == (4, 0)


# -- the fix-all edit -----------------------------------------------------------------------


@given(old=st.text(alphabet="ab\r\n😀", max_size=12), new=st.text(alphabet="ab\r\n😀", max_size=12))
def test_replacement_edit_turns_the_old_text_into_the_new(old: str, new: str):
    edit = replacement_edit(old, new)
    if old == new:
        assert edit is None
        return
    assert edit is not None
    assert apply_edits(Source(old), [edit]) == new
    # Never a position between the two characters of a "\r\n".
    starts = Source(old).line_starts
    for position in (edit.start, edit.end):
        offset = starts[position.line - 1] + position.col
        assert not (0 < offset < len(old) and old[offset - 1] == "\r" and old[offset] == "\n")


def test_replacement_edit_spans_only_what_differs():
    edit = replacement_edit("a\nb\nc\n", "a\nB\nc\n")
    assert (edit.start, edit.end, edit.content) == (Position(2, 0), Position(2, 1), "B")


# -- "Disable ... for this line" ---------------------------------------------------------------


def _finding(text: str, code: str = "GPU102") -> Diagnostic:
    (diagnostic,) = [d for d in lint_source(text) if d.code == code]
    return diagnostic


def _disabled(text: str, code: str = "GPU102") -> str:
    edit = noqa_edit(text, _finding(text, code))
    assert edit is not None
    result = apply_edits(Source(text), [edit])
    assert not [d for d in lint_source(result) if d.code == code]
    return result


@pytest.mark.parametrize(
    "comment, expected",
    [
        ("", "  # noqa: GPU102"),
        ("   ", "  # noqa: GPU102"),
        ("  # noqa: E501", "  # noqa: E501, GPU102"),
        ("  # NOQA:E501,W291 keep this", "  # noqa: E501, W291, GPU102 keep this"),
        ("  # why it is fine", "  # why it is fine  # noqa: GPU102"),
        ("  # noqa: E501 (http link too long)", "  # noqa: E501, GPU102 (http link too long)"),
        ("  # noqa: E501 py3 compat", "  # noqa: E501, GPU102 py3 compat"),
        ("  # noqa:", "  # noqa: GPU102"),
        ("  # noqa: GPU10x", "  # noqa: GPU10x, GPU102"),
    ],
)
def test_noqa_is_added_or_merged(comment: str, expected: str):
    lines = ITERROWS.splitlines(keepends=True)
    lines[4] = lines[4].rstrip("\n") + comment + "\n"
    assert _disabled("".join(lines)).splitlines()[4] == ITERROWS.splitlines()[4] + expected


def test_noqa_goes_where_a_comment_can_go():
    # The finding's first line ends inside a backslash continuation: the comment goes on
    # its last line, which gpulint reads too.
    text = textwrap.dedent("""\
        import pandas as pd

        def f(frame: pd.DataFrame):
            for _, row in frame \\
                    .iterrows():
                print(row)
    """)
    finding = _finding(text)
    assert (finding.start.line, finding.end.line) == (4, 5)
    assert _disabled(text).splitlines()[3:5] == [
        "    for _, row in frame \\",
        "            .iterrows():  # noqa: GPU102",
    ]


def test_noqa_keeps_windows_line_endings():
    text = ITERROWS.replace("\n", "\r\n")
    assert _disabled(text).split("\r\n")[4].endswith("sales.iterrows():  # noqa: GPU102")


def test_no_noqa_edit_where_the_file_does_not_tokenize():
    text = "import pandas as pd\nx = '''\n"
    assert noqa_edit(text, Diagnostic("GPU102", "iterrows-loop", "m", Position(1, 0), Position(1, 1))) is None


# -- settings ---------------------------------------------------------------------------------


def test_settings_read_bare_and_wrapped_shapes():
    bare, problems = Settings().updated({"select": ["GPU1"], "ignore": "GPU104, iterrows-loop", "unsafeFixes": True})
    assert problems == []
    assert bare == Settings(select=("GPU1",), ignore=("GPU104", "iterrows-loop"), unsafe_fixes=True)
    wrapped, _ = Settings().updated({"gpulint": {"unsafeFixes": True}})
    assert wrapped == Settings(unsafe_fixes=True)
    assert Settings().updated({"python": {"analysis": 1}}) == (Settings(), [])
    assert Settings().updated(None) == (Settings(), [])


def test_a_bad_setting_is_reported_and_left_out():
    settings, problems = Settings(ignore=("GPU104",)).updated({"select": ["GPU999"], "ignore": 5, "unsafeFixes": "yes"})
    assert settings == Settings(ignore=("GPU104",))
    assert len(problems) == 3
    assert "GPU999" in problems[0] and "`ignore`" in problems[1] and "`unsafeFixes`" in problems[2]


def test_null_unsets_a_setting():
    settings, _ = Settings(select=("GPU1",), ignore=("GPU104",), unsafe_fixes=True).updated(
        {"select": None, "ignore": None, "unsafeFixes": None}
    )
    assert settings == Settings()


def test_settings_override_like_command_line_flags():
    overrides = Settings(select=("GPU1",), ignore=("GPU104",), unsafe_fixes=True).overrides()
    assert (overrides.select, overrides.ignore, overrides.unsafe_fixes) == (("GPU1",), ("GPU104",), True)


# -- the command -----------------------------------------------------------------------------


def test_server_without_the_lsp_extra_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(gpulint.lsp, "lsp_available", lambda: False)
    result = invoke("server")
    assert result.code == 2
    assert result.stderr.strip() == "error: the language server needs the `lsp` extra: pip install 'gpulint[lsp]'"
    assert result.stdout == ""


def test_the_lsp_extra_is_found_when_installed():
    pytest.importorskip("pygls")
    pytest.importorskip("lsprotocol")
    assert gpulint.lsp.lsp_available()


# -- documents and cells the server does not know --------------------------------------------


@pytest.fixture
def bare_server(monkeypatch: pytest.MonkeyPatch):
    """A server with an empty workspace, its messages to the editor recorded, not sent."""
    pytest.importorskip("pygls")
    from pygls.workspace import Workspace

    from gpulint.lsp.server import build_server

    server = build_server()
    server.protocol._workspace = Workspace(None)
    server.logged, server.shown = [], []
    monkeypatch.setattr(server, "window_log_message", server.logged.append)
    monkeypatch.setattr(server, "window_show_message", server.shown.append)
    return server


def _types():
    return pytest.importorskip("lsprotocol.types")


def _whole(types, uri: str, text: str, version: int = 2):
    return types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
    )


def _cell_changes(types, notebook: str, texts: dict[str, str]):
    return types.DidChangeNotebookDocumentParams(
        notebook_document=types.VersionedNotebookDocumentIdentifier(uri=notebook, version=2),
        change=types.NotebookDocumentChangeEvent(
            cells=types.NotebookDocumentCellChanges(
                text_content=[
                    types.NotebookDocumentCellContentChanges(
                        document=types.VersionedTextDocumentIdentifier(uri=cell, version=2),
                        changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
                    )
                    for cell, text in texts.items()
                ]
            )
        ),
    )


def _handled(server, params) -> list:
    """Run the protocol's own handling of a notification; what it passes on to the server's handlers."""
    method = {
        "DidChangeTextDocumentParams": "lsp_text_document__did_change",
        "DidCloseTextDocumentParams": "lsp_text_document__did_close",
        "DidChangeNotebookDocumentParams": "lsp_notebook_document__did_change",
        "DidCloseNotebookDocumentParams": "lsp_notebook_document__did_close",
    }[type(params).__name__]
    return list(getattr(server.protocol, method)(params))


def test_a_change_to_a_document_that_is_not_open_is_logged_and_dropped(bare_server):
    types = _types()
    assert _handled(bare_server, _whole(types, "file:///nowhere.py", "x = 1\n")) == []
    assert (
        _handled(
            bare_server,
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri="file:///nowhere.py")),
        )
        == []
    )
    assert bare_server.shown == []
    assert [m.type for m in bare_server.logged] == [types.MessageType.Log] * 2
    assert all("file:///nowhere.py" in m.message for m in bare_server.logged)


def test_a_change_to_an_open_document_is_applied_and_passed_on(bare_server):
    types = _types()
    uri = "file:///open.py"
    bare_server.workspace.put_text_document(
        types.TextDocumentItem(uri=uri, language_id="python", version=1, text="x = 0\n")
    )
    (passed,) = _handled(bare_server, _whole(types, uri, "x = 1\n"))
    assert passed[1][0].text_document.uri == uri
    assert bare_server.workspace.get_text_document(uri).source == "x = 1\n"
    assert bare_server.logged == [] and bare_server.shown == []


def test_a_change_to_an_unknown_notebook_or_cell_is_logged_and_the_rest_applied(bare_server):
    types = _types()
    notebook, cell, stray = "file:///n.ipynb", "vscode-notebook-cell:/n.ipynb#a", "vscode-notebook-cell:/n.ipynb#b"
    assert _handled(bare_server, _cell_changes(types, notebook, {cell: "x = 1\n"})) == []
    assert (
        _handled(
            bare_server,
            types.DidCloseNotebookDocumentParams(
                notebook_document=types.NotebookDocumentIdentifier(uri=notebook), cell_text_documents=[]
            ),
        )
        == []
    )
    assert len(bare_server.logged) == 2 and all(notebook in m.message for m in bare_server.logged)
    bare_server.workspace.put_notebook_document(
        types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(
                uri=notebook,
                notebook_type="jupyter-notebook",
                version=1,
                cells=[types.NotebookCell(kind=types.NotebookCellKind.Code, document=cell)],
            ),
            cell_text_documents=[types.TextDocumentItem(uri=cell, language_id="python", version=1, text="x = 0\n")],
        )
    )
    (passed,) = _handled(bare_server, _cell_changes(types, notebook, {stray: "y = 1\n", cell: "x = 1\n"}))
    assert bare_server.workspace.get_text_document(cell).source == "x = 1\n"
    assert bare_server.workspace.get_notebook_document(notebook_uri=notebook).version == 2
    assert stray in bare_server.logged[-1].message and bare_server.shown == []


def test_a_change_to_a_cell_closed_in_the_same_message_is_logged_and_the_rest_applied(bare_server):
    types = _types()
    notebook, kept, closed = "file:///n.ipynb", "vscode-notebook-cell:/n.ipynb#a", "vscode-notebook-cell:/n.ipynb#b"
    added = "vscode-notebook-cell:/n.ipynb#c"
    bare_server.workspace.put_notebook_document(
        types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(
                uri=notebook,
                notebook_type="jupyter-notebook",
                version=1,
                cells=[types.NotebookCell(kind=types.NotebookCellKind.Code, document=u) for u in (kept, closed)],
            ),
            cell_text_documents=[
                types.TextDocumentItem(uri=u, language_id="python", version=1, text="x = 0\n") for u in (kept, closed)
            ],
        )
    )
    # The second cell is replaced by a new one; both get a text change in the same message.
    params = _cell_changes(types, notebook, {closed: "y = 1\n", kept: "x = 1\n", added: "z = 1\n"})
    params.change.cells.structure = types.NotebookDocumentCellChangeStructure(
        array=types.NotebookCellArrayChange(
            start=1, delete_count=1, cells=[types.NotebookCell(kind=types.NotebookCellKind.Code, document=added)]
        ),
        did_open=[types.TextDocumentItem(uri=added, language_id="python", version=1, text="z = 0\n")],
        did_close=[types.TextDocumentIdentifier(closed)],
    )
    assert len(_handled(bare_server, params)) == 1
    assert bare_server.workspace.get_text_document(kept).source == "x = 1\n"
    assert bare_server.workspace.get_text_document(added).source == "z = 1\n"
    cells = bare_server.workspace.get_notebook_document(notebook_uri=notebook).cells
    assert [cell.document for cell in cells] == [kept, added]
    assert closed in bare_server.logged[-1].message and bare_server.shown == []


# -- suggestions -------------------------------------------------------------------------------


def _converted(text: str, **kwargs):
    pytest.importorskip("pygls")
    from gpulint.lsp.server import to_lsp_diagnostic

    (diagnostic,) = lint_source(text, "notify.py")
    return diagnostic, to_lsp_diagnostic(diagnostic, DocumentPositions(text, "utf-16"), "notify.py", **kwargs)


def test_a_display_only_suggestion_goes_on_a_help_line_without_related_information():
    diagnostic, converted = _converted(ITERROWS_DISPLAY_ONLY)
    assert diagnostic.fix is not None and not diagnostic.fix.edits
    assert converted.message == f"{diagnostic.message}\nhelp: {diagnostic.suggestion}"
    assert converted.related_information is None
    # Told the editor shows related information but not where: still the message.
    assert _converted(ITERROWS_DISPLAY_ONLY, related=True)[1].message == converted.message


def test_a_display_only_suggestion_is_related_information_where_the_editor_shows_it():
    diagnostic, converted = _converted(ITERROWS_DISPLAY_ONLY, uri="file:///notify.py", related=True)
    assert converted.message == diagnostic.message
    (related,) = converted.related_information
    assert related.location.uri == "file:///notify.py" and related.location.range == converted.range
    assert related.message == f"help: {diagnostic.suggestion}"


def test_a_rewrite_is_left_to_its_quick_fix():
    diagnostic, converted = _converted(ITERROWS, uri="file:///notify.py", related=True)
    assert diagnostic.fix is not None and diagnostic.fix.edits
    assert converted.message == diagnostic.message and converted.related_information is None
