//! The values a generated buffer holds: by default every bit pattern of an integer and floats
//! in [-1, 1); with `--buffer NAME:TYPE:LEN:ROLE:LO..HI` the half-open range `LO..HI`, so that a
//! port is checked on the values its kernel takes (token ids below a vocabulary size, indices
//! below `n`, non-negative second moments).

use std::fmt;
use std::str::FromStr;

use super::terms::{Elem, Expr};

/// One end of an integer range: a size in terms of `n` (`n`, `1024`, `n/4`), or a negative
/// literal for a signed type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntBound {
    Size(Expr),
    Negative(u64),
}

impl IntBound {
    fn eval(self, n: u64) -> Result<i128, String> {
        match self {
            IntBound::Size(e) => e.eval(n).map(i128::from),
            IntBound::Negative(v) => Ok(-i128::from(v)),
        }
    }
}

impl FromStr for IntBound {
    type Err = String;
    fn from_str(s: &str) -> Result<IntBound, String> {
        match s.trim().strip_prefix('-') {
            Some(v) => v
                .trim()
                .parse::<u64>()
                .map(IntBound::Negative)
                .map_err(|_| format!("`{s}` is not a bound: a number, n, n/K, n*K, n+K or n-K")),
            None => s.parse().map(IntBound::Size),
        }
    }
}

/// `LO..HI`: the values a generated buffer's elements take, `LO` included, `HI` not.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ValueRange {
    Int { lo: IntBound, hi: IntBound },
    Float { lo: f64, hi: f64 },
}

impl ValueRange {
    /// Parses `LO..HI` for elements of `elem`.
    pub fn parse(s: &str, elem: Elem) -> Result<ValueRange, String> {
        let bad = || format!("`{s}` is not a range of values: write LO..HI, e.g. 0..50257 or 0..1");
        let (lo, hi) = s.split_once("..").ok_or_else(bad)?;
        if elem.is_float() {
            let (lo, hi): (f64, f64) = (
                lo.trim().parse().map_err(|_| bad())?,
                hi.trim().parse().map_err(|_| bad())?,
            );
            if !(lo.is_finite() && hi.is_finite() && lo < hi) {
                return Err(format!("`{s}`: a range of {elem} needs finite LO < HI"));
            }
            if elem == Elem::F32
                && (lo.abs() > f64::from(f32::MAX) || hi.abs() > f64::from(f32::MAX))
            {
                return Err(format!("`{s}` does not fit f32"));
            }
            return Ok(ValueRange::Float { lo, hi });
        }
        let (lo, hi): (IntBound, IntBound) = (lo.parse()?, hi.parse()?);
        if matches!(lo, IntBound::Negative(_)) && !elem.is_signed() {
            return Err(format!("`{s}`: {elem} has no negative values"));
        }
        Ok(ValueRange::Int { lo, hi })
    }

    /// The bounds at problem size `n`, checked against `elem` (an empty range or one outside
    /// the type is an error that names the buffer).
    pub fn at(self, name: &str, elem: Elem, n: u64) -> Result<Bounds, String> {
        let (lo, hi) = match self {
            ValueRange::Float { lo, hi } => return Ok(Bounds::Float { lo, hi }),
            ValueRange::Int { lo, hi } => (lo.eval(n)?, hi.eval(n)?),
        };
        let (min, max) = elem.int_limits();
        if lo >= hi || lo < min || hi - 1 > max {
            return Err(format!(
                "buffer `{name}`: {self} is {lo}..{hi} at n = {n}, which is empty or not in {elem}"
            ));
        }
        Ok(Bounds::Int { lo, hi })
    }
}

/// A [`ValueRange`] at one problem size: what generation draws from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bounds {
    Int { lo: i128, hi: i128 },
    Float { lo: f64, hi: f64 },
}

impl fmt::Display for ValueRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bound = |b: &IntBound| match b {
            IntBound::Size(e) => e.to_string(),
            IntBound::Negative(v) => format!("-{v}"),
        };
        match self {
            ValueRange::Int { lo, hi } => write!(f, "{}..{}", bound(lo), bound(hi)),
            ValueRange::Float { lo, hi } => write!(f, "{lo}..{hi}"),
        }
    }
}

