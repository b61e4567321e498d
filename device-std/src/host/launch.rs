//! Launch shapes, PTX modules and kernel parameters.

use std::ffi::CStr;
use std::sync::{Arc, Mutex, PoisonError};

use cudarc::driver::sys::CUresult;
use cudarc::driver::{
    CudaFunction, CudaModule, DeviceRepr, DriverError, LaunchArgs, PushKernelArg,
};
use cudarc::nvrtc::Ptx;

use super::{DeviceBuffer, Error, Gpu};

/// Hardware limits of every GPU the backend targets (sm_50 and later).
const MAX_BLOCK_THREADS: u64 = 1024;
const MAX_BLOCK: [u32; 3] = [1024, 1024, 64];
const MAX_GRID: [u32; 3] = [i32::MAX as u32, 65535, 65535];

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
    pub fn for_num_elems(n: usize, block: u32) -> Result<LaunchConfig, Error> {
        if block == 0 || u64::from(block) > MAX_BLOCK_THREADS {
            return Err(Error::LaunchShape(format!(
                "a block of {block} threads; a block has 1 to {MAX_BLOCK_THREADS} threads"
            )));
        }
        let blocks = n.div_ceil(block as usize).max(1);
        let blocks = u32::try_from(blocks)
            .ok()
            .filter(|&b| b <= MAX_GRID[0])
            .ok_or_else(|| {
                Error::LaunchShape(format!(
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
        cfg.validate()?;
        Ok(cfg)
    }

    /// Whether the launch is one-dimensional: grid and block have y = z = 1 (what a
    /// `#[kernel(grid = "1d")]` kernel requires).
    pub fn is_1d(&self) -> bool {
        (self.grid.1, self.grid.2, self.block.1, self.block.2) == (1, 1, 1, 1)
    }

    /// Checks the shape against the hardware limits, and that the grid's thread count fits in
    /// `usize` (so [`crate::ThreadIndex::linear`] cannot overflow and stays unique).
    pub fn validate(&self) -> Result<(), Error> {
        let grid = [self.grid.0, self.grid.1, self.grid.2];
        let block = [self.block.0, self.block.1, self.block.2];
        let bad = |what: String| Err(Error::LaunchShape(what));
        for (axis, name) in ["x", "y", "z"].into_iter().enumerate() {
            if grid[axis] == 0 || grid[axis] > MAX_GRID[axis] {
                return bad(format!(
                    "grid {name} = {}; it must be 1 to {}",
                    grid[axis], MAX_GRID[axis]
                ));
            }
            if block[axis] == 0 || block[axis] > MAX_BLOCK[axis] {
                return bad(format!(
                    "block {name} = {}; it must be 1 to {}",
                    block[axis], MAX_BLOCK[axis]
                ));
            }
        }
        let per_block: u64 = block.iter().map(|&d| u64::from(d)).product();
        if per_block > MAX_BLOCK_THREADS {
            return bad(format!(
                "a block of {per_block} threads; a block has at most {MAX_BLOCK_THREADS}"
            ));
        }
        let total = grid
            .iter()
            .try_fold(per_block, |acc, &d| acc.checked_mul(u64::from(d)))
            .filter(|&t| usize::try_from(t).is_ok());
        if total.is_none() {
            return bad("the grid has more threads than fit in usize".into());
        }
        Ok(())
    }
}

/// A crate's PTX, loaded (JIT-compiled by the driver) on one [`Gpu`].
pub struct KernelModule {
    loaded: LoadedModule,
    crate_name: &'static str,
}

/// A loaded module and the functions found in it, by PTX entry name.
#[derive(Clone)]
pub(crate) struct LoadedModule {
    module: Arc<CudaModule>,
    functions: Arc<Mutex<Vec<(String, CudaFunction)>>>,
}

/// Loads `ptx` (the crate's embedded PTX, `None` when it was built without the backend) on
/// `gpu`, or returns the module loaded for `crate_name` before.
pub fn load_module(
    gpu: &Gpu,
    ptx: Option<&'static CStr>,
    crate_name: &'static str,
) -> Result<KernelModule, Error> {
    let ptx = ptx.ok_or(Error::NoPtx { crate_name })?;
    // A poisoned lock only means another thread panicked while holding it; the list is intact.
    let mut modules = gpu.modules.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, loaded)) = modules.iter().find(|(name, _)| *name == crate_name) {
        return Ok(KernelModule {
            loaded: loaded.clone(),
            crate_name,
        });
    }
    // PTX is ASCII; a lossy conversion only matters for text the driver would reject anyway.
    let src = String::from_utf8_lossy(ptx.to_bytes()).into_owned();
    let module = gpu
        .ctx
        .load_module(Ptx::from_src(src))
        .map_err(|source| Error::ModuleLoad { crate_name, source })?;
    let loaded = LoadedModule {
        module,
        functions: Arc::new(Mutex::new(Vec::new())),
    };
    modules.push((crate_name, loaded.clone()));
    Ok(KernelModule { loaded, crate_name })
}

impl KernelModule {
    /// The kernel (PTX entry) called `name`.
    pub fn function(&self, name: &str) -> Result<KernelFunction, Error> {
        self.entry(name, name)
    }

    /// The PTX entry `entry`, of the kernel that errors call `kernel`.
    fn entry(&self, entry: &str, kernel: &str) -> Result<KernelFunction, Error> {
        let not_found = || Error::KernelNotFound {
            crate_name: self.crate_name,
            kernel: if entry == kernel {
                kernel.to_owned()
            } else {
                format!("{kernel} (PTX entry {entry})")
            },
        };
        if entry.contains('\0') {
            return Err(not_found());
        }
        let mut functions = self
            .loaded
            .functions
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some((_, function)) = functions.iter().find(|(name, _)| name == entry) {
            return Ok(KernelFunction {
                function: function.clone(),
                name: Arc::from(kernel),
            });
        }
        match self.loaded.module.load_function(entry) {
            Ok(function) => {
                functions.push((entry.to_owned(), function.clone()));
                Ok(KernelFunction {
                    function,
                    name: Arc::from(kernel),
                })
            }
            Err(DriverError(CUresult::CUDA_ERROR_NOT_FOUND)) => Err(not_found()),
            Err(e) => Err(e.into()),
        }
    }
}

/// The instance of generic kernel `name` at the type arguments whose
/// `core::any::type_name`s are `type_names`: PTX entry
/// [`generic_entry(name, type_names)`](crate::__private::generic_entry), called
/// `name::<T1, T2>` in errors.
pub(crate) fn generic_function(
    module: &KernelModule,
    name: &str,
    type_names: &[&str],
) -> Result<KernelFunction, Error> {
    let entry = crate::__private::generic_entry(name, type_names);
    module.entry(&entry, &format!("{name}::<{}>", type_names.join(", ")))
}

/// One kernel of a [`KernelModule`], ready to launch.
pub struct KernelFunction {
    function: CudaFunction,
    /// What errors call it: the entry's name, or `name::<T>` for a generic kernel's instance.
    name: Arc<str>,
}

impl KernelFunction {
    /// The kernel's name as errors give it.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// A launch being assembled by a `#[kernel]` launcher: parameters are pushed in the kernel's
/// argument order (docs/contracts.md), then [`Launch::launch`] queues it on the Gpu's stream.
#[doc(hidden)]
pub struct Launch<'a> {
    gpu: &'a Gpu,
    function: &'a KernelFunction,
    args: LaunchArgs<'a>,
    wrong_device: Option<Error>,
}

impl<'a> Launch<'a> {
    /// Starts a launch of `function` on `gpu`'s stream.
    pub fn new(gpu: &'a Gpu, function: &'a KernelFunction) -> Self {
        Launch {
            gpu,
            function,
            args: gpu.stream.launch_builder(&function.function),
            wrong_device: None,
        }
    }

    /// Appends one kernel argument's parameters.
    pub fn push(&mut self, arg: impl KernelArg<'a>) -> &mut Self {
        arg.push_params(self);
        self
    }

    /// Queues the kernel on the stream and returns without waiting for it. The [`Gpu`] then
    /// names this kernel in the error of a wait that finds a kernel failed (see
    /// [`crate::host`]).
    ///
    /// # Safety
    /// The pushed parameters must match the kernel's PTX parameters in number, order and type,
    /// which holds when the launcher was generated by `#[kernel]` from the same function the
    /// backend compiled into the module.
    pub unsafe fn launch(mut self, cfg: LaunchConfig) -> Result<(), Error> {
        if let Some(e) = self.wrong_device.take() {
            return Err(e);
        }
        cfg.validate()?;
        let cfg = cudarc::driver::LaunchConfig {
            grid_dim: cfg.grid,
            block_dim: cfg.block,
            shared_mem_bytes: cfg.shared_mem_bytes,
        };
        // SAFETY: parameter agreement is the caller's contract; buffers stay alive because the
        // launch borrows them for 'a and cudarc's buffers free on the same stream.
        unsafe { self.args.launch(cfg) }.map_err(|e| self.gpu.blame(e))?;
        self.gpu.launched(&self.function.name);
        Ok(())
    }

    fn check_device<T>(&mut self, buf: &DeviceBuffer<T>) {
        let (buffer, launch) = (buf.slice.ordinal(), self.gpu.ordinal());
        if buffer != launch && self.wrong_device.is_none() {
            self.wrong_device = Some(Error::WrongDevice { buffer, launch });
        }
    }
}

/// How one kernel argument becomes launch parameters (see docs/contracts.md). Implemented for
/// `&DeviceBuffer<T>` (a `&[T]` argument), `&mut DeviceBuffer<T>` (a `DisjointSlice<T>`
/// argument) and [`ByValue`] (any other argument, which is `Copy`).
#[doc(hidden)]
pub trait KernelArg<'a>: sealed::Sealed {
    /// Appends this argument's parameters to `launch`.
    fn push_params(self, launch: &mut Launch<'a>);
}

mod sealed {
    pub trait Sealed {}
    impl<T> Sealed for &super::DeviceBuffer<T> {}
    impl<T> Sealed for &mut super::DeviceBuffer<T> {}
    impl<T> Sealed for super::ByValue<'_, T> {}
}

/// `&[T]`: device pointer (never null), then element count.
impl<'a, T> KernelArg<'a> for &'a DeviceBuffer<T> {
    fn push_params(self, launch: &mut Launch<'a>) {
        launch.check_device(self);
        if self.slice.is_empty() {
            launch.args.arg(&self.empty_ptr_param);
        } else {
            launch.args.arg(&self.slice);
        }
        launch.args.arg(&self.len_param);
    }
}

