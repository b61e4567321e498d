//! The `gpu` dialect: the SIMT machine's registers and synchronisation, and the two generic ops
//! through which device code reaches any NVVM intrinsic (`gpu.intrinsic_call`) or PTX instruction
//! (`gpu.inline_asm`) that has no op of its own.

use pliron::{
    builtin::{
        attributes::{BoolAttr, StringAttr},
        op_interfaces::{NOpdsInterface, NResultsInterface, OneResultInterface},
        types::{IntegerType, Signedness},
    },
    combine::Parser,
    common_traits::Verify,
    context::Context,
    derive::{pliron_attr, pliron_op},
    impl_printable_for_display, input_error,
    op::Op,
    operation::Operation,
    parsable::{IntoParseResult, Parsable, ParseResult, StateStream, StreamLocation},
    result::Result,
    r#type::{TypeHandle, Typed},
    value::Value,
    verify_err,
};
use pliron_llvm::types::StructType;

use crate::verify::{is_void, show};

macro_rules! special_registers {
    ($($(#[$doc:meta])* $variant:ident => $ptx:literal,)*) => {
        /// A PTX special register that `gpu.special_reg` reads; each is a `u32`.
        ///
        /// Also the attribute (`gpu.special_register`) naming it on the op, printed as its PTX name.
        #[pliron_attr(name = "gpu.special_register", verifier = "succ")]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum SpecialRegister {
            $($(#[$doc])* $variant,)*
        }

        impl SpecialRegister {
            pub const ALL: [SpecialRegister; [$(stringify!($variant)),*].len()] =
                [$(Self::$variant),*];

            /// The register's PTX name without the `%`: `tid.x`.
            pub fn ptx_name(self) -> &'static str {
                match self {
                    $(Self::$variant => $ptx,)*
                }
            }

            /// The NVVM intrinsic reading the register.
            pub fn llvm_intrinsic(self) -> &'static str {
                match self {
                    $(Self::$variant => concat!("llvm.nvvm.read.ptx.sreg.", $ptx),)*
                }
            }
        }
    };
}

special_registers! {
    /// The thread's index in its block, x.
    TidX => "tid.x",
    TidY => "tid.y",
    TidZ => "tid.z",
    /// The block's index in the grid, x.
    CtaidX => "ctaid.x",
    CtaidY => "ctaid.y",
    CtaidZ => "ctaid.z",
    /// The block's size in threads, x.
    NtidX => "ntid.x",
    NtidY => "ntid.y",
    NtidZ => "ntid.z",
    /// The grid's size in blocks, x.
    NctaidX => "nctaid.x",
    NctaidY => "nctaid.y",
    NctaidZ => "nctaid.z",
}

impl SpecialRegister {
    pub fn from_ptx_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.ptx_name() == name)
    }

    /// The value the register has in every launch of a one-dimensional grid of one-dimensional
    /// blocks (the launch contract `grid = "1d"`), if fixed: y and z indices are 0, y and z
    /// sizes 1.
    pub fn value_in_1d_grid(self) -> Option<u32> {
        use SpecialRegister::*;
        match self {
            TidY | TidZ | CtaidY | CtaidZ => Some(0),
            NtidY | NtidZ | NctaidY | NctaidZ => Some(1),
            TidX | CtaidX | NtidX | NctaidX => None,
        }
    }
}

impl SpecialRegister {
    /// The value the register has in every launch with blocks of exactly `block` threads
    /// (x, y, z) (the launch contract `block = "..."`): the block's sizes.
    pub fn value_in_block(self, [x, y, z]: [u32; 3]) -> Option<u32> {
        match self {
            SpecialRegister::NtidX => Some(x),
            SpecialRegister::NtidY => Some(y),
            SpecialRegister::NtidZ => Some(z),
            // A dimension of one thread: its index is 0.
            SpecialRegister::TidX if x == 1 => Some(0),
            SpecialRegister::TidY if y == 1 => Some(0),
            SpecialRegister::TidZ if z == 1 => Some(0),
            _ => None,
        }
    }

    /// The bound below which the register's value lies in every launch with blocks of exactly
    /// `block` threads: the block's size along the axis, for a thread index.
    pub fn bound_in_block(self, [x, y, z]: [u32; 3]) -> Option<u32> {
        match self {
            SpecialRegister::TidX => Some(x),
            SpecialRegister::TidY => Some(y),
            SpecialRegister::TidZ => Some(z),
            _ => None,
        }
    }
}

impl std::fmt::Display for SpecialRegister {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "\"{}\"", self.ptx_name())
    }
}

impl_printable_for_display!(SpecialRegister);

impl Parsable for SpecialRegister {
    type Arg = ();
    type Parsed = Self;

