//! The output shapes beyond "one thread, one element": kernel parameters that a launch lends
//! for writing, each with one rule saying which thread owns which element, fixed by the
//! parameter's type (a kernel cannot switch rules between threads, which would let two rules
//! give one element to two threads):
//!
//! | parameter | owner of an element | host passes |
//! |---|---|---|
//! | [`DisjointSlice<T>`](crate::DisjointSlice) | element `e`: thread `e mod T` (`get_mut`, [`grid_stride`](crate::DisjointSlice::grid_stride)) | `&mut DeviceBuffer<T>` |
//! | [`DisjointChunks<T, C>`] | chunk `q` of `C` elements: thread `q mod T` | `&mut DeviceBuffer<T>` |
//! | [`DisjointRows<T>`] | `(row, col)`: the thread at `x = col`, `y = row` of a 2-D grid | `Rows::new(&mut buf, width)?`, a rectangle `.rect(rows, cols)?` |
//! | [`WarpRows<T>`] | row `r`: warp `r` of the grid, lane `l` the columns `l + 32k` | the same |
//! | [`WarpChunkRows<T, C>`] | row `r`: warp `r` of the grid, lane `l` the row's whole `C`-element chunks `l + 32k` (the buffer's chunks, so 16 bytes are one vector store), and the columns `l + 32k` of the rest | the same |
//! | [`DisjointPairs<T>`] | the pair `(lo, lo + d)`, `d` a power of two: thread `lo` with the bit of `d` removed | `Pairs::new(&mut buf, d)?` |
//! | [`BlockSlots<T>`] | slot `b`: block `b`'s first thread (`slot_mut`) | `&mut DeviceBuffer<T>` |
//! | [`WarpSlots<T>`] | slot `w`: lane 0 of the grid's warp `w` (`slot_mut`) | `&mut DeviceBuffer<T>` |
//! | [`BlockWindows<T, W>`] | window `b` of `W` elements: block `b`, in phases (all read; each thread its residues written; a barrier between) | `&mut DeviceBuffer<T>` |
//! | [`WaveTiles<T, R, C>`] | in the launch of wave `d`, tile `(d - b, b)`: block `b`, each thread its residues; earlier waves' tiles readable | `Wave::new(&mut buf, width, d)?` |
//! | [`MmaTiles<T, R, C, WR, WC>`] | the `R × C` tile of block `(x, y)`, its `WR × WC` region of warp `w`, and in it `(r, c)`: the lane whose `m16n8k16` accumulator holds it (`4·(r mod 8) + (c mod 8)/2`) | as `DisjointRows<T>` |
//! | [`BlockTiles<T, R, C>`] | the `R × C` tile at tile `(block y, block x)`: its block, each thread the rows and columns of its residues | as `DisjointRows<T>` |
//!
//! `T` is the grid's thread count. The 2-D shapes get their shape from the launch (the host's
//! `oxide::host::Rows`, which checks that the pitch divides the length, and that a rectangle
//! is non-empty and within the rows), so every thread of the launch sees the same. Their
//! `(row, col)` are the rectangle's, `(0, 0)` its first element (the buffer's, unless the host
//! lent a rectangle with `Rows::rect`; `origin()` says where in the buffer it is), and no
//! thread owns an element outside the rectangle.

mod chunks;
mod mma_tiles;
mod pairs;
mod rows;
mod slots;
mod stride;
mod tile_order;
mod warp_chunks;
mod wave;
mod windows;

pub use chunks::{ChunkStride, DisjointChunks};
pub use mma_tiles::{FromAccumulator, MmaTile, MmaTiles};
pub use pairs::DisjointPairs;
pub use rows::{BlockTile, BlockTiles, DisjointRows, WarpRow, WarpRows};
pub use slots::{BlockSlots, WarpSlots};
pub use stride::GridStride;
pub use tile_order::{GridOrder, Grouped, RowMajor, TileOrder, Transposed};
pub use warp_chunks::{WarpChunkRow, WarpChunkRows};
pub use wave::WaveTiles;
pub use windows::{BlockWindows, WindowWrite};

/// Runs `f` as every thread of a grid, one after another, with its thread context installed.
#[cfg(test)]
pub(crate) fn each_thread(grid: [u32; 3], block: [u32; 3], mut f: impl FnMut()) {
    use crate::host_context::{ThreadContext, with_thread_context};
    for bz in 0..grid[2] {
        for by in 0..grid[1] {
            for bx in 0..grid[0] {
                for tz in 0..block[2] {
                    for ty in 0..block[1] {
                        for tx in 0..block[0] {
                            let ctx = ThreadContext {
                                thread_idx: [tx, ty, tz],
                                block_idx: [bx, by, bz],
                                block_dim: block,
                                grid_dim: grid,
                            };
                            with_thread_context(ctx, &mut f);
                        }
                    }
                }
            }
        }
    }
}
