//! A dependency with device marks the backend refuses, compiled without the backend (plain
//! rustc), so never checked where they are written: tests/ui/marks/mark_unchecked_dependency.rs.
#![feature(register_tool)]
#![register_tool(oxide_gpu)]

/// Stores `value` at the global address `address`, from safe code.
#[oxide_gpu::ptx(template = "st.global.u32 [$0], $1;", constraints = "l,r", volatile)]
#[inline(never)]
pub fn store(_address: u64, _value: u32) {}

/// Marked the same in every lane of a warp, which no check of this crate was there to refuse
/// on a safe function.
#[oxide_gpu::warp_uniform]
#[inline(never)]
pub fn lane_is_even() -> bool {
    true
}

/// A `static` of it would be uninitialised shared memory, if the mark were believed.
#[oxide_gpu::shared_memory]
pub struct Tile {
    pub value: u32,
}

/// `%laneid`, a mark the rule accepts: an `unsafe fn`.
///
/// # Safety
/// None: the intrinsic reads a register; the body answers for a warp of one lane.
#[oxide_gpu::nvvm("llvm.nvvm.read.ptx.sreg.laneid")]
#[inline(never)]
pub unsafe fn lane() -> u32 {
    0
}
