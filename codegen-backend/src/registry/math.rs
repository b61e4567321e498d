//! The libdevice tables: which NVIDIA libdevice function computes each float
//! `core::intrinsics` math function and each C math function `std` and `core` declare, and which
//! of those libdevice lacks. The registry classifies definitions with them; the importer's
//! `math` emits the calls (docs/math.md).

use rustc_span::{Symbol, sym};

/// The libdevice function of a float `core::intrinsics` function without an LLVM lowering.
pub(crate) fn intrinsic_libdevice(name: Symbol) -> Option<&'static str> {
    Some(match name {
        sym::sinf32 => "__nv_sinf",
        sym::sinf64 => "__nv_sin",
        sym::cosf32 => "__nv_cosf",
        sym::cosf64 => "__nv_cos",
        sym::expf32 => "__nv_expf",
        sym::expf64 => "__nv_exp",
        sym::exp2f32 => "__nv_exp2f",
        sym::exp2f64 => "__nv_exp2",
        sym::logf32 => "__nv_logf",
        sym::logf64 => "__nv_log",
        sym::log2f32 => "__nv_log2f",
        sym::log2f64 => "__nv_log2",
        sym::log10f32 => "__nv_log10f",
        sym::log10f64 => "__nv_log10",
        sym::powf32 => "__nv_powf",
        sym::powf64 => "__nv_pow",
        sym::powif32 => "__nv_powif",
        sym::powif64 => "__nv_powi",
        _ => return None,
    })
}

/// The C math functions `std` (`std::sys::cmath`) and `core` declare and libdevice defines, by
/// symbol.
/// `lgamma_r`/`lgammaf_r` (the sign through a pointer) have no libdevice twin.
const C_MATH: &[(&str, &str)] = &[
    ("acosf", "__nv_acosf"),
    ("acos", "__nv_acos"),
    ("asinf", "__nv_asinf"),
    ("asin", "__nv_asin"),
    ("atanf", "__nv_atanf"),
    ("atan", "__nv_atan"),
    ("atan2f", "__nv_atan2f"),
    ("atan2", "__nv_atan2"),
    ("cbrtf", "__nv_cbrtf"),
    ("cbrt", "__nv_cbrt"),
    ("coshf", "__nv_coshf"),
    ("cosh", "__nv_cosh"),
    ("sinhf", "__nv_sinhf"),
    ("sinh", "__nv_sinh"),
    ("tanf", "__nv_tanf"),
    ("tan", "__nv_tan"),
    ("tanhf", "__nv_tanhf"),
    ("tanh", "__nv_tanh"),
    ("expm1f", "__nv_expm1f"),
    ("expm1", "__nv_expm1"),
    ("log1pf", "__nv_log1pf"),
    ("log1p", "__nv_log1p"),
    ("hypotf", "__nv_hypotf"),
    ("hypot", "__nv_hypot"),
    ("fdimf", "__nv_fdimf"),
    ("fdim", "__nv_fdim"),
    ("erff", "__nv_erff"),
    ("erf", "__nv_erf"),
    ("erfcf", "__nv_erfcf"),
    ("erfc", "__nv_erfc"),
    ("tgammaf", "__nv_tgammaf"),
    ("tgamma", "__nv_tgamma"),
];

/// C math functions `std` calls that libdevice has no twin of.
const C_MATH_WITHOUT_TWIN: &[&str] = &["lgammaf_r", "lgamma_r"];

/// Whether `symbol` is a C math function libdevice does not have (`f32::ln_gamma`'s).
pub(crate) fn c_math_without_twin(symbol: &str) -> bool {
    C_MATH_WITHOUT_TWIN.contains(&symbol)
}

/// The libdevice function of the C math function `symbol`.
pub(crate) fn c_math_libdevice(symbol: &str) -> Option<&'static str> {
    C_MATH
        .iter()
        .find(|(c, _)| *c == symbol)
        .map(|(_, libdevice)| *libdevice)
}
