//! The `gpu` dialect: the SIMT machine's registers and synchronisation.

use pliron::{
    builtin::{
        attributes::StringAttr,
        op_interfaces::{NOpdsInterface, NResultsInterface, OneResultInterface},
        types::{IntegerType, Signedness},
    },
    context::Context,
    derive::pliron_op,
    op::Op,
    operation::Operation,
};

/// Reads a PTX special register (`tid.x`, `ctaid.y`, `ntid.z`, `nctaid.x`...) as a `u32`.
#[pliron_op(
    name = "gpu.special_reg",
    format = "attr($gpu_register, $StringAttr) ` : ` type($0)",
    interfaces = [OneResultInterface, NOpdsInterface<0>],
    attributes = (gpu_register: StringAttr),
    verifier = "succ"
)]
pub struct SpecialRegOp;

impl SpecialRegOp {
    pub fn new(ctx: &mut Context, register: &str) -> Self {
        let i32_ty = IntegerType::get(ctx, 32, Signedness::Signless).into();
        let op = Operation::new(
            ctx,
            Self::get_concrete_op_info(),
            vec![i32_ty],
            vec![],
            vec![],
            0,
        );
        let op = SpecialRegOp { op };
        op.set_attr_gpu_register(ctx, StringAttr::new(register.to_string()));
        op
    }

    pub fn register(&self, ctx: &Context) -> String {
        self.get_attr_gpu_register(ctx)
            .map(|s| String::from(s.clone()))
            .unwrap_or_default()
    }
}

/// A block-wide barrier (`__syncthreads`). Every thread of the block must reach the same one.
#[pliron_op(
    name = "gpu.barrier",
    format = "",
    interfaces = [NOpdsInterface<0>, NResultsInterface<0>],
    verifier = "succ"
)]
pub struct BarrierOp;

impl BarrierOp {
    pub fn new(ctx: &mut Context) -> Self {
        let op = Operation::new(ctx, Self::get_concrete_op_info(), vec![], vec![], vec![], 0);
        BarrierOp { op }
    }
}
