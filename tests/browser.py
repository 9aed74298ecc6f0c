"""Headless Chromium (Debian's package) for the tests that look at a page or a picture as a
person would: the DOM it builds and a screenshot's pixels. Skips when Chromium is absent."""
from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _browser() -> str:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("headless Chromium is not installed (apt-get install chromium; CI installs it)")
    return browser


def dom(path: Path) -> str:
    """The document Chromium builds from the file (after its scripts ran)."""
    return dom_at(path, "")


def dom_at(path: Path, fragment: str) -> str:
    """The same, opened at ``path#fragment`` (a page that reads its address, such as a step)."""
    address = path.as_uri() + (f"#{fragment}" if fragment else "")
    return subprocess.run([_browser(), *FLAGS, "--dump-dom", address], capture_output=True,
                          text=True, timeout=120).stdout


def screenshot(path: Path, width: int, height: int):
    """The file as Chromium shows it in a window of that size: an array of RGB(A) pixels."""
    matplotlib_image = pytest.importorskip("matplotlib.image", reason="reading the screenshot needs matplotlib")
    shot = path.with_suffix(".png")
    subprocess.run([_browser(), *FLAGS, f"--screenshot={shot}", f"--window-size={width},{height}",
                    path.as_uri()], capture_output=True, timeout=120, check=True)
    return matplotlib_image.imread(str(shot))


def text_boxes(svg: str, folder: Path) -> tuple[list, tuple]:
    """The box Chromium lays out for every ``<text>`` of the SVG picture, as dicts (class,
    data-id, text, x, y, width, height, in the picture's units), and the picture's (width,
    height)."""
    page = folder / "boxes.html"
    page.write_text("<!doctype html><html><body style='margin:0'>" + svg + """
<pre id="boxes"></pre><script>
const svg = document.querySelector("svg");
const out = [...svg.querySelectorAll("text")].map(t => { const b = t.getBBox();
  return {cls: t.getAttribute("class") || "", id: t.getAttribute("data-id") || "", text: t.textContent,
          x: b.x, y: b.y, width: b.width, height: b.height}; });
document.getElementById("boxes").textContent = JSON.stringify(
  {boxes: out, size: [svg.viewBox.baseVal.width, svg.viewBox.baseVal.height]});
</script></body></html>""", encoding="utf-8")
    found = re.search(r'<pre id="boxes">(.*?)</pre>', dom(page), re.S)
    assert found, "Chromium built no page"
    data = json.loads(html.unescape(found.group(1)))
    return data["boxes"], tuple(data["size"])
