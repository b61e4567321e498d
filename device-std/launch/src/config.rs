//! Launch shapes, validated alike by the CPU emulator and the GPU launcher (`oxide-host`
//! re-exports them).

// The hardware limits of every GPU the backend targets (sm_75 and later) are oxide-device's,
// which checks the thread contexts of the intrinsics' host bodies against the same ones.
use oxide_device::host_context::{MAX_BLOCK_THREADS, MAX_GRID, check_shape};

/// The most dynamic shared memory a block of a launch may ask for, in bytes: 227 KiB, what
/// sm_90 and later give a block (`CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`).
/// Above [`SHARED_MEM_BYTES_WITHOUT_OPT_IN`] the GPU launcher raises the kernel's
/// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` first, after checking the request, plus
/// the kernel's static shared memory, against the live device's own limit (less on older GPUs:
/// 163 KiB on sm_80, 99 KiB on sm_86), and refuses with `Error::SharedMemory` what does not
/// fit; the emulator, which has no device, checks this bound.
pub const MAX_DYNAMIC_SHARED_MEM_BYTES: u32 = 227 * 1024;

/// The shared memory a block has on every GPU without the kernel opting in to more: 48 KiB.
pub const SHARED_MEM_BYTES_WITHOUT_OPT_IN: u32 = 48 * 1024;

/// A grid or block shape the GPU cannot run, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct LaunchShapeError(pub String);

/// A launch configuration the GPU cannot run: a bad shape, or more dynamic shared memory per
/// block than a launch may have.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LaunchConfigError {
    /// The grid or the block is out of the hardware's range.
    #[error(transparent)]
    Shape(#[from] LaunchShapeError),
    /// `shared_mem_bytes` is above [`MAX_DYNAMIC_SHARED_MEM_BYTES`].
    #[error(
        "{requested} bytes of dynamic shared memory per block; a launch may have at most \
         {limit} here"
    )]
    SharedMemory {
        /// `shared_mem_bytes` of the launch.
        requested: u32,
        /// The most a launch may ask for.
        limit: u32,
    },
}

/// The shape of a launch: blocks per grid, threads per block, dynamic shared memory per block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks along (x, y, z).
    pub grid: (u32, u32, u32),
    /// Threads per block along (x, y, z).
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block, in bytes.
    pub shared_mem_bytes: u32,
}

impl LaunchConfig {
    /// A 1-D launch of `block` threads per block and enough blocks to cover `n` elements
    /// (`ceil(n / block)`, at least one block so that `n == 0` still launches).
    pub fn for_num_elems(n: usize, block: u32) -> Result<LaunchConfig, LaunchShapeError> {
        if block == 0 || block > MAX_BLOCK_THREADS {
            return Err(LaunchShapeError(format!(
                "a block of {block} threads; a block has 1 to {MAX_BLOCK_THREADS} threads"
            )));
        }
        let blocks = n.div_ceil(block as usize).max(1);
        let blocks = u32::try_from(blocks)
            .ok()
            .filter(|&b| b <= MAX_GRID[0])
            .ok_or_else(|| {
                LaunchShapeError(format!(
                    "{n} elements need {blocks} blocks of {block} threads, more than the {} a \
                     1-D grid allows",
                    MAX_GRID[0]
                ))
            })?;
        let cfg = LaunchConfig {
            grid: (blocks, 1, 1),
            block: (block, 1, 1),
            shared_mem_bytes: 0,
        };
        cfg.validate_shape()?;
        Ok(cfg)
    }

    /// Whether the launch is one-dimensional: grid and block have y = z = 1 (what a
    /// `#[kernel(grid = "1d")]` kernel requires).
    pub fn is_1d(&self) -> bool {
        (self.grid.1, self.grid.2, self.block.1, self.block.2) == (1, 1, 1, 1)
    }

    /// Checks the launch against the hardware limits: its shape ([`Self::validate_shape`]) and
    /// its dynamic shared memory ([`MAX_DYNAMIC_SHARED_MEM_BYTES`]).
    pub fn validate(&self) -> Result<(), LaunchConfigError> {
        self.validate_shape()?;
        if self.shared_mem_bytes > MAX_DYNAMIC_SHARED_MEM_BYTES {
            return Err(LaunchConfigError::SharedMemory {
                requested: self.shared_mem_bytes,
                limit: MAX_DYNAMIC_SHARED_MEM_BYTES,
            });
        }
        Ok(())
    }

