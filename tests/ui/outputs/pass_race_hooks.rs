//@ build-pass
//@ ptx: st.shared.b32
//@ ptx: ld.shared.b32
//@ ptx-not: call
//! The race detector's hooks in `SharedArray::read`/`write` and
//! `DisjointSlice::get_unchecked_mut` are the emulator's: on the GPU they are no instruction.
use oxide::prelude::*;

static TILE: SharedArray<u32, 256> = SharedArray::new();

#[kernel]
pub fn neighbours(mut out: DisjointSlice<u32>) {
    let t = thread::thread_idx_x() as usize;
    // SAFETY: each thread writes its own slot, and reads its neighbour's after the barrier;
    // blocks have at most 256 threads, and thread `i` writes element `i` of the output only.
    unsafe {
        TILE.write(t, t as u32 * 3);
        thread::sync_threads();
        let n = TILE.read((t + 1) % thread::block_dim_x() as usize);
        let i = thread::index_1d();
        if i < out.len() {
            *out.get_unchecked_mut(i) = n;
        }
    }
}

fn main() {}
