//! The options of `#[kernel(...)]`; `oxide_contract::kernel_marker` carries them to the backend
//! (docs/contracts.md).

use oxide_contract::KernelOptions;
use proc_macro2::TokenStream;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Lit, Meta, Token};

const VALID: &str = "the options are `strict_float` (no FMA contraction: bit-for-bit Rust float \
                     semantics), `grid = \"1d\"` (launched with grid and block y = z = 1), \
                     `same_len = \"a, b\"` (arguments of one length), `covers = \"out\"` (a \
                     thread per element of `out`), `requires = \"scale > 0.0\"` (a condition \
                     on the by-value arguments, checked at each launch), \
                     `block = \"32x8\"` (launched with exactly this block shape), \
                     `max_threads = 256` (at most this many threads per block), \
                     `min_blocks_per_sm = 2` (an occupancy hint for ptxas) and `sm = 80` (needs \
                     a GPU of compute capability 8.0 or later)";

/// The integer of `name = <int>` within `range`, or the error saying what it takes.
fn number(
    value: &Expr,
    name: &str,
    range: core::ops::RangeInclusive<u32>,
    what: &str,
) -> syn::Result<u32> {
    let n = match value {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse::<u32>().ok(),
        _ => None,
    };
    n.filter(|n| range.contains(n)).ok_or_else(|| {
        syn::Error::new(
            value.span(),
            format!(
                "`{name}` takes an integer from {} to {}: {what}",
                range.start(),
                range.end()
            ),
        )
    })
}

/// `"256"`, `"32x8"` or `"32x8x1"`: each dimension at least 1, at most 1024 threads in all.
fn block_shape(text: &str) -> Option<[u32; 3]> {
    let dims: Vec<u32> = text
        .split('x')
        .map(|d| d.trim().parse::<u32>().ok().filter(|&v| v > 0))
        .collect::<Option<_>>()?;
    let shape = match dims[..] {
        [x] => [x, 1, 1],
        [x, y] => [x, y, 1],
        [x, y, z] => [x, y, z],
        _ => return None,
    };
    let threads = shape.iter().try_fold(1u32, |n, &d| n.checked_mul(d))?;
    (threads <= 1024).then_some(shape)
}

/// Parses the attribute's arguments, reporting every problem at its span.
/// What a kernel's arguments must satisfy, which the launcher and the emulator check before
/// anything runs (the backend needs none of it).
#[derive(Default)]
pub struct ArgumentContracts {
    /// `same_len = "a, b, c"` (repeatable): each group's arguments have one length.
    pub same_len: Vec<Vec<syn::Ident>>,
    /// `covers = "out"` (repeatable): the grid has a thread per element of the argument.
    pub covers: Vec<syn::Ident>,
    /// `requires = "scale > 0.0"` (repeatable): a condition on the kernel's by-value
    /// arguments, evaluated on the host; the string as written, for the refusal's message.
    pub requires: Vec<(Expr, syn::LitStr)>,
}

/// The condition of `requires = "..."`: a Rust expression in a string, its tokens given the
/// string's span (so its errors, and the type errors of the check built from it, point there).
fn condition(value: &Expr) -> syn::Result<(Expr, syn::LitStr)> {
    let bad = |why: String| {
        syn::Error::new(
            value.span(),
            format!(
                "`requires` takes a condition on the kernel's by-value arguments as a string, \
                 checked on the host at each launch: \
                 `requires = \"scale.is_finite() && scale > 0.0\"`{why}"
            ),
        )
    };
    let Expr::Lit(ExprLit {
        lit: Lit::Str(s), ..
    }) = value
    else {
        return Err(bad(String::new()));
    };
    let tokens: TokenStream = s.value().parse().map_err(|e| bad(format!(" ({e})")))?;
    let expr = syn::parse2::<Expr>(respan(tokens, s.span())).map_err(|e| bad(format!(" ({e})")))?;
    Ok((expr, s.clone()))
}