    fn parse<'a>(
        state_stream: &mut StateStream<'a>,
        _arg: Self::Arg,
    ) -> ParseResult<'a, Self::Parsed> {
        let pos = state_stream.loc();
        let (name, _) = StringAttr::parser(())
            .parse_stream(state_stream)
            .into_result()?;
        let name = String::from(name);
        SpecialRegister::from_ptx_name(&name)
            .ok_or_else(|| input_error!(pos, GpuVerifyErr::UnknownRegister(name)))
            .into_parse_result()
    }
}

/// Why a `gpu` op does not verify (or parse).
#[derive(thiserror::Error, Debug)]
pub enum GpuVerifyErr {
    #[error("`{0}` is not a PTX special register oxide reads")]
    UnknownRegister(String),
    #[error("{op} has no `{attr}` attribute")]
    MissingAttr {
        op: &'static str,
        attr: &'static str,
    },
    #[error("gpu.special_reg yields `{0}`; a special register is an i32")]
    SpecialRegNotI32(String),
    #[error("{op} has {successors} successors and {regions} regions; it has none")]
    NotStraightLine {
        op: &'static str,
        successors: usize,
        regions: usize,
    },
    #[error("gpu.intrinsic_call calls `{0}`, which is not an LLVM intrinsic (`llvm.` name)")]
    NotAnIntrinsic(String),
    #[error("{op}'s result is `llvm.void` but has {uses} uses")]
    VoidResultUsed { op: &'static str, uses: usize },
    #[error("gpu.inline_asm has an empty template")]
    EmptyTemplate,
    #[error(
        "gpu.inline_asm's constraints `{constraints}` name {outputs} outputs, but its result `{result}` holds {held}"
    )]
    AsmOutputs {
        constraints: String,
        outputs: usize,
        result: String,
        held: usize,
    },
    #[error(
        "gpu.inline_asm's constraints `{constraints}` name {inputs} inputs, but it has {operands} operands"
    )]
    AsmInputs {
        constraints: String,
        inputs: usize,
        operands: usize,
    },
}

/// An op without control flow: no successors, no regions (which `Operation::new` would allow).
fn verify_straight_line(op: &dyn Op, ctx: &Context, name: &'static str) -> Result<()> {
    let opr = op.get_operation().deref(ctx);
    let (successors, regions) = (opr.get_num_successors(), opr.num_regions());
    if successors != 0 || regions != 0 {
        return verify_err!(
            opr.loc(),
            GpuVerifyErr::NotStraightLine {
                op: name,
                successors,
                regions,
            }
        );
    }
    Ok(())
}

/// An `llvm.void` result stands for "no value": nothing may use it.
fn verify_void_result_unused(op: &dyn Op, ctx: &Context, name: &'static str) -> Result<()> {
    let opr = op.get_operation().deref(ctx);
    let result = opr.get_result(0);
    let uses = result.num_uses(ctx);
    if is_void(ctx, result.get_type(ctx)) && uses != 0 {
        return verify_err!(opr.loc(), GpuVerifyErr::VoidResultUsed { op: name, uses });
    }
    Ok(())
}

/// Reads a PTX special register (`tid.x`, `ctaid.y`, `ntid.z`, `nctaid.x`...) as a `u32`.
#[pliron_op(
    name = "gpu.special_reg",
    format = "attr($gpu_register, $SpecialRegister) ` : ` type($0)",
    interfaces = [OneResultInterface, NOpdsInterface<0>],
    attributes = (gpu_register: SpecialRegister),
    results = (value: IntegerType)
)]
pub struct SpecialRegOp;

impl SpecialRegOp {
    pub fn new(ctx: &mut Context, register: SpecialRegister) -> Self {
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
        op.set_attr_gpu_register(ctx, register);
        op
    }

    pub fn register(&self, ctx: &Context) -> SpecialRegister {
        *self
            .get_attr_gpu_register(ctx)
            .expect("gpu.special_reg without a register (the verifier rejects it)")
    }
}

impl Verify for SpecialRegOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        if self.get_attr_gpu_register(ctx).is_none() {
            return verify_err!(
                self.loc(ctx),
                GpuVerifyErr::MissingAttr {
                    op: "gpu.special_reg",
                    attr: "gpu_register",
                }
            );
        }
        let ty = self.get_result(ctx).get_type(ctx);
        let is_i32 = ty
            .deref(ctx)
            .downcast_ref::<IntegerType>()
            .is_some_and(|int| int.width() == 32);
        if !is_i32 {
            return verify_err!(self.loc(ctx), GpuVerifyErr::SpecialRegNotI32(show(ctx, ty)));
        }
        verify_straight_line(self, ctx, "gpu.special_reg")
    }
}

