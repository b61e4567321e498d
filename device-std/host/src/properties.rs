//! [`DeviceProperties`]: what `cudaGetDeviceProperties` tells, read from the driver's device
//! attributes.

use cudarc::driver::sys::CUdevice_attribute as A;

use crate::{Error, Gpu};

/// A device's properties ([`Gpu::properties`]). Sizes are in bytes, clocks in kHz.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeviceProperties {
    /// The device's name, e.g. "NVIDIA H200".
    pub name: String,
    /// Compute capability (major, minor): (9, 0) for an H200.
    pub compute_capability: (u32, u32),
    /// Streaming multiprocessors: 132 on an H200.
    pub multiprocessor_count: u32,
    /// Threads per warp: 32.
    pub warp_size: u32,
    /// Most threads in a block.
    pub max_threads_per_block: u32,
    /// Most threads resident on one multiprocessor.
    pub max_threads_per_multiprocessor: u32,
    /// Most threads of a block in x, y and z.
    pub max_block_dim: [u32; 3],
    /// Most blocks of a grid in x, y and z.
    pub max_grid_dim: [u32; 3],
    /// Shared memory a block has without opting in (48 KiB).
    pub shared_memory_per_block: u32,
    /// Shared memory a block may have once its kernel opts in
    /// ([`Gpu::max_shared_memory_per_block_opt_in`]).
    pub shared_memory_per_block_opt_in: u32,
    /// Shared memory of one multiprocessor.
    pub shared_memory_per_multiprocessor: u32,
    /// 32-bit registers a block may use.
    pub registers_per_block: u32,
    /// 32-bit registers of one multiprocessor.
    pub registers_per_multiprocessor: u32,
    /// Global memory.
    pub total_global_memory: u64,
    /// Constant memory.
    pub total_constant_memory: u64,
    /// L2 cache.
    pub l2_cache_size: u32,
    /// Peak SM clock.
    pub clock_rate_khz: u32,
    /// Peak memory clock.
    pub memory_clock_rate_khz: u32,
    /// Global memory bus width in bits.
    pub memory_bus_width_bits: u32,
    /// Copy engines that run beside kernels (0: copies and kernels do not overlap).
    pub async_engine_count: u32,
    /// Whether kernels of several streams may run at once.
    pub concurrent_kernels: bool,
    /// PCI domain, bus and device of the GPU.
    pub pci: (u32, u32, u32),
}

impl Gpu {
    /// The device's properties (`cudaGetDeviceProperties`), read from the driver each call.
    pub fn properties(&self) -> Result<DeviceProperties, Error> {
        let attribute = |a: A| -> Result<u32, Error> {
            // The driver reports no negative attribute; one would be a driver bug, not a size.
            Ok(u32::try_from(self.ctx.attribute(a)?).unwrap_or(0))
        };
        let (major, minor) = self.ctx.compute_capability()?;
        Ok(DeviceProperties {
            name: self.name()?,
            compute_capability: (
                u32::try_from(major).unwrap_or(0),
                u32::try_from(minor).unwrap_or(0),
            ),
            multiprocessor_count: attribute(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            warp_size: attribute(A::CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
            max_threads_per_block: attribute(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_threads_per_multiprocessor: attribute(
                A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
            )?,
            max_block_dim: [
                attribute(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
                attribute(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
                attribute(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
            ],
            max_grid_dim: [
                attribute(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
                attribute(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
                attribute(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
            ],
            shared_memory_per_block: attribute(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
            shared_memory_per_block_opt_in: self.max_shared_memory_per_block_opt_in()?,
            shared_memory_per_multiprocessor: attribute(
                A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
            )?,
            registers_per_block: attribute(A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK)?,
            registers_per_multiprocessor: attribute(
                A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR,
            )?,
            total_global_memory: self.ctx.total_mem()? as u64,
            total_constant_memory: u64::from(attribute(
                A::CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY,
            )?),
            l2_cache_size: attribute(A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?,
            clock_rate_khz: attribute(A::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)?,
            memory_clock_rate_khz: attribute(A::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE)?,
            memory_bus_width_bits: attribute(A::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH)?,
            async_engine_count: attribute(A::CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT)?,
            concurrent_kernels: attribute(A::CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS)? != 0,
            pci: (
                attribute(A::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID)?,
                attribute(A::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID)?,
                attribute(A::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID)?,
            ),
        })
    }
}
