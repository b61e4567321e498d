//! `#[derive(DeviceRepr)]` and `#[derive(ValidAsZeroBits)]`: cudarc's `unsafe` marker traits,
//! implemented only after the type's shape and every field are checked (docs/safety.md,
//! "Derived device representations").
//!
//! In: a `#[repr(C)]` or `#[repr(transparent)]` struct (not packed, aligned to at most 256
//! bytes), or a non-empty enum of unit variants with an integer `#[repr]`.
//! Out: the `unsafe impl` of cudarc's trait and of the matching `oxide::repr` field trait, so
//! that derived types nest. A field whose type names a generic parameter becomes a bound of
//! the impls (the impls hold for the instances whose fields qualify); any other field is
//! checked at the definition, in a closure that names its type at the field's span, so the
//! error points at the field.

use proc_macro2::{Span, TokenStream as TokenStream2, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{
    Attribute, Data, DeriveInput, Fields, GenericParam, Ident, LitInt, LitStr, Type,
    WherePredicate, parse_quote_spanned,
};

use crate::Errors;

/// Which derive: they check the same shape and differ in the field trait.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Derive {
    DeviceRepr,
    ValidAsZeroBits,
}

impl Derive {
    fn name(self) -> &'static str {
        match self {
            Derive::DeviceRepr => "DeviceRepr",
            Derive::ValidAsZeroBits => "ValidAsZeroBits",
        }
    }
}

/// cudarc allocates device memory aligned to 256 bytes; a type aligned more would sit at
/// addresses the backend assumes it never has.
const MAX_ALIGN: u64 = 256;

const INT_REPRS: [&str; 12] = [
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
];

/// What the type's `#[repr(...)]` attributes say.
#[derive(Default)]
struct Layout {
    c: bool,
    transparent: bool,
    int: Option<Ident>,
    packed: Option<Span>,
    align: Option<(u64, Span)>,
}

fn layout(attrs: &[Attribute]) -> syn::Result<Layout> {
    let mut layout = Layout::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("repr")) {
        attr.parse_nested_meta(|meta| {
            let path = &meta.path;
            if path.is_ident("C") {
                layout.c = true;
            } else if path.is_ident("transparent") {
                layout.transparent = true;
            } else if path.is_ident("packed") {
                layout.packed = Some(path.span());
                if meta.input.peek(syn::token::Paren) {
                    let content;
                    syn::parenthesized!(content in meta.input);
                    content.parse::<LitInt>()?;
                }
            } else if path.is_ident("align") {
                let content;
                syn::parenthesized!(content in meta.input);
                let lit: LitInt = content.parse()?;
                layout.align = Some((lit.base10_parse()?, lit.span()));
            } else if let Some(ident) = path.get_ident()
                && INT_REPRS.contains(&ident.to_string().as_str())
            {
                layout.int = Some(ident.clone());
            }
            // Anything else (`Rust`, or what rustc rejects itself) adds no layout guarantee.
            Ok(())
        })?;
    }
    Ok(layout)
}

