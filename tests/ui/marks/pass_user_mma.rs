//@ build-pass
//@ ptx: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
//! Inline PTX with several outputs, from a kernel crate: one warp-level `mma.sync` (bf16 inputs,
//! f32 accumulators) whose four accumulator registers come back as a `[f32; 4]`. This is the
//! lowering the tensor-core fragments will use (issue 21); here the caller keeps `mma.sync`'s
//! rules (every lane of the warp, fragments in PTX's layout) in an `unsafe` block. ptxas turns
//! it into `HMMA.16816.F32.BF16`.
#![feature(register_tool)]
#![register_tool(oxide_gpu)]

use oxide::prelude::*;

/// `D = A·B + C` for one m16n8k16 tile: A in four registers of two bf16 each, B in two, C and D
/// in four f32 each (PTX ISA, "Matrix Fragments for mma.m16n8k16").
///
/// # Safety
/// Every lane of a full warp calls it together with its fragments; the body, which the CPU
/// runs, is not the warp's MMA (the emulator has no tensor cores yet).
#[oxide_gpu::ptx(
    template = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};",
    constraints = "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f"
)]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
unsafe fn mma_bf16(
    a0: u32,
    a1: u32,
    a2: u32,
    a3: u32,
    b0: u32,
    b1: u32,
    c0: f32,
    c1: f32,
    c2: f32,
    c3: f32,
) -> [f32; 4] {
    let _ = (a0, a1, a2, a3, b0, b1);
    [c0, c1, c2, c3]
}

#[kernel(block = "32")]
pub fn one_mma(a: &[u32], b: &[u32], mut out: DisjointSlice<[f32; 4]>) {
    let idx = ThreadIndex::linear();
    let lane = oxide::warp::lane_id() as usize;
    let at = |s: &[u32], i: usize| s.get(i).copied().unwrap_or(0);
    // SAFETY: the block is one full warp (`block = "32"`), and every lane calls it once.
    let d = unsafe {
        mma_bf16(
            at(a, 4 * lane),
            at(a, 4 * lane + 1),
            at(a, 4 * lane + 2),
            at(a, 4 * lane + 3),
            at(b, 2 * lane),
            at(b, 2 * lane + 1),
            0.0,
            0.0,
            0.0,
            0.0,
        )
    };
    if let Some(o) = out.get_mut(idx) {
        *o = d;
    }
}

fn main() {}
