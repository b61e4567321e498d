// Arguments that would let threads race or carry host addresses are refused.
use oxide::prelude::*;

#[kernel]
pub fn mut_slice(out: &mut [f32]) {
    out[0] = 1.0;
}

#[kernel]
pub fn reference(x: &f32, callback: fn(), pair: (u32, &u8)) {
    let _ = (x, callback, pair);
}

fn main() {}
