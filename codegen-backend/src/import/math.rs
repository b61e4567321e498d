//! Math functions: the float `core::intrinsics` that `f32::sin` and friends wrap, and the C math
//! functions `std` declares for the others (`tanhf`...), become calls of NVIDIA's libdevice
//! (`__nv_sinf`...), which llvm-emit links into the kernels' LLVM IR (docs/math.md). libdevice
//! is CUDA's own math library, so the results are those of CUDA's `sinf`, `tanh`..., with their
//! documented error bounds.

use rustc_middle::mir;

use super::{
    FnCx,
    operands::{Operand, OperandVal},
};
use crate::error::{DeviceResult, not_on_gpu};

impl<'tcx> FnCx<'tcx, '_> {
    /// `destination = libdevice(operands)`, then on to `target`. `what` names the Rust function
    /// for the error when no libdevice was found.
    pub(crate) fn libdevice_call(
        &mut self,
        libdevice: &'static str,
        what: &str,
        operands: &[Operand<'tcx>],
        destination: mir::Place<'tcx>,
        target: Option<mir::BasicBlock>,
    ) -> DeviceResult<()> {
        if !self.m.has_libdevice {
            return not_on_gpu(
                self.span,
                format!("`{what}`"),
                "it is computed by NVIDIA's libdevice, which was not found: run ci/setup.sh (it \
                 pip-installs nvidia-nvvm) or set OXIDE_LIBDEVICE to libdevice.10.bc, and build \
                 with `cargo oxide`",
            );
        }
        let dest = self.place(destination)?;
        let values = operands
            .iter()
            .map(|o| o.immediate(self.span))
            .collect::<DeviceResult<Vec<_>>>()?;
        let ty = self.immediate_type(dest.layout)?;
        let result = self.intrinsic(libdevice, ty, values);
        self.store_operand(
            Operand {
                val: OperandVal::Imm(result),
                layout: dest.layout,
            },
            dest,
        )?;
        self.finish_call(target)
    }
}
