//! The checks of `requires = "..."` (docs/contracts.md): a condition on the kernel's arguments
//! as the host sees them, evaluated by `launch`, `launch_unchecked` and `emulate` before
//! anything runs. A condition reads a by-value argument's value (`scale > 0.0`), a slice's, a
//! `Matrix`'s or an output's element count, written `name.len()`
//! (`x.len().is_multiple_of(2048)`), which the launcher and the emulator measure as they do
//! for `same_len`, and a row output's shape, written as the output's own accessors
//! (`out.width()`, `out.pitch()`, `out.rows()`, `out.origin()`) or whole (`out.shape()`, an
//! `oxide::host::RowShape`), from the words its launch passes.

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::Ident;

use super::Kernel;

/// The methods of a row output a condition reads its shape through.
const SHAPE_METHODS: [&str; 4] = ["width", "pitch", "rows", "origin"];

/// What a condition reads of the kernel's arguments.
#[derive(Default)]
struct Reads {
    /// Arguments read as values: the launchers take them as the kernel's own types.
    values: Vec<String>,
    /// Arguments read as `name.len()`: their element counts.
    lengths: Vec<String>,
    /// Row outputs read through `name.width()` (`pitch`, `rows`, `origin`): their shapes.
    shapes: Vec<String>,
}

/// How the place a check runs (the launcher, the emulator) measures an argument: its element
/// count, and a row output's shape (an `oxide_launch::RowShape`).
struct Measures<'a> {
    length: &'a dyn Fn(&Ident) -> TokenStream,
    shape: &'a dyn Fn(&Ident) -> TokenStream,
}

/// The argument and the method when `trees[i..]` starts `name.method()` for an argument `name`
/// (a whole path: not the field of something else, as `a.name.len()` is) and a method of no
/// arguments.
fn method_read(
    trees: &[TokenTree],
    i: usize,
    is_arg: &dyn Fn(&Ident) -> bool,
) -> Option<(Ident, String)> {
    let TokenTree::Ident(name) = &trees[i] else {
        return None;
    };
    let dot = matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '.');
    let Some(TokenTree::Ident(method)) = trees.get(i + 2) else {
        return None;
    };
    let empty_call = matches!(
        trees.get(i + 3),
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis && g.stream().is_empty()
    );
    (!after_dot(trees, i) && dot && empty_call && is_arg(name))
        .then(|| (name.clone(), method.to_string()))
}

/// Whether `trees[i]` follows a `.`.
fn after_dot(trees: &[TokenTree], i: usize) -> bool {
    i > 0 && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == '.')
}

/// `tokens` inside an invisible group spanned at `span`: it keeps an expression one operand
/// (`x.len() * 2`) without the parentheses `unused_parens` would flag where it is a whole
/// argument.
fn operand(tokens: TokenStream, span: proc_macro2::Span) -> TokenTree {
    let mut group = Group::new(Delimiter::None, tokens);
    group.set_span(span);
    TokenTree::Group(group)
}

/// `tokens` with each `name.len()` of an argument replaced by its count and the `name` of each
/// `name.width()` (`pitch`, `rows`, `origin`) by its shape, and what the condition reads
/// (`reads`).
fn rewrite(
    tokens: TokenStream,
    is_arg: &dyn Fn(&Ident) -> bool,
    measures: &Measures<'_>,
    reads: &mut Reads,
) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(trees.len());
    let mut i = 0;
    while i < trees.len() {
        match method_read(&trees, i, is_arg) {
            Some((name, method)) if method == "len" => {
                reads.lengths.push(name.to_string());
                out.push(operand((measures.length)(&name), name.span()));
                i += 4;
                continue;
            }
            // `out.shape()`: the whole shape, for a function of the crate's to read
            // (`requires = "whole_rows(out.shape(), out.len(), HIDDEN)"`).
            Some((name, method)) if method == "shape" => {
                reads.shapes.push(name.to_string());
                out.push(operand((measures.shape)(&name), name.span()));
                i += 4;
                continue;
            }
            Some((name, method)) if SHAPE_METHODS.contains(&method.as_str()) => {
                reads.shapes.push(name.to_string());
                out.push(operand((measures.shape)(&name), name.span()));
                i += 1;
                continue;
            }
            _ => {}
        }
        match &trees[i] {
            TokenTree::Group(g) => {
                let mut group =
                    Group::new(g.delimiter(), rewrite(g.stream(), is_arg, measures, reads));
                group.set_span(g.span());
                out.push(TokenTree::Group(group));
            }
            // After a `.`, a name is a field or a method, not an argument.
            TokenTree::Ident(name) if is_arg(name) && !after_dot(&trees, i) => {
                reads.values.push(name.to_string());
                out.push(trees[i].clone());
            }
            tree => out.push(tree.clone()),
        }
        i += 1;
    }
    out.into_iter().collect()
}

impl Kernel {
    /// What the kernel's `requires` conditions read, and each condition with its reads of
    /// lengths and shapes replaced by the `measures`.
    fn conditions(&self, measures: &Measures<'_>) -> Vec<(Reads, TokenStream, &syn::LitStr)> {
        let is_arg = |name: &Ident| self.passed().any(|p| p.name == name);
        self.lengths
            .requires
            .iter()
            .map(|(condition, text)| {
                let mut reads = Reads::default();
                let rewritten = rewrite(condition.to_token_stream(), &is_arg, measures, &mut reads);
                (reads, rewritten, text)
            })
            .collect()
    }

