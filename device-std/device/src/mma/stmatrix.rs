//! Accumulators to block-shared memory: `stmatrix` (sm_90), into a warp's own region.
//!
//! An epilogue rounds a warp's accumulators to 16 bits and writes them out; through shared
//! memory it can then store whole rows to global memory (16 bytes a lane) instead of the
//! accumulator layout's scattered 4-byte pairs. `stmatrix.x4` writes a 16 × 16 tile (two
//! [`FragC`]s side by side) in one warp-collective instruction, each lane naming one row of 8
//! elements (one [`Vec8`] chunk) of one of its four 8 × 8 matrices.
//!
//! The destination is a warp's region of [`WarpRegions`](crate::shared::WarpRegions) of
//! `Vec8<E>` chunks, seen as rows of `C` chunks, in a phase of its own ([`WarpStores`]):
//! - it begins with `__syncwarp`, so what the lanes wrote in the write phase before is ordered
//!   before the instruction's writes, and no lane holds a slot's `&mut` (the phase took the
//!   write phase by value);
//! - in it only whole-warp `stmatrix` writes, at a position every lane names alike (checked:
//!   a panic where they differ), whose 32 rows are distinct chunks of the region (checked
//!   inside it), so no two lanes' rows meet; each store begins with `__syncwarp` too, so a
//!   store over an earlier one's rows is ordered after it;
//! - it ends with `__syncwarp` into a read phase, where every lane reads every chunk.
//!
//! Padding the rows (`C` odd) keeps the eight rows of a matrix in distinct banks.

use super::{FragC, MmaInput, Vec8, host, pack_rounded, require_whole_warps};
use crate::shared::{WarpRead, WarpWrite};
use crate::warp;

/// A phase of a warp's region in which only `stmatrix` writes: from
/// [`WarpWrite::collective_stores`], ended by [`sync`](Self::sync). The region is `N` chunks.
#[must_use = "a phase of collective stores ends with `sync`"]
pub struct WarpStores<'k, E: MmaInput + Send + Sync, const N: usize> {
    write: WarpWrite<'k, Vec8<E>, N>,
}

impl<'k, E: MmaInput + Send + Sync, const N: usize> WarpWrite<'k, Vec8<E>, N> {
    /// Ends this write phase (`__syncwarp`) and begins one in which the warp writes the region
    /// only through warp-collective stores ([`WarpStores::store_accumulators`]). Every lane of
    /// the warp calls it (a warp collective).
    #[track_caller]
    #[inline]
    pub fn collective_stores(self) -> WarpStores<'k, E, N> {
        WarpStores {
            write: self.next_phase(),
        }
    }
}

impl<'k, E: MmaInput + Send + Sync, const N: usize> WarpStores<'k, E, N> {
    /// Writes `left` and `right` (a 16 × 16 tile: `left` its columns 0..8, `right` 8..16),
    /// each value rounded to `E` (`cvt.rn`), at rows `row..row + 16` and chunks
    /// `chunk..chunk + 2` of the region seen as rows of `C` chunks (`stmatrix.x4`): chunk
    /// `(r, c)` is slot `r · C + c`. A warp collective: every lane calls it, naming the same
    /// `row` and `chunk`, with its own accumulators.
    ///
    /// # Panics
    /// Where the lanes name different positions, where the tile reaches past `C` chunks a row
    /// or past the region's `N` chunks, or in a block that is not whole warps: before anything
    /// is written, in every lane.
    #[track_caller]
    #[inline]
    pub fn store_accumulators<const C: usize>(
        &mut self,
        row: usize,
        chunk: usize,
        left: &FragC,
        right: &FragC,
    ) {
        crate::warp::collective::warp_collective();
        require_whole_warps();
        let origin = tile_origin::<C, N>(row, chunk);
        // Lane 0's position, and whether every lane named it: the test is the same in every
        // lane, so the panic is too.
        let named = warp::broadcast(origin as u64, 0);
        let agreed = warp::all(origin as u64 == named);
        let named = named as usize;
        assert!(
            agreed && named != OUTSIDE,
            "a collective store names different positions in the warp's lanes, or reaches outside \
             the warp's region"
        );
        // The lane's row: `(row + lane % 16, chunk + lane / 16)`, inside the region (checked
        // above for the whole 16 × 2 tile).
        let lane = warp::lane_id() as usize;
        let slot = named + (lane % 16) * C + lane / 16;
        let window = super::ldmatrix::window_of(self.write.first_slot().cast_const());
        let address = window + core::mem::size_of::<Vec8<E>>() * slot;
        // Orders this store after the phase's earlier ones, whose rows it may overwrite.
        warp::sync();
        let ([l0, l1, l2, l3], [r0, r1, r2, r3]) = (left.values, right.values);
        stmatrix_x4(
            address,
            pack_rounded::<E>(l0, l1),
            pack_rounded::<E>(l2, l3),
            pack_rounded::<E>(r0, r1),
            pack_rounded::<E>(r2, r3),
        );
    }

