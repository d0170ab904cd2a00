"""`gpulint server` end to end: a real language client (pytest-lsp) talks to the real server
process over standard input/output, and every answer is checked against what
`gpulint check` says about the same file."""

from __future__ import annotations

import asyncio
import contextlib
import json
import textwrap
from pathlib import Path
from typing import Any
from collections.abc import AsyncIterator, Callable, Sequence

import pytest

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types  # noqa: E402
from pygls.protocol import default_converter  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features  # noqa: E402

from gpulint import rule_by_key  # noqa: E402

from .conftest import GPULINT, ITERROWS, ITERROWS_DISPLAY_ONLY, ITERROWS_FIXED, ITERROWS_POSITION, write  # noqa: E402

pytestmark = pytest.mark.asyncio(loop_scope="module")

SERVER = [GPULINT, "server"]
WAIT_S = 30

#: A GPU101 finding with a safe fix (`gpulint check --fix` applies it).
GROWN = textwrap.dedent("""\
    import pandas as pd

    orders = pd.read_csv("orders.csv")
    top_orders = pd.DataFrame()
    for region, group in orders.groupby("region"):
        top_orders = pd.concat([top_orders, group.nlargest(3, "revenue")])
""")
#: Text outside the Basic Multilingual Plane before a GPU102 finding on the same line:
#: one code point, two UTF-16 code units, four UTF-8 bytes.
NON_ASCII = textwrap.dedent("""\
    import pandas as pd

    def f(sales: pd.DataFrame) -> list:
        out = ["😀é"] + [row["price"] for _, row in sales.iterrows()]
        return out
""")
#: A GPU102 finding (unsafe fix) followed by a GPU101 one (safe fix).
BOTH = ITERROWS + GROWN.replace("import pandas as pd\n", "")
BROKEN = "import pandas as pd\n\nframe = pd.DataFrame(\n"
FIX_ALL = "source.fixAll.gpulint"


def recording_client() -> LanguageClient:
    """pytest-lsp's client, also keeping every publishDiagnostics it receives, in order."""
    client = LanguageClient(converter_factory=default_converter)
    client.published = []  # type: ignore[attr-defined]

    def publish(client: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
        client.published.append(params)  # type: ignore[attr-defined]
        client.diagnostics[params.uri] = params.diagnostics

    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish})
    return client


CONFIG = ClientServerConfig(server_command=SERVER, client_factory=recording_client)


def capabilities(encodings: Sequence[str] | None = None, related: bool = False) -> types.ClientCapabilities:
    return types.ClientCapabilities(
        general=types.GeneralClientCapabilities(position_encodings=list(encodings)) if encodings else None,
        workspace=types.WorkspaceClientCapabilities(configuration=True),
        text_document=types.TextDocumentClientCapabilities(
            code_action=types.CodeActionClientCapabilities(
                code_action_literal_support=types.ClientCodeActionLiteralOptions(
                    code_action_kind=types.ClientCodeActionKindOptions(value_set=list(types.CodeActionKind))
                )
            ),
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                version_support=True, related_information=related or None
            ),
        ),
        notebook_document=types.NotebookDocumentClientCapabilities(
            synchronization=types.NotebookDocumentSyncClientCapabilities()
        ),
    )


async def start(
    client: LanguageClient,
    options: Any = None,
    encodings: Sequence[str] | None = None,
    workspace: dict[str, Any] | None = None,
    related: bool = False,
) -> types.InitializeResult:
    if workspace is not None:
        client.set_configuration(workspace, section="gpulint")
    return await client.initialize_session(
        types.InitializeParams(capabilities=capabilities(encodings, related), initialization_options=options)
    )


@contextlib.asynccontextmanager
async def session(
    options: Any = None,
    encodings: Sequence[str] | None = None,
    workspace: dict[str, Any] | None = None,
    related: bool = False,
) -> AsyncIterator[tuple[LanguageClient, types.InitializeResult]]:
    """A server of its own, for a test that needs other settings (or capabilities) than the shared one."""
    client = await CONFIG.start()
    try:
        result = await asyncio.wait_for(start(client, options, encodings, workspace, related), WAIT_S)
        yield client, result
        await asyncio.wait_for(client.shutdown_session(), WAIT_S)
    finally:
        await stop(client)


async def stop(client: LanguageClient) -> None:
    """Stop the client; a server that did not exit by itself is killed, never waited for."""
    server = client._server
    if server is not None and server.returncode is None:
        try:
            await asyncio.wait_for(server.wait(), 5)
        except asyncio.TimeoutError:
            server.kill()
    await client.stop()


