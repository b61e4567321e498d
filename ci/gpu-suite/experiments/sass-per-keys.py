"""Two kernels' executed SASS per 64 keys of attention, opcode by opcode, from ncu source-counter
CSVs (fa-small-seq.sh writes them): each instruction run at least 4 times a warp counts as the
main loop's, its executions divided by warps x steps and scaled to 64 keys, beside its share of
the warp-state samples. Written to compare flash_attn (64 keys a step then) with torch's
FlashAttention-2 (128) at seq 2k, d 64: 16384 warps each.

Usage: python3 sass-per-keys.py OURS.csv.gz WARPS STEPS KEYS THEIRS.csv.gz WARPS STEPS KEYS
"""
import csv,gzip,sys,collections
def prof(p,warps,steps,keys):
    rows=list(csv.reader(gzip.open(p,'rt',errors='replace')))
    h=next(i for i,r in enumerate(rows) if 'Source' in r and 'Address' in r); head=rows[h]
    body=[r for r in rows[h+1:] if len(r)==len(head)]
    ex=head.index('Instructions Executed'); src=head.index('Source'); sm=head.index('Warp Stall Sampling (All Samples)')
    num=lambda x: float(x.replace(',','') or 0) if x.replace(',','').replace('.','').isdigit() else 0.0
    c=collections.Counter(); s=collections.Counter(); tot=0
    for r in body:
        n=num(r[ex]); tot+=num(r[sm])
        if n < warps*4: continue
        t=[o for o in r[src].strip().split() if not o.startswith('@')]
        op=t[0].split('.')[0]
        c[op]+=n/(warps*steps)*(64/keys); s[op]+=num(r[sm])
    return c,s,tot
v = sys.argv[1:]
a = prof(v[0], int(v[1]), int(v[2]), int(v[3]))
b = prof(v[4], int(v[5]), int(v[6]), int(v[7]))
ops=sorted(set(a[0])|set(b[0]),key=lambda o:-(a[0][o]+b[0][o]))
print(f"{'op':10s} {'ours/64keys':>11s} {'fa2/64keys':>10s}  samples% ours fa2")
for o in ops[:40]:
    print(f"{o:10s} {a[0][o]:11.1f} {b[0][o]:10.1f}  {a[1][o]/a[2]:6.1%} {b[1][o]/b[2]:6.1%}")
print('total', sum(a[0].values()), sum(b[0].values()))
