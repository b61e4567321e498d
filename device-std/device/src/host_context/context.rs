//! A simulated GPU thread's indices and dimensions, and the shapes a host body may assume of
//! them: the limits a launch is validated against (shared with the emulator's
//! `LaunchConfig::validate_shape`, so that a context the emulator would run is exactly a valid
//! one).

use core::fmt;

/// The most threads a block has, on every GPU the backend targets (sm_75 and later).
pub const MAX_BLOCK_THREADS: u32 = 1024;
/// Threads per warp on every GPU the backend targets. Defined here, with the other hardware
/// limits at the bottom of the crate, so that the host context does not import `warp` (which
/// imports it); `warp::WARP_SIZE` is its public path.
pub const WARP_SIZE: u32 = 32;
/// The largest block along x, y and z.
pub const MAX_BLOCK: [u32; 3] = [1024, 1024, 64];
/// The largest grid along x, y and z.
pub const MAX_GRID: [u32; 3] = [i32::MAX as u32, 65535, 65535];

/// Checks a grid of `grid` blocks of `block` threads against the hardware limits: every
/// dimension from 1 to its maximum ([`MAX_GRID`], [`MAX_BLOCK`]), at most
/// [`MAX_BLOCK_THREADS`] threads per block, and a thread count that fits in `usize` (so
/// `ThreadIndex::linear` cannot overflow, and stays unique). `Err` says why, first the first
/// thing wrong.
pub fn check_shape(grid: [u32; 3], block: [u32; 3]) -> Result<(), String> {
    for (axis, name) in ["x", "y", "z"].into_iter().enumerate() {
        if grid[axis] == 0 || grid[axis] > MAX_GRID[axis] {
            return Err(format!(
                "grid {name} = {}; it must be 1 to {}",
                grid[axis], MAX_GRID[axis]
            ));
        }
        if block[axis] == 0 || block[axis] > MAX_BLOCK[axis] {
            return Err(format!(
                "block {name} = {}; it must be 1 to {}",
                block[axis], MAX_BLOCK[axis]
            ));
        }
    }
    let per_block: u64 = block.iter().map(|&d| u64::from(d)).product();
    if per_block > u64::from(MAX_BLOCK_THREADS) {
        return Err(format!(
            "a block of {per_block} threads; a block has at most {MAX_BLOCK_THREADS}"
        ));
    }
    let total = grid
        .iter()
        .try_fold(per_block, |acc, &d| acc.checked_mul(u64::from(d)))
        .filter(|&t| usize::try_from(t).is_ok());
    if total.is_none() {
        return Err("the grid has more threads than fit in usize".into());
    }
    Ok(())
}

/// Indices and dimensions of one simulated GPU thread, each as `[x, y, z]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreadContext {
    /// `threadIdx`: this thread's position in its block.
    pub thread_idx: [u32; 3],
    /// `blockIdx`: this thread's block's position in the grid.
    pub block_idx: [u32; 3],
    /// `blockDim`: threads per block along each axis.
    pub block_dim: [u32; 3],
    /// `gridDim`: blocks per grid along each axis.
    pub grid_dim: [u32; 3],
}

/// A [`ThreadContext`] that no launch has: why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidContext(pub String);

impl fmt::Display for InvalidContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a thread of a valid launch: {}", self.0)
    }
}

impl std::error::Error for InvalidContext {}

impl ThreadContext {
    /// Thread 0 of a grid of one block of one thread: what a plain host call of a kernel sees.
    pub const SINGLE: ThreadContext = ThreadContext {
        thread_idx: [0; 3],
        block_idx: [0; 3],
        block_dim: [1; 3],
        grid_dim: [1; 3],
    };

    /// Whether this is a thread of a launch the GPU (and the emulator) can run: the grid and
    /// block pass [`check_shape`], and each index is below its dimension. The host bodies of
    /// device-std rely on it (a block collective writes the scratch slot of the thread's warp,
    /// `thread_in_block / 32`, below 32 only in a block of at most 1024 threads; the shared
    /// layouts partition the slots only among the block's own threads).
    pub fn validate(&self) -> Result<(), InvalidContext> {
        check_shape(self.grid_dim, self.block_dim).map_err(InvalidContext)?;
        for (axis, name) in ["x", "y", "z"].into_iter().enumerate() {
            if self.thread_idx[axis] >= self.block_dim[axis] {
                return Err(InvalidContext(format!(
                    "thread index {name} = {} in a block of {} along {name}",
                    self.thread_idx[axis], self.block_dim[axis]
                )));
            }
            if self.block_idx[axis] >= self.grid_dim[axis] {
                return Err(InvalidContext(format!(
                    "block index {name} = {} in a grid of {} along {name}",
                    self.block_idx[axis], self.grid_dim[axis]
                )));
            }
        }
        Ok(())
    }

