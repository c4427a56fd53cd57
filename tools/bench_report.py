"""BENCHMARKS.md, docs/benchmarks.md and the charts docs/img/bench-<face>.svg, from bench/results.toml.

    python3 tools/bench_report.py           # rewrite them (`make bench-report`)
    python3 tools/bench_report.py --check   # exit 1 naming the stale files (the test runs this)

Each face gets one table (what, against what, the ratio, the figures, the machine, the command)
and one bar chart of its ratios; the SVG is written here by hand (no plotting library, no network).
"""

import sys
import tomllib
from pathlib import Path
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "results.toml"


def slug(face):
    return "".join(c for c in face if c.isalnum())


def svg(face, rows):
    """A horizontal bar chart of the rows' ratios on a log scale, 1x marked: left of it slower."""
    import math

    width, label_w, bar_w, row_h, top = 860, 430, 360, 26, 34
    height = top + row_h * len(rows) + 28
    hi = max(100.0, max(r["ratio"] for r in rows))
    lo = min(0.5, min(r["ratio"] for r in rows))
    span = math.log10(hi) - math.log10(lo)

    def x(v):
        return label_w + bar_w * (math.log10(v) - math.log10(lo)) / span

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="8" y="20" font-size="14" font-weight="bold">labelguard {escape(face)}: '
        "times faster than the baseline (log scale)</text>",
    ]
    for tick in [t for t in (0.5, 1, 2, 5, 10, 20, 50, 100, 200) if lo <= t <= hi]:
        tx = x(tick)
        out.append(f'<line x1="{tx:.1f}" y1="{top - 4}" x2="{tx:.1f}" y2="{height - 22}" '
                   f'stroke="{"#444" if tick == 1 else "#ddd"}"/>')
        out.append(f'<text x="{tx:.1f}" y="{height - 8}" text-anchor="middle">{tick:g}x</text>')
    for i, r in enumerate(rows):
        y = top + i * row_h
        what = r["what"] if len(r["what"]) <= 62 else r["what"][:60] + "…"
        out.append(f'<text x="8" y="{y + 16}">{escape(what.replace("`", ""))}</text>')
        x0, x1 = sorted((x(1), x(r["ratio"])))
        colour = "#2a7ab0" if r["ratio"] >= 1 else "#c0504d"
        out.append(f'<rect x="{x0:.1f}" y="{y + 4}" width="{max(x1 - x0, 1):.1f}" height="{row_h - 8}" fill="{colour}"/>')
        out.append(f'<text x="{x1 + 4:.1f}" y="{y + 16}">{r["ratio"]:g}x</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def markdown(data, img):
    faces = data["faces"]
    rows = data["result"]
    unknown = sorted({r["face"] for r in rows} - set(faces))
    if unknown:
        sys.exit(f"bench/results.toml: faces {unknown} are not in `faces`")
    out = [
        "# labelguard benchmarks",
        "",
        "<!-- generated from bench/results.toml by `make bench-report`: edit that file, not this one -->",
        "",
        "The current figures, one table and one chart per face. A ratio is how many times faster",
        "labelguard is than the baseline (below 1: slower, as a pass-through must be). Every figure",
        "was taken on a shared 2-core developer VM while other engineers built and tested on it, so",
        "absolute times are noisy; the ratios were taken in interleaved or paired rounds. How each",
        "figure came about, work item by work item, with the method in full:",
        "[the benchmarks' history](" + img["history"] + ").",
        "",
    ]
    for face in faces:
        mine = [r for r in rows if r["face"] == face]
        if not mine:
            continue
        out += [f"## {face}", "", f"![{face}: times faster than the baseline]({img['dir']}bench-{slug(face)}.svg)", ""]
        out += ["| what | against | ratio | figures | machine | command | date |", "|---|---|---|---|---|---|---|"]
        for r in mine:
            cells = [r["what"], r["against"], f"**{r['ratio']:g}x**", r["figures"], r["machine"],
                     f"`{r['command']}`", r["date"] or "see the history"]
            out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        out.append("")
    return "\n".join(out)


def outputs():
    data = tomllib.loads(DATA.read_text())
    files = {
        ROOT / "BENCHMARKS.md": markdown(data, {"dir": "docs/img/", "history": "docs/benchmarks-history.md"}),
        ROOT / "docs" / "benchmarks.md": markdown(data, {"dir": "img/", "history": "benchmarks-history.md"}),
    }
    for face in data["faces"]:
        mine = [r for r in data["result"] if r["face"] == face]
        if mine:
            files[ROOT / "docs" / "img" / f"bench-{slug(face)}.svg"] = svg(face, mine)
    return files


def main():
    check = "--check" in sys.argv[1:]
    stale = []
    for path, text in outputs().items():
        if path.exists() and path.read_text() == text:
            continue
        if check:
            stale.append(str(path.relative_to(ROOT)))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    if stale:
        sys.exit("stale, rerun `make bench-report`: " + ", ".join(stale))


if __name__ == "__main__":
    main()