pub(crate) fn expand(input: &DeriveInput, derive: Derive) -> syn::Result<TokenStream2> {
    let layout = layout(&input.attrs)?;
    let mut errors = Errors::default();
    let which = derive.name();
    if let Some(span) = layout.packed {
        errors.add(
            span,
            &format!(
                "`#[derive({which})]` refuses `#[repr(packed)]`: its fields are unaligned, \
                 which the GPU's loads and stores do not allow (a misaligned access faults), \
                 and references to them are undefined behaviour; remove `packed` and order \
                 the fields by size if the padding matters"
            ),
        );
    }
    if let Some((align, span)) = layout.align
        && align > MAX_ALIGN
    {
        errors.add(
            span,
            &format!(
                "`#[derive({which})]` allows `#[repr(align(N))]` up to {MAX_ALIGN}: device \
                 buffers are aligned to {MAX_ALIGN} bytes, so their elements could not be \
                 aligned to {align}"
            ),
        );
    }
    let out = match &input.data {
        Data::Struct(data) => {
            if !layout.c && !layout.transparent {
                errors.add(
                    input.ident.span(),
                    &format!(
                        "`#[derive({which})]` needs `#[repr(C)]` (or `#[repr(transparent)]`) \
                         on `{}`: a device buffer's element is laid out as in C, the layout \
                         CUDA code and other languages that share the buffer expect, and \
                         Rust's own layout may reorder the fields",
                        input.ident
                    ),
                );
            }
            let layout_errors = errors.finish();
            let mut field_errors = Errors::default();
            let refused: Vec<bool> = (data.fields.iter())
                .map(|field| refuse_by_syntax(&field.ty, &mut field_errors))
                .collect();
            layout_errors?;
            match field_errors.finish() {
                Ok(()) => expand_struct(input, &data.fields, &refused, derive),
                // The other fields are still checked, so that one build reports them all.
                Err(e) => {
                    let mut out = e.to_compile_error();
                    out.extend(expand_struct(input, &data.fields, &refused, derive));
                    out
                }
            }
        }
        Data::Enum(data) => {
            let Some(int) = layout.int else {
                let hint = if layout.c {
                    " (`#[repr(C)]` alone leaves the size to the C compiler)"
                } else {
                    ""
                };
                errors.add(
                    input.ident.span(),
                    &format!(
                        "`#[derive({which})]` needs an integer `#[repr]` on the enum `{}` \
                         (`#[repr(u8)]`, `#[repr(u32)]`, `#[repr(i32)]`...){hint}: its \
                         discriminant is then that integer on the host and the GPU",
                        input.ident
                    ),
                );
                return Err(errors.finish().unwrap_err());
            };
            if data.variants.is_empty() {
                errors.add(
                    input.ident.span(),
                    &format!(
                        "`#[derive({which})]` on an enum without variants: it has no values, \
                         so no buffer of it can hold any"
                    ),
                );
            }
            for variant in &data.variants {
                if !matches!(variant.fields, Fields::Unit) {
                    errors.add(
                        variant.fields.span(),
                        &format!(
                            "`#[derive({which})]` takes only enums of unit variants, and \
                             `{}` carries data: the GPU would read the payload's bytes \
                             whatever the discriminant says, and a device buffer cannot \
                             show which bytes are valid; use a `#[repr(C)]` struct with a \
                             discriminant field",
                            variant.ident
                        ),
                    );
                }
            }
            if !input.generics.params.is_empty() {
                errors.add(
                    input.generics.span(),
                    &format!("`#[derive({which})]` takes enums without generic parameters"),
                );
            }
            errors.finish()?;
            expand_enum(input, &int, derive)
        }
        Data::Union(data) => {
            errors.add(
                data.union_token.span,
                &format!(
                    "`#[derive({which})]` does not take unions: which field is live is not in \
                     the bytes, so a copy cannot be checked; use a `#[repr(C)]` struct"
                ),
            );
            return Err(errors.finish().unwrap_err());
        }
    };
    Ok(out)
}

/// Field types refused by how they are written, with a message for each kind (true when
/// refused); the field traits refuse them too (and everything an alias or a generic hides), with
/// a less direct one.
fn refuse_by_syntax(ty: &Type, errors: &mut Errors) -> bool {
    let what = match ty {
        Type::Array(array) => return refuse_by_syntax(&array.elem, errors),
        Type::Paren(paren) => return refuse_by_syntax(&paren.elem, errors),
        Type::Group(group) => return refuse_by_syntax(&group.elem, errors),
        Type::Reference(_) => "a reference",
        Type::Ptr(_) => "a raw pointer",
        Type::BareFn(_) => "a function pointer",
        Type::TraitObject(_) | Type::ImplTrait(_) => "a trait object",
        _ => return false,
    };
    errors.add(
        ty.span(),
        &format!(
            "{what} cannot be a field of a device type: a host address means nothing on the \
             GPU, and device memory reaches a kernel as a buffer argument (`&[T]`, \
             `DisjointSlice<T>`), not inside an element"
        ),
    );
    true
}

/// Whether `ty` names one of the item's generic parameters (or `Self`), so that it can only be
/// checked per instance. A false positive only moves a check from the definition to the impl's
/// bounds.
fn names_a_parameter(ty: &Type, params: &[String]) -> bool {
    fn walk(tokens: TokenStream2, params: &[String]) -> bool {
        tokens.into_iter().any(|tt| match tt {
            TokenTree::Ident(ident) => {
                let ident = ident.to_string();
                ident == "Self" || params.contains(&ident)
            }
            TokenTree::Group(group) => walk(group.stream(), params),
            _ => false,
        })
    }
    walk(ty.to_token_stream(), params)
}

