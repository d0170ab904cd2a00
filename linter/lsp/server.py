"""The language server: documents in, diagnostics and code actions out.

Linting runs on a worker thread, a short while after the last change to a document (the
debounce), once the editor's settings are known; a result for a text that has changed
since is dropped. Each document is linted with the `[tool.gpulint]` of its own project,
under the editor's settings (see `settings.py`); `exclude` is honoured, as `--force-exclude`
does on the command line. Nothing a document or a request contains stops the server: a
file that does not parse gets GPU001, a malformed message gets an error reply, and a
failure inside gpulint is logged to standard error and shown once. A message about a
document or notebook cell the server was never given (a change to a file that is not
open, a cell its notebook does not have) is ignored with a line in the editor's log
(`window/logMessage`), never shown to the user; so is a `file:` URI that names no file
there could be (a NUL byte in its path, say), whose document is linted like an untitled one.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast
from collections.abc import Iterator, Sequence
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method
from pygls.uris import to_fs_path

from .. import __version__
from ..config import Config, ConfigError, ConfigResolver
from ..diagnostic import Applicability, Diagnostic, Edit, Position
from ..engine import SYNTAX_ERROR_CODE
from ..notebook import fix_cells, lint_cells
from ..registry import Rule, rule_by_key
from .. import callers
from ..runner import fix_text, lint_source
from .actions import noqa_edit, replacement_edit
from .positions import UTF16, DocumentPositions
from .settings import Settings

log = logging.getLogger("gpulint.lsp")

SOURCE = "gpulint"
FIX_ALL = "source.fixAll.gpulint"
#: Seconds to wait after a change before linting (typing resets the wait).
DEBOUNCE_S = 0.2
#: How long linting waits for the editor's answer to `workspace/configuration`.
SETTINGS_TIMEOUT_S = 5.0


@dataclass
class Linted:
    """One document (or notebook cell) text as linted, and what gpulint found in it."""

    text: str
    version: int | None
    filename: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    rules: tuple[type[Rule], ...] = ()
    unsafe_fixes: bool = False
    #: A configuration problem that stopped linting, in one line.
    problem: str | None = None
    #: For a notebook cell: the notebook's code cells as (URI, text), in order, and this
    #: cell's 1-based place among them (gpulint's edits name cells by that number).
    cells: tuple[tuple[str, str], ...] | None = None
    cell: int | None = None
    #: The edits of fix-all, computed on the first request for them.
    fix_all: list[Edit] | None = None

    def documents(self, uri: str) -> dict[int | None, tuple[str, str]]:
        """The (URI, text) an edit applies to, by the edit's `cell`."""
        if self.cells is None:
            return {None: (uri, self.text)}
        return dict(enumerate(self.cells, 1))

    def fix_all_edits(self) -> list[Edit]:
        """Every applicable fix at once, as `gpulint check --fix` applies them."""
        if self.fix_all is None:
            if self.cells is None:
                fixed = fix_text(self.text, self.filename, rules=self.rules, unsafe_fixes=self.unsafe_fixes)
                edit = replacement_edit(self.text, fixed)
                self.fix_all = [edit] if edit is not None else []
            else:
                old = [text for _, text in self.cells]
                new = fix_cells(old, self.filename, rules=self.rules, unsafe_fixes=self.unsafe_fixes)
                edits = (replacement_edit(before, after) for before, after in zip(old, new, strict=False))
                self.fix_all = [edit._replace(cell=index) for index, edit in enumerate(edits, 1) if edit is not None]
        return self.fix_all


# -- linting (runs on the worker thread) -------------------------------------------------------


def _path(uri: str) -> Path | None:
    """The file a `file:` URI names; None for another scheme, and for a URI that names no
    file there could be (unparsable; a NUL byte or an unpaired surrogate in its path): that
    document is linted like an untitled one (`GpulintServer.note_uri` logs it)."""
    if not uri.startswith("file:"):
        return None
    try:
        path = to_fs_path(uri)
    except Exception:
        return None
    return Path(path) if path and _is_file_name(path) else None


def _filename(uri: str, path: Path | None) -> str:
    """The name findings are reported under: the file's path, else the URI itself (a raw NUL
    byte in it escaped, as the URI should have had it: no name given to the parser may hold one)."""
    return str(path) if path is not None else uri.replace("\0", "%00")


