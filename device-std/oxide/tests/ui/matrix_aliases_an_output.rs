// A `Matrix` borrows its buffer shared for the launch, as a `&[T]` does: the same buffer cannot
// also be a launch's output (borrowed mutably), so no thread reads an element another writes.
use oxide::host::MatrixShape;
use oxide::prelude::*;

#[kernel]
pub fn shift(m: Matrix<f32>, mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = m.get(i / 4, i % 4 + 1).copied().unwrap_or(0.0);
    }
}

fn main() {
    let mut v = vec![0.0f32; 16];
    let cfg = LaunchConfig::for_num_elems(16, 16).unwrap();
    shift::emulate(&cfg, MatrixShape::new(&v[..], 4, 4).unwrap(), &mut v).unwrap();
}
