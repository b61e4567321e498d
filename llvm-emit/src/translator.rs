//! The translator: the state of a module's translation ([`Translator`], [`FunctionState`]) and
//! the helpers every op translation shares (operands, types, result names, builder errors).
//! The driver is [`crate::translate`], which op becomes what [`crate::dispatch`].

use std::collections::HashMap;

use inkwell::{
    basic_block::BasicBlock as LlBlock,
    builder::Builder,
    context::Context as LlContext,
    module::Module,
    types::BasicTypeEnum,
    values::{BasicValueEnum, FunctionValue, GlobalValue, PhiValue},
};
use pliron::{
    basic_block::BasicBlock,
    common_traits::Named,
    context::{Context, Ptr},
    identifier::Identifier,
    operation::Operation,
    r#type::TypeHandle,
    value::Value,
};

use crate::{
    errors::{EmitError, op_text},
    types::{TypeConverter, UnsupportedType},
};

/// LLVM's `CallingConv::PTX_Kernel`: makes the NVPTX backend emit `.entry` instead of `.func`.
pub(crate) const PTX_KERNEL_CC: u32 = 71;

/// What an op translation produces: the LLVM value of the op's (single) result, if it has a
/// non-void one.
pub(crate) type OpValue<'ll> = Result<Option<BasicValueEnum<'ll>>, EmitError>;

/// Arguments passed along an edge, and the block that carries them (the destination itself,
/// or a detour block).
pub(crate) type EdgeArgs<'ll> = (Vec<BasicValueEnum<'ll>>, LlBlock<'ll>);

/// State of one function's translation.
#[derive(Default)]
pub(crate) struct FunctionState<'ll> {
    pub(crate) function: Option<FunctionValue<'ll>>,
    pub(crate) values: HashMap<Value, BasicValueEnum<'ll>>,
    pub(crate) blocks: HashMap<Ptr<BasicBlock>, LlBlock<'ll>>,
    /// The phis standing for each non-entry block's arguments, in argument order.
    pub(crate) phis: HashMap<Ptr<BasicBlock>, Vec<PhiValue<'ll>>>,
    /// For each (LLVM predecessor, pliron successor): the argument lists already passed and
    /// the block each one jumps to; see `Translator::edge`.
    pub(crate) edges: HashMap<(LlBlock<'ll>, Ptr<BasicBlock>), Vec<EdgeArgs<'ll>>>,
}

pub(crate) struct Translator<'a, 'll> {
    pub(crate) ctx: &'a Context,
    pub(crate) ll: &'ll LlContext,
    pub(crate) module: &'a Module<'ll>,
    pub(crate) builder: Builder<'ll>,
    pub(crate) types: TypeConverter<'ll>,
    /// Functions by pliron symbol name (what `llvm.call` refers to).
    pub(crate) functions: HashMap<Identifier, FunctionValue<'ll>>,
    /// Global variables by pliron symbol name (what `llvm.addressof` refers to).
    pub(crate) globals: HashMap<Identifier, GlobalValue<'ll>>,
    pub(crate) func: FunctionState<'ll>,
    /// Whether the target has the cluster sync scope (`GpuArch::has_clusters`).
    pub(crate) cluster_scope: bool,
}

impl<'ll> Translator<'_, 'll> {
    pub(crate) fn type_error(&self, opr: Ptr<Operation>, e: UnsupportedType) -> EmitError {
        EmitError::UnsupportedType {
            ty: e.0,
            op: op_text(self.ctx, opr),
        }
    }

    /// Converts `ty`, blaming `opr` if it has no LLVM equivalent.
    pub(crate) fn ty(
        &mut self,
        opr: Ptr<Operation>,
        ty: TypeHandle,
    ) -> Result<BasicTypeEnum<'ll>, EmitError> {
        self.types
            .basic(self.ctx, ty)
            .map_err(|e| self.type_error(opr, e))
    }

    /// The LLVM type of `opr`'s single result.
    pub(crate) fn result_type(
        &mut self,
        opr: Ptr<Operation>,
    ) -> Result<BasicTypeEnum<'ll>, EmitError> {
        let ty = opr.deref(self.ctx).get_type(0);
        self.ty(opr, ty)
    }

    pub(crate) fn value(
        &self,
        opr: Ptr<Operation>,
        v: Value,
    ) -> Result<BasicValueEnum<'ll>, EmitError> {
        self.func.values.get(&v).copied().ok_or_else(|| {
            EmitError::invalid(self.ctx, opr, "an operand is used before it is defined")
        })
    }

    pub(crate) fn operand(
        &self,
        opr: Ptr<Operation>,
        idx: usize,
    ) -> Result<BasicValueEnum<'ll>, EmitError> {
        let op = opr.deref(self.ctx);
        if idx >= op.get_num_operands() {
            return Err(EmitError::invalid(
                self.ctx,
                opr,
                format!("missing operand {idx}"),
            ));
        }
        self.value(opr, op.get_operand(idx))
    }

    pub(crate) fn operands(
        &self,
        opr: Ptr<Operation>,
    ) -> Result<Vec<BasicValueEnum<'ll>>, EmitError> {
        let opds: Vec<Value> = opr.deref(self.ctx).operands().collect();
        opds.into_iter().map(|v| self.value(opr, v)).collect()
    }

    /// The name to give the LLVM value of `opr`'s result: its pliron name if it has one.
    pub(crate) fn result_name(&self, opr: Ptr<Operation>) -> String {
        let op = opr.deref(self.ctx);
        if op.get_num_results() == 0 {
            return String::new();
        }
        op.get_result(0)
            .given_name(self.ctx)
            .map(|n| n.to_string())
            .unwrap_or_default()
    }

    /// Maps an inkwell builder failure to an error naming `opr`.
    pub(crate) fn built<T>(
        &self,
        opr: Ptr<Operation>,
        r: Result<T, inkwell::builder::BuilderError>,
    ) -> Result<T, EmitError> {
        r.map_err(|e| EmitError::builder(self.ctx, opr, e))
    }
}