/// A block-wide barrier (`__syncthreads`). Every thread of the block must reach the same one.
#[pliron_op(
    name = "gpu.barrier",
    format = "",
    interfaces = [NOpdsInterface<0>, NResultsInterface<0>]
)]
pub struct BarrierOp;

impl BarrierOp {
    /// Barrier 0 over all threads of the CTA: `bar.sync 0`, what `__syncthreads()` is. It takes
    /// the barrier's number.
    pub const LLVM_INTRINSIC: &'static str = "llvm.nvvm.barrier.cta.sync.aligned.all";

    pub fn new(ctx: &mut Context) -> Self {
        let op = Operation::new(ctx, Self::get_concrete_op_info(), vec![], vec![], vec![], 0);
        BarrierOp { op }
    }
}

impl Verify for BarrierOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        verify_straight_line(self, ctx, "gpu.barrier")
    }
}

/// Calls the LLVM (NVVM) intrinsic `name` with `args`. The one result may be `llvm.void`, then
/// unused.
#[pliron_op(
    name = "gpu.intrinsic_call",
    format = "attr($gpu_intrinsic_name, $StringAttr) ` (` operands(CharSpace(`,`)) `) : ` type($0)",
    interfaces = [OneResultInterface],
    attributes = (gpu_intrinsic_name: StringAttr)
)]
pub struct IntrinsicCallOp;

impl IntrinsicCallOp {
    pub fn new(ctx: &mut Context, name: &str, result: TypeHandle, args: Vec<Value>) -> Self {
        let op = Operation::new(
            ctx,
            Self::get_concrete_op_info(),
            vec![result],
            args,
            vec![],
            0,
        );
        let op = IntrinsicCallOp { op };
        op.set_attr_gpu_intrinsic_name(ctx, StringAttr::new(name.to_string()));
        op
    }

    pub fn name(&self, ctx: &Context) -> String {
        self.get_attr_gpu_intrinsic_name(ctx)
            .map(|n| String::from(n.clone()))
            .expect("gpu.intrinsic_call without a name (the verifier rejects it)")
    }
}

impl Verify for IntrinsicCallOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        let Some(name) = self
            .get_attr_gpu_intrinsic_name(ctx)
            .map(|n| String::from(n.clone()))
        else {
            return verify_err!(
                self.loc(ctx),
                GpuVerifyErr::MissingAttr {
                    op: "gpu.intrinsic_call",
                    attr: "gpu_intrinsic_name",
                }
            );
        };
        if !name.starts_with("llvm.") || name.len() == "llvm.".len() {
            return verify_err!(self.loc(ctx), GpuVerifyErr::NotAnIntrinsic(name));
        }
        verify_straight_line(self, ctx, "gpu.intrinsic_call")?;
        verify_void_result_unused(self, ctx, "gpu.intrinsic_call")
    }
}

/// PTX inline assembly: `template` with LLVM-style `constraints` (outputs `=r`, then inputs `r`,
/// `l`, `f`, `d`, `h`, `n`, then clobbers `~{memory}`), one operand per input. The one result is
/// `llvm.void` without outputs, the output's type with one, a struct of the outputs with more.
#[pliron_op(
    name = "gpu.inline_asm",
    format = "attr($gpu_asm_template, $StringAttr) `, ` attr($gpu_asm_constraints, $StringAttr) ` side_effects = ` attr($gpu_asm_side_effects, $BoolAttr) ` (` operands(CharSpace(`,`)) `) : ` type($0)",
    interfaces = [OneResultInterface],
    attributes = (
        gpu_asm_template: StringAttr,
        gpu_asm_constraints: StringAttr,
        gpu_asm_side_effects: BoolAttr
    )
)]
pub struct InlineAsmOp;

impl InlineAsmOp {
    pub fn new(
        ctx: &mut Context,
        template: &str,
        constraints: &str,
        result: TypeHandle,
        args: Vec<Value>,
        side_effects: bool,
    ) -> Self {
        let op = Operation::new(
            ctx,
            Self::get_concrete_op_info(),
            vec![result],
            args,
            vec![],
            0,
        );
        let op = InlineAsmOp { op };
        op.set_attr_gpu_asm_template(ctx, StringAttr::new(template.to_string()));
        op.set_attr_gpu_asm_constraints(ctx, StringAttr::new(constraints.to_string()));
        op.set_attr_gpu_asm_side_effects(ctx, BoolAttr::new(side_effects));
        op
    }

    pub fn template(&self, ctx: &Context) -> String {
        self.get_attr_gpu_asm_template(ctx)
            .map(|t| String::from(t.clone()))
            .expect("gpu.inline_asm without a template (the verifier rejects it)")
    }

