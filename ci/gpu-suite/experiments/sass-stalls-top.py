"""The SASS instructions where a kernel's warps stall most, from ncu's source page
(`ncu --section SourceCounters --page source --print-source sass --csv`, as fa-sass-stalls.sh
writes it): per file, the total of warp-state samples, the share of the top instructions, and
those instructions with their samples and executions. It reads the header row that names the
columns (`Source` and a `Warp Stall Sampling (All Samples)` column), so it follows ncu's
column order whatever it is.

Usage: python3 sass-stalls-top.py FILE.csv[.gz] ... [--top N]
"""
import csv
import gzip
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


def summarize(path, top):
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


def main():
    args = sys.argv[1:]
    top = 25
    if "--top" in args:
        i = args.index("--top")
        top = int(args[i + 1])
        del args[i : i + 2]
    for path in args:
        summarize(path, top)


if __name__ == "__main__":
    main()
