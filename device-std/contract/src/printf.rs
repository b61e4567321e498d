//! The C format of `printf!` (docs/debugging.md), which the macro checks at compile time and
//! the host side of `vprintf` reads at run time: the conversions, and the C type each reads
//! from vprintf's argument buffer.

use core::ops::Range;

/// What one conversion prints, by the C type vprintf reads for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CType {
    /// `%d`, `%i` (`int`).
    Int,
    /// `%u`, `%x`, `%X`, `%o`, `%c` (`unsigned int`; `%c` prints its low byte).
    Uint,
    /// `%lld`, `%lli` (`long long`).
    Long,
    /// `%llu`, `%llx`... (`unsigned long long`).
    Ulong,
    /// `%f`, `%e`, `%g`, `%a` and capitals (`double`: an `f32` is widened, as C's varargs do).
    Double,
    /// `%s` (a NUL-terminated string: a `&CStr`, `c"..."`).
    Str,
    /// `%p` (a pointer, printed as an address).
    Pointer,
}

impl CType {
    /// The bytes the value takes in vprintf's argument buffer, which is also its alignment
    /// there (the buffer is a C struct of the values).
    pub fn size(self) -> usize {
        match self {
            CType::Int | CType::Uint => 4,
            CType::Long | CType::Ulong | CType::Double | CType::Str | CType::Pointer => 8,
        }
    }
}

/// The largest width or precision a conversion may ask for (C's minimum limit on one
/// conversion's output, 4095 characters).
pub const MAX_WIDTH: u32 = 4095;

/// Refuses what C leaves undefined in conversion `spec` (`%-08.3f`) ending in `conv`: the `#`
/// flag but with `o`, `x`, `X` and the floats, the `0` flag but with numbers, a precision with
/// `c` or `p`, and widths or precisions above [`MAX_WIDTH`].
fn check_flags(spec: &str, conv: char) -> Result<(), String> {
    let body = &spec[1..spec.len() - 1];
    let flags: String = body.chars().take_while(|c| "-+ #0".contains(*c)).collect();
    let rest = &body[flags.len()..];
    let (width, precision) = match rest.split_once('.') {
        Some((w, p)) => (w, Some(p)),
        None => (rest, None),
    };
    let number = |text: &str| -> Result<u32, String> {
        let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
        if digits.is_empty() {
            return Ok(0);
        }
        digits
            .parse::<u32>()
            .ok()
            .filter(|&n| n <= MAX_WIDTH)
            .ok_or_else(|| format!("`{spec}`: widths and precisions are at most {MAX_WIDTH}"))
    };
    number(width)?;
    if let Some(p) = precision {
        number(p)?;
    }
    let float = "fFeEgGaA".contains(conv);
    let numeric = float || "diuxXo".contains(conv);
    if flags.contains('#') && !(float || "oxX".contains(conv)) {
        return Err(format!(
            "`{spec}`: the `#` flag is for %o, %x, %X and floats only"
        ));
    }
    if flags.contains('0') && !numeric {
        return Err(format!("`{spec}`: the `0` flag is for numbers only"));
    }
    if precision.is_some() && "cp".contains(conv) {
        return Err(format!("`{spec}`: %c and %p take no precision"));
    }
    Ok(())
}

/// One conversion of a format: what it reads, and where its text (`%-8.3f`) is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conversion {
    pub ty: CType,
    pub spec: Range<usize>,
}

