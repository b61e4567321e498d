//! The buffers' contents: generated inputs (the same bytes for both kernels, from a hash of the
//! buffer's name and the element's index) and the comparison of what the two kernels wrote.

use super::spec::{Elem, Tolerance};
use super::values::{self, ValueRange};

/// A 64-bit mix (splitmix64's finaliser): well spread, and the same on every machine.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

fn seed(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// `len` elements of `elem` for the buffer `name`, little-endian bytes. Floats are uniform in
/// [-1, 1) on a grid of 2^-23 (exact in f32 and f64, never NaN or infinite); integers are all
/// their bits, except that signed ones stay within ±2^30 so that sums of many do not overflow
/// more than CUDA's would. Memory this machine cannot give is an error that names the buffer,
/// not an abort: the buffer is reserved whole, before any element is generated.
/// With `range`, the values are those of `range` at problem size `n` instead
/// ([`values::push_in_range`]).
pub fn generate(
    name: &str,
    elem: Elem,
    len: u64,
    range: Option<ValueRange>,
    n: u64,
) -> Result<Vec<u8>, String> {
    let too_large = |why: String| {
        format!(
            "buffer `{name}`: {len} elements of {elem} cannot be generated here ({why}): give a \
             smaller --n or a shorter buffer"
        )
    };
    let bytes = len
        .checked_mul(elem.size() as u64)
        .and_then(|b| usize::try_from(b).ok())
        .ok_or_else(|| too_large("more bytes than this machine addresses".into()))?;
    let bounds = range.map(|r| r.at(name, elem, n)).transpose()?;
    let s = seed(name);
    let mut out = Vec::new();
    out.try_reserve_exact(bytes)
        .map_err(|e| too_large(format!("{bytes} bytes: {e}")))?;
    for i in 0..len {
        let h = mix(s ^ mix(i));
        if let Some(bounds) = bounds {
            values::push_in_range(&mut out, elem, h, bounds);
            continue;
        }
        let unit = (h >> 41) as f64 / (1u64 << 22) as f64 - 1.0;
        match elem {
            Elem::U8 => out.push(h as u8),
            Elem::U32 => out.extend((h as u32).to_le_bytes()),
            Elem::I32 => out.extend(((h as i32) >> 1).to_le_bytes()),
            Elem::U64 => out.extend(h.to_le_bytes()),
            Elem::I64 => out.extend(((h as i64) >> 33).to_le_bytes()),
            Elem::F32 => out.extend((unit as f32).to_le_bytes()),
            Elem::F64 => out.extend(unit.to_le_bytes()),
        }
    }
    Ok(out)
}

/// How two outputs compared.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub elements: usize,
    pub mismatches: usize,
    /// The first mismatch: index, CUDA's value, oxide's value.
    pub first: Option<(usize, String, String)>,
    /// The largest difference seen, in ulps for floats (0 for integers).
    pub max_ulps: u64,
}

impl Comparison {
    pub fn passed(&self) -> bool {
        self.mismatches == 0
    }
}

/// Compares `oxide`'s output against `cuda`'s, element by element.
pub fn compare(elem: Elem, cuda: &[u8], oxide: &[u8], tolerance: Tolerance) -> Comparison {
    let size = elem.size();
    let elements = cuda.len().min(oxide.len()) / size;
    let mut result = Comparison {
        elements,
        mismatches: if cuda.len() == oxide.len() { 0 } else { 1 },
        first: (cuda.len() != oxide.len()).then(|| {
            (
                elements,
                format!("{} bytes", cuda.len()),
                format!("{} bytes", oxide.len()),
            )
        }),
        max_ulps: 0,
    };
    for i in 0..elements {
        let (a, b) = (&cuda[i * size..][..size], &oxide[i * size..][..size]);
        let (ok, ulps, shown) = match elem {
            Elem::F32 => {
                let (x, y) = (f32_of(a), f32_of(b));
                let ulps = ulp_distance(x.to_bits().into(), y.to_bits().into(), 32);
                (
                    close(x.into(), y.into(), ulps, tolerance),
                    ulps,
                    (x.to_string(), y.to_string()),
                )
            }
            Elem::F64 => {
                let (x, y) = (f64_of(a), f64_of(b));
                let ulps = ulp_distance(x.to_bits(), y.to_bits(), 64);
                (
                    close(x, y, ulps, tolerance),
                    ulps,
                    (x.to_string(), y.to_string()),
                )
            }
            _ => (a == b, 0, (int_text(elem, a), int_text(elem, b))),
        };
        result.max_ulps = result.max_ulps.max(ulps);
        if !ok {
            result.mismatches += 1;
            result.first.get_or_insert((i, shown.0, shown.1));
        }
    }
    result
}

fn f32_of(b: &[u8]) -> f32 {
    f32::from_le_bytes(b.try_into().unwrap_or_default())
}

fn f64_of(b: &[u8]) -> f64 {
    f64::from_le_bytes(b.try_into().unwrap_or_default())
}

fn int_text(elem: Elem, b: &[u8]) -> String {
    let mut word = [0u8; 8];
    word[..b.len()].copy_from_slice(b);
    let bits = u64::from_le_bytes(word);
    match elem {
        Elem::I32 => (bits as u32 as i32).to_string(),
        Elem::I64 => (bits as i64).to_string(),
        _ => bits.to_string(),
    }
}

