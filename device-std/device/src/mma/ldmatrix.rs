//! Fragments from block-shared memory: `ldmatrix`, from a tile of [`Vec8`] rows in its read
//! phase.
//!
//! A shared tile for the tensor cores is `Shared<[[Vec8<E>; C]; R]>`: `R` rows of `C` chunks,
//! each chunk 8 elements (16 bytes, 16-byte aligned: a row of one of `ldmatrix`'s 8 × 8
//! matrices, and one vector store when a thread fills it). A write phase gives each thread its
//! chunks by the usual residue rule; after the barrier, the read phase ([`SharedRead`]) is where
//! a warp loads fragments: every lane names one chunk row and the instruction hands each lane
//! its elements of the matrices. Nothing writes the tile while a `SharedRead` of it lives, so
//! the loads race with nothing; every position is checked inside the tile (a panic, not a read
//! outside it).
//!
//! A tile whose rows are a multiple of 128 bytes apart puts the eight rows of each 8 × 8 matrix
//! in the same four banks (an eight-way conflict); pad each row by one chunk (`C + 1`) so that
//! consecutive rows start 16 bytes further along the banks.

use super::{FragA, FragB, MmaInput, host, require_whole_warps};
use crate::shared::SharedRead;
use core::marker::PhantomData;

pub(super) mod sealed {
    pub trait Sealed {}
}

/// A shared tile of `R` rows of `C` chunks in a phase where nothing writes it: a
/// [`SharedRead`] of one (`&tile`), or a ready stage of a [`Pipeline`](super::Pipeline). What
/// the fragment loads read.
pub trait ReadTile<E, const C: usize, const R: usize>: sealed::Sealed {
    /// The tile's first chunk as [`shared_window`] gives it: an offset in the `.shared` window
    /// on the GPU, the address on the CPU.
    #[doc(hidden)]
    fn window_base(&self) -> usize;
    /// Where in its row chunk `chunk` of row `row` lies (both inside the tile): the chunk
    /// itself, or its swizzled place.
    #[doc(hidden)]
    #[inline]
    fn physical_chunk(row: usize, chunk: usize) -> usize {
        let _ = row;
        chunk
    }
}

/// Where the chunk at `chunk` (in block-shared memory) is for `ldmatrix`: its offset in the
/// `.shared` window on the GPU, its address on the CPU (its provenance exposed for the CPU's
/// `ldmatrix`). A tile's is computed once (a pipeline stage's when the stage is handed out),
/// so that each load's address is that offset plus a constant, which ptxas folds into the
/// instruction. The backend makes the call a cast LLVM sees (`#[oxide_gpu::shared_window]`),
/// so it folds with the cast that made the shared tile's address generic; as inline PTX
/// (`cvta.to.shared`) it did not, and ptxas rebuilt the generic address every step.
#[oxide_gpu::shared_window]
#[inline(never)]
pub(super) fn shared_window(chunk: *const u8) -> usize {
    chunk.expose_provenance()
}

/// [`shared_window`] of a tile's first chunk.
#[inline]
pub(super) fn window_of<E>(first: *const Vec8<E>) -> usize {
    shared_window(first.cast())
}

impl<E, const C: usize, const R: usize> sealed::Sealed for &SharedRead<'_, [[Vec8<E>; C]; R]> where
    E: MmaInput + Send + Sync
{
}

impl<E, const C: usize, const R: usize> ReadTile<E, C, R> for &SharedRead<'_, [[Vec8<E>; C]; R]>
where
    E: MmaInput + Send + Sync,
{
    #[inline]
    fn window_base(&self) -> usize {
        let rows: &[[Vec8<E>; C]; R] = self;
        window_of(rows.as_ptr().cast::<Vec8<E>>())
    }
}

