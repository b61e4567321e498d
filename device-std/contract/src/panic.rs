//! The text of a caught panic. It lives in the contract because this is the one crate every
//! side links (the host runtime, the emulator, the codegen backend, the conformance harness),
//! and each of them turns a `catch_unwind` payload into a message.

use std::any::Any;

/// What [`panic_message`] says for a payload that is neither `&str` nor `String` (a panic
/// raised with `std::panic::panic_any`, or rustc's `bug!`).
pub const NON_STRING_PANIC: &str = "(a panic payload that is not a string)";

/// The message a panic carries: the `&'static str` of `panic!("literal")` or the `String` of a
/// formatted `panic!`, else `None`. For a caller with a better text for the other payloads than
/// [`NON_STRING_PANIC`].
pub fn panic_str(payload: &(dyn Any + Send)) -> Option<&str> {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
}

/// The message of a panic's payload (what `catch_unwind` returns): its text, else
/// [`NON_STRING_PANIC`].
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    panic_str(payload).unwrap_or(NON_STRING_PANIC).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::panic::{catch_unwind, panic_any};

    /// The payload of `f`'s panic (libtest captures the printed message).
    fn payload_of(f: impl FnOnce() + std::panic::UnwindSafe) -> Box<dyn Any + Send> {
        catch_unwind(f).expect_err("the closure panics")
    }

    #[test]
    fn str_string_and_other_payloads() {
        assert_eq!(panic_message(&*payload_of(|| panic!("literal"))), "literal");
        let n = 7;
        assert_eq!(
            panic_message(&*payload_of(move || panic!("formatted {n}"))),
            "formatted 7"
        );
        let other = payload_of(|| panic_any(42u32));
        assert_eq!(panic_str(&*other), None);
        assert_eq!(panic_message(&*other), NON_STRING_PANIC);
    }
}
