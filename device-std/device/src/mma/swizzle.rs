//! XOR-swizzled shared tiles: the layout that keeps `ldmatrix` and the 16-byte copies that fill
//! a tile free of bank conflicts without padding.
//!
//! Shared memory has 32 banks of 4 bytes: a 16-byte chunk covers four, a 128-byte line all of
//! them. `ldmatrix` reads eight rows of one 8 × 8 matrix at a time, one chunk of each; in a
//! tile whose rows are 64, 128 or more bytes long, those eight chunks at one column fall on the
//! same few banks. A [`Swizzled`] tile keeps logical chunk `c` of row `r` at physical chunk
//! `c ^ x(r)` of the same row (CUTLASS's and CuTe's `Swizzle`), `x(r)` chosen so that the
//! eight rows of every matrix land on eight different 16-byte bank groups:
//! - rows of 8 or more chunks (a multiple of 8): `x(r) = r mod 8`;
//! - rows of 4 chunks (64 bytes, two rows a line): `x(r) = (r / 2) mod 4`;
//! - rows of 2 chunks (32 bytes, four rows a line): `x(r) = (r / 4) mod 2`;
//! - rows of 1 chunk: no swizzle (eight rows are already one line).
//!
//! A row's chunks stay in the row (the XOR touches the low bits of the chunk only), so a row
//! is still one contiguous run of memory and the tile the same size as the plain array. The
//! fragment loads take a swizzled tile wherever they take a plain one and compute each lane's
//! physical chunk; a pipeline fills one by the same ownership rule (slot `i` of a stage is
//! thread `i mod n`'s) and hands its closure the logical position of each slot.

use super::ldmatrix::{ReadTile, sealed, window_of};
use super::{MmaInput, Vec8};

/// A shared tile `T` (`[[Vec8<E>; C]; R]`) stored XOR-swizzled (see the module): a pipeline
/// stage's tile (`Swizzled<[[Vec8<bf16>; 4]; 128]>`), read through the fragment loads only.
#[repr(transparent)]
pub struct Swizzled<T>(T);

/// The physical chunk of logical chunk `chunk` in row `row` of a swizzled tile of `chunks`
/// chunks a row (and, the XOR being its own inverse, the logical chunk of a physical one).
#[inline]
pub const fn swizzled_chunk(row: usize, chunk: usize, chunks: usize) -> usize {
    chunk ^ swizzle_mask(row, chunks)
}

/// The rows after which every width's swizzle repeats: [`swizzle_mask`] of row `r + 8` is row
/// `r`'s.
pub(super) const SWIZZLE_PERIOD: usize = 8;

/// What row `row`'s chunks are XORed with, in a tile of `chunks` chunks a row.
#[inline]
const fn swizzle_mask(row: usize, chunks: usize) -> usize {
    match chunks {
        1 => 0,
        2 => (row / 4) % 2,
        4 => (row / 2) % 4,
        _ => row % 8,
    }
}

/// Whether a tile of `chunks` chunks a row can be swizzled: 1, 2 or 4 chunks, or a multiple
/// of 8 (the XOR must stay inside the row).
pub(super) const fn swizzle_fits(chunks: usize) -> bool {
    matches!(chunks, 1 | 2 | 4) || (chunks > 0 && chunks.is_multiple_of(8))
}

/// A swizzled tile of a ready pipeline stage (in the `.shared` window, nothing writing it
/// while the reference lives), for the fragment loads.
#[derive(Clone, Copy)]
pub struct SwizzledRef<'a, E, const C: usize, const R: usize> {
    rows: &'a [[Vec8<E>; C]; R],
    /// The first chunk's place for `ldmatrix` (`ldmatrix::shared_window`).
    window: usize,
}

impl<'a, E, const C: usize, const R: usize> SwizzledRef<'a, E, C, R> {
    /// # Safety
    /// `tile` is a swizzled tile of block-shared memory that no thread writes while the
    /// reference lives.
    #[inline]
    pub(super) unsafe fn new(tile: &'a Swizzled<[[Vec8<E>; C]; R]>) -> Self {
        const {
            assert!(
                swizzle_fits(C),
                "a swizzled tile has 1, 2, 4 or a multiple of 8 chunks a row"
            )
        };
        SwizzledRef {
            rows: &tile.0,
            window: window_of(tile.0.as_ptr().cast::<Vec8<E>>()),
        }
    }

    /// Chunk `chunk` of row `row` (logical positions), or `None` outside the tile.
    #[inline]
    pub fn chunk(&self, row: usize, chunk: usize) -> Option<&'a Vec8<E>> {
        if chunk >= C {
            return None;
        }
        self.rows.get(row)?.get(swizzled_chunk(row, chunk, C))
    }
}

impl<E, const C: usize, const R: usize> sealed::Sealed for SwizzledRef<'_, E, C, R> {}

impl<E, const C: usize, const R: usize> ReadTile<E, C, R> for SwizzledRef<'_, E, C, R>
where
    E: MmaInput + Send + Sync,
{
    #[inline]
    fn window_base(&self) -> usize {
        self.window
    }

    #[inline]
    fn physical_chunk(row: usize, chunk: usize) -> usize {
        swizzled_chunk(row, chunk, C)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each row's chunks are a permutation of the row, the swizzle is its own inverse, and
    /// `ldmatrix`'s eight rows at any chunk column (rows `8q..8q + 8`, or 8 of 16 consecutive
    /// rows as x4 reads them) fall on eight different 16-byte bank groups; so do eight
    /// consecutive chunks of one 128-byte line, as eight threads' copies write them.
    #[test]
    fn swizzle_is_a_conflict_free_permutation() {
        for chunks in [1usize, 2, 4, 8, 16, 32] {
            for row in 0..64 {
                let mut seen = vec![false; chunks];
                for c in 0..chunks {
                    let p = swizzled_chunk(row, c, chunks);
                    assert!(p < chunks && !seen[p], "{chunks} chunks, row {row}");
                    seen[p] = true;
                    assert_eq!(swizzled_chunk(row, p, chunks), c);
                }
            }
            let group = |row: usize, c: usize| (row * chunks + swizzled_chunk(row, c, chunks)) % 8;
            for first in (0..64).step_by(8) {
                for c in 0..chunks {
                    let mut banks: Vec<usize> = (first..first + 8).map(|r| group(r, c)).collect();
                    banks.sort();
                    banks.dedup();
                    assert_eq!(banks.len(), 8, "{chunks} chunks, rows {first}.., chunk {c}");
                }
            }
        }
        assert!(swizzle_fits(4) && swizzle_fits(24) && !swizzle_fits(3) && !swizzle_fits(12));
    }
}