    /// Whether a `requires` condition reads the argument `name` as a value: the launcher and
    /// the emulator then take it as the kernel's own type (a by-value argument's only
    /// `LaunchArg` is the type itself), so that the condition reads its value.
    /// A reference (`&[T]`) never is one: taking it so would only add errors about its
    /// lifetime to the one `__private::RequiredValue` gives at the condition.
    pub(super) fn required(&self, name: &Ident) -> bool {
        let reference = self
            .passed()
            .any(|p| p.name == name && matches!(p.ty, syn::Type::Reference(_)));
        if reference {
            return false;
        }
        let name = name.to_string();
        let nothing = |_: &Ident| TokenStream::new();
        let measures = Measures {
            length: &nothing,
            shape: &nothing,
        };
        self.conditions(&measures)
            .iter()
            .any(|(reads, _, _)| reads.values.contains(&name))
    }

    /// The checks of `requires`, for the launcher or the emulator (`check`, the `__private`
    /// check; `arg_trait`, the trait an argument of a key is measured through where the check
    /// runs, `elements` its length and `words` its shape words: `::oxide::host::LaunchArg::<K>`
    /// in the launcher, `::oxide::emulate::ThreadArg::<'run, K>` in the emulator): each
    /// condition evaluated as written, on the arguments it names, which both take as the
    /// kernel's own types ([`Kernel::required`]).
    pub(super) fn requires_checks(
        &self,
        check: TokenStream,
        arg_trait: &dyn Fn(&TokenStream) -> TokenStream,
    ) -> TokenStream {
        let kernel_name = self.name.to_string().trim_start_matches("r#").to_owned();
        let length = |n: &Ident| {
            let measured = arg_trait(&self.key_of(n));
            quote!(#measured::elements(&#n))
        };
        let shape = |n: &Ident| {
            let measured = arg_trait(&self.key_of(n));
            quote!(::oxide::__private::row_shape(#measured::words(&#n)))
        };
        let measures = &Measures {
            length: &length,
            shape: &shape,
        };
        let conditions = self.conditions(measures);
        let checks = conditions.into_iter().map(|(reads, condition, text)| {
            // Each argument it reads is checked, at compile time and at the condition's span,
            // to be one a condition can read so (`__private::RequiredValue`, `RequiredLength`,
            // `RequiredRows`); what it read of them goes into the refusal's message.
            let mut named = Vec::new();
            let mut read = Vec::new();
            for p in self.passed() {
                let (name, ty) = (p.name.to_string(), p.ty);
                let shown = name.trim_start_matches("r#").to_owned();
                if reads.values.contains(&name) {
                    named.push(quote_spanned! {text.span()=>
                        ::oxide::__private::required_value::<#ty>();
                    });
                }
                if reads.lengths.contains(&name) {
                    named.push(quote_spanned! {text.span()=>
                        ::oxide::__private::required_length::<#ty>();
                    });
                    let count = (measures.length)(p.name);
                    read.push(quote!((#shown, ::oxide::__private::RequiredRead::Length(#count))));
                }
                if reads.shapes.contains(&name) {
                    named.push(quote_spanned! {text.span()=>
                        ::oxide::__private::required_rows::<#ty>();
                    });
                    let shape = (measures.shape)(p.name);
                    read.push(quote!((#shown, ::oxide::__private::RequiredRead::Shape(#shape))));
                }
            }
            let text = text.value();
            quote! {
                #(#named)*
                ::oxide::__private::#check(#kernel_name, #text, { #condition }, || {
                    ::std::vec![#(#read),*]
                })?;
            }
        });
        quote!(#(#checks)*)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reads_of(condition: &str) -> (Reads, String) {
        let is_arg = |n: &Ident| ["x", "w", "scale", "out"].contains(&n.to_string().as_str());
        let mut reads = Reads::default();
        let measures = Measures {
            length: &|n| quote!(count(#n)),
            shape: &|n| quote!(shape(#n)),
        };
        let out = rewrite(condition.parse().unwrap(), &is_arg, &measures, &mut reads);
        (reads, out.to_string())
    }

    #[test]
    fn an_arguments_len_is_its_count_and_any_other_use_its_value() {
        let (reads, out) =
            reads_of("x.len().is_multiple_of(2048) && w.len() == rows(x.len()) && scale > 0.0");
        assert_eq!(reads.lengths, ["x", "w", "x"]);
        assert_eq!(reads.values, ["scale"]);
        assert_eq!(
            out,
            "count (x) . is_multiple_of (2048) && count (w) == rows (count (x)) && scale > 0.0"
        );
    }

    #[test]
    fn a_row_outputs_accessors_read_its_shape() {
        let (reads, out) =
            reads_of("out.width() == 4096 && out.origin() == (0, 0) && out.rows() > 0");
        assert_eq!(reads.shapes, ["out", "out", "out"]);
        assert!(reads.values.is_empty() && reads.lengths.is_empty());
        assert_eq!(
            out,
            "shape (out) . width () == 4096 && shape (out) . origin () == (0 , 0) && shape (out) . rows () > 0"
        );
    }

    #[test]
    fn a_row_outputs_shape_is_its_row_shape() {
        let (reads, out) = reads_of("whole(out.shape(), out.len())");
        assert_eq!(reads.shapes, ["out"]);
        assert_eq!(reads.lengths, ["out"]);
        assert_eq!(out, "whole (shape (out) , count (out))");
    }

    #[test]
    fn a_field_or_a_method_with_arguments_is_not_a_length_read() {
        let (reads, _) = reads_of("a.x.len() > 0 && x.len(1) > 0 && x.len > 0 && x.is_empty()");
        assert!(reads.lengths.is_empty());
        assert_eq!(reads.values, ["x", "x", "x"]);
    }
}
