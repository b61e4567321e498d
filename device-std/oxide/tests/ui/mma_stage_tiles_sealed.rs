// `StageTiles` is sealed: the pipeline's copies and its shared layout trust a stage's chunk
// positions, slots and extents, so a stage of one's own (here one whose chunk would lie past
// its tile, or whose threads' copies would stride out of it) must not be one (found by review:
// a fill read past a matrix's end through it).
use oxide::mma::{StageTiles, Vec8};
use oxide::prelude::*;

pub struct Evil([Vec8<bf16>; 8]);

impl StageTiles for Evil {
    type Elem = bf16;
    type Tiles<'a> = ();
    const CHUNKS: usize = 8;
    const TILES: usize = 1;
    fn extent(_: usize) -> (usize, usize) {
        (1, 1)
    }
    fn position(i: usize) -> (usize, usize, usize) {
        (0, i, 0)
    }
    fn slot(i: usize) -> usize {
        i
    }
    // A stride that walks a thread's copies out of the tile, too.
    fn strided(_: usize, n: usize) -> (usize, Option<usize>) {
        (0, Some(n))
    }
    unsafe fn tiles<'a>(_: *const Self) -> Self::Tiles<'a> {}
}

fn main() {}