/// The conversions of a C format string, in order; `Err` says what is wrong.
pub fn conversions(format: &str) -> Result<Vec<Conversion>, String> {
    let mut found = Vec::new();
    let mut chars = format.chars().peekable();
    let mut at = 0;
    while let Some(c) = chars.next() {
        let start = at;
        at += c.len_utf8();
        if c != '%' {
            continue;
        }
        let mut spec = String::from("%");
        while let Some(&f) = chars.peek() {
            if "-+ #0".contains(f) {
                spec.push(f);
                chars.next();
            } else {
                break;
            }
        }
        let digits = |chars: &mut std::iter::Peekable<std::str::Chars>, spec: &mut String| {
            while let Some(&d) = chars.peek() {
                if d.is_ascii_digit() {
                    spec.push(d);
                    chars.next();
                } else {
                    break;
                }
            }
        };
        if chars.peek() == Some(&'*') {
            return Err(
                "a `*` width or precision is not supported: write the number in the format".into(),
            );
        }
        digits(&mut chars, &mut spec);
        if chars.peek() == Some(&'.') {
            spec.push('.');
            chars.next();
            if chars.peek() == Some(&'*') {
                return Err(
                    "a `*` precision is not supported: write the number in the format".into(),
                );
            }
            digits(&mut chars, &mut spec);
        }
        let mut long = 0;
        while chars.peek() == Some(&'l') {
            long += 1;
            spec.push('l');
            chars.next();
        }
        if matches!(chars.peek(), Some('h' | 'z' | 'j' | 't' | 'L' | 'q')) {
            let m = chars.next().unwrap_or_default();
            return Err(format!(
                "the length modifier `{m}` (in `{spec}{m}...`) is not supported: use none \
                 (32-bit values) or `ll` (64-bit)"
            ));
        }
        if long > 2 {
            return Err(format!("`{spec}` has too many `l`s: `ll` is 64-bit"));
        }
        if long == 1 {
            return Err(format!(
                "`{spec}...`: write `ll` for a 64-bit value (a C `long` is 32 bits on some hosts, \
                 and the argument buffer's layout must not depend on it)"
            ));
        }
        let Some(conv) = chars.next() else {
            return Err("the format ends in the middle of a conversion (`%%` prints a `%`)".into());
        };
        spec.push(conv);
        check_flags(&spec, conv)?;
        let wide = long > 0;
        let ty = match conv {
            '%' if spec == "%%" => {
                at = start + 2;
                continue;
            }
            'd' | 'i' if wide => CType::Long,
            'd' | 'i' => CType::Int,
            'u' | 'x' | 'X' | 'o' if wide => CType::Ulong,
            'u' | 'x' | 'X' | 'o' => CType::Uint,
            'c' if !wide => CType::Uint,
            'f' | 'F' | 'e' | 'E' | 'g' | 'G' | 'a' | 'A' if !wide => CType::Double,
            's' if !wide => CType::Str,
            'p' if !wide => CType::Pointer,
            'n' => return Err("`%n` writes through a pointer and is not supported".into()),
            other => {
                return Err(format!(
                    "`{spec}` is not a conversion printf! knows (`{other}`): use %d %i %u %x %X \
                     %o %c %f %e %g %a %s %p, with `ll` for 64-bit integers, or %% for a `%`"
                ));
            }
        };
        at = start + spec.len();
        found.push(Conversion {
            ty,
            spec: start..at,
        });
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_follow_c() {
        use CType::*;
        let types =
            |f: &str| conversions(f).map(|c| c.into_iter().map(|c| c.ty).collect::<Vec<_>>());
        assert_eq!(
            types("%d %5.2f %llx %% %s %c %-08u %p %lld %e"),
            Ok(vec![
                Int, Double, Ulong, Str, Uint, Uint, Pointer, Long, Double
            ])
        );
        assert_eq!(types("no conversions, 100%%"), Ok(vec![]));
        let f = "é%-8.3fx%%%lluy";
        let specs: Vec<&str> = conversions(f)
            .unwrap()
            .iter()
            .map(|c| &f[c.spec.clone()])
            .collect();
        assert_eq!(specs, ["%-8.3f", "%llu"]);
        assert!(conversions("%*d").unwrap_err().contains("`*`"));
        assert!(conversions("%hd").unwrap_err().contains("`h`"));
        assert!(conversions("%q").is_err());
        assert!(conversions("50%").unwrap_err().contains("ends"));
        assert!(conversions("%n").unwrap_err().contains("%n"));
    }
}
