//@ build-warn
//@ ptx: __local_depot
//@ ptx: call.uni
//! A recursive helper with a 64 KiB local array: ptxas sizes the stack for one call of it, and
//! a second level ran past the thread's stack on the H200 (CUDA_ERROR_ILLEGAL_ADDRESS). The
//! backend warns at the recursive call, with the cycle and the bytes each level takes.

use oxide::prelude::*;

fn scan(depth: u32, seed: u32) -> u32 {
    let mut table = [[0u32; 128]; 128];
    for k in 0..16384 {
        table[k / 128][k % 128] = seed.wrapping_mul(k as u32 + 1) ^ depth;
    }
    let j = seed as usize % 16384;
    if depth == 0 {
        return table[j / 128][j % 128];
    }
    // The table is read after the call: each level keeps its own.
    let below = scan(depth - 1, table[j % 128][j / 128]);
    table[below as usize % 128][j % 128] ^ below
}

#[kernel]
pub fn deep_scan(input: &[u32], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let x = input[idx.get()];
    if let Some(o) = out.get_mut(idx) {
        *o = scan(x % 4, x);
    }
}

fn main() {}
