import re, sys
# The rewrites of llvm-emit/src/workarounds/ptx_rewrites.rs added on 2026-12-03 (min.u16/max.u16 in
# 32 bits, abs with the sign mask), for PTX built before them: rw.py IN OUT.
def rw(line):
    m = re.match(r'^(\s*)(@%?!?%?p\d+\s+)?(min|max)\.u16\s+(%rs\d+),\s*(%rs\d+),\s*(\S+);(.*)$', line)
    if m:
        ind, g, op, d, a, b, end = m.groups(); g = g or ''
        if b.startswith('%'):
            return f"{ind}{{ .reg .b32 %ot; .reg .b32 %ou; {g}cvt.u32.u16 %ot, {a}; {g}cvt.u32.u16 %ou, {b}; {g}{op}.u32 %ot, %ot, %ou; {g}cvt.u16.u32 {d}, %ot; }}{end}"
        v = int(b) & 0xffff
        return f"{ind}{{ .reg .b32 %ot; {g}cvt.u32.u16 %ot, {a}; {g}{op}.u32 %ot, %ot, {v}; {g}cvt.u16.u32 {d}, %ot; }}{end}"
    line = re.sub(r'abs\.s32 %oxide_tmp, %oxide_tmp;', '.reg .b32 %os; shr.s32 %os, %oxide_tmp, 31; xor.b32 %oxide_tmp, %oxide_tmp, %os; sub.s32 %oxide_tmp, %oxide_tmp, %os;', line)
    return line
src = open(sys.argv[1]).read().split('\n')
open(sys.argv[2], 'w').write('\n'.join(rw(l) for l in src))
