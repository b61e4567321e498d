//! The `mir` dialect: what MIR has and LLVM does not.
//!
//! MIR locals become `mir.slot`s (sized, aligned stack memory, typed when they hold one scalar so
//! that `mem2reg` can promote them), places become byte-offset address arithmetic, and panics
//! become `mir.trap` carrying the panic's message. Pure SSA arithmetic and the CFG reuse
//! pliron-llvm's ops, as MLIR dialects reuse `arith` and `cf`.

use pliron::{
    arg_err,
    builtin::{
        attributes::{IdentifierAttr, StringAttr, TypeAttr},
        op_interfaces::{
            IsTerminatorInterface, NOpdsInterface, NResultsInterface, OneOpdInterface,
            OneResultInterface,
        },
    },
    context::{Context, Ptr},
    derive::{op_interface_impl, pliron_attr, pliron_op},
    identifier::Identifier,
    irbuild::{inserter::Inserter, rewriter::Rewriter},
    op::Op,
    operation::Operation,
    opts::mem2reg::{
        AllocInfo, PromotableAllocationInterface, PromotableOpInterface, PromotableOpKind,
    },
    result::Result,
    r#type::{TypeHandle, Typed},
    value::Value,
};
use pliron_llvm::{attributes::AlignmentAttr, ops::PoisonOp, types::PointerType};

/// A byte count or byte offset.
#[pliron_attr(name = "mir.bytes", format = "$0", verifier = "succ")]
#[derive(PartialEq, Eq, Clone, Debug, Hash)]
pub struct BytesAttr(pub u64);

/// The stack memory of one MIR local (or temporary).
///
/// `mir_slot_type` is the slot's content: a scalar type when the local is one scalar (then
/// `mem2reg` may promote it), else an `llvm.array` of bytes of the local's size.
#[pliron_op(
    name = "mir.slot",
    format = "attr($mir_slot_type, $TypeAttr) ` align ` attr($mir_slot_align, $AlignmentAttr) ` : ` type($0)",
    interfaces = [OneResultInterface, NOpdsInterface<0>],
    attributes = (mir_slot_type: TypeAttr, mir_slot_align: AlignmentAttr),
    verifier = "succ"
)]
pub struct SlotOp;

impl SlotOp {
    pub fn new(ctx: &mut Context, content: TypeHandle, align: u32) -> Self {
        let ptr = PointerType::get(ctx, 0).into();
        let op = Operation::new(
            ctx,
            Self::get_concrete_op_info(),
            vec![ptr],
            vec![],
            vec![],
            0,
        );
        let op = SlotOp { op };
        op.set_attr_mir_slot_type(ctx, TypeAttr::new(content));
        op.set_attr_mir_slot_align(ctx, AlignmentAttr(align));
        op
    }

    pub fn content_type(&self, ctx: &Context) -> TypeHandle {
        self.get_attr_mir_slot_type(ctx)
            .expect("mir.slot without a content type")
            .get_type(ctx)
    }

    pub fn align(&self, ctx: &Context) -> u32 {
        self.get_attr_mir_slot_align(ctx).map_or(1, |a| a.0)
    }
}

#[derive(thiserror::Error, Debug)]
#[error("mem2reg asked a mir op about an allocation it does not use")]
struct UnrelatedAllocation;

#[op_interface_impl]
impl PromotableAllocationInterface for SlotOp {
    fn alloc_info(&self, ctx: &Context) -> Vec<AllocInfo> {
        vec![AllocInfo {
            ptr: self.get_result(ctx),
            ty: self.content_type(ctx),
        }]
    }

    fn default_value(
        &self,
        ctx: &mut Context,
        inserter: &mut dyn Inserter,
        alloc_info: &AllocInfo,
    ) -> Result<Value> {
        // A read before any write is of uninitialised memory; MIR never does it for a value it
        // uses, so poison is exact.
        let poison = PoisonOp::new(ctx, alloc_info.ty);
        inserter.insert_op(ctx, &poison);
        Ok(poison.get_result(ctx))
    }

    fn promote(
        &self,
        ctx: &mut Context,
        rewriter: &mut dyn Rewriter,
        alloc_infos: &[AllocInfo],
    ) -> Result<()> {
        if alloc_infos.len() != 1 || alloc_infos[0].ptr != self.get_result(ctx) {
            return arg_err!(self.loc(ctx), UnrelatedAllocation);
        }
        rewriter.erase_operation(ctx, self.get_operation());
        Ok(())
    }
}

/// A typed read of memory.
#[pliron_op(
    name = "mir.load",
    format = "$0 ` align ` attr($mir_load_align, $AlignmentAttr) ` : ` type($0)",
    interfaces = [OneResultInterface, OneOpdInterface],
    attributes = (mir_load_align: AlignmentAttr),
    verifier = "succ"
)]
pub struct LoadOp;

