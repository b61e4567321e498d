//! Module-level data: statics, `const` tables, string literals and promoted constants become
//! `llvm.global`s in the GPU's global address space, one per rustc allocation.

use pliron::{
    builtin::attr_interfaces::TypedAttrInterface,
    builtin::op_interfaces::SingleBlockRegionInterface, identifier::Identifier, op::Op,
    value::Value,
};
use pliron::{
    builtin::{
        op_interfaces::OneResultInterface,
        types::{IntegerType, Signedness},
    },
    context::Ptr,
    operation::Operation,
    r#type::TypeHandle,
};
use pliron_llvm::{
    attributes::{AggregateAttr, BytesAttr, SymbolAddrAttr},
    op_interfaces::AlignableOpInterface,
    ops::{
        AddrSpaceCastOp, AddressOfOp, ConstantOp, GepIndex, GetElementPtrOp, GlobalOp,
        InsertValueOp, PtrToIntOp, ReturnOp, UndefOp,
    },
    types::{ArrayType, PointerType, StructLayout, StructType},
};
use rustc_middle::mir::interpret::{AllocId, ConstAllocation, GlobalAlloc};
use rustc_span::Span;

#[allow(unused_imports)]
use crate::import::prelude::*;

use super::{DeviceModule, FnCx, types};
use crate::error::{DeviceError, DeviceErrorKind, DeviceResult, not_on_gpu, unsupported};

/// The GPU's global memory: read by every thread, `ld.global.nc` when constant.
const GLOBAL_ADDRESS_SPACE: u32 = 1;
/// Memory each block has its own copy of (`__shared__`).
const SHARED_ADDRESS_SPACE: u32 = 3;
/// The alignment of dynamic shared memory (`oxide_device::shared::DYNAMIC_SHARED_ALIGN`).
const DYNAMIC_SHARED_ALIGN: u32 = 16;

impl<'tcx> DeviceModule<'tcx> {
    /// The global holding `alloc_id`'s bytes, created on first use.
    pub(crate) fn global_for_alloc(
        &mut self,
        alloc_id: AllocId,
        span: Span,
    ) -> DeviceResult<Identifier> {
        if let Some(name) = self.globals.get(&alloc_id) {
            return Ok(name.clone());
        }
        let tcx = self.tcx;
        let (alloc, hint): (ConstAllocation<'tcx>, String) = match tcx.global_alloc(alloc_id) {
            GlobalAlloc::Memory(alloc) => (alloc, "const".to_string()),
            GlobalAlloc::Static(def_id) => {
                if tcx.is_thread_local_static(def_id) {
                    return not_on_gpu(
                        span,
                        "a thread-local static",
                        "GPU threads have no thread-local storage",
                    );
                }
                let Ok(alloc) = tcx.eval_static_initializer(def_id) else {
                    return unsupported(span, "a static whose initializer does not evaluate");
                };
                if self.is_shared_static(def_id) {
                    return Ok(self.shared_global(alloc_id, def_id, alloc));
                }
                // A CUDA port's `__shared__` tile written as a `static mut` would be one global
                // array that every block of the grid races on. Statics of other crates (std's)
                // are their authors' business.
                if def_id.is_local()
                    && tcx.static_mutability(def_id) == Some(rustc_hir::Mutability::Mut)
                {
                    let kind = DeviceErrorKind::StaticMut {
                        name: tcx.item_name(def_id).to_string(),
                        declared: tcx.def_span(def_id),
                    };
                    return Err(DeviceError::new(span, kind));
                }
                (alloc, tcx.item_name(def_id).to_string())
            }
            GlobalAlloc::Function { .. } => {
                return not_on_gpu(
                    span,
                    "a function pointer",
                    "device code calls functions directly; use generics or closures",
                );
            }
            GlobalAlloc::VTable(..) => {
                return not_on_gpu(
                    span,
                    "a trait object's vtable",
                    "`dyn Trait` needs indirect calls; use generics",
                );
            }
            GlobalAlloc::TypeId { .. } => return unsupported(span, "a `TypeId` constant"),
        };
        let name = self.unique_name(&format!("__oxide_{hint}"));
        // Recorded before the initializer is built, so that allocations pointing at each other
        // (or at themselves) terminate.
        self.globals.insert(alloc_id, name.clone());
        let alloc = alloc.inner();
        let bytes = alloc.inspect_with_uninit_and_ptr_outside_interpreter(0..alloc.len());
        let ptr_size = tcx.data_layout.pointer_size().bytes_usize();

        // Runs of plain bytes, and the address of another global where the allocation holds a
        // pointer (possibly into the middle of it).
        let mut fields: Vec<Field> = Vec::new();
        let mut at = 0usize;
        let pointers: Vec<_> = alloc
            .provenance()
            .ptrs()
            .iter()
            .map(|(o, p)| (o.bytes_usize(), *p))
            .collect();
        for (offset, provenance) in pointers {
            if offset > at {
                fields.push(Field::Bytes(bytes[at..offset].to_vec()));
            }
            let target_offset = u64::from_le_bytes(
                bytes[offset..offset + ptr_size]
                    .try_into()
                    .expect("pointer-sized"),
            );
            let target = self.global_for_alloc(provenance.alloc_id(), span)?;
            fields.push(Field::Pointer(target, target_offset));
            at = offset + ptr_size;
        }
        if at < bytes.len() || fields.is_empty() {
            fields.push(Field::Bytes(bytes[at..].to_vec()));
        }
        let global = self.define_global(name.clone(), fields)?;
        global.set_address_space(&mut self.ctx, GLOBAL_ADDRESS_SPACE);
        global.set_constant(&mut self.ctx, alloc.mutability.is_not());
        global.set_alignment(&self.ctx, alloc.align.bytes() as u32);
        self.module
            .append_operation(&mut self.ctx, global.get_operation(), 0);
        Ok(name)
    }

