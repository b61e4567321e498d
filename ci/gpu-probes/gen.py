#!/usr/bin/env python3
"""Writes the PTX probes of ptxas faults that llvm-emit/src/workarounds/ works around, into OUT:
neg16.ptx (16-bit negation forms, each followed by a use), wide.ptx (32/64-bit neg and abs of
the most negative value), abs.ptx (abs written as abs, select, max and shifts), narrow.ptx (8- and 16-bit values sign-extended
into a 16- or 32-bit register by each form NVPTX and ptxas meet, then used by max/min/setp/shr/
zero-extension and the exact trailing_zeros sequence of `max(x, 0)`). The .cu harnesses
next to this file load each at JIT -O0 and -O3 and check every output against the host.
Usage: gen.py OUT"""
import sys

def neg16(out):
    negs={
     'V1':'neg.s16 %rs3, %rs1;',
     'V2':'sub.s16 %rs3, 0, %rs1;',
     'V3':'cvt.s32.s16 %r3, %rs1; neg.s32 %r3, %r3; cvt.u16.u32 %rs3, %r3;',
     'V4':'cvt.u32.u16 %r3, %rs1; neg.s32 %r3, %r3; cvt.u16.u32 %rs3, %r3;',
     'V5':'not.b16 %rs3, %rs1; add.s16 %rs3, %rs3, 1;',
     'V6':'mul.lo.s16 %rs3, %rs1, -1;',
     'V7':'sub.s16 %rs3, %rs2, %rs1;',
     'V8':'cvt.u32.u16 %r3, %rs1; sub.s32 %r3, 0, %r3; cvt.u16.u32 %rs3, %r3;',
     'A1':'abs.s16 %rs3, %rs1;',
     'A2':'cvt.s32.s16 %r3, %rs1; abs.s32 %r3, %r3; cvt.u16.u32 %rs3, %r3;',
     'A3':'cvt.s32.s16 %r3, %rs1; abs.s32 %r3, %r3; cvt.u64.u32 %rd12, %r3; cvt.u16.u64 %rs3, %rd12;',
    }
    follow={
     'F1':'cvt.s64.s16 %rd9, %rs3;',
     'F2':'cvt.s32.s16 %r4, %rs3; cvt.u64.u32 %rd9, %r4;',
     'F3':'add.s16 %rs3, %rs3, %rs2; cvt.s64.s16 %rd9, %rs3;',
     'F4':'shr.s16 %rs3, %rs3, 1; cvt.s64.s16 %rd9, %rs3;',
     'F5':'setp.lt.s16 %p1, %rs3, 0; selp.u64 %rd9, 1, 0, %p1;',
     'F6':'cvt.u64.u16 %rd9, %rs3;',
     'F7':'mul.wide.s16 %r4, %rs3, 1; cvt.s64.s32 %rd9, %r4;',
     'F8':'cvt.rn.f32.s16 %f1, %rs3; cvt.rzi.s64.f32 %rd9, %f1;',
    }
    ptx=['.version 8.0','.target sm_90','.address_size 64']
    names=[]
    for vn,v in negs.items():
      for fn,f in follow.items():
        n=f'k_{vn}_{fn}'; names.append((n,vn,fn))
        ptx.append(f'''.visible .entry {n}(.param .u64 pa, .param .u64 pb, .param .u64 po)
    {{
     .reg .pred %p<3>; .reg .f32 %f<3>; .reg .b16 %rs<4>; .reg .b32 %r<6>; .reg .b64 %rd<14>;
     ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [po];
     mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r5, %ntid.x; mad.lo.s32 %r1, %r2, %r5, %r1; cvt.u64.u32 %rd4, %r1;
     shl.b64 %rd5, %rd4, 1; add.s64 %rd6, %rd1, %rd5; add.s64 %rd7, %rd2, %rd5;
     ld.global.u16 %rs1, [%rd6]; ld.global.u16 %rs2, [%rd7];
     {v}
     {f}
     shl.b64 %rd10, %rd4, 3; add.s64 %rd11, %rd3, %rd10; st.global.u64 [%rd11], %rd9;
     ret;
    }}''')
    open(out+'/neg16.ptx','w').write('\n'.join(ptx)+'\n')
    open(out+'/neg16_names.txt','w').write(' '.join(n for n,_,_ in names)+'\n')