/// The field checks and, unless a field was `refused` by its syntax, the impls.
fn expand_struct(
    input: &DeriveInput,
    fields: &Fields,
    refused: &[bool],
    derive: Derive,
) -> TokenStream2 {
    let name = &input.ident;
    let params: Vec<String> = input
        .generics
        .params
        .iter()
        .map(|p| match p {
            GenericParam::Type(t) => t.ident.to_string(),
            GenericParam::Const(c) => c.ident.to_string(),
            GenericParam::Lifetime(l) => l.lifetime.ident.to_string(),
        })
        .collect();
    let mut generics = input.generics.clone();
    let where_clause = generics.make_where_clause();
    let mut checks = Vec::new();
    let check_fns = match derive {
        Derive::DeviceRepr => quote!(
            fn field_is_a_device_repr<T: ?::core::marker::Sized + ::oxide::repr::ReprField>() {}
            fn field_is_plain_device_data<T: ?::core::marker::Sized + ::oxide::DeviceData>() {}
        ),
        Derive::ValidAsZeroBits => quote!(
            fn field_is_valid_as_zero_bits<
                T: ?::core::marker::Sized + ::oxide::repr::ZeroableField,
            >() {
            }
        ),
    };
    for (field, _) in fields.iter().zip(refused).filter(|(_, refused)| !**refused) {
        let ty = &field.ty;
        let span = ty.span();
        let generic = names_a_parameter(ty, &params);
        match (derive, generic) {
            (Derive::DeviceRepr, true) => where_clause.predicates.push(parse_quote_spanned!(span=>
                #ty: ::oxide::repr::ReprField + ::oxide::DeviceData
            )),
            (Derive::DeviceRepr, false) => checks.push(quote_spanned!(span=>
                field_is_a_device_repr::<#ty>();
                field_is_plain_device_data::<#ty>();
            )),
            (Derive::ValidAsZeroBits, true) => {
                where_clause.predicates.push(parse_quote_spanned!(span=>
                    #ty: ::oxide::repr::ZeroableField
                ))
            }
            (Derive::ValidAsZeroBits, false) => checks.push(quote_spanned!(span=>
                field_is_valid_as_zero_bits::<#ty>();
            )),
        }
    }
    if derive == Derive::DeviceRepr && !input.generics.params.is_empty() {
        // `ReprField: Copy`, and a derived `Copy` of a generic type asks `T: Copy` of every
        // parameter, which a `PhantomData<T>` field does not give: bound the impls by it.
        let predicate: WherePredicate = parse_quote_spanned!(name.span()=>
            Self: ::core::marker::Copy
        );
        where_clause.predicates.push(predicate);
    }
    let (impl_generics, type_generics, where_clause) = generics.split_for_impl();
    let (cudarc_trait, field_trait) = traits(derive);
    let checks = quote! {
        const _: fn() = || {
            #check_fns
            #(#checks)*
        };
    };
    if refused.contains(&true) {
        return checks;
    }
    // The impls' safety: every field qualifies (the closure, or the impls' bounds), on a
    // `#[repr(C)]` or `#[repr(transparent)]` type that is not packed.
    quote! {
        #checks
        unsafe impl #impl_generics #cudarc_trait for #name #type_generics #where_clause {}
        unsafe impl #impl_generics #field_trait for #name #type_generics #where_clause {}
    }
}

fn expand_enum(input: &DeriveInput, int: &Ident, derive: Derive) -> TokenStream2 {
    let name = &input.ident;
    let (cudarc_trait, field_trait) = traits(derive);
    let zero_check = (derive == Derive::ValidAsZeroBits).then(|| {
        let Data::Enum(data) = &input.data else {
            unreachable!("expand_enum is called for enums")
        };
        let variants = data.variants.iter().map(|v| &v.ident);
        let message = LitStr::new(
            &format!(
                "`#[derive(ValidAsZeroBits)]`: no variant of `{name}` has the discriminant 0, \
                 so all-zero bytes are not a value of it (give a variant `= 0`, or fill the \
                 buffer with `Gpu::htod`)"
            ),
            name.span(),
        );
        // The primitive by its full path: a type alias named `u16` in the enum's module would
        // otherwise be the cast's target, and a truncating cast could make a discriminant
        // such as 256 look like 0.
        quote_spanned! {name.span()=>
            const _: () = ::core::assert!(
                #((#name::#variants as ::core::primitive::#int) == 0)||*,
                #message
            );
        }
    });
    // The impls' safety: a non-empty enum of unit variants with an integer `#[repr]` is that
    // integer on the host and the GPU, and only the discriminants of its values reach a buffer.
    quote! {
        #zero_check
        unsafe impl #cudarc_trait for #name {}
        unsafe impl #field_trait for #name {}
    }
}