@pytest_lsp.fixture(scope="module", config=CONFIG)
async def client(lsp_client: LanguageClient):
    await asyncio.wait_for(start(lsp_client), WAIT_S)
    yield
    try:
        await asyncio.wait_for(lsp_client.shutdown_session(), WAIT_S)
    finally:
        server = lsp_client._server
        if server is not None and server.returncode is None:
            server.kill()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("lsp")


# -- helpers: a tiny editor ----------------------------------------------------------------


def open_document(client: LanguageClient, path: Path, text: str | None = None, version: int = 1) -> str:
    text = path.read_text(encoding="utf-8") if text is None else text
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)
        )
    )
    return uri


Accept = Callable[[Sequence[types.Diagnostic]], bool]


async def published(
    client: LanguageClient, uri: str, accept: Accept = lambda _: True, since: int = 0
) -> Sequence[types.Diagnostic]:
    """The first diagnostics published for `uri` (after the first `since` notifications)
    that `accept` accepts."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_S
    while loop.time() < deadline:
        for params in client.published[since:]:  # type: ignore[attr-defined]
            if params.uri == uri and accept(params.diagnostics):
                return params.diagnostics
        await asyncio.sleep(0.02)
    raise AssertionError(f"no acceptable diagnostics for {uri}; got {client.published}")  # type: ignore[attr-defined]


def first_published(client: LanguageClient, uri: str) -> Sequence[types.Diagnostic]:
    return next(p.diagnostics for p in client.published if p.uri == uri)  # type: ignore[attr-defined]


def codes(diagnostics: Sequence[types.Diagnostic]) -> list[str]:
    return sorted(str(d.code) for d in diagnostics)


def units(text: str, encoding: str) -> int:
    """Code units of `text` in `encoding`, computed independently of the server."""
    codec, width = {"utf-8": ("utf-8", 1), "utf-16": ("utf-16-le", 2), "utf-32": ("utf-32-le", 4)}[encoding]
    return len(text.encode(codec)) // width


def offset(text: str, position: types.Position, encoding: str = "utf-16") -> int:
    lines = text.splitlines(keepends=True)
    before = sum(len(line) for line in lines[: position.line])
    line = lines[position.line] if position.line < len(lines) else ""
    data = line.encode("utf-16-le" if encoding == "utf-16" else encoding)
    width = {"utf-8": 1, "utf-16": 2, "utf-32": 4}[encoding]
    return before + len(data[: position.character * width].decode("utf-16-le" if encoding == "utf-16" else encoding))


def apply(text: str, edits: Sequence[types.TextEdit], encoding: str = "utf-16") -> str:
    """Apply protocol text edits the way an editor does (all against the original text)."""
    spans = sorted(
        ((offset(text, e.range.start, encoding), offset(text, e.range.end, encoding), e.new_text) for e in edits),
        reverse=True,
    )
    for begin, end, new in spans:
        text = text[:begin] + new + text[end:]
    return text


def edits_of(action: types.CodeAction, uri: str) -> list[types.TextEdit]:
    assert action.edit is not None and action.edit.changes is not None, action
    return list(action.edit.changes[uri])


async def actions(
    client: LanguageClient,
    uri: str,
    diagnostics: Sequence[types.Diagnostic],
    only: list[str] | None = None,
    at: types.Range | None = None,
) -> list[types.CodeAction]:
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=at or diagnostics[0].range,
            context=types.CodeActionContext(diagnostics=list(diagnostics), only=only),
        )
    )
    return [a for a in result or [] if isinstance(a, types.CodeAction)]


def cli_json(cli, path: Path) -> list[dict]:
    return json.loads(cli("check", "--output-format", "json", str(path)).stdout)


def cli_fixed(cli, tmp_path: Path, text: str, *flags: str) -> str:
    path = write(tmp_path / "cli_copy.py", text)
    cli("check", "--fix", *flags, str(path))
    return path.read_text(encoding="utf-8")


# -- diagnostics ---------------------------------------------------------------------------


async def test_iterrows_loop_is_reported_at_its_range(client: LanguageClient, folder: Path, cli):
    path = write(folder / "iterrows.py", ITERROWS)
    uri = open_document(client, path)
    diagnostics = await published(client, uri, bool)
    assert codes(diagnostics) == ["GPU102"]
    (diagnostic,) = diagnostics
    line, column = ITERROWS_POSITION
    call = "sales.iterrows()"
    assert ITERROWS.splitlines()[line - 1].index(call) == column - 1
    assert diagnostic.range == types.Range(
        start=types.Position(line=line - 1, character=column - 1),
        end=types.Position(line=line - 1, character=column - 1 + len(call)),
    )
    assert diagnostic.source == "gpulint"
    assert diagnostic.severity == types.DiagnosticSeverity.Warning
    assert diagnostic.code_description is not None
    assert diagnostic.code_description.href == rule_by_key("GPU102").url()
    # `data` is the JSON shape `gpulint check --output-format json` prints, fix included.
    (expected,) = cli_json(cli, path)
    assert diagnostic.data == expected
    assert diagnostic.data["fix"]["applicability"] == "unsafe" and diagnostic.data["fix"]["edits"]


async def test_a_suggestion_that_is_no_rewrite_is_in_the_message(client: LanguageClient, folder: Path):
    uri = open_document(client, write(folder / "notify.py", ITERROWS_DISPLAY_ONLY))
    (diagnostic,) = await published(client, uri, bool)
    message, suggestion = diagnostic.message.split("\nhelp: ")
    assert message.startswith("`iterrows()` builds a Series per row") and "itertuples()" in suggestion
    assert diagnostic.related_information is None
    # No rewrite, so no quick fix: only "Disable".
    assert [a.title for a in await actions(client, uri, [diagnostic])] == ["Disable GPU102 for this line"]


@pytest.mark.slow
async def test_a_suggestion_is_related_information_where_the_editor_shows_that(folder: Path):
    async with session(related=True) as (client, _):
        uri = open_document(client, write(folder / "notify_related.py", ITERROWS_DISPLAY_ONLY))
        (diagnostic,) = await published(client, uri, bool)
        assert "help:" not in diagnostic.message
        (related,) = diagnostic.related_information
        assert related.location == types.Location(uri=uri, range=diagnostic.range)
        assert related.message.startswith("help: ") and "itertuples()" in related.message
        # The diagnostic a code action names is the one published.
        (action,) = await actions(client, uri, [diagnostic])
        assert list(action.diagnostics or ()) == [diagnostic]


def assert_columns_after_non_ascii(diagnostic: types.Diagnostic, encoding: str) -> None:
    line = NON_ASCII.splitlines()[3]
    begin = line.index("sales.iterrows()")
    end = begin + len("sales.iterrows()")
    assert units(line[:begin], "utf-16") != begin  # the line really has a surrogate pair
    assert diagnostic.range.start == types.Position(line=3, character=units(line[:begin], encoding))
    assert diagnostic.range.end == types.Position(line=3, character=units(line[:end], encoding))


async def test_columns_after_non_ascii_text_are_utf16_by_default(client: LanguageClient, folder: Path):
    uri = open_document(client, write(folder / "non_ascii.py", NON_ASCII))
    (diagnostic,) = await published(client, uri, bool)
    assert_columns_after_non_ascii(diagnostic, "utf-16")


@pytest.mark.slow
@pytest.mark.parametrize("encoding", ["utf-8", "utf-32"])
async def test_columns_after_non_ascii_text_in_the_encoding_the_client_offers(encoding: str, folder: Path):
    async with session(encodings=[encoding, "utf-16"]) as (client, result):
        assert result.capabilities.position_encoding == encoding
        uri = open_document(client, write(folder / f"non_ascii_{encoding}.py", NON_ASCII))
        (diagnostic,) = await published(client, uri, bool)
    assert_columns_after_non_ascii(diagnostic, encoding)


async def test_changes_update_the_diagnostics(client: LanguageClient, folder: Path):
    path = write(folder / "changing.py", ITERROWS)
    uri = open_document(client, path)
    await published(client, uri, lambda d: codes(d) == ["GPU102"])
    # Typing: an incremental edit that takes the loop away (line 5 becomes a plain loop).
    since = len(client.published)
    line = ITERROWS.splitlines()[4]
    begin = line.index("sales.iterrows()")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(
                        start=types.Position(line=4, character=begin),
                        end=types.Position(line=4, character=begin + len("sales.iterrows()")),
                    ),
                    text="enumerate(sales)",
                )
            ],
        )
    )
    assert codes(await published(client, uri, since=since)) == []
    # Replacing the whole text brings two findings back.
    since = len(client.published)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=3),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=BOTH)],
        )
    )
    assert codes(await published(client, uri, since=since)) == ["GPU101", "GPU102"]


async def test_closing_a_document_clears_its_diagnostics(client: LanguageClient, folder: Path):
    path = write(folder / "closing.py", ITERROWS)
    uri = open_document(client, path)
    await published(client, uri, bool)
    since = len(client.published)
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert codes(await published(client, uri, since=since)) == []


async def test_project_configuration_applies(client: LanguageClient, tmp_path: Path):
    write(tmp_path / "pyproject.toml", '[tool.gpulint]\nignore = ["GPU102"]\n')
    path = write(tmp_path / "pkg" / "module.py", BOTH)
    uri = open_document(client, path)
    assert codes(await published(client, uri)) == ["GPU101"]


# -- code actions ----------------------------------------------------------------------------


async def test_safe_quickfix_gives_what_check_fix_gives(client: LanguageClient, folder: Path, tmp_path: Path, cli):
    path = write(folder / "grown.py", GROWN)
    uri = open_document(client, path)
    diagnostics = await published(client, uri, bool)
    assert codes(diagnostics) == ["GPU101"]
    fixes = [a for a in await actions(client, uri, diagnostics) if a.title.startswith("Fix GPU101")]
    assert len(fixes) == 1 and fixes[0].kind == types.CodeActionKind.QuickFix and fixes[0].is_preferred
    assert "unsafe" not in fixes[0].title
    fixed = apply(GROWN, edits_of(fixes[0], uri))
    assert fixed != GROWN
    assert fixed == cli_fixed(cli, tmp_path, GROWN)


async def test_unsafe_quickfix_is_labelled_and_gives_what_unsafe_fixes_give(
    client: LanguageClient, folder: Path, tmp_path: Path, cli
):
    path = write(folder / "unsafe.py", NON_ASCII)
    uri = open_document(client, path)
    diagnostics = await published(client, uri, bool)
    fixes = [a for a in await actions(client, uri, diagnostics) if a.title.startswith("Fix GPU102")]
    assert len(fixes) == 1 and "unsafe" in fixes[0].title and not fixes[0].is_preferred
    fixed = apply(NON_ASCII, edits_of(fixes[0], uri))
    assert fixed != NON_ASCII
    assert fixed == cli_fixed(cli, tmp_path, NON_ASCII, "--unsafe-fixes")
    # The same for the fixture the CLI tests use.
    path = write(folder / "unsafe2.py", ITERROWS)
    uri = open_document(client, path)
    diagnostics = await published(client, uri, bool)
    (fix,) = [a for a in await actions(client, uri, diagnostics) if a.title.startswith("Fix GPU102")]
    assert apply(ITERROWS, edits_of(fix, uri)) == ITERROWS_FIXED


@pytest.mark.parametrize(
    "comment, expected",
    [
        ("", "  # noqa: GPU102"),
        ("  # noqa: E501", "  # noqa: E501, GPU102"),
        ("  # a remark", "  # a remark  # noqa: GPU102"),
    ],
)
async def test_disable_for_this_line(client: LanguageClient, folder: Path, comment: str, expected: str, cli):
    lines = ITERROWS.splitlines(keepends=True)
    lines[4] = lines[4].rstrip("\n") + comment + "\n"
    text = "".join(lines)
    path = write(folder / f"noqa_{len(comment)}.py", text)
    uri = open_document(client, path)
    diagnostics = await published(client, uri, bool)
    (disable,) = [a for a in await actions(client, uri, diagnostics) if a.title == "Disable GPU102 for this line"]
    result = apply(text, edits_of(disable, uri))
    assert result.splitlines()[4] == ITERROWS.splitlines()[4] + expected
    assert cli_json(cli, write(path, result)) == []


async def test_only_quickfixes_when_asked_for_quickfixes(client: LanguageClient, folder: Path):
    path = write(folder / "only.py", GROWN)
    uri = open_document(client, path)
    diagnostics = await published(client, uri, bool)
    kinds = {a.kind for a in await actions(client, uri, diagnostics, only=[types.CodeActionKind.QuickFix])}
    assert kinds == {types.CodeActionKind.QuickFix}
    kinds = {a.kind for a in await actions(client, uri, diagnostics, only=["source.fixAll"])}
    assert kinds == {FIX_ALL}


async def test_fix_all_applies_the_safe_fixes(client: LanguageClient, folder: Path, tmp_path: Path, cli):
    text = NON_ASCII + GROWN.replace("import pandas as pd\n", "")
    path = write(folder / "fix_all.py", text)
    uri = open_document(client, path)
    diagnostics = await published(client, uri, bool)
    assert codes(diagnostics) == ["GPU101", "GPU102"]
    everything = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))
    (fix_all,) = await actions(client, uri, [], only=["source.fixAll"], at=everything)
    assert fix_all.kind == FIX_ALL
    fixed = apply(text, edits_of(fix_all, uri))
    expected = cli_fixed(cli, tmp_path, text)
    assert fixed == expected
    assert "sales.iterrows()" in fixed  # the unsafe GPU102 fix is left out


@pytest.mark.slow
async def test_fix_all_includes_unsafe_fixes_when_the_setting_says_so(folder: Path, tmp_path: Path, cli):
    async with session(options={"unsafeFixes": True}) as (client, _):
        text = NON_ASCII + GROWN.replace("import pandas as pd\n", "")
        path = write(folder / "fix_all_unsafe.py", text)
        uri = open_document(client, path)
        await published(client, uri, bool)
        everything = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))
        (fix_all,) = await actions(client, uri, [], only=[FIX_ALL], at=everything)
        assert fix_all.kind == FIX_ALL and "unsafe" in fix_all.title
        fixed = apply(text, edits_of(fix_all, uri))
        assert fixed == cli_fixed(cli, tmp_path, text, "--unsafe-fixes")
        assert "sales.iterrows()" not in fixed


# -- settings ----------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("where", ["initializationOptions", "workspace/configuration"])
async def test_settings_are_in_force_before_the_first_diagnostics(where: str, folder: Path):
    settings = {"ignore": ["GPU102"]}
    given = {"options": settings} if where == "initializationOptions" else {"workspace": settings}
    async with session(**given) as (client, _):
        text = BOTH
        path = write(folder / f"settings_{where[:4]}.py", text)
        uri = open_document(client, path)
        await published(client, uri)
        assert codes(first_published(client, uri)) == ["GPU101"]


@pytest.mark.slow
async def test_a_settings_change_that_ignores_a_code_removes_its_diagnostics(folder: Path):
    async with session(workspace={"select": ["ALL"]}) as (client, _):
        text = BOTH
        path = write(folder / "settings_change.py", text)
        uri = open_document(client, path)
        assert codes(await published(client, uri)) == ["GPU101", "GPU102"]
        since = len(client.published)
        client.set_configuration({"select": ["ALL"], "ignore": ["iterrows-loop"]}, section="gpulint")
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        assert codes(await published(client, uri, since=since)) == ["GPU101"]
        # A bad value is reported, and leaves the rest of the settings in force.
        since = len(client.published)
        client.set_configuration({"ignore": ["GPU999"], "select": ["GPU102"]}, section="gpulint")
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        assert codes(await published(client, uri, since=since)) == ["GPU102"]
        assert any("GPU999" in message.message for message in client.messages)


# -- robustness ----------------------------------------------------------------------------------


async def test_a_syntax_error_yields_gpu001_and_the_server_keeps_serving(client: LanguageClient, folder: Path):
    path = write(folder / "broken.py", BROKEN)
    uri = open_document(client, path)
    (diagnostic,) = await published(client, uri, bool)
    assert diagnostic.code == "GPU001" and diagnostic.severity == types.DiagnosticSeverity.Error
    assert diagnostic.range.start.line == 2
    assert await actions(client, uri, [diagnostic]) == []
    # Still serving: another document is linted.
    other = open_document(client, write(folder / "after_broken.py", ITERROWS))
    assert codes(await published(client, other, bool)) == ["GPU102"]


async def test_malformed_requests_never_stop_the_server(client: LanguageClient, folder: Path):
    def send_raw(body: bytes) -> None:
        client._server.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    # A body that is not JSON; a request whose parameters have the wrong shape (it gets an
    # error reply, which this client ignores: it never sent that id); a notification
    # missing its text; a method the server does not know.
    send_raw(b'{"jsonrpc": "2.0", "id": 9001, "method": "textDocument/codeAction", "params": {')
    send_raw(
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 9002,
                "method": "textDocument/codeAction",
                "params": {"textDocument": 42, "range": "everywhere"},
            }
        ).encode()
    )
    send_raw(
        json.dumps(
            {
                "jsonrpc": "2.0",
                "method": "textDocument/didOpen",
                "params": {"textDocument": {"uri": "file:///nowhere.py"}},
            }
        ).encode()
    )
    with pytest.raises(Exception, match="[Mm]ethod"):
        await asyncio.wait_for(client.protocol.send_request_async("gpulint/noSuchMethod", None), WAIT_S)
    # A document the server never saw: nothing to offer.
    unknown = (folder / "never_opened.py").as_uri()
    zero = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))
    assert await actions(client, unknown, [], at=zero) == []
    # A change to a document that was never opened, and a position far past the end.
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=unknown, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="x = 1\n")],
        )
    )
    path = write(folder / "after_malformed.py", ITERROWS)
    uri = open_document(client, path)
    diagnostics = await published(client, uri, bool)
    far = types.Range(start=types.Position(line=999, character=999), end=types.Position(line=1000, character=0))
    assert await actions(client, uri, diagnostics, only=[types.CodeActionKind.QuickFix], at=far) == []
    assert codes(diagnostics) == ["GPU102"]


# -- notebooks ------------------------------------------------------------------------------------

#: Code cells of a notebook (a markdown cell sits between the first two): IPython syntax in
#: the first, the frame it reads in the second, the findings in the third.
NOTEBOOK_CELLS = [
    "import pandas as pd\n%matplotlib inline",
    'orders = pd.read_csv("orders.csv")\n!ls -l',
    textwrap.dedent("""\
        top_orders = pd.DataFrame()
        for region, group in orders.groupby("region"):
            top_orders = pd.concat([top_orders, group.nlargest(3, "revenue")])
        for _, row in orders.iterrows():
            print(row["revenue"])"""),
]


def open_notebook(client: LanguageClient, path: Path, cells: Sequence[str]) -> tuple[str, list[str]]:
    """Open a notebook of `cells` (plus one markdown cell); its URI and its code cells' URIs."""
    uri = path.as_uri()
    cell_uris = [f"vscode-notebook-cell:{path}#cell{index}" for index in range(len(cells))]
    notebook_cells = [
        types.NotebookCell(kind=types.NotebookCellKind.Code, document=cell_uris[0]),
        types.NotebookCell(kind=types.NotebookCellKind.Markup, document=f"{uri}#markdown"),
    ]
    notebook_cells += [types.NotebookCell(kind=types.NotebookCellKind.Code, document=u) for u in cell_uris[1:]]
    client.notebook_document_did_open(
        types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(
                uri=uri, notebook_type="jupyter-notebook", version=1, cells=notebook_cells
            ),
            cell_text_documents=[
                types.TextDocumentItem(uri=u, language_id="python", version=1, text=text)
                for u, text in zip(cell_uris, cells, strict=False)
            ],
        )
    )
    return uri, cell_uris