def wide(out):
    ops={'neg32':('neg.s32','b32',32),'abs32':('abs.s32','b32',32),'neg64':('neg.s64','b64',64),'abs64':('abs.s64','b64',64),'sub32':('sub.s32 ZERO','b32',32),'sub64':('sub.s64 ZERO','b64',64)}
    fol32={'G1':'cvt.s64.s32 %rd9, %r3;','G2':'setp.lt.s32 %p1, %r3, 0; selp.u64 %rd9, 1, 0, %p1;','G3':'shr.s32 %r3, %r3, 1; cvt.s64.s32 %rd9, %r3;','G4':'mul.wide.s32 %rd9, %r3, 1;','G5':'setp.le.s32 %p1, %r3, %r2; selp.u64 %rd9, 1, 0, %p1;','G6':'add.s32 %r3, %r3, %r2; cvt.s64.s32 %rd9, %r3;'}
    fol64={'G1':'mov.b64 %rd9, %rd3;','G2':'setp.lt.s64 %p1, %rd3, 0; selp.u64 %rd9, 1, 0, %p1;','G3':'shr.s64 %rd9, %rd3, 1;','G4':'mul.hi.s64 %rd9, %rd3, 1;','G5':'setp.le.s64 %p1, %rd3, %rd2; selp.u64 %rd9, 1, 0, %p1;','G6':'add.s64 %rd9, %rd3, %rd2;'}
    ptx=['.version 8.0','.target sm_90','.address_size 64']
    names=[]
    for on,(op,ty,w) in ops.items():
      fol=fol32 if w==32 else fol64
      for fn,f in fol.items():
        n=f'k_{on}_{fn}'; names.append(n)
        if w==32:
          load='ld.global.u32 %r1, [%rd6]; ld.global.u32 %r2, [%rd7];'
          o=f'{op.split()[0]} %r3, 0, %r1;' if 'ZERO' in op else f'{op} %r3, %r1;'
        else:
          load='ld.global.u64 %rd1, [%rd6]; ld.global.u64 %rd2, [%rd7];'
          o=f'{op.split()[0]} %rd3, 0, %rd1;' if 'ZERO' in op else f'{op} %rd3, %rd1;'
        ptx.append(f'''.visible .entry {n}(.param .u64 pa, .param .u64 pb, .param .u64 po)
    {{
     .reg .pred %p<3>; .reg .b32 %r<8>; .reg .b64 %rd<16>;
     ld.param.u64 %rd11, [pa]; ld.param.u64 %rd12, [pb]; ld.param.u64 %rd13, [po];
     mov.u32 %r4, %tid.x; mov.u32 %r5, %ctaid.x; mov.u32 %r6, %ntid.x; mad.lo.s32 %r4, %r5, %r6, %r4; cvt.u64.u32 %rd4, %r4;
     shl.b64 %rd5, %rd4, 3; add.s64 %rd6, %rd11, %rd5; add.s64 %rd7, %rd12, %rd5;
     {load}
     {o}
     {f}
     add.s64 %rd14, %rd13, %rd5; st.global.u64 [%rd14], %rd9;
     ret;
    }}''')
    open(out+'/wide.ptx','w').write('\n'.join(ptx)+'\n')
    open(out+'/wide_names.txt','w').write(' '.join(names)+'\n')


