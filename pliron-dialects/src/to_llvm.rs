//! `mir` and `gpu` ops rewritten into pliron-llvm's LLVM dialect.
//!
//! Each op implements pliron-llvm's `ToLLVMDialect`, so the one conversion driver
//! (`builtin_to_llvm`) converts them together with any builtin ops.

use pliron::{
    builtin::{
        attributes::{IntegerAttr, StringAttr},
        op_interfaces::{CallOpCallable, OneResultInterface},
        types::{IntegerType, Signedness},
    },
    context::Context,
    derive::op_interface_impl,
    irbuild::{
        dialect_conversion::{DialectConversionRewriter, OperandsInfo},
        inserter::Inserter,
        rewriter::Rewriter,
    },
    op::Op,
    result::Result,
    r#type::{TypeHandle, Typed, TypedHandle},
    utils::apint::{APInt, bw},
    value::Value,
};
use pliron_llvm::{
    ToLLVMDialect,
    attributes::GepNoWrapFlags,
    op_interfaces::AlignableOpInterface,
    ops::{
        AllocaOp, CallIntrinsicOp, CallOp as LlvmCallOp, ConstantOp, GepIndex, GetElementPtrOp,
        InlineAsmOp as LlvmInlineAsmOp, LoadOp as LlvmLoadOp, StoreOp as LlvmStoreOp,
        UnreachableOp,
    },
    types::{ArrayType, FuncType, PointerType, VoidType},
};

use crate::{
    gpu::{BarrierOp, InlineAsmOp, IntrinsicCallOp, SpecialRegOp},
    mir::{CallOp, CopyOp, FieldPtrOp, IndexPtrOp, LoadOp, SlotOp, StoreOp, TrapOp},
};

fn int_type(ctx: &mut Context, width: u32) -> TypedHandle<IntegerType> {
    IntegerType::get(ctx, width, Signedness::Signless)
}

fn int_const(
    ctx: &mut Context,
    rewriter: &mut DialectConversionRewriter,
    width: u32,
    v: u64,
) -> Value {
    let ty = int_type(ctx, width);
    let attr = IntegerAttr::new(ty, APInt::from_u64(v, bw(width as usize)));
    let op = ConstantOp::new(ctx, Box::new(attr));
    rewriter.insert_op(ctx, &op);
    op.get_result(ctx)
}

fn intrinsic_call(
    ctx: &mut Context,
    rewriter: &mut DialectConversionRewriter,
    name: &str,
    result: TypeHandle,
    args: Vec<Value>,
) -> CallIntrinsicOp {
    let arg_types = args.iter().map(|a| a.get_type(ctx)).collect();
    let fn_ty = FuncType::get(ctx, result, arg_types, false);
    let op = CallIntrinsicOp::new(ctx, StringAttr::new(name.to_string()), fn_ty, args);
    rewriter.insert_op(ctx, &op);
    op
}

fn address_space(ctx: &Context, ptr: Value) -> Result<u32> {
    let ty = TypedHandle::<PointerType>::from_handle(ptr.get_type(ctx), ctx)?;
    Ok(ty.deref(ctx).address_space())
}

#[op_interface_impl]
impl ToLLVMDialect for SlotOp {
    fn rewrite(
        &self,
        ctx: &mut Context,
        rw: &mut DialectConversionRewriter,
        _: &OperandsInfo,
    ) -> Result<()> {
        let one = int_const(ctx, rw, 32, 1);
        let content = self.content_type(ctx);
        let alloca = AllocaOp::new(ctx, content, one, 0);
        if let Some(align) = self.alignment(ctx) {
            alloca.set_alignment(ctx, align);
        }
        rw.insert_op(ctx, &alloca);
        rw.replace_operation(ctx, self.get_operation(), alloca.get_operation());
        Ok(())
    }
}

#[op_interface_impl]
impl ToLLVMDialect for LoadOp {
    fn rewrite(
        &self,
        ctx: &mut Context,
        rw: &mut DialectConversionRewriter,
        _: &OperandsInfo,
    ) -> Result<()> {
        let ty = self.get_result(ctx).get_type(ctx);
        let load = LlvmLoadOp::new(ctx, self.get_operand_address(ctx), ty);
        if let Some(align) = self.alignment(ctx) {
            load.set_alignment(ctx, align);
        }
        rw.insert_op(ctx, &load);
        rw.replace_operation(ctx, self.get_operation(), load.get_operation());
        Ok(())
    }
}

