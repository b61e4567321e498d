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
use llvm_sys::core::{LLVMGetInstructionParent, LLVMIsAAllocaInst, LLVMIsAInstruction};
use llvm_sys::prelude::{LLVMBasicBlockRef, LLVMValueRef};

use super::first_on_path;
use crate::cfg::Cfg;
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

    /// The test's value (1 or 0) on the edge `p → b`, where the phi is `v`: decided by `v`
    /// itself, or, for a test against zero, by a branch above `p` that tested `v`'s address
    /// against null.
    pub(super) unsafe fn value_on_edge(
        &self,
        cfg: &Cfg,
        v: LLVMValueRef,
        p: LLVMBasicBlockRef,
        b: LLVMBasicBlockRef,
    ) -> Option<u64> {
        unsafe {
            let equal = match self.equal_for(v) {
                Some(equal) => equal,
                None if self.is_zero() => !nonzero_on_edge(cfg, v, p, b)?,
                None => return None,
            };
            Some(u64::from(equal == self.eq))
        }
    }

    unsafe fn is_zero(&self) -> bool {
        unsafe {
            is_null(self.constant)
                || (!LLVMIsAConstantInt(self.constant).is_null()
                    && LLVMConstIntGetZExtValue(self.constant) == 0)
        }
    }

    /// Whether `v` equals the constant, when `v` alone says.
    unsafe fn equal_for(&self, v: LLVMValueRef) -> Option<bool> {
        unsafe {
            if !LLVMIsAConstantInt(v).is_null() && !LLVMIsAConstantInt(self.constant).is_null() {
                return Some(
                    LLVMConstIntGetZExtValue(v) == LLVMConstIntGetZExtValue(self.constant),
                );
            }
            if self.is_zero() {
                if is_null(v) {
                    return Some(true);
                }
                if is_never_null(address_of(v), 0) {
                    return Some(false);
                }
            }
            None
        }
    }
}

/// `P` for `ptrtoint P`, else `v`: an integer test against 0 of an address is a null test.
unsafe fn address_of(v: LLVMValueRef) -> LLVMValueRef {
    unsafe {
        if !LLVMIsAInstruction(v).is_null()
            && LLVMGetInstructionOpcode(v) == LLVMOpcode::LLVMPtrToInt
        {
            LLVMGetOperand(v, 0)
        } else {
            v
        }
    }
}

/// Whether `v` (or the address it was converted from) is non-zero on the edge `p → b`, by a
/// branch above `p`, below `v`'s definition, on its test against null or zero.
unsafe fn nonzero_on_edge(
    cfg: &Cfg,
    v: LLVMValueRef,
    p: LLVMBasicBlockRef,
    b: LLVMBasicBlockRef,
) -> Option<bool> {
    unsafe {
        let (value, address) = (v, address_of(v));
        let stop =
            (!LLVMIsAInstruction(address).is_null()).then(|| LLVMGetInstructionParent(address));
        first_on_path(cfg, p, b, stop, |cond, branch, child| {
            let zero_test = zero_test_of(cond)?;
            if zero_test.0 != value && zero_test.0 != address {
                return None;
            }
            let taken = branch.value_towards(child)?;
            // `eq` taken true, or `ne` taken false: zero on this path.
            Some(Some((taken == 1) != zero_test.1))
        })
    }
}

/// For `icmp eq|ne X, 0|null`: `(X, is_eq)`.
unsafe fn zero_test_of(cond: LLVMValueRef) -> Option<(LLVMValueRef, bool)> {
    unsafe {
        if LLVMIsAInstruction(cond).is_null()
            || LLVMGetInstructionOpcode(cond) != LLVMOpcode::LLVMICmp
        {
            return None;
        }
        let eq = match LLVMGetICmpPredicate(cond) {
            LLVMIntPredicate::LLVMIntEQ => true,
            LLVMIntPredicate::LLVMIntNE => false,
            _ => return None,
        };
        let zero = |c: LLVMValueRef| {
            is_null(c) || (!LLVMIsAConstantInt(c).is_null() && LLVMConstIntGetZExtValue(c) == 0)
        };
        let (a, b) = (LLVMGetOperand(cond, 0), LLVMGetOperand(cond, 1));
        if zero(b) {
            Some((a, eq))
        } else if zero(a) {
            Some((b, eq))
        } else {
            None
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

/// Whether pointer `v` is known not to be null: a `nonnull` parameter or a stack slot, or an
/// in-bounds address computation (`getelementptr inbounds`) from such a pointer — in the generic
/// address space, where null is no object's address.
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
        if !LLVMIsAAllocaInst(v).is_null() {
            return LLVMGetPointerAddressSpace(LLVMTypeOf(v)) == 0;
        }
        !LLVMIsAGetElementPtrInst(v).is_null()
            && LLVMIsInBounds(v) != 0
            && LLVMGetPointerAddressSpace(LLVMTypeOf(v)) == 0
            && is_never_null(LLVMGetOperand(v, 0), depth + 1)
    }
}