    /// Ends the phase with `__syncwarp`: every lane then reads what the warp stored.
    #[track_caller]
    #[inline]
    pub fn sync(self) -> WarpRead<'k, Vec8<E>, N> {
        self.write.sync()
    }
}

/// What [`tile_origin`] gives for a tile that does not fit.
const OUTSIDE: usize = usize::MAX;

/// The slot of chunk `(row, chunk)` of a region of `N` chunks in rows of `C`, when the 16 rows
/// and 2 chunks from there are all inside; [`OUTSIDE`] otherwise.
#[inline]
fn tile_origin<const C: usize, const N: usize>(row: usize, chunk: usize) -> usize {
    let fits = chunk < C.saturating_sub(1)
        && row
            .checked_add(16)
            .and_then(|end| end.checked_mul(C))
            .is_some_and(|end| end <= N);
    if fits { row * C + chunk } else { OUTSIDE }
}

/// `stmatrix.x4`: lane `8m + i` names row `i` of matrix `m`, and register `m` of lane
/// `4i + j` holds that row's elements `2j` and `2j + 1`. The body is the CPU's.
#[oxide_gpu::ptx(
    template = "{ .reg .u32 %oxs; cvt.u32.u64 %oxs, $0; stmatrix.sync.aligned.m8n8.x4.shared.b16 [%oxs], {$1, $2, $3, $4}; }",
    constraints = "l,r,r,r,r,~{memory}"
)]
#[inline(never)]
fn stmatrix_x4(row: usize, r0: u32, r1: u32, r2: u32, r3: u32) {
    let rows = host::exchange(row as u64);
    let low = host::exchange(u64::from(r0) | u64::from(r1) << 32);
    let high = host::exchange(u64::from(r2) | u64::from(r3) << 32);
    let lane = warp::lane_id();
    let (m, i) = (lane / 8, lane % 8);
    let register = |source: u32| {
        let pair = if m < 2 { &low } else { &high };
        let v = pair.get(source).unwrap_or(0);
        (v >> (32 * (m % 2))) as u32
    };
    let at = core::ptr::with_exposed_provenance_mut::<u32>(rows.get(lane).unwrap_or(0) as usize);
    for j in 0..4 {
        // SAFETY: the lane's row is a chunk of the warp's region in a phase of collective
        // stores (checked inside it, distinct from every other lane's), 16 bytes, which no
        // lane reads or writes otherwise until the `__syncwarp` that ends the phase.
        unsafe { at.add(j as usize).write(register(4 * i + j)) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tile fits where its 16 rows and 2 chunks do, and nowhere else, overflow included.
    #[test]
    fn a_tile_fits_inside_the_region_only() {
        assert_eq!(tile_origin::<3, 48>(0, 0), 0);
        assert_eq!(tile_origin::<3, 48>(0, 1), 1);
        assert_eq!(tile_origin::<3, 48>(0, 2), OUTSIDE);
        assert_eq!(tile_origin::<3, 48>(1, 0), OUTSIDE);
        assert_eq!(tile_origin::<3, 51>(1, 1), 4);
        assert_eq!(tile_origin::<1, 64>(0, 0), OUTSIDE);
        assert_eq!(tile_origin::<3, 48>(usize::MAX - 3, 0), OUTSIDE);
        assert_eq!(tile_origin::<3, 48>(0, usize::MAX), OUTSIDE);
    }
}
