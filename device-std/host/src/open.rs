//! Opening a device, and refusing it clearly after a kernel's fault lost its context.
//!
//! Every [`Gpu`](crate::Gpu) handle of a device uses the device's primary context, which the
//! driver shares by reference count: each `Gpu::new` retains it, and it is released when the
//! last of the handle's objects (streams, buffers, modules, events, pinned buffers) is dropped.
//! A kernel's fault makes the context unusable, and on the H200 (driver 580) the whole process
//! with it: after a trap, neither `cudaDeviceReset`, nor a release and
//! `cuDevicePrimaryCtxReset` and a new retain, nor destroying a context of one's own and
//! creating another let a correct kernel run (ci/gpu-probes/trap_recovery.cu,
//! docs/gpu-results/2026-12-02-trap-recovery.txt), as CUDA documents for such "sticky" errors.
//! So `Gpu::new` never resets anything (a reset would also free what other code of the process,
//! such as PyTorch, holds in the primary context); it says what happened and what to do:
//! - while a handle of the lost context is alive, [`Error::DeviceLost`] with
//!   `handles_alive: true`, naming the kernel;
//! - once none is, it opens the device and waits on it (a context no handle uses has nothing
//!   queued); the driver's fault then gives `DeviceLost` with `handles_alive: false`, still
//!   naming the kernel, and saying that only a new process can use the device.
//!
//! The registry below knows which contexts are alive: it keeps a weak reference to each, and
//! every object that uses a context holds a strong one (cudarc's streams, slices, modules,
//! events and pinned slices each hold their context), so a context with no strong reference
//! left has nothing of this process's oxide handles using it. It also remembers, per device,
//! the kernel that lost a context, for the errors after its handles are gone.

use std::sync::{Arc, Mutex, PoisonError, Weak};

use crate::Error;
use crate::stream::LaunchLog;

/// The contexts `Gpu::new` opened and that may still be in use, with the launch log their
/// handles share.
pub(crate) struct Registry<C> {
    opened: Vec<Opened<C>>,
    /// Devices whose context a kernel's fault lost, with the kernel blamed, once no handle of
    /// that context is left.
    faulted: Vec<(usize, Option<String>)>,
}

struct Opened<C> {
    ordinal: usize,
    context: Weak<C>,
    launches: Arc<Mutex<LaunchLog>>,
}

/// What opening a device involves, apart from the bookkeeping: the driver calls, which tests
/// replace.
pub(crate) trait Driver<C> {
    /// Opens (retains) the device's primary context.
    fn open(&mut self, ordinal: usize) -> Result<Arc<C>, Error>;
    /// Whether a context that no other handle uses is usable: a cheap wait that reports a lost
    /// context's fault.
    fn probe(&mut self, context: &C) -> Result<(), Error>;
}

impl<C> Registry<C> {
    pub(crate) const fn new() -> Self {
        Registry {
            opened: Vec::new(),
            faulted: Vec::new(),
        }
    }

    /// Opens device `ordinal` for a new handle: its context, and the launch log of every handle
    /// of that context (shared, so that any of them names the kernel that failed).
    pub(crate) fn open(
        &mut self,
        ordinal: usize,
        driver: &mut impl Driver<C>,
    ) -> Result<(Arc<C>, Arc<Mutex<LaunchLog>>), Error> {
        let faulted = &mut self.faulted;
        self.opened.retain(|o| {
            let alive = o.context.strong_count() > 0;
            if !alive && let Some((kernel, _)) = lock(&o.launches).lost() {
                faulted.retain(|(ordinal, _)| *ordinal != o.ordinal);
                faulted.push((o.ordinal, kernel.map(str::to_owned)));
            }
            alive
        });
        let live = self
            .opened
            .iter()
            .find(|o| o.ordinal == ordinal)
            .map(|o| Arc::clone(&o.launches));
        let (context, launches) = match live {
            Some(launches) => {
                // Handles of this context are alive: share it, unless it is lost, which nothing
                // may undo while they are.
                let lost = |fault: Option<String>| {
                    let log = lock(&launches);
                    let (kernel, reason) = match log.lost() {
                        Some((kernel, reason)) => (kernel.map(str::to_owned), reason.to_owned()),
                        None => (log.pending().map(str::to_owned), fault.unwrap_or_default()),
                    };
                    Error::DeviceLost {
                        ordinal,
                        kernel,
                        reason,
                        handles_alive: true,
                    }
                };
                if lock(&launches).lost().is_some() {
                    return Err(lost(None));
                }
                match driver.open(ordinal) {
                    Ok(context) => (context, launches),
                    Err(e) => return Err(fault_of(&e).map_or(e, |f| lost(Some(f)))),
                }
            }
            None => {
                let context = fresh(driver, ordinal).map_err(|e| match fault_of(&e) {
                    // The driver keeps a fault for the life of the process: no handle is left
                    // to drop, and nothing oxide could reset clears it.
                    Some(reason) => Error::DeviceLost {
                        ordinal,
                        kernel: self
                            .faulted
                            .iter()
                            .find(|(o, _)| *o == ordinal)
                            .and_then(|(_, kernel)| kernel.clone()),
                        reason,
                        handles_alive: false,
                    },
                    None => e,
                })?;
                (context, Arc::new(Mutex::new(LaunchLog::default())))
            }
        };
        self.opened.push(Opened {
            ordinal,
            context: Arc::downgrade(&context),
            launches: Arc::clone(&launches),
        });
        Ok((context, launches))
    }
}

