//! The `mir` dialect: what MIR has and LLVM does not.
//!
//! MIR locals become `mir.slot`s (sized, aligned stack memory, typed when they hold one scalar so
//! that `mem2reg` can promote them), places become byte-offset address arithmetic, and panics
//! become `mir.trap` carrying the panic's message. Pure SSA arithmetic and the CFG reuse
//! pliron-llvm's ops, as MLIR dialects reuse `arith` and `cf`.
//!
//! Alignments are pliron-llvm's `llvm_alignment` ([`AlignableOpInterface`]), so that the lowering
//! and any pass reading alignments treat `mir` and `llvm` memory ops alike.

mod mem2reg;

use std::ops::Range;

use pliron::{
    builtin::{
        attributes::{IdentifierAttr, StringAttr, TypeAttr},
        op_interfaces::{
            ATTR_KEY_CALLEE_TYPE, CallOpCallable, CallOpInterface, IsTerminatorInterface,
            NOpdsInterface, NResultsInterface, OneOpdInterface, OneResultInterface,
            SymbolUserOpInterface,
        },
        type_interfaces::FunctionTypeInterface,
        types::IntegerType,
    },
    combine::{Parser, token},
    common_traits::Verify,
    context::{Context, Ptr},
    derive::{op_interface_impl, pliron_attr, pliron_op},
    identifier::Identifier,
    irfmt::{
        parsers::{delimited_list_parser, process_parsed_ssa_defs, spaced, ssa_opd_parser},
        printers::list_with_sep,
    },
    location::Location,
    op::{Op, OpObj},
    operation::Operation,
    parsable::{IntoParseResult, Parsable, ParseResult, StateStream},
    printable::{self, Printable},
    result::Result,
    symbol_table::SymbolTableCollection,
    r#type::{TypeHandle, Typed, TypedHandle},
    value::Value,
    verify_err,
};
use pliron_llvm::{
    attributes::AlignmentAttr,
    op_interfaces::AlignableOpInterface,
    ops::FuncOp,
    types::{FuncType, PointerType},
};

use crate::verify::{is_sized, is_void, show};

/// Why a `mir` op does not verify.
#[derive(thiserror::Error, Debug)]
pub enum MirVerifyErr {
    #[error("{op} has no `{attr}` attribute")]
    MissingAttr {
        op: &'static str,
        attr: &'static str,
    },
    #[error("{op} has alignment {align}, which is not a power of two")]
    AlignmentNotPowerOfTwo { op: &'static str, align: u32 },
    #[error("mir.slot holds `{0}`, which has no size")]
    UnsizedSlot(String),
    #[error("{op} moves a value of type `{ty}`, which has no size")]
    UnsizedAccess { op: &'static str, ty: String },
    #[error("{op} yields `{result}`, but its base pointer is `{base}`: address spaces must agree")]
    ResultNotBaseType {
        op: &'static str,
        result: String,
        base: String,
    },
    #[error("mir.call's callee type `{0}` is not an llvm.func type")]
    CalleeTypeNotFunction(String),
    #[error("mir.call passes {given} arguments to `{callee}`, whose type takes {expected}")]
    CallArgCount {
        callee: String,
        given: usize,
        expected: usize,
    },
    #[error(
        "mir.call passes `{given}` as argument {index} of `{callee}`, which takes `{expected}`"
    )]
    CallArgType {
        callee: String,
        index: usize,
        given: String,
        expected: String,
    },
    #[error("mir.call of `{callee}` has results {given}; its type returns {expected}")]
    CallResults {
        callee: String,
        given: String,
        expected: String,
    },
    #[error("mir.call calls `{0}`, which the module does not define or declare")]
    CalleeNotFound(String),
    #[error("mir.call calls `{callee}` as `{call_type}`, but it is defined as `{defined}`")]
    CalleeTypeMismatch {
        callee: String,
        call_type: String,
        defined: String,
    },
    #[error("mir.trap has {0} successors; a trap ends the thread and goes nowhere")]
    TrapWithSuccessors(usize),
}

fn missing(op: &'static str, attr: &'static str) -> MirVerifyErr {
    MirVerifyErr::MissingAttr { op, attr }
}

