"""`railrules lsp` (issue 13): the language server, spoken to over stdio with JSON-RPC as an
editor speaks to it."""
from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("pygls", reason="the language server needs pygls (pip install '.[lsp]')")

from railrules.interpreter.paths import rulesets_dir

ROOT = Path(__file__).resolve().parents[1]


class Client:
    """An editor's side of the protocol: Content-Length framed JSON-RPC on the server's pipes."""

    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, "-m", "railrules", "lsp"], cwd=ROOT,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.inbox: queue.Queue = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            header = b""
            while not header.endswith(b"\r\n\r\n"):
                byte = out.read(1)
                if not byte:
                    return
                header += byte
            length = int(header.split(b"Content-Length:")[1].split(b"\r\n")[0])
            self.inbox.put(json.loads(out.read(length)))

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def request(self, method: str, params: dict):
        return self.reply(method, params)["result"]

    def reply(self, method: str, params: dict) -> dict:
        """The whole reply (a result or an error) to a request."""
        self.next_id += 1
        me = self.next_id
        self.send({"id": me, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == me)

    def notify(self, method: str, params: dict) -> None:
        self.send({"method": method, "params": params})

    def wait(self, want, timeout: float = 60):
        end = time.monotonic() + timeout
        while True:
            message = self.inbox.get(timeout=max(0.01, end - time.monotonic()))
            if want(message):
                return message

    def diagnostics(self, uri: str) -> list:
        return self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                         and m["params"]["uri"] == uri)["params"]["diagnostics"]

    def close(self):
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        finally:
            self.proc.kill()


@pytest.fixture
def client():
    c = Client()
    c.request("initialize", {"processId": None, "rootUri": ROOT.as_uri(), "capabilities": {}})
    c.notify("initialized", {})
    yield c
    c.close()


DIVIDENDS = ROOT / "rulesets" / "chicago_express" / "rules" / "dividends.rules"


def _open(client, path: Path, text: str | None = None) -> str:
    uri = path.as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "rules", "version": 1, "text": text or path.read_text(encoding="utf-8")}})
    return uri


def _change(client, uri: str, text: str, version: int) -> None:
    client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                             "contentChanges": [{"text": text}]})


def _opened(client, path: Path) -> tuple[str, str, dict]:
    """Open a file, wait for its first diagnostics: its text, uri and textDocument."""
    text = path.read_text(encoding="utf-8")
    uri = _open(client, path)
    client.diagnostics(uri)
    return text, uri, {"uri": uri}


def _at(text: str, needle: str) -> dict:
    i = text.index(needle)
    return {"line": text.count("\n", 0, i), "character": i - (text.rfind("\n", 0, i) + 1)}


def test_diagnostics_follow_the_unsaved_text(client):
    text = DIVIDENDS.read_text(encoding="utf-8")
    uri = _open(client, DIVIDENDS)
    assert [d for d in client.diagnostics(uri) if d["severity"] == 1] == []
    broken = text.replace("call pay_per_share(c, dividend(c))", "call pay_per_share(c, dividnd(c))")
    _change(client, uri, broken, 2)
    found = client.diagnostics(uri)
    assert [d["code"] for d in found] == ["RR102"]
    assert found[0]["range"]["start"] == _at(broken, "dividnd(c)") and "dividend" in found[0]["message"]
    _change(client, uri, broken.replace("procedure pay_dividend(c):", "procedure pay_dividend(c:"), 3)
    assert any(d["code"] == "RR101" for d in client.diagnostics(uri))  # does not parse: reported
    _change(client, uri, text, 4)
    assert client.diagnostics(uri) == []   # fixed: cleared; the server is still there
    assert DIVIDENDS.read_text(encoding="utf-8") == text  # nothing written to disk


def test_hover_definition_completion_symbols_references(client):
    text, uri, doc = _opened(client, DIVIDENDS)
    hover = client.request("textDocument/hover", {"textDocument": doc, "position": _at(text, "ceil(")})
    assert "round a fraction up" in hover["contents"]["value"]
    at_call = _at(text, "pay_per_share(c, dividend(c))")
    hover = client.request("textDocument/hover", {"textDocument": doc, "position": at_call})
    assert "procedure" in hover["contents"]["value"]
    where = client.request("textDocument/definition", {"textDocument": doc, "position": at_call})
    assert where["uri"].endswith("rulesets/library/shares.rules")  # into the shared library
    library = (ROOT / "rulesets" / "library" / "shares.rules").read_text(encoding="utf-8").splitlines()
    assert library[where["range"]["start"]["line"]].startswith("procedure pay_per_share")
    items = client.request("textDocument/completion", {"textDocument": doc, "position": at_call})["items"]
    labels = {i["label"] for i in items}
    assert {"procedure", "ceil", "dividend", "pay_per_share"} <= labels
    symbols = client.request("textDocument/documentSymbol", {"textDocument": doc})
    assert [s["name"] for s in symbols] == ["dividend", "pay_dividend", "dividend_phase", "train_arrived"]
    refs = client.request("textDocument/references", {"textDocument": doc, "position": _at(text, "dividend(c) ="),
                                                       "context": {"includeDeclaration": True}})
    files = {r["uri"].rsplit("/", 1)[1] for r in refs}
    assert {"dividends.rules", "end.rules"} <= files and len(refs) >= 4