/// A tile of a ready pipeline stage (in the `.shared` window, nothing writing it until the
/// pipeline's next wait, which the borrow of the stage outlives not).
#[derive(Clone, Copy)]
pub struct TileRef<'a, E, const C: usize, const R: usize> {
    rows: &'a [[Vec8<E>; C]; R],
    /// [`shared_window`] of the first chunk.
    window: usize,
}

impl<'a, E, const C: usize, const R: usize> TileRef<'a, E, C, R> {
    /// # Safety
    /// `rows` is a tile of block-shared memory that no thread writes while the reference lives.
    #[inline]
    pub(super) unsafe fn new(rows: &'a [[Vec8<E>; C]; R]) -> Self {
        TileRef {
            rows,
            window: window_of(rows.as_ptr().cast::<Vec8<E>>()),
        }
    }
}

impl<E, const C: usize, const R: usize> core::ops::Deref for TileRef<'_, E, C, R> {
    type Target = [[Vec8<E>; C]; R];

    #[inline]
    fn deref(&self) -> &Self::Target {
        self.rows
    }
}

impl<E, const C: usize, const R: usize> sealed::Sealed for TileRef<'_, E, C, R> {}

impl<E, const C: usize, const R: usize> ReadTile<E, C, R> for TileRef<'_, E, C, R> {
    #[inline]
    fn window_base(&self) -> usize {
        self.window
    }
}

/// Eight elements in 16 bytes, 16-byte aligned: a chunk of a shared tile for `ldmatrix`, and
/// a row of one of its 8 × 8 matrices.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(16))]
pub struct Vec8<E>(pub [E; 8]);

/// `ldmatrix` of `N` 8 × 8 matrices of 16-bit elements, `transposed` or not, each lane giving
/// the address of one matrix row (lanes `8m..8m + 8` the rows of matrix `m`). Each body is the
/// CPU's.
macro_rules! ldmatrix {
    ($($name:ident: $n:literal, $transposed:literal, $template:literal, $constraints:literal;)*) => {$(
        #[oxide_gpu::ptx(template = $template, constraints = $constraints)]
        #[inline(never)]
        fn $name(row: usize) -> [u32; $n] {
            ldmatrix_on_the_cpu::<$n>(row, $transposed)
        }
    )*};
}

// The address is generic (a shared tile's reference); `cvta.to.shared` makes it the shared
// window's offset, which ptxas folds with the `cvta` that made it generic.
ldmatrix! {
    ldmatrix_x4: 4, false,
        "{ .reg .u32 %oxs; cvt.u32.u64 %oxs, $4; ldmatrix.sync.aligned.m8n8.x4.shared.b16 {$0, $1, $2, $3}, [%oxs]; }",
        "=r,=r,=r,=r,l,~{memory}";
    ldmatrix_x4_trans: 4, true,
        "{ .reg .u32 %oxs; cvt.u32.u64 %oxs, $4; ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {$0, $1, $2, $3}, [%oxs]; }",
        "=r,=r,=r,=r,l,~{memory}";
    ldmatrix_x2: 2, false,
        "{ .reg .u32 %oxs; cvt.u32.u64 %oxs, $2; ldmatrix.sync.aligned.m8n8.x2.shared.b16 {$0, $1}, [%oxs]; }",
        "=r,=r,l,~{memory}";
    ldmatrix_x2_trans: 2, true,
        "{ .reg .u32 %oxs; cvt.u32.u64 %oxs, $2; ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {$0, $1}, [%oxs]; }",
        "=r,=r,l,~{memory}";
}