    /// The thread's linear number in its block, x fastest:
    /// `(z * block_dim_y + y) * block_dim_x + x`. Warps are cut from this order.
    pub fn thread_in_block(&self) -> u32 {
        let [x, y, z] = self.thread_idx;
        (z * self.block_dim[1] + y) * self.block_dim[0] + x
    }

    /// The thread's lane in its warp (`%laneid`): [`thread_in_block`](Self::thread_in_block)
    /// modulo the warp size.
    pub fn lane(&self) -> u32 {
        self.thread_in_block() % WARP_SIZE
    }
}

impl Default for ThreadContext {
    fn default() -> Self {
        Self::SINGLE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thread(x: u32, block_dim: [u32; 3]) -> ThreadContext {
        ThreadContext {
            thread_idx: [x % block_dim[0], x / block_dim[0], 0],
            block_idx: [0; 3],
            block_dim,
            grid_dim: [1; 3],
        }
    }

    #[test]
    fn lanes_follow_the_linear_order_in_the_block() {
        assert_eq!(ThreadContext::SINGLE.lane(), 0);
        let ctx = thread(8 * 5 + 3, [8, 8, 1]);
        assert_eq!(ctx.thread_idx, [3, 5, 0]);
        assert_eq!(ctx.thread_in_block(), 43);
        assert_eq!(ctx.lane(), 11);
        let ctx = ThreadContext {
            thread_idx: [1, 2, 3],
            block_dim: [4, 4, 4],
            ..ThreadContext::SINGLE
        };
        assert_eq!(ctx.thread_in_block(), (3 * 4 + 2) * 4 + 1);
        assert_eq!(ctx.lane(), 57 % 32);
    }

    #[test]
    fn only_threads_of_a_valid_launch_are_valid() {
        let ok = ThreadContext {
            thread_idx: [31, 7, 0],
            block_idx: [i32::MAX as u32 - 1, 2, 0],
            block_dim: [32, 8, 1],
            grid_dim: [i32::MAX as u32, 3, 1],
        };
        assert_eq!(ok.validate(), Ok(()));
        assert_eq!(ThreadContext::SINGLE.validate(), Ok(()));
        let bad = |change: fn(&mut ThreadContext), reason: &str| {
            let mut ctx = ok;
            change(&mut ctx);
            let e = ctx.validate().unwrap_err();
            assert!(e.0.starts_with(reason), "{ctx:?}: {e}");
        };
        bad(
            |c| c.thread_idx[0] = 32,
            "thread index x = 32 in a block of 32",
        );
        bad(|c| c.thread_idx[1] = 8, "thread index y = 8");
        bad(|c| c.thread_idx[2] = 1, "thread index z = 1");
        bad(|c| c.block_idx[0] = i32::MAX as u32, "block index x");
        bad(|c| c.block_idx[1] = 3, "block index y = 3 in a grid of 3");
        bad(|c| c.block_idx[2] = u32::MAX, "block index z");
        bad(|c| c.block_dim = [0, 8, 1], "block x = 0");
        bad(|c| c.block_dim = [64, 32, 1], "a block of 2048 threads");
        bad(
            |c| c.block_dim = [65536, 65536, 1],
            "block x = 65536; it must be 1 to 1024",
        );
        bad(|c| c.grid_dim = [1, 0, 1], "grid y = 0");
        bad(|c| c.grid_dim[2] = 65536, "grid z = 65536");
        bad(
            |c| {
                c.grid_dim = [i32::MAX as u32, 65535, 65535];
                c.block_dim = [1024, 1, 1];
                c.thread_idx = [0; 3];
            },
            "the grid has more threads than fit in usize",
        );
        let e = ThreadContext {
            thread_idx: [3200, 0, 0],
            ..ThreadContext::SINGLE
        }
        .validate()
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "not a thread of a valid launch: thread index x = 3200 in a block of 1 along x"
        );
    }
}
