// `#[kernel]` names two parameter types, the shared arrays the kernel makes itself (`Shared`,
// `DynShared`), and checks that each is oxide's: an alias (or a `use ... as`) of another type
// under such a name does not compile, so the kernel's entry makes what the launch sized (here,
// a dynamic array of wider elements than the launch sized). Every other parameter is read
// through its type's `oxide::KernelParam` and its host sides' keys, so an alias of an output or
// an atomic slice is simply the type it aliases.
use oxide::prelude::*;

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
