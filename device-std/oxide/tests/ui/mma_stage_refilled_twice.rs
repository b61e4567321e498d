// A step refills at most one stage while it reads the ready one: `Ready::fill` takes the
// `Ready`, so a second fill (which could reach a stage still being read, or the ready stage
// itself) does not compile, and neither does a fill from inside a fill's own closure.
use oxide::mma::{Source, Stages, Vec8};
use oxide::prelude::*;

pub fn twice(a: &[bf16], stages: Shared<Stages<[[Vec8<bf16>; 2]; 16], 3>>) {
    let mut pipe = stages.pipeline();
    pipe.fill(|(_, r, c)| Source::chunk(a, 16 * r + 8 * c));
    let ready = pipe.wait();
    let filled = ready.fill(|_| Source::zeros());
    let _again = ready.fill(|_| Source::zeros());
    let _ = filled.tiles();
}

pub fn nested(a: &[bf16], stages: Shared<Stages<[[Vec8<bf16>; 2]; 16], 3>>) {
    let mut pipe = stages.pipeline();
    pipe.fill(|_| Source::zeros());
    let ready = pipe.wait();
    ready.fill(|(_, r, c)| {
        pipe.fill(|_| Source::zeros());
        Source::chunk(a, 16 * r + 8 * c)
    });
}

fn main() {}
