// A ready stage's tiles borrow the `Ready` of its wait, which borrows the pipeline: the next
// wait (after which a fill may overwrite that stage) cannot come while they are still read.
use oxide::mma::{FragA, Source, Stages, Vec8};
use oxide::prelude::*;

pub fn stale(a: &[bf16], stages: Shared<Stages<[[Vec8<bf16>; 2]; 16], 2>>) -> FragA<bf16> {
    let mut pipe = stages.pipeline();
    pipe.fill(|(_, r, c)| Source::chunk(a, 16 * r + 8 * c));
    pipe.fill(|(_, r, c)| Source::chunk(a, 16 * r + 8 * c));
    let ready = pipe.wait();
    let tile = ready.tiles();
    let _next = pipe.wait();
    FragA::load(tile, 0, 0)
}

fn main() {}