impl LoadOp {
    pub fn new(ctx: &mut Context, address: Value, ty: TypeHandle, align: u32) -> Self {
        let op = Operation::new(
            ctx,
            Self::get_concrete_op_info(),
            vec![ty],
            vec![address],
            vec![],
            0,
        );
        let op = LoadOp { op };
        op.set_attr_mir_load_align(ctx, AlignmentAttr(align));
        op
    }

    pub fn address(&self, ctx: &Context) -> Value {
        self.get_operation().deref(ctx).get_operand(0)
    }

    pub fn align(&self, ctx: &Context) -> u32 {
        self.get_attr_mir_load_align(ctx).map_or(1, |a| a.0)
    }
}

#[op_interface_impl]
impl PromotableOpInterface for LoadOp {
    fn promotion_kind(&self, ctx: &Context, alloc_info: &AllocInfo) -> PromotableOpKind {
        // Only a read of the whole slot at its own type can become the slot's SSA value.
        if self.address(ctx) == alloc_info.ptr
            && self.get_result(ctx).get_type(ctx) == alloc_info.ty
        {
            PromotableOpKind::Load
        } else {
            PromotableOpKind::NonPromotableUse
        }
    }

    fn promote(
        &self,
        ctx: &mut Context,
        reaching_defs: &[(AllocInfo, Value)],
        rewriter: &mut dyn Rewriter,
    ) -> Result<()> {
        let [(_, reaching_def)] = reaching_defs else {
            return arg_err!(self.loc(ctx), UnrelatedAllocation);
        };
        rewriter.replace_operation_with_values(ctx, self.get_operation(), vec![*reaching_def]);
        Ok(())
    }
}

/// A typed write of memory: `*address <- value`.
#[pliron_op(
    name = "mir.store",
    format = "`*` $1 ` <- ` $0 ` align ` attr($mir_store_align, $AlignmentAttr)",
    interfaces = [NResultsInterface<0>, NOpdsInterface<2>],
    attributes = (mir_store_align: AlignmentAttr),
    verifier = "succ"
)]
pub struct StoreOp;

impl StoreOp {
    pub fn new(ctx: &mut Context, value: Value, address: Value, align: u32) -> Self {
        let op = Operation::new(
            ctx,
            Self::get_concrete_op_info(),
            vec![],
            vec![value, address],
            vec![],
            0,
        );
        let op = StoreOp { op };
        op.set_attr_mir_store_align(ctx, AlignmentAttr(align));
        op
    }

    pub fn value(&self, ctx: &Context) -> Value {
        self.get_operation().deref(ctx).get_operand(0)
    }

    pub fn address(&self, ctx: &Context) -> Value {
        self.get_operation().deref(ctx).get_operand(1)
    }

    pub fn align(&self, ctx: &Context) -> u32 {
        self.get_attr_mir_store_align(ctx).map_or(1, |a| a.0)
    }
}

#[op_interface_impl]
impl PromotableOpInterface for StoreOp {
    fn promotion_kind(&self, ctx: &Context, alloc_info: &AllocInfo) -> PromotableOpKind {
        let value = self.value(ctx);
        // Storing the slot's own address somewhere lets it escape: never promotable.
        if self.address(ctx) == alloc_info.ptr
            && value != alloc_info.ptr
            && value.get_type(ctx) == alloc_info.ty
        {
            PromotableOpKind::Store(value)
        } else {
            PromotableOpKind::NonPromotableUse
        }
    }

    fn promote(
        &self,
        ctx: &mut Context,
        reaching_defs: &[(AllocInfo, Value)],
        rewriter: &mut dyn Rewriter,
    ) -> Result<()> {
        if reaching_defs.len() != 1 {
            return arg_err!(self.loc(ctx), UnrelatedAllocation);
        }
        rewriter.erase_operation(ctx, self.get_operation());
        Ok(())
    }
}

/// `base + offset` bytes: a field of a place. Like every place projection and `ptr::add`, it
/// stays inside `base`'s allocation, which the LLVM lowering states as `inbounds`.
#[pliron_op(
    name = "mir.field_ptr",
    format = "$0 ` + ` attr($mir_offset, $BytesAttr) ` : ` type($0)",
    interfaces = [OneResultInterface, OneOpdInterface],
    attributes = (mir_offset: BytesAttr),
    verifier = "succ"
)]
pub struct FieldPtrOp;

impl FieldPtrOp {
    pub fn new(ctx: &mut Context, base: Value, offset: u64) -> Self {
        let ptr = base.get_type(ctx);
        let op = Operation::new(
            ctx,
            Self::get_concrete_op_info(),
            vec![ptr],
            vec![base],
            vec![],
            0,
        );
        let op = FieldPtrOp { op };
        op.set_attr_mir_offset(ctx, BytesAttr(offset));
        op
    }

