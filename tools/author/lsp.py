"""`railrules lsp`: a Language Server Protocol server over stdio for ruleset files (pygls).

An editor that opens a ``.rules`` file (or a ruleset's YAML, or a file of the shared library)
gets the linter's diagnostics as it types — the whole ruleset folder is checked with the
editor's unsaved buffers read instead of the files on disk; a library file is checked with
every ruleset that lists it — and, from the ruleset's symbol table (YAML names included):
hover, go to definition (into the YAML and ``rulesets/library/``), completion, references,
rename across files (YAML included), quick fixes (the fixes of ``lint --fix``), signature
help, document and workspace symbols, semantic tokens (names coloured by what they are). A file that does not parse is reported like any other
problem: the server goes on. A request whose parameters are not valid (a negative position)
gets a JSON-RPC error reply. A check runs under a time limit (:data:`CHECK_SECONDS`) besides the
rules' own budgets (the resource governor): one that takes longer is stopped and the file in hand
gets RR313 saying so, as it does when a check fails; it always hears back.

Everything the server knows comes from the loader and the linter (``check_ruleset``, the
symbol table), never from a second parser.
"""
from __future__ import annotations

import ctypes
import os
import threading
from pathlib import Path
from urllib.parse import unquote, urlparse

from railrules.interpreter.checks.symbols import YAML_KINDS, SymbolTable, symbol_table
from railrules.interpreter.data.ruleset import check_ruleset
from railrules.interpreter.dsl import builtins
from railrules.interpreter.dsl.parser import KEYWORDS
from railrules.interpreter.errors import Diagnostic, Pos
from railrules.interpreter.paths import in_ruleset, rulesets_dir

from railrules.tools.author import fixes
from railrules.tools.common.heap import settled_heap
from railrules.tools.author.lint import (chosen, library_users, lint_config, listed_rules, still_blocking,
                                         suppressed)
from railrules.tools.author.lsp_text import NAME, after_dot, call_at, occurrences, ruleset_files, tokens, word_at

DEBOUNCE = 0.15   # seconds of quiet typing before a ruleset is checked again
CHECK_SECONDS = float(os.environ.get("RAILRULES_LSP_CHECK_SECONDS", "10"))  # then a check is stopped
LIBRARY = (rulesets_dir() / "library").resolve()


def path_of(uri: str) -> Path:
    return Path(unquote(urlparse(uri).path)).resolve()


def ruleset_root(path: Path) -> Path | None:
    """The ruleset folder a file belongs to: the nearest folder above it with a ruleset.yaml."""
    for folder in [path.parent, *path.parents]:
        if (folder / "ruleset.yaml").is_file():
            return folder
    return None


class Rules:
    """What the server knows of one ruleset folder: the last check's diagnostics and the
    symbol table of its last good load (kept while the rules are broken)."""

    def __init__(self, root: Path):
        self.root = root
        self.table = SymbolTable([])
        self.diags: dict = {}          # path -> [Diagnostic] of the last check
        self.config = lint_config(root)

    def check(self, texts: dict) -> dict:
        """Path -> [Diagnostic] for every file of the ruleset (empty lists clear old ones),
        chosen as lint chooses them (the lint: section, ``# lint: ignore[...]``; never an error
        with which the ruleset does not load)."""
        with settled_heap():
            ruleset, diags = check_ruleset(str(self.root), texts=texts)
        if ruleset is not None:
            self.table = symbol_table(ruleset)
        self.config = lint_config(self.root)
        out: dict = {p: [] for p in self.diags}

        def where(d) -> Path:
            path = Path(d.pos.file).resolve() if d.pos.file and not d.pos.file.startswith("<") \
                else self.root / "ruleset.yaml"
            return path / "ruleset.yaml" if path.is_dir() else path

        def text(path: Path) -> str:
            return texts[path] if path in texts else _read(path)
        kept = [d for d in chosen(diags, self.config["select"], self.config["ignore"])
                if not suppressed(d, text(where(d)))]
        for d in kept + still_blocking(self.root, [d for d in diags if d not in kept], texts):
            out.setdefault(where(d), []).append(d)
        self.diags = {p: ds for p, ds in out.items() if ds}
        return out

    def files(self, texts: dict) -> list[Path]:
        return sorted(set(ruleset_files(self.root, listed_rules(self.root), LIBRARY)) |
                      {p for p in texts if p.is_relative_to(self.root)})


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def _source_line(path: Path, line: int) -> tuple[str, str]:
    """A definition's line and the comment lines just above it."""
    lines = _read(path).splitlines()
    text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    comment: list[str] = []
    k = line - 2
    while k >= 0 and lines[k].lstrip().startswith("#"):
        comment.insert(0, lines[k].lstrip()[1:].strip())
        k -= 1
    return text, " ".join(comment)


