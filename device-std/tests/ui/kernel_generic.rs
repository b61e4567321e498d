use oxide::prelude::*;

#[kernel]
pub fn generic<T: Copy>(x: T, mut out: DisjointSlice<T>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = x;
    }
}

#[kernel]
pub fn impl_trait(x: impl Copy) {
    let _ = x;
}

fn main() {}