    /// Checks the shape against the hardware limits, and that the grid's thread count fits in
    /// `usize` (so `ThreadIndex::linear` cannot overflow and stays unique).
    pub fn validate_shape(&self) -> Result<(), LaunchShapeError> {
        let grid = [self.grid.0, self.grid.1, self.grid.2];
        let block = [self.block.0, self.block.1, self.block.2];
        check_shape(grid, block).map_err(LaunchShapeError)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(grid: (u32, u32, u32), block: (u32, u32, u32)) -> LaunchConfig {
        LaunchConfig {
            grid,
            block,
            shared_mem_bytes: 0,
        }
    }

    #[test]
    fn for_num_elems_rounds_up() {
        let cfg = LaunchConfig::for_num_elems(1_048_579, 256).unwrap();
        assert_eq!(cfg, shape((4097, 1, 1), (256, 1, 1)));
        assert_eq!(
            LaunchConfig::for_num_elems(512, 256).unwrap().grid,
            (2, 1, 1)
        );
        assert_eq!(
            LaunchConfig::for_num_elems(1, 1024).unwrap().grid,
            (1, 1, 1)
        );
        // No elements still launches one block, whose threads find nothing to do.
        assert_eq!(LaunchConfig::for_num_elems(0, 256).unwrap().grid, (1, 1, 1));
    }

    #[test]
    fn for_num_elems_rejects_bad_blocks() {
        for block in [0, 1025, u32::MAX] {
            let e = LaunchConfig::for_num_elems(100, block).unwrap_err();
            assert!(e.0.contains(&format!("a block of {block} threads")), "{e}");
        }
        let too_many = (i32::MAX as usize + 1) * 32;
        let e = LaunchConfig::for_num_elems(too_many, 32).unwrap_err();
        assert!(e.to_string().contains("more than the 2147483647"), "{e}");
    }

    #[test]
    fn one_dimensional_shapes() {
        assert!(LaunchConfig::for_num_elems(1000, 128).unwrap().is_1d());
        assert!(shape((7, 1, 1), (32, 1, 1)).is_1d());
        for not_1d in [
            shape((1, 2, 1), (32, 1, 1)),
            shape((1, 1, 2), (32, 1, 1)),
            shape((1, 1, 1), (32, 2, 1)),
            shape((1, 1, 1), (32, 1, 2)),
        ] {
            assert!(!not_1d.is_1d(), "{not_1d:?}");
        }
    }

    #[test]
    fn validate_limits() {
        assert!(shape((1, 1, 1), (1024, 1, 1)).validate().is_ok());
        assert!(
            shape((i32::MAX as u32, 65535, 65535), (1, 1, 1))
                .validate()
                .is_ok()
        );
        for (bad, reason) in [
            (shape((0, 1, 1), (32, 1, 1)), "grid x = 0"),
            (shape((1, 0, 1), (32, 1, 1)), "grid y = 0"),
            (shape((1, 1, 1), (32, 0, 1)), "block y = 0"),
            (shape((1, 1, 1), (1, 1, 65)), "block z = 65"),
            (shape((1, 1, 1), (64, 32, 1)), "a block of 2048 threads"),
            (shape((1, 65536, 1), (32, 1, 1)), "grid y = 65536"),
            (
                shape((i32::MAX as u32 + 1, 1, 1), (32, 1, 1)),
                "grid x = 2147483648",
            ),
            // 2^31 * 2^16 * 2^16 blocks of 1024 threads: more threads than a u64 counts.
            (
                shape((i32::MAX as u32, 65535, 65535), (1024, 1, 1)),
                "the grid has more threads than fit in usize",
            ),
        ] {
            let e = bad.validate_shape().unwrap_err();
            assert!(e.0.starts_with(reason), "{bad:?}: {e}");
            assert_eq!(bad.validate(), Err(LaunchConfigError::Shape(e)));
        }
    }

    #[test]
    fn dynamic_shared_memory_is_at_most_227_kib() {
        let with = |bytes| LaunchConfig {
            shared_mem_bytes: bytes,
            ..shape((4, 1, 1), (128, 1, 1))
        };
        for ok in [0, 1, 4096, 48 * 1024, 48 * 1024 + 1, 227 * 1024] {
            assert_eq!(with(ok).validate(), Ok(()), "{ok}");
        }
        for bad in [227 * 1024 + 1, 256 * 1024, u32::MAX] {
            let e = with(bad).validate().unwrap_err();
            assert_eq!(
                e,
                LaunchConfigError::SharedMemory {
                    requested: bad,
                    limit: 232448
                }
            );
            assert!(
                e.to_string()
                    .starts_with(&format!("{bad} bytes of dynamic shared memory per block")),
                "{e}"
            );
        }
        // The shape is checked first.
        let bad_both = LaunchConfig {
            shared_mem_bytes: u32::MAX,
            ..shape((0, 1, 1), (32, 1, 1))
        };
        assert!(matches!(
            bad_both.validate(),
            Err(LaunchConfigError::Shape(_))
        ));
    }
}