def describe(s) -> str:
    """A symbol as hover shows it."""
    from railrules.interpreter.checks.check_types import _words
    where = in_ruleset(s.pos.file, s.pos.line)
    if s.kind in YAML_KINDS:
        of = f" of {s.owner}" if s.owner and s.kind in ("field", "entity", "alias") else ""
        value = f" = `{s.detail}`" if s.detail else ""
        return f"**{s.name}** ({s.kind}{of}, {_words(s.type)}){value}\n\n{where}"
    line, comment = _source_line(Path(s.pos.file).resolve(), s.pos.line)
    return f"**{s.name}** ({s.kind}, {where})\n\n```\n{line}\n```" + (f"\n\n{comment}" if comment else "")


def builtin_signature(name: str) -> str:
    b = builtins.ALL[name]
    args = list(b.args) or [f"x{i + 1}" for i in range(b.lo)]
    shown = [a if i < b.lo else f"{a}?" for i, a in enumerate(args[:b.hi])]
    return f"{name}({', '.join(shown + (['...'] if b.hi > len(shown) else []))})"


def make_server():
    """The pygls server, its features registered (imported here: pygls is an optional extra)."""
    from lsprotocol import types as t
    from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
    from pygls.lsp.server import LanguageServer
    from pygls.protocol import LanguageServerProtocol

    class Protocol(LanguageServerProtocol):
        """A request whose parameters do not validate (a negative or huge position) is answered
        with a JSON-RPC error; pygls would log it and leave the client waiting."""

        def structure_message(self, data):
            try:
                return super().structure_message(data)
            except JsonRpcException as err:
                if isinstance(data, dict) and "id" in data and "method" in data:
                    self._send_response(data["id"], error=err.to_response_error())
                return _Dropped()

    server = LanguageServer("railrules", "0.2", protocol_cls=Protocol,
                            text_document_sync_kind=t.TextDocumentSyncKind.Full)
    rulesets: dict = {}
    timers: dict = {}
    lock = threading.Lock()

    def contexts(path: Path) -> list[Rules]:
        """The rulesets a file is checked in: its own; for a library file, every ruleset that
        lists it (the shipped ones, and any the editor has open)."""
        if path.is_relative_to(LIBRARY):
            rel = "library/" + path.relative_to(LIBRARY).as_posix()
            roots = set(library_users(path)) | {r for r in rulesets if rel in (listed_rules(r) or ())}
            return [known(r) for r in sorted(roots)]
        root = ruleset_root(path)
        return [known(root)] if root is not None else []

    def known(root: Path) -> Rules:
        if root not in rulesets:
            rulesets[root] = Rules(root)
        return rulesets[root]

    def texts_under(root: Path) -> dict:
        """The open documents a check of ``root`` reads: its own files and the shared library's."""
        out = {}
        for doc in list(server.workspace.text_documents.values()):
            p = path_of(doc.uri)
            if p.is_relative_to(root) or p.is_relative_to(LIBRARY):
                out[p] = doc.source
        return out

    def check(rules_list: list[Rules], box: dict) -> None:
        found: dict = {}
        try:
            with lock:
                for rules in rules_list:
                    for path, diags in rules.check(texts_under(rules.root)).items():
                        said = found.setdefault(path, [])
                        said += [d for d in diags if d not in said]
        except _Stopped:
            return
        except Exception as err:  # said to the author, and the server goes on
            box["error"] = f"{type(err).__name__}: {str(err)[:200]}"
            return
        box["found"] = found

    def publish(rules_list: list[Rules], edited: Path) -> None:
        """Check, within :data:`CHECK_SECONDS`, and always say something about ``edited``: its
        diagnostics, or RR313 saying why the check stopped."""
        box: dict = {}
        worker = threading.Thread(target=check, args=(rules_list, box), daemon=True)
        worker.start()
        worker.join(CHECK_SECONDS)
        if worker.is_alive():
            _stop(worker)
        found = box.get("found")
        if found is None:
            why = box.get("error") or f"it took more than {CHECK_SECONDS:g} s"
            found = {edited: [Diagnostic("RR313", f"the check of the ruleset was stopped: {why}",
                                         Pos(str(edited), 1, 1))]}
        found.setdefault(edited, [])  # the file in hand always hears back, clean or not
        for path, diags in found.items():
            server.text_document_publish_diagnostics(t.PublishDiagnosticsParams(
                uri=path.as_uri(), diagnostics=[_lsp_diagnostic(t, d) for d in diags]))

    def schedule(uri: str, at_once: bool = False) -> None:
        path = path_of(uri)
        rules_list = contexts(path)
        if not rules_list:
            return
        key = tuple(r.root for r in rules_list)
        old = timers.pop(key, None)
        if old is not None:
            old.cancel()
        timer = timers[key] = threading.Timer(0 if at_once else DEBOUNCE, publish, (rules_list, path))
        timer.daemon = True
        timer.start()

    @server.feature(t.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls, params: t.DidOpenTextDocumentParams):
        schedule(params.text_document.uri, at_once=True)

    @server.feature(t.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls, params: t.DidChangeTextDocumentParams):
        schedule(params.text_document.uri)

    @server.feature(t.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls, params: t.DidSaveTextDocumentParams):
        schedule(params.text_document.uri, at_once=True)

    def source(uri: str) -> str:
        return server.workspace.get_text_document(uri).source

    def table_of(uri: str) -> SymbolTable:
        found = contexts(path_of(uri))
        return found[0].table if found else SymbolTable([])

    def symbols_at(params) -> tuple[str | None, list]:
        """The word under the cursor and the symbols it may name (fields only after a dot)."""
        text = source(params.text_document.uri)
        line, char = params.position.line, params.position.character
        name = word_at(text, line, char)
        if name is None:
            return None, []
        found = table_of(params.text_document.uri)[name]
        if after_dot(text, line, char):
            found = [s for s in found if s.kind in ("field", "player field")] or found
        return name, found

    @server.feature(t.TEXT_DOCUMENT_HOVER)
    def hover(ls, params: t.HoverParams):
        name, found = symbols_at(params)
        if name is None:
            return None
        if found:
            text = "\n\n---\n\n".join(describe(s) for s in found)
        elif name in builtins.ALL:
            text = f"**{builtin_signature(name)}** (builtin): {builtins.ALL[name].doc}"
        elif name in KEYWORDS:
            text = f"**{name}**: a keyword of the rules language (see LANGUAGE.md)"
        else:
            return None
        return t.Hover(contents=t.MarkupContent(kind=t.MarkupKind.Markdown, value=text))

    @server.feature(t.TEXT_DOCUMENT_DEFINITION)
    def definition(ls, params: t.DefinitionParams):
        _, found = symbols_at(params)
        places = [t.Location(uri=Path(s.pos.file).resolve().as_uri(),
                             range=_range(t, s.pos.line, s.pos.column, len(s.name))) for s in found]
        return places[0] if len(places) == 1 else places or None

    @server.feature(t.TEXT_DOCUMENT_COMPLETION)
    def completion(ls, params: t.CompletionParams):
        text = source(params.text_document.uri)
        table = table_of(params.text_document.uri)
        kinds = {"constant": t.CompletionItemKind.Constant, "const": t.CompletionItemKind.Constant,
                 "variable": t.CompletionItemKind.Variable, "field": t.CompletionItemKind.Field,
                 "player field": t.CompletionItemKind.Field, "kind": t.CompletionItemKind.Class,
                 "entity": t.CompletionItemKind.EnumMember, "alias": t.CompletionItemKind.EnumMember,
                 "def": t.CompletionItemKind.Function, "procedure": t.CompletionItemKind.Method,
                 "event": t.CompletionItemKind.Event}
        seen: set = set()
        items = []
        fields_only = after_dot(text, params.position.line, params.position.character)
        for s in table.symbols:
            if (s.name, s.kind) in seen or (fields_only and s.kind not in ("field", "player field")):
                continue
            seen.add((s.name, s.kind))
            items.append(t.CompletionItem(label=s.name, kind=kinds.get(s.kind, t.CompletionItemKind.Reference),
                                          detail=f"{s.kind}{' of ' + s.owner if s.owner else ''}: {s.type}"))
        if not fields_only:
            items += [t.CompletionItem(label=k, kind=t.CompletionItemKind.Keyword) for k in sorted(KEYWORDS)]
            items += [t.CompletionItem(label=k, kind=t.CompletionItemKind.Function, detail=b.doc)
                      for k, b in sorted(builtins.ALL.items())]
        return t.CompletionList(is_incomplete=False, items=items)

    @server.feature(t.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def document_symbols(ls, params: t.DocumentSymbolParams):
        path = path_of(params.text_document.uri)
        found = [s for s in table_of(params.text_document.uri).symbols
                 if Path(s.pos.file).resolve() == path and s.kind not in ("option",)]
        return [t.DocumentSymbol(name=s.name, kind=_symbol_kind(t, s.kind), detail=s.kind,
                                 range=_range(t, s.pos.line, 1, 0),
                                 selection_range=_range(t, s.pos.line, s.pos.column, len(s.name)))
                for s in sorted(found, key=lambda s: (s.pos.line, s.pos.column))]

    @server.feature(t.WORKSPACE_SYMBOL)
    def workspace_symbols(ls, params: t.WorkspaceSymbolParams):
        query = params.query.lower()
        out = []
        for rules in list(rulesets.values()):
            for s in rules.table.symbols:
                if query in s.name.lower():
                    out.append(t.SymbolInformation(name=s.name, kind=_symbol_kind(t, s.kind),
                                                   container_name=f"{rules.root.name} {s.kind}",
                                                   location=t.Location(uri=Path(s.pos.file).resolve().as_uri(),
                                                                       range=_range(t, s.pos.line, s.pos.column, len(s.name)))))
        return out[:1000]

    def places(uri: str, name: str) -> dict:
        """uri -> ranges of every place ``name`` is written in the files of the rulesets the
        document belongs to (their rules, YAML, scenarios, and the library files they list)."""
        out: dict = {}
        for rules in contexts(path_of(uri)):
            texts = texts_under(rules.root)
            for path in rules.files(texts):
                text = texts.get(path)
                for line, start, end in occurrences(name, text if text is not None else _read(path)):
                    out.setdefault(path.as_uri(), set()).add((line, start, end))
        return out

    @server.feature(t.TEXT_DOCUMENT_REFERENCES)
    def references(ls, params: t.ReferenceParams):
        name = word_at(source(params.text_document.uri), params.position.line, params.position.character)
        if name is None:
            return []
        return [t.Location(uri=uri, range=t.Range(start=t.Position(line=k, character=a), end=t.Position(line=k, character=b)))
                for uri, found in sorted(places(params.text_document.uri, name).items()) for k, a, b in sorted(found)]

    @server.feature(t.TEXT_DOCUMENT_RENAME)
    def rename(ls, params: t.RenameParams):
        name, found = symbols_at(params)
        if name is None or not found:
            raise JsonRpcInvalidParams(message=f"'{name}' is not a name of the ruleset: only its own names "
                                       "(YAML or rules) can be renamed")
        if not NAME.match(params.new_name) or params.new_name in KEYWORDS or params.new_name in builtins.ALL:
            raise JsonRpcInvalidParams(message=f"'{params.new_name}' cannot be a name: letters, digits and _, "
                                       "not a keyword or a builtin")
        changes = {uri: [t.TextEdit(range=t.Range(start=t.Position(line=k, character=a),
                                                  end=t.Position(line=k, character=b)), new_text=params.new_name)
                         for k, a, b in sorted(found_at)]
                   for uri, found_at in places(params.text_document.uri, name).items()}
        return t.WorkspaceEdit(changes=changes)

    @server.feature(t.TEXT_DOCUMENT_CODE_ACTION,
                    t.CodeActionOptions(code_action_kinds=[t.CodeActionKind.QuickFix]))
    def code_actions(ls, params: t.CodeActionParams):
        path = path_of(params.text_document.uri)
        text = source(params.text_document.uri)
        ours = [d for rules in contexts(path) for d in rules.diags.get(path, [])]
        out = []
        for lsp in params.context.diagnostics:
            for d in ours:
                if d.code == lsp.code and d.pos.line == lsp.range.start.line + 1 and \
                        max(0, d.pos.column - 1) == lsp.range.start.character:
                    fix = fixes.fix_of(d, text)
                    if fix is not None:
                        edit = t.TextEdit(range=t.Range(start=t.Position(line=fix.line - 1, character=fix.start - 1),
                                                        end=t.Position(line=fix.line - 1, character=fix.end - 1)),
                                          new_text=fix.new)
                        out.append(t.CodeAction(title=fix.title, kind=t.CodeActionKind.QuickFix, diagnostics=[lsp],
                                                is_preferred=True,
                                                edit=t.WorkspaceEdit(changes={params.text_document.uri: [edit]})))
                    break
        return out

    @server.feature(t.TEXT_DOCUMENT_SIGNATURE_HELP, t.SignatureHelpOptions(trigger_characters=["(", ","]))
    def signature_help(ls, params: t.SignatureHelpParams):
        call = call_at(source(params.text_document.uri), params.position.line, params.position.character)
        if call is None:
            return None
        name, arg = call
        table = table_of(params.text_document.uri)
        defined = [s for s in table[name] if s.kind in ("def", "procedure", "event")]
        if defined:
            label, doc = defined[0].signature, f"{defined[0].kind}, {defined[0].pos.file}:{defined[0].pos.line}"
            params_ = list(defined[0].params)
        elif name in builtins.ALL:
            label, doc = builtin_signature(name), builtins.ALL[name].doc
            params_ = label[len(name) + 1:-1].split(", ") if label[len(name) + 1:-1] else []
        else:
            return None
        return t.SignatureHelp(signatures=[t.SignatureInformation(
            label=label, documentation=doc, parameters=[t.ParameterInformation(label=p) for p in params_])],
            active_signature=0, active_parameter=min(arg, max(0, len(params_) - 1)))

    legend = t.SemanticTokensLegend(token_types=list(TOKEN_TYPES), token_modifiers=[])

    @server.feature(t.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, legend)
    def semantic_tokens(ls, params: t.SemanticTokensParams):
        if path_of(params.text_document.uri).suffix != ".rules":
            return t.SemanticTokens(data=[])
        table = table_of(params.text_document.uri)

        def classify(name: str, after: bool) -> str | None:
            kinds = {s.kind for s in table[name]}
            if after:
                return "property" if kinds & {"field", "player field"} else None
            if name in KEYWORDS:
                return "keyword"
            for kind in ("def", "procedure", "constant", "const", "variable", "kind", "entity", "alias", "event"):
                if kind in kinds:
                    return TOKEN_KINDS[kind]
            return "function" if name in builtins.ALL else None

        data: list[int] = []
        last_line = last_start = 0
        for line, start, length, kind in tokens(source(params.text_document.uri), classify):
            data += [line - last_line, start - last_start if line == last_line else start, length,
                     TOKEN_TYPES.index(kind), 0]
            last_line, last_start = line, start
        return t.SemanticTokens(data=data)

    return server


TOKEN_TYPES = ("keyword", "function", "method", "variable", "property", "class", "enumMember", "event",
               "string", "number", "comment")
TOKEN_KINDS = {"def": "function", "procedure": "method", "constant": "variable", "const": "variable",
               "variable": "variable", "kind": "class", "entity": "enumMember", "alias": "enumMember",
               "event": "event"}


class _Stopped(BaseException):
    """Raised in a check that ran past its time (not an Exception: no handler of the rules'
    code takes it for a fault of the rules)."""


def _stop(worker: threading.Thread) -> None:
    """Stop a check under way: :class:`_Stopped` is raised in its thread at its next Python
    instruction (rules run as Python code, so at once; a builtin's C call finishes first)."""
    if worker.ident is None:   # never started: nothing to stop
        return
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(worker.ident), ctypes.py_object(_Stopped))
    worker.join(CHECK_SECONDS)