/// What `ldmatrix` gives the calling lane, from the rows the warp's lanes name: register `m`
/// holds row `lane / 4` of matrix `m`, elements `2·(lane % 4)` and `+ 1` (transposed: column
/// `lane / 4`, rows `2·(lane % 4)` and `+ 1`).
fn ldmatrix_on_the_cpu<const N: usize>(row: usize, transposed: bool) -> [u32; N] {
    let rows = host::exchange(row as u64);
    let lane = crate::warp::lane_id();
    let (group, pair) = (lane / 4, 2 * (lane % 4));
    let element = |source_lane: u32, column: u32| -> u32 {
        let address = rows.get(source_lane).unwrap_or(0) as usize;
        let at = core::ptr::with_exposed_provenance::<u16>(address);
        // SAFETY: every lane's row is a chunk of a shared tile in its read phase (the callers
        // checked it in the tile), 8 elements of 16 bits, which nothing writes meanwhile.
        u32::from(unsafe { at.add(column as usize).read() })
    };
    core::array::from_fn(|m| {
        let m = m as u32;
        if transposed {
            element(8 * m + pair, group) | element(8 * m + pair + 1, group) << 16
        } else {
            element(8 * m + group, pair) | element(8 * m + group, pair + 1) << 16
        }
    })
}

/// The address of chunk `(row + dr, chunk + dc)` of `tile`, and whether that chunk is in the
/// tile. Outside it, the address of the tile's first chunk instead: the warp's `ldmatrix` then
/// still runs with every lane and reads only the tile, and the caller panics after it
/// ([`require_inside`]), rather than leave the instruction with lanes missing. Computed from
/// the indices (not an `Option` of a reference), so that where the compiler can bound the
/// position the check folds away.
#[inline]
fn chunk_address<E, T, const C: usize, const R: usize>(
    tile: &T,
    (row, dr): (usize, usize),
    (chunk, dc): (usize, usize),
) -> (usize, bool)
where
    E: MmaInput + Send + Sync,
    T: ReadTile<E, C, R>,
{
    const {
        assert!(
            R > 0 && C > 0,
            "a shared tile for fragment loads has rows and chunks"
        )
    };
    let r = row.checked_add(dr).filter(|&r| r < R);
    let c = chunk.checked_add(dc).filter(|&c| c < C);
    let inside = r.is_some() && c.is_some();
    let (r, c) = if inside {
        (r.unwrap_or(0), c.unwrap_or(0))
    } else {
        (0, 0)
    };
    // Inside the tile: `r · C + physical_chunk` is below `R · C`.
    let at =
        tile.window_base() + core::mem::size_of::<Vec8<E>>() * (r * C + T::physical_chunk(r, c));
    (at, inside)
}

/// Panics, after the warp's `ldmatrix`, where this lane named a chunk outside the tile.
#[track_caller]
#[inline]
fn require_inside(inside: bool) {
    assert!(inside, "a fragment load reaches outside its shared tile");
}

/// A fragment load: the warp-collective checks, each lane's row address from its position
/// `(row + dr, chunk + dc)` (`at(lane)` gives `(dr, dc)`), `ldmatrix`, then the lane's panic if its
/// position was outside the tile.
#[track_caller]
#[inline]
fn load_registers<E, const C: usize, const R: usize, const N: usize>(
    tile: impl ReadTile<E, C, R>,
    (row, chunk): (usize, usize),
    at: impl FnOnce(usize) -> (usize, usize),
    ldmatrix: impl FnOnce(usize) -> [u32; N],
) -> [u32; N]
where
    E: MmaInput + Send + Sync,
{
    crate::warp::collective::warp_collective();
    require_whole_warps();
    let (dr, dc) = at(crate::warp::lane_id() as usize);
    let (address, inside) = chunk_address(&tile, (row, dr), (chunk, dc));
    let registers = ldmatrix(address);
    require_inside(inside);
    registers
}

impl<E: MmaInput + Send + Sync> FragA<E> {
    /// The 16 × 16 A tile whose top-left element is column `8 · chunk` of row `row` of `tile`
    /// (`&shared_read` or a pipeline stage's tile; `ldmatrix.x4`): a warp collective. The tile
    /// is row-major: a row of A is a row of chunks.
    ///
    /// # Panics
    /// Where the 16 rows and 2 chunks reach outside the tile, or in a block that is not whole
    /// warps.
    #[track_caller]
    #[inline]
    pub fn load<const C: usize, const R: usize>(
        tile: impl ReadTile<E, C, R>,
        row: usize,
        chunk: usize,
    ) -> Self {
        let at = |lane: usize| (lane % 16, lane / 16);
        FragA {
            registers: load_registers(tile, (row, chunk), at, ldmatrix_x4),
            _element: PhantomData,
        }
    }
}