/// `DisjointSlice<T>`: device pointer (never null), then element count; the kernel writes the
/// buffer.
impl<'a, T> KernelArg<'a> for &'a mut DeviceBuffer<T> {
    fn push_params(self, launch: &mut Launch<'a>) {
        launch.check_device(self);
        let DeviceBuffer {
            slice,
            len_param,
            empty_ptr_param,
        } = self;
        let (len_param, empty_ptr_param): (&'a u64, &'a u64) = (len_param, empty_ptr_param);
        if slice.is_empty() {
            launch.args.arg(empty_ptr_param);
        } else {
            launch.args.arg(slice);
        }
        launch.args.arg(len_param);
    }
}

/// A by-value kernel argument: the driver copies `size_of::<T>()` bytes from the pointer, the
/// host layout being the device layout (docs/contracts.md). Zero-sized values take no
/// parameter. `#[kernel]` asserts `T: Copy` on its own, with a clearer error than a bound here
/// would add.
#[doc(hidden)]
pub struct ByValue<'a, T>(pub &'a T);

/// `T`'s bytes, as cudarc's `DeviceRepr`; `repr(transparent)` so `&T` casts to it.
#[repr(transparent)]
struct RawBytes<T>(T);

// SAFETY: only used to hand the driver a pointer to the value, whose bytes it copies into the
// parameter buffer; the host value is untouched, so nothing is dropped or aliased twice.
unsafe impl<T> DeviceRepr for RawBytes<T> {}

