use oxide::prelude::*;

// Type parameters only: the PTX entry of an instance is named after its type arguments.
#[kernel]
pub fn constant<const N: usize>(mut out: DisjointSlice<u32>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = N as u32;
    }
}

#[kernel]
pub fn lifetime<'a, T: Copy>(x: &'a [T]) {
    let _ = x;
}

#[kernel]
pub fn impl_trait(x: impl Copy) {
    let _ = x;
}

fn main() {}