def write_notebook(path: Path, cells: Sequence[str]) -> Path:
    def cell(kind: str, text: str) -> dict:
        shaped = {"cell_type": kind, "metadata": {}, "source": text.splitlines(keepends=True)}
        return {**shaped, "execution_count": None, "outputs": []} if kind == "code" else shaped

    document = {
        "cells": [cell("code", cells[0]), cell("markdown", "# Orders"), *(cell("code", c) for c in cells[1:])],
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(document, indent=1), encoding="utf-8")
    return path


def notebook_code_cells(path: Path) -> list[str]:
    document = json.loads(path.read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in document["cells"] if c["cell_type"] == "code"]


async def test_notebook_diagnostics_per_cell(client: LanguageClient, folder: Path, cli):
    path = write_notebook(folder / "orders.ipynb", NOTEBOOK_CELLS)
    uri, cells = open_notebook(client, path, NOTEBOOK_CELLS)
    found = await published(client, cells[2], bool)
    assert codes(found) == ["GPU101", "GPU102"]
    assert codes(await published(client, cells[0])) == [] and codes(await published(client, cells[1])) == []
    # Positions are relative to the cell, as `gpulint check` reports them for the notebook.
    reported = {(d["code"], d["cell"]): d for d in cli_json(cli, path)}
    for diagnostic in found:
        shown = reported[(diagnostic.code, 4)]  # the third code cell is the notebook's fourth cell
        assert (diagnostic.range.start.line + 1, diagnostic.range.start.character + 1) == (
            shown["location"]["row"],
            shown["location"]["column"],
        )
    line = NOTEBOOK_CELLS[2].splitlines()[3]
    (gpu102,) = [d for d in found if d.code == "GPU102"]
    assert gpu102.range.start == types.Position(line=3, character=line.index("orders.iterrows()"))

    # Editing a cell updates its diagnostics.
    since = len(client.published)
    client.notebook_document_did_change(
        types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(uri=uri, version=2),
            change=types.NotebookDocumentChangeEvent(
                cells=types.NotebookDocumentCellChanges(
                    text_content=[
                        types.NotebookDocumentCellContentChanges(
                            document=types.VersionedTextDocumentIdentifier(uri=cells[2], version=2),
                            changes=[
                                types.TextDocumentContentChangeWholeDocument(text=NOTEBOOK_CELLS[2].split("for _")[0])
                            ],
                        )
                    ]
                )
            ),
        )
    )
    assert codes(await published(client, cells[2], since=since)) == ["GPU101"]

    # Closing the notebook clears every cell.
    since = len(client.published)
    client.notebook_document_did_close(
        types.DidCloseNotebookDocumentParams(
            notebook_document=types.NotebookDocumentIdentifier(uri=uri),
            cell_text_documents=[types.TextDocumentIdentifier(uri=u) for u in cells],
        )
    )
    assert codes(await published(client, cells[2], since=since)) == []


