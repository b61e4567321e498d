"""Bar charts (SVG, no dependencies) of the GPU runs committed in docs/gpu-results/:

    python3 ci/chart.py suite RESULTS.txt -o OUT.svg   # each kernel's speed against its nvcc twin
    python3 ci/chart.py layer RESULTS.txt -o OUT.svg   # llama_layer.py's table: time per configuration
    python3 ci/chart.py variants RESULTS.txt -o OUT.svg  # compare-builds.sh: flash_attn's builds and torch

`suite` reads the lines of .gpu-suite/run.sh that end `oxide_ms/nvcc_ms R` and draws, for each
kernel and size, the twin's time over oxide's (1.0: as fast as nvcc; above: faster), with a line
at 1.0. `layer` reads the table llama_layer.py (and llama_decode.py) prints, under its header
`shape  what  provenance  ms ...` and a line of dashes, and draws each row's milliseconds, grouped by shape.
`variants` reads experiments/compare-builds.sh's lines `BUILD sSEQ dD cC TFLOP/s` (and torch's
`torch-flash ...`) and draws each build's TFLOP/s, grouped by problem.

Python 3.8+, the standard library only (the GPU machine has no matplotlib guaranteed). Refuses
input it finds nothing in, naming what it looked for."""

import argparse
import re
import sys
from xml.sax.saxutils import escape

BAR, GAP, LABEL_W, PLOT_W, FONT = 16, 6, 260, 420, 12


def bars(title, groups, unit, reference=None):
    """An SVG of horizontal bars: `groups` is [(group label, [(bar label, value)])], values >= 0.
    With a `reference` (1.0 for a ratio) every bar has one scale and a vertical line marks that
    value; without, each group has its own scale (a prefill's milliseconds and a decode step's
    microseconds side by side)."""
    values = [v for _, rows in groups for _, v in rows]
    if not values:
        raise ValueError("no bars to draw")
    top = max(values + ([reference] if reference else []))
    y = 40
    parts = []
    for group, rows in groups:
        scale = PLOT_W / ((top if reference else max(v for _, v in rows) or 1.0) * 1.1)
        parts.append(f'<text x="4" y="{y + FONT}" font-weight="bold">{escape(group)}</text>')
        y += FONT + GAP
        for label, value in rows:
            w = max(1.0, value * scale)
            parts.append(f'<text x="{LABEL_W - 6}" y="{y + BAR - 4}" text-anchor="end">{escape(label)}</text>')
            parts.append(f'<rect x="{LABEL_W}" y="{y}" width="{w:.1f}" height="{BAR}" fill="#4c78a8"/>')
            parts.append(f'<text x="{LABEL_W + w + 4:.1f}" y="{y + BAR - 4}">{value:.3g}</text>')
            y += BAR + GAP
        y += GAP
    if reference:
        x = LABEL_W + reference * PLOT_W / (top * 1.1)
        parts.append(f'<line x1="{x:.1f}" y1="32" x2="{x:.1f}" y2="{y}" stroke="#e45756" stroke-dasharray="4 3"/>')
        parts.append(f'<text x="{x + 3:.1f}" y="30" fill="#e45756">{reference:g}</text>')
    width = LABEL_W + PLOT_W + 60
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{y + 24}" '
        f'font-family="sans-serif" font-size="{FONT}">'
        f'<rect width="100%" height="100%" fill="white"/>'
        f'<text x="4" y="18" font-size="{FONT + 2}" font-weight="bold">{escape(title)}</text>'
        f'<text x="{LABEL_W}" y="{y + 16}" fill="#555">{escape(unit)}</text>'
    )
    return head + "".join(parts) + "</svg>\n"


SUITE_LINE = re.compile(r"^(\S+)\s+n=(\d+)\s+PASS\b.*oxide_ms/nvcc_ms ([0-9.]+)\s*$")


