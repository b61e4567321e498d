import re, sys
# widen.py IN OUT CLASSES(comma list): rewrites 16-bit instructions of the given classes into 32 bits.
R = r'(%rs\d+)'
OPD = r'(%rs\d+|-?\d+)'
def imm(v, kind):
    x = int(v) & 0xffff
    if kind == 's' and x >= 0x8000: x -= 0x10000
    return str(x)
def ext(op, kind, t, g):
    # returns (code, operand) widening operand op into scratch t
    if op.startswith('%'):
        return f"{g}cvt.{'s32.s16' if kind=='s' else 'u32.u16'} {t}, {op}; ", t
    return '', imm(op, kind)
n = [0]
def block(g, body, regs):
    n[0] += 1
    decl = ' '.join(f'.reg .b32 {r};' for r in regs)
    return '{ ' + decl + ' ' + body + '}'
def rw(line, classes):
    m = re.match(r'^(\s*)(@%?!?%?p\d+\s+)?([a-z]+(?:\.[a-z0-9]+)*)\s+(.*);\s*$', line)
    if not m: return line
    ind, g, opc, ops = m.groups(); g = g or ''
    ops = [o.strip() for o in ops.split(',')]
    t = ['%wa', '%wb', '%wc']
    if 'arith' in classes and opc in ('add.s16','sub.s16','mul.lo.s16','and.b16','or.b16','xor.b16','add.u16','sub.u16','mul.lo.u16') and len(ops) == 3 and ops[0].startswith('%rs'):
        op32 = {'add':'add.s32','sub':'sub.s32','mul':'mul.lo.s32','and':'and.b32','or':'or.b32','xor':'xor.b32'}[opc.split('.')[0]]
        c1, a = ext(ops[1], 'u', t[0], g); c2, b = ext(ops[2], 'u', t[1], g)
        return ind + block(g, f"{c1}{c2}{g}{op32} {t[2]}, {a}, {b}; {g}cvt.u16.u32 {ops[0]}, {t[2]}; ", t)
    if 'arith' in classes and opc in ('mad.lo.s16','mad.lo.u16') and len(ops) == 4:
        c1, a = ext(ops[1], 'u', t[0], g); c2, b = ext(ops[2], 'u', t[1], g); c3, c = ext(ops[3], 'u', '%wd', g)
        return ind + block(g, f"{c1}{c2}{c3}{g}mad.lo.s32 {t[2]}, {a}, {b}, {c}; {g}cvt.u16.u32 {ops[0]}, {t[2]}; ", t + ['%wd'])
    if 'arith' in classes and opc == 'not.b16':
        return ind + block(g, f"{g}cvt.u32.u16 {t[0]}, {ops[1]}; {g}not.b32 {t[0]}, {t[0]}; {g}cvt.u16.u32 {ops[0]}, {t[0]}; ", t[:1])
    if 'shift' in classes and opc in ('shl.b16','shr.u16','shr.s16','shr.b16'):
        kind = 's' if opc == 'shr.s16' else 'u'
        op32 = {'shl.b16':'shl.b32','shr.u16':'shr.u32','shr.b16':'shr.u32','shr.s16':'shr.s32'}[opc]
        c1, a = ext(ops[1], kind, t[0], g)
        amt = ops[2]
        if opc == 'shl.b16':
            pass
        return ind + block(g, f"{c1}{g}{op32} {t[2]}, {a}, {amt}; {g}cvt.u16.u32 {ops[0]}, {t[2]}; ", t)
    m2 = re.match(r'setp\.([a-z]+)\.(s16|u16|b16)$', opc)
    if 'setp' in classes and m2 and len(ops) == 3:
        cmp, ty = m2.groups(); kind = 's' if ty == 's16' else 'u'
        c1, a = ext(ops[1], kind, t[0], g); c2, b = ext(ops[2], kind, t[1], g)
        return ind + block(g, f"{c1}{c2}{g}setp.{cmp}.{'s32' if kind=='s' else 'u32'} {ops[0]}, {a}, {b}; ", t)
    if 'selp' in classes and opc == 'selp.b16' and len(ops) == 4:
        c1, a = ext(ops[1], 'u', t[0], g); c2, b = ext(ops[2], 'u', t[1], g)
        return ind + block(g, f"{c1}{c2}{g}selp.b32 {t[2]}, {a}, {b}, {ops[3]}; {g}cvt.u16.u32 {ops[0]}, {t[2]}; ", t)
    if 'sext' in classes and opc == 'cvt.s16.s8' and ops[1].startswith('%rs'):
        return ind + block(g, f"{g}cvt.u32.u16 {t[0]}, {ops[1]}; {g}cvt.s32.s8 {t[0]}, {t[0]}; {g}cvt.u16.u32 {ops[0]}, {t[0]}; ", t[:1])
    if 'divrem' in classes and opc in ('rem.s16','rem.u16','div.s16','div.u16','mul.hi.u16','mul.hi.s16') and len(ops) == 3:
        kind = 's' if '.s16' in opc else 'u'
        c1, a = ext(ops[1], kind, t[0], g); c2, b = ext(ops[2], kind, t[1], g)
        base = opc.rsplit('.', 1)[0]
        if base.startswith('mul.hi'):
            body = f"{c1}{c2}{g}mul.lo.s32 {t[2]}, {a}, {b}; {g}shr.u32 {t[2]}, {t[2]}, 16; "
        else:
            body = f"{c1}{c2}{g}{base}.{'s32' if kind=='s' else 'u32'} {t[2]}, {a}, {b}; "
        return ind + block(g, body + f"{g}cvt.u16.u32 {ops[0]}, {t[2]}; ", t)
    return line
classes = set(sys.argv[3].split(','))
src = open(sys.argv[1]).read().split('\n')
open(sys.argv[2], 'w').write('\n'.join(rw(l, classes) for l in src))