fn traits(derive: Derive) -> (TokenStream2, TokenStream2) {
    match derive {
        Derive::DeviceRepr => (
            quote!(::oxide::host::DeviceRepr),
            quote!(::oxide::repr::ReprField),
        ),
        Derive::ValidAsZeroBits => (
            quote!(::oxide::host::ValidAsZeroBits),
            quote!(::oxide::repr::ZeroableField),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expanded(item: TokenStream2, derive: Derive) -> syn::Result<String> {
        expand(&syn::parse2(item).unwrap(), derive).map(|out| out.to_string())
    }

    #[test]
    fn generic_fields_bound_the_impls_and_the_others_are_checked_at_the_definition() {
        let item = quote!(
            #[repr(C)]
            struct Tagged<T, const N: usize> {
                value: T,
                values: [T; N],
                id: u32,
                unit: core::marker::PhantomData<T>,
            }
        );
        let out = expanded(item, Derive::DeviceRepr).unwrap();
        for bound in [
            "T : :: oxide :: repr :: ReprField + :: oxide :: DeviceData",
            "[T ; N] : :: oxide :: repr :: ReprField + :: oxide :: DeviceData",
            "Self : :: core :: marker :: Copy",
        ] {
            assert!(out.contains(bound), "{bound}: {out}");
        }
        assert!(
            out.contains("field_is_a_device_repr :: < u32 > ()"),
            "{out}"
        );
        assert!(!out.contains("field_is_a_device_repr :: < T > ()"), "{out}");
        assert!(out.contains("unsafe impl < T , const N : usize > :: oxide :: host :: DeviceRepr"));
        assert!(out.contains(":: oxide :: repr :: ReprField for Tagged < T , N >"));
    }

    #[test]
    fn refused_shapes_emit_no_impl() {
        let refused = [
            quote!(
                struct Rust {
                    a: u32,
                }
            ),
            quote!(
                #[repr(C, packed)]
                struct Packed {
                    a: u32,
                }
            ),
            quote!(
                #[repr(C, align(1024))]
                struct Aligned {
                    a: u32,
                }
            ),
            quote!(
                #[repr(u8)]
                enum Data {
                    A(u32),
                }
            ),
            quote!(
                #[repr(C)]
                enum NoInt {
                    A,
                }
            ),
            quote!(
                union U {
                    a: u32,
                }
            ),
        ];
        for item in refused {
            for derive in [Derive::DeviceRepr, Derive::ValidAsZeroBits] {
                assert!(expanded(item.clone(), derive).is_err(), "{item}");
            }
        }
        // A field refused by its syntax: an error and the other fields' checks, no impl.
        let item = quote!(
            #[repr(C)]
            struct Pointer {
                p: *const u32,
                c: char,
            }
        );
        let out = expand(&syn::parse2(item).unwrap(), Derive::DeviceRepr).unwrap();
        let out = out.to_string();
        assert!(out.contains("compile_error"), "{out}");
        assert!(out.contains("field_is_a_device_repr :: < char >"), "{out}");
        assert!(!out.contains("unsafe impl"), "{out}");
    }

    #[test]
    fn zero_bits_of_an_enum_are_asserted_to_be_a_variant() {
        let item = quote!(
            #[repr(i16)]
            enum Level {
                Low = -1,
                Mid,
                High,
            }
        );
        let out = expanded(item, Derive::ValidAsZeroBits).unwrap();
        assert!(
            out.contains(
                "(Level :: Low as :: core :: primitive :: i16) == 0 || \
                 (Level :: Mid as :: core :: primitive :: i16) == 0"
            ),
            "{out}"
        );
        assert!(out.contains("unsafe impl :: oxide :: host :: ValidAsZeroBits for Level"));
    }
}