    pub fn constraints(&self, ctx: &Context) -> String {
        self.get_attr_gpu_asm_constraints(ctx)
            .map(|c| String::from(c.clone()))
            .expect("gpu.inline_asm without constraints (the verifier rejects it)")
    }

    pub fn has_side_effects(&self, ctx: &Context) -> bool {
        self.get_attr_gpu_asm_side_effects(ctx)
            .map(|s| bool::from(s.clone()))
            .expect("gpu.inline_asm without a side-effects flag (the verifier rejects it)")
    }
}

/// How many values an LLVM constraint string writes and reads. An indirect output (`=*m`)
/// writes through a pointer operand, so it counts as an input; a clobber (`~{...}`) as neither.
fn constraint_counts(constraints: &str) -> (usize, usize) {
    let (mut outputs, mut inputs) = (0, 0);
    for code in constraints
        .split(',')
        .map(str::trim)
        .filter(|c| !c.is_empty())
    {
        if code.starts_with("=*") {
            inputs += 1;
        } else if code.starts_with('=') {
            outputs += 1;
        } else if !code.starts_with('~') {
            inputs += 1;
        }
    }
    (outputs, inputs)
}

impl Verify for InlineAsmOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        let loc = self.loc(ctx);
        let missing = |attr| GpuVerifyErr::MissingAttr {
            op: "gpu.inline_asm",
            attr,
        };
        let Some(template) = self.get_attr_gpu_asm_template(ctx).map(|t| t.clone()) else {
            return verify_err!(loc, missing("gpu_asm_template"));
        };
        let Some(constraints) = self
            .get_attr_gpu_asm_constraints(ctx)
            .map(|c| String::from(c.clone()))
        else {
            return verify_err!(loc, missing("gpu_asm_constraints"));
        };
        if self.get_attr_gpu_asm_side_effects(ctx).is_none() {
            return verify_err!(loc, missing("gpu_asm_side_effects"));
        }
        if String::from(template).trim().is_empty() {
            return verify_err!(loc, GpuVerifyErr::EmptyTemplate);
        }
        let (outputs, inputs) = constraint_counts(&constraints);
        let result = self.get_result(ctx).get_type(ctx);
        let held = if is_void(ctx, result) {
            0
        } else {
            match result.deref(ctx).downcast_ref::<StructType>() {
                Some(st) if outputs > 1 => st.num_fields(),
                _ => 1,
            }
        };
        if held != outputs {
            return verify_err!(
                loc,
                GpuVerifyErr::AsmOutputs {
                    constraints,
                    outputs,
                    result: show(ctx, result),
                    held,
                }
            );
        }
        let operands = self.get_operation().deref(ctx).get_num_operands();
        if operands != inputs {
            return verify_err!(
                loc,
                GpuVerifyErr::AsmInputs {
                    constraints,
                    inputs,
                    operands,
                }
            );
        }
        verify_straight_line(self, ctx, "gpu.inline_asm")?;
        verify_void_result_unused(self, ctx, "gpu.inline_asm")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn register_names_round_trip() {
        for r in SpecialRegister::ALL {
            assert_eq!(SpecialRegister::from_ptx_name(r.ptx_name()), Some(r));
            assert_eq!(
                r.llvm_intrinsic(),
                format!("llvm.nvvm.read.ptx.sreg.{}", r.ptx_name())
            );
        }
        assert_eq!(SpecialRegister::from_ptx_name("tid.w"), None);
        assert_eq!(SpecialRegister::NctaidY.value_in_1d_grid(), Some(1));
        assert_eq!(SpecialRegister::CtaidZ.value_in_1d_grid(), Some(0));
        assert_eq!(SpecialRegister::NtidY.value_in_block([32, 8, 1]), Some(8));
        assert_eq!(SpecialRegister::TidY.value_in_block([32, 8, 1]), None);
        assert_eq!(SpecialRegister::TidZ.value_in_block([32, 8, 1]), Some(0));
        assert_eq!(SpecialRegister::TidY.bound_in_block([32, 8, 1]), Some(8));
        assert_eq!(SpecialRegister::TidX.value_in_1d_grid(), None);
    }

    #[test]
    fn constraints_count_outputs_inputs_and_skip_clobbers() {
        assert_eq!(constraint_counts(""), (0, 0));
        assert_eq!(constraint_counts("=r,r,r"), (1, 2));
        assert_eq!(constraint_counts("=r,=r,l,~{memory}"), (2, 1));
        assert_eq!(constraint_counts("=*m,r"), (0, 2));
        assert_eq!(constraint_counts("~{memory}"), (0, 0));
    }
}
