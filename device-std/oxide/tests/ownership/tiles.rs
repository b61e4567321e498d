//! The tile shapes: `BlockTiles` in each block -> tile order and `WaveTiles`, over tile sizes
//! from one to `usize::MAX`.

use oxide::prelude::*;

use crate::harness::*;

/// `$f::<R, C>()` summed over tile sizes: one, small, and from 2^32 to `usize::MAX`.
macro_rules! for_tile_sizes {
    ($f:ident) => {{
        let mut seen = 0;
        for_tile_sizes!(@rows $f seen; 1, 3, 32, 1 << 32, P63, MAX);
        seen
    }};
    (@rows $f:ident $seen:ident; $($r:expr),*) => {
        $( for_tile_sizes!(@cols $f $seen ($r); 1, 2, 32, (1 << 32) + 1, P63, MAX); )*
    };
    (@cols $f:ident $seen:ident ($r:expr); $($c:expr),*) => {
        $( $seen += $f::<{ $r }, { $c }>(); )*
    };
}

/// The thread's positions in a tile that the tests ask for: small, and the largest `i`, `j`
/// whose residue fits in `usize`, and `usize::MAX`.
fn own_positions() -> Vec<(usize, usize)> {
    let (bx, by) = (
        thread::block_dim_x() as usize,
        thread::block_dim_y() as usize,
    );
    let is = [0, 1, (MAX - by) / by, MAX];
    let js = [0, 1, (MAX - bx) / bx];
    is.iter()
        .flat_map(|&i| js.iter().map(move |&j| (i, j)))
        .collect()
}

/// The owner of element `(row, col)` of a tile `(tile row, tile col)` at tile position `(r, c)`
/// within it, given the block that must own the tile: thread `(c mod bx, r mod by, 0)`.
fn tile_owner(launch: &Launch, block: [u128; 2], (r, c): (u128, u128)) -> Option<Who> {
    let fits = (0..2).all(|a| block[a] < u128::from(launch.grid[a]));
    let [bx, by] = [0, 1].map(|a| u128::from(launch.block[a]));
    fits.then(|| {
        (
            [block[0] as u32, block[1] as u32, 0],
            [(c % bx) as u32, (r % by) as u32, 0],
        )
    })
}

/// `BlockTiles<Z, R, C>` over every rectangle: element `(row, col)` of the rectangle is in
/// tile `(row / R, col / C)`, owned by block `(x = col / C, y = row / R, 0)`.
fn block_tiles<const R: usize, const C: usize>() -> usize {
    ordered_block_tiles::<R, C, oxide::outputs::GridOrder>("GridOrder", |_, (tr, tc), _| {
        Some([tc, tr, 0])
    })
}

/// Issue 18, hole 2: with `C = 2^63`, `block_idx_x · C` wrapped in a release build and block 2
/// got block 0's tile (on the H200, 16 of 16 elements had two owners).
#[test]
fn block_tiles_of_every_size() {
    assert!(for_tile_sizes!(block_tiles) > 0);
    // Tiles of no rows or columns own nothing, whatever the block.
    assert_eq!(block_tiles::<0, 4>() + block_tiles::<4, 0>(), 0);
}

/// `BlockTiles<Z, R, C, O>` over every rectangle, with the block that must own tile
/// `(tile row, tile col)` under `O` given by `block_of` (the order's inverse, written here
/// independently of device-std's forward map) as `(x, y, z)`, or `None` when no block of the
/// launch owns it.
fn ordered_block_tiles<const R: usize, const C: usize, O: oxide::outputs::TileOrder>(
    name: &str,
    block_of: impl Fn(&Launch, (u128, u128), (u128, u128)) -> Option<[u128; 3]>,
) -> usize {
    let mut seen = 0;
    for rect in rects() {
        let tiles = (
            (rect.rows as u128).div_ceil(R.max(1) as u128),
            (rect.width as u128).div_ceil(C.max(1) as u128),
        );
        seen += sweep(
            &format!("BlockTiles<_, {R}, {C}, {name}> of {rect:?}"),
            &[SMALL, WIDE, TALL, CUBE, ONE],
            |_| {
                // SAFETY: as above.
                let mut out = unsafe { rect.output(BlockTiles::<Z, R, C, O>::from_raw_parts) };
                let Some(mut tile) = out.tile_mut() else {
                    return Vec::new();
                };
                let mut keys = Vec::new();
                for own in own_positions() {
                    if let Some((rc, _)) = tile.own_mut(own) {
                        keys.push(rect.at(rc));
                    }
                }
                keys
            },
            |launch, e| {
                let (row, col) = rect.element(e)?;
                let (tr, tc) = (R as u128, C as u128);
                let [x, y, z] = block_of(launch, (row / tr, col / tc), tiles)?;
                let fits = [x, y, z]
                    .iter()
                    .zip(launch.grid)
                    .all(|(&b, g)| b < u128::from(g));
                let [bx, by] = [0, 1].map(|a| u128::from(launch.block[a]));
                fits.then(|| {
                    (
                        [x as u32, y as u32, z as u32],
                        [((col % tc) % bx) as u32, ((row % tr) % by) as u32, 0],
                    )
                })
            },
        );
    }
    seen
}

