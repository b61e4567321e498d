//! Two kernels of one crate with the same name, in two modules, would be one PTX entry, and a
//! launcher finds its kernel by the entry alone: an error at the second, not a renamed entry
//! that the launcher cannot find (or, worse, the other kernel under its name).

pub mod first {
    use oxide::prelude::*;

    #[kernel]
    pub fn k(mut out: DisjointSlice<u32>) {
        if let Some(o) = out.get_mut(ThreadIndex::linear()) {
            *o = 1;
        }
    }
}

pub mod second {
    use oxide::prelude::*;

    #[kernel]
    pub fn k(mut out: DisjointSlice<u32>) {
        if let Some(o) = out.get_mut(ThreadIndex::linear()) {
            *o = 2;
        }
    }
}

fn main() {}
