//! PTX modules, kernel functions and the launch a `#[kernel]` launcher assembles (launch shapes
//! and contracts: oxide-launch).

use std::ffi::{CStr, c_void};
use std::marker::PhantomData;
use std::sync::{Arc, Mutex, PoisonError};

use cudarc::driver::sys::CUresult;
use cudarc::driver::{CudaFunction, CudaModule, DriverError, result};
use cudarc::nvrtc::Ptx;

use crate::memory::{Region, Tracker};
use crate::{Error, Gpu, LaunchConfig};

/// A crate's PTX, loaded (JIT-compiled by the driver) on one [`Gpu`].
pub struct KernelModule {
    loaded: LoadedModule,
    crate_name: &'static str,
}

/// A loaded module and the functions found in it, by PTX entry name.
#[derive(Clone)]
pub(crate) struct LoadedModule {
    module: Arc<CudaModule>,
    functions: Arc<Mutex<Vec<LoadedFunction>>>,
}

/// A function found in a module, by its PTX entry.
type LoadedFunction = (String, KernelFunction);

/// The kernels launched on one [`Gpu`] (and its streams) so far, by PTX image and entry: what a
/// `#[kernel]` launcher finds with one lookup ([`kernel_function`]).
pub(crate) type KernelCache = Vec<(&'static CStr, &'static str, KernelFunction)>;

/// The kernel `entry` of the crate whose PTX is `ptx` (its embedded image, `None` when it was
/// built without the backend), as a `#[kernel]` launcher asks for it at each launch: found in
/// the [`Gpu`]'s cache of kernels by the PTX image (its address, as [`load_module`] keys
/// modules: docs/safety.md, "Modules cannot be spoofed") and the entry, with one lock and no
/// allocation; loaded (and cached) on the first launch.
#[doc(hidden)]
pub fn kernel_function(
    gpu: &Gpu,
    ptx: Option<&'static CStr>,
    crate_name: &'static str,
    entry: &'static str,
) -> Result<KernelFunction, Error> {
    let found = |kernels: &KernelCache, ptx: &'static CStr| {
        kernels
            .iter()
            .find(|(image, e, _)| std::ptr::eq(image.as_ptr(), ptx.as_ptr()) && *e == entry)
            .map(|(_, _, function)| function.clone())
    };
    if let Some(image) = ptx
        && let Some(function) = found(&gpu.kernels(), image)
    {
        return Ok(function);
    }
    let function = load_module(gpu, ptx, crate_name)?.function(entry)?;
    // `load_module` refused a missing image.
    if let Some(image) = ptx {
        let mut kernels = gpu.kernels();
        if found(&kernels, image).is_none() {
            kernels.push((image, entry, function.clone()));
        }
    }
    Ok(function)
}