async def test_notebook_fixes_give_what_check_fix_gives(client: LanguageClient, folder: Path, tmp_path: Path, cli):
    path = write_notebook(folder / "fixing.ipynb", NOTEBOOK_CELLS)
    uri, cells = open_notebook(client, path, NOTEBOOK_CELLS)
    found = await published(client, cells[2], bool)
    (gpu101,) = [d for d in found if d.code == "GPU101"]
    (fix,) = [a for a in await actions(client, cells[2], [gpu101]) if a.title.startswith("Fix GPU101")]
    assert fix.edit is not None and set(fix.edit.changes) == {cells[2]}
    fixed = apply(NOTEBOOK_CELLS[2], edits_of(fix, cells[2]))
    copy = write_notebook(tmp_path / "copy.ipynb", NOTEBOOK_CELLS)
    cli("check", "--fix", str(copy))
    assert fixed == notebook_code_cells(copy)[2] != NOTEBOOK_CELLS[2]
    # Fix-all from any cell rewrites the notebook as `gpulint check --fix` does.
    zero = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))
    (fix_all,) = await actions(client, cells[0], [], only=[FIX_ALL], at=zero)
    assert fix_all.edit is not None
    result = [
        apply(text, list(fix_all.edit.changes.get(u, []))) for u, text in zip(cells, NOTEBOOK_CELLS, strict=False)
    ]
    assert result == notebook_code_cells(copy)
    # "Disable for this line" goes into the cell the finding is in.
    (gpu102,) = [d for d in found if d.code == "GPU102"]
    (disable,) = [a for a in await actions(client, cells[2], [gpu102]) if a.title == "Disable GPU102 for this line"]
    assert apply(NOTEBOOK_CELLS[2], edits_of(disable, cells[2])).splitlines()[3].endswith("  # noqa: GPU102")