#[op_interface_impl]
impl ToLLVMDialect for StoreOp {
    fn rewrite(
        &self,
        ctx: &mut Context,
        rw: &mut DialectConversionRewriter,
        _: &OperandsInfo,
    ) -> Result<()> {
        let store = LlvmStoreOp::new(
            ctx,
            self.get_operand_value(ctx),
            self.get_operand_address(ctx),
        );
        if let Some(align) = self.alignment(ctx) {
            store.set_alignment(ctx, align);
        }
        rw.insert_op(ctx, &store);
        rw.erase_operation(ctx, self.get_operation());
        Ok(())
    }
}

#[op_interface_impl]
impl ToLLVMDialect for FieldPtrOp {
    fn rewrite(
        &self,
        ctx: &mut Context,
        rw: &mut DialectConversionRewriter,
        _: &OperandsInfo,
    ) -> Result<()> {
        let base = self.get_operand_base(ctx);
        let offset = self.offset(ctx);
        if offset == 0 {
            rw.replace_operation_with_values(ctx, self.get_operation(), vec![base]);
            return Ok(());
        }
        let index = match u32::try_from(offset) {
            Ok(small) => GepIndex::Constant(small),
            Err(_) => GepIndex::Value(int_const(ctx, rw, 64, offset)),
        };
        let i8_ty = int_type(ctx, 8).into();
        let gep = GetElementPtrOp::new_with_no_wrap_flags(
            ctx,
            base,
            vec![index],
            i8_ty,
            GepNoWrapFlags::INBOUNDS,
        );
        rw.insert_op(ctx, &gep);
        rw.replace_operation(ctx, self.get_operation(), gep.get_operation());
        Ok(())
    }
}

#[op_interface_impl]
impl ToLLVMDialect for IndexPtrOp {
    fn rewrite(
        &self,
        ctx: &mut Context,
        rw: &mut DialectConversionRewriter,
        _: &OperandsInfo,
    ) -> Result<()> {
        let base = self.get_operand_base(ctx);
        let index = self.get_operand_index(ctx);
        // A GEP over `[stride x i8]` scales the index by the element stride, which keeps LLVM's
        // view of the access as "element i" for its address-mode and vectorisation analyses.
        // `nuw` as well as `inbounds`, as rustc's `ptr::add`: the index is unsigned. LLVM keeps
        // `nuw` when it splits the offset into parts (a row's start, then the column) where it
        // drops `inbounds`, and a `nuw` offset of a never-null pointer is never null: without
        // it, the null test of every `Option<&mut T>` an output shape hands out stayed, a
        // branch per element (softmax's output loop, sgemm's and transpose's stores).
        let i8_ty = int_type(ctx, 8).into();
        let elem = ArrayType::get(ctx, i8_ty, self.stride(ctx)).into();
        let gep = GetElementPtrOp::new_with_no_wrap_flags(
            ctx,
            base,
            vec![GepIndex::Value(index)],
            elem,
            GepNoWrapFlags::INBOUNDS | GepNoWrapFlags::NUW,
        );
        rw.insert_op(ctx, &gep);
        rw.replace_operation(ctx, self.get_operation(), gep.get_operation());
        Ok(())
    }
}

/// Copies up to this size become loads and stores as wide as the alignment allows; larger ones
/// stay an `llvm.memcpy`, which states no alignment (pliron-llvm's calls carry no parameter
/// attributes), so NVPTX expands it into a loop of byte copies. oxide-codegen copies larger
/// aggregates with a loop of its own instead.
const INLINE_COPY_BYTES: u64 = 1024;

/// Accesses wider than 8 bytes are left to LLVM's load/store vectoriser, which pairs
/// neighbouring 8-byte accesses into `ld.v2.b64` where the alignment allows.
const WIDEST_ACCESS_BYTES: u64 = 8;