/// The block of linear number `b` (x fastest) in `launch`'s grid.
fn block_numbered(launch: &Launch, b: u128) -> [u128; 3] {
    let [gx, gy, _] = launch.grid.map(u128::from);
    [b % gx, b / gx % gy, b / (gx * gy)]
}

fn transposed_tiles<const R: usize, const C: usize>() -> usize {
    ordered_block_tiles::<R, C, oxide::outputs::Transposed>("Transposed", |_, (tr, tc), _| {
        Some([tr, tc, 0])
    })
}

fn row_major_tiles<const R: usize, const C: usize>() -> usize {
    ordered_block_tiles::<R, C, oxide::outputs::RowMajor>(
        "RowMajor",
        |launch, (tr, tc), (_, cols)| Some(block_numbered(launch, tr * cols + tc)),
    )
}

fn grouped_tiles<const R: usize, const C: usize>() -> usize {
    const G: u128 = 3;
    ordered_block_tiles::<R, C, oxide::outputs::Grouped<3>>(
        "Grouped<3>",
        |launch, (tr, tc), (rows, cols)| {
            let group = tr / G;
            let group_rows = (rows - group * G).min(G);
            let b = group * G * cols + tc * group_rows + (tr - group * G);
            Some(block_numbered(launch, b))
        },
    )
}

/// The other block → tile maps, over the same sizes and rectangles: each tile has the block
/// the map's inverse names, and no element two owners.
#[test]
fn ordered_block_tiles_of_every_size() {
    assert!(for_tile_sizes!(transposed_tiles) > 0);
    assert!(for_tile_sizes!(row_major_tiles) > 0);
    assert!(for_tile_sizes!(grouped_tiles) > 0);
    assert_eq!(row_major_tiles::<0, 4>() + grouped_tiles::<4, 0>(), 0);
}

/// Waves: the first, small, around 2^32 and 2^63, and the last two.
const WAVES: &[usize] = &[0, 1, 2, 3, 1 << 32, P63, MAX - 1, MAX];

/// `WaveTiles<Z, R, C>` in the launch of each wave: block `b` (x, with `y = z = 0`) owns
/// tile `(wave - b, b)`.
fn wave_tiles<const R: usize, const C: usize>() -> usize {
    let mut seen = 0;
    for &(len, width, pitch) in LAYOUTS.iter().filter(|(_, w, p)| w == p) {
        for &wave in WAVES {
            seen += sweep(
                &format!("WaveTiles<_, {R}, {C}> of {len} as {width}, wave {wave}"),
                &[SMALL, WIDE, CUBE, ONE],
                |_| {
                    // SAFETY: as above; the width divides the length.
                    let mut out = unsafe {
                        WaveTiles::<Z, R, C>::from_raw_parts(dangling(), len, width, wave)
                    };
                    let mut keys = Vec::new();
                    for own in own_positions() {
                        if let Some((rc, _)) = out.own_mut(own) {
                            keys.push(at(pitch, rc));
                        }
                    }
                    keys
                },
                |launch, e| {
                    let (row, col) = element((len, width, pitch), e)?;
                    let (tr, tc) = (R as u128, C as u128);
                    let (tile_row, b) = (row / tr, col / tc);
                    (tile_row + b == wave as u128)
                        .then(|| tile_owner(launch, [b, 0], (row % tr, col % tc)))
                        .flatten()
                },
            );
        }
    }
    seen
}

#[test]
fn wave_tiles_of_every_size() {
    assert!(for_tile_sizes!(wave_tiles) > 0);
}