/// The alignment every `mir` memory op carries: present and a power of two.
fn verify_alignment(
    op: &dyn Op,
    ctx: &Context,
    name: &'static str,
    align: Option<u32>,
) -> Result<()> {
    match align {
        None => verify_err!(op.loc(ctx), missing(name, "llvm_alignment")),
        Some(align) if !align.is_power_of_two() => verify_err!(
            op.loc(ctx),
            MirVerifyErr::AlignmentNotPowerOfTwo { op: name, align }
        ),
        Some(_) => Ok(()),
    }
}

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
    format = "attr($mir_slot_type, $TypeAttr) ` align ` attr($llvm_alignment, $AlignmentAttr) ` : ` type($0)",
    interfaces = [OneResultInterface, NOpdsInterface<0>, AlignableOpInterface],
    attributes = (mir_slot_type: TypeAttr),
    results = (address: PointerType)
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
        op.set_alignment(ctx, align);
        op
    }

    pub fn content_type(&self, ctx: &Context) -> TypeHandle {
        self.get_attr_mir_slot_type(ctx)
            .expect("mir.slot without a content type (the verifier rejects it)")
            .get_type(ctx)
    }
}

impl Verify for SlotOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        let Some(content) = self.get_attr_mir_slot_type(ctx).map(|t| t.get_type(ctx)) else {
            return verify_err!(self.loc(ctx), missing("mir.slot", "mir_slot_type"));
        };
        if !is_sized(ctx, content) {
            return verify_err!(self.loc(ctx), MirVerifyErr::UnsizedSlot(show(ctx, content)));
        }
        verify_alignment(self, ctx, "mir.slot", self.alignment(ctx))
    }
}

/// A typed read of memory.
#[pliron_op(
    name = "mir.load",
    format = "$0 ` align ` attr($llvm_alignment, $AlignmentAttr) ` : ` type($0)",
    interfaces = [OneResultInterface, OneOpdInterface, AlignableOpInterface],
    operands = (address: PointerType)
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
        op.set_alignment(ctx, align);
        op
    }
}

impl Verify for LoadOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        let ty = self.get_result(ctx).get_type(ctx);
        if !is_sized(ctx, ty) {
            let ty = show(ctx, ty);
            return verify_err!(
                self.loc(ctx),
                MirVerifyErr::UnsizedAccess { op: "mir.load", ty }
            );
        }
        verify_alignment(self, ctx, "mir.load", self.alignment(ctx))
    }
}

/// A typed write of memory: `*address <- value`.
#[pliron_op(
    name = "mir.store",
    format = "`*` $1 ` <- ` $0 ` align ` attr($llvm_alignment, $AlignmentAttr)",
    interfaces = [NResultsInterface<0>, NOpdsInterface<2>, AlignableOpInterface],
    operands = (value, address: PointerType)
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
        op.set_alignment(ctx, align);
        op
    }
}

impl Verify for StoreOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        // A scalar, or an aggregate moved whole (a by-value kernel parameter's bytes).
        let ty = self.get_operand_value(ctx).get_type(ctx);
        if !is_sized(ctx, ty) {
            let ty = show(ctx, ty);
            return verify_err!(
                self.loc(ctx),
                MirVerifyErr::UnsizedAccess {
                    op: "mir.store",
                    ty
                }
            );
        }
        verify_alignment(self, ctx, "mir.store", self.alignment(ctx))
    }
}

/// The result of a projection is a pointer of the same address space as its base.
fn verify_same_pointer(op: &dyn Op, ctx: &Context, name: &'static str) -> Result<()> {
    let opr = op.get_operation().deref(ctx);
    let base = opr.get_operand(0).get_type(ctx);
    let result = opr.get_result(0).get_type(ctx);
    if base != result {
        return verify_err!(
            opr.loc(),
            MirVerifyErr::ResultNotBaseType {
                op: name,
                result: show(ctx, result),
                base: show(ctx, base),
            }
        );
    }
    Ok(())
}

