//! Collective stores of accumulators (`stmatrix`) on the CPU emulator: warps storing 16 × 16
//! tiles into their shared regions, read back by every lane, against the values rounded on the
//! CPU; and the panics where the lanes disagree or the tile reaches outside the region.

use oxide::mma::{FragC, Vec8};
use oxide::prelude::*;
use oxide::shared::WarpRegions;

/// Element `(r, c)` of warp `w`'s 16 × 16 tile, with bits below `bf16`'s.
fn value(w: usize, r: usize, c: usize) -> f32 {
    (w * 1000 + r * 16 + c) as f32 * 1.001 - 300.0
}

/// Each warp stores its tile at `(row, 0)` of its region (rows of 3 chunks: two and a padding
/// chunk), then a second tile over its right half shifted down by `shift` rows when `twice`;
/// each lane then reads row `lane % 16 + row`, chunk `lane / 16`, of the result.
#[kernel]
pub fn store_tiles(
    params: &[usize],
    mut out: DisjointSlice<[bf16; 8]>,
    regions: Shared<WarpRegions<Vec8<bf16>, 60, 2>>,
) {
    let (row, twice, shift) = (params[0], params[1] == 1, params[2]);
    let Some(region) = regions.warp_region() else {
        return;
    };
    let w = oxide::warp::warp_in_block() as usize;
    let left = FragC::from_fn(|r, c| value(w, r, c));
    let right = FragC::from_fn(|r, c| value(w, r, c + 8));
    let mut stores = region
        .fill(Vec8([bf16::from_f32(-1.0); 8]))
        .collective_stores();
    stores.store_accumulators::<3>(row, 0, &left, &right);
    if twice {
        let doubled = left.map(|_, v| 2.0 * v);
        stores.store_accumulators::<3>(row + shift, 1, &doubled, &doubled);
    }
    let read = stores.sync();
    let lane = oxide::warp::lane_id() as usize;
    let chunk = read[(row + lane % 16) * 3 + lane / 16];
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = chunk.0;
    }
}

fn run(params: [usize; 3]) -> Result<Vec<[bf16; 8]>, String> {
    let mut out = vec![[bf16::from_f32(f32::NAN); 8]; 64];
    let cfg = LaunchConfig {
        grid: (1, 1, 1),
        block: (64, 1, 1),
        shared_mem_bytes: 0,
    };
    store_tiles::emulate(&cfg, &params, &mut out)
        .map(|()| out)
        .map_err(|e| e.to_string())
}

#[test]
fn a_stored_tile_reads_back_rounded_in_place() {
    for row in [0, 4] {
        let out = run([row, 0, 0]).unwrap();
        for (t, chunk) in out.iter().enumerate() {
            let (w, lane) = (t / 32, t % 32);
            let (r, c0) = (lane % 16, 8 * (lane / 16));
            let expected: [bf16; 8] = core::array::from_fn(|e| bf16::from_f32(value(w, r, c0 + e)));
            assert_eq!(
                chunk.map(bf16::to_bits),
                expected.map(bf16::to_bits),
                "warp {w}, row {r}, columns {c0}.."
            );
        }
    }
}

/// A second store over part of the first: its rows win (the stores are ordered).
#[test]
fn a_later_store_overwrites_an_earlier_one() {
    let out = run([0, 1, 2]).unwrap();
    for (t, chunk) in out.iter().enumerate() {
        let (w, lane) = (t / 32, t % 32);
        let (r, c) = (lane % 16, lane / 16);
        let expected: [bf16; 8] = core::array::from_fn(|e| {
            if c == 1 && r >= 2 {
                // The second tile's left half (`doubled`'s columns 0..8) at chunk 1, 2 rows down.
                bf16::from_f32(2.0 * value(w, r - 2, e))
            } else {
                bf16::from_f32(value(w, r, 8 * c + e))
            }
        });
        assert_eq!(
            chunk.map(bf16::to_bits),
            expected.map(bf16::to_bits),
            "warp {w}, row {r}, chunk {c}"
        );
    }
}

#[test]
fn a_tile_past_the_region_panics() {
    // 20 rows of 3 chunks: rows 5..21 reach past them.
    let e = run([5, 0, 0]).unwrap_err();
    assert!(e.contains("reaches outside the warp's region"), "{e}");
    // Rows 4..20 are the last that fit; a second tile 1 row further down does not.
    assert!(run([4, 0, 0]).is_ok());
    let e = run([4, 1, 1]).unwrap_err();
    assert!(e.contains("reaches outside the warp's region"), "{e}");
}

/// Lanes naming different positions: a panic before anything is stored.
#[kernel]
pub fn store_at_lane_rows(
    mut out: DisjointSlice<u32>,
    regions: Shared<WarpRegions<Vec8<bf16>, 96, 1>>,
) {
    let Some(region) = regions.warp_region() else {
        return;
    };
    let mut stores = region
        .fill(Vec8([bf16::from_f32(0.0); 8]))
        .collective_stores();
    let lane = oxide::warp::lane_id() as usize;
    stores.store_accumulators::<3>(lane % 2, 0, &FragC::zero(), &FragC::zero());
    let _ = stores.sync();
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = 1;
    }
}

#[test]
fn lanes_naming_different_positions_panic() {
    let mut out = vec![0u32; 32];
    let cfg = LaunchConfig {
        grid: (1, 1, 1),
        block: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    let e = store_at_lane_rows::emulate(&cfg, &mut out).unwrap_err();
    assert!(e.to_string().contains("names different positions"), "{e}");
}
