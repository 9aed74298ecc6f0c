"""Headless Chromium driven as a person drives it: open a page, wait for what it draws, click
with the mouse, take a screenshot. Speaks the Chrome DevTools Protocol over the pipe Chromium
opens with ``--remote-debugging-pipe`` (file descriptors 3 and 4: JSON messages ended by a NUL
byte), so nothing but the standard library is needed. Every wait is bounded."""
from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import subprocess
import tempfile
import time
from pathlib import Path

from browser import FLAGS, _browser


class BrowserError(RuntimeError):
    """Chromium answered with an error, a script failed, or a wait ran out."""


class Chromium:
    def __init__(self, width: int = 1400, height: int = 1000, timeout: float = 30.0):
        self.timeout = timeout
        self.profile = tempfile.TemporaryDirectory(prefix="railrules-cdp-")
        to_browser, self._write = os.pipe()
        self._read, from_browser = os.pipe()

        def plumb():   # in the child: the pipe's ends at the descriptors Chromium reads and writes
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_browser, from_browser)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)
        self.proc = subprocess.Popen(
            [_browser(), *FLAGS, "--remote-debugging-pipe", f"--user-data-dir={self.profile.name}",
             f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=plumb, close_fds=False)   # the descriptors dup2 makes are inherited
        os.close(to_browser)
        os.close(from_browser)
        self._next, self._buffer = 0, b""
        self.send("Browser.setDownloadBehavior", behavior="allow",   # not into ~/Downloads
                  downloadPath=str(Path(self.profile.name) / "downloads"))
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.send("Page.enable", session=True)
        self.send("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    # ------------------------------------------------------------------ protocol
    def send(self, method: str, session: bool = False, **params):
        self._next += 1
        message = {"id": self._next, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._message(deadline)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def _message(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._read], [], [], left)[0]:
                raise BrowserError("Chromium did not answer in time")
            chunk = os.read(self._read, 1 << 16)
            if not chunk:
                raise BrowserError("Chromium closed the pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    # ------------------------------------------------------------------ as a person
    def resize(self, width: int, height: int) -> None:
        """The window's size, as a phone's, a tablet's or a desktop's screen."""
        self.send("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    def open(self, url: str) -> None:
        self.send("Page.navigate", session=True, url=url)

    def js(self, expression: str):
        """The value of a script run in the page (awaited when it is a promise)."""
        result = self.send("Runtime.evaluate", session=True, expression=expression,
                           awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression[:80]}: {result['exceptionDetails'].get('text')} "
                               f"{result['exceptionDetails'].get('exception', {}).get('description', '')}")
        return result["result"].get("value")

    def wait(self, expression: str, timeout: float | None = None):
        """Wait until the script's value is truthy; return it. A script that fails because the
        page has not defined a name yet is tried again."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while time.monotonic() < deadline:
            try:
                value = self.js(expression)
            except BrowserError as err:
                if "ReferenceError" not in str(err):
                    raise
                value = None
            if value:
                return value
            time.sleep(0.05)
        raise BrowserError(f"waited in vain for: {expression}")

    def click(self, selector: str) -> None:
        """A mouse click in the middle of the first element the CSS selector finds."""
        box = self.js(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
                      " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
                      " return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        if box is None:
            raise BrowserError(f"nothing to click at {selector}")
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", session=True, type=kind, x=box[0], y=box[1],
                      button="left", clickCount=1)

    def choose_file(self, selector: str, path: Path) -> None:
        """Pick ``path`` in the file input the selector finds, as the file dialog would."""
        root = self.send("DOM.getDocument", session=True)["root"]["nodeId"]
        node = self.send("DOM.querySelector", session=True, nodeId=root, selector=selector)["nodeId"]
        if not node:
            raise BrowserError(f"no file input at {selector}")
        self.send("DOM.setFileInputFiles", session=True, nodeId=node, files=[str(path)])

    def screenshot(self, path: Path) -> Path:
        data = self.send("Page.captureScreenshot", session=True, format="png")["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (BrowserError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        for fd in (self._read, self._write):
            try:
                os.close(fd)
            except OSError:
                pass
        self.profile.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