/// Loads `ptx` (the crate's embedded PTX, `None` when it was built without the backend) on
/// `gpu`, or returns the module loaded from that same `ptx` before. `crate_name` only names the
/// crate in errors.
///
/// The cache is keyed by the PTX image itself (the address of the `'static` text), never by a
/// name: a module loaded from other PTX under another crate's name cannot stand in for that
/// crate's own PTX, which its launchers pass (docs/safety.md, "Modules cannot be spoofed").
pub fn load_module(
    gpu: &Gpu,
    ptx: Option<&'static CStr>,
    crate_name: &'static str,
) -> Result<KernelModule, Error> {
    let ptx = ptx.ok_or(Error::NoPtx { crate_name })?;
    // A poisoned lock only means another thread panicked while holding it; the list is intact.
    let mut modules = gpu.modules.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(loaded) = modules.get(ptx) {
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
    modules.insert(ptx, loaded.clone());
    Ok(KernelModule { loaded, crate_name })
}

/// The modules loaded on one [`Gpu`], by the PTX image they were loaded from: the address of
/// its `'static` text. A `'static` text is never freed, so its address is never another text's,
/// and the text at an address never changes: an entry is found only with the very PTX it was
/// made from.
pub(crate) struct ModuleCache<M> {
    entries: Vec<(&'static CStr, M)>,
}

impl<M> ModuleCache<M> {
    pub(crate) const fn new() -> Self {
        ModuleCache {
            entries: Vec::new(),
        }
    }

    /// The entry made from this PTX image.
    pub(crate) fn get(&self, ptx: &'static CStr) -> Option<&M> {
        self.entries
            .iter()
            .find(|(image, _)| std::ptr::eq(image.as_ptr(), ptx.as_ptr()))
            .map(|(_, m)| m)
    }

    pub(crate) fn insert(&mut self, ptx: &'static CStr, module: M) {
        self.entries.push((ptx, module));
    }
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
        if let Some((_, function)) = functions.iter().find(|(e, _)| e == entry) {
            return Ok(function.clone());
        }
        match self.loaded.module.load_function(entry) {
            Ok(function) => {
                let function = KernelFunction(Arc::new(LoadedKernel {
                    function,
                    name: Arc::from(kernel),
                }));
                functions.push((entry.to_owned(), function.clone()));
                Ok(function)
            }
            Err(DriverError(CUresult::CUDA_ERROR_NOT_FOUND)) => Err(not_found()),
            Err(e) => Err(e.into()),
        }
    }
}

/// The instance of generic kernel `name` at the type arguments whose
/// `core::any::type_name`s are `type_names`: PTX entry
/// [`generic_entry(name, type_names)`](oxide_contract::generic_entry), called
/// `name::<T1, T2>` in errors. Used by the launchers `#[kernel]` generates.
#[doc(hidden)]
pub fn generic_function(
    module: &KernelModule,
    name: &str,
    type_names: &[&str],
) -> Result<KernelFunction, Error> {
    let entry = oxide_contract::generic_entry(name, type_names);
    module.entry(&entry, &format!("{name}::<{}>", type_names.join(", ")))
}

/// One kernel of a [`KernelModule`], ready to launch (a handle: cloning it takes one
/// reference count).
#[derive(Clone)]
pub struct KernelFunction(Arc<LoadedKernel>);

struct LoadedKernel {
    function: CudaFunction,
    /// What errors call it: the entry's name, or `name::<T>` for a generic kernel's instance.
    name: Arc<str>,
}

impl KernelFunction {
    /// The kernel's name as errors give it.
    pub fn name(&self) -> &str {
        &self.0.name
    }
}

/// A launch being assembled by a `#[kernel]` launcher: parameters are pushed in the kernel's
/// argument order (docs/contracts.md), then [`Launch::launch`] queues it on the Gpu's stream.
#[doc(hidden)]
pub struct Launch<'a> {
    gpu: &'a Gpu,
    function: &'a KernelFunction,
    params: Params<'a>,
    /// The first argument buffer the launch cannot use (another GPU's, or misaligned).
    bad_buffer: Option<Error>,
    /// While capturing a graph: the buffers the kernel reads (`false`) or writes (`true`), for
    /// the graph's records once it is captured. (Outside a capture each buffer's access is
    /// recorded as it is pushed: [`Tracker::order_and_record`].)
    captured: Vec<(&'a Tracker, bool)>,
}

impl<'a> Launch<'a> {
    /// Starts a launch of `function` on `gpu`'s stream.
    pub fn new(gpu: &'a Gpu, function: &'a KernelFunction) -> Self {
        Launch {
            gpu,
            function,
            params: Params::new(),
            bad_buffer: None,
            captured: Vec::new(),
        }
    }

    /// Appends a slice's parameters (docs/contracts.md): the device pointer (never null), the
    /// element count, then the shape's `words`. What `LaunchArg`s push; public for tests that
    /// launch hand-written PTX.
    ///
    /// # Safety
    /// The parameters pushed must be what the kernel's PTX reads for this argument (as
    /// [`Launch::launch`] requires of them all): a `LaunchArg` of oxide-host, or a test's own
    /// hand-written kernel.
    pub unsafe fn push_slice(&mut self, region: Region<'a>, words: &'a [u64]) -> &mut Self {
        self.check_device(&region);
        let [ptr, len] = region.params;
        self.params.push(ptr);
        self.params.push(len);
        for word in words {
            self.params.push(word);
        }
        self
    }

    /// Appends a by-value argument: the driver copies `size_of::<T>()` bytes from `value`, the
    /// host layout being the device layout (docs/contracts.md). Zero-sized values take no
    /// parameter. What `LaunchArg`s push; public for tests that launch hand-written PTX.
    ///
    /// # Safety
    /// As [`Launch::push_slice`]: the bytes are what the kernel's PTX reads for this argument.
    pub unsafe fn push_value<T>(&mut self, value: &'a T) -> &mut Self {
        if size_of::<T>() == 0 {
            return self;
        }
        self.params.push(value);
        self
    }

    /// Queues the kernel on the stream and returns without waiting for it. The [`Gpu`] then
    /// names this kernel in the error of a wait that finds a kernel failed (see
    /// [`crate`]).
    ///
    /// # Safety
    /// The pushed parameters must match the kernel's PTX parameters in number, order and type,
    /// which holds when the launcher was generated by `#[kernel]` from the same function the
    /// backend compiled into the module.
    pub unsafe fn launch(mut self, cfg: LaunchConfig) -> Result<(), Error> {
        if let Some(e) = self.bad_buffer.take() {
            return Err(e);
        }
        cfg.validate()?;
        if cfg.shared_mem_bytes > 0 {
            self.fit_shared_memory(cfg.shared_mem_bytes)?;
        }
        let gpu = self.gpu;
        gpu.ctx.bind_to_thread().map_err(|e| gpu.blame(e))?;
        let kernel = &self.function.0;
        // SAFETY: parameter agreement is the caller's contract; each parameter pointer is to a
        // value borrowed for 'a, alive here. The buffers stay alive until the kernel is done:
        // the launch borrows them for 'a, and a buffer's memory is freed only after every
        // access recorded (docs/host.md).
        let launched = unsafe {
            result::launch_kernel(
                kernel.function.cu_function(),
                cfg.grid,
                cfg.block,
                cfg.shared_mem_bytes,
                gpu.stream.cu_stream(),
                self.params.as_mut_slice(),
            )
        };
        if let Some(recording) = &gpu.capture {
            // Captured, not run: the graph's launches record the buffers and the launch log.
            recording.captured(self.captured.drain(..), Some(&kernel.name));
            return launched.map_err(|e| gpu.blame(e));
        }
        launched.map_err(|e| gpu.blame(e))?;
        gpu.launched(&kernel.name);
        Ok(())
    }

    /// Lets the kernel have `dynamic` bytes of dynamic shared memory. Up to 48 KiB with its
    /// static shared memory every kernel has; above, the kernel is opted in to more, refused
    /// unless the sum fits in what the device gives a block (docs/safety.md, "Launches are
    /// validated before they run"). The attribute is set on each such launch (host-side calls):
    /// it is the `CUfunction`'s, which every handle of the kernel shares, so another launch may
    /// have set another size since.
    fn fit_shared_memory(&self, dynamic: u32) -> Result<(), Error> {
        use cudarc::driver::sys::CUfunction_attribute_enum as Attribute;
        let function = &self.function.0.function;
        let static_bytes = u32::try_from(function.shared_size_bytes()?).unwrap_or(u32::MAX);
        if static_bytes.saturating_add(dynamic) <= crate::SHARED_MEM_BYTES_WITHOUT_OPT_IN {
            return Ok(());
        }
        let device_limit = self.gpu.max_shared_memory_per_block_opt_in()?;
        let limit = device_limit.saturating_sub(static_bytes);
        if dynamic > limit {
            return Err(Error::SharedMemory {
                requested: dynamic,
                limit,
            });
        }
        let bytes = i32::try_from(dynamic).unwrap_or(i32::MAX);
        function.set_attribute(
            Attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            bytes,
        )?;
        Ok(())
    }

    /// Checks an argument's memory, orders the launch after the work on it that must come
    /// first and records the access ([`Tracker::order_and_record`]; while capturing a graph,
    /// notes it for the graph's records instead).
    fn check_device(&mut self, region: &Region<'a>) {
        let (buffer, launch) = (region.ordinal, self.gpu.ordinal());
        if self.bad_buffer.is_some() {
            return;
        }
        if buffer != launch {
            self.bad_buffer = Some(Error::WrongDevice { buffer, launch });
        } else if let Some(address) = region.misaligned {
            self.bad_buffer = Some(Error::MisalignedBuffer {
                address,
                align: oxide_contract::SLICE_ALIGN,
            });
        } else if let Some(recording) = &self.gpu.capture {
            // Captured: each launch of the graph orders its buffers (module `graph`).
            match recording.allow(region) {
                Ok(()) => self.captured.push((region.tracker, region.write)),
                Err(e) => self.bad_buffer = Some(e),
            }
        } else if region.len > 0
            && let Err(e) = region
                .tracker
                .order_and_record(&self.gpu.stream, region.write)
        {
            self.bad_buffer = Some(self.gpu.blame(e));
        }
    }
}

/// Parameters a launch holds without allocating; a kernel with more takes a vector.
const INLINE_PARAMS: usize = 24;

/// A launch's parameters as `cuLaunchKernel` takes them: a pointer to each value, in the
/// kernel's order, each value borrowed for `'a` (the driver copies the bytes when the launch
/// is queued).
struct Params<'a> {
    inline: [*mut c_void; INLINE_PARAMS],
    len: usize,
    /// All of them, once there are more than `INLINE_PARAMS`.
    spilled: Vec<*mut c_void>,
    values: PhantomData<&'a ()>,
}