# -- documents and cells the server does not know ------------------------------------------------


def zero_range() -> types.Range:
    return types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))


def change_cells(client: LanguageClient, uri: str, version: int, texts: dict[str, str]) -> None:
    """A notebook change that replaces the text of the cells in `texts`."""
    client.notebook_document_did_change(
        types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(uri=uri, version=version),
            change=types.NotebookDocumentChangeEvent(
                cells=types.NotebookDocumentCellChanges(
                    text_content=[
                        types.NotebookDocumentCellContentChanges(
                            document=types.VersionedTextDocumentIdentifier(uri=cell, version=version),
                            changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
                        )
                        for cell, text in texts.items()
                    ]
                )
            ),
        )
    )


@pytest.mark.slow
async def test_unknown_documents_and_cells_are_ignored_without_a_pop_up(folder: Path):
    async with session() as (client, _):
        stranger = (folder / "never_opened_either.py").as_uri()
        lost_notebook = (folder / "never_opened.ipynb").as_uri()
        # Every notification about a text document the server was never told about.
        for version in (2, 3):
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=stranger, version=version),
                    content_changes=[types.TextDocumentContentChangePartial(range=zero_range(), text="x = 1\n")],
                )
            )
        client.text_document_did_save(
            types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=stranger))
        )
        client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=stranger))
        )
        # A notebook it was never told about, and a cell its notebook does not have.
        change_cells(client, lost_notebook, 2, {f"{lost_notebook}#cell0": "x = 1\n"})
        client.notebook_document_did_close(
            types.DidCloseNotebookDocumentParams(
                notebook_document=types.NotebookDocumentIdentifier(uri=lost_notebook), cell_text_documents=[]
            )
        )
        path = write_notebook(folder / "known_cells.ipynb", NOTEBOOK_CELLS)
        uri, cells = open_notebook(client, path, NOTEBOOK_CELLS)
        assert codes(await published(client, cells[2], bool)) == ["GPU101", "GPU102"]
        since = len(client.published)
        stray_cell = f"vscode-notebook-cell:{path}#stray"
        # The known cell's change still applies when a stray cell comes in the same message.
        change_cells(client, uri, 2, {stray_cell: "x = 1\n", cells[2]: NOTEBOOK_CELLS[2].split("for _")[0]})
        assert codes(await published(client, cells[2], since=since)) == ["GPU101"]
        assert await actions(client, stray_cell, [], at=zero_range()) == []
        with pytest.raises(Exception, match="[Cc]ommand"):
            await asyncio.wait_for(
                client.workspace_execute_command_async(types.ExecuteCommandParams(command="gpulint.noSuchCommand")),
                WAIT_S,
            )
        # A notebook listing a code cell whose text the editor never sent: the others are linted.
        textless = f"vscode-notebook-cell:{path}#textless"
        partial = (folder / "partial.ipynb").as_uri()
        sent = f"vscode-notebook-cell:{folder / 'partial.ipynb'}#sent"
        client.notebook_document_did_open(
            types.DidOpenNotebookDocumentParams(
                notebook_document=types.NotebookDocument(
                    uri=partial,
                    notebook_type="jupyter-notebook",
                    version=1,
                    cells=[types.NotebookCell(kind=types.NotebookCellKind.Code, document=u) for u in (textless, sent)],
                ),
                cell_text_documents=[types.TextDocumentItem(uri=sent, language_id="python", version=1, text=ITERROWS)],
            )
        )
        assert codes(await published(client, sent, bool)) == ["GPU102"]
        # Still serving, and the user was never shown an error.
        other = open_document(client, write(folder / "after_unknown.py", ITERROWS))
        assert codes(await published(client, other, bool)) == ["GPU102"]
        assert client.messages == []
        logged = "\n".join(message.message for message in client.log_messages)
        for unknown in (stranger, lost_notebook, stray_cell, textless):
            assert unknown in logged


