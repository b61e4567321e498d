//! An `MmaTiles` output's warp regions are whole 16 x 8 accumulator tiles and divide the
//! block's tile: a region of 20 rows (not a multiple of 16) is an error where the kernel is
//! compiled (a constant assertion of the output type, evaluated for this kernel's parameters).

use oxide::MmaTiles;
use oxide::prelude::*;

#[kernel(block = "64")]
pub fn ragged(mut out: MmaTiles<f32, 40, 16, 20, 16>) {
    let _ = out.warp_region();
}

fn main() {}
