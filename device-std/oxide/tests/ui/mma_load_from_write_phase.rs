// `ldmatrix` reads a shared tile only in its read phase: from a write phase (other threads
// may still be writing their chunks) there is no fragment load.
use oxide::mma::{FragA, Vec8};
use oxide::prelude::*;

pub fn early(tile: Shared<[[Vec8<bf16>; 2]; 16]>) -> FragA<bf16> {
    let write = tile.fill(Vec8([bf16::ZERO; 8]));
    FragA::load(&write, 0, 0)
}

fn main() {}
