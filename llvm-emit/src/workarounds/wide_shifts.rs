//! 128-bit shifts by a variable amount, expanded into 64-bit shifts in the IR.
//!
//! NVPTX lowers `ashr i128 x, s` into 64-bit halves, with the high half `s < 64 ? hi >>a s :
//! hi >>a 63`. It folds that select away on PTX's clamping of shift amounts (`shr.s64` by 64 or
//! more gives the sign fill), and then, when only the low bits of the high half are used, turns
//! `shr.s64` into `shr.u64`, which by 64 or more gives 0: `(x & (C >> s))` with `C` negative and
//! `s >= 64` lost its top bits (oxide-fuzz, seed 1, program 9916). Here every shift amount is below
//! 64 and the choice between the halves is an explicit `select`, so no lowering can disagree
//! about out-of-range amounts.

use inkwell::{
    builder::Builder,
    module::Module,
    types::IntType,
    values::{BasicValueEnum, CallSiteValue, InstructionOpcode, InstructionValue, IntValue},
};

/// Which shift: left, logical right, arithmetic right.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shift {
    Left,
    LogicalRight,
    ArithmeticRight,
}

/// Every `shl`/`lshr`/`ashr i128` and `llvm.fshl/fshr.i128` whose amount is not a constant
/// becomes 64-bit operations on the halves.
pub(crate) fn expand_wide_shifts(module: &Module<'_>) {
    let targets: Vec<InstructionValue<'_>> = module
        .get_functions()
        .flat_map(|f| f.get_basic_blocks())
        .flat_map(|b| b.get_instructions())
        .filter(|i| shift_kind(*i).is_some() || funnel_kind(*i).is_some())
        .collect();
    if targets.is_empty() {
        return;
    }
    let ll = module.get_context();
    let builder = ll.create_builder();
    for inst in targets {
        builder.position_before(&inst);
        let wide = Wide {
            b: &builder,
            i64_ty: ll.i64_type(),
            i128_ty: ll.i128_type(),
        };
        let expanded = if let Some(kind) = shift_kind(inst) {
            int_operand(inst, 0)
                .zip(int_operand(inst, 1))
                .and_then(|(x, s)| wide.shift(kind, x, s))
        } else if let Some(left) = funnel_kind(inst) {
            int_operand(inst, 0)
                .zip(int_operand(inst, 1))
                .zip(int_operand(inst, 2))
                .and_then(|((a, b), s)| wide.funnel(left, a, b, s))
        } else {
            None
        };
        if let Some(value) = expanded.and_then(|v| v.as_instruction()) {
            inst.replace_all_uses_with(&value);
            inst.erase_from_basic_block();
        }
    }
}

/// The shift of an `i128` shift instruction with a variable amount.
fn shift_kind(inst: InstructionValue<'_>) -> Option<Shift> {
    let kind = match inst.get_opcode() {
        InstructionOpcode::Shl => Shift::Left,
        InstructionOpcode::LShr => Shift::LogicalRight,
        InstructionOpcode::AShr => Shift::ArithmeticRight,
        _ => return None,
    };
    let amount = int_operand(inst, 1)?;
    (amount.get_type().get_bit_width() == 128 && !amount.is_const()).then_some(kind)
}

/// `Some(true)` for `llvm.fshl.i128`, `Some(false)` for `llvm.fshr.i128`, with a variable amount.
fn funnel_kind(inst: InstructionValue<'_>) -> Option<bool> {
    if inst.get_opcode() != InstructionOpcode::Call {
        return None;
    }
    let site = CallSiteValue::try_from(inst).ok()?;
    let callee = site.get_called_fn_value()?;
    let left = match callee.get_name().to_bytes() {
        b"llvm.fshl.i128" => true,
        b"llvm.fshr.i128" => false,
        _ => return None,
    };
    (!int_operand(inst, 2)?.is_const()).then_some(left)
}

fn int_operand<'ctx>(inst: InstructionValue<'ctx>, index: u32) -> Option<IntValue<'ctx>> {
    match inst.get_operand(index)? {
        inkwell::values::Operand::Value(BasicValueEnum::IntValue(v)) => Some(v),
        _ => None,
    }
}

/// Builds 128-bit shifts from 64-bit ones at the builder's position.
struct Wide<'a, 'ctx> {
    b: &'a Builder<'ctx>,
    i64_ty: IntType<'ctx>,
    i128_ty: IntType<'ctx>,
}

