//@ build-pass
//@ compile-flags: -O
//@ ptx-not: st.local
//@ ptx-not: ld.local
//! A plain loop over a thread's own array, `for f in s.iter_mut()`, is unrolled fully when it
//! runs a few steps, however large its unrolled body (as nvcc unrolls it), so the array stays in
//! registers: here 32 fragments of 4 scores rescaled and summed in each step of a loop whose
//! count is not known (flash_attn's softmax over its MMA accumulators, written plainly).
use oxide::prelude::*;

#[kernel(block = "128")]
pub fn rescale(x: &[f32], steps: u32, mut out: DisjointSlice<f32>) {
    let mut s = [[1.0f32; 4]; 32];
    let mut total = 0.0f32;
    for t in 0..steps as usize {
        let v = x.get(t).copied().unwrap_or(0.0);
        for f in s.iter_mut() {
            *f = f.map(|e| (e * v - 1.0).fast_exp2().max(v));
        }
        for f in &s {
            total += f[0] + f[1] + f[2] + f[3];
        }
    }
    if let Some(slot) = out.get_mut(ThreadIndex::linear()) {
        *slot = total;
    }
}

fn main() {}
