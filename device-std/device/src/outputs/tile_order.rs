//! [`TileOrder`]: which tile of a [`BlockTiles`](super::BlockTiles) output each block of the
//! grid owns, chosen by the kernel in the output's type (`BlockTiles<T, R, C, O>`), so that
//! every block of a launch uses the same map. Each map is injective (two blocks never get one
//! tile), which is what the output's ownership rests on; the trait is sealed, so the maps are
//! these:
//!
//! | `O` | block `(x, y, z)` of a grid `(gx, gy, gz)` owns tile |
//! |---|---|
//! | [`GridOrder`] (the default) | `(y, x)` when `z = 0` |
//! | [`Transposed`] | `(x, y)` when `z = 0` (a grid launched with its axes swapped) |
//! | [`RowMajor`] | tile `b` of the rectangle's tiles in row-major order, `b` the block's linear number (`x` fastest): a 1-D grid over a 2-D output, or a grid of any shape |
//! | [`Grouped<G>`] | as `RowMajor`, but the tiles taken `G` tile rows at a time, column by column inside each group (Triton's grouped ordering: consecutive blocks share rows of A and columns of B in a GEMM, so they hit in L2) |
//!
//! A block whose map gives no tile, or a tile outside the rectangle, owns nothing.

use crate::thread;

mod sealed {
    pub trait Sealed {}
}

/// An injective map from the blocks of a grid to the tiles of a [`BlockTiles`](super::BlockTiles)
/// output; see the module for the maps.
pub trait TileOrder: sealed::Sealed + 'static {
    /// The `(tile row, tile column)` of block `block` in a grid of `grid` blocks, for a
    /// rectangle of `tiles` tiles (rows, columns; each at least 1), or `None` when the block
    /// owns no tile. No two blocks get the same tile.
    fn tile(block: [usize; 3], grid: [usize; 3], tiles: (usize, usize)) -> Option<(usize, usize)>;
}

/// The calling block's tile under `O` for a rectangle of `tiles` tiles.
#[inline]
pub(super) fn calling_block_tile<O: TileOrder>(tiles: (usize, usize)) -> Option<(usize, usize)> {
    let block = [
        thread::block_idx_x() as usize,
        thread::block_idx_y() as usize,
        thread::block_idx_z() as usize,
    ];
    let grid = [
        thread::grid_dim_x() as usize,
        thread::grid_dim_y() as usize,
        thread::grid_dim_z() as usize,
    ];
    O::tile(block, grid, tiles)
}

/// The block's linear number in the grid, `x` fastest; `None` if it does not fit in `usize`
/// (never on a GPU, whose grid is below 2^63 blocks; a wrapped number would be another
/// block's).
#[inline]
fn linear([x, y, z]: [usize; 3], [gx, gy, _]: [usize; 3]) -> Option<usize> {
    z.checked_mul(gy)?
        .checked_add(y)?
        .checked_mul(gx)?
        .checked_add(x)
}

/// Block `(x, y, 0)` owns tile `(y, x)`: CUDA's `blockIdx.y` for the tile row and `blockIdx.x`
/// for the column.
pub struct GridOrder;
impl sealed::Sealed for GridOrder {}
impl TileOrder for GridOrder {
    #[inline]
    fn tile([x, y, z]: [usize; 3], _: [usize; 3], _: (usize, usize)) -> Option<(usize, usize)> {
        // Injective: distinct blocks of the plane z = 0 differ in x or y.
        (z == 0).then_some((y, x))
    }
}

/// Block `(x, y, 0)` owns tile `(x, y)`: `blockIdx.x` picks the tile row.
pub struct Transposed;
impl sealed::Sealed for Transposed {}
impl TileOrder for Transposed {
    #[inline]
    fn tile([x, y, z]: [usize; 3], _: [usize; 3], _: (usize, usize)) -> Option<(usize, usize)> {
        (z == 0).then_some((x, y))
    }
}

/// The block with linear number `b` owns tile `(b / columns, b % columns)` of the rectangle's
/// tiles in row-major order.
pub struct RowMajor;
impl sealed::Sealed for RowMajor {}
impl TileOrder for RowMajor {
    #[inline]
    fn tile(
        block: [usize; 3],
        grid: [usize; 3],
        (_, cols): (usize, usize),
    ) -> Option<(usize, usize)> {
        // Injective: `b ↦ (b / cols, b % cols)` is (division with remainder, `cols >= 1`).
        let b = linear(block, grid)?;
        Some((b / cols, b % cols))
    }
}