    pub fn offset(&self, ctx: &Context) -> u64 {
        self.get_attr_mir_offset(ctx).map_or(0, |a| a.0)
    }
}

/// `base + index * stride` bytes: an element of an array or slice place, or `ptr::add`; in
/// bounds of `base`'s allocation.
#[pliron_op(
    name = "mir.index_ptr",
    format = "$0 ` [` $1 ` x ` attr($mir_stride, $BytesAttr) `] : ` type($0)",
    interfaces = [OneResultInterface, NOpdsInterface<2>],
    attributes = (mir_stride: BytesAttr),
    verifier = "succ"
)]
pub struct IndexPtrOp;

impl IndexPtrOp {
    pub fn new(ctx: &mut Context, base: Value, index: Value, stride: u64) -> Self {
        let ptr = base.get_type(ctx);
        let op = Operation::new(
            ctx,
            Self::get_concrete_op_info(),
            vec![ptr],
            vec![base, index],
            vec![],
            0,
        );
        let op = IndexPtrOp { op };
        op.set_attr_mir_stride(ctx, BytesAttr(stride));
        op
    }

    pub fn stride(&self, ctx: &Context) -> u64 {
        self.get_attr_mir_stride(ctx).map_or(1, |a| a.0)
    }
}

/// Copies `mir_size` bytes between two places that do not overlap (MIR assignment of an
/// aggregate).
#[pliron_op(
    name = "mir.copy",
    format = "`*` $0 ` <- *` $1 `, ` attr($mir_size, $BytesAttr)",
    interfaces = [NResultsInterface<0>, NOpdsInterface<2>],
    attributes = (mir_size: BytesAttr),
    verifier = "succ"
)]
pub struct CopyOp;

impl CopyOp {
    pub fn new(ctx: &mut Context, dst: Value, src: Value, size: u64) -> Self {
        let op = Operation::new(
            ctx,
            Self::get_concrete_op_info(),
            vec![],
            vec![dst, src],
            vec![],
            0,
        );
        let op = CopyOp { op };
        op.set_attr_mir_size(ctx, BytesAttr(size));
        op
    }

    pub fn size(&self, ctx: &Context) -> u64 {
        self.get_attr_mir_size(ctx).map_or(0, |a| a.0)
    }
}

/// A call of another device function of the module, by symbol.
#[pliron_op(
    name = "mir.call",
    format = "attr($mir_callee, $IdentifierAttr) ` (` operands(CharSpace(`,`)) `) : ` attr($mir_callee_type, $TypeAttr)",
    attributes = (mir_callee: IdentifierAttr, mir_callee_type: TypeAttr),
    verifier = "succ"
)]
pub struct CallOp;

impl CallOp {
    /// `callee_type` is an `llvm.func` type; its void result means no result.
    pub fn new(
        ctx: &mut Context,
        callee: Identifier,
        callee_type: pliron::r#type::TypedHandle<pliron_llvm::types::FuncType>,
        args: Vec<Value>,
    ) -> Self {
        let result = callee_type.deref(ctx).result_type();
        let is_void = result.deref(ctx).is::<pliron_llvm::types::VoidType>();
        let results = if is_void { vec![] } else { vec![result] };
        let op = Operation::new(ctx, Self::get_concrete_op_info(), results, args, vec![], 0);
        let op = CallOp { op };
        op.set_attr_mir_callee(ctx, IdentifierAttr::new(callee));
        op.set_attr_mir_callee_type(ctx, TypeAttr::new(callee_type.into()));
        op
    }

    pub fn callee(&self, ctx: &Context) -> Identifier {
        self.get_attr_mir_callee(ctx)
            .map(|a| Identifier::from(a.clone()))
            .expect("mir.call without a callee")
    }

    pub fn callee_type(&self, ctx: &Context) -> TypeHandle {
        self.get_attr_mir_callee_type(ctx)
            .expect("mir.call without a callee type")
            .get_type(ctx)
    }
}

/// The end of a path that panics: the kernel stops with a trap. The message is the panic's, kept
/// for the reader of the IR.
#[pliron_op(
    name = "mir.trap",
    format = "attr($mir_trap_message, $StringAttr)",
    interfaces = [IsTerminatorInterface, NOpdsInterface<0>, NResultsInterface<0>],
    attributes = (mir_trap_message: StringAttr),
    verifier = "succ"
)]
pub struct TrapOp;

impl TrapOp {
    pub fn new(ctx: &mut Context, message: &str) -> Self {
        let op = Operation::new(ctx, Self::get_concrete_op_info(), vec![], vec![], vec![], 0);
        let op = TrapOp { op };
        op.set_attr_mir_trap_message(ctx, StringAttr::new(message.to_string()));
        op
    }
}

/// Blocks of a function are referred to by pointer in the importer; re-exported for it.
pub type BlockPtr = Ptr<pliron::basic_block::BasicBlock>;