    /// Whether the static `def_id` is block-shared memory (its type is marked so), static or
    /// dynamic.
    fn is_shared_static(&self, def_id: rustc_hir::def_id::DefId) -> bool {
        self.static_adt(def_id).is_some_and(|adt| {
            self.registry.is_shared_memory(adt) || self.registry.is_dynamic_shared_memory(adt)
        })
    }

    /// The type constructor of the static `def_id`'s type, when it is an ADT (normalisation
    /// does not change it).
    fn static_adt(&self, def_id: rustc_hir::def_id::DefId) -> Option<rustc_hir::def_id::DefId> {
        let ty = self
            .tcx
            .type_of(def_id)
            .instantiate_identity()
            .skip_normalization();
        match ty.kind() {
            rustc_middle::ty::Adt(adt, _) => Some(adt.did()),
            _ => None,
        }
    }

    /// A shared-memory static: uninitialised bytes in the shared address space (the GPU cannot
    /// initialise memory that each block gets anew; its initializer is the host's).
    fn shared_global(
        &mut self,
        alloc_id: AllocId,
        def_id: rustc_hir::def_id::DefId,
        alloc: ConstAllocation<'tcx>,
    ) -> Identifier {
        let name = self.unique_name(&format!("__oxide_shared_{}", self.tcx.item_name(def_id)));
        self.globals.insert(alloc_id, name.clone());
        let alloc = alloc.inner();
        let dynamic = self
            .static_adt(def_id)
            .is_some_and(|adt| self.registry.is_dynamic_shared_memory(adt));
        // Dynamic shared memory (`extern __shared__`): an external `[0 x i8]` declaration
        // aligned to 16, which the launch sizes (`.extern .shared .align 16 .b8 name[]`).
        let ty = self.byte_type(if dynamic { 0 } else { alloc.len() });
        let global = GlobalOp::new(&mut self.ctx, name.clone(), ty);
        global.set_address_space(&mut self.ctx, SHARED_ADDRESS_SPACE);
        if dynamic {
            global.set_alignment(&self.ctx, DYNAMIC_SHARED_ALIGN);
            global.set_attr_llvm_global_linkage(
                &self.ctx,
                pliron_llvm::attributes::LinkageAttr::ExternalLinkage,
            );
        } else {
            global.set_alignment(&self.ctx, alloc.align.bytes() as u32);
        }
        self.module
            .append_operation(&mut self.ctx, global.get_operation(), 0);
        name
    }