def suite_groups(text):
    """Each kernel's rows `n=N: nvcc_ms/oxide_ms`, from the suite's PASS lines."""
    groups = {}
    for line in text.splitlines():
        m = SUITE_LINE.match(line.strip())
        if m and float(m.group(3)) > 0:
            groups.setdefault(m.group(1), []).append((f"n = {int(m.group(2)):,}", 1.0 / float(m.group(3))))
    return list(groups.items())


def milliseconds(cell):
    """`3.565` (milliseconds) or `190.9 us`; None for anything else."""
    number, _, unit = cell.partition(" ")
    try:
        value = float(number)
    except ValueError:
        return None
    return {"": value, "ms": value, "us": value / 1000.0}.get(unit.strip())


def layer_groups(text):
    """llama_layer.py's and llama_decode.py's tables (columns padded with spaces, a line of dashes
    under the header, the time in `ms` or `time`): each configuration's `what (provenance)` and
    milliseconds, by shape. A step of a configuration (its `what` indented) and a check are not
    configurations."""
    lines = text.splitlines()
    groups = {}
    for i, line in enumerate(lines[:-1]):
        if not (line.split()[:2] == ["shape", "what"] and set(lines[i + 1]) <= {"-", " "}):
            continue
        # A column starts where its run of dashes does.
        starts = [m.start() for m in re.finditer(r"-+", lines[i + 1])]
        spans = list(zip(starts, starts[1:] + [None]))
        names = [line[a:b].strip() for a, b in spans]
        for row_line in lines[i + 2:]:
            if not row_line.strip():
                break
            raw = dict(zip(names, (row_line[a:b] for a, b in spans)))
            what = raw.get("what", "")
            if what.startswith(" ") or what.startswith("check"):
                continue
            ms = milliseconds((raw.get("ms") or raw.get("time") or "").strip())
            if ms is None:
                continue
            label = f"{what.strip()} ({raw.get('provenance', '').strip()})"
            groups.setdefault(raw["shape"].strip(), []).append((label, ms))
    return list(groups.items())


VARIANT_LINE = re.compile(r"^(\S+) s(\d+) d(\d+) c([01]) ([0-9.]+)\s*$")


def variant_groups(text):
    """compare-builds.sh's flash_attn lines: each build's TFLOP/s by (seq, head dim, causal)."""
    groups = {}
    for line in text.splitlines():
        m = VARIANT_LINE.match(line.strip())
        if m:
            build, seq, d, causal, tflops = m.groups()
            problem = f"seq {seq}, d {d}, {'causal' if causal == '1' else 'non-causal'}"
            groups.setdefault(problem, []).append((build, float(tflops)))
    return list(groups.items())


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("kind", choices=["suite", "layer", "variants"])
    p.add_argument("results", help="a results file of docs/gpu-results/ (or a run's output)")
    p.add_argument("-o", "--output", required=True, help="the SVG to write")
    p.add_argument("--title", help="the chart's title (default: the results file's name)")
    args = p.parse_args(argv)
    with open(args.results, encoding="utf-8") as f:
        text = f.read()
    title = args.title or args.results.rsplit("/", 1)[-1]
    if args.kind == "suite":
        groups, unit, reference = suite_groups(text), "nvcc twin's time / oxide's (higher is faster)", 1.0
        wanted = "lines `KERNEL n=N PASS ... oxide_ms/nvcc_ms R`"
    elif args.kind == "layer":
        groups, unit, reference = layer_groups(text), "milliseconds, each shape on its own scale (lower is faster)", None
        wanted = "a table under the header `shape  what  provenance  ms` and its dashes"
    else:
        groups, unit, reference = variant_groups(text), "TFLOP/s, each problem on its own scale (higher is faster)", None
        wanted = "lines `BUILD sSEQ dD cC TFLOP/s`"
    if not groups:
        sys.exit(f"chart.py: found no {wanted} in {args.results}")
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(bars(title, groups, unit, reference))
    print(f"{args.output}: {sum(len(r) for _, r in groups)} bars in {len(groups)} groups")


if __name__ == "__main__":
    main(sys.argv[1:])
