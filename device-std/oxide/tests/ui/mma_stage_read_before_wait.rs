// A stage being filled has no read access: only the `Ready` of a wait gives tiles, so a
// fragment cannot be loaded from a pipeline (or a stage) before its copies are waited for.
use oxide::mma::{FragA, Source, Stages, Vec8};
use oxide::prelude::*;

pub fn early(a: &[bf16], stages: Shared<Stages<[[Vec8<bf16>; 2]; 16], 2>>) -> FragA<bf16> {
    let mut pipe = stages.pipeline();
    pipe.fill(|(_, r, c)| Source::chunk(a, 16 * r + 8 * c));
    FragA::load(&pipe, 0, 0)
}

fn main() {}
