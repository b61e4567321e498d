//@ build-pass
//@ compile-flags: -O
//@ ptx: .param .u64 .ptr .align 16
//@ ptx: ld.global.nc.v4.b32
//@ ptx: st.global.v4.b32
//! Slices are 16-byte aligned (oxide_contract::SLICE_ALIGN), so a thread's chunk of four f32
//! (`DisjointChunks<f32, 4>`) and the same four elements of an input slice load
//! and store as single 16-byte vector instructions, as CUDA's `float4` does.
use oxide::prelude::*;

#[kernel]
pub fn scale4(x: &[f32], k: f32, mut y: DisjointChunks<f32, 4>) {
    let idx = ThreadIndex::linear();
    for (first, out) in &mut y.grid_stride(&idx) {
        if let Some(v) = x.get(first..).and_then(<[f32]>::first_chunk::<4>) {
            for j in 0..4 {
                out[j] = v[j] * k;
            }
        }
    }
}

fn main() {}