/// `tokens` with every span set to `span` (the attribute's string, where the user wrote them).
fn respan(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tree| {
            if let proc_macro2::TokenTree::Group(g) = &tree {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                tree = proc_macro2::TokenTree::Group(group);
            } else {
                tree.set_span(span);
            }
            tree
        })
        .collect()
}

/// The argument names of `value`, a string of comma-separated identifiers.
fn argument_names(value: &Expr, option: &str) -> syn::Result<Vec<syn::Ident>> {
    let bad = || {
        syn::Error::new(
            value.span(),
            format!("`{option}` takes argument names as a string: `{option} = \"a, b\"`"),
        )
    };
    let Expr::Lit(ExprLit {
        lit: Lit::Str(s), ..
    }) = value
    else {
        return Err(bad());
    };
    let names: Vec<syn::Ident> = s
        .value()
        .split(',')
        .map(|n| {
            syn::parse_str::<syn::Ident>(n.trim())
                .map(|i| syn::Ident::new(&i.to_string(), s.span()))
        })
        .collect::<Result<_, _>>()
        .map_err(|_| bad())?;
    if names.is_empty() {
        return Err(bad());
    }
    Ok(names)
}

pub fn parse(attr: TokenStream) -> syn::Result<(KernelOptions, ArgumentContracts)> {
    let metas = Punctuated::<Meta, Token![,]>::parse_terminated
        .parse2(attr)
        .map_err(|e| syn::Error::new(e.span(), format!("bad `#[kernel]` options: {VALID}")))?;
    let mut options = KernelOptions::default();
    let mut lengths = ArgumentContracts::default();
    let mut errors: Option<syn::Error> = None;
    let mut fail = |e: syn::Error| match &mut errors {
        Some(all) => all.combine(e),
        None => errors = Some(e),
    };
    for meta in metas {
        let (seen, name) = match &meta {
            Meta::Path(p) if p.is_ident("strict_float") => {
                (&mut options.strict_float, "strict_float")
            }
            Meta::NameValue(nv) if nv.path.is_ident("grid") => {
                match &nv.value {
                    Expr::Lit(ExprLit {
                        lit: Lit::Str(s), ..
                    }) if s.value() == "1d" => {}
                    value => {
                        fail(syn::Error::new(
                            value.span(),
                            "`grid` takes \"1d\" (`#[kernel(grid = \"1d\")]`), the only \
                             launch shape a kernel can promise",
                        ));
                        continue;
                    }
                }
                (&mut options.grid_1d, "grid")
            }
            Meta::NameValue(nv) if nv.path.is_ident("block") => {
                let shape = match &nv.value {
                    Expr::Lit(ExprLit {
                        lit: Lit::Str(s), ..
                    }) => block_shape(&s.value()),
                    _ => None,
                };
                let Some(shape) = shape else {
                    fail(syn::Error::new(
                        nv.value.span(),
                        "`block` takes the exact block shape as a string, `\"256\"`, `\"32x8\"` \
                         or `\"32x8x1\"`: each dimension at least 1, at most 1024 threads in all",
                    ));
                    continue;
                };
                if options.block.replace(shape).is_some() {
                    fail(syn::Error::new(meta.span(), "`block` is given twice"));
                }
                continue;
            }
            Meta::NameValue(nv) if nv.path.is_ident("requires") => {
                match condition(&nv.value) {
                    Ok(requirement) => lengths.requires.push(requirement),
                    Err(e) => fail(e),
                }
                continue;
            }
            Meta::NameValue(nv) if nv.path.is_ident("same_len") || nv.path.is_ident("covers") => {
                let option = if nv.path.is_ident("same_len") {
                    "same_len"
                } else {
                    "covers"
                };
                match argument_names(&nv.value, option) {
                    Ok(names) if option == "same_len" && names.len() < 2 => fail(syn::Error::new(
                        nv.value.span(),
                        "`same_len` relates two arguments or more: `same_len = \"a, b\"`",
                    )),
                    Ok(names) if option == "same_len" => lengths.same_len.push(names),
                    Ok(names) => lengths.covers.extend(names),
                    Err(e) => fail(e),
                }
                continue;
            }
            Meta::NameValue(nv)
                if ["max_threads", "min_blocks_per_sm", "sm"]
                    .iter()
                    .any(|n| nv.path.is_ident(n)) =>
            {
                let name = quote::ToTokens::to_token_stream(&nv.path).to_string();
                let (field, parsed) = match name.as_str() {
                    "max_threads" => (
                        &mut options.max_threads,
                        number(
                            &nv.value,
                            &name,
                            1..=1024,
                            "the most threads a block may have",
                        ),
                    ),
                    "min_blocks_per_sm" => (
                        &mut options.min_blocks_per_sm,
                        number(
                            &nv.value,
                            &name,
                            1..=32,
                            "how many blocks ptxas should fit on one multiprocessor",
                        ),
                    ),
                    _ => (
                        &mut options.min_sm,
                        number(
                            &nv.value,
                            &name,
                            50..=129,
                            "the compute capability the kernel needs, as major·10 + minor \
                             (`sm = 80` for 8.0)",
                        ),
                    ),
                };
                match parsed {
                    Ok(n) => {
                        if field.replace(n).is_some() {
                            fail(syn::Error::new(
                                meta.span(),
                                format!("`{name}` is given twice"),
                            ));
                        }
                    }
                    Err(e) => fail(e),
                }
                continue;
            }
            Meta::NameValue(_) | Meta::List(_) if meta.path().is_ident("strict_float") => {
                fail(syn::Error::new(
                    meta.span(),
                    "`strict_float` takes no value: `#[kernel(strict_float)]`",
                ));
                continue;
            }
            Meta::Path(_) | Meta::List(_) if meta.path().is_ident("grid") => {
                fail(syn::Error::new(
                    meta.span(),
                    "`grid` takes a value: `#[kernel(grid = \"1d\")]`",
                ));
                continue;
            }
            _ => {
                let what = match &meta {
                    Meta::Path(p) => p,
                    Meta::List(l) => &l.path,
                    Meta::NameValue(nv) => &nv.path,
                };
                let what = quote::ToTokens::to_token_stream(what).to_string();
                fail(syn::Error::new(
                    meta.span(),
                    format!(
                        "unknown `#[kernel]` option `{}`: {VALID}",
                        what.replace(' ', "")
                    ),
                ));
                continue;
            }
        };
        if *seen {
            fail(syn::Error::new(
                meta.span(),
                format!("`{name}` is given twice"),
            ));
        }
        *seen = true;
    }
    if let Some(shape @ [_, y, z]) = options.block
        && options.grid_1d
        && (y, z) != (1, 1)
    {
        fail(syn::Error::new(
            proc_macro2::Span::call_site(),
            format!(
                "`grid = \"1d\"` promises blocks of y = z = 1, and `block` is {shape:?}: write \
                 a one-dimensional block (`block = \"256\"`)"
            ),
        ));
    }
    if let (Some(shape), Some(max)) = (options.block, options.max_threads)
        && shape.iter().product::<u32>() > max
    {
        fail(syn::Error::new(
            proc_macro2::Span::call_site(),
            format!(
                "`block` is {shape:?}, {} threads, more than `max_threads = {max}`",
                shape.iter().product::<u32>()
            ),
        ));
    }
    if options.min_blocks_per_sm.is_some()
        && options.max_threads.is_none()
        && options.block.is_none()
    {
        fail(syn::Error::new(
            proc_macro2::Span::call_site(),
            "`min_blocks_per_sm` needs the block's size to mean something: give `max_threads` \
             or `block` too (ptxas ignores `.minnctapersm` without `.maxntid` or `.reqntid`)",
        ));
    }
    errors.map_or(Ok((options, lengths)), Err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn parses_options_in_any_order() {
        assert_eq!(parse(quote!()).unwrap().0, KernelOptions::default());
        let both = KernelOptions {
            strict_float: true,
            grid_1d: true,
            ..KernelOptions::default()
        };
        assert_eq!(parse(quote!(strict_float, grid = "1d")).unwrap().0, both);
        assert_eq!(parse(quote!(grid = "1d", strict_float,)).unwrap().0, both);
        assert_eq!(
            parse(quote!(strict_float)).unwrap().0,
            KernelOptions {
                strict_float: true,
                ..KernelOptions::default()
            }
        );
        assert_eq!(
            parse(quote!(max_threads = 256, min_blocks_per_sm = 2, sm = 80))
                .unwrap()
                .0,
            KernelOptions {
                max_threads: Some(256),
                min_blocks_per_sm: Some(2),
                min_sm: Some(80),
                ..KernelOptions::default()
            }
        );
        assert_eq!(
            parse(quote!(block = "32x8")).unwrap().0.block,
            Some([32, 8, 1])
        );
        assert_eq!(
            parse(quote!(grid = "1d", block = "256")).unwrap().0.block,
            Some([256, 1, 1])
        );
        assert_eq!(
            parse(quote!(block = "4x4x4")).unwrap().0.block,
            Some([4, 4, 4])
        );
    }

    #[test]
    fn rejects_unknown_and_repeated_options() {
        for (attr, expected) in [
            (
                quote!(fast_math),
                "unknown `#[kernel]` option `fast_math`: the options are",
            ),
            (quote!(grid = "2d"), "`grid` takes \"1d\""),
            (quote!(grid = 4), "`grid` takes \"1d\""),
            (quote!(strict_float = true), "`strict_float` takes no value"),
            (quote!(strict_float(x)), "`strict_float` takes no value"),
            (quote!(grid(1d)), "`grid` takes a value"),
            (quote!(grid), "`grid` takes a value"),
            (
                quote!(strict_float, strict_float),
                "`strict_float` is given twice",
            ),
            (quote!(a::b), "unknown `#[kernel]` option `a::b`"),
            (quote!(1 + 2), "bad `#[kernel]` options: the options are"),
            (
                quote!(block = "2048"),
                "`block` takes the exact block shape",
            ),
            (quote!(block = "0x8"), "`block` takes the exact block shape"),
            (quote!(block = "32x"), "`block` takes the exact block shape"),
            (quote!(block = 256), "`block` takes the exact block shape"),
            (
                quote!(block = "1x2x3x4"),
                "`block` takes the exact block shape",
            ),
            (quote!(block = "8", block = "8"), "`block` is given twice"),
            (
                quote!(grid = "1d", block = "32x8"),
                "`grid = \"1d\"` promises",
            ),
            (
                quote!(max_threads = 2048),
                "`max_threads` takes an integer from 1 to 1024",
            ),
            (
                quote!(max_threads = "256"),
                "`max_threads` takes an integer",
            ),
            (quote!(sm = 35), "`sm` takes an integer from 50 to 129"),
            (quote!(sm = 80, sm = 90), "`sm` is given twice"),
            (
                quote!(block = "32x8", max_threads = 128),
                "`block` is [32, 8, 1], 256 threads, more than `max_threads = 128`",
            ),
            (quote!(min_blocks_per_sm = 2), "`min_blocks_per_sm` needs"),
            (
                quote!(same_len = "a"),
                "`same_len` relates two arguments or more",
            ),
            (
                quote!(same_len = a),
                "`same_len` takes argument names as a string",
            ),
            (
                quote!(covers = "1x"),
                "`covers` takes argument names as a string",
            ),
        ] {
            let e = parse(attr.clone()).err().unwrap().to_string();
            assert!(e.starts_with(expected), "{attr}: {e}");
        }
    }
}
