//! Internal errors: what the device compiler was compiling when it panicked.
//!
//! A panic in the device compiler is a bug in oxide. rustc's panic hook prints it as it happens
//! (message and location; the process-global hook is left alone). As the panic unwinds, each
//! [`Compiling`] guard it passes records what was being compiled, and [`catch`] turns the panic
//! into an error spanned at the innermost function and naming the kernel that reached it, so
//! the report says which kernel to send, and compilation stops there like on any other error.

use std::any::Any;
use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};

use rustc_span::Span;

use crate::error::{DeviceError, DeviceErrorKind};

/// Something the device compiler was compiling.
#[derive(Clone)]
pub(crate) struct Frame {
    /// From the kernel (first) to the function being compiled (last).
    pub(crate) call_path: Vec<String>,
    /// The function's definition.
    pub(crate) span: Span,
}

thread_local! {
    /// What the guards a panic unwound through recorded, innermost first.
    static UNWOUND: RefCell<Vec<Frame>> = const { RefCell::new(Vec::new()) };
}

/// Held while compiling something: records it if a panic unwinds through the guard, and does
/// nothing otherwise.
pub(crate) struct Compiling(Option<Frame>);

impl Compiling {
    /// The function at the end of `call_path`, defined at `span`.
    pub(crate) fn function(call_path: &[String], span: Span) -> Self {
        Compiling(Some(Frame {
            call_path: call_path.to_vec(),
            span,
        }))
    }
}

impl Drop for Compiling {
    fn drop(&mut self) {
        if std::thread::panicking()
            && let Some(frame) = self.0.take()
        {
            // `try_with`: while the thread itself is being torn down there is no one to tell.
            let _ = UNWOUND.try_with(|unwound| unwound.borrow_mut().push(frame));
        }
    }
}

/// A panic [`catch`] stopped.
pub(crate) struct Panic {
    pub(crate) message: String,
    /// What the guards recorded, innermost first; empty for a panic outside any guard.
    pub(crate) frames: Vec<Frame>,
}

/// Runs `f`; a panic in it becomes `Err` with what was being compiled.
pub(crate) fn catch<T>(f: impl FnOnce() -> T) -> Result<T, Panic> {
    UNWOUND.with(|unwound| unwound.borrow_mut().clear());
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| Panic {
        message: payload_message(payload.as_ref()),
        frames: UNWOUND.with(|unwound| std::mem::take(&mut *unwound.borrow_mut())),
    })
}

/// A panic's message; `span_bug!` and friends panic with a marker after reporting the bug.
fn payload_message(payload: &(dyn Any + Send)) -> String {
    oxide_contract::panic_str(payload)
        .unwrap_or("the compiler bug reported above")
        .to_owned()
}

impl Panic {
    /// The error to report: at the innermost function being compiled, else (a panic in the
    /// passes or the emitter) at `whole_crate`, named after the crate.
    pub(crate) fn into_error(self, crate_name: &str, whole_crate: Span) -> DeviceError {
        let Panic { message, frames } = self;
        let (call_path, span) = frames
            .into_iter()
            .next()
            .map_or((Vec::new(), whole_crate), |f| (f.call_path, f.span));
        let function = call_path
            .last()
            .cloned()
            .unwrap_or_else(|| crate_name.to_string());
        DeviceError {
            kind: DeviceErrorKind::Internal { function, message },
            span,
            call_path,
            call_sites: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use rustc_span::DUMMY_SP;

    use super::*;

    fn path(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn a_panic_names_what_it_unwound_through() {
        let caught = catch(|| {
            let _kernel = Compiling::function(&path(&["k"]), DUMMY_SP);
            let _callee = Compiling::function(&path(&["k", "helper"]), DUMMY_SP);
            panic!("invariant broken");
        });
        // `Ok` holds `!`: a panic is the only way out.
        let Err(panic) = caught;
        assert_eq!(panic.message, "invariant broken");
        let recorded: Vec<Vec<String>> = panic.frames.iter().map(|f| f.call_path.clone()).collect();
        assert_eq!(recorded, [path(&["k", "helper"]), path(&["k"])]);

        let error = panic.into_error("krate", DUMMY_SP);
        assert_eq!(error.call_path, path(&["k", "helper"]));
        let text = error.kind.to_string();
        assert!(
            text.contains("`helper`") && text.contains("invariant broken"),
            "{text}"
        );
    }

    #[test]
    fn guards_left_normally_record_nothing() {
        let value = catch(|| {
            let _guard = Compiling::function(&path(&["k"]), DUMMY_SP);
            7
        });
        assert!(matches!(value, Ok(7)));
        let Err(panic) = catch(|| std::panic::panic_any(String::from("outside")));
        assert_eq!(panic.message, "outside");
        assert!(panic.frames.is_empty());
        let error = panic.into_error("krate", DUMMY_SP);
        assert!(error.kind.to_string().contains("compiling `krate`"));
    }
}