/// A context of device `ordinal` that no other handle uses, checked usable; on an error it is
/// dropped (released) before this returns.
fn fresh<C>(driver: &mut impl Driver<C>, ordinal: usize) -> Result<Arc<C>, Error> {
    let context = driver.open(ordinal)?;
    driver.probe(&context)?;
    Ok(context)
}

/// The driver's description of `e` when it is a kernel's fault (the context is lost).
fn fault_of(e: &Error) -> Option<String> {
    match e {
        Error::Driver(d) if crate::error::is_kernel_fault(d.0) => Some(crate::error::describe(d)),
        _ => None,
    }
}

fn lock(launches: &Mutex<LaunchLog>) -> std::sync::MutexGuard<'_, LaunchLog> {
    // A poisoned lock only means another thread panicked while holding it; the log is whole.
    launches.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cudarc::driver::DriverError;
    use cudarc::driver::sys::CUresult;

    /// A stand-in driver whose primary context, once lost, stays lost (as the H200's does).
    #[derive(Default)]
    struct Fake {
        lost: bool,
        opens: usize,
    }

    const FAULT: CUresult = CUresult::CUDA_ERROR_LAUNCH_FAILED;

    impl Driver<u32> for Fake {
        fn open(&mut self, ordinal: usize) -> Result<Arc<u32>, Error> {
            self.opens += 1;
            Ok(Arc::new(ordinal as u32))
        }
        fn probe(&mut self, _: &u32) -> Result<(), Error> {
            if self.lost {
                Err(Error::Driver(DriverError(FAULT)))
            } else {
                Ok(())
            }
        }
    }

    /// What a handle's failed wait records: the kernel that faulted.
    fn fault(launches: &Mutex<LaunchLog>, kernel: &str) -> Error {
        let mut log = lock(launches);
        log.launched(7, &Arc::from(kernel));
        log.blame(DriverError(FAULT))
    }

    #[test]
    fn handles_of_one_device_share_its_launch_log() {
        let (mut registry, mut driver) = (Registry::new(), Fake::default());
        let (a, log_a) = registry.open(0, &mut driver).unwrap();
        let (b, log_b) = registry.open(0, &mut driver).unwrap();
        assert!(Arc::ptr_eq(&log_a, &log_b));
        let (_, log_other) = registry.open(1, &mut driver).unwrap();
        assert!(!Arc::ptr_eq(&log_a, &log_other));
        drop((a, b));
        let (_, log_new) = registry.open(0, &mut driver).unwrap();
        assert!(!Arc::ptr_eq(&log_a, &log_new), "a new context, a new log");
    }

    /// Issue 18: after a trap, a new `Gpu` is refused with the kernel's name and what to do,
    /// while handles of the lost context live and after they are gone.
    #[test]
    fn a_lost_context_is_refused_naming_the_kernel_with_or_without_handles() {
        let (mut registry, mut driver) = (Registry::new(), Fake::default());
        let (context, launches) = registry.open(0, &mut driver).unwrap();
        let e = fault(&launches, "boom");
        assert!(matches!(&e, Error::KernelFailed { kernel, .. } if kernel == "boom"));
        driver.lost = true;

        let e = registry.open(0, &mut driver).unwrap_err();
        assert!(
            matches!(
                &e,
                Error::DeviceLost { kernel: Some(k), handles_alive: true, .. } if k == "boom"
            ),
            "{e}"
        );
        assert!(e.to_string().contains("restart the process"), "{e}");

        // Every handle dropped: the probe finds the fault; the kernel is still named.
        drop((context, launches));
        for _ in 0..2 {
            let e = registry.open(0, &mut driver).unwrap_err();
            assert!(
                matches!(
                    &e,
                    Error::DeviceLost { kernel: Some(k), handles_alive: false, .. } if k == "boom"
                ),
                "{e}"
            );
            assert!(e.to_string().contains("restart the process"), "{e}");
        }
        // Another device is not blamed.
        driver.lost = false;
        assert!(registry.open(1, &mut driver).is_ok());
    }

    #[test]
    fn a_fault_no_handle_reported_is_refused_without_a_kernel() {
        let mut driver = Fake {
            lost: true,
            ..Fake::default()
        };
        let e = Registry::new().open(3, &mut driver).unwrap_err();
        assert!(
            matches!(
                &e,
                Error::DeviceLost {
                    ordinal: 3,
                    kernel: None,
                    handles_alive: false,
                    ..
                }
            ),
            "{e}"
        );
        assert!(e.to_string().contains("restart the process"), "{e}");
        assert_eq!(driver.opens, 1);
    }

    /// A lost context whose fault no wait has reported yet is still refused while it has
    /// handles: the driver's own error on opening it counts.
    #[test]
    fn an_unreported_loss_is_refused_while_handles_live() {
        struct Failing;
        impl Driver<u32> for Failing {
            fn open(&mut self, _: usize) -> Result<Arc<u32>, Error> {
                Err(Error::Driver(DriverError(FAULT)))
            }
            fn probe(&mut self, _: &u32) -> Result<(), Error> {
                Ok(())
            }
        }
        let mut registry = Registry::new();
        let (_context, launches) = registry.open(0, &mut Fake::default()).unwrap();
        lock(&launches).launched(1, &Arc::from("quiet"));
        let e = registry.open(0, &mut Failing).unwrap_err();
        assert!(
            matches!(
                &e,
                Error::DeviceLost { kernel: Some(k), handles_alive: true, .. } if k == "quiet"
            ),
            "{e}"
        );
    }
}
