//! Signatures: the kernel parameter ABI shared with the host (docs/contracts.md) and the internal
//! ABI between device functions.

#[allow(unused_imports)]
use crate::import::prelude::*;
use oxide_dialects::mir::StoreOp;
use pliron::{
    basic_block::BasicBlock,
    context::Ptr,
    r#type::{TypeHandle, TypedHandle},
    value::Value,
};
use pliron_llvm::{
    llvm_attrs::{LlvmAttrValue, LlvmAttributesAttr},
    types::{FuncType, VoidType},
};
use rustc_abi::BackendRepr;
use rustc_middle::{
    mir::{Body, Local},
    ty::{self, Instance, Ty, TypingEnv, layout::TyAndLayout},
};
use rustc_span::Span;

use super::{
    DeviceModule, FnCx, LocalPlace,
    operands::{Operand, OperandVal},
    places::PlaceRef,
    types,
};
use crate::error::{DeviceError, DeviceErrorKind, DeviceResult};

/// How one value crosses a call between device functions.
#[derive(Clone, Debug)]
pub(crate) enum ArgPass {
    Ignore,
    Imm,
    Pair,
    /// A pointer to a copy the caller made.
    ByRef,
}

#[derive(Clone, Debug)]
pub(crate) enum RetPass {
    Void,
    Imm,
    /// The caller passes the address of the result as the first parameter.
    OutPtr,
}

#[derive(Clone, Debug)]
pub(crate) struct DeviceAbi {
    /// One entry per argument after untupling a spread (`rust-call`) argument.
    pub(crate) args: Vec<ArgPass>,
    pub(crate) ret: RetPass,
}

fn classify(layout: TyAndLayout<'_>) -> ArgPass {
    if layout.is_zst() {
        return ArgPass::Ignore;
    }
    match layout.backend_repr {
        BackendRepr::Scalar(_) => ArgPass::Imm,
        BackendRepr::ScalarPair(..) => ArgPass::Pair,
        _ => ArgPass::ByRef,
    }
}

fn param_types(
    m: &mut DeviceModule<'_>,
    layout: TyAndLayout<'_>,
    pass: &ArgPass,
    span: Span,
) -> DeviceResult<Vec<TypeHandle>> {
    let unsupported = |m: &DeviceModule<'_>| {
        let _ = m;
        Err(DeviceError::new(
            span,
            DeviceErrorKind::Unsupported {
                construct: format!("a value of type `{}` as an argument", layout.ty),
            },
        ))
    };
    Ok(match (pass, layout.backend_repr) {
        (ArgPass::Ignore, _) => vec![],
        (ArgPass::Imm, BackendRepr::Scalar(s)) => match types::scalar_immediate(&mut m.ctx, s) {
            Some(t) => vec![t],
            None => return unsupported(m),
        },
        (ArgPass::Pair, BackendRepr::ScalarPair(a, b)) => {
            match (
                types::scalar_immediate(&mut m.ctx, a),
                types::scalar_immediate(&mut m.ctx, b),
            ) {
                (Some(x), Some(y)) => vec![x, y],
                _ => return unsupported(m),
            }
        }
        _ => vec![types::ptr(&mut m.ctx)],
    })
}

/// The argument layouts of a body, with a spread (`rust-call`) tuple argument untupled.
fn arg_layouts<'tcx>(
    m: &DeviceModule<'tcx>,
    instance: Instance<'tcx>,
    body: &Body<'tcx>,
    span: Span,
) -> DeviceResult<Vec<(Local, Option<usize>, TyAndLayout<'tcx>)>> {
    let mut out = Vec::new();
    for local in body.args_iter() {
        let ty = mono(m, instance, body.local_decls[local].ty);
        if body.spread_arg == Some(local) {
            let ty::Tuple(fields) = ty.kind() else {
                return Err(DeviceError::new(
                    span,
                    DeviceErrorKind::Unsupported {
                        construct: "a spread argument that is not a tuple".into(),
                    },
                ));
            };
            for (i, field) in fields.iter().enumerate() {
                out.push((local, Some(i), m.layout_of(field, span)?));
            }
        } else {
            out.push((local, None, m.layout_of(ty, span)?));
        }
    }
    Ok(out)
}

fn mono<'tcx>(m: &DeviceModule<'tcx>, instance: Instance<'tcx>, ty: Ty<'tcx>) -> Ty<'tcx> {
    instance.instantiate_mir_and_normalize_erasing_regions(
        m.tcx,
        m.typing_env(),
        ty::EarlyBinder::bind(ty),
    )
}

