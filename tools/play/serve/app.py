"""The web app of `railrules serve` (Starlette): the page, its assets and a small JSON API over
one :class:`.table.Table` or the tables of a :class:`.lobby.Lobby`.

Routes: ``/play/TOKEN`` the page (the same file for every page of every table: its script reads
the token from the address, which names the table and the seat), ``/lobby/TOKEN`` the lobby's
page (a server started with ``--lobby``), with ``/api/lobby/TOKEN/state`` (GET: the tables, the
rulesets it may start) and ``/api/lobby/TOKEN/start`` (POST: a new table), ``/static/...`` the
pages' own scripts and style (nothing else is served: Starlette's StaticFiles refuses any path
that leaves the folder), and under ``/api/TOKEN/``: ``state``
(GET, ``?have=VERSION`` leaves out an unchanged board), ``act`` ``{label, version}``, ``step``
``{version}`` (the bot to move moves), ``why`` ``{label}`` or ``{hex}``, ``lift`` ``{seat}``
(the table's page of a game with secrets shows that person's view: :meth:`.Table.lift`), ``undo``, ``save``,
``load`` (the body is a save file). Every error is JSON, ``{"error": "..."}``, never a traceback.

Requests from elsewhere are refused: one whose Host is not a name of the address the server is
bound to (:func:`hosts_of`; a page of another site that a name of its own leads here, DNS
rebinding), and a write (POST) sent by a page of another origin (its ``Origin`` is not the
address asked, or ``Sec-Fetch-Site`` says another site sent it: a form or a ``text/plain``
fetch needs no permission from the server to be sent).
"""
from __future__ import annotations

import json
import socket
from pathlib import Path
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from railrules.interpreter.errors import RailrulesError

from railrules.tools.play.lobby import Lobby
from railrules.tools.play.table import Refused, Table

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY = 8 * 1024 * 1024     # a save of a long game is well under 1 MB
HEADERS = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
           "X-Content-Type-Options": "nosniff"}


def _error(status: int, message: str, **extra) -> JSONResponse:
    # (a message that quotes the request may hold a lone surrogate, which UTF-8 cannot write)
    message = message.encode("utf-8", "backslashreplace").decode("utf-8")
    return JSONResponse({"error": message, **extra}, status_code=status, headers=HEADERS)


async def _raw(request: Request) -> bytes:
    """The request's body, read as it comes and cut at :data:`MAX_BODY` (a larger declared
    length is refused before anything is read)."""
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and (len(declared) > 18 or int(declared) > MAX_BODY):
        raise Refused(413, f"the request is too large ({declared[:20]} bytes; at most {MAX_BODY})")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise Refused(413, f"the request is too large (more than {MAX_BODY} bytes)")
        chunks.append(chunk)
    return b"".join(chunks)


async def _body(request: Request, text: bool = False):
    try:
        decoded = (await _raw(request)).decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(400, "the request body is not UTF-8 text") from None
    if text:
        return decoded
    if not decoded.strip():
        return {}
    try:
        data = json.loads(decoded)
    except json.JSONDecodeError as err:
        raise Refused(400, f"the request body is not JSON: {err.msg} at line {err.lineno} column {err.colno}") from None
    except RecursionError:
        raise Refused(400, "the request body is nested too deeply") from None
    except ValueError:   # a number of more digits than Python reads
        raise Refused(400, "the request body holds a number of more than 4,300 digits") from None
    if not _text_only(data):
        raise Refused(400, "the request body holds a lone surrogate (\\ud800...), which is no text")
    if not isinstance(data, dict):
        raise Refused(400, "the request body must be a JSON object, e.g. {\"label\": \"bid 8\", \"version\": 3}")
    return data


def _text_only(data) -> bool:
    """Whether every text in ``data`` (what a JSON body held) can be written as UTF-8."""
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _version(have: str | None) -> int | None:
    """``?have=VERSION``: a whole number, or None (anything else, as if not given)."""
    if have and len(have) <= 18 and have.isascii() and have.lstrip("-").isdigit():
        return int(have)
    return None


def hosts_of(host: str) -> set:
    """The names a request may give in its Host header for a server bound to ``host``: the
    address itself, and for this machine's own addresses (loopback, or every address) its names
    and addresses (lower case, without the port)."""
    names = {host.lower().strip("[]")}
    if host in ("127.0.0.1", "localhost", "::1", "0.0.0.0", "::"):
        names |= {"127.0.0.1", "localhost", "::1"}
    if host in ("0.0.0.0", "::"):
        for name in (socket.gethostname(), socket.getfqdn()):
            names.add(name.lower())
            try:
                names |= {str(info[4][0]).lower() for info in socket.getaddrinfo(name, None)}
            except OSError:
                pass
    return names - {"0.0.0.0", "::"}


def _host_name(netloc: str) -> str:
    """'example.org' of 'example.org:8765' (and '::1' of '[::1]:8765'), lower case."""
    try:
        return (urlsplit(f"//{netloc}").hostname or "").lower()
    except ValueError:
        return ""


