//! Fast approximate math: CUDA's intrinsic functions (`__sinf`, `__cosf`, `__expf`, `exp2f`
//! with `-use_fast_math`, `__log2f`, `__logf`, `rsqrtf`, `__fsqrt_rn`'s fast cousin), each one or
//! two instructions of the GPU's special function unit.
//!
//! The ordinary methods (`x.sin()`, `x.exp()`...) are computed by NVIDIA's libdevice, within a
//! few units in the last place of the exact result (docs/math.md). These trade accuracy for speed
//! and are only ever used when called by name, as CUDA's `__expf` is. On the host (the CPU
//! emulator, plain Rust) they compute the accurate method instead, so a kernel's results on the
//! GPU and the host differ by the error each function documents; the bounds quoted are PTX's
//! (PTX ISA, "Floating-Point Instructions"), and docs/math.md has what the H200 measured.
//!
//! ```
//! use oxide_device::math::FastMath;
//! let y = 1.0f32.fast_exp();
//! assert!((y - core::f32::consts::E).abs() < 1e-6);
//! ```

/// Approximate `f32` functions of the GPU's special function unit (see the module docs).
pub trait FastMath: Sized {
    /// `sin.approx.f32` (`__sinf`): absolute error at most 2^-20.5 for |x| <= 100π, more
    /// outside; no range reduction beyond that.
    fn fast_sin(self) -> Self;
    /// `cos.approx.f32` (`__cosf`): absolute error at most 2^-20.5 for |x| <= 100π.
    fn fast_cos(self) -> Self;
    /// `ex2.approx.ftz.f32` (`exp2f` under `-use_fast_math`): 2^x with a relative error of at
    /// most 2^-22 (2 ulp) where 2^x is a normal number; a result below 2^-126 (x < -126) is 0,
    /// a subnormal x counts as 0. One instruction: without `ftz`, ptxas wraps every `ex2` in
    /// three more (a compare and two scalings) to reach subnormal results.
    fn fast_exp2(self) -> Self;
    /// `__expf` as nvcc makes it under `-use_fast_math` (or `-ftz=true`): `ex2.approx.ftz.f32` of
    /// `x · log2(e)`, whose rounding adds an error that grows with |x| (about 2 + 1.5·|x| ulp); 0
    /// below e^-87.3 (2^-126), as `fast_exp2`.
    fn fast_exp(self) -> Self;
    /// `lg2.approx.f32` (`__log2f`): absolute error at most 2^-22 for x in [1/2, 2], relative
    /// error at most 2^-22 elsewhere.
    fn fast_log2(self) -> Self;
    /// `__logf`: `lg2.approx.f32` of `x` times ln(2).
    fn fast_ln(self) -> Self;
    /// `rsqrt.approx.f32` (`rsqrtf`): 1/√x with a relative error of at most 2^-22.9.
    fn fast_rsqrt(self) -> Self;
    /// `sqrt.approx.f32`: √x with a relative error of at most 2^-23 (1 ulp).
    fn fast_sqrt(self) -> Self;
}

impl FastMath for f32 {
    #[inline]
    fn fast_sin(self) -> f32 {
        sin_approx(self)
    }
    #[inline]
    fn fast_cos(self) -> f32 {
        cos_approx(self)
    }
    #[inline]
    fn fast_exp2(self) -> f32 {
        ex2_approx(self)
    }
    #[inline]
    fn fast_exp(self) -> f32 {
        ex2_approx(self * core::f32::consts::LOG2_E)
    }
    #[inline]
    fn fast_log2(self) -> f32 {
        lg2_approx(self)
    }
    #[inline]
    fn fast_ln(self) -> f32 {
        lg2_approx(self) * core::f32::consts::LN_2
    }
    #[inline]
    fn fast_rsqrt(self) -> f32 {
        rsqrt_approx(self)
    }
    #[inline]
    fn fast_sqrt(self) -> f32 {
        sqrt_approx(self)
    }
}

// The instructions. On the GPU the backend calls the NVVM intrinsic (docs/contracts.md); the
// bodies are what the host computes.

#[oxide_gpu::nvvm("llvm.nvvm.sin.approx.f")]
#[inline(never)]
fn sin_approx(x: f32) -> f32 {
    libm_f32(x, f64::sin)
}

#[oxide_gpu::nvvm("llvm.nvvm.cos.approx.f")]
#[inline(never)]
fn cos_approx(x: f32) -> f32 {
    libm_f32(x, f64::cos)
}

#[oxide_gpu::nvvm("llvm.nvvm.ex2.approx.ftz.f32")]
#[inline(never)]
fn ex2_approx(x: f32) -> f32 {
    flush_subnormal(libm_f32(flush_subnormal(x), f64::exp2))
}

#[oxide_gpu::nvvm("llvm.nvvm.lg2.approx.f")]
#[inline(never)]
fn lg2_approx(x: f32) -> f32 {
    libm_f32(x, f64::log2)
}

#[oxide_gpu::nvvm("llvm.nvvm.rsqrt.approx.f")]
#[inline(never)]
fn rsqrt_approx(x: f32) -> f32 {
    (1.0 / (x as f64).sqrt()) as f32
}

#[oxide_gpu::nvvm("llvm.nvvm.sqrt.approx.f")]
#[inline(never)]
fn sqrt_approx(x: f32) -> f32 {
    x.sqrt()
}

/// `x`, or 0 of its sign where it is subnormal: what an `ftz` instruction reads and writes.
#[inline]
fn flush_subnormal(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// `f` computed in f64 and rounded to f32: the host's stand-in for an approximate instruction.
#[inline]
fn libm_f32(x: f32, f: fn(f64) -> f64) -> f32 {
    f(x as f64) as f32
}

#[cfg(test)]
mod tests {
    use super::FastMath;

    /// `fast_exp2` and `fast_exp` flush as `ex2.approx.ftz.f32` does: a result below 2^-126 is
    /// 0, a subnormal input counts as 0; normal results are the accurate ones on the host.
    #[test]
    fn exp2_flushes_subnormal_results_to_zero() {
        assert_eq!(1.0f32.fast_exp2(), 2.0);
        assert_eq!((-126.0f32).fast_exp2(), f32::MIN_POSITIVE);
        assert_eq!((-126.5f32).fast_exp2(), 0.0);
        assert_eq!((-149.0f32).fast_exp2(), 0.0);
        assert_eq!(f32::NEG_INFINITY.fast_exp2(), 0.0);
        assert_eq!(f32::from_bits(1).fast_exp2(), 1.0);
        assert_eq!((-88.0f32).fast_exp(), 0.0);
        assert!((-87.0f32).fast_exp() > 0.0);
    }
}