pub(crate) fn device_fn_signature<'tcx>(
    m: &mut DeviceModule<'tcx>,
    instance: Instance<'tcx>,
    span: Span,
) -> DeviceResult<(DeviceAbi, TypedHandle<FuncType>)> {
    let body = m.tcx.instance_mir(instance.def);
    let mut params = Vec::new();
    let ret_layout = m.layout_of(mono(m, instance, body.return_ty()), span)?;
    let ret = if ret_layout.is_zst() || ret_layout.is_uninhabited() {
        RetPass::Void
    } else if let BackendRepr::Scalar(_) = ret_layout.backend_repr {
        RetPass::Imm
    } else {
        params.push(types::ptr(&mut m.ctx));
        RetPass::OutPtr
    };
    let result: TypeHandle = match (&ret, ret_layout.backend_repr) {
        (RetPass::Imm, BackendRepr::Scalar(s)) => types::scalar_immediate(&mut m.ctx, s)
            .ok_or_else(|| {
                DeviceError::new(
                    span,
                    DeviceErrorKind::Unsupported {
                        construct: format!("returning `{}`", ret_layout.ty),
                    },
                )
            })?,
        _ => VoidType::get(&m.ctx).into(),
    };
    let mut args = Vec::new();
    for (_, _, layout) in arg_layouts(m, instance, body, span)? {
        let pass = classify(layout);
        params.extend(param_types(m, layout, &pass, span)?);
        args.push(pass);
    }
    let ty = FuncType::get(&m.ctx, result, params, false);
    Ok((DeviceAbi { args, ret }, ty))
}

/// How a kernel argument arrives (docs/contracts.md, "Kernel parameter ABI").
enum KernelParam {
    Ignore,
    /// Data pointer and length: `&[T]`, `&mut [T]`, `DisjointSlice<T>`. `read_only` for a
    /// `&[T]` without interior mutability (`T: Freeze`), which no thread writes during the
    /// launch; `unique` unless it is a `&[T]` with interior mutability (`&[AtomicU32]`), which
    /// every thread writes through its own copy of the pointer.
    PointerAndLength {
        read_only: bool,
        unique: bool,
        elem_align: u64,
        /// Pointer-sized words after the length: a 2-D output's row width.
        extra_words: usize,
    },
    /// One primitive scalar, in its memory representation.
    Primitive(TypeHandle),
    /// The bytes of any other `Copy` value.
    Bytes(TypeHandle),
}

fn is_disjoint_slice(m: &DeviceModule<'_>, ty: Ty<'_>) -> bool {
    matches!(ty.kind(), ty::Adt(adt, _) if m.registry.is_disjoint_slice(adt.did()))
}

/// Whether a marked output's layout is what the kernel ABI passes for one: a data pointer, then
/// one or two more pointer-sized scalars (length, row width), besides zero-sized fields.
fn is_words<'tcx>(m: &DeviceModule<'tcx>, layout: TyAndLayout<'tcx>) -> bool {
    let cx = rustc_middle::ty::layout::LayoutCx::new(m.tcx, m.typing_env());
    let words: Vec<TyAndLayout<'tcx>> = (0..layout.fields.count())
        .map(|f| layout.field(&cx, f))
        .filter(|f| !f.is_zst())
        .collect();
    (2..=4).contains(&words.len())
        && words.iter().all(|w| {
            types::as_scalar(*w).is_some()
                && w.size.bytes() == m.tcx.data_layout.pointer_size().bytes()
        })
}