def _from_elsewhere(request: Request, hosts: set | None) -> str:
    """Why a request comes from a page it must not (a Host this server is not, a write from
    another origin); '' when it may be answered."""
    host = request.headers.get("host", "")
    if hosts is not None and _host_name(host) not in hosts:
        return (f"this server does not answer to the name {host[:100]!r}: open one of the links it "
                "printed")
    if request.method in ("GET", "HEAD"):
        return ""
    origin = request.headers.get("origin")
    if origin is not None and (origin == "null" or urlsplit(origin).netloc.lower() != host.lower()):
        return f"a page of another site ({origin[:100]}) may not act at this table"
    if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        return "a page of another site may not act at this table"
    return ""


def make_app(served: Table | Lobby, hosts: set | None = None) -> Starlette:
    """The app over one table, or the tables of a lobby (and its page, when it has a lobby
    file); ``hosts``: the names a request's Host may give (:func:`hosts_of`; None: any, for a
    test client)."""
    lobby = served if isinstance(served, Lobby) else Lobby.of(served)

    def a_lobby(token: str) -> None:
        if not lobby.is_lobby(token):
            raise Refused(404, "no lobby at this address: use the link railrules serve --lobby printed")

    def endpoint(handler, of_lobby: bool = False):
        """A route over a table (the token names the table and the page) or over the lobby (the
        token is the lobby's); Refused and bad input are JSON."""
        async def run(request: Request):
            try:
                elsewhere = _from_elsewhere(request, hosts)
                if elsewhere:
                    raise Refused(403, elsewhere)
                token = request.path_params["token"]
                if of_lobby:
                    a_lobby(token)
                    return JSONResponse(await handler(request), headers=HEADERS)
                table, seat = lobby.page(token)
                return JSONResponse(await handler(request, table, seat), headers=HEADERS)
            except Refused as err:
                return _error(err.status, err.message, **err.extra)
            except RailrulesError as err:   # a rule that failed: the state is as it was
                return _error(422, err.diagnostics[0].message)
            except Exception as err:  # JSON, never a traceback
                return _error(500, f"internal error: {type(err).__name__}: {err} (a bug in "
                              "railrules; the game is as it was before the request)")
        return run

    # the table's work runs in worker threads, so that the server keeps answering meanwhile: a
    # request at a time holds the table's lock, but not a bot while it thinks
    async def state(request, table, seat):
        return await run_in_threadpool(table.state, seat, _version(request.query_params.get("have")))

    async def act(request, table, seat):
        data = await _body(request)
        return await run_in_threadpool(table.act, seat, data.get("label"), data.get("version"))

    async def step(request, table, seat):
        return await run_in_threadpool(table.step, (await _body(request)).get("version"))

    async def why(request, table, seat):
        data = await _body(request)
        return await run_in_threadpool(table.why, seat, data.get("label"), data.get("hex"))

    async def lift(request, table, seat):
        return await run_in_threadpool(table.lift, seat, (await _body(request)).get("seat"))

    async def undo(request, table, seat):
        return await run_in_threadpool(table.undo, seat)

    async def save(request, table, seat):
        return await run_in_threadpool(table.save, seat)

    async def load(request, table, seat):
        if seat is not None:    # refused before reading what may be a large body
            raise Refused(403, "only the table's page loads a game")
        return await run_in_threadpool(table.load, seat, await _body(request, text=True))

    async def lobby_state(request):
        return await run_in_threadpool(lobby.state)

    async def lobby_start(request):
        return await run_in_threadpool(lobby.start, await _body(request))

    def page_of(name: str, opens):
        """The page ``name`` (a file of static/) at an address whose token ``opens``."""
        async def page(request: Request):
            try:
                elsewhere = _from_elsewhere(request, hosts)
                if elsewhere:
                    raise Refused(403, elsewhere)
                opens(request.path_params["token"])
            except Refused as err:
                return _error(err.status, err.message)
            return FileResponse(STATIC / name, headers=HEADERS)
        return page

    async def home(request: Request):
        return _error(404, "railrules serve: open one of the links it printed when it started "
                      "(each page's address holds its secret token)")

    async def not_found(request: Request, exc: Exception):
        assert isinstance(exc, HTTPException)  # the only exception it is the handler of
        message = {404: f"nothing at {request.url.path}", 405: f"{request.method} is not allowed at "
                   f"{request.url.path}"}.get(exc.status_code, str(exc.detail))
        return _error(exc.status_code, message)

    api = [("state", state, "GET"), ("act", act, "POST"), ("step", step, "POST"),
           ("why", why, "POST"), ("lift", lift, "POST"), ("undo", undo, "POST"), ("save", save, "POST"), ("load", load, "POST")]
    routes = [Route("/", home), Route("/play/{token}", page_of("index.html", lobby.page)),
              Route("/lobby/{token}", page_of("lobby.html", a_lobby)),
              Route("/api/lobby/{token}/state", endpoint(lobby_state, of_lobby=True), methods=["GET"]),
              Route("/api/lobby/{token}/start", endpoint(lobby_start, of_lobby=True), methods=["POST"]),
              *[Route(f"/api/{{token}}/{name}", endpoint(fn), methods=[method]) for name, fn, method in api],
              Mount("/static", app=StaticFiles(directory=STATIC), name="static")]
    return Starlette(routes=routes, exception_handlers={HTTPException: not_found})