impl<'a> Params<'a> {
    fn new() -> Self {
        Params {
            inline: [std::ptr::null_mut(); INLINE_PARAMS],
            len: 0,
            spilled: Vec::new(),
            values: PhantomData,
        }
    }

    fn push<T>(&mut self, value: &'a T) {
        let pointer = (value as *const T).cast_mut().cast::<c_void>();
        if self.len < INLINE_PARAMS {
            self.inline[self.len] = pointer;
        } else {
            if self.spilled.is_empty() {
                self.spilled.extend_from_slice(&self.inline);
            }
            self.spilled.push(pointer);
        }
        self.len += 1;
    }

    fn as_mut_slice(&mut self) -> &mut [*mut c_void] {
        if self.len <= INLINE_PARAMS {
            &mut self.inline[..self.len]
        } else {
            &mut self.spilled
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Statics, not consts: each has one address.
    static VICTIM: &CStr = c".entry victim_kernel";
    static SPOOF: &CStr = c".entry spoof_kernel";

    /// Issue 7, hole 5: PTX registered under a crate's name (all safe code can give) is not
    /// what that crate's launcher, which passes its own PTX image, gets.
    #[test]
    fn modules_are_found_by_their_ptx_image_not_by_a_name() {
        let mut cache = ModuleCache::new();
        cache.insert(SPOOF, "spoof");
        assert_eq!(cache.get(VICTIM), None);
        cache.insert(VICTIM, "victim");
        assert_eq!(cache.get(VICTIM), Some(&"victim"));
        assert_eq!(cache.get(SPOOF), Some(&"spoof"));
    }

    /// The driver reads parameter `i` from the `i`-th pointer, past the inline ones too.
    #[test]
    fn params_keep_every_pointer_in_order() {
        let values: Vec<u64> = (0..INLINE_PARAMS as u64 + 5).collect();
        let mut params = Params::new();
        for (n, value) in values.iter().enumerate() {
            params.push(value);
            let pointers = params.as_mut_slice();
            assert_eq!(pointers.len(), n + 1);
            for (pointer, value) in pointers.iter().zip(&values) {
                // SAFETY: each pointer is to an element of `values`, alive here.
                assert_eq!(unsafe { *pointer.cast::<u64>() }, *value);
            }
        }
    }

    /// Equal texts at two addresses are two images (each loads its own module): the key is the
    /// image, not its content.
    #[test]
    fn equal_texts_at_two_addresses_are_two_images() {
        let copy: &'static CStr = Box::leak(VICTIM.to_owned().into_boxed_c_str());
        let mut cache = ModuleCache::new();
        cache.insert(VICTIM, 1);
        assert_eq!(cache.get(copy), None);
        cache.insert(copy, 2);
        assert_eq!((cache.get(VICTIM), cache.get(copy)), (Some(&1), Some(&2)));
    }
}
