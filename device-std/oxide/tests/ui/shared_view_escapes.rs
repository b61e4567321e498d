// A view of block-shared memory stays with its thread and its kernel call: it is neither
// `Send` nor `Sync`, it cannot be kept past the call, and a kernel with shared memory is entered
// only by its launch (calling it is `unsafe`), so a thread never holds two views of one array.
use std::cell::RefCell;

use oxide::prelude::*;
use oxide::shared::{SharedElem, SharedRead};

thread_local! {
    static KEPT: RefCell<Option<SharedRead<'static, [u32; 64]>>> = const { RefCell::new(None) };
}

#[kernel]
pub fn keep(tile: Shared<[u32; 64]>) {
    let reading = tile.fill(0).sync();
    KEPT.with(|k| *k.borrow_mut() = Some(reading));
}

#[kernel]
pub fn send(tile: Shared<[u32; 64]>) {
    let writing = tile.fill(0);
    std::thread::scope(|s| {
        s.spawn(move || drop(writing.sync()));
    });
}

#[kernel]
pub fn reenter(mut out: DisjointSlice<u32>, tile: Shared<[u32; 64]>) {
    let reading = tile.fill(3).sync();
    // A second view of `tile` while this one reads.
    reenter(out);
    let _ = reading;
}

#[kernel]
pub fn generic_tile<T: SharedElem + Copy + 'static>(v: T, tile: Shared<[T; 64]>) {
    let _ = (v, tile);
}

fn main() {}