class _Dropped:
    """A message already answered with an error: pygls's handler skips it (not JSON-RPC 2.0)."""
    jsonrpc = "answered"


def _symbol_kind(t, kind: str):
    return {"procedure": t.SymbolKind.Function, "def": t.SymbolKind.Function, "action": t.SymbolKind.Event,
            "const": t.SymbolKind.Constant, "constant": t.SymbolKind.Constant, "variable": t.SymbolKind.Variable,
            "field": t.SymbolKind.Field, "player field": t.SymbolKind.Field, "kind": t.SymbolKind.Class,
            "entity": t.SymbolKind.EnumMember, "alias": t.SymbolKind.EnumMember, "event": t.SymbolKind.Event,
            "option": t.SymbolKind.Event}.get(kind, t.SymbolKind.Variable)


def _range(t, line: int, column: int, length: int):
    start = t.Position(line=max(0, line - 1), character=max(0, column - 1))
    return t.Range(start=start, end=t.Position(line=start.line, character=start.character + length))


def _lsp_diagnostic(t, d):
    severity = t.DiagnosticSeverity.Error if d.severity == "error" else t.DiagnosticSeverity.Warning
    width = max(1, d.pos.end_column - d.pos.column)   # the whole span, when its end is known
    return t.Diagnostic(range=_range(t, d.pos.line, d.pos.column, width),
                        message=d.message + (f" (help: {d.hint})" if d.hint else ""),
                        severity=severity, code=d.code, source="railrules")


# ------------------------------------------------------------------ the verb: railrules lsp
def add_arguments(parser) -> None:
    parser.description = (
        "Start a Language Server Protocol server on stdin/stdout: lint diagnostics as you type, hover, "
        "go to definition, completion, symbols and references for ruleset files. Needs pip install "
        "\".[lsp]\" (pygls). An editor starts it; see tools/vscode/README.md.")


def run(args) -> int:
    try:
        server = make_server()
    except ImportError:
        import sys
        print('railrules lsp needs pygls: pip install "railrules[lsp]" (or pip install ".[lsp]" in the '
              "checkout)", file=sys.stderr)
        return 2
    server.start_io()
    return 0