/// The distance in representable values between two floats of `width` bits (0 for equal bits,
/// or for two NaNs).
fn ulp_distance(a: u64, b: u64, width: u32) -> u64 {
    let sign = 1u64 << (width - 1);
    let nan = |x: u64| {
        let exp_mask = if width == 32 {
            0x7f80_0000
        } else {
            0x7ff0 << 48
        };
        let frac = if width == 32 {
            0x007f_ffff
        } else {
            (1u64 << 52) - 1
        };
        x & exp_mask == exp_mask && x & frac != 0
    };
    if nan(a) && nan(b) {
        return 0;
    }
    if nan(a) || nan(b) {
        return u64::MAX;
    }
    // Floats in order as integers: negatives mirrored below the positives, -0.0 one below +0.0
    // (so that `exact` tells them apart).
    let ordered = |x: u64| {
        if x & sign != 0 {
            sign as i128 - (x & !sign) as i128 - 1
        } else {
            sign as i128 + x as i128
        }
    };
    (ordered(a) - ordered(b)).unsigned_abs() as u64
}

fn close(x: f64, y: f64, ulps: u64, tolerance: Tolerance) -> bool {
    match tolerance {
        Tolerance::Exact => ulps == 0,
        Tolerance::Ulps(k) => ulps <= k,
        // Equal bits (or two NaNs: `ulps` is 0), or two finite values close enough: with an
        // infinite expected value the bound `rel * |x|` is infinite too, and any oxide value
        // but NaN, even one of the other sign, would pass.
        Tolerance::Relative(rel) => {
            ulps == 0 || (x.is_finite() && y.is_finite() && (x - y).abs() <= rel * x.abs().max(1.0))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_fixed_and_in_range() {
        let generate = |name, elem, len| generate(name, elem, len, None, 0).unwrap();
        let a = generate("a", Elem::F32, 1000);
        assert_eq!(a, generate("a", Elem::F32, 1000));
        assert_ne!(a, generate("b", Elem::F32, 1000));
        let values: Vec<f32> = a.chunks(4).map(f32_of).collect();
        assert!(values.iter().all(|v| (-1.0..1.0).contains(v)));
        assert!(values.iter().any(|&v| v < -0.5) && values.iter().any(|&v| v > 0.5));
        assert_eq!(generate("w", Elem::U8, 7).len(), 7);
        assert_eq!(generate("w", Elem::U64, 3).len(), 24);
    }

    /// Review of issue 18: `Vec::with_capacity(len * size)` panicked ("capacity overflow") or
    /// aborted the process when the allocation failed.
    #[test]
    fn a_buffer_too_large_to_hold_is_an_error() {
        let e = generate("a", Elem::U64, 1 << 60, None, 0).unwrap_err();
        assert!(
            e.starts_with("buffer `a`: 1152921504606846976 elements of u64"),
            "{e}"
        );
        assert!(e.contains("give a smaller --n"), "{e}");
        assert!(generate("a", Elem::U64, u64::MAX, None, 0).is_err());
        // Past `isize::MAX` bytes: no allocator is asked.
        assert!(generate("b", Elem::U8, 1 << 63, None, 0).is_err());
        assert_eq!(
            generate("c", Elem::U8, 0, None, 0).unwrap(),
            Vec::<u8>::new()
        );
    }

    #[test]
    fn a_relative_tolerance_takes_no_value_for_an_infinity() {
        let inf = f32::INFINITY.to_le_bytes();
        let rel = Tolerance::Relative(1e-6);
        assert!(compare(Elem::F32, &inf, &inf, rel).passed());
        for oxide in [f32::NEG_INFINITY, 1.0, 0.0, f32::MAX] {
            let c = compare(Elem::F32, &inf, &oxide.to_le_bytes(), rel);
            assert!(!c.passed(), "CUDA inf, oxide {oxide}");
        }
        let c = compare(
            Elem::F64,
            &1.0f64.to_le_bytes(),
            &f64::INFINITY.to_le_bytes(),
            rel,
        );
        assert!(!c.passed());
        let nan = f64::NAN.to_le_bytes();
        assert!(compare(Elem::F64, &nan, &nan, rel).passed());
        assert!(!compare(Elem::F64, &nan, &1.0f64.to_le_bytes(), rel).passed());
        assert!(!compare(Elem::F64, &1.0f64.to_le_bytes(), &nan, rel).passed());
    }

    #[test]
    fn comparisons() {
        let one = 1.0f32.to_le_bytes();
        let next = f32::from_bits(1.0f32.to_bits() + 1).to_le_bytes();
        let c = compare(Elem::F32, &one, &next, Tolerance::Exact);
        assert_eq!((c.mismatches, c.max_ulps), (1, 1));
        assert_eq!(c.first.unwrap().0, 0);
        assert!(compare(Elem::F32, &one, &next, Tolerance::Ulps(1)).passed());
        assert!(compare(Elem::F32, &one, &next, Tolerance::Relative(1e-6)).passed());
        let neg = (-0.0f32).to_le_bytes();
        let pos = 0.0f32.to_le_bytes();
        assert_eq!(compare(Elem::F32, &neg, &pos, Tolerance::Exact).max_ulps, 1);
        let ints = [1u32, 2, 3].map(u32::to_le_bytes).concat();
        let other = [1u32, 5, 3].map(u32::to_le_bytes).concat();
        let c = compare(Elem::U32, &ints, &other, Tolerance::Relative(1.0));
        assert_eq!(c.first, Some((1, "2".into(), "5".into())));
        assert!(!compare(Elem::U32, &ints, &ints[..8], Tolerance::Exact).passed());
        let nan = f64::NAN.to_le_bytes();
        assert!(compare(Elem::F64, &nan, &nan, Tolerance::Exact).passed());
        assert!(
            !compare(
                Elem::F64,
                &nan,
                &1.0f64.to_le_bytes(),
                Tolerance::Ulps(1000)
            )
            .passed()
        );
    }
}