def abs_forms(out):
    forms={
     'W0':'abs.s{w} %{r}3, %{r}1;',
     'W1':'setp.lt.s{w} %p2, %{r}1, 0; neg.s{w} %{r}7, %{r}1; selp.b{w} %{r}3, %{r}7, %{r}1, %p2;',
     'W2':'neg.s{w} %{r}7, %{r}1; max.s{w} %{r}3, %{r}1, %{r}7;',
     'W3':'shr.s{w} %{r}7, %{r}1, {wm1}; xor.b{w} %{r}3, %{r}1, %{r}7; sub.s{w} %{r}3, %{r}3, %{r}7;',
    }
    fol32={'G1':'cvt.s64.s32 %rd9, %r3;','G2':'setp.lt.s32 %p1, %r3, 0; selp.u64 %rd9, 1, 0, %p1;','G3':'shr.s32 %r3, %r3, 1; cvt.s64.s32 %rd9, %r3;','G4':'mul.wide.s32 %rd9, %r3, 1;','G5':'setp.le.s32 %p1, %r3, %r2; selp.u64 %rd9, 1, 0, %p1;','G6':'add.s32 %r3, %r3, %r2; cvt.s64.s32 %rd9, %r3;','G7':'setp.ge.s32 %p1, %r3, 0; selp.u64 %rd9, 1, 0, %p1;','G8':'shr.u32 %r3, %r3, 31; cvt.u64.u32 %rd9, %r3;'}
    fol64={'G1':'mov.b64 %rd9, %rd3;','G2':'setp.lt.s64 %p1, %rd3, 0; selp.u64 %rd9, 1, 0, %p1;','G3':'shr.s64 %rd9, %rd3, 1;','G4':'mul.hi.s64 %rd9, %rd3, 1;','G5':'setp.le.s64 %p1, %rd3, %rd2; selp.u64 %rd9, 1, 0, %p1;','G6':'add.s64 %rd9, %rd3, %rd2;','G7':'setp.ge.s64 %p1, %rd3, 0; selp.u64 %rd9, 1, 0, %p1;','G8':'shr.u64 %rd9, %rd3, 63;'}
    ptx=['.version 8.0','.target sm_90','.address_size 64']
    names=[]
    for fn_,form in forms.items():
      for w in (32,64):
        fol=fol32 if w==32 else fol64
        r='r' if w==32 else 'rd'
        o=form.format(w=w,r=r,wm1=w-1)
        for gn,f in fol.items():
          n=f'k_abs{w}{fn_}_{gn}'; names.append(n)
          load='ld.global.u32 %r1, [%rd6]; ld.global.u32 %r2, [%rd7];' if w==32 else 'ld.global.u64 %rd1, [%rd6]; ld.global.u64 %rd2, [%rd7];'
          ptx.append(f'''.visible .entry {n}(.param .u64 pa, .param .u64 pb, .param .u64 po)
    {{
     .reg .pred %p<3>; .reg .b32 %r<8>; .reg .b64 %rd<16>;
     ld.param.u64 %rd11, [pa]; ld.param.u64 %rd12, [pb]; ld.param.u64 %rd13, [po];
     mov.u32 %r4, %tid.x; mov.u32 %r5, %ctaid.x; mov.u32 %r6, %ntid.x; mad.lo.s32 %r4, %r5, %r6, %r4; cvt.u64.u32 %rd4, %r4;
     shl.b64 %rd5, %rd4, 3; add.s64 %rd6, %rd11, %rd5; add.s64 %rd7, %rd12, %rd5;
     {load}
     {o}
     {f}
     add.s64 %rd14, %rd13, %rd5; st.global.u64 [%rd14], %rd9;
     ret;
    }}''')
    open(out+'/abs.ptx','w').write('\n'.join(ptx)+'\n')
    open(out+'/abs_names.txt','w').write(' '.join(names)+'\n')


