//! A swizzled stage tile whose rows the swizzle cannot permute (3 chunks a row) is a
//! compile-time error where a pipeline uses it, not only where its stage is read: a fill by
//! tiles trusts the tile's chunk positions to stay inside its rows (found by review: the fill
//! read past a matrix's end).

use oxide::mma::{Stages, Swizzled, TileSource, Vec8};
use oxide::prelude::*;

type Bad = Swizzled<[[Vec8<bf16>; 3]; 8]>;

#[kernel(block = "32")]
pub fn fill_bad(a: Matrix<bf16>, stages: Shared<Stages<Bad, 2>>) {
    let mut pipe = stages.pipeline();
    pipe.fill_tiles(|_| TileSource::matrix(&a, 0, 0));
    let _ready = pipe.wait();
}

fn main() {}
