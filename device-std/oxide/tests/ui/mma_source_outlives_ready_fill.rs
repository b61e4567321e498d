// The same rule through `Ready::fill`: the copy it starts lands one or more waits later, so its
// source stays borrowed for the pipeline's life, not only the `Ready`'s. A review found this
// compiling while the pipeline was covariant in its sources' lifetime (a `&'p Pipeline` let the
// compiler shrink it to the `Ready`'s), letting the kernel write a source under its `cp.async`.
use oxide::mma::{Source, Stages, Vec8};
use oxide::prelude::*;

pub fn overwritten_after_a_ready_fill(
    mut out: DisjointChunks<bf16, 8>,
    stages: Shared<Stages<[[Vec8<bf16>; 2]; 16], 2>>,
) {
    let idx = ThreadIndex::linear();
    let mut pipe = stages.pipeline();
    pipe.fill(|_| Source::zeros());
    let mut chunk = out.grid_stride(&idx).next();
    let ready = pipe.wait();
    let source: &[bf16] = chunk.as_ref().map_or(&[], |(_, c)| &c[..]);
    drop(ready.fill(|_| Source::chunk(source, 0)));
    if let Some((_, c)) = chunk.as_mut() {
        c[0] = bf16::ONE;
    }
    let _ready = pipe.wait();
}

fn main() {}