def _is_file_name(path: str) -> bool:
    """Whether the system can take `path` as a file name at all (`os.stat` would raise
    ValueError on a NUL byte, UnicodeEncodeError on an unpaired surrogate)."""
    try:
        return b"\0" not in os.fsencode(path)
    except UnicodeError:
        return False


def _config(path: Path | None, settings: Settings) -> Config:
    if path is None:
        return Config().with_overrides(settings.overrides())
    return ConfigResolver(settings.overrides()).for_path(path)


def lint_document(text: str, version: int | None, uri: str, settings: Settings) -> Linted:
    callers.forget()  # files importing this one may have come or gone since the last lint
    path = _path(uri)
    filename = _filename(uri, path)
    linted = Linted(text, version, filename)
    try:
        config = _config(path, settings)
    except ConfigError as error:
        linted.problem = str(error)
        return linted
    if path is not None and config.is_excluded(path):
        return linted
    linted.rules = config.rules_for(path)
    linted.unsafe_fixes = config.unsafe_fixes
    linted.diagnostics = lint_source(text, filename, rules=linted.rules, config=config)
    return linted


def lint_notebook(uri: str, cells: Sequence[tuple[str, str, int | None]], settings: Settings) -> dict[str, Linted]:
    """Lint a notebook's code cells, given as (cell uri, text, version), as one program."""
    callers.forget()
    path = _path(uri)
    filename = _filename(uri, path)
    shared = tuple((cell_uri, text) for cell_uri, text, _ in cells)
    result = {
        cell_uri: Linted(text, version, filename, cells=shared, cell=index)
        for index, (cell_uri, text, version) in enumerate(cells, 1)
    }
    try:
        config = _config(path, settings)
    except ConfigError as error:
        for linted in result.values():
            linted.problem = str(error)
        return result
    if path is not None and config.is_excluded(path):
        return result
    rules = config.rules_for(path)
    found = lint_cells([text for _, text, _ in cells], filename=filename, rules=rules, config=config)
    for (cell_uri, _, _), diagnostics in zip(cells, found, strict=False):
        linted = result[cell_uri]
        linted.rules, linted.unsafe_fixes, linted.diagnostics = rules, config.unsafe_fixes, list(diagnostics)
    return result


# -- from gpulint's shapes to the protocol's -------------------------------------------------


def _range(positions: DocumentPositions, start: Position, end: Position) -> types.Range:
    return types.Range(
        start=types.Position(*positions.to_client(start.line, start.col)),
        end=types.Position(*positions.to_client(end.line, end.col)),
    )


def to_lsp_diagnostic(
    diagnostic: Diagnostic, positions: DocumentPositions, filename: str, uri: str | None = None, related: bool = False
) -> types.Diagnostic:
    """The protocol's diagnostic. A suggestion that is no rewrite (a display-only fix) goes
    into `relatedInformation` at the finding where the editor shows that (`related`, with
    the document's `uri`), else on a `help:` line of the message; a rewrite is offered as a
    quick fix instead (see `code_actions`)."""
    rule = rule_by_key(diagnostic.code)
    url = diagnostic.url or (rule.url() if rule is not None else None)
    error = rule is not None and rule.level == "error" or diagnostic.code == SYNTAX_ERROR_CODE
    where = _range(positions, diagnostic.start, diagnostic.end)
    message, information = diagnostic.message, None
    fix = diagnostic.fix
    if fix is not None and not fix.edits and diagnostic.suggestion is not None:
        if related and uri is not None:
            information = [
                types.DiagnosticRelatedInformation(
                    location=types.Location(uri=uri, range=where), message=f"help: {diagnostic.suggestion}"
                )
            ]
        else:
            message = f"{message}\nhelp: {diagnostic.suggestion}"
    return types.Diagnostic(
        range=where,
        message=message,
        related_information=information,
        severity=types.DiagnosticSeverity.Error if error else types.DiagnosticSeverity.Warning,
        code=diagnostic.code,
        code_description=types.CodeDescription(href=url) if url else None,
        source=SOURCE,
        # The JSON shape `gpulint check --output-format json` prints, fix included.
        data=diagnostic.to_json(filename),
    )


