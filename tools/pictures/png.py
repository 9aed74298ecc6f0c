"""An SVG picture as PNG, drawn by the system's headless Chromium (Debian's package): no Python
library here converts SVG without a native library of its own, and the browser is the one the
tests already use to look at pictures."""
from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def svg_to_png(svg: str, target: Path) -> None:
    """Write ``svg`` as a PNG of its own size to ``target``; RuntimeError when no Chromium."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if browser is None:
        raise RuntimeError("--png needs a headless Chromium (apt-get install chromium); --svg needs nothing")
    size = re.search(r'width="(\d+)" height="(\d+)"', svg)
    width, height = (size.group(1), size.group(2)) if size else ("1000", "1000")
    target = target.resolve()
    if not target.parent.is_dir():
        raise FileNotFoundError(2, "No such file or directory", str(target))
    with tempfile.TemporaryDirectory(prefix="railrules-png-") as tmp:
        page = Path(tmp) / "board.svg"
        page.write_text(svg, encoding="utf-8")
        shot = Path(tmp) / "board.png"
        done = subprocess.run([browser, *FLAGS, f"--user-data-dir={tmp}/profile", f"--screenshot={shot}",
                               f"--window-size={width},{height}", page.as_uri()],
                              capture_output=True, timeout=120, check=False)
        if not shot.is_file():
            raise RuntimeError(f"Chromium drew no picture: {done.stderr.decode(errors='replace')[-300:]}")
        shutil.copyfile(shot, target)
