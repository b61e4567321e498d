//! The options of `#[kernel(...)]` and the marker name that carries them to the backend
//! (docs/contracts.md).

use proc_macro2::TokenStream;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Lit, Meta, Token};

const VALID: &str = "the options are `strict_float` (no FMA contraction: bit-for-bit Rust float \
                     semantics) and `grid = \"1d\"` (launched with grid and block y = z = 1)";

/// What `#[kernel(...)]` asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// `strict_float`: the backend compiles the kernel without FMA contraction.
    pub strict_float: bool,
    /// `grid = "1d"`: launched with grid and block y = z = 1 (checked by `launch` and
    /// `emulate`); the backend folds the y and z dimensions to 1 and indices to 0.
    pub grid_1d: bool,
}

impl Options {
    /// Parses the attribute's arguments, reporting every problem at its span.
    pub fn parse(attr: TokenStream) -> syn::Result<Options> {
        let metas = Punctuated::<Meta, Token![,]>::parse_terminated
            .parse2(attr)
            .map_err(|e| syn::Error::new(e.span(), format!("bad `#[kernel]` options: {VALID}")))?;
        let mut options = Options::default();
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

    /// The name that marks the kernel for the backend: `__oxide_kernel__<name>` without
    /// options, else `__oxide_kernel_<opt>_<opt>__<name>` with the options' tags sorted
    /// (`grid1d`, `strict`). The symbol of a non-generic kernel, the item name of a generic
    /// kernel's wrapper.
    pub fn marker(&self, name: &str) -> String {
        let tags: Vec<&str> = [(self.grid_1d, "grid1d"), (self.strict_float, "strict")]
            .into_iter()
            .filter_map(|(on, tag)| on.then_some(tag))
            .collect();
        if tags.is_empty() {
            format!("__oxide_kernel__{name}")
        } else {
            format!("__oxide_kernel_{}__{name}", tags.join("_"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn parse(attr: TokenStream) -> syn::Result<Options> {
        Options::parse(attr)
    }

    #[test]
    fn markers() {
        let opts = |strict_float, grid_1d| Options {
            strict_float,
            grid_1d,
        };
        assert_eq!(
            opts(false, false).marker("vecadd"),
            "__oxide_kernel__vecadd"
        );
        assert_eq!(
            opts(true, false).marker("vecadd"),
            "__oxide_kernel_strict__vecadd"
        );
        assert_eq!(
            opts(false, true).marker("vecadd"),
            "__oxide_kernel_grid1d__vecadd"
        );
        assert_eq!(
            opts(true, true).marker("vecadd"),
            "__oxide_kernel_grid1d_strict__vecadd"
        );
        // The name follows the first `__` after the options, whatever it holds.
        assert_eq!(
            opts(true, false).marker("_a__b"),
            "__oxide_kernel_strict___a__b"
        );
        assert_eq!(opts(false, false).marker("_a__b"), "__oxide_kernel___a__b");
    }

    #[test]
    fn parses_options_in_any_order() {
        assert_eq!(parse(quote!()).unwrap(), Options::default());
        let both = Options {
            strict_float: true,
            grid_1d: true,
        };
        assert_eq!(parse(quote!(strict_float, grid = "1d")).unwrap(), both);
        assert_eq!(parse(quote!(grid = "1d", strict_float,)).unwrap(), both);
        assert_eq!(
            parse(quote!(strict_float)).unwrap(),
            Options {
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