/// `base + offset` bytes: a field of a place. Like every place projection and `ptr::add`, it
/// stays inside `base`'s allocation, which the LLVM lowering states as `inbounds`.
#[pliron_op(
    name = "mir.field_ptr",
    format = "$0 ` + ` attr($mir_offset, $BytesAttr) ` : ` type($0)",
    interfaces = [OneResultInterface, OneOpdInterface],
    attributes = (mir_offset: BytesAttr),
    operands = (base: PointerType),
    results = (address: PointerType)
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
        self.get_attr_mir_offset(ctx)
            .expect("mir.field_ptr without an offset (the verifier rejects it)")
            .0
    }
}

impl Verify for FieldPtrOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        if self.get_attr_mir_offset(ctx).is_none() {
            return verify_err!(self.loc(ctx), missing("mir.field_ptr", "mir_offset"));
        }
        verify_same_pointer(self, ctx, "mir.field_ptr")
    }
}

/// `base + index * stride` bytes: an element of an array or slice place, or `ptr::add`; in
/// bounds of `base`'s allocation. The index is unsigned (a `usize`: the address does not wrap
/// below `base`; a signed `ptr::offset` is not this op); a zero stride is an element of a
/// zero-sized type, whose address is `base`.
#[pliron_op(
    name = "mir.index_ptr",
    format = "$0 ` [` $1 ` x ` attr($mir_stride, $BytesAttr) `] : ` type($0)",
    interfaces = [OneResultInterface, NOpdsInterface<2>],
    attributes = (mir_stride: BytesAttr),
    operands = (base: PointerType, index: IntegerType),
    results = (address: PointerType)
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
        self.get_attr_mir_stride(ctx)
            .expect("mir.index_ptr without a stride (the verifier rejects it)")
            .0
    }
}

impl Verify for IndexPtrOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        if self.get_attr_mir_stride(ctx).is_none() {
            return verify_err!(self.loc(ctx), missing("mir.index_ptr", "mir_stride"));
        }
        verify_same_pointer(self, ctx, "mir.index_ptr")
    }
}

/// Copies `mir_size` bytes between two places that do not overlap (MIR assignment of an
/// aggregate). `llvm_alignment` is an alignment both addresses have (the lesser of the two
/// places'), which decides how wide the copy's accesses may be.
#[pliron_op(
    name = "mir.copy",
    format = "`*` $0 ` <- *` $1 `, ` attr($mir_size, $BytesAttr) ` align ` attr($llvm_alignment, $AlignmentAttr)",
    interfaces = [NResultsInterface<0>, NOpdsInterface<2>, AlignableOpInterface],
    attributes = (mir_size: BytesAttr),
    operands = (dst: PointerType, src: PointerType)
)]
pub struct CopyOp;

impl CopyOp {
    pub fn new(ctx: &mut Context, dst: Value, src: Value, size: u64, align: u32) -> Self {
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
        op.set_alignment(ctx, align);
        op
    }

    pub fn size(&self, ctx: &Context) -> u64 {
        self.get_attr_mir_size(ctx)
            .expect("mir.copy without a size (the verifier rejects it)")
            .0
    }
}

impl Verify for CopyOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        if self.get_attr_mir_size(ctx).is_none() {
            return verify_err!(self.loc(ctx), missing("mir.copy", "mir_size"));
        }
        verify_alignment(self, ctx, "mir.copy", self.alignment(ctx))
    }
}

/// A call of another device function of the module, by symbol. A callee returning
/// `llvm.void` gives the call no result. Printed `[v = ] mir.call callee (args) : type`; its
/// result is the callee type's, so the syntax cannot come from a format string.
#[pliron_op(name = "mir.call", attributes = (mir_callee: IdentifierAttr))]
pub struct CallOp;