# narrow.ptx: where a sign-extended i8 (or i16) in a register goes wrong. Each source puts the
# low 8 (or 16) bits of the input, sign-extended, into a 16-bit (%rs1) or 32-bit (%r1) register;
# each use then computes from it. Names: n_<source>_<use>; narrow_names.txt has per kernel
# "name h W BITS USE" (W the register width, BITS the width of the value), which narrow.cu reads.
NARROW_SOURCES = {
    # 16-bit register, i8 value
    's8a': (16, 8, 'cvt.s8.s64 %rs1, %rd1;'),  # what NVPTX emits for `x as i8` (fuzz 620, 2224)
    's8b': (16, 8, 'cvt.u32.u64 %r20, %rd1; cvt.s8.s32 %rs1, %r20;'),
    's8c': (16, 8, 'cvt.u16.u64 %rs10, %rd1; cvt.s16.s8 %rs1, %rs10;'),
    's8d': (16, 8, 'cvt.u16.u64 %rs10, %rd1; cvt.s8.s16 %rs1, %rs10;'),
    's8e': (16, 8, 'ld.global.nc.s8 %rs1, [%rd6];'),
    's8f': (16, 8, 'cvt.u32.u64 %r20, %rd1; cvt.s32.s8 %r20, %r20; cvt.u16.u32 %rs1, %r20;'),  # the rewrite
    's8g': (16, 8, 'cvt.u16.u64 %rs10, %rd1; shl.b16 %rs10, %rs10, 8; shr.s16 %rs1, %rs10, 8;'),
    # 16-bit register, i16 value
    's16a': (16, 16, 'cvt.u16.u64 %rs1, %rd1;'),
    's16b': (16, 16, 'cvt.s16.s64 %rs1, %rd1;'),
    's16c': (16, 16, 'ld.global.nc.s16 %rs1, [%rd6];'),
    # 32-bit register
    'w8a': (32, 8, 'cvt.u32.u64 %r20, %rd1; cvt.s32.s8 %r1, %r20;'),
    'w8b': (32, 8, 'cvt.s8.s64 %r1, %rd1;'),
    'w8c': (32, 8, 'cvt.s8.s64 %rs10, %rd1; cvt.s32.s16 %r1, %rs10;'),
    'w16a': (32, 16, 'cvt.u32.u64 %r20, %rd1; cvt.s32.s16 %r1, %r20;'),
    'w16b': (32, 16, 'cvt.u16.u64 %rs10, %rd1; cvt.s32.s16 %r1, %rs10;'),
}

def _tz(R, W, x, lab, branch):
    """trailing_zeros of an i8 in register x as NVPTX emits it: 8 at zero, else
    popc(~x & (x - 1) & 255); the result in %{R}7, then zero-extended into %rd9."""
    to32 = f'cvt.u32.u16 %r15, %{R}6;' if W == 16 else f'mov.b32 %r15, %{R}6;'
    back = f'cvt.u16.u32 %{R}8, %r16;' if W == 16 else f'mov.b32 %{R}8, %r16;'
    body = (f'add.s{W} %{R}3, {x}, -1; not.b{W} %{R}4, {x}; and.b{W} %{R}5, %{R}4, %{R}3; '
            f'and.b{W} %{R}6, %{R}5, 255; {to32} popc.b32 %r16, %r15; {back}')
    if branch:
        return (f'setp.eq.b{W} %p2, {x}, 0; mov.b{W} %{R}7, 8; @%p2 bra {lab}; {body} '
                f'mov.b{W} %{R}7, %{R}8;\n{lab}:\n cvt.u64.u{W} %rd9, %{R}7;')
    return (f'setp.eq.b{W} %p2, {x}, 0; {body} selp.b{W} %{R}7, 8, %{R}8, %p2; '
            f'cvt.u64.u{W} %rd9, %{R}7;')

