//! What a launch must satisfy beyond the parameters' types: the shape words of a kernel's shaped
//! outputs and inputs (docs/contracts.md, "Kernel parameter ABI": a row width and pitch, a pair
//! distance, a matrix's rows, columns and pitch) and the launch shape a kernel's options promise
//! (`grid = "1d"`, `block`, `max_threads`). The device code's partitions and unchecked loads are
//! sound only under these rules; the host runtime checks them
//! before a launch or an emulation, and `cargo oxide check-port` before it launches a port, all
//! through these functions.

use crate::KernelOptions;

/// Whether `len` elements can be seen as rows of `width` elements, each starting `pitch`
/// elements after the previous one (`DisjointRows`, `WarpRows`, `BlockTiles`; `WaveTiles` with
/// `pitch = width`): `1 <= width <= pitch` and `pitch` divides `len`. A kernel's rows are its
/// threads' (or warps', or blocks') own only when every row is whole.
pub fn rows_fit(len: u64, width: u64, pitch: u64) -> bool {
    width >= 1 && width <= pitch && len.is_multiple_of(pitch)
}

/// Whether rows `rows` and columns `cols` of an output of `outer_rows` rows of `outer_width`
/// columns are a rectangle a launch may lend instead (the host's `Rows::rect`): non-empty and
/// within it. The output's rule stays a partition of the rectangle's elements, and no element
/// outside it is any thread's, as long as the rectangle is inside the rows it was cut from.
pub fn rect_within(
    (outer_rows, outer_width): (u64, u64),
    rows: core::ops::Range<u64>,
    cols: core::ops::Range<u64>,
) -> bool {
    rows.start < rows.end
        && rows.end <= outer_rows
        && cols.start < cols.end
        && cols.end <= outer_width
}

/// Whether `rows` rows of `cols` elements, each starting `pitch` elements after the previous
/// one, lie within `len` elements (a read-only `Matrix` input, the host's `MatrixShape`):
/// `cols <= pitch`, and, when there are rows, the last one ends within the buffer,
/// `(rows - 1) · pitch + cols <= len`, computed without overflow. Every position `(r, c)` with
/// `r < rows` and `c < cols` then has an index `r · pitch + c` below `len`, so the kernel tests
/// the position only and loads with no bounds check. Unlike an output's rows, the pitch need
/// not divide the length: nothing is owned, and the buffer may end right after the last row's
/// columns (a matrix whose padding stops before the end).
pub fn matrix_fits(len: u64, rows: u64, cols: u64, pitch: u64) -> bool {
    if cols > pitch {
        return false;
    }
    let Some(last) = rows.checked_sub(1) else {
        return true;
    };
    last.checked_mul(pitch)
        .and_then(|start| start.checked_add(cols))
        .is_some_and(|end| end <= len)
}

/// Whether `DisjointPairs` may pair elements `distance` apart: a power of two. The map from a
/// thread's index to its pair (a zero bit inserted at the distance's position) is one to one
/// only then.
pub fn pairs_distance_fits(distance: u64) -> bool {
    distance.is_power_of_two()
}