impl Printable for CallOp {
    fn fmt(
        &self,
        ctx: &Context,
        state: &printable::State,
        f: &mut std::fmt::Formatter<'_>,
    ) -> std::fmt::Result {
        let op = self.get_operation().deref(ctx);
        if op.get_num_results() == 1 {
            write!(f, "{} = ", op.get_result(0).print(ctx, state))?;
        }
        // An op that does not verify still prints, for the message that says why.
        let callee = self
            .get_attr_mir_callee(ctx)
            .map_or("<no callee>".to_string(), |c| {
                c.print(ctx, state).to_string()
            });
        let callee_type = op
            .attributes
            .get::<TypeAttr>(&ATTR_KEY_CALLEE_TYPE)
            .map_or("<no type>".to_string(), |t| {
                t.get_type(ctx).print(ctx, state).to_string()
            });
        let args: Vec<Value> = op.operands().collect();
        write!(
            f,
            "{} {} ({}) : {}",
            self.get_opid(),
            callee,
            list_with_sep(&args, printable::ListSeparator::CharSpace(',')).print(ctx, state),
            callee_type,
        )
    }
}

impl Parsable for CallOp {
    type Arg = Vec<(Identifier, Location)>;
    type Parsed = OpObj;

    fn parse<'a>(
        state_stream: &mut StateStream<'a>,
        results: Self::Arg,
    ) -> ParseResult<'a, Self::Parsed> {
        let args = delimited_list_parser('(', ')', ',', ssa_opd_parser());
        let ty = spaced(token(':')).with(TypedHandle::<FuncType>::parser(()));
        spaced(Identifier::parser(()))
            .and(spaced(args))
            .and(ty)
            .then(move |((callee, args), ty)| {
                let results = results.clone();
                pliron::combine::parser(move |state: &mut StateStream<'a>| {
                    let ctx = &mut state.state.ctx;
                    let op = CallOp::new(ctx, callee.clone(), ty, args.clone());
                    process_parsed_ssa_defs(state, &results, op.get_operation())?;
                    Ok(OpObj::new(op)).into_parse_result()
                })
            })
            .parse_stream(state_stream)
            .into_result()
    }
}

impl CallOp {
    /// `callee_type` is an `llvm.func` type; its void result means no result.
    pub fn new(
        ctx: &mut Context,
        callee: Identifier,
        callee_type: TypedHandle<FuncType>,
        args: Vec<Value>,
    ) -> Self {
        let result = callee_type.deref(ctx).result_type();
        let results = if is_void(ctx, result) {
            vec![]
        } else {
            vec![result]
        };
        let op = Operation::new(ctx, Self::get_concrete_op_info(), results, args, vec![], 0);
        let op = CallOp { op };
        op.set_attr_mir_callee(ctx, IdentifierAttr::new(callee));
        op.set_callee_type(ctx, callee_type.into());
        op
    }

    /// The called function's symbol.
    pub fn callee_symbol(&self, ctx: &Context) -> Identifier {
        self.get_attr_mir_callee(ctx)
            .map(|a| Identifier::from(a.clone()))
            .expect("mir.call without a callee (the verifier rejects it)")
    }

    /// The callee's type, an `llvm.func` (checked by the verifier).
    pub fn function_type(&self, ctx: &Context) -> TypedHandle<FuncType> {
        TypedHandle::<FuncType>::from_handle(CallOpInterface::callee_type(self, ctx), ctx)
            .expect("mir.call of a non-function type (the verifier rejects it)")
    }
}

#[op_interface_impl]
impl CallOpInterface for CallOp {
    fn callee(&self, ctx: &Context) -> CallOpCallable {
        CallOpCallable::Direct(self.callee_symbol(ctx))
    }

    fn arg_range(&self, ctx: &Context) -> Range<usize> {
        0..self.get_operation().deref(ctx).get_num_operands()
    }
}

#[op_interface_impl]
impl SymbolUserOpInterface for CallOp {
    fn verify_symbol_uses(
        &self,
        ctx: &Context,
        symbol_tables: &mut SymbolTableCollection,
    ) -> Result<()> {
        let callee = self.callee_symbol(ctx);
        let found =
            symbol_tables.lookup_symbol_in_nearest_table(ctx, self.get_operation(), &callee);
        let Some(func) = found
            .as_ref()
            .and_then(|f| (&**f as &dyn Op).downcast_ref::<FuncOp>())
        else {
            return verify_err!(
                self.loc(ctx),
                MirVerifyErr::CalleeNotFound(callee.to_string())
            );
        };
        let defined = func.get_type(ctx).to_handle();
        let call_type = CallOpInterface::callee_type(self, ctx);
        if defined != call_type {
            return verify_err!(
                self.loc(ctx),
                MirVerifyErr::CalleeTypeMismatch {
                    callee: callee.to_string(),
                    call_type: show(ctx, call_type),
                    defined: show(ctx, defined),
                }
            );
        }
        Ok(())
    }

