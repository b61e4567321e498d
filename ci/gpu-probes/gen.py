#!/usr/bin/env python3
"""Writes the PTX probes of ptxas faults that llvm-emit/src/workarounds/ works around, into OUT:
neg16.ptx (16-bit negation forms, each followed by a use), wide.ptx (32/64-bit neg and abs of
the most negative value), abs.ptx (abs written as abs, select, max and shifts). The .cu harnesses
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


if __name__ == "__main__":
    out = sys.argv[1]
    neg16(out)
    wide(out)
    abs_forms(out)
