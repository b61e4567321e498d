//! `printf!` and `device_assert!`: CUDA's `printf` with its C format, checked at compile time.
//!
//! In: a string literal in C's `printf` syntax and one expression per conversion.
//! Out: a `#[repr(C)]` struct of the converted arguments (vprintf's argument buffer: each value
//! at its natural alignment) and a call of `oxide::debug::vprintf` with the NUL-terminated
//! format. Each argument is converted by the trait of its conversion (`%d` → `CInt`, `%f` →
//! `CDouble`...), so a mismatch is a type error at the argument, naming what the conversion
//! prints.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, LitStr, Token};

use oxide_contract::printf::{CType, conversions};

/// The field type of the argument buffer for a conversion, and the `oxide::debug` trait and
/// method converting an argument to it.
fn conversion(ty: CType) -> (TokenStream, &'static str, &'static str) {
    match ty {
        CType::Int => (quote!(i32), "CInt", "to_c_int"),
        CType::Uint => (quote!(u32), "CUint", "to_c_uint"),
        CType::Long => (quote!(i64), "CLong", "to_c_long"),
        CType::Ulong => (quote!(u64), "CUlong", "to_c_ulong"),
        CType::Double => (quote!(f64), "CDouble", "to_c_double"),
        CType::Str => (quote!(*const u8), "CString", "to_c_string"),
        CType::Pointer => (quote!(usize), "CPointer", "to_c_pointer"),
    }
}

/// `"format", args...`.
pub struct PrintfInput {
    format: LitStr,
    args: Vec<Expr>,
}

impl Parse for PrintfInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let format: LitStr = input.parse()?;
        let mut args = Vec::new();
        if !input.is_empty() {
            input.parse::<Token![,]>()?;
            let rest = Punctuated::<Expr, Token![,]>::parse_terminated(input)?;
            args.extend(rest);
        }
        Ok(PrintfInput { format, args })
    }
}

/// The call of `oxide::debug::vprintf` that prints `format` with `args`: an expression of type
/// `()`.
pub fn expand_printf(input: PrintfInput) -> syn::Result<TokenStream> {
    let format = input.format.value();
    if format.contains('\0') {
        return Err(syn::Error::new(
            input.format.span(),
            "the format contains a NUL character, where printing would stop",
        ));
    }
    let types = types_of(&format, &input.format)?;
    if types.len() != input.args.len() {
        let span = input
            .args
            .get(types.len())
            .map_or(input.format.span(), |a| a.span());
        return Err(syn::Error::new(
            span,
            format!(
                "the format has {} but {} follow{}",
                plural(types.len(), "conversion"),
                plural(input.args.len(), "argument"),
                if input.args.len() == 1 { "s" } else { "" },
            ),
        ));
    }
    Ok(call(&format, input.format.span(), &types, &input.args))
}

/// `1 conversion`, `2 conversions`.
fn plural(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// The conversions' types of `format`, or the parser's error at the literal.
fn types_of(format: &str, literal: &LitStr) -> syn::Result<Vec<CType>> {
    conversions(format)
        .map(|found| found.into_iter().map(|c| c.ty).collect())
        .map_err(|e| syn::Error::new(literal.span(), e))
}

/// The tokens that print `format` (no NUL) with `args` converted as `types`.
fn call(format: &str, span: Span, types: &[CType], args: &[Expr]) -> TokenStream {
    let format = LitStr::new(&format!("{format}\0"), span);
    let fields: Vec<TokenStream> = types.iter().map(|&ty| conversion(ty).0).collect();
    let values: Vec<TokenStream> = types
        .iter()
        .zip(args)
        .map(|(ty, arg)| {
            let (_, tr, method) = conversion(*ty);
            let (tr, method) = (format_ident!("{tr}"), format_ident!("{method}"));
            quote_spanned!(arg.span()=> ::oxide::debug::#tr::#method(#arg))
        })
        .collect();
    quote! {{
        #[repr(C)]
        struct __OxidePrintfArgs(#(#fields,)*);
        let __oxide_args = __OxidePrintfArgs(#(#values,)*);
        // SAFETY (quote drops comments): the format was checked against these fields, one per
        // conversion in order, each of the C type the conversion reads (a `%s` one from a
        // `&CStr`), and ends with a NUL.
        #[allow(unsafe_code)]
        unsafe {
            ::oxide::debug::print_formatted(#format, &__oxide_args)
        };
    }}
}

/// `cond` or `cond, "format", args...`.
pub struct AssertInput {
    cond: Expr,
    message: Option<PrintfInput>,
}

impl Parse for AssertInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let cond: Expr = input.parse()?;
        let message = if input.is_empty() {
            None
        } else {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                None
            } else {
                Some(input.parse()?)
            }
        };
        Ok(AssertInput { cond, message })
    }
}

/// `if !cond { print "file:line: block (..) thread (..): assertion `cond` failed: message";
/// stop the kernel }`.
pub fn expand_assert(input: AssertInput) -> syn::Result<TokenStream> {
    let cond = &input.cond;
    let text = quote!(#cond).to_string().replace('%', "%%");
    let mut format =
        format!("%s:%u: block (%u, %u, %u), thread (%u, %u, %u): assertion `{text}` failed");
    let mut types = vec![CType::Str, CType::Uint];
    types.extend([CType::Uint; 6]);
    let mut args: Vec<Expr> = vec![
        syn::parse_quote!(
            const { ::oxide::debug::source_file(::core::concat!(::core::file!(), "\0")) }
        ),
        syn::parse_quote!(::core::line!()),
        syn::parse_quote!(::oxide::thread::block_idx_x()),
        syn::parse_quote!(::oxide::thread::block_idx_y()),
        syn::parse_quote!(::oxide::thread::block_idx_z()),
        syn::parse_quote!(::oxide::thread::thread_idx_x()),
        syn::parse_quote!(::oxide::thread::thread_idx_y()),
        syn::parse_quote!(::oxide::thread::thread_idx_z()),
    ];
    let span = input
        .message
        .as_ref()
        .map_or(cond.span(), |m| m.format.span());
    if let Some(message) = &input.message {
        let user = message.format.value();
        if user.contains('\0') {
            return Err(syn::Error::new(
                message.format.span(),
                "the message contains a NUL character, where printing would stop",
            ));
        }
        let user_types = types_of(&user, &message.format)?;
        if user_types.len() != message.args.len() {
            return Err(syn::Error::new(
                message.format.span(),
                format!(
                    "the message has {} but {} follow{}",
                    plural(user_types.len(), "conversion"),
                    plural(message.args.len(), "argument"),
                    if message.args.len() == 1 { "s" } else { "" },
                ),
            ));
        }
        format.push_str(": ");
        format.push_str(&user);
        types.extend(user_types);
        args.extend(message.args.iter().cloned());
    }
    format.push('\n');
    let print = call(&format, span, &types, &args);
    let failed = LitStr::new(
        &format!("device assertion `{}` failed", quote!(#cond)),
        span,
    );
    Ok(quote! {
        if !(#cond) {
            #print
            ::core::panic!(#failed);
        }
    })
}