#: A notebook where the GPU102 fix would move code across cells (the list is created in the
#: cell before its loop) next to a GPU202 finding whose fix stays in its cell.
CROSSING_CELLS = [
    "import numpy as np\nimport pandas as pd\nsales = pd.read_csv('sales.csv')",
    "margins = []",
    "for _, row in sales.iterrows():\n    margins.append(row['price'] - row['cost'])",
    "values = np.array([])\nfor i in range(len(sales)):\n    values = np.append(values, i)",
]


@pytest.mark.slow
async def test_notebook_fix_that_would_cross_cells_is_not_offered_and_fix_all_applies_the_others(
    folder: Path, tmp_path: Path, cli
):
    async with session(options={"unsafeFixes": True, "preview": True}) as (client, _):  # GPU202 is a preview rule
        path = write_notebook(folder / "crossing.ipynb", CROSSING_CELLS)
        uri, cells = open_notebook(client, path, CROSSING_CELLS)
        (gpu102,) = await published(client, cells[2], bool)
        assert gpu102.code == "GPU102" and gpu102.data["fix"]["applicability"] == "display-only"
        quickfixes = await actions(client, cells[2], [gpu102], only=[types.CodeActionKind.QuickFix])
        assert [a.title for a in quickfixes] == ["Disable GPU102 for this line"]
        (gpu202,) = await published(client, cells[3], bool)
        assert (await actions(client, cells[3], [gpu202]))[0].title.startswith("Fix GPU202")
        # Fix-all rewrites the GPU202 cell only, as `gpulint check --fix --unsafe-fixes` does.
        (fix_all,) = await actions(client, cells[0], [], only=[FIX_ALL], at=zero_range())
    assert fix_all.edit is not None and fix_all.edit.changes is not None and set(fix_all.edit.changes) == {cells[3]}
    copy = write_notebook(tmp_path / "crossing_copy.ipynb", CROSSING_CELLS)
    cli("check", "--preview", "--fix", "--unsafe-fixes", str(copy))
    result = [
        apply(text, list(fix_all.edit.changes.get(u, []))) for u, text in zip(cells, CROSSING_CELLS, strict=False)
    ]
    assert result == notebook_code_cells(copy) and result[3] != CROSSING_CELLS[3]