fn kernel_param<'tcx>(m: &mut DeviceModule<'tcx>, layout: TyAndLayout<'tcx>) -> KernelParam {
    let ty = layout.ty;
    if layout.is_zst() {
        return KernelParam::Ignore;
    }
    if let ty::Ref(_, inner, mutability) = ty.kind()
        && let ty::Slice(elem) = inner.kind()
    {
        let elem_align = m
            .layout_of(*elem, rustc_span::DUMMY_SP)
            .map_or(1, |l| l.align.abi.bytes());
        // As rustc does for `&T`: `noalias readonly` only when nothing can write through the
        // reference (an atomic read-modify-write through a `readonly` pointer is undefined in
        // LLVM IR, and `noalias` would let LLVM assume no other thread's writes).
        let frozen = elem.is_freeze(m.tcx, TypingEnv::fully_monomorphized());
        return KernelParam::PointerAndLength {
            read_only: !mutability.is_mut() && frozen,
            unique: mutability.is_mut() || frozen,
            elem_align,
            extra_words: 0,
        };
    }
    // The element is the slice's one type argument, whatever lifetimes come before it.
    if is_disjoint_slice(m, ty)
        && let ty::Adt(_, args) = ty.kind()
        && let Some(elem) = args.types().next()
    {
        let elem_align = m
            .layout_of(elem, rustc_span::DUMMY_SP)
            .map_or(1, |l| l.align.abi.bytes());
        // `DisjointSlice`, `DisjointChunks`, `BlockWindows`: pointer and length; the 2-D outputs
        // a row width and a pitch after them, `DisjointPairs` a distance (docs/contracts.md):
        // every field that is not zero-sized is one word.
        let cx = rustc_middle::ty::layout::LayoutCx::new(m.tcx, m.typing_env());
        let words = (0..layout.fields.count())
            .filter(|&f| !layout.field(&cx, f).is_zst())
            .count();
        return KernelParam::PointerAndLength {
            read_only: false,
            unique: true,
            elem_align,
            extra_words: words.saturating_sub(2),
        };
    }
    if types::is_primitive_param(ty)
        && let Some(s) = types::as_scalar(layout)
        && let Some(t) = types::scalar_memory(&mut m.ctx, s)
    {
        return KernelParam::Primitive(t);
    }
    KernelParam::Bytes(param_words(&mut m.ctx, layout))
}

/// The LLVM type a by-value aggregate parameter is passed as: an array of integers as wide as
/// its alignment allows (up to 8 bytes), so that NVPTX declares the parameter with that
/// alignment (`.param .align 8 .b8 p[24]`) and reads it in words, not bytes.
fn param_words(ctx: &mut pliron::context::Context, layout: TyAndLayout<'_>) -> TypeHandle {
    let size = layout.size.bytes();
    let width = layout.align.abi.bytes().min(8);
    // Rust sizes are multiples of the alignment; anything else goes byte by byte.
    if width <= 1 || !size.is_multiple_of(width) {
        return types::bytes(ctx, size);
    }
    let word = types::int(ctx, width * 8);
    pliron_llvm::types::ArrayType::get(ctx, word, size / width).into()
}

/// The kernel's LLVM type and, per parameter, the LLVM attributes that tell the optimiser what
/// Rust already proved: slices passed to a kernel never alias (the host launcher borrows each
/// buffer once, mutably or not), and `&[T]` is read-only, which gives `ld.global.nc`.
pub(crate) fn kernel_signature<'tcx>(
    m: &mut DeviceModule<'tcx>,
    instance: Instance<'tcx>,
    body: &Body<'tcx>,
    span: Span,
) -> DeviceResult<(TypedHandle<FuncType>, Vec<LlvmAttributesAttr>)> {
    let name = m.tcx.item_name(instance.def_id()).to_string();
    if !super::is_unit(mono(m, instance, body.return_ty())) {
        return Err(DeviceError::new(
            span,
            DeviceErrorKind::BadKernel {
                kernel: name,
                why: "a kernel returns nothing; write results through a `DisjointSlice`".into(),
            },
        ));
    }
    let mut params = Vec::new();
    let mut attrs = Vec::new();
    for (_, _, layout) in arg_layouts(m, instance, body, span)? {
        if is_disjoint_slice(m, layout.ty) && !is_words(m, layout) {
            // A type of the user's own marked as an output: its words could not be passed.
            return Err(DeviceError::new(
                span,
                DeviceErrorKind::BadKernel {
                    kernel: name,
                    why: format!(
                        "the argument type `{}` is marked `#[oxide_gpu::disjoint_slice]`, which \
                         needs a pointer, a length and optionally a row width and pitch (or a \
                         pairs' distance), each a pointer-sized field (and zero-sized ones); \
                         pass it as a \
                         `DisjointSlice` or another type of `oxide::outputs`",
                        layout.ty
                    ),
                },
            ));
        }
        match kernel_param(m, layout) {
            KernelParam::Ignore => {}
            KernelParam::PointerAndLength {
                read_only,
                unique,
                elem_align,
                extra_words,
            } => {
                params.push(types::ptr(&mut m.ctx));
                params.push(types::int(&mut m.ctx, 64));
                let mut ptr_attrs = LlvmAttributesAttr::new();
                if unique {
                    ptr_attrs.set("noalias", LlvmAttrValue::Unit);
                }
                // The launcher never passes null, not even for an empty buffer (contracts.md).
                ptr_attrs.set("nonnull", LlvmAttrValue::Unit);
                // The launcher's promise (oxide_contract::SLICE_ALIGN), which lets LLVM merge
                // the loads and stores of a 16-byte chunk into one vector access.
                let align = elem_align.max(oxide_contract::SLICE_ALIGN);
                ptr_attrs.set("align", LlvmAttrValue::Int(align));
                if read_only {
                    ptr_attrs.set("readonly", LlvmAttrValue::Unit);
                }
                attrs.push(ptr_attrs);
                attrs.push(LlvmAttributesAttr::new());
                for _ in 0..extra_words {
                    params.push(types::int(&mut m.ctx, 64));
                    attrs.push(LlvmAttributesAttr::new());
                }
            }
            KernelParam::Primitive(t) | KernelParam::Bytes(t) => {
                params.push(t);
                attrs.push(LlvmAttributesAttr::new());
            }
        }
    }
    let void = VoidType::get(&m.ctx).into();
    Ok((FuncType::get(&m.ctx, void, params, false), attrs))
}