BUILD = ROOT / "rulesets" / "chicago_express" / "rules" / "build.rules"
COMPONENTS = ROOT / "rulesets" / "chicago_express" / "components.yaml"
# the library the server reads: the installed package's (the checkout's own under an editable
# install), whichever ruleset folder uses it
NETWORK = (rulesets_dir() / "library" / "network.rules").resolve()


def _line_of(path: Path, needle: str) -> int:
    """The line (from 0) of the first line of ``path`` that starts with ``needle`` (after spaces)."""
    return next(i for i, x in enumerate(path.read_text(encoding="utf-8").splitlines()) if x.lstrip().startswith(needle))


def test_the_yaml_names_hover_definition_and_completion(client):
    text, uri, doc = _opened(client, BUILD)
    hover = client.request("textDocument/hover", {"textDocument": doc, "position": _at(text, "max_build)")})
    assert "**max_build** (constant, a number) = `3`" in hover["contents"]["value"]
    assert "components.yaml" in hover["contents"]["value"]
    where = client.request("textDocument/definition", {"textDocument": doc, "position": _at(text, "trains_left > 0")})
    assert where["uri"] == COMPONENTS.as_uri()
    row = COMPONENTS.read_text(encoding="utf-8").splitlines()[where["range"]["start"]["line"]]
    assert row[where["range"]["start"]["character"]:].startswith("trains_left")
    where = client.request("textDocument/definition", {"textDocument": doc, "position": _at(text, "max_build)")})
    assert where["range"]["start"]["line"] == _line_of(COMPONENTS, "max_build:")
    labels = {i["label"]: i for i in client.request("textDocument/completion", {
        "textDocument": doc, "position": _at(text, "max_build)")})["items"]}
    assert {"max_build", "companies", "trains_left", "PRR", "build_price"} <= set(labels)
    assert labels["max_build"]["detail"] == "constant: int"
    after_dot = client.request("textDocument/completion", {"textDocument": doc, "position": _at(text, "trains_left > 0")})
    assert {i["label"] for i in after_dot["items"]} >= {"trains_left", "cash", "network"}
    assert "procedure" not in {i["label"] for i in after_dot["items"]}   # fields only after a dot


def test_rename_across_files_and_yaml_writes_nothing(client):
    text = BUILD.read_text(encoding="utf-8")
    uri = _open(client, BUILD)
    client.diagnostics(uri)
    edit = client.request("textDocument/rename", {"textDocument": {"uri": uri}, "position": _at(text, "max_build)"),
                                                  "newName": "build_limit"})
    files = {u.rsplit("/", 2)[-2] + "/" + u.rsplit("/", 1)[1]: e for u, e in edit["changes"].items()}
    assert {"chicago_express/components.yaml", "rules/build.rules"} <= set(files)
    assert files["chicago_express/components.yaml"][0]["range"]["start"]["line"] == _line_of(COMPONENTS, "max_build:")
    assert all(e["newText"] == "build_limit" for es in files.values() for e in es)
    edit = client.request("textDocument/rename", {"textDocument": {"uri": uri}, "position": _at(text, "build_price(c, h) ="),
                                                  "newName": "track_price"})
    assert NETWORK.as_uri() in edit["changes"]     # the library's `needs def build_price` too
    bad = client.reply("textDocument/rename", {"textDocument": {"uri": uri}, "position": _at(text, "build_price(c, h) ="),
                                               "newName": "2 words"})
    assert bad["error"]["code"] == -32602 and "cannot be a name" in bad["error"]["message"]
    assert BUILD.read_text(encoding="utf-8") == text


