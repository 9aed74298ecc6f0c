"""`railrules lsp`: a Language Server Protocol server over stdio for ruleset files (pygls).

An editor that opens a ``.rules`` file (or a ruleset's YAML) gets the linter's diagnostics as
it types — the whole ruleset folder is checked with the editor's unsaved buffers read instead
of the files on disk — hover (a builtin's signature and help, a definition's first line and the
comment above it), go to definition (across files and into ``rulesets/library/``), completion
(keywords, builtins, the ruleset's names), the symbols of a file and the references to a name.
A file that does not parse is reported like any other problem: the server goes on.

Everything the server knows comes from the loader and the linter (``check_ruleset``), never
from a second parser.
"""
from __future__ import annotations

import re
import threading
from pathlib import Path
from urllib.parse import unquote, urlparse

from railrules.interpreter.data.ruleset import check_ruleset
from railrules.interpreter.dsl import builtins
from railrules.interpreter.dsl import nodes as n
from railrules.interpreter.dsl.parser import KEYWORDS
from railrules.interpreter.paths import in_ruleset, rulesets_dir

from .heap import settled_heap

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
DEBOUNCE = 0.15   # seconds of quiet typing before a ruleset is checked again


def path_of(uri: str) -> Path:
    return Path(unquote(urlparse(uri).path)).resolve()


def ruleset_root(path: Path) -> Path | None:
    """The ruleset folder a file belongs to: the nearest folder above it with a ruleset.yaml."""
    for folder in [path.parent, *path.parents]:
        if (folder / "ruleset.yaml").is_file():
            return folder
    return None


def word_at(text: str, line: int, character: int) -> str | None:
    lines = text.splitlines()
    if line >= len(lines):
        return None
    for m in _WORD.finditer(lines[line]):
        if m.start() <= character <= m.end():
            return m.group(0)
    return None


class Rules:
    """What the server knows of one ruleset folder: the last check's diagnostics and the
    definitions of its last good load (kept while the rules are broken)."""

    def __init__(self, root: Path):
        self.root = root
        self.definitions: dict = {}   # name -> (kind, Pos, first line)
        self.files: set = set()       # paths that had diagnostics last time

    def check(self, texts: dict) -> dict:
        """Path -> [Diagnostic] for every file of the ruleset (empty lists clear old ones)."""
        with settled_heap():
            ruleset, diags = check_ruleset(str(self.root), texts=texts)
        if ruleset is not None:
            self.definitions = _definitions(ruleset)
        out: dict = {p: [] for p in self.files}
        for d in diags:
            path = Path(d.pos.file).resolve() if d.pos.file and not d.pos.file.startswith("<") \
                else self.root / "ruleset.yaml"
            if path.is_dir():
                path = path / "ruleset.yaml"
            out.setdefault(path, []).append(d)
        self.files = {p for p, ds in out.items() if ds}
        return out


def _definitions(ruleset) -> dict:
    kinds = {n.ProcDef: "procedure", n.ActionDef: "action", n.FuncDef: "def", n.ConstDef: "const"}
    out = {}
    for d in ruleset.definitions:
        kind = next((k for cls, k in kinds.items() if isinstance(d, cls)), None)
        name = getattr(d, "name", None)
        if kind and name:
            out[name] = (kind, d.pos)
    return out


