//! Which launch parameters a kernel argument type becomes (docs/contracts.md).

use syn::spanned::Spanned;
use syn::{GenericArgument, PathArguments, Type};

/// A kernel argument, by how the host passes it.
pub enum ArgKind {
    /// `&[T]` (the element type): a device pointer and a length.
    Slice(Type),
    /// `DisjointSlice<T>` (the element type): a device pointer and a length, written by the
    /// kernel.
    Disjoint(Type),
    /// Any other type, passed by value (must be `Copy`).
    Value(Type),
}

pub fn classify(ty: &Type) -> syn::Result<ArgKind> {
    match ty {
        Type::Paren(t) => classify(&t.elem),
        Type::Group(t) => classify(&t.elem),
        Type::Reference(r) => match (&*r.elem, r.mutability) {
            (Type::Slice(s), None) => Ok(ArgKind::Slice((*s.elem).clone())),
            (Type::Slice(_), Some(_)) => Err(syn::Error::new(
                ty.span(),
                "`&mut [T]` would let every thread write every element; take a \
                 `DisjointSlice<T>` to write",
            )),
            _ => Err(host_pointer(ty)),
        },
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last();
            match last.filter(|s| s.ident == "DisjointSlice") {
                Some(seg) => match &seg.arguments {
                    PathArguments::AngleBracketed(a) if a.args.len() == 1 => match &a.args[0] {
                        GenericArgument::Type(elem) => Ok(ArgKind::Disjoint(elem.clone())),
                        _ => Err(syn::Error::new(a.span(), "expected `DisjointSlice<T>`")),
                    },
                    _ => Err(syn::Error::new(
                        seg.span(),
                        "expected `DisjointSlice<T>` with its element type",
                    )),
                },
                None => Ok(ArgKind::Value(ty.clone())),
            }
        }
        Type::ImplTrait(_) => Err(syn::Error::new(
            ty.span(),
            "a kernel cannot take `impl Trait` arguments (the launcher could not name the \
             type): use a type parameter, `fn kernel<F: Trait>(f: F)`",
        )),
        _ => {
            check_value(ty)?;
            Ok(ArgKind::Value(ty.clone()))
        }
    }
}

/// Rejects by-value types that would carry host addresses the GPU cannot use, as far as the
/// syntax shows (named structs are only checked for `Copy`).
fn check_value(ty: &Type) -> syn::Result<()> {
    match ty {
        Type::Reference(_) | Type::BareFn(_) => Err(host_pointer(ty)),
        Type::Tuple(t) => t.elems.iter().try_for_each(check_value),
        Type::Array(a) => check_value(&a.elem),
        Type::Paren(t) => check_value(&t.elem),
        Type::Group(t) => check_value(&t.elem),
        Type::Slice(_) | Type::TraitObject(_) | Type::Infer(_) | Type::Never(_) => Err(
            syn::Error::new(ty.span(), "a kernel argument needs a sized, concrete type"),
        ),
        _ => Ok(()),
    }
}

fn host_pointer(ty: &Type) -> syn::Error {
    syn::Error::new(
        ty.span(),
        "a kernel takes no references or function pointers except `&[T]`: a host address means \
         nothing on the GPU; pass the value itself",
    )
}