    fn used_symbols(&self, ctx: &Context) -> Vec<Identifier> {
        vec![self.callee_symbol(ctx)]
    }
}

impl Verify for CallOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        let loc = self.loc(ctx);
        let Some(callee) = self
            .get_attr_mir_callee(ctx)
            .map(|a| Identifier::from(a.clone()).to_string())
        else {
            return verify_err!(loc, missing("mir.call", "mir_callee"));
        };
        // CallOpInterface has checked that the attribute is there.
        let ty = CallOpInterface::callee_type(self, ctx);
        let Ok(fn_ty) = TypedHandle::<FuncType>::from_handle(ty, ctx) else {
            return verify_err!(loc, MirVerifyErr::CalleeTypeNotFunction(show(ctx, ty)));
        };
        let (params, ret) = {
            let f = fn_ty.deref(ctx);
            (f.arg_types(), f.result_type())
        };
        let op = self.get_operation().deref(ctx);
        if op.get_num_operands() != params.len() {
            return verify_err!(
                loc,
                MirVerifyErr::CallArgCount {
                    callee,
                    given: op.get_num_operands(),
                    expected: params.len(),
                }
            );
        }
        for (index, (arg, param)) in op.operands().zip(params).enumerate() {
            let given = arg.get_type(ctx);
            if given != param {
                return verify_err!(
                    loc,
                    MirVerifyErr::CallArgType {
                        callee,
                        index,
                        given: show(ctx, given),
                        expected: show(ctx, param),
                    }
                );
            }
        }
        let results: Vec<TypeHandle> = op.result_types().collect();
        let expected: Vec<TypeHandle> = if is_void(ctx, ret) { vec![] } else { vec![ret] };
        if results != expected {
            let list = |tys: &[TypeHandle]| {
                let shown: Vec<_> = tys.iter().map(|t| show(ctx, *t)).collect();
                format!("({})", shown.join(", "))
            };
            return verify_err!(
                loc,
                MirVerifyErr::CallResults {
                    callee,
                    given: list(&results),
                    expected: list(&expected),
                }
            );
        }
        Ok(())
    }
}

/// The end of a path that panics: the kernel stops with a trap. The message is the panic's, kept
/// for the reader of the IR.
#[pliron_op(
    name = "mir.trap",
    format = "attr($mir_trap_message, $StringAttr)",
    interfaces = [IsTerminatorInterface, NOpdsInterface<0>, NResultsInterface<0>],
    attributes = (mir_trap_message: StringAttr)
)]
pub struct TrapOp;

impl TrapOp {
    pub fn new(ctx: &mut Context, message: &str) -> Self {
        let op = Operation::new(ctx, Self::get_concrete_op_info(), vec![], vec![], vec![], 0);
        let op = TrapOp { op };
        op.set_attr_mir_trap_message(ctx, StringAttr::new(message.to_string()));
        op
    }

    pub fn message(&self, ctx: &Context) -> String {
        self.get_attr_mir_trap_message(ctx)
            .map(|m| String::from(m.clone()))
            .expect("mir.trap without a message (the verifier rejects it)")
    }
}

impl Verify for TrapOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        if self.get_attr_mir_trap_message(ctx).is_none() {
            return verify_err!(self.loc(ctx), missing("mir.trap", "mir_trap_message"));
        }
        let successors = self.get_operation().deref(ctx).get_num_successors();
        if successors != 0 {
            return verify_err!(self.loc(ctx), MirVerifyErr::TrapWithSuccessors(successors));
        }
        Ok(())
    }
}

/// Blocks of a function are referred to by pointer in the importer; re-exported for it.
pub type BlockPtr = Ptr<pliron::basic_block::BasicBlock>;
