//! `mem2reg` over `mir.slot`s: pliron's promotion interfaces on the slot and its loads and stores.

use pliron::{
    arg_err,
    builtin::op_interfaces::OneResultInterface,
    context::Context,
    derive::op_interface_impl,
    irbuild::{inserter::Inserter, rewriter::Rewriter},
    op::Op,
    opts::mem2reg::{
        AllocInfo, PromotableAllocationInterface, PromotableOpInterface, PromotableOpKind,
    },
    result::Result,
    r#type::Typed,
    value::Value,
};
use pliron_llvm::ops::PoisonOp;

use super::{LoadOp, SlotOp, StoreOp};

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

#[op_interface_impl]
impl PromotableOpInterface for LoadOp {
    fn promotion_kind(&self, ctx: &Context, alloc_info: &AllocInfo) -> PromotableOpKind {
        // Only a read of the whole slot at its own type can become the slot's SSA value.
        if self.get_operand_address(ctx) == alloc_info.ptr
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

#[op_interface_impl]
impl PromotableOpInterface for StoreOp {
    fn promotion_kind(&self, ctx: &Context, alloc_info: &AllocInfo) -> PromotableOpKind {
        let value = self.get_operand_value(ctx);
        // Storing the slot's own address somewhere lets it escape: never promotable.
        if self.get_operand_address(ctx) == alloc_info.ptr
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