#[op_interface_impl]
impl ToLLVMDialect for CopyOp {
    fn rewrite(
        &self,
        ctx: &mut Context,
        rw: &mut DialectConversionRewriter,
        _: &OperandsInfo,
    ) -> Result<()> {
        let dst = self.get_operand_dst(ctx);
        let src = self.get_operand_src(ctx);
        let size = self.size(ctx);
        let align = u64::from(self.alignment(ctx).unwrap_or(1));
        if size <= INLINE_COPY_BYTES {
            // Chunks in decreasing powers of two: each starts at a multiple of its own size and
            // of no more than `align`, so each access is aligned to its width. A chunk is what
            // LLVM's InstCombine itself makes of a memcpy of 1, 2, 4 or 8 bytes, so the copy
            // means what the memcpy did, uninitialised (padding) bytes included.
            let mut offset = 0;
            while offset < size {
                let mut width = align.clamp(1, WIDEST_ACCESS_BYTES);
                while width > size - offset {
                    width /= 2;
                }
                let ty = int_type(ctx, (width * 8) as u32).into();
                let from = byte_offset(ctx, rw, src, offset);
                let value = LlvmLoadOp::new(ctx, from, ty);
                value.set_alignment(ctx, width as u32);
                rw.insert_op(ctx, &value);
                let value = value.get_result(ctx);
                let to = byte_offset(ctx, rw, dst, offset);
                let store = LlvmStoreOp::new(ctx, value, to);
                store.set_alignment(ctx, width as u32);
                rw.insert_op(ctx, &store);
                offset += width;
            }
            rw.erase_operation(ctx, self.get_operation());
            return Ok(());
        }
        // The intrinsic is overloaded on both pointers' address spaces.
        let memcpy = format!(
            "llvm.memcpy.p{}.p{}.i64",
            address_space(ctx, dst)?,
            address_space(ctx, src)?
        );
        let size = int_const(ctx, rw, 64, size);
        let volatile = int_const(ctx, rw, 1, 0);
        let void = VoidType::get(ctx).into();
        intrinsic_call(ctx, rw, &memcpy, void, vec![dst, src, size, volatile]);
        rw.erase_operation(ctx, self.get_operation());
        Ok(())
    }
}

/// `base + offset` bytes, in bounds (the copy stays inside both places).
fn byte_offset(
    ctx: &mut Context,
    rw: &mut DialectConversionRewriter,
    base: Value,
    offset: u64,
) -> Value {
    if offset == 0 {
        return base;
    }
    let index = u32::try_from(offset).expect("an inline copy is smaller than 4 GiB");
    let i8_ty = int_type(ctx, 8).into();
    let gep = GetElementPtrOp::new_with_no_wrap_flags(
        ctx,
        base,
        vec![GepIndex::Constant(index)],
        i8_ty,
        GepNoWrapFlags::INBOUNDS,
    );
    rw.insert_op(ctx, &gep);
    gep.get_result(ctx)
}

#[op_interface_impl]
impl ToLLVMDialect for CallOp {
    fn rewrite(
        &self,
        ctx: &mut Context,
        rw: &mut DialectConversionRewriter,
        _: &OperandsInfo,
    ) -> Result<()> {
        let callee = CallOpCallable::Direct(self.callee_symbol(ctx));
        let callee_ty = self.function_type(ctx);
        let args = self.get_operation().deref(ctx).operands().collect();
        let call = LlvmCallOp::new(ctx, callee, callee_ty, args);
        rw.insert_op(ctx, &call);
        if self.get_operation().deref(ctx).get_num_results() == 0 {
            rw.erase_operation(ctx, self.get_operation());
        } else {
            rw.replace_operation(ctx, self.get_operation(), call.get_operation());
        }
        Ok(())
    }
}

#[op_interface_impl]
impl ToLLVMDialect for TrapOp {
    fn rewrite(
        &self,
        ctx: &mut Context,
        rw: &mut DialectConversionRewriter,
        _: &OperandsInfo,
    ) -> Result<()> {
        let void = VoidType::get(ctx).into();
        intrinsic_call(ctx, rw, "llvm.trap", void, vec![]);
        let unreachable = UnreachableOp::new(ctx);
        rw.insert_op(ctx, &unreachable);
        rw.erase_operation(ctx, self.get_operation());
        Ok(())
    }
}