    /// A global whose bytes are `fields`, laid out back to back (a packed struct when there is more
    /// than one). Pointers with an offset need an initializer region, which LLVM folds.
    fn define_global(&mut self, name: Identifier, fields: Vec<Field>) -> DeviceResult<GlobalOp> {
        let ptr_ty = PointerType::get(&self.ctx, 0);
        let field_types: Vec<TypeHandle> = fields
            .iter()
            .map(|f| match f {
                Field::Bytes(b) => self.byte_type(b.len()),
                Field::Pointer(..) => ptr_ty.into(),
            })
            .collect();
        let ty: TypeHandle = if field_types.len() == 1 {
            field_types[0]
        } else {
            StructType::get_unnamed(&self.ctx, (field_types.clone(), StructLayout::Packed)).into()
        };
        let global = GlobalOp::new(&mut self.ctx, name, ty);
        let needs_region = fields
            .iter()
            .any(|f| matches!(f, Field::Pointer(_, offset) if *offset != 0));
        if !needs_region {
            let mut attrs: Vec<Box<dyn TypedAttrInterface>> = fields
                .into_iter()
                .map(|f| -> Box<dyn TypedAttrInterface> {
                    match f {
                        Field::Bytes(b) => Box::new(BytesAttr::new(b)),
                        Field::Pointer(target, _) => Box::new(SymbolAddrAttr::new(target, ptr_ty)),
                    }
                })
                .collect();
            let init: Box<dyn TypedAttrInterface> = if attrs.len() == 1 {
                attrs.pop().expect("one field")
            } else {
                Box::new(AggregateAttr::new(attrs, ty))
            };
            global.set_initializer_value(&self.ctx, init as pliron::attribute::AttrObj);
            return Ok(global);
        }
        global.add_initializer_region(&mut self.ctx);
        let block = global
            .get_initializer_block(&self.ctx)
            .expect("initializer block");
        let ctx = &mut self.ctx;
        let push =
            |ctx: &mut pliron::context::Context, op: Ptr<Operation>| op.insert_at_back(block, ctx);
        let undef = UndefOp::new(ctx, ty);
        push(ctx, undef.get_operation());
        let mut aggregate = undef.get_result(ctx);
        for (index, field) in fields.into_iter().enumerate() {
            let value = match field {
                Field::Bytes(b) => {
                    let c = ConstantOp::new(ctx, Box::new(BytesAttr::new(b)));
                    push(ctx, c.get_operation());
                    c.get_result(ctx)
                }
                Field::Pointer(target, offset) => {
                    let base = AddressOfOp::new(ctx, target, 0);
                    push(ctx, base.get_operation());
                    let i8_ty = IntegerType::get(ctx, 8, Signedness::Signless).into();
                    let gep = GetElementPtrOp::new(
                        ctx,
                        base.get_result(ctx),
                        vec![GepIndex::Constant(offset as u32)],
                        i8_ty,
                    );
                    push(ctx, gep.get_operation());
                    gep.get_result(ctx)
                }
            };
            let insert = InsertValueOp::new(ctx, aggregate, value, vec![index as u32]);
            push(ctx, insert.get_operation());
            aggregate = insert.get_result(ctx);
        }
        let ret = ReturnOp::new(ctx, Some(aggregate));
        push(ctx, ret.get_operation());
        Ok(global)
    }

    fn byte_type(&mut self, len: usize) -> TypeHandle {
        let i8_ty = types::int(&mut self.ctx, 8);
        ArrayType::get(&self.ctx, i8_ty, len as u64).into()
    }
}

/// A piece of a global's initial bytes.
enum Field {
    Bytes(Vec<u8>),
    /// The address of a global plus a byte offset.
    Pointer(Identifier, u64),
}

impl<'tcx> FnCx<'tcx, '_> {
    /// A generic pointer to `offset` bytes into the global of `alloc_id`.
    pub(crate) fn global_address(&mut self, alloc_id: AllocId, offset: u64) -> DeviceResult<Value> {
        let name = self.m.global_for_alloc(alloc_id, self.span)?;
        let base = self.emit_value(|ctx| AddressOfOp::new(ctx, name, 0));
        Ok(if offset == 0 {
            base
        } else {
            self.emit_value(|ctx| oxide_dialects::mir::FieldPtrOp::new(ctx, base, offset))
        })
    }

    /// The offset of `pointer` (generic, into block-shared memory) in the `.shared` window, as
    /// an integer of `bits`: an `addrspacecast` to the shared space and its address, which
    /// LLVM folds with the cast that made a shared static's address generic, so the offset is
    /// plain 32-bit arithmetic on the static's `.shared` address (`#[oxide_gpu::shared_window]`).
    pub(crate) fn shared_window(&mut self, pointer: Value, bits: u64) -> Value {
        let shared = PointerType::get(self.ctx(), SHARED_ADDRESS_SPACE).into();
        let cast = self.emit_value(|ctx| {
            <AddrSpaceCastOp as pliron_llvm::op_interfaces::CastOpInterface>::new(
                ctx, pointer, shared,
            )
        });
        // A `.shared` window is below 2^32 bytes: its offsets are 32-bit (as `cvta.to.shared`'s
        // `u32` form gives them), widened to the result.
        let offset_ty = types::int(self.ctx(), 32);
        let offset = self.emit_value(|ctx| {
            <PtrToIntOp as pliron_llvm::op_interfaces::CastOpInterface>::new(ctx, cast, offset_ty)
        });
        self.int_resize(offset, 32, bits, false)
    }
}
