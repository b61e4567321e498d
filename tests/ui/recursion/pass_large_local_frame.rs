//@ build-pass
//@ ptx(big_table): __local_depot0[65536]
//@ ptx-not: call.uni
//! A 64 KiB local array without recursion: ptxas knows the frame (65536 bytes) and the driver
//! gives each thread that much stack, so nothing is reported. `gcd` recurses in Rust, but LLVM
//! makes a loop of its tail call: nothing recurses in the PTX, so nothing is reported either.

use oxide::prelude::*;

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 { a } else { gcd(b, a % b) }
}

#[kernel]
pub fn big_table(input: &[u32], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let x = input[idx.get()];
    let mut table = [[0u32; 128]; 128];
    for k in 0..16384 {
        table[k / 128][k % 128] = x.wrapping_mul(k as u32 + 1);
    }
    if let Some(o) = out.get_mut(idx) {
        let j = (x as usize).wrapping_mul(7919) % 16384;
        *o = gcd(table[j / 128][j % 128], table[j % 128][j / 128] | 1);
    }
}

fn main() {}
