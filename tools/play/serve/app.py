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
    return JSONResponse({"error": message, **extra}, status_code=status, headers=HEADERS)


async def _body(request: Request, text: bool = False):
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise Refused(413, f"the request is too large ({len(raw)} bytes; at most {MAX_BODY})")
    try:
        decoded = raw.decode("utf-8")
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
    if not isinstance(data, dict):
        raise Refused(400, "the request body must be a JSON object, e.g. {\"label\": \"bid 8\", \"version\": 3}")
    return data


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
        have = request.query_params.get("have")
        return await run_in_threadpool(table.state, seat, int(have) if have and have.lstrip("-").isdigit() else None)

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
