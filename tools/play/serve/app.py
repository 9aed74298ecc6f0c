"""The web app of `railrules serve` (Starlette): the page, its assets and a small JSON API over
one :class:`.table.Table`.

Routes: ``/play/TOKEN`` the page (the same file for every page: its script reads the token from
the address), ``/static/...`` the page's own script and style (nothing else is served: Starlette's
StaticFiles refuses any path that leaves the folder), and under ``/api/TOKEN/``: ``state``
(GET, ``?have=VERSION`` leaves out an unchanged board), ``act`` ``{label, version}``, ``step``
``{version}`` (the bot to move moves), ``why`` ``{label}`` or ``{hex}``, ``undo``, ``save``,
``load`` (the body is a save file). Every error is JSON, ``{"error": "..."}``, never a traceback.
"""
from __future__ import annotations

import json
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from railrules.interpreter.errors import RailrulesError

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


def make_app(table: Table) -> Starlette:
    def endpoint(handler):
        """A route over the table: the token names the page; Refused and bad input are JSON."""
        async def run(request: Request):
            try:
                seat = table.page(request.path_params["token"])
                return JSONResponse(await handler(request, seat), headers=HEADERS)
            except Refused as err:
                return _error(err.status, err.message, **err.extra)
            except RailrulesError as err:   # a rule that failed: the state is as it was
                return _error(422, err.diagnostics[0].message)
            except Exception as err:  # JSON, never a traceback
                return _error(500, f"internal error: {type(err).__name__}: {err} (a bug in "
                              "railrules; the game is as it was before the request)")
        return run

    # the table's work (a bot thinking, a board drawn) runs in a worker thread, one request at
    # a time (the table's lock), so that the server keeps answering meanwhile
    async def state(request, seat):
        return await run_in_threadpool(table.state, seat, _version(request.query_params.get("have")))

    async def act(request, seat):
        data = await _body(request)
        return await run_in_threadpool(table.act, seat, data.get("label"), data.get("version"))

    async def step(request, seat):
        return await run_in_threadpool(table.step, (await _body(request)).get("version"))

    async def why(request, seat):
        data = await _body(request)
        return await run_in_threadpool(table.why, seat, data.get("label"), data.get("hex"))

    async def undo(request, seat):
        return await run_in_threadpool(table.undo, seat)

    async def save(request, seat):
        return await run_in_threadpool(table.save, seat)

    async def load(request, seat):
        if seat is not None:    # refused before reading what may be a large body
            raise Refused(403, "only the table's page loads a game")
        return await run_in_threadpool(table.load, seat, await _body(request, text=True))

    async def page(request: Request):
        try:
            table.page(request.path_params["token"])
        except Refused as err:
            return _error(err.status, err.message)
        return FileResponse(STATIC / "index.html", headers=HEADERS)

    async def home(request: Request):
        return _error(404, "railrules serve: open one of the links it printed when it started "
                      "(each page's address holds its secret token)")

    async def not_found(request: Request, exc: Exception):
        assert isinstance(exc, HTTPException)  # the only exception it is the handler of
        message = {404: f"nothing at {request.url.path}", 405: f"{request.method} is not allowed at "
                   f"{request.url.path}"}.get(exc.status_code, str(exc.detail))
        return _error(exc.status_code, message)

    api = [("state", state, "GET"), ("act", act, "POST"), ("step", step, "POST"),
           ("why", why, "POST"), ("undo", undo, "POST"), ("save", save, "POST"), ("load", load, "POST")]
    routes = [Route("/", home), Route("/play/{token}", page),
              *[Route(f"/api/{{token}}/{name}", endpoint(fn), methods=[method]) for name, fn, method in api],
              Mount("/static", app=StaticFiles(directory=STATIC), name="static")]
    return Starlette(routes=routes, exception_handlers={HTTPException: not_found})