fn entry_args(cx: &FnCx<'_, '_>, entry: Ptr<BasicBlock>) -> Vec<Value> {
    entry.deref(&cx.m.ctx).arguments().collect()
}

/// Writes the kernel's parameters into the slots of its argument locals.
pub(crate) fn store_kernel_params(
    cx: &mut FnCx<'_, '_>,
    entry: Ptr<BasicBlock>,
) -> DeviceResult<()> {
    let params = entry_args(cx, entry);
    let mut next = params.into_iter();
    let layouts = arg_layouts(cx.m, cx.instance, cx.mir, cx.span)?;
    for (local, _, layout) in layouts {
        let LocalPlace::Slot(slot) = cx.locals[local] else {
            continue;
        };
        match kernel_param(cx.m, layout) {
            KernelParam::Ignore => {}
            KernelParam::PointerAndLength { extra_words, .. } => {
                // The struct's words in field order (pointer, length, then a row width),
                // skipping its zero-sized marker.
                let mut stored = 0;
                for field in 0..slot.layout.fields.count() {
                    let field_layout = slot.layout.field(&cx.layout_cx(), field);
                    if field_layout.is_zst() || stored == 2 + extra_words {
                        continue;
                    }
                    let value = next.next().expect("a pointer, length or width param");
                    let offset = slot.layout.fields.offset(field);
                    let place = cx.offset_place(slot, offset, field_layout);
                    let scalar =
                        types::as_scalar(field_layout).expect("an output's words are scalars");
                    cx.store_scalar(value, place.ptr, scalar, place.align);
                    stored += 1;
                }
            }
            KernelParam::Primitive(_) | KernelParam::Bytes(_) => {
                let value = next.next().expect("param");
                let align = slot.align.bytes() as u32;
                cx.emit(|ctx| StoreOp::new(ctx, value, slot.ptr, align));
            }
        }
    }
    Ok(())
}

/// Writes a device function's parameters into the slots of its argument locals.
pub(crate) fn store_device_params(
    cx: &mut FnCx<'_, '_>,
    entry: Ptr<BasicBlock>,
) -> DeviceResult<()> {
    let abi = cx.abi.clone().expect("device function");
    let mut next = entry_args(cx, entry).into_iter();
    if let RetPass::OutPtr = abi.ret {
        cx.ret_out = next.next();
    }
    let layouts = arg_layouts(cx.m, cx.instance, cx.mir, cx.span)?;
    for ((local, field, layout), pass) in layouts.into_iter().zip(abi.args.iter()) {
        let LocalPlace::Slot(slot) = cx.locals[local] else {
            continue;
        };
        let dest: PlaceRef<'_> = match field {
            Some(i) => {
                let offset = slot.layout.fields.offset(i);
                cx.offset_place(slot, offset, layout)
            }
            None => slot,
        };
        let val = match pass {
            ArgPass::Ignore => continue,
            ArgPass::Imm => OperandVal::Imm(next.next().expect("param")),
            ArgPass::Pair => {
                OperandVal::Pair(next.next().expect("param"), next.next().expect("param"))
            }
            ArgPass::ByRef => OperandVal::Mem(next.next().expect("param"), layout.align.abi),
        };
        cx.store_operand(Operand { val, layout }, dest)?;
    }
    Ok(())
}
