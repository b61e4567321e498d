// The raw `mma.sync` behind `oxide::mma::mma` (no warp-uniformity mark, no whole-warp check)
// cannot be called from outside the library: it is a method of a trait no one can name.
use oxide::mma::MmaInput;
use oxide::prelude::*;

pub fn half_warp() -> [f32; 4] {
    <bf16 as MmaInput>::mma_m16n8k16([0; 4], [0; 2], [0.0; 4])
}

fn main() {}
