"""`railrules serve`: play one game in the browser, people (hotseat or each on their own page)
and bots in any mix. :mod:`..table` (the play table) is the game and who may see and do what; :mod:`.app` the web
app (Starlette, run by uvicorn; ``pip install ".[web]"``); ``static/`` the page (plain HTML, CSS
and JavaScript, shipped with the package: nothing is fetched from elsewhere)."""
from __future__ import annotations

import errno
import signal
import socket
import sys

from railrules.tools.play.table import Refused, Table

__all__ = ["Refused", "Table", "run"]


def run(table: Table, host: str, port: int, out=None) -> None:
    """Serve ``table`` at http://HOST:PORT until Ctrl-C; print each page's link first."""
    import uvicorn

    from railrules.tools.play.serve.app import make_app
    out = out or sys.stdout
    _port_free(host, port)
    if host in ("0.0.0.0", "::"):   # every address of this machine: a link needs one of them
        shown = socket.gethostname()
    else:
        shown = f"[{host}]" if ":" in host else host
    print("open these pages in a browser (each link holds its page's secret token):", file=out)
    for name, path in table.links().items():
        print(f"  {name + ':':<12} http://{shown}:{port}{path}", file=out)
    if host not in ("127.0.0.1", "localhost", "::1"):
        print(f"note: bound to {host}: anyone who can reach this machine and has a link can play "
              "that seat", file=out)
    print("Ctrl-C stops the server (the game is saved first)", file=out, flush=True)
    # uvicorn shuts down on Ctrl-C or SIGTERM, then raises the signal again: here it ends run()
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        uvicorn.run(make_app(table), host=host, port=port, log_level="warning")
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)


def _port_free(host: str, port: int) -> None:
    """Refuse a port another program holds, before any link is printed (Refused, with the next
    port to try)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # as uvicorn binds
        try:
            probe.bind((host, port))
        except OSError as err:
            raise Refused(0, f"cannot listen on {host} port {port}: "
                          + (f"the port is in use; try --port {port + 1}" if err.errno == errno.EADDRINUSE
                             else err.strerror or str(err))) from None


def _stop(signum, frame):
    raise KeyboardInterrupt