impl<E: MmaInput + Send + Sync> FragB<E> {
    /// The 16 × 8 B tile of rows `k..k + 16` of `tile`, columns `8 · chunk..` (`ldmatrix.x2.trans`):
    /// B stored `k`-major, each row of the tile a `k` (a row-major `K × N` matrix). A warp
    /// collective.
    ///
    /// # Panics
    /// As [`FragA::load`].
    #[track_caller]
    #[inline]
    pub fn load_k_rows<const C: usize, const R: usize>(
        tile: impl ReadTile<E, C, R>,
        k: usize,
        chunk: usize,
    ) -> Self {
        let at = |lane: usize| (lane % 16, 0);
        FragB {
            registers: load_registers(tile, (k, chunk), at, ldmatrix_x2_trans),
            _element: PhantomData,
        }
    }

    /// The 16 × 8 B tile whose `n` columns are rows `n..n + 8` of `tile`, its 16 `k` the chunks
    /// `chunk` and `chunk + 1` (`ldmatrix.x2`): B stored `n`-major (a row-major `N × K`
    /// matrix, `Bᵀ`; attention's K). A warp collective.
    ///
    /// # Panics
    /// As [`FragA::load`].
    #[track_caller]
    #[inline]
    pub fn load_n_rows<const C: usize, const R: usize>(
        tile: impl ReadTile<E, C, R>,
        n: usize,
        chunk: usize,
    ) -> Self {
        let at = |lane: usize| (lane % 8, (lane / 8) % 2);
        FragB {
            registers: load_registers(tile, (n, chunk), at, ldmatrix_x2),
            _element: PhantomData,
        }
    }

    /// Two neighbouring B tiles at once (`ldmatrix.x4`): rows `n..n + 8` and `n + 8..n + 16` of
    /// `tile`, each with the chunks `chunk` and `chunk + 1` as its 16 `k`, as
    /// [`load_n_rows`](Self::load_n_rows) at `n` and `n + 8` (attention's `K`, two key tiles in
    /// one instruction).
    ///
    /// # Panics
    /// As [`FragA::load`].
    #[track_caller]
    #[inline]
    pub fn load_n_rows_pair<const C: usize, const R: usize>(
        tile: impl ReadTile<E, C, R>,
        n: usize,
        chunk: usize,
    ) -> [Self; 2] {
        let at = |lane: usize| (lane % 8 + 8 * (lane / 16), (lane / 8) % 2);
        let [r0, r1, r2, r3] = load_registers(tile, (n, chunk), at, ldmatrix_x4);
        let fragment = |registers| FragB {
            registers,
            _element: PhantomData,
        };
        [fragment([r0, r1]), fragment([r2, r3])]
    }

    /// Two neighbouring B tiles at once (`ldmatrix.x4.trans`): rows `k..k + 16` of `tile`,
    /// columns `8 · chunk..` and `8 · (chunk + 1)..`, as [`load_k_rows`](Self::load_k_rows)
    /// twice.
    ///
    /// # Panics
    /// As [`FragA::load`].
    #[track_caller]
    #[inline]
    pub fn load_k_rows_pair<const C: usize, const R: usize>(
        tile: impl ReadTile<E, C, R>,
        k: usize,
        chunk: usize,
    ) -> [Self; 2] {
        let at = |lane: usize| (lane % 16, lane / 16);
        let [r0, r1, r2, r3] = load_registers(tile, (k, chunk), at, ldmatrix_x4_trans);
        let fragment = |registers| FragB {
            registers,
            _element: PhantomData,
        };
        [fragment([r0, r1]), fragment([r2, r3])]
    }
}
