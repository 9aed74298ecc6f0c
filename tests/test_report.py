"""`railrules compare --html` (issue 12): a self-contained page with plots, looked at in
headless Chromium as a person would."""
from __future__ import annotations

import re
import shutil

import pytest

import browser

from railrules.interpreter.paths import rulesets_dir
from railrules.tools.lab import compare
from railrules.tools.lab.arms import Arms
from railrules.tools.lab.report import to_html

pytest.importorskip("matplotlib", reason="the report's plots need matplotlib (pip install '.[report]')")


@pytest.fixture(scope="module")
def result(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("report") / "coin_race"
    shutil.copytree(rulesets_dir() / "templates" / "coin_race", root)
    rules = root / "rules" / "game.rules"
    rules.write_text(rules.read_text(encoding="utf-8") + "\nestimate p = p.cash\n", encoding="utf-8")
    with Arms(str(root), [], ["goal=8,12,20"]) as arms:
        return compare.run_arms(arms, 20, 2, "greedy,random", 1)


@pytest.fixture(scope="module")
def page(result) -> str:
    return to_html(result, compare.verdicts(result))


def test_a_sweep_curve_holds_the_base_value_and_paired_changes(result, page):
    from railrules.tools.lab.report import _sweeps
    assert result["base_values"] == {"goal": 10}
    assert _sweeps(result) == {"goal": [(8, "goal=8"), (12, "goal=12"), (20, "goal=20")]}
    assert "Sweep of goal: the paired change against the base (goal=10, the black square)" in page


def test_the_plots_show_the_metrics_that_changed_most_or_those_chosen(result):
    top = compare.most_changed(result)
    assert top[0] == "decisions" and len(top) <= 6
    for name in top:  # each changed in some game of some arm
        assert any(result["metrics"][name][a]["change"]["differed"] for a in result["arms"][1:])
    ps = [min(result["metrics"][n][a]["change"]["p_corrected"] for a in result["arms"][1:]) for n in top]
    assert ps == sorted(ps)
    chosen = to_html(result, [], plot=["winner's margin"])
    sweep = chosen[chosen.index("Sweep of goal"):]
    assert "winner&#x27;s margin" in sweep or "winner's margin" in sweep
    assert "decisions" not in sweep[:sweep.index("</figure>")]


def test_the_page_stands_alone_with_its_plots_and_tables(page):
    assert page.startswith("<!doctype html>")
    assert not re.search(r"""(src|href)=["']?(http|//)""", page)  # nothing fetched: works offline
    assert "<script" not in page
    assert page.count("<svg") == 4  # length, seats, changes, the sweep of goal
    assert "Sweep of goal" in page and "Changes against the base arm" in page
    verdicts = re.search(r'<ul id="verdicts">(.*?)</ul>', page, re.S).group(1)
    assert "goal=20: decisions" in verdicts  # a longer race is a significant change
    assert page.count("<tr>") > 8


def test_chromium_shows_the_report(page, tmp_path):
    html = tmp_path / "report.html"
    html.write_text(page, encoding="utf-8")
    shown = browser.dom(html)
    assert "Significant changes" in shown and shown.count("<svg") == 4
    pixels = browser.screenshot(html, 1000, 1800)
    assert pixels.shape[:2] == (1800, 1000)
    rgb = pixels[..., :3]
    assert (rgb < 0.5).mean() > 0.005  # text and plot lines drawn, not a blank page
    colourful = (rgb.max(axis=2) - rgb.min(axis=2) > 0.3).mean()
    assert colourful > 0.001  # the plots' coloured bars and markers are on screen