def narrow_uses(R, W, lab):
    to32 = (lambda x: f'cvt.u32.u16 %r30, {x};') if W == 16 else (lambda x: f'mov.b32 %r30, {x};')
    m = f'max.s{W} %{R}2, %{R}1, 0;'
    uses = {
        'id': f'cvt.s64.s{W} %rd9, %{R}1;',
        'zx': f'cvt.u64.u{W} %rd9, %{R}1;',
        'max0': f'{m} cvt.s64.s{W} %rd9, %{R}2;',
        'max0z': f'{m} cvt.u64.u{W} %rd9, %{R}2;',
        'maxr': f'cvt.u{W}.u64 %{R}11, %rd2; max.s{W} %{R}2, %{R}1, %{R}11; cvt.s64.s{W} %rd9, %{R}2;',
        'min0': f'min.s{W} %{R}2, %{R}1, 0; cvt.s64.s{W} %rd9, %{R}2;',
        'maxn': f'max.s{W} %{R}2, %{R}1, -3; cvt.s64.s{W} %rd9, %{R}2;',
        'lt0': f'setp.lt.s{W} %p1, %{R}1, 0; selp.u64 %rd9, 1, 0, %p1;',
        'le0m': f'{m} setp.eq.b{W} %p1, %{R}2, 0; selp.u64 %rd9, 1, 0, %p1;',
        'sar': f'shr.s{W} %{R}2, %{R}1, {W - 1}; cvt.s64.s{W} %rd9, %{R}2;',
        'and255': f'and.b{W} %{R}2, %{R}1, 255; cvt.u64.u{W} %rd9, %{R}2;',
        'tzmb': f'{m} ' + _tz(R, W, f'%{R}2', lab, True),
        'tzms': f'{m} ' + _tz(R, W, f'%{R}2', lab, False),
        'tza': _tz(R, W, f'%{R}1', lab, True),
        'popm': f'{m} {to32(f"%{R}2")} popc.b32 %r31, %r30; cvt.u64.u32 %rd9, %r31;',
        'clzm': f'{m} {to32(f"%{R}2")} clz.b32 %r31, %r30; cvt.u64.u32 %rd9, %r31;',
        'addm': f'{m} add.s{W} %{R}2, %{R}2, -1; cvt.s64.s{W} %rd9, %{R}2;',
    }
    if W == 16:
        # Seed 2's programs 2278, 6618, 9379: a u8 saturating add (`min.u16` of the 9-bit sum
        # with 255) compared with 255; 'w' the rewrite's 32-bit form.
        s = f'and.b16 %rs3, %rs1, 255; add.s16 %rs3, %rs3, %rs3;'
        eq = 'setp.eq.b16 %p1, %rs4, 255; selp.u64 %rd9, 1, 0, %p1;'
        uses['umineq'] = f'{s} min.u16 %rs4, %rs3, 255; {eq}'
        uses['umineqw'] = (f'{s} cvt.u32.u16 %r30, %rs3; min.u32 %r30, %r30, 255; '
                           f'cvt.u16.u32 %rs4, %r30; {eq}')
        # Seed 2's program 3860: abs in 32 bits (the rewrite of abs.s16), then the low 8 bits
        # sign-extended (`x.abs_diff(0) as i8`); 'm' with the sign mask (the rewrite now).
        back = 'cvt.u16.u32 %rs2, %r30; cvt.s16.s8 %rs3, %rs2; cvt.s64.s16 %rd9, %rs3;'
        uses['absx8'] = f'cvt.s32.s16 %r30, %rs1; abs.s32 %r30, %r30; {back}'
        uses['absx8m'] = (f'cvt.s32.s16 %r30, %rs1; shr.s32 %r31, %r30, 31; '
                          f'xor.b32 %r30, %r30, %r31; sub.s32 %r30, %r30, %r31; {back}')
    return uses

def narrow(out):
    ptx = ['.version 8.0', '.target sm_90', '.address_size 64']
    rows = []
    for sn, (w, bits, src) in NARROW_SOURCES.items():
        R = 'rs' if w == 16 else 'r'
        for un, use in narrow_uses(R, w, 'LAB').items():
            n = f'n_{sn}_{un}'
            rows.append(f'{n} h {w} {bits} {un}')
            use = use.replace('LAB', f'$L_{n}')
            ptx.append(f'''.visible .entry {n}(.param .u64 pa, .param .u64 pb, .param .u64 po)
    {{
     .reg .pred %p<3>; .reg .b16 %rs<12>; .reg .b32 %r<32>; .reg .b64 %rd<16>;
     ld.param.u64 %rd11, [pa]; ld.param.u64 %rd12, [pb]; ld.param.u64 %rd13, [po];
     mov.u32 %r24, %tid.x; mov.u32 %r25, %ctaid.x; mov.u32 %r26, %ntid.x; mad.lo.s32 %r24, %r25, %r26, %r24; cvt.u64.u32 %rd4, %r24;
     shl.b64 %rd5, %rd4, 3; add.s64 %rd6, %rd11, %rd5; add.s64 %rd7, %rd12, %rd5;
     ld.global.nc.u64 %rd1, [%rd6]; ld.global.nc.u64 %rd2, [%rd7];
     {src}
     {use}
     add.s64 %rd14, %rd13, %rd5; st.global.u64 [%rd14], %rd9;
     ret;
    }}''')
    open(out + '/narrow.ptx', 'w').write('\n'.join(ptx) + '\n')
    open(out + '/narrow_names.txt', 'w').write('\n'.join(rows) + '\n')


if __name__ == "__main__":
    out = sys.argv[1]
    neg16(out)
    wide(out)
    abs_forms(out)
    narrow(out)
