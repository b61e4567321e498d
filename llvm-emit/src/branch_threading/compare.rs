//! A merge block's own test: `icmp eq|ne %phi, C`, decided per predecessor from the value the
//! phi takes on its edge.
//!
//! This is the shape every `if let Some(x) = shape.own_mut(..)` leaves once inlined: the
//! shape's `None` paths and its `Some` path meet in one block that merges the reference (null
//! on the `None` paths: the niche of `Option<&mut T>`) and tests it against null. The incoming
//! values answer the test — null is null, and an in-bounds address computed from a parameter
//! that is never null (the launcher's promise, docs/contracts.md) is not — so each path can go
//! straight to its side. LLVM's InstCombine does not fold such a test when the merged pointer
//! has other uses (the loads and stores through it).

use llvm_sys::core::{
    LLVMConstIntGetZExtValue, LLVMCountParams, LLVMGetEnumAttributeAtIndex,
    LLVMGetEnumAttributeKindForName, LLVMGetFirstUse, LLVMGetICmpPredicate,
    LLVMGetInstructionOpcode, LLVMGetIntTypeWidth, LLVMGetNextUse, LLVMGetOperand, LLVMGetParam,
    LLVMGetParamParent, LLVMGetPointerAddressSpace, LLVMGetUser, LLVMIsAArgument,
    LLVMIsAConstantInt, LLVMIsAConstantPointerNull, LLVMIsAGetElementPtrInst, LLVMIsInBounds,
    LLVMTypeOf,
};
use llvm_sys::prelude::LLVMValueRef;
use llvm_sys::{LLVMIntPredicate, LLVMOpcode, LLVMTypeKind};

/// How many address computations deep a pointer is followed back to a parameter.
const MAX_DEPTH: usize = 8;

/// A test of one of the block's phis against a constant, for equality.
pub(super) struct Test {
    pub(super) icmp: LLVMValueRef,
    pub(super) phi: LLVMValueRef,
    constant: LLVMValueRef,
    /// `eq` (else `ne`).
    eq: bool,
}

impl Test {
    /// `icmp` as a test of one of `phis` against a constant whose only user is `term`.
    pub(super) unsafe fn of(
        icmp: LLVMValueRef,
        phis: &[LLVMValueRef],
        term: LLVMValueRef,
    ) -> Option<Test> {
        unsafe {
            if LLVMGetInstructionOpcode(icmp) != LLVMOpcode::LLVMICmp {
                return None;
            }
            let eq = match LLVMGetICmpPredicate(icmp) {
                LLVMIntPredicate::LLVMIntEQ => true,
                LLVMIntPredicate::LLVMIntNE => false,
                _ => return None,
            };
            let u = LLVMGetFirstUse(icmp);
            if u.is_null() || LLVMGetUser(u) != term || !LLVMGetNextUse(u).is_null() {
                return None;
            }
            let (a, b) = (LLVMGetOperand(icmp, 0), LLVMGetOperand(icmp, 1));
            let (phi, constant) = if phis.contains(&a) { (a, b) } else { (b, a) };
            if !phis.contains(&phi) || !is_decidable_constant(constant) {
                return None;
            }
            Some(Test {
                icmp,
                phi,
                constant,
                eq,
            })
        }
    }

    /// The test's value (1 or 0) when the phi is `v`, if `v` decides it.
    pub(super) unsafe fn value_for(&self, v: LLVMValueRef) -> Option<u64> {
        unsafe {
            let equal = if is_null(self.constant) {
                if is_null(v) {
                    true
                } else if is_never_null(v, 0) {
                    false
                } else {
                    return None;
                }
            } else {
                if LLVMIsAConstantInt(v).is_null() {
                    return None;
                }
                LLVMConstIntGetZExtValue(v) == LLVMConstIntGetZExtValue(self.constant)
            };
            Some(u64::from(equal == self.eq))
        }
    }
}

unsafe fn is_null(v: LLVMValueRef) -> bool {
    unsafe { !LLVMIsAConstantPointerNull(v).is_null() }
}

/// A null pointer, or an integer constant of at most 64 bits (read as 64 bits).
unsafe fn is_decidable_constant(v: LLVMValueRef) -> bool {
    unsafe {
        is_null(v)
            || (!LLVMIsAConstantInt(v).is_null()
                && llvm_sys::core::LLVMGetTypeKind(LLVMTypeOf(v))
                    == LLVMTypeKind::LLVMIntegerTypeKind
                && LLVMGetIntTypeWidth(LLVMTypeOf(v)) <= 64)
    }
}

/// Whether pointer `v` is known not to be null: a `nonnull` parameter, or an in-bounds address
/// computation (`getelementptr inbounds`, generic address space, where null is no object's
/// address) from such a pointer.
unsafe fn is_never_null(v: LLVMValueRef, depth: usize) -> bool {
    unsafe {
        if depth > MAX_DEPTH {
            return false;
        }
        if !LLVMIsAArgument(v).is_null() {
            let function = LLVMGetParamParent(v);
            let Some(index) =
                (0..LLVMCountParams(function)).find(|&i| LLVMGetParam(function, i) == v)
            else {
                return false;
            };
            let kind = LLVMGetEnumAttributeKindForName(c"nonnull".as_ptr(), "nonnull".len());
            // Attribute index 0 is the return value; parameter i is i + 1.
            return !LLVMGetEnumAttributeAtIndex(function, index + 1, kind).is_null();
        }
        !LLVMIsAGetElementPtrInst(v).is_null()
            && LLVMIsInBounds(v) != 0
            && LLVMGetPointerAddressSpace(LLVMTypeOf(v)) == 0
            && is_never_null(LLVMGetOperand(v, 0), depth + 1)
    }
}
