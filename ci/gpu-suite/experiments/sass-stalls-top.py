"""The SASS instructions where a kernel's warps stall most, from ncu's source page
(`ncu --section SourceCounters --page source --print-source sass --csv`, as fa-sass-stalls.sh
writes it): per file, the total of warp-state samples, the share of the top instructions, and
those instructions with their samples and executions. It reads the header row that names the
columns (`Source` and a `Warp Stall Sampling (All Samples)` column), so it follows ncu's
column order whatever it is.

With `--by-count`, also the samples by how often their instructions ran, in powers of two of
the least-run instruction's count: the instructions a block runs once (prologue, epilogue) fall in
the first buckets, its main loop's in the bucket of its trip count, so the table says how much
of the time lies outside the loop.

Usage: python3 sass-stalls-top.py FILE.csv[.gz] ... [--top N] [--by-count]
"""
import csv
import gzip
import math
import sys


def rows_of(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", errors="replace") as f:
        return list(csv.reader(f))


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def by_count(body, samples, executed, source, total):
    """The samples by the log2 of each instruction's executions over the least-run one's."""
    runs = [number(r[executed]) for r in body if number(r[executed]) > 0]
    if not runs:
        return
    least = min(runs)
    buckets = {}
    for r in body:
        ran = number(r[executed])
        if ran <= 0:
            continue
        b = int(math.log2(ran / least) + 0.5)
        n, s, first = buckets.get(b, (0, 0.0, r[source].strip()[:40]))
        buckets[b] = (n + 1, s + number(r[samples]), first)
    print(f"   samples by executions (least {least:.0f}):")
    for b in sorted(buckets):
        n, s, first = buckets[b]
        print(f"   x{2**b:<6} {n:5d} instructions {s / total:6.1%}  e.g. {first}")


def summarize(path, top, counts=False):
    rows = rows_of(path)
    header_at = next(
        (i for i, r in enumerate(rows) if "Source" in r and any("Stall Sampling (All" in c for c in r)),
        None,
    )
    if header_at is None:
        print(f"{path}: no source table (ncu wrote {len(rows)} rows)")
        return
    head = rows[header_at]
    source = head.index("Source")
    samples = next(i for i, c in enumerate(head) if "Stall Sampling (All" in c)
    executed = next((i for i, c in enumerate(head) if c.startswith("Instructions Executed")), None)
    body = [r for r in rows[header_at + 1 :] if len(r) == len(head)]
    total = sum(number(r[samples]) for r in body) or 1.0
    ranked = sorted(body, key=lambda r: number(r[samples]), reverse=True)[:top]
    share = sum(number(r[samples]) for r in ranked) / total
    print(f"== {path}: {len(body)} instructions, {total:.0f} samples; top {top} hold {share:.0%}")
    for r in ranked:
        ex = f"{number(r[executed]):>12.0f}" if executed is not None else ""
        print(f"{number(r[samples]) / total:6.1%} {ex}  {r[source].strip()[:90]}")
    if counts and executed is not None:
        by_count(body, samples, executed, source, total)


def main():
    args = sys.argv[1:]
    top = 25
    if "--top" in args:
        i = args.index("--top")
        top = int(args[i + 1])
        del args[i : i + 2]
    counts = "--by-count" in args
    args = [a for a in args if a != "--by-count"]
    for path in args:
        summarize(path, top, counts)


if __name__ == "__main__":
    main()
