import re, sys
# trunc.py IN OUT MODES: makes the truncation of a wide source register explicit.
#  cvt32: cvt.<d>.{s32,u32} %x, %rdN     -> cvt.u32.u64 t, %rdN; cvt.<d>.s32 %x, t
#  cvt16: cvt.<d>.{s16,u16,s8,u8} %x, %rdN/%rN -> cvt.u16.u64/u32 t16, src; cvt.<d>.<s> %x, t16
#  st32:  st.<space>.b32 [a], %rdN          -> cvt.u32.u64 t, %rdN; st ... t
modes = set(sys.argv[3].split(','))
def rw(line):
    m = re.match(r'^(\s*)(@%?!?%?p\d+\s+)?(cvt(?:\.[a-z]+)*\.([su]64|[su]32|[su]16|f32|f64))\.(s32|u32|s16|u16|s8|u8)\s+(%\w+),\s*(%r[d]?\d+);\s*$', line)
    if m:
        ind, g, head, dty, sty, dst, src = m.groups(); g = g or ''
        if sty in ('s32', 'u32') and src.startswith('%rd') and 'cvt32' in modes:
            return f"{ind}{{ .reg .b32 %tt; {g}cvt.u32.u64 %tt, {src}; {g}{head}.{sty} {dst}, %tt; }}"
        if sty in ('s16', 'u16', 's8', 'u8') and (src.startswith('%rd') or src.startswith('%r')) and not src.startswith('%rs') and 'cvt16' in modes:
            w = 'u64' if src.startswith('%rd') else 'u32'
            return f"{ind}{{ .reg .b16 %tt; {g}cvt.u16.{w} %tt, {src}; {g}{head}.{sty} {dst}, %tt; }}"
        return line
    m = re.match(r'^(\s*)(@%?!?%?p\d+\s+)?(st\.[a-z.]*b32)\s+(\[[^\]]+\]),\s*(%rd\d+);\s*$', line)
    if m and 'st32' in modes:
        ind, g, op, addr, src = m.groups(); g = g or ''
        return f"{ind}{{ .reg .b32 %tt; {g}cvt.u32.u64 %tt, {src}; {g}{op} {addr}, %tt; }}"
    return line
src = open(sys.argv[1]).read().split('\n')
open(sys.argv[2], 'w').write('\n'.join(rw(l) for l in src))