impl<'ctx> Wide<'_, 'ctx> {
    fn c64(&self, v: u64) -> IntValue<'ctx> {
        self.i64_ty.const_int(v, false)
    }

    /// `x << s`, `x >> s` or `x >>a s` for an amount `s` below 128 (Rust masks or checks it; a
    /// larger one is poison in LLVM, so any result is right).
    fn shift(&self, kind: Shift, x: IntValue<'ctx>, s: IntValue<'ctx>) -> Option<IntValue<'ctx>> {
        let amount = self.b.build_int_truncate(s, self.i64_ty, "sh.amt").ok()?;
        let (lo, hi) = self.halves(x)?;
        let (lo, hi) = self.shift_halves(kind, lo, hi, amount)?;
        self.join(lo, hi)
    }

    /// `llvm.fshl(a, b, s)` (left) or `llvm.fshr(a, b, s)`: the amount is taken modulo 128.
    fn funnel(
        &self,
        left: bool,
        a: IntValue<'ctx>,
        b: IntValue<'ctx>,
        s: IntValue<'ctx>,
    ) -> Option<IntValue<'ctx>> {
        let b_ = self.b;
        let amount = b_.build_int_truncate(s, self.i64_ty, "fsh.amt").ok()?;
        let k = b_.build_and(amount, self.c64(127), "fsh.k").ok()?;
        let rest = b_.build_int_sub(self.c64(128), k, "fsh.rest").ok()?;
        let rest = b_.build_and(rest, self.c64(127), "fsh.rest").ok()?;
        let (left_amount, right_amount, unchanged) = if left { (k, rest, a) } else { (rest, k, b) };
        let (a_lo, a_hi) = self.halves(a)?;
        let (b_lo, b_hi) = self.halves(b)?;
        let (l_lo, l_hi) = self.shift_halves(Shift::Left, a_lo, a_hi, left_amount)?;
        let (r_lo, r_hi) = self.shift_halves(Shift::LogicalRight, b_lo, b_hi, right_amount)?;
        let lo = b_.build_or(l_lo, r_lo, "fsh.lo").ok()?;
        let hi = b_.build_or(l_hi, r_hi, "fsh.hi").ok()?;
        let joined = self.join(lo, hi)?;
        // An amount of 0 (mod 128) leaves the first (fshl) or second (fshr) operand unchanged;
        // the formula above would or both in.
        let none = b_
            .build_int_compare(inkwell::IntPredicate::EQ, k, self.c64(0), "fsh.none")
            .ok()?;
        b_.build_select(none, unchanged, joined, "fsh")
            .ok()
            .map(|v| v.into_int_value())
    }

    fn halves(&self, x: IntValue<'ctx>) -> Option<(IntValue<'ctx>, IntValue<'ctx>)> {
        let lo = self.b.build_int_truncate(x, self.i64_ty, "lo").ok()?;
        let hi = self
            .b
            .build_right_shift(x, self.i128_ty.const_int(64, false), false, "hi")
            .and_then(|hi| self.b.build_int_truncate(hi, self.i64_ty, "hi"))
            .ok()?;
        Some((lo, hi))
    }

    fn join(&self, lo: IntValue<'ctx>, hi: IntValue<'ctx>) -> Option<IntValue<'ctx>> {
        let b = self.b;
        let lo = b.build_int_z_extend(lo, self.i128_ty, "lo.w").ok()?;
        let hi = b.build_int_z_extend(hi, self.i128_ty, "hi.w").ok()?;
        let hi = b
            .build_left_shift(hi, self.i128_ty.const_int(64, false), "hi.w")
            .ok()?;
        b.build_or(hi, lo, "wide").ok()
    }

    /// The halves shifted by `amount` (below 128), with every 64-bit shift amount below 64.
    fn shift_halves(
        &self,
        kind: Shift,
        lo: IntValue<'ctx>,
        hi: IntValue<'ctx>,
        amount: IntValue<'ctx>,
    ) -> Option<(IntValue<'ctx>, IntValue<'ctx>)> {
        let b = self.b;
        let k = b.build_and(amount, self.c64(63), "k").ok()?;
        let k_rest = b.build_xor(k, self.c64(63), "k.rest").ok()?; // 63 - k
        let big = b
            .build_and(amount, self.c64(64), "big")
            .and_then(|bit| b.build_int_compare(inkwell::IntPredicate::NE, bit, self.c64(0), "big"))
            .ok()?;
        let one = self.c64(1);
        let zero = self.c64(0);
        let (small_lo, small_hi, big_lo, big_hi) = match kind {
            Shift::Left => {
                // The bits of `lo` that cross into `hi`: `lo >> (64 - k)`, as two shifts so that
                // k = 0 gives 0 without a shift by 64.
                let carried = b
                    .build_right_shift(lo, one, false, "carry")
                    .and_then(|c| b.build_right_shift(c, k_rest, false, "carry"))
                    .ok()?;
                let lo_k = b.build_left_shift(lo, k, "lo.k").ok()?;
                let hi_k = b.build_left_shift(hi, k, "hi.k").ok()?;
                let small_hi = b.build_or(hi_k, carried, "hi.s").ok()?;
                (lo_k, small_hi, zero, lo_k)
            }
            Shift::LogicalRight | Shift::ArithmeticRight => {
                let arithmetic = kind == Shift::ArithmeticRight;
                let carried = b
                    .build_left_shift(hi, one, "carry")
                    .and_then(|c| b.build_left_shift(c, k_rest, "carry"))
                    .ok()?;
                let lo_k = b.build_right_shift(lo, k, false, "lo.k").ok()?;
                let hi_k = b.build_right_shift(hi, k, arithmetic, "hi.k").ok()?;
                let small_lo = b.build_or(lo_k, carried, "lo.s").ok()?;
                let fill = if arithmetic {
                    b.build_right_shift(hi, self.c64(63), true, "fill").ok()?
                } else {
                    zero
                };
                (small_lo, hi_k, hi_k, fill)
            }
        };
        let lo = b.build_select(big, big_lo, small_lo, "lo.r").ok()?;
        let hi = b.build_select(big, big_hi, small_hi, "hi.r").ok()?;
        Some((lo.into_int_value(), hi.into_int_value()))
    }
}