impl<'a, T> KernelArg<'a> for ByValue<'a, T> {
    fn push_params(self, launch: &mut Launch<'a>) {
        if size_of::<T>() == 0 {
            return;
        }
        // SAFETY: `RawBytes<T>` is `repr(transparent)` over `T`.
        let bytes: &'a RawBytes<T> = unsafe { &*(self.0 as *const T).cast::<RawBytes<T>>() };
        launch.args.arg(bytes);
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
            assert!(matches!(e, Error::LaunchShape(_)), "{e}");
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
        for bad in [
            shape((0, 1, 1), (32, 1, 1)),
            shape((1, 0, 1), (32, 1, 1)),
            shape((1, 1, 1), (32, 0, 1)),
            shape((1, 1, 1), (1, 1, 65)),
            shape((1, 1, 1), (64, 32, 1)),
            shape((1, 65536, 1), (32, 1, 1)),
            shape((i32::MAX as u32 + 1, 1, 1), (32, 1, 1)),
            // 2^31 * 2^16 * 2^16 blocks of 1024 threads: more threads than a u64 counts.
            shape((i32::MAX as u32, 65535, 65535), (1024, 1, 1)),
        ] {
            let e = bad.validate().unwrap_err();
            assert!(matches!(e, Error::LaunchShape(_)), "{bad:?}: {e}");
        }
    }
}
