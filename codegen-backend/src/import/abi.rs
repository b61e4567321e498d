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
use oxide_contract::{ParamAbi, SliceAccess};

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

/// How a kernel argument arrives (docs/contracts.md, "Kernel parameter ABI"): the kind its
/// type declares (`oxide::KernelParam::ABI`, a [`ParamAbi`]), after its layout was checked
/// against it.
enum KernelParam {
    Ignore,
    /// Data pointer and length, then `words` pointer-sized words of the shape: `&[T]`, the
    /// outputs. `read_only` for a `&[T]` without interior mutability (`T: Freeze`), which no
    /// thread writes during the launch; `unique` unless it is a `&[T]` with interior mutability
    /// (`&[AtomicU32]`), which every thread writes through its own copy of the pointer.
    PointerAndLength {
        read_only: bool,
        unique: bool,
        elem_align: u64,
        /// Pointer-sized words after the length: a 2-D output's row width and pitch.
        words: usize,
    },
    /// One primitive scalar, in its memory representation.
    Primitive(TypeHandle),
    /// The bytes of any other `Copy` value.
    Bytes(TypeHandle),
}

/// The kind `ty` declares: `<ty as oxide::KernelParam>::ABI_CODE`, evaluated and decoded.
fn declared_abi<'tcx>(m: &DeviceModule<'tcx>, ty: Ty<'tcx>) -> Result<ParamAbi, String> {
    let abi_code = m.registry.kernel_param_abi().ok_or_else(|| {
        "no crate of this build defines `oxide::KernelParam` (kernels are written with the \
         `oxide` crate's `#[kernel]`)"
            .to_owned()
    })?;
    let args = m.tcx.mk_args(&[ty.into()]);
    let value = m
        .tcx
        .const_eval_resolve(
            m.typing_env(),
            rustc_middle::mir::UnevaluatedConst::new(abi_code, args),
            rustc_span::DUMMY_SP,
        )
        .map_err(|_| format!("`{ty}` is not a kernel parameter (`oxide::KernelParam`)"))?;
    value
        .try_to_scalar_int()
        .and_then(|code| u32::try_from(code.to_bits_unchecked()).ok())
        .and_then(ParamAbi::from_code)
        .ok_or_else(|| {
            format!(
                "`{ty}` declares a parameter kind this backend does not know (device-std and \
                 the backend are from different versions of oxide)"
            )
        })
}

/// The element type of a slice parameter: a `&[T]`'s `T`, or an output's first type argument.
fn slice_element<'tcx>(ty: Ty<'tcx>) -> Option<Ty<'tcx>> {
    match ty.kind() {
        ty::Ref(_, inner, _) => match inner.kind() {
            ty::Slice(elem) => Some(*elem),
            _ => None,
        },
        ty::Adt(_, args) => args.types().next(),
        _ => None,
    }
}

/// Whether `layout` is what a slice parameter of `words` shape words passes: a `&[T]` (a
/// pointer and a length), or a struct of a data pointer, a length and the words, each a
/// pointer-sized scalar, in that order, besides zero-sized fields.
fn is_slice_layout<'tcx>(m: &DeviceModule<'tcx>, layout: TyAndLayout<'tcx>, words: usize) -> bool {
    if let ty::Ref(_, inner, _) = layout.ty.kind() {
        return words == 0
            && matches!(inner.kind(), ty::Slice(_))
            && matches!(layout.backend_repr, BackendRepr::ScalarPair(..));
    }
    let cx = rustc_middle::ty::layout::LayoutCx::new(m.tcx, m.typing_env());
    let fields: Vec<TyAndLayout<'tcx>> = (0..layout.fields.count())
        .map(|f| layout.field(&cx, f))
        .filter(|f| !f.is_zst())
        .collect();
    let pointer = m.tcx.data_layout.pointer_size().bytes();
    fields.len() == 2 + words
        && fields
            .iter()
            .all(|w| types::as_scalar(*w).is_some() && w.size.bytes() == pointer)
}

fn kernel_param<'tcx>(
    m: &mut DeviceModule<'tcx>,
    layout: TyAndLayout<'tcx>,
) -> Result<KernelParam, String> {
    let ty = layout.ty;
    match declared_abi(m, ty)? {
        ParamAbi::Slice { access, words } => {
            let words = usize::from(words);
            let elem = slice_element(ty).filter(|_| is_slice_layout(m, layout, words));
            let Some(elem) = elem else {
                return Err(format!(
                    "`{ty}` declares itself a slice parameter with {words} shape words, but its \
                     layout is not a data pointer, a length and {words} pointer-sized words"
                ));
            };
            let elem_align = m
                .layout_of(elem, rustc_span::DUMMY_SP)
                .map_or(1, |l| l.align.abi.bytes());
            // As rustc does for `&T`: `noalias readonly` only when nothing can write through
            // the reference (an atomic read-modify-write through a `readonly` pointer is
            // undefined in LLVM IR, and `noalias` would let LLVM assume no other thread's
            // writes). An output is written by its threads, each element by one.
            let frozen = elem.is_freeze(m.tcx, TypingEnv::fully_monomorphized());
            let (read_only, unique) = match access {
                SliceAccess::Shared => (frozen, frozen),
                SliceAccess::Exclusive => (false, true),
            };
            Ok(KernelParam::PointerAndLength {
                read_only,
                unique,
                elem_align,
                words,
            })
        }
        ParamAbi::Value if layout.is_zst() => Ok(KernelParam::Ignore),
        ParamAbi::Value => {
            if types::is_primitive_param(ty)
                && let Some(s) = types::as_scalar(layout)
                && let Some(t) = types::scalar_memory(&mut m.ctx, s)
            {
                return Ok(KernelParam::Primitive(t));
            }
            Ok(KernelParam::Bytes(param_words(&mut m.ctx, layout)))
        }
    }
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
        let param = kernel_param(m, layout).map_err(|why| {
            DeviceError::new(
                span,
                DeviceErrorKind::BadKernel {
                    kernel: name.clone(),
                    why,
                },
            )
        })?;
        match param {
            KernelParam::Ignore => {}
            KernelParam::PointerAndLength {
                read_only,
                unique,
                elem_align,
                words,
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
                for _ in 0..words {
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
        // `kernel_signature` accepted this parameter already.
        match kernel_param(cx.m, layout).expect("a checked kernel parameter") {
            KernelParam::Ignore => {}
            KernelParam::PointerAndLength { words, .. } => {
                // The struct's words in field order (pointer, length, then a row width),
                // skipping its zero-sized marker.
                let mut stored = 0;
                for field in 0..slot.layout.fields.count() {
                    let field_layout = slot.layout.field(&cx.layout_cx(), field);
                    if field_layout.is_zst() || stored == 2 + words {
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