#[op_interface_impl]
impl ToLLVMDialect for SpecialRegOp {
    fn rewrite(
        &self,
        ctx: &mut Context,
        rw: &mut DialectConversionRewriter,
        _: &OperandsInfo,
    ) -> Result<()> {
        let name = self.register(ctx).llvm_intrinsic();
        let i32_ty = int_type(ctx, 32).into();
        let call = intrinsic_call(ctx, rw, name, i32_ty, vec![]);
        rw.replace_operation(ctx, self.get_operation(), call.get_operation());
        Ok(())
    }
}

#[op_interface_impl]
impl ToLLVMDialect for BarrierOp {
    fn rewrite(
        &self,
        ctx: &mut Context,
        rw: &mut DialectConversionRewriter,
        _: &OperandsInfo,
    ) -> Result<()> {
        let void = VoidType::get(ctx).into();
        let barrier_id = int_const(ctx, rw, 32, 0);
        intrinsic_call(ctx, rw, BarrierOp::LLVM_INTRINSIC, void, vec![barrier_id]);
        rw.erase_operation(ctx, self.get_operation());
        Ok(())
    }
}

/// Replaces `op` by `new`, or, when the result is `llvm.void` (which the verifier keeps unused),
/// erases it: a void value is not one to forward.
fn replace_or_erase(
    ctx: &mut Context,
    rw: &mut DialectConversionRewriter,
    op: &dyn Op,
    new: &dyn Op,
) {
    let result = op.get_operation().deref(ctx).get_result(0);
    if crate::verify::is_void(ctx, result.get_type(ctx)) {
        rw.erase_operation(ctx, op.get_operation());
    } else {
        rw.replace_operation(ctx, op.get_operation(), new.get_operation());
    }
}

#[op_interface_impl]
impl ToLLVMDialect for IntrinsicCallOp {
    fn rewrite(
        &self,
        ctx: &mut Context,
        rw: &mut DialectConversionRewriter,
        _: &OperandsInfo,
    ) -> Result<()> {
        let name = self.name(ctx);
        let result = self.get_result(ctx).get_type(ctx);
        let args = self.get_operation().deref(ctx).operands().collect();
        let call = intrinsic_call(ctx, rw, &name, result, args);
        replace_or_erase(ctx, rw, self, &call);
        Ok(())
    }
}

#[op_interface_impl]
impl ToLLVMDialect for InlineAsmOp {
    fn rewrite(
        &self,
        ctx: &mut Context,
        rw: &mut DialectConversionRewriter,
        _: &OperandsInfo,
    ) -> Result<()> {
        let result = self.get_result(ctx).get_type(ctx);
        let args = self.get_operation().deref(ctx).operands().collect();
        let asm = LlvmInlineAsmOp::new(
            ctx,
            result,
            args,
            &self.template(ctx),
            &self.constraints(ctx),
            self.has_side_effects(ctx),
        );
        // Every inline PTX call is `convergent`, as clang makes CUDA's: LLVM must not make it
        // control-dependent on more values than it is (sink a warp's `mma.sync` or `ldmatrix`
        // into a branch that some lanes skip), which would leave the instruction's other
        // lanes out.
        use pliron_llvm::llvm_attrs::{LlvmAttrValue, LlvmAttributesAttr};
        let mut attrs = LlvmAttributesAttr::new();
        attrs.set("convergent", LlvmAttrValue::Unit);
        // And, as clang's, one that neither has side effects nor clobbers memory touches none
        // (`memory(none)`, LLVM's `readnone`): a conversion or an `mma.sync` then moves, merges
        // and hoists like arithmetic instead of fencing every load and store around it.
        if !self.has_side_effects(ctx) && !self.constraints(ctx).contains("~{memory}") {
            attrs.set("memory", LlvmAttrValue::Int(0));
        }
        asm.set_attr_llvm_inline_asm_attrs(ctx, attrs);
        rw.insert_op(ctx, &asm);
        replace_or_erase(ctx, rw, self, &asm);
        Ok(())
    }
}

/// The pointer type every `mir` address has (the generic address space).
pub fn generic_ptr(ctx: &mut Context) -> TypeHandle {
    PointerType::get(ctx, 0).into()
}