def _workspace_edit(
    edits: Sequence[Edit], documents: dict[int | None, tuple[str, str]], encoding: str
) -> types.WorkspaceEdit | None:
    """The edits as a workspace edit; None when one is for a document not at hand."""
    changes: dict[str, list[types.TextEdit]] = {}
    positions: dict[str, DocumentPositions] = {}
    for edit in edits:
        if edit.cell not in documents:
            return None
        uri, text = documents[edit.cell]
        where = positions.setdefault(uri, DocumentPositions(text, encoding))
        changes.setdefault(uri, []).append(
            types.TextEdit(range=_range(where, edit.start, edit.end), new_text=edit.content)
        )
    return types.WorkspaceEdit(changes=changes)


def _wanted(kind: str, only: Sequence[str] | None) -> bool:
    return only is None or any(kind == wanted or kind.startswith(wanted + ".") for wanted in only)


def code_actions(
    linted: Linted, uri: str, encoding: str, requested: types.Range, only: Sequence[str] | None, related: bool = False
) -> list[types.CodeAction]:
    """Quick fixes and "Disable ... for this line" for the findings in `requested`, and
    fix-all for the document (for a notebook cell: for the whole notebook)."""
    positions = DocumentPositions(linted.text, encoding)
    documents = linted.documents(uri)
    first = Position(*positions.from_client(requested.start.line, requested.start.character))
    last = Position(*positions.from_client(requested.end.line, requested.end.character))
    actions: list[types.CodeAction] = []
    quickfix = types.CodeActionKind.QuickFix
    for diagnostic in linted.diagnostics if _wanted(quickfix, only) else ():
        if diagnostic.start > last or diagnostic.end < first:
            continue
        shown = [to_lsp_diagnostic(diagnostic, positions, linted.filename, uri, related)]
        fix = diagnostic.fix
        if fix is not None and fix.edits and fix.applicability in (Applicability.SAFE, Applicability.UNSAFE):
            unsafe = fix.applicability is Applicability.UNSAFE
            edit = _workspace_edit(fix.edits, documents, encoding)
            if edit is not None:
                title = f"Fix {diagnostic.code}: {fix.message}" + (" (unsafe fix: review the result)" if unsafe else "")
                actions.append(
                    types.CodeAction(title=title, kind=quickfix, diagnostics=shown, edit=edit, is_preferred=not unsafe)
                )
        noqa = noqa_edit(linted.text, diagnostic) if diagnostic.code != SYNTAX_ERROR_CODE else None
        if noqa is not None:
            edit = _workspace_edit([noqa._replace(cell=linted.cell)], documents, encoding)
            actions.append(
                types.CodeAction(
                    title=f"Disable {diagnostic.code} for this line", kind=quickfix, diagnostics=shown, edit=edit
                )
            )
    if _wanted(FIX_ALL, only) and (
        linted.cells is not None or any(d.fixable(linted.unsafe_fixes) for d in linted.diagnostics)
    ):
        edit = _workspace_edit(linted.fix_all_edits(), documents, encoding)
        if edit is not None and edit.changes:
            title = "Fix all gpulint findings" + (" (unsafe fixes included)" if linted.unsafe_fixes else "")
            actions.append(types.CodeAction(title=title, kind=FIX_ALL, edit=edit))
    return actions


# -- the server ---------------------------------------------------------------------------