def _source_line(path: Path, line: int) -> tuple[str, str]:
    """A definition's line and the comment lines just above it."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return "", ""
    text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    comment = []
    k = line - 2
    while k >= 0 and lines[k].lstrip().startswith("#"):
        comment.insert(0, lines[k].lstrip()[1:].strip())
        k -= 1
    return text, " ".join(comment)


def make_server():
    """The pygls server, its features registered (imported here: pygls is an optional extra)."""
    from lsprotocol import types as t
    from pygls.lsp.server import LanguageServer

    server = LanguageServer("railrules", "0.1", text_document_sync_kind=t.TextDocumentSyncKind.Full)
    rulesets: dict = {}
    timers: dict = {}
    lock = threading.Lock()

    def rules_for(path: Path) -> Rules | None:
        root = ruleset_root(path)
        if root is None:
            return None
        return rulesets.setdefault(root, Rules(root))

    library = (rulesets_dir() / "library").resolve()

    def texts_under(root: Path) -> dict:
        """The open documents a check of ``root`` reads: its own files and the shared library's."""
        out = {}
        for doc in list(server.workspace.text_documents.values()):
            p = path_of(doc.uri)
            if p.is_relative_to(root) or p.is_relative_to(library):
                out[p] = doc.source
        return out

    def publish(rules: Rules, edited: Path) -> None:
        with lock:
            found = rules.check(texts_under(rules.root))
        found.setdefault(edited, [])  # the file in hand always hears back, clean or not
        for path, diags in found.items():
            server.text_document_publish_diagnostics(t.PublishDiagnosticsParams(
                uri=path.as_uri(), diagnostics=[_lsp_diagnostic(t, d) for d in diags]))

    def schedule(uri: str, at_once: bool = False) -> None:
        path = path_of(uri)
        rules = rules_for(path)
        if rules is None:
            return
        old = timers.pop(rules.root, None)
        if old is not None:
            old.cancel()
        if at_once:
            publish(rules, path)
            return
        timer = timers[rules.root] = threading.Timer(DEBOUNCE, publish, (rules, path))
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

    def word(params) -> tuple[str | None, Rules | None]:
        doc = server.workspace.get_text_document(params.text_document.uri)
        return (word_at(doc.source, params.position.line, params.position.character),
                rules_for(path_of(params.text_document.uri)))

    @server.feature(t.TEXT_DOCUMENT_HOVER)
    def hover(ls, params: t.HoverParams):
        name, rules = word(params)
        if name is None:
            return None
        if name in builtins.ALL:
            b = builtins.ALL[name]
            arity = str(b.lo) if b.lo == b.hi else f"{b.lo} to {b.hi}"
            text = f"**{name}** (builtin, {arity} argument(s)): {b.doc}"
        elif rules is not None and name in rules.definitions:
            kind, pos = rules.definitions[name]
            line, comment = _source_line(Path(pos.file).resolve(), pos.line)
            text = f"**{name}** ({kind}, {in_ruleset(pos.file, pos.line)})\n\n```\n{line}\n```" + (f"\n\n{comment}" if comment else "")
        elif name in KEYWORDS:
            text = f"**{name}**: a keyword of the rules language (see LANGUAGE.md)"
        else:
            return None
        return t.Hover(contents=t.MarkupContent(kind=t.MarkupKind.Markdown, value=text))

    @server.feature(t.TEXT_DOCUMENT_DEFINITION)
    def definition(ls, params: t.DefinitionParams):
        name, rules = word(params)
        if name is None or rules is None or name not in rules.definitions:
            return None
        _, pos = rules.definitions[name]
        return t.Location(uri=Path(pos.file).resolve().as_uri(), range=_range(t, pos.line, pos.column, 0))

    @server.feature(t.TEXT_DOCUMENT_COMPLETION)
    def completion(ls, params: t.CompletionParams):
        rules = rules_for(path_of(params.text_document.uri))
        items = [t.CompletionItem(label=k, kind=t.CompletionItemKind.Keyword) for k in sorted(KEYWORDS)]
        items += [t.CompletionItem(label=k, kind=t.CompletionItemKind.Function, detail=b.doc)
                  for k, b in sorted(builtins.ALL.items())]
        if rules is not None:
            items += [t.CompletionItem(label=k, kind=t.CompletionItemKind.Reference, detail=kind)
                      for k, (kind, _) in sorted(rules.definitions.items())]
        return t.CompletionList(is_incomplete=False, items=items)

    @server.feature(t.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def symbols(ls, params: t.DocumentSymbolParams):
        path = path_of(params.text_document.uri)
        rules = rules_for(path)
        if rules is None:
            return []
        kinds = {"procedure": t.SymbolKind.Function, "action": t.SymbolKind.Event,
                 "def": t.SymbolKind.Function, "const": t.SymbolKind.Constant}
        return [t.DocumentSymbol(name=name, kind=kinds[kind], range=_range(t, pos.line, 1, 0),
                                 selection_range=_range(t, pos.line, pos.column, 0), detail=kind)
                for name, (kind, pos) in sorted(rules.definitions.items(), key=lambda x: x[1][1].line)
                if Path(pos.file).resolve() == path]

    @server.feature(t.TEXT_DOCUMENT_REFERENCES)
    def references(ls, params: t.ReferenceParams):
        name, rules = word(params)
        if name is None or rules is None:
            return []
        texts = texts_under(rules.root)
        files = {p.resolve() for p in rules.root.rglob("*.rules")} | set(texts)
        files |= {Path(pos.file).resolve() for _, pos in rules.definitions.values()}
        found = []
        for path in sorted(files):
            text = texts.get(path)
            if text is None:
                try:
                    text = path.read_text(encoding="utf-8")
                except OSError:
                    continue
            for k, line in enumerate(text.splitlines()):
                code = line.split("#", 1)[0]
                for m in re.finditer(rf"\b{re.escape(name)}\b", code):
                    found.append(t.Location(uri=path.as_uri(), range=t.Range(
                        start=t.Position(line=k, character=m.start()), end=t.Position(line=k, character=m.end()))))
        return found

    return server


def _range(t, line: int, column: int, length: int):
    start = t.Position(line=max(0, line - 1), character=max(0, column - 1))
    return t.Range(start=start, end=t.Position(line=start.line, character=start.character + length))


def _lsp_diagnostic(t, d):
    severity = t.DiagnosticSeverity.Error if d.severity == "error" else t.DiagnosticSeverity.Warning
    width = max(1, d.pos.end_column - d.pos.column)   # the whole span, when its end is known
    return t.Diagnostic(range=_range(t, d.pos.line, d.pos.column, width),
                        message=d.message + (f" (help: {d.hint})" if d.hint else ""),
                        severity=severity, code=d.code, source="railrules")


def main() -> int:
    try:
        server = make_server()
    except ImportError:
        import sys
        print('railrules lsp needs pygls: pip install "railrules[lsp]" (or pip install ".[lsp]" in the '
              "checkout)", file=sys.stderr)
        return 2
    server.start_io()
    return 0