def test_quick_fix_signature_help_and_workspace_symbols(client):
    text = DIVIDENDS.read_text(encoding="utf-8")
    uri = _open(client, DIVIDENDS)
    client.diagnostics(uri)
    broken = text.replace("call pay_per_share(c, dividend(c))", "call pay_per_share(c, dividnd(c))")
    _change(client, uri, broken, 2)
    found = client.diagnostics(uri)
    actions = client.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": found[0]["range"],
                                                         "context": {"diagnostics": found}})
    assert [a["title"] for a in actions] == ["replace 'dividnd' with 'dividend'"]
    (edit,) = actions[0]["edit"]["changes"][uri]
    assert edit["newText"] == "dividend" and edit["range"]["start"] == _at(broken, "dividnd(c)")
    help_ = client.request("textDocument/signatureHelp", {"textDocument": {"uri": uri},
                                                          "position": _at(broken, "dividnd(c))")})
    assert help_["signatures"][0]["label"] == "pay_per_share(c, amount)"
    assert help_["activeParameter"] == 1
    inside_ceil = client.request("textDocument/signatureHelp", {"textDocument": {"uri": uri}, "position": _at(text, "ceil(") | {
        "character": _at(text, "ceil(")["character"] + 5}})
    assert inside_ceil["signatures"][0]["label"].startswith("ceil(") and "round" in inside_ceil["signatures"][0]["documentation"]
    symbols = client.request("workspace/symbol", {"query": "max_bu"})
    assert any(s["name"] == "max_build" and s["location"]["uri"] == COMPONENTS.as_uri() for s in symbols)


def test_semantic_tokens_colour_the_names_by_what_they_are(client):
    from railrules.tools.author.lsp import TOKEN_TYPES as legend   # what the server announces
    text, uri, doc = _opened(client, BUILD)
    data = client.request("textDocument/semanticTokens/full", {"textDocument": doc})["data"]
    lines = text.splitlines()
    found, line, start = {}, 0, 0
    for i in range(0, len(data), 5):
        dl, ds, length, kind, _ = data[i:i + 5]
        line, start = line + dl, (start + ds if dl == 0 else ds)
        found.setdefault(lines[line][start:start + length], set()).add(legend[kind])
    assert found["procedure"] == {"keyword"} and found["build_price"] == {"function"}
    assert found["build_network"] == {"method"} and found["max_build"] == {"variable"}
    assert found["trains_left"] == {"property"} and found["companies"] == {"class"}
    assert found["count"] == {"function"} and "string" in found[next(k for k in found if k.startswith('"'))]
    assert any(k.startswith("#") for k in found)


@pytest.mark.parametrize("position", [{"line": -1, "character": 0}, {"line": 3, "character": -7},
                                      {"line": 10 ** 12, "character": 0}])
def test_a_bad_position_gets_an_error_reply_and_the_server_goes_on(client, position):
    uri = _open(client, DIVIDENDS)
    bad = client.reply("textDocument/hover", {"textDocument": {"uri": uri}, "position": position})
    assert bad["error"]["code"] == -32602
    text = DIVIDENDS.read_text(encoding="utf-8")
    assert "round a fraction up" in client.request("textDocument/hover", {
        "textDocument": {"uri": uri}, "position": _at(text, "ceil(")})["contents"]["value"]


def test_a_library_file_gets_the_diagnostics_of_the_rulesets_that_use_it(client):
    text = NETWORK.read_text(encoding="utf-8")
    uri = _open(client, NETWORK)
    assert client.diagnostics(uri) == []
    broken = text + "\nprocedure lay(p, c):\n    cite \"x\"\n    call nowhere(p)\n"
    _change(client, uri, broken, 2)
    codes = {(d["code"], d["range"]["start"]["line"]) for d in client.diagnostics(uri)}
    last = len(broken.splitlines()) - 1
    assert {("RR106", last), ("RR111", last)} <= codes
    where = client.request("textDocument/definition", {"textDocument": {"uri": uri}, "position": _at(text, "frontier(c.network)")
                                                       | {"character": _at(text, "frontier(c.network)")["character"] + 12}})
    assert where is not None   # c.network: a field of the rulesets that use the file
    assert NETWORK.read_text(encoding="utf-8") == text


def test_without_pygls_the_command_says_how_to_install_it(monkeypatch, capsys):
    import builtins as py
    real = py.__import__

    def no_pygls(name, *args, **kwargs):
        if name.startswith("pygls") or name.startswith("lsprotocol"):
            raise ImportError(name)
        return real(name, *args, **kwargs)
    monkeypatch.setattr(py, "__import__", no_pygls)
    from railrules.tools.cli import main
    assert main(["lsp"]) == 2
    assert "pip install" in capsys.readouterr().err
