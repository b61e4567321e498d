//! Opening a device, and opening it again after a kernel's fault lost its context.
//!
//! Every [`Gpu`](crate::Gpu) handle of a device uses the device's primary context, which the
//! driver shares by reference count: each `Gpu::new` retains it, and it is released when the
//! last of the handle's objects (streams, buffers, modules, events, pinned buffers) is dropped.
//! A kernel's fault makes the context unusable for good. Once no handle of it is left, the next
//! `Gpu::new` may start over: if the driver still reports the fault, that call resets the
//! primary context (`cuDevicePrimaryCtxReset`, what `cudaDeviceReset` does) and opens it again.
//! While a handle of the lost context is alive it may not: the reset would free memory, modules
//! and streams that handle still names, so a later call of it (a buffer's free, a module's
//! unload) could touch what the new context has put in their place. `Gpu::new` then refuses
//! with [`Error::DeviceLost`], naming the kernel.
//!
//! The registry below knows which contexts are alive: it keeps a weak reference to each, and
//! every object that uses a context holds a strong one (cudarc's streams, slices, modules,
//! events and pinned slices each hold their context), so a context with no strong reference
//! left has nothing of this process's oxide handles using it.

use std::sync::{Arc, Mutex, PoisonError, Weak};

use crate::Error;
use crate::stream::LaunchLog;

/// The contexts `Gpu::new` opened and that may still be in use, with the launch log their
/// handles share.
pub(crate) struct Registry<C> {
    opened: Vec<Opened<C>>,
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
    /// Resets the device's primary context. Called only when no handle uses it.
    fn reset(&mut self, ordinal: usize) -> Result<(), Error>;
}

impl<C> Registry<C> {
    pub(crate) const fn new() -> Self {
        Registry { opened: Vec::new() }
    }

    /// Opens device `ordinal` for a new handle: its context, and the launch log of every handle
    /// of that context (shared, so that any of them names the kernel that failed).
    pub(crate) fn open(
        &mut self,
        ordinal: usize,
        driver: &mut impl Driver<C>,
    ) -> Result<(Arc<C>, Arc<Mutex<LaunchLog>>), Error> {
        self.opened.retain(|o| o.context.strong_count() > 0);
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
                let context = match fresh(driver, ordinal) {
                    Ok(context) => context,
                    // No handle uses the device (the failed attempt's context is dropped), so
                    // a reset touches nothing of this process's handles.
                    Err(e) if fault_of(&e).is_some() => {
                        let reset = driver.reset(ordinal);
                        fresh(driver, ordinal).map_err(|again| match fault_of(&again) {
                            Some(reason) => Error::DeviceLost {
                                ordinal,
                                kernel: None,
                                reason: match reset {
                                    Ok(()) => reason,
                                    Err(r) => format!("{reason} (and the reset failed: {r})"),
                                },
                                handles_alive: false,
                            },
                            None => again,
                        })?
                    }
                    Err(e) => return Err(e),
                };
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

    /// A stand-in driver whose primary context stays lost until it is reset (or, with
    /// `sticky_for_the_process`, for good).
    #[derive(Default)]
    struct Fake {
        lost: bool,
        sticky_for_the_process: bool,
        opens: usize,
        resets: usize,
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
        fn reset(&mut self, _: usize) -> Result<(), Error> {
            self.resets += 1;
            self.lost = self.sticky_for_the_process;
            Ok(())
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
        assert_eq!(driver.resets, 0);
    }

    /// Issue 18: after a trap, a new `Gpu` must get a fresh context once every handle is gone,
    /// and must never share (or reset under) the lost one while a handle of it is alive.
    #[test]
    fn a_lost_context_is_reset_only_once_no_handle_uses_it() {
        let (mut registry, mut driver) = (Registry::new(), Fake::default());
        let (context, launches) = registry.open(0, &mut driver).unwrap();
        let e = fault(&launches, "boom");
        assert!(matches!(&e, Error::KernelFailed { kernel, .. } if kernel == "boom"));
        driver.lost = true;

        // A handle (its context) is alive: refused, naming the kernel, nothing reset.
        let e = registry.open(0, &mut driver).unwrap_err();
        assert!(
            matches!(
                &e,
                Error::DeviceLost { kernel: Some(k), handles_alive: true, .. } if k == "boom"
            ),
            "{e}"
        );
        assert!(e.to_string().contains("drop every"), "{e}");
        assert_eq!(driver.resets, 0);

        // Every handle dropped: the probe finds the fault, the device is reset, then opened.
        drop((context, launches));
        let (_, fresh) = registry.open(0, &mut driver).unwrap();
        assert_eq!(driver.resets, 1);
        assert!(lock(&fresh).lost().is_none());
        assert!(!driver.lost);
    }

    #[test]
    fn a_fault_the_reset_does_not_clear_says_to_restart() {
        let mut driver = Fake {
            lost: true,
            sticky_for_the_process: true,
            ..Fake::default()
        };
        let e = Registry::new().open(3, &mut driver).unwrap_err();
        assert!(
            matches!(
                &e,
                Error::DeviceLost {
                    ordinal: 3,
                    handles_alive: false,
                    ..
                }
            ),
            "{e}"
        );
        assert!(e.to_string().contains("restart the process"), "{e}");
        assert_eq!((driver.resets, driver.opens), (1, 2));
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
            fn reset(&mut self, _: usize) -> Result<(), Error> {
                panic!("never with a live handle")
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
