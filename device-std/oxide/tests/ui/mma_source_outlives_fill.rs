// A copy's source stays borrowed until the pipeline is dropped (which waits for the copies):
// a slice the kernel writes after a fill (here an output chunk) cannot be a source, since the
// `cp.async` may still be reading it.
use oxide::mma::{Source, Stages, Vec8};
use oxide::prelude::*;

pub fn overwritten(
    mut out: DisjointChunks<bf16, 8>,
    stages: Shared<Stages<[[Vec8<bf16>; 2]; 16], 2>>,
) {
    let idx = ThreadIndex::linear();
    let mut pipe = stages.pipeline();
    if let Some((_, chunk)) = out.grid_stride(&idx).next() {
        let source: &[bf16] = &chunk[..];
        pipe.fill(|_| Source::chunk(source, 0));
        chunk[0] = bf16::ONE;
    }
    let _ready = pipe.wait();
}

fn main() {}
