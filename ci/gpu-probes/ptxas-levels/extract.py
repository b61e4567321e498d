import re, sys
# extract.py IN.ptx OUT.ptx ENTRY... : the header, every .func prototype needed, and the entries with
# the functions they call (transitively).
src = open(sys.argv[1]).read()
lines = src.split('\n')
# header: up to the first .func / .visible / .global / .extern
items = []  # (kind, name, text)
i = 0
header = []
while i < len(lines) and not re.match(r'^(\.visible|\.func|\.global|\.extern|\.weak|// \.globl|\.const|\.shared)', lines[i]):
    header.append(lines[i]); i += 1
cur = []
def flush():
    if cur:
        items.append('\n'.join(cur))
depth = 0
buf = []
while i < len(lines):
    l = lines[i]
    buf.append(l)
    depth += l.count('{') - l.count('}')
    # an item ends at a line ';' at depth 0 (prototype / global) or at '}' returning to depth 0
    if depth == 0 and (l.strip() == '}' or l.rstrip().endswith(';') or l.strip() == '' ):
        t = '\n'.join(buf).strip()
        if t:
            items.append(t)
        buf = []
    i += 1
if buf: items.append('\n'.join(buf))
defs = {}
protos = []
others = []
for t in items:
    m = re.search(r'^(?:\.visible\s+)?\.(entry|func)\s+(?:\([^)]*\)\s*)?([A-Za-z0-9_$.]+)', t, re.M)
    if m and '{' in t:
        defs[m.group(2)] = t
    elif m:
        protos.append((m.group(2), t))
    else:
        others.append(t)
need = []
todo = list(sys.argv[3:])
while todo:
    n = todo.pop()
    if n in need or n not in defs: continue
    need.append(n)
    for c in re.findall(r'call(?:\.uni)?\s*(?:\([^)]*\),\s*)?([A-Za-z0-9_$.]+)', defs[n]):
        todo.append(c)
out = header[:]
for n, t in protos:
    if n in need: out.append(t)
for t in others:
    if not t.startswith('//'): out.append(t)
for n in need:
    out.append(defs[n])
open(sys.argv[2], 'w').write('\n\n'.join(out) + '\n')
print(sys.argv[2], len(need), 'functions', sum(len(defs[n]) for n in need), 'bytes')