impl KernelOptions {
    /// Why a launch of grid `grid` and block `block` (x, y, z) breaks the shape these options
    /// promise (`grid = "1d"`, `block`, `max_threads`), if it does; `kernel` names the kernel in
    /// the message. `min_blocks_per_sm` is a hint and `sm` is about the device, not the shape.
    pub fn check_launch_shape(
        &self,
        kernel: &str,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
    ) -> Result<(), String> {
        let one_d = |(_, y, z): (u32, u32, u32)| y == 1 && z == 1;
        if self.grid_1d && !(one_d(grid) && one_d(block)) {
            return Err(format!(
                "kernel `{kernel}` is declared `#[kernel(grid = \"1d\")]`: grid and block must \
                 have y = z = 1, and this launch has grid {grid:?} and block {block:?}"
            ));
        }
        if let Some([x, y, z]) = self.block
            && block != (x, y, z)
        {
            return Err(format!(
                "kernel `{kernel}` is declared `#[kernel(block = \"{x}x{y}x{z}\")]`: its blocks \
                 must be exactly ({x}, {y}, {z}), and this launch has block {block:?}"
            ));
        }
        // In u128: three u32 dimensions multiply to under 2^96, so the count never wraps (nor
        // panics in a debug build) on a block the hardware check, which may run later, refuses.
        let threads = u128::from(block.0) * u128::from(block.1) * u128::from(block.2);
        if let Some(max) = self.max_threads
            && threads > u128::from(max)
        {
            return Err(format!(
                "kernel `{kernel}` is declared `#[kernel(max_threads = {max})]`: its blocks have \
                 at most {max} threads, and this launch has block {block:?}, {threads} threads"
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_must_be_whole() {
        assert!(rows_fit(12, 4, 4));
        assert!(rows_fit(12, 3, 6));
        assert!(rows_fit(0, 1, 1));
        for (len, width, pitch) in [(12, 0, 0), (12, 5, 5), (12, 13, 13), (12, 4, 3), (12, 4, 5)] {
            assert!(!rows_fit(len, width, pitch), "{len} {width} {pitch}");
        }
    }

    #[test]
    #[expect(
        clippy::reversed_empty_ranges,
        reason = "a reversed range is one of the bad rectangles"
    )]
    fn rectangles_are_non_empty_and_inside() {
        assert!(rect_within((10, 8), 1..9, 1..7));
        assert!(rect_within((10, 8), 0..10, 0..8));
        assert!(rect_within((1, 1), 0..1, 0..1));
        assert!(rect_within(
            (u64::MAX, u64::MAX),
            u64::MAX - 1..u64::MAX,
            0..u64::MAX
        ));
        for (rows, cols) in [
            (1..1, 1..7),
            (1..9, 3..3),
            (5..4, 1..7),
            (1..11, 1..7),
            (1..9, 0..9),
        ] {
            assert!(
                !rect_within((10, 8), rows.clone(), cols.clone()),
                "{rows:?} {cols:?}"
            );
        }
        assert!(!rect_within((0, 8), 0..0, 0..8));
    }

    #[test]
    fn a_matrix_ends_within_its_buffer() {
        // 3 rows of 4 in rows 6 apart: the last row starts at 12 and ends at 16.
        assert!(matrix_fits(16, 3, 4, 6));
        assert!(matrix_fits(18, 3, 4, 6));
        assert!(!matrix_fits(15, 3, 4, 6));
        assert!(matrix_fits(12, 3, 4, 4));
        assert!(!matrix_fits(11, 3, 4, 4));
        // More columns than the pitch would make rows overlap: refused.
        assert!(!matrix_fits(100, 2, 5, 4));
        // No rows: nothing to load, whatever the buffer.
        assert!(matrix_fits(0, 0, 7, 7));
        assert!(!matrix_fits(0, 0, 8, 7));
        // Rows of no columns fit anywhere their starts do.
        assert!(matrix_fits(0, 1, 0, 0));
        assert!(matrix_fits(u64::MAX, u64::MAX, 0, 1));
        // A product or a sum past u64 is refused, never wrapped into a small end.
        assert!(!matrix_fits(u64::MAX, 1 << 33, 1, 1 << 32));
        assert!(!matrix_fits(u64::MAX, 2, u64::MAX, u64::MAX));
        assert!(matrix_fits(u64::MAX, 1, u64::MAX, u64::MAX));
        assert!(matrix_fits(u64::MAX, u64::MAX, 1, 1));
    }

    #[test]
    fn pairs_are_a_power_of_two_apart() {
        for d in [1, 2, 4, 1 << 40] {
            assert!(pairs_distance_fits(d), "{d}");
        }
        for d in [0, 3, 6, u64::MAX] {
            assert!(!pairs_distance_fits(d), "{d}");
        }
    }

    #[test]
    fn launch_shapes() {
        let none = KernelOptions::default();
        assert!(none.check_launch_shape("k", (2, 2, 1), (8, 8, 1)).is_ok());
        let grid_1d = KernelOptions {
            grid_1d: true,
            ..none
        };
        assert!(
            grid_1d
                .check_launch_shape("k", (4, 1, 1), (32, 1, 1))
                .is_ok()
        );
        assert!(
            grid_1d
                .check_launch_shape("k", (4, 1, 1), (32, 2, 1))
                .is_err()
        );
        assert_eq!(
            grid_1d
                .check_launch_shape("k", (2, 2, 1), (8, 8, 1))
                .unwrap_err(),
            "kernel `k` is declared `#[kernel(grid = \"1d\")]`: grid and block must have y = z \
             = 1, and this launch has grid (2, 2, 1) and block (8, 8, 1)"
        );
        let block = KernelOptions {
            block: Some([32, 8, 1]),
            ..none
        };
        assert!(block.check_launch_shape("k", (9, 9, 1), (32, 8, 1)).is_ok());
        assert!(
            block
                .check_launch_shape("k", (9, 9, 1), (8, 32, 1))
                .is_err()
        );
        let max = KernelOptions {
            max_threads: Some(64),
            ..none
        };
        assert!(max.check_launch_shape("k", (1, 1, 1), (8, 8, 1)).is_ok());
        assert!(
            max.check_launch_shape("k", (1, 1, 1), (8, 8, 2))
                .unwrap_err()
                .ends_with("block (8, 8, 2), 128 threads")
        );
    }

    /// Review of issue 18: a block of 2^22 · 2^21 · 2^21 = 2^64 threads overflowed the u64
    /// count (a panic in debug builds, 0 threads in release, which `max_threads` then let
    /// through). The count is exact for every block of u32 dimensions.
    #[test]
    fn thread_counts_past_u64_are_counted_exactly() {
        let huge = (1 << 22, 1 << 21, 1 << 21);
        let none = KernelOptions::default();
        assert!(none.check_launch_shape("k", (1, 1, 1), huge).is_ok());
        let max = KernelOptions {
            max_threads: Some(u32::MAX),
            ..none
        };
        let e = max.check_launch_shape("k", (1, 1, 1), huge).unwrap_err();
        assert!(e.ends_with("18446744073709551616 threads"), "{e}");
        let all = (u32::MAX, u32::MAX, u32::MAX);
        let e = max.check_launch_shape("k", (1, 1, 1), all).unwrap_err();
        assert!(e.ends_with("79228162458924105385300197375 threads"), "{e}");
    }
}