/// Element `h` (a well-mixed hash) of a buffer of `elem` within `bounds`, as little-endian
/// bytes appended to `out`. Integers are `lo + h mod (hi - lo)`; floats `lo + u·(hi - lo)` with
/// `u` uniform in [0, 1) on a grid of 2^-23, and `lo` where rounding reached `hi`. (`bounds`
/// came from [`ValueRange::parse`] for this `elem`: integer bounds for an integer type.)
pub fn push_in_range(out: &mut Vec<u8>, elem: Elem, h: u64, bounds: Bounds) {
    match bounds {
        Bounds::Float { lo, hi } => {
            let u = (h >> 41) as f64 / (1u64 << 23) as f64;
            let v = lo + u * (hi - lo);
            if elem == Elem::F32 {
                let v = v as f32;
                let v = if f64::from(v) >= hi { lo as f32 } else { v };
                out.extend(v.to_le_bytes());
            } else {
                out.extend((if v >= hi { lo } else { v }).to_le_bytes());
            }
        }
        Bounds::Int { lo, hi } => {
            let v = lo + (u128::from(h) % (hi - lo) as u128) as i128;
            match elem {
                Elem::U8 => out.push(v as u8),
                Elem::I32 => out.extend((v as i32).to_le_bytes()),
                Elem::U32 => out.extend((v as u32).to_le_bytes()),
                Elem::I64 => out.extend((v as i64).to_le_bytes()),
                // An integer range of a float type is refused by `parse`.
                Elem::U64 | Elem::F32 | Elem::F64 => out.extend((v as u64).to_le_bytes()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ranges_of_each_kind() {
        let r = ValueRange::parse("0..50257", Elem::I32).unwrap();
        assert_eq!(r.to_string(), "0..50257");
        let r = ValueRange::parse("-8 .. n/2", Elem::I64).unwrap();
        assert_eq!(
            r.at("x", Elem::I64, 100).unwrap(),
            Bounds::Int { lo: -8, hi: 50 }
        );
        let r = ValueRange::parse("0..1e-3", Elem::F32).unwrap();
        assert_eq!(r, ValueRange::Float { lo: 0.0, hi: 1e-3 });
        for (bad, elem) in [
            ("0-5", Elem::I32),
            ("-1..4", Elem::U32),
            ("1..1", Elem::F32),
            ("0..inf", Elem::F64),
            ("0..1e39", Elem::F32),
            ("a..b", Elem::U8),
        ] {
            assert!(ValueRange::parse(bad, elem).is_err(), "{bad}");
        }
        // Empty or outside the type at this n: an error naming the buffer.
        let r = ValueRange::parse("n..4", Elem::U32).unwrap();
        assert!(r.at("ids", Elem::U32, 10).unwrap_err().contains("`ids`"));
        let r = ValueRange::parse("0..300", Elem::U8).unwrap();
        assert!(r.at("b", Elem::U8, 1).is_err());
        assert_eq!(
            ValueRange::parse("0..256", Elem::U8)
                .unwrap()
                .at("b", Elem::U8, 1),
            Ok(Bounds::Int { lo: 0, hi: 256 })
        );
    }

    #[test]
    fn generated_values_stay_in_range() {
        let mut out = Vec::new();
        let range = ValueRange::parse("-3..5", Elem::I32).unwrap();
        let bounds = range.at("x", Elem::I32, 1).unwrap();
        for h in 0..1000u64 {
            push_in_range(
                &mut out,
                Elem::I32,
                h.wrapping_mul(0x9e37_79b9_7f4a_7c15),
                bounds,
            );
        }
        let values: Vec<i32> = out
            .chunks(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert!(values.iter().all(|v| (-3..5).contains(v)));
        assert!(
            (-3..5).all(|v| values.contains(&v)),
            "every value of a small range occurs"
        );
        let mut out = Vec::new();
        let bounds = ValueRange::parse("0.5..2", Elem::F32)
            .unwrap()
            .at("v", Elem::F32, 1)
            .unwrap();
        for h in [0, u64::MAX, 1 << 63, 12345] {
            push_in_range(&mut out, Elem::F32, h, bounds);
        }
        for c in out.chunks(4) {
            let v = f32::from_le_bytes(c.try_into().unwrap());
            assert!((0.5..2.0).contains(&v), "{v}");
        }
    }
}
