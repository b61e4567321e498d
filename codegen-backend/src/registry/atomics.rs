//! The atomic vocabulary of device-std's marks (`#[oxide_gpu::atomic(op = "...", scope = "...",
//! ordering = "...")]`): the operations, scopes and orderings an attribute may name, and the
//! LLVM attributes each stands for; and `core`'s atomic intrinsics, by symbol. The registry
//! parses marks into these, the uniformity analysis reads atomics as divergent, and the
//! importer's `atomics` lowers both to LLVM atomics.

use pliron::builtin::attributes::StringAttr;
use pliron_llvm::attributes::{AtomicOrderingAttr, AtomicRmwKindAttr, SyncScopeAttr};
use rustc_span::{Symbol, sym};

/// `AtomicRmwKindAttr` is not `Copy`; this is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RmwKind {
    Xchg,
    /// Float addition (`atom.add.f32`/`.f64`): only device-std's scoped atomics ask for it.
    FAdd,
    Add,
    Sub,
    And,
    Nand,
    Or,
    Xor,
    Max,
    Min,
    UMax,
    UMin,
}

impl RmwKind {
    pub(crate) fn attr(self) -> AtomicRmwKindAttr {
        match self {
            RmwKind::Xchg => AtomicRmwKindAttr::Xchg,
            RmwKind::FAdd => AtomicRmwKindAttr::FAdd,
            RmwKind::Add => AtomicRmwKindAttr::Add,
            RmwKind::Sub => AtomicRmwKindAttr::Sub,
            RmwKind::And => AtomicRmwKindAttr::And,
            RmwKind::Nand => AtomicRmwKindAttr::Nand,
            RmwKind::Or => AtomicRmwKindAttr::Or,
            RmwKind::Xor => AtomicRmwKindAttr::Xor,
            RmwKind::Max => AtomicRmwKindAttr::Max,
            RmwKind::Min => AtomicRmwKindAttr::Min,
            RmwKind::UMax => AtomicRmwKindAttr::UMax,
            RmwKind::UMin => AtomicRmwKindAttr::UMin,
        }
    }
}

/// The atomic intrinsics of `core`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AtomicIntrinsic {
    Load,
    Store,
    ReadModifyWrite(RmwKind),
    CompareExchange,
    Fence,
    SingleThreadFence,
}

impl AtomicIntrinsic {
    pub(crate) fn of(name: Symbol) -> Option<Self> {
        use AtomicIntrinsic::ReadModifyWrite as Rmw;
        Some(match name {
            sym::atomic_load => AtomicIntrinsic::Load,
            sym::atomic_store => AtomicIntrinsic::Store,
            sym::atomic_xchg => Rmw(RmwKind::Xchg),
            sym::atomic_xadd => Rmw(RmwKind::Add),
            sym::atomic_xsub => Rmw(RmwKind::Sub),
            sym::atomic_and => Rmw(RmwKind::And),
            sym::atomic_nand => Rmw(RmwKind::Nand),
            sym::atomic_or => Rmw(RmwKind::Or),
            sym::atomic_xor => Rmw(RmwKind::Xor),
            sym::atomic_max => Rmw(RmwKind::Max),
            sym::atomic_min => Rmw(RmwKind::Min),
            sym::atomic_umax => Rmw(RmwKind::UMax),
            sym::atomic_umin => Rmw(RmwKind::UMin),
            // A weak compare-exchange may fail spuriously; a strong one is a correct weak one.
            sym::atomic_cxchg | sym::atomic_cxchgweak => AtomicIntrinsic::CompareExchange,
            sym::atomic_fence => AtomicIntrinsic::Fence,
            sym::atomic_singlethreadfence => AtomicIntrinsic::SingleThreadFence,
            _ => return None,
        })
    }
}

/// What a device-std scoped atomic (`#[oxide_gpu::atomic(op = "...", scope = "...", ordering =
/// "...")]`) does with its arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScopedOp {
    /// `(ptr, value) -> old`.
    ReadModifyWrite(RmwKind),
    /// `(ptr, current, new) -> old`: CUDA's `atomicCAS`, the caller compares.
    CompareExchange,
    /// `()`.
    Fence,
}

impl ScopedOp {
    /// The operation an attribute names: `core`'s intrinsic names without `atomic_` (`add`,
    /// `umax`, `xchg`), plus `fadd`, `cas` and `fence`.
    pub(crate) fn from_name(name: &str) -> Option<ScopedOp> {
        use ScopedOp::ReadModifyWrite as Rmw;
        Some(match name {
            "xchg" => Rmw(RmwKind::Xchg),
            "add" => Rmw(RmwKind::Add),
            "fadd" => Rmw(RmwKind::FAdd),
            "sub" => Rmw(RmwKind::Sub),
            "and" => Rmw(RmwKind::And),
            "or" => Rmw(RmwKind::Or),
            "xor" => Rmw(RmwKind::Xor),
            "max" => Rmw(RmwKind::Max),
            "min" => Rmw(RmwKind::Min),
            "umax" => Rmw(RmwKind::UMax),
            "umin" => Rmw(RmwKind::UMin),
            "cas" => ScopedOp::CompareExchange,
            "fence" => ScopedOp::Fence,
            _ => return None,
        })
    }
}

/// The threads an atomic is atomic and ordered with respect to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AtomicScope {
    /// The block (PTX `.cta`).
    Block,
    /// The launch's device (`.gpu`), `core`'s atomics' scope.
    Device,
    /// The device and the host (`.sys`).
    System,
}

impl AtomicScope {
    pub(crate) fn from_name(name: &str) -> Option<AtomicScope> {
        Some(match name {
            "block" => AtomicScope::Block,
            "device" => AtomicScope::Device,
            "system" => AtomicScope::System,
            _ => return None,
        })
    }

    pub(crate) fn attr(self) -> SyncScopeAttr {
        match self {
            AtomicScope::Block => SyncScopeAttr::NamedScope(StringAttr::new("block".to_string())),
            AtomicScope::Device => SyncScopeAttr::NamedScope(StringAttr::new("device".to_string())),
            AtomicScope::System => SyncScopeAttr::System,
        }
    }
}

/// An atomic ordering by its `core::sync::atomic::Ordering` name in snake case.
pub(crate) fn ordering_from_name(name: &str) -> Option<AtomicOrderingAttr> {
    Some(match name {
        "relaxed" => AtomicOrderingAttr::Monotonic,
        "acquire" => AtomicOrderingAttr::Acquire,
        "release" => AtomicOrderingAttr::Release,
        "acq_rel" => AtomicOrderingAttr::AcqRel,
        "seq_cst" => AtomicOrderingAttr::SeqCst,
        _ => return None,
    })
}
