//! A function named like a generic kernel's marker with options, beside the `#[kernel]` it
//! names: two markers of one kernel's instances, one PTX entry. The error of
//! kernel_marker_collision.rs, at the wrapper the user wrote.

use oxide::prelude::*;

#[kernel]
pub fn scale<T: Copy + Send + Sync + 'static>(k: T, mut out: DisjointSlice<T>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = k;
    }
}

#[allow(non_snake_case)]
pub fn __oxide_kernel_grid1d__scale<T: Copy + Send + Sync + 'static>(k: T, out: DisjointSlice<T>) {
    scale::<T>(k, out)
}

fn main() {
    // Both wrappers of `scale::<u32>` are instantiated, as a launch would.
    let _ = core::hint::black_box(__oxide_kernel__scale::<u32> as fn(u32, DisjointSlice<u32>));
    let _ = core::hint::black_box(
        __oxide_kernel_grid1d__scale::<u32> as fn(u32, DisjointSlice<u32>),
    );
}
