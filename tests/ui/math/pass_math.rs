//@ build-pass
//@ ptx-not: __nv_
//@ ptx-not: __nvvm_reflect
//@ ptx-not: .extern
//! `f32`/`f64` math methods build: the float intrinsics behind `sin`, `exp`, `powf`... and the C
//! math functions behind `tanh`, `atan2`, `cbrt`... become calls of NVIDIA's libdevice, which
//! llvm-emit links and LLVM inlines: no libdevice symbol, reflect query or external function is
//! left in the PTX.

use oxide::prelude::*;

#[kernel]
pub fn math(input: &[f32], wide: &[f64], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let (x, w) = (input[idx.get()], wide[idx.get()]);
    if let Some(o) = out.get_mut(idx) {
        let single = x.sin() + x.cos() * x.exp() + x.ln().powf(1.5) + x.tanh().atan2(x) + x.cbrt();
        let double = w.sin() + w.exp2().log10() + w.powi(3) + w.hypot(2.0) + w.sinh().exp_m1();
        *o = single + double as f32;
    }
}

fn main() {}
