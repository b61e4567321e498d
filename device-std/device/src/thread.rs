//! Where a thread is in the grid.
//!
//! The twelve index/dimension functions and [`sync_threads`] are the device intrinsics of
//! docs/contracts.md: their `#[oxide_gpu::…]` attribute tells the backend to replace each call with PTX special
//! registers / `bar.sync`. Their bodies here are the host implementation (see
//! [`crate::host_context`]). They are `#[inline(never)]` so that no MIR inlining hides the call
//! from the backend, and not generic so that each has exactly one definition.

use crate::host_context::{self, Barrier};

macro_rules! intrinsics {
    ($($(#[$doc:meta])* $name:ident => $field:ident[$axis:literal] => $register:literal;)*) => {$(
        $(#[$doc])*
        #[oxide_gpu::special_register($register)]
        #[inline(never)]
        pub fn $name() -> u32 {
            host_context::current().$field[$axis]
        }
    )*};
}

intrinsics! {
    /// `threadIdx.x`: this thread's x position in its block.
    thread_idx_x => thread_idx[0] => "tid.x";
    /// `threadIdx.y`: this thread's y position in its block.
    thread_idx_y => thread_idx[1] => "tid.y";
    /// `threadIdx.z`: this thread's z position in its block.
    thread_idx_z => thread_idx[2] => "tid.z";
    /// `blockIdx.x`: this block's x position in the grid.
    block_idx_x => block_idx[0] => "ctaid.x";
    /// `blockIdx.y`: this block's y position in the grid.
    block_idx_y => block_idx[1] => "ctaid.y";
    /// `blockIdx.z`: this block's z position in the grid.
    block_idx_z => block_idx[2] => "ctaid.z";
    /// `blockDim.x`: threads per block along x.
    block_dim_x => block_dim[0] => "ntid.x";
    /// `blockDim.y`: threads per block along y.
    block_dim_y => block_dim[1] => "ntid.y";
    /// `blockDim.z`: threads per block along z.
    block_dim_z => block_dim[2] => "ntid.z";
    /// `gridDim.x`: blocks per grid along x.
    grid_dim_x => grid_dim[0] => "nctaid.x";
    /// `gridDim.y`: blocks per grid along y.
    grid_dim_y => grid_dim[1] => "nctaid.y";
    /// `gridDim.z`: blocks per grid along z.
    grid_dim_z => grid_dim[2] => "nctaid.z";
}

/// Waits until every thread of the block has reached this point (`__syncthreads`); memory
/// written before it by any thread of the block is then visible to all of them.
///
/// Every thread of the block must reach every `sync_threads()` (a thread that returns early
/// while others wait is undefined behaviour on the GPU). On the host, under the CPU emulator
/// (`oxide::emulate::run`), this is a real barrier over the block's OS threads, which reports
/// such a divergence instead of hanging; in a plain host call (one simulated thread) it does
/// nothing.
#[oxide_gpu::barrier]
#[track_caller]
#[inline(never)]
pub fn sync_threads() {
    host_context::sync_threads(Barrier::Plain);
}

/// The block barrier that ends a write phase of the block's slots at `region` (its copy of a
/// shared array, its dynamic shared memory, its window of an output, the block collectives'
/// scratch): `bar.sync 0` on the GPU, as [`sync_threads`] (the backend reads the barrier mark
/// and drops the argument). Under the CPU emulator the block's threads pass it only if every
/// one of them ends the same phase of the same slots (docs/safety.md, "The emulator pairs
/// barriers by what they synchronise"): the phase a thread is in changes only here and at
/// [`end_read_phase`], so the threads of a block stay in one phase of every array.
#[oxide_gpu::barrier]
#[track_caller]
#[inline(never)]
pub(crate) fn end_write_phase(region: *mut u8) {
    host_context::sync_threads(Barrier::EndOfWrite {
        region: region.addr(),
    });
}

/// The block barrier that ends a read phase of the block's slots at `region`; as
/// [`end_write_phase`].
#[oxide_gpu::barrier]
#[track_caller]
#[inline(never)]
pub(crate) fn end_read_phase(region: *mut u8) {
    host_context::sync_threads(Barrier::EndOfRead {
        region: region.addr(),
    });
}

/// The block barrier that ends the current phase of the block's slots at `region` and starts a
/// computed-slot step of them with the slot map `map` (stride, start, length, writers): as
/// [`end_write_phase`]. Under the CPU emulator the block's threads pass it only if every one of
/// them gives the same map (on the GPU the backend proved that: [`require_block_uniform`]).
#[oxide_gpu::barrier]
#[track_caller]
#[inline(never)]
pub(crate) fn begin_step(region: *mut u8, map: [usize; 4]) {
    host_context::sync_threads(Barrier::BeginStep {
        region: region.addr(),
        map,
    });
}

/// Emits nothing; the backend's uniformity analysis rejects the kernel unless the four values
/// are the same in every thread of the block (a computed-slot step's map, which is a partition
/// of the slots only if every thread uses the same one).
#[oxide_gpu::uniform_operands]
#[inline(never)]
pub(crate) fn require_block_uniform(stride: usize, start: usize, len: usize, writers: usize) {
    let _ = (stride, start, len, writers);
}

/// The calling thread's linear number in its block (x fastest) and the block's thread count.
#[inline]
pub(crate) fn in_block() -> (u32, u32) {
    let (bx, by, bz) = (block_dim_x(), block_dim_y(), block_dim_z());
    let t = (thread_idx_z() * by + thread_idx_y()) * bx + thread_idx_x();
    (t, bx * by * bz)
}

/// The calling block's linear number in the grid (x fastest).
#[inline]
pub(crate) fn block_in_grid() -> usize {
    (block_idx_z() as usize * grid_dim_y() as usize + block_idx_y() as usize)
        * grid_dim_x() as usize
        + block_idx_x() as usize
}

/// The number of threads in the launch's grid: blocks times threads per block (the stride of
/// a grid-stride loop).
#[inline]
pub fn threads_in_grid() -> usize {
    let blocks = grid_dim_x() as usize * grid_dim_y() as usize * grid_dim_z() as usize;
    let per_block = block_dim_x() as usize * block_dim_y() as usize * block_dim_z() as usize;
    blocks * per_block
}

/// Global x index of a 1-D launch: `block_idx_x * block_dim_x + thread_idx_x`.
///
/// For reading; to write a [`crate::DisjointSlice`] use [`ThreadIndex::linear`].
#[inline]
pub fn index_1d() -> usize {
    block_idx_x() as usize * block_dim_x() as usize + thread_idx_x() as usize
}

/// Global `(x, y)` index of a 2-D launch: x is the column, y the row.
#[inline]
pub fn index_2d() -> (usize, usize) {
    let x = block_idx_x() as usize * block_dim_x() as usize + thread_idx_x() as usize;
    let y = block_idx_y() as usize * block_dim_y() as usize + thread_idx_y() as usize;
    (x, y)
}

/// This thread's linear index over the whole grid: a value no other thread of the launch has.
///
/// It cannot be built by hand (private field), copied, cloned or changed by arithmetic, so
/// holding one proves "this index is mine"; that is what makes
/// [`crate::DisjointSlice::get_mut`] race-free.
///
/// It is neither `Send` nor `Sync`, so it cannot reach another thread either (a host thread of
/// the CPU emulator, see [`crate::host_context`]).
#[derive(Debug)]
pub struct ThreadIndex(usize);

impl !Send for ThreadIndex {}
impl !Sync for ThreadIndex {}

impl ThreadIndex {
    /// The calling thread's index, row-major over blocks then over threads in a block:
    ///
    /// `((block_idx_z * grid_dim_y + block_idx_y) * grid_dim_x + block_idx_x)
    ///  * (block_dim_x * block_dim_y * block_dim_z)
    ///  + (thread_idx_z * block_dim_y + thread_idx_y) * block_dim_x + thread_idx_x`
    ///
    /// The launcher rejects grids whose thread count does not fit in `usize`, so this never
    /// overflows on the GPU.
    #[inline]
    #[must_use]
    pub fn linear() -> ThreadIndex {
        let block = (block_idx_z() as usize * grid_dim_y() as usize + block_idx_y() as usize)
            * grid_dim_x() as usize
            + block_idx_x() as usize;
        let threads_per_block =
            block_dim_x() as usize * block_dim_y() as usize * block_dim_z() as usize;
        let thread = (thread_idx_z() as usize * block_dim_y() as usize + thread_idx_y() as usize)
            * block_dim_x() as usize
            + thread_idx_x() as usize;
        ThreadIndex(block * threads_per_block + thread)
    }

    /// The index's value, for reading inputs at the same position.
    #[inline]
    pub fn get(&self) -> usize {
        index_is_callers(self.0);
        self.0
    }
}

/// A hook of the CPU emulator: the `ThreadIndex` whose value is `index` is used by the thread it
/// belongs to. Only a `thread_local!` can carry one to another GPU thread, on the emulator,
/// whose OS threads run the GPU threads of one block after another's: the backend refuses
/// thread-locals on the GPU, and without this check the emulator would let a later block's
/// thread write an earlier thread's element. Every output shape reads the index through
/// [`ThreadIndex::get`], so this one check covers them all. No instruction on the GPU.
#[oxide_gpu::emulator_check]
#[track_caller]
#[inline(never)]
fn index_is_callers(index: usize) {
    let own = ThreadIndex::linear().0;
    assert!(
        index == own,
        "the ThreadIndex of GPU thread {index} is used by GPU thread {own}: a ThreadIndex \
         belongs to the thread that made it (was it kept in a `thread_local!`? the GPU has no \
         thread-locals)"
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host_context::{ThreadContext, with_thread_context};

    fn ctx(
        thread: [u32; 3],
        block: [u32; 3],
        block_dim: [u32; 3],
        grid: [u32; 3],
    ) -> ThreadContext {
        ThreadContext {
            thread_idx: thread,
            block_idx: block,
            block_dim,
            grid_dim: grid,
        }
    }

    /// Runs `f` as every thread of a grid and collects what it returns, in launch order.
    fn each_thread<R>(block_dim: [u32; 3], grid: [u32; 3], f: impl Fn() -> R) -> Vec<R> {
        let mut out = Vec::new();
        for bz in 0..grid[2] {
            for by in 0..grid[1] {
                for bx in 0..grid[0] {
                    for tz in 0..block_dim[2] {
                        for ty in 0..block_dim[1] {
                            for tx in 0..block_dim[0] {
                                let c = ctx([tx, ty, tz], [bx, by, bz], block_dim, grid);
                                with_thread_context(c, || out.push(f()));
                            }
                        }
                    }
                }
            }
        }
        out
    }

    #[test]
    fn host_default_is_thread_zero_of_one() {
        assert_eq!(ThreadIndex::linear().get(), 0);
        assert_eq!(index_1d(), 0);
        assert_eq!(index_2d(), (0, 0));
        assert_eq!((block_dim_x(), block_dim_y(), block_dim_z()), (1, 1, 1));
        assert_eq!((grid_dim_x(), grid_dim_y(), grid_dim_z()), (1, 1, 1));
        sync_threads();
    }

    #[test]
    fn linear_formula() {
        let c = ctx([3, 2, 1], [4, 5, 6], [8, 4, 2], [7, 9, 11]);
        with_thread_context(c, || {
            let block = (6 * 9 + 5) * 7 + 4;
            let thread = (4 + 2) * 8 + 3;
            assert_eq!(ThreadIndex::linear().get(), block * (8 * 4 * 2) + thread);
        });
        // The previous context is back.
        assert_eq!(ThreadIndex::linear().get(), 0);
    }

    #[test]
    fn linear_is_a_bijection_onto_the_grid() {
        let (block_dim, grid) = ([4, 3, 2], [3, 2, 2]);
        let got = each_thread(block_dim, grid, || ThreadIndex::linear().get());
        // Launch order (blocks row-major, then threads row-major) is exactly 0, 1, 2, ...
        assert_eq!(got, (0..got.len()).collect::<Vec<_>>());
        assert_eq!(got.len(), 4 * 3 * 2 * 3 * 2 * 2);
    }

    #[test]
    fn index_1d_and_2d() {
        let c = ctx([5, 6, 0], [2, 3, 0], [32, 8, 1], [4, 4, 1]);
        with_thread_context(c, || {
            assert_eq!(index_1d(), 2 * 32 + 5);
            assert_eq!(index_2d(), (2 * 32 + 5, 3 * 8 + 6));
        });
        // For a 1-D grid the linear index and index_1d agree.
        let got = each_thread([64, 1, 1], [5, 1, 1], || {
            (ThreadIndex::linear().get(), index_1d())
        });
        assert!(got.iter().all(|(l, i)| l == i));
    }

    #[test]
    fn context_restored_after_panic() {
        let c = ctx([1, 0, 0], [0; 3], [2, 1, 1], [1; 3]);
        let caught = std::panic::catch_unwind(|| with_thread_context(c, || panic!("boom")));
        assert!(caught.is_err());
        assert_eq!(thread_idx_x(), 0);
    }
}