class GpulintProtocol(LanguageServerProtocol):
    """pygls' protocol, answering a request whose parameters cannot be read with an error
    reply (JSON-RPC's "Invalid params") instead of leaving the editor waiting."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if "method" in data and data.get("id") is not None:
                self._send_response(data["id"], None, error.to_response_error())
            raise

    # pygls applies a change to its copy of the document before the server sees it, and
    # fails (KeyError) on a document or cell it does not hold; these let only the known
    # ones through.

    def _holds(self, uri: str) -> bool:
        return unquote(uri) in self.workspace.text_documents

    def _ignore(self, what: str) -> None:
        cast("GpulintServer", self._server).ignore(what)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> Iterator[Any]:
        if not self._holds(params.text_document.uri):
            self._ignore(f"a change to {params.text_document.uri}: the document is not open")
            return
        yield from super().lsp_text_document__did_change(params)

    @lsp_method(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def lsp_notebook_document__did_change(self, params: types.DidChangeNotebookDocumentParams) -> Iterator[Any]:
        uri = params.notebook_document.uri
        if self.workspace.get_notebook_document(notebook_uri=uri) is None:
            self._ignore(f"a change to {uri}: the notebook is not open")
            return
        cells = params.change.cells
        if cells is not None and cells.text_content:
            # The cells' structure changes first: cells opened by it are known, closed ones not.
            structure = cells.structure
            opened = {unquote(cell.uri) for cell in (structure.did_open or [])} if structure else set()
            closed = {unquote(cell.uri) for cell in (structure.did_close or [])} if structure else set()
            known = []
            for content in cells.text_content:
                cell_uri = content.document.uri
                if (self._holds(cell_uri) or unquote(cell_uri) in opened) and unquote(cell_uri) not in closed:
                    known.append(content)
                else:
                    self._ignore(f"a change to {cell_uri}: the notebook {uri} has no such cell")
            cells.text_content = known
        yield from super().lsp_notebook_document__did_change(params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams) -> Iterator[Any]:
        if not self._holds(params.text_document.uri):
            self._ignore(f"the close of {params.text_document.uri}: the document is not open")
            return
        yield from super().lsp_text_document__did_close(params)

    @lsp_method(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def lsp_notebook_document__did_close(self, params: types.DidCloseNotebookDocumentParams) -> Iterator[Any]:
        uri = params.notebook_document.uri
        if self.workspace.get_notebook_document(notebook_uri=uri) is None:
            self._ignore(f"the close of {uri}: the notebook is not open")
            return
        yield from super().lsp_notebook_document__did_close(params)


class GpulintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "gpulint",
            __version__,
            protocol_cls=GpulintProtocol,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            notebook_document_sync=types.NotebookDocumentSyncOptions(
                # lsprotocol cannot read a notebook selector without `notebook`: always give it.
                notebook_selector=[
                    types.NotebookDocumentFilterWithCells(
                        notebook="*", cells=[types.NotebookCellLanguage(language="python")]
                    )
                ],
                save=True,
            ),
        )
        #: The settings from `initializationOptions`; the editor's configuration section,
        #: each time it is read, applies on top of these (a key it no longer has falls back).
        self.initial_settings = Settings()
        self.settings = Settings()
        self.settings_ready = asyncio.Event()
        #: Open documents that are not notebook cells.
        self.documents: set[str] = set()
        #: The latest result for each document and notebook cell, by URI.
        self.linted: dict[str, Linted] = {}
        #: The cells each notebook last had diagnostics published for.
        self.published_cells: dict[str, list[str]] = {}
        self.pending: dict[str, asyncio.Task[None]] = {}
        self.shown: set[str] = set()
        #: `file:` URIs that name no possible file, logged once each (see `note_uri`).
        self.odd_uris: set[str] = set()
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gpulint-lint")

    def report_server_error(self, error: Exception, source: Any) -> None:
        """A message the server could not read is logged (and answered, if it was a
        request); only gpulint's own failures are shown to the user."""
        if isinstance(source, type) and issubclass(source, JsonRpcException):
            log.warning("ignored a message it could not read: %s", error)
            return
        super().report_server_error(error, source)

    @property
    def related_information(self) -> bool:
        """Whether the editor shows a diagnostic's `relatedInformation`."""
        document = self.client_capabilities.text_document if self.client_capabilities else None
        publish = document.publish_diagnostics if document is not None else None
        return bool(publish is not None and publish.related_information)

    @property
    def encoding(self) -> str:
        encoding = self.workspace.position_encoding
        return str(getattr(encoding, "value", encoding) or UTF16)

    def ignore(self, what: str) -> None:
        """Log a message the server ignores, in the editor's log only (never a pop-up)."""
        log.info("ignored %s", what)
        self.window_log_message(types.LogMessageParams(type=types.MessageType.Log, message=f"gpulint: ignored {what}"))

    def note_uri(self, uri: str) -> None:
        """Log, once, a `file:` URI that names no possible file (a NUL byte in its path, say):
        bad input from the editor, not a failure of gpulint; its document is linted without
        a project's configuration, like an untitled one."""
        if uri.startswith("file:") and uri not in self.odd_uris and _path(uri) is None:
            self.odd_uris.add(uri)
            log.info("%r names no file: linted as an untitled document", uri)
            self.window_log_message(
                types.LogMessageParams(
                    type=types.MessageType.Log,
                    message=f"gpulint: {uri!r} names no file: linted as an untitled document",
                )
            )

    def known(self, uri: str) -> bool:
        """Whether `uri` is an open document or a cell of an open notebook."""
        return uri in self.documents or self.workspace.get_notebook_document(cell_uri=uri) is not None

    def show_once(self, message: str, kind: types.MessageType = types.MessageType.Warning) -> None:
        """Tell the user about a problem once per session, and log it to standard error."""
        log.warning("%s", message)
        if message not in self.shown:
            self.shown.add(message)
            self.window_show_message(types.ShowMessageParams(type=kind, message=f"gpulint: {message}"))

    # -- settings ------------------------------------------------------------------------
    def apply_settings(self, raw: Any, initial: bool = False) -> None:
        self.settings, problems = self.initial_settings.updated(raw)
        if initial:
            self.initial_settings = self.settings
        for problem in problems:
            self.show_once(problem)

    async def pull_settings(self) -> None:
        """Ask the editor for its `gpulint` settings section, where it can answer."""
        workspace = self.client_capabilities.workspace
        if workspace is None or not workspace.configuration:
            return
        try:
            answer = await asyncio.wait_for(
                self.workspace_configuration_async(
                    types.ConfigurationParams(items=[types.ConfigurationItem(section="gpulint")])
                ),
                SETTINGS_TIMEOUT_S,
            )
        except Exception as error:  # no answer, or an error reply: keep the settings we have
            log.warning("workspace/configuration failed: %s", error)
            return
        if answer and isinstance(answer[0], dict):  # no section (null) leaves the settings as they are
            self.apply_settings({"gpulint": answer[0]})

    async def wait_for_settings(self) -> None:
        try:
            await asyncio.wait_for(self.settings_ready.wait(), SETTINGS_TIMEOUT_S)
        except asyncio.TimeoutError:
            self.settings_ready.set()

    # -- linting -------------------------------------------------------------------------
    def schedule(self, uri: str, delay: float = DEBOUNCE_S) -> None:
        """Lint a document (or a notebook, by its URI) after `delay`, replacing any lint of
        it still waiting."""
        self.note_uri(uri)
        self.cancel_pending(uri)
        self.pending[uri] = asyncio.get_running_loop().create_task(self._lint_later(uri, delay))

    def cancel_pending(self, uri: str) -> None:
        """Drop the lint of a document (or notebook) still waiting, if there is one."""
        task = self.pending.pop(uri, None)
        if task is not None:
            task.cancel()

    async def _lint_later(self, uri: str, delay: float) -> None:
        try:
            await asyncio.sleep(delay)
            await self.wait_for_settings()
            if self.workspace.get_notebook_document(notebook_uri=uri) is not None:
                await self.lint_notebook_now(uri)
            elif uri in self.documents:
                await self.lint_document_now(uri)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a bug in gpulint never stops the server
            log.exception("linting %s failed", uri)
            self.show_once(f"internal error while linting: {type(error).__name__}: {error}", types.MessageType.Error)
        finally:
            if self.pending.get(uri) is asyncio.current_task():
                del self.pending[uri]

    async def lint_document_now(self, uri: str) -> Linted | None:
        document = self.workspace.get_text_document(uri)
        text, version = document.source, document.version
        linted = await asyncio.get_running_loop().run_in_executor(
            self.worker, lint_document, text, version, uri, self.settings
        )
        if uri not in self.documents or self.workspace.get_text_document(uri).version != version:
            return None  # changed or closed meanwhile: a newer lint is on its way
        self.linted[uri] = linted
        self.publish(uri, linted)
        return linted

    async def lint_notebook_now(self, uri: str) -> None:
        notebook = self.workspace.get_notebook_document(notebook_uri=uri)
        if notebook is None:
            return
        cells = []
        for cell in notebook.cells:
            if cell.kind != types.NotebookCellKind.Code:
                continue
            if unquote(cell.document) not in self.workspace.text_documents:
                self.ignore(f"cell {cell.document} of {uri}: the editor never sent its text")
                continue
            document = self.workspace.get_text_document(cell.document)
            cells.append((cell.document, document.source, document.version))
        linted = await asyncio.get_running_loop().run_in_executor(self.worker, lint_notebook, uri, cells, self.settings)
        current = self.workspace.get_notebook_document(notebook_uri=uri)
        if current is None or current.version != notebook.version:
            return
        for cell_uri in self.published_cells.get(uri, []):
            if cell_uri not in linted:  # deleted, or no longer a code cell
                self.forget(cell_uri)
        for cell_uri, result in linted.items():
            self.linted[cell_uri] = result
            self.publish(cell_uri, result)
        self.published_cells[uri] = list(linted)

    def publish(self, uri: str, linted: Linted) -> None:
        if linted.problem is not None:
            self.show_once(linted.problem, types.MessageType.Error)
        positions = DocumentPositions(linted.text, self.encoding)
        related = self.related_information
        diagnostics = [to_lsp_diagnostic(d, positions, linted.filename, uri, related) for d in linted.diagnostics]
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=linted.version)
        )

    def clear(self, uri: str) -> None:
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def forget(self, uri: str) -> None:
        """Drop a document's last result and clear its diagnostics in the editor."""
        self.linted.pop(uri, None)
        self.clear(uri)

    def relint_all(self) -> None:
        for uri in list(self.documents):
            self.schedule(uri, 0)
        for uri in list(self.workspace.notebook_documents):
            self.schedule(uri, 0)

    async def current(self, uri: str) -> Linted | None:
        """The result for the document's text as it is now (linting it if needed)."""
        if not self.known(uri):
            self.ignore(f"a request for {uri}: the document is not open")
            return None
        notebook = self.workspace.get_notebook_document(cell_uri=uri)
        version = self.workspace.get_text_document(uri).version
        linted = self.linted.get(uri)
        if linted is not None and linted.version == version:
            return linted
        await self.wait_for_settings()
        if notebook is not None:
            await self.lint_notebook_now(notebook.uri)
            return self.linted.get(uri)
        return await self.lint_document_now(uri)


