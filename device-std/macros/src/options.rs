//! The options of `#[kernel(...)]`; `oxide_contract::kernel_marker` carries them to the backend
//! (docs/contracts.md).

use oxide_contract::KernelOptions;
use proc_macro2::TokenStream;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Lit, Meta, Token};

const VALID: &str = "the options are `strict_float` (no FMA contraction: bit-for-bit Rust float \
                     semantics) and `grid = \"1d\"` (launched with grid and block y = z = 1)";

/// Parses the attribute's arguments, reporting every problem at its span.
pub fn parse(attr: TokenStream) -> syn::Result<KernelOptions> {
    let metas = Punctuated::<Meta, Token![,]>::parse_terminated
        .parse2(attr)
        .map_err(|e| syn::Error::new(e.span(), format!("bad `#[kernel]` options: {VALID}")))?;
    let mut options = KernelOptions::default();
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
    errors.map_or(Ok(options), Err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn parses_options_in_any_order() {
        assert_eq!(parse(quote!()).unwrap(), KernelOptions::default());
        let both = KernelOptions {
            strict_float: true,
            grid_1d: true,
        };
        assert_eq!(parse(quote!(strict_float, grid = "1d")).unwrap(), both);
        assert_eq!(parse(quote!(grid = "1d", strict_float,)).unwrap(), both);
        assert_eq!(
            parse(quote!(strict_float)).unwrap(),
            KernelOptions {
                strict_float: true,
                grid_1d: false
            }
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
        ] {
            let e = parse(attr.clone()).unwrap_err().to_string();
            assert!(e.starts_with(expected), "{attr}: {e}");
        }
    }
}
