//! A kernel's body that O3 left a call of its entry is inlined after O3.
//!
//! `#[kernel]` wraps a kernel with shared parameters in an entry of its own that calls the body
//! once ([`oxide_contract::KERNEL_BODY_FN`], marked [`oxide_contract::KERNEL_BODY_ATTRIBUTE`] by
//! the backend). O3 inlines it, a single call of an internal function, unless unrolling inside
//! the body (an `oxide::unroll` loop, marked before O3) has grown it past even that call's
//! threshold; a call left so passes the body's values through local memory and its arrays
//! cannot be promoted. Marking every such body `alwaysinline` before O3 instead changed what O3
//! made of small kernels (the body is then inlined before it is simplified): only the bodies
//! O3 left are inlined here, and [`crate::target::UNROLL_AND_CLEAN`] cleans up after them.

use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::Module;
use inkwell::values::AsValueRef;
use llvm_sys::core::LLVMGetFirstUse;

/// Marks `alwaysinline` each kernel body of `module` that is still called, and returns how many;
/// the caller then runs LLVM's `always-inline`.
pub(crate) fn mark_bodies_left_called(module: &Module<'_>) -> usize {
    let inline = Attribute::get_named_enum_kind_id("alwaysinline");
    let inline = module.get_context().create_enum_attribute(inline, 0);
    let noinline = Attribute::get_named_enum_kind_id("noinline");
    let mut marked = 0;
    for function in module.get_functions() {
        let is_body = function
            .get_string_attribute(
                AttributeLoc::Function,
                oxide_contract::KERNEL_BODY_ATTRIBUTE,
            )
            .is_some();
        // SAFETY: `function` belongs to `module`, which outlives this call.
        let called = !unsafe { LLVMGetFirstUse(function.as_value_ref()) }.is_null();
        // `noinline` (a body the user marked `#[inline(never)]`) and `alwaysinline` together
        // fail LLVM's verifier.
        let may_inline = function
            .get_enum_attribute(AttributeLoc::Function, noinline)
            .is_none();
        if is_body && called && may_inline && function.count_basic_blocks() > 0 {
            function.add_attribute(AttributeLoc::Function, inline);
            marked += 1;
        }
    }
    marked
}