/// The block with linear number `b` owns the `b`-th tile of the rectangle taken in groups of
/// `G` tile rows, each group column by column (the last group may have fewer rows).
pub struct Grouped<const G: usize>;
impl<const G: usize> sealed::Sealed for Grouped<G> {}
impl<const G: usize> TileOrder for Grouped<G> {
    #[inline]
    fn tile(
        block: [usize; 3],
        grid: [usize; 3],
        (rows, cols): (usize, usize),
    ) -> Option<(usize, usize)> {
        const { assert!(G > 0, "a group has at least one tile row") };
        let b = linear(block, grid)?;
        // Tiles `per_group·g ..` are group `g`'s: its rows `G·g ..`, as many as are left.
        let per_group = G.checked_mul(cols)?;
        let (group, at) = (b / per_group, b % per_group);
        let first_row = group.checked_mul(G)?;
        let group_rows = rows.checked_sub(first_row).filter(|&r| r > 0)?.min(G);
        // Injective: `b ↦ (group, at)` is; inside a group `at ↦ (at % group_rows, at /
        // group_rows)` is, for `at < group_rows · cols` (tested: a larger `at` of a short last
        // group would reach column `cols` or more, so it is refused).
        let (row, col) = (first_row + at % group_rows, at / group_rows);
        (col < cols).then_some((row, col))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Over every block of `grid`, no tile is given twice, and every tile of the rectangle is
    /// given when `cover` says the grid covers it.
    fn check<O: TileOrder>(grid: [usize; 3], tiles: (usize, usize), cover: bool) {
        let mut owner = vec![None; tiles.0 * tiles.1];
        for z in 0..grid[2] {
            for y in 0..grid[1] {
                for x in 0..grid[0] {
                    let Some((r, c)) = O::tile([x, y, z], grid, tiles) else {
                        continue;
                    };
                    if r >= tiles.0 || c >= tiles.1 {
                        continue;
                    }
                    assert!(owner[r * tiles.1 + c].is_none(), "tile ({r}, {c}) twice");
                    owner[r * tiles.1 + c] = Some([x, y, z]);
                }
            }
        }
        if cover {
            assert!(owner.iter().all(Option::is_some), "a tile without a block");
        }
    }

    #[test]
    fn every_order_gives_each_tile_to_one_block_at_most() {
        for tiles in [(1, 1), (3, 5), (8, 8), (7, 2), (1, 9)] {
            let (r, c) = tiles;
            check::<GridOrder>([c, r, 2], tiles, true);
            check::<GridOrder>([c + 1, r + 2, 1], tiles, true);
            check::<Transposed>([r, c, 2], tiles, true);
            check::<RowMajor>([r * c, 1, 1], tiles, true);
            check::<RowMajor>([3, r * c, 2], tiles, true);
            check::<Grouped<1>>([r * c, 1, 1], tiles, true);
            check::<Grouped<2>>([r * c + 3, 1, 1], tiles, true);
            check::<Grouped<3>>([2, r * c, 1], tiles, true);
            check::<Grouped<8>>([r * c, 1, 1], tiles, true);
        }
    }

    #[test]
    fn a_block_number_past_usize_owns_nothing() {
        let huge = [usize::MAX / 2, 3, 3];
        assert_eq!(RowMajor::tile([0, 0, 2], huge, (4, 4)), None);
        assert_eq!(Grouped::<2>::tile([1, 2, 2], huge, (4, 4)), None);
    }

    #[test]
    fn grouped_order_walks_groups_of_rows_column_by_column() {
        // 5 tile rows of 3 columns in groups of 2: rows 0-1 column by column, then 2-3, then 4.
        let order: Vec<_> = (0..15)
            .map(|b| Grouped::<2>::tile([b, 0, 0], [15, 1, 1], (5, 3)).unwrap())
            .collect();
        assert_eq!(
            order,
            [
                (0, 0),
                (1, 0),
                (0, 1),
                (1, 1),
                (0, 2),
                (1, 2),
                (2, 0),
                (3, 0),
                (2, 1),
                (3, 1),
                (2, 2),
                (3, 2),
                (4, 0),
                (4, 1),
                (4, 2),
            ]
        );
        assert_eq!(Grouped::<2>::tile([15, 0, 0], [16, 1, 1], (5, 3)), None);
    }
}