def build_server() -> GpulintServer:
    server = GpulintServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: GpulintServer, params: types.InitializeParams) -> None:
        ls.apply_settings(params.initialization_options, initial=True)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: GpulintServer, params: types.InitializedParams) -> None:
        try:
            await ls.pull_settings()
        finally:
            ls.settings_ready.set()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: GpulintServer, params: types.DidChangeConfigurationParams) -> None:
        ls.apply_settings(params.settings)
        await ls.pull_settings()
        ls.relint_all()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: GpulintServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.documents.add(params.text_document.uri)
        ls.schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: GpulintServer, params: types.DidChangeTextDocumentParams) -> None:
        notebook = ls.workspace.get_notebook_document(cell_uri=params.text_document.uri)
        ls.schedule(notebook.uri if notebook is not None else params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: GpulintServer, params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        if not ls.known(uri):
            ls.ignore(f"a save of {uri}: the document is not open")
            return
        # Saving can change what governs the file (a pyproject.toml saved next to it).
        notebook = ls.workspace.get_notebook_document(cell_uri=uri)
        ls.schedule(notebook.uri if notebook is not None else uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: GpulintServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.documents.discard(uri)
        ls.cancel_pending(uri)
        ls.forget(uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_did_open(ls: GpulintServer, params: types.DidOpenNotebookDocumentParams) -> None:
        ls.schedule(params.notebook_document.uri, 0)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_did_change(ls: GpulintServer, params: types.DidChangeNotebookDocumentParams) -> None:
        ls.schedule(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    def notebook_did_save(ls: GpulintServer, params: types.DidSaveNotebookDocumentParams) -> None:
        uri = params.notebook_document.uri
        if ls.workspace.get_notebook_document(notebook_uri=uri) is None:
            ls.ignore(f"a save of {uri}: the notebook is not open")
            return
        ls.schedule(uri, 0)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_did_close(ls: GpulintServer, params: types.DidCloseNotebookDocumentParams) -> None:
        uri = params.notebook_document.uri
        ls.cancel_pending(uri)
        cells = {cell.uri for cell in params.cell_text_documents} | set(ls.published_cells.pop(uri, []))
        for cell_uri in cells:
            ls.forget(cell_uri)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL]),
    )
    async def code_action(ls: GpulintServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        linted = await ls.current(params.text_document.uri)
        if linted is None:
            return None
        return await asyncio.get_running_loop().run_in_executor(
            ls.worker,
            code_actions,
            linted,
            params.text_document.uri,
            ls.encoding,
            params.range,
            params.context.only,
            ls.related_information,
        )

    return server


def start_io() -> None:
    """Serve on standard input/output. Anything else that writes to standard output (a
    stray print) goes to standard error instead, so it cannot corrupt the protocol."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="gpulint server: %(levelname)s: %(message)s")
    protocol_out = sys.stdout.buffer
    sys.stdout = sys.stderr
    build_server().start_io(sys.stdin.buffer, protocol_out)
