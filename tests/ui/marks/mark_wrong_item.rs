//! A device mark on the wrong kind of item is an error at the mark: function marks belong on a
//! `fn` with a body, type marks on a struct. Before, they were ignored (a struct, a static, a
//! constant, a field, a trait's method declaration, a function with a type's mark) or believed:
//! the closure's call was compiled as the intrinsic, with the closure as its operand (an
//! internal error of the backend), under a mark no `unsafe` covers.
#![feature(register_tool, stmt_expr_attributes)]
#![register_tool(oxide_gpu)]

use oxide::prelude::*;

#[oxide_gpu::nvvm("llvm.nvvm.activemask")]
pub struct NotAFunction;

#[oxide_gpu::barrier]
pub static NOT_A_FUNCTION_EITHER: u32 = 0;

#[oxide_gpu::special_register("tid.x")]
pub const NOR_THIS: u32 = 0;

#[oxide_gpu::shared_memory]
pub unsafe fn not_a_type() {}

pub struct Lanes {
    #[oxide_gpu::warp_uniform]
    pub lane: u32,
}

pub trait Lane {
    #[oxide_gpu::nvvm("llvm.nvvm.read.ptx.sreg.laneid")]
    unsafe fn lane() -> u32;
}

#[kernel]
pub fn k(mut out: DisjointSlice<u32>) {
    let lane = #[oxide_gpu::nvvm("llvm.nvvm.read.ptx.sreg.laneid")]
    || 0u32;
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = lane();
    }
}

fn main() {}