#[cfg(test)]
mod tests {
    use inkwell::{attributes::Attribute, context::Context, intrinsics::Intrinsic, module::Module};

    use super::*;

    /// `f(x_lo, x_hi, y_lo, y_hi, s, high) -> the low or high half of the result`.
    fn shift_module<'ctx>(ll: &'ctx Context, op: &str) -> Module<'ctx> {
        let module = ll.create_module(op);
        let (i64_ty, i128_ty) = (ll.i64_type(), ll.i128_type());
        let f = module.add_function("f", i64_ty.fn_type(&[i64_ty.into(); 6], false), None);
        let b = ll.create_builder();
        b.position_at_end(ll.append_basic_block(f, "entry"));
        let p = |i: u32| f.get_nth_param(i).unwrap().into_int_value();
        let wide = |lo: IntValue<'ctx>, hi: IntValue<'ctx>| {
            let lo = b.build_int_z_extend(lo, i128_ty, "").unwrap();
            let hi = b.build_int_z_extend(hi, i128_ty, "").unwrap();
            let hi = b
                .build_left_shift(hi, i128_ty.const_int(64, false), "")
                .unwrap();
            b.build_or(hi, lo, "").unwrap()
        };
        let x = wide(p(0), p(1));
        let y = wide(p(2), p(3));
        let s = b.build_int_z_extend(p(4), i128_ty, "").unwrap();
        let r = match op {
            "shl" => b.build_left_shift(x, s, "r").unwrap(),
            "lshr" => b.build_right_shift(x, s, false, "r").unwrap(),
            "ashr" => b.build_right_shift(x, s, true, "r").unwrap(),
            fsh => {
                let decl = Intrinsic::find(&format!("llvm.{fsh}"))
                    .and_then(|i| i.get_declaration(&module, &[i128_ty.into()]))
                    .unwrap();
                b.build_call(decl, &[x.into(), y.into(), s.into()], "r")
                    .unwrap()
                    .try_as_basic_value()
                    .unwrap_basic()
                    .into_int_value()
            }
        };
        let lo = b.build_int_truncate(r, i64_ty, "").unwrap();
        let hi = b
            .build_right_shift(r, i128_ty.const_int(64, false), false, "")
            .and_then(|h| b.build_int_truncate(h, i64_ty, ""))
            .unwrap();
        let high = b
            .build_int_compare(inkwell::IntPredicate::NE, p(5), i64_ty.const_zero(), "")
            .unwrap();
        let half = b.build_select(high, hi, lo, "").unwrap();
        b.build_return(Some(&half)).unwrap();
        module
    }

    /// The value of `f` at each argument list, found by LLVM's constant folding: a function per
    /// call with constant arguments, optimised until it returns a constant.
    fn evaluate(module: &Module<'_>, calls: &[[u64; 6]]) -> Vec<u64> {
        let ll = module.get_context();
        let i64_ty = ll.i64_type();
        let f = module.get_function("f").unwrap();
        f.set_linkage(inkwell::module::Linkage::Internal);
        let inline = ll.create_enum_attribute(Attribute::get_named_enum_kind_id("alwaysinline"), 0);
        f.add_attribute(inkwell::attributes::AttributeLoc::Function, inline);
        let b = ll.create_builder();
        let cases: Vec<_> = calls
            .iter()
            .enumerate()
            .map(|(i, args)| {
                let case =
                    module.add_function(&format!("case{i}"), i64_ty.fn_type(&[], false), None);
                b.position_at_end(ll.append_basic_block(case, "entry"));
                let args = args.map(|v| i64_ty.const_int(v, false).into());
                let r = b
                    .build_call(f, &args, "")
                    .unwrap()
                    .try_as_basic_value()
                    .unwrap_basic();
                b.build_return(Some(&r)).unwrap();
                case
            })
            .collect();
        let machine = crate::target::target_machine(oxide_contract::DEFAULT_ARCH, 1).unwrap();
        crate::target::optimize(module, &machine, 1).unwrap();
        cases
            .iter()
            .map(|case| {
                let ret = case
                    .get_first_basic_block()
                    .unwrap()
                    .get_terminator()
                    .unwrap();
                match ret.get_operand(0) {
                    Some(inkwell::values::Operand::Value(BasicValueEnum::IntValue(v))) => v
                        .get_zero_extended_constant()
                        .expect("folded to a constant"),
                    other => panic!("not folded: {other:?}"),
                }
            })
            .collect()
    }

    fn reference(op: &str, x: u128, y: u128, s: u64) -> u128 {
        let k = (s & 127) as u32;
        match op {
            "shl" => x << k,
            "lshr" => x >> k,
            "ashr" => ((x as i128) >> k) as u128,
            "fshl.i128" if k == 0 => x,
            "fshl.i128" => (x << k) | (y >> (128 - k)),
            "fshr.i128" if k == 0 => y,
            _ => (x << (128 - k)) | (y >> k),
        }
    }

    /// The expansion, evaluated by LLVM's constant folding, agrees with Rust's 128-bit shifts
    /// for every amount and operands with either sign.
    #[test]
    fn expanded_shifts_agree_with_rust() {
        let xs = [
            1u128 << 127,
            0xc4ee_3e5b_c24e_a4cb_6379_23e1_529c_d678,
            0x0123_4567_89ab_cdef_fedc_ba98_7654_3210,
            u128::from(u64::MAX),
        ];
        for op in ["shl", "lshr", "ashr", "fshl.i128", "fshr.i128"] {
            let ys: &[u128] = if op.starts_with("fsh") {
                &[u128::MAX, xs[2]]
            } else {
                &[0]
            };
            let ll = Context::create();
            let module = shift_module(&ll, op);
            expand_wide_shifts(&module);
            let left = module
                .get_functions()
                .flat_map(|f| f.get_basic_blocks())
                .flat_map(|b| b.get_instructions())
                .filter(|i| shift_kind(*i).is_some() || funnel_kind(*i).is_some())
                .count();
            assert_eq!(left, 0, "{}", module.print_to_string().to_string());
            module.verify().unwrap();
            let mut calls = Vec::new();
            let mut want = Vec::new();
            for &x in &xs {
                for &y in ys {
                    for s in 0..128 {
                        let r = reference(op, x, y, s);
                        for high in [0, 1] {
                            calls.push([
                                x as u64,
                                (x >> 64) as u64,
                                y as u64,
                                (y >> 64) as u64,
                                s,
                                high,
                            ]);
                            want.push(if high == 1 {
                                (r >> 64) as u64
                            } else {
                                r as u64
                            });
                        }
                    }
                }
            }
            let got = evaluate(&module, &calls);
            for ((call, got), want) in calls.iter().zip(got).zip(want) {
                assert_eq!(got, want, "{op} {call:x?}");
            }
        }
    }
}
