"""`railrules compare --html FILE`: one self-contained page (plots inlined as SVG, no scripts, no
links) that a designer opens in any browser, offline.

Plots need matplotlib (``pip install ".[report]"``); without it the page has the tables only and
says how to get the plots.
"""
from __future__ import annotations

import html
import io

from railrules.tools.lab.compare import (BALANCES, interval_cell, change_text, correction_note, difference_notes, most_changed,
                      signal_warnings)


def figure_svg(fig) -> str:
    out = io.StringIO()
    fig.savefig(out, format="svg", bbox_inches="tight")
    import matplotlib.pyplot as plt
    plt.close(fig)
    text = out.getvalue()
    return text[text.index("<svg"):]


def _plots(result: dict, plot: list | None = None) -> list[tuple[str, str]]:
    """(title, svg) for each plot; ``plot``: the metrics of the change and sweep plots (by
    default the six that changed most)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    labels, metrics, records = result["arms"], result["metrics"], result["records"]
    plots = []

    # 1. how long the games are, per arm
    fig, ax = plt.subplots(figsize=(7, 3.2))
    data = [[r["decisions"] for r in records[a] if r["error"] is None] for a in labels]
    ax.boxplot(data, orientation="horizontal", tick_labels=labels, showmeans=True)
    ax.set_xlabel("decisions per game")
    plots.append(("Game length per arm (box: quartiles; triangle: mean)", figure_svg(fig)))

    # 2. seat win rates with intervals
    seats = [k for k in metrics if k.startswith("seat p")]
    fig, ax = plt.subplots(figsize=(7, 3.2))
    width = 0.8 / len(labels)
    for j, a in enumerate(labels):
        cells = [metrics[s][a] for s in seats]
        xs = [i + j * width for i in range(len(seats))]
        ax.bar(xs, [c["mean"] for c in cells], width, label=a,
               yerr=[[c["mean"] - c["low"] for c in cells], [c["high"] - c["mean"] for c in cells]], capsize=3)
    ax.axhline(1 / result["players"], color="grey", linestyle="--", linewidth=1)
    ax.set_xticks([i + width * (len(labels) - 1) / 2 for i in range(len(seats))],
                  [s.removeprefix("seat ").removesuffix(" wins") for s in seats])
    ax.set_ylabel("share of wins")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    plots.append(("Wins by seat with 95 % intervals (dashed: an equal share)", figure_svg(fig)))

    # 3. every change against the base, with its interval
    if len(labels) > 1:
        rows = [(name, a, metrics[name][a]["change"]) for name in metrics if name not in BALANCES
                and (not plot or name in plot) for a in labels[1:] if "change" in metrics[name][a]]
        rows = [r for r in rows if r[2]["n"] and r[2]["differed"]]
        if rows:
            fig, ax = plt.subplots(figsize=(7, 0.28 * len(rows) + 1))
            for y, (name, a, d) in enumerate(rows):
                scale = abs(metrics[name][labels[0]]["mean"]) or 1
                colour = "tab:red" if d["significant"] else "tab:grey"
                ax.errorbar([d["mean"] / scale], [y], xerr=[[(d["mean"] - d["low"]) / scale],
                            [(d["high"] - d["mean"]) / scale]], fmt="o", color=colour, capsize=2)
            ax.axvline(0, color="black", linewidth=1)
            ax.set_yticks(range(len(rows)), [f"{a}: {name}" for name, a, _ in rows], fontsize=7)
            ax.invert_yaxis()
            ax.set_xlabel("change against the base, as a share of the base's mean (red: interval excludes 0)")
            plots.append(("Changes against the base arm", figure_svg(fig)))

    # 4. sweeps: each metric's paired change against the base, at every value of the constant
    # swept and at the base's own value (a change of 0 there)
    shown = plot or most_changed(result)
    for name, points in _sweeps(result).items():
        if not shown:
            break
        base_value = result["base_values"][name]
        fig, axes = plt.subplots(1, len(shown), figsize=(2.6 * len(shown), 2.6), squeeze=False)
        for ax, m in zip(axes[0], shown):
            changes = [(v, metrics[m][a]["change"]) for v, a in points]
            curve = sorted(changes + [(base_value, None)], key=lambda p: p[0])
            ys = [0.0 if d is None else d["mean"] for _, d in curve]
            low = [0.0 if d is None else d["mean"] - d["low"] for _, d in curve]
            high = [0.0 if d is None else d["high"] - d["mean"] for _, d in curve]
            ax.errorbar([v for v, _ in curve], ys, yerr=[low, high], fmt="o-", capsize=3)
            ax.plot([base_value], [0], "s", color="black")
            ax.axhline(0, color="grey", linewidth=0.8)
            ax.set_title(m, fontsize=9)
            ax.set_xlabel(name, fontsize=8)
        axes[0][0].set_ylabel("paired change", fontsize=8)
        fig.tight_layout()
        plots.append((f"Sweep of {name}: the paired change against the base ({name}={base_value}, the "
                      f"black square) with 95 % intervals", figure_svg(fig)))
    return plots


def _sweeps(result: dict) -> dict:
    """NAME -> [(value, arm label)] for every constant set to one or more numbers."""
    found: dict = {}
    for label, (name, value) in result.get("settings", {}).items():
        if isinstance(value, (int, float)) and not isinstance(value, bool) \
                and isinstance(result["base_values"].get(name), (int, float)):
            found.setdefault(name, []).append((value, label))
    return {k: sorted(v) for k, v in found.items()}


def _table(result: dict) -> str:
    labels = result["arms"]
    head = "".join(f"<th>{html.escape(a)}</th>" for a in labels)
    rows = []
    for name, row in result["metrics"].items():
        if name in BALANCES:
            continue
        cells = []
        for a in labels:
            c = row[a]
            text = html.escape(interval_cell(c))
            cls = ""
            if "change" in c:
                d = c["change"]
                text += f"<br><small>{html.escape(change_text(d))}</small>"
                cls = ' class="changed"' if d["significant"] else ""
            cells.append(f"<td{cls}>{text}</td>")
        shown = name + "".join(f" = {x}" for x in row.get("same as", ()))
        rows.append(f"<tr><th>{html.escape(shown)}</th>{''.join(cells)}</tr>")
    for name in BALANCES:
        balance = result["metrics"][name]
        rows.append(f"<tr><th>{name} (largest advantage; χ² p)</th>" + "".join(
            f"<td>{balance[a]['largest seat advantage']:+.3g}; p={balance[a]['p']:.2g}</td>" for a in labels) + "</tr>")
    return f"<table><tr><th>metric</th>{head}</tr>{''.join(rows)}</table>"


def to_html(result: dict, verdicts: list[str], plot: list | None = None) -> str:
    title = f"railrules compare: {result['ruleset']}"
    try:
        plots = _plots(result, plot)
        missing = ""
    except ImportError:
        plots = []
        missing = '<p class="note">No plots: matplotlib is not installed (pip install "railrules[report]").</p>'
    partial = ' <strong class="partial">PARTIAL: stopped early</strong>' if result["partial"] else ""
    figures = "".join(f"<figure><figcaption>{html.escape(t)}</figcaption>{svg}</figure>" for t, svg in plots)
    said = "".join(f"<li>{html.escape(v)}</li>" for v in verdicts) or "<li>none</li>"
    lead = "".join(f"<li>{html.escape(line.strip())}</li>" if line.startswith(" ") else
                   f"<li><strong>{html.escape(line)}</strong></li>" for line in result.get("headline", []))
    warned = "".join(f'<p class="partial">{html.escape(w)}</p>' for w in signal_warnings(result))
    differ = "".join(f"<li>{html.escape(d)}</li>" for d in difference_notes(result)
                     + ([result["sequential"]["summary"]] if "sequential" in result else []))
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
body {{ font-family: sans-serif; margin: 2em; color: #222; }}
table {{ border-collapse: collapse; font-size: 0.85em; }}
th, td {{ border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: left; vertical-align: top; }}
td.changed {{ background: #ffe3d6; }}
.partial {{ color: #b00; }}
figure {{ margin: 1.5em 0; }} figcaption {{ font-weight: bold; margin-bottom: 0.5em; }}
figure svg {{ max-width: 100%; height: auto; }}
</style></head><body>
<h1>{html.escape(title)}</h1>
<p>{result['compared']} paired games of {result['games']}{partial}; {result['players']} players; bots
{html.escape(result['bots'])}; seeds {result['seed']}..{result['seed'] + result['games'] - 1}; arms:
{html.escape(', '.join(result['arms']))}.</p>
<h2>Verdict</h2>
<ul id="headline">{lead}</ul>
<ul id="differences">{differ}</ul>
{warned}<h2>Significant changes</h2><p>{html.escape(correction_note(result))}</p>
<ul id="verdicts">{said}</ul>
<h2>Plots</h2>{missing}{figures}
<h2>Every metric</h2><p>Mean over games [95 % interval: exact for shares, bootstrap for other
figures]; Δ: paired change to the base arm [95 % t interval], * when significant after the
correction; detectable: the smallest change these games find with 80 % power at the corrected level.</p>
{_table(result)}
</body></html>
"""
