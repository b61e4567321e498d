//@ aux-crate: unchecked_marks.rs
//! A dependency compiled without the backend (auxiliary/unchecked_marks.rs: plain rustc, so its
//! marks were never checked where they are written) marks safe functions `ptx` and
//! `warp_uniform`, and its own type `shared_memory`. The backend believes none of them: each
//! call is an error at the kernel's line, and a `static` of the type is ordinary memory, as on
//! the host. Before, this compiled: a store into the read-only input and a full-warp shuffle on
//! even lanes. The mark the rule accepts (`nvvm` on an `unsafe fn`) is believed from another
//! crate as from this one (no error at its call).

use oxide::prelude::*;
use oxide::warp;

static TILE: unchecked_marks::Tile = unchecked_marks::Tile { value: 7 };

#[kernel]
pub fn trusts_its_dependency(input: &[u32], mut out: DisjointSlice<u32>) {
    unchecked_marks::store(input.as_ptr() as u64, 7);
    let mut total = TILE.value;
    if unchecked_marks::lane_is_even() {
        total += warp::sum(1u32);
    }
    // SAFETY: `%laneid` has no requirement.
    total += unsafe { unchecked_marks::lane() };
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = input[0] + total;
    }
}

fn main() {}
