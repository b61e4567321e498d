// `#[kernel]` recognises outputs, shared arrays and atomic slices by their names, and checks
// that each is the type it took it for: an alias (or a `use ... as`) of another type under such
// a name does not compile, so the launcher and the emulator always match what the kernel gets
// (a forged `&[AtomicU64]` of references, atomics of the wrong width, a `Rows` width arriving
// as a pairs' distance, a dynamic array of wider elements than the launch sized).
use oxide::prelude::*;

mod a {
    pub type AtomicU64 = &'static u64;
}
#[kernel]
pub fn forged(x: &[a::AtomicU64], mut o: DisjointSlice<u64>) {
    let i = ThreadIndex::linear();
    let n = i.get();
    if let Some(o) = o.get_mut(i) {
        *o = *x[n];
    }
}

mod b {
    pub type DisjointRows<'a, T> = oxide::DisjointPairs<'a, T>;
}
#[kernel]
pub fn pairs(mut out: b::DisjointRows<u32>) {
    let _ = out.pair_mut(ThreadIndex::linear());
}

mod c {
    pub struct Wide<T>(pub [T; 64]);
    impl<T: Send + Sync> oxide::shared::SharedElem for Wide<T> {}
    pub type DynShared<'k, T> = oxide::shared::DynShared<'k, Wide<T>>;
}
#[kernel]
pub fn wide(tile: c::DynShared<u8>) {
    let _ = tile.init(|_| c::Wide([0; 64])).sync();
}

fn main() {}
