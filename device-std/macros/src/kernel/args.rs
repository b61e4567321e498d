//! What the macro reads from a kernel argument's type: its syntax only. What the type *is* (a
//! slice, an output, a value) is the type's own `oxide::KernelParam` impl, which the launcher and
//! the emulator reach through the argument's key; the macro names no parameter type but the two
//! the kernel makes itself (block-shared memory, whose `static`s only the macro can declare).

use proc_macro2::TokenStream;
use quote::quote_spanned;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{GenericArgument, Lifetime, PathArguments, PathSegment, Type};

/// A kernel argument, by who makes it.
pub enum ArgKind {
    /// Passed by the launch. `key` is the type the host sides are keyed by
    /// (`oxide::ParamKey`): `[T]` for a `&[T]`, `fn(P)` for any other type `P`, a function
    /// pointer type being where the launcher may write `P`'s elided lifetimes.
    Launched { key: TokenStream },
    /// `Shared<A>` (the array type `A`): block-shared memory, which the launch does not pass;
    /// the kernel makes it.
    Shared(Type),
    /// `DynShared<T>` (the element type): the block's dynamic shared memory, whose length in
    /// elements the launch passes (a `usize`) and sets the launch's dynamic shared memory from.
    DynShared(Type),
}

impl ArgKind {
    /// The type `#[kernel]` takes a shared-memory argument written `ty` to be: the kernel's entry
    /// declares its `static` as oxide's, so the kernel checks that `ty` is it (a type of the
    /// user's own named `Shared` then does not compile).
    pub fn expected_type(&self, ty: &Type) -> Option<TokenStream> {
        match self {
            ArgKind::Shared(array) => Some(quote_spanned! {ty.span()=>
                ::oxide::shared::Shared<'_, #array>
            }),
            ArgKind::DynShared(elem) => Some(quote_spanned! {ty.span()=>
                ::oxide::shared::DynShared<'_, #elem>
            }),
            ArgKind::Launched { .. } => None,
        }
    }
}

pub fn classify(ty: &Type) -> syn::Result<ArgKind> {
    match ty {
        Type::Paren(t) => classify(&t.elem),
        Type::Group(t) => classify(&t.elem),
        Type::Reference(r) => match (&*r.elem, r.mutability) {
            (Type::Slice(s), None) => {
                if let Some(lifetime) = r.lifetime.as_ref().filter(|l| l.ident != "_") {
                    return Err(launch_lifetime(lifetime));
                }
                no_named_lifetimes(&s.elem)?;
                let elem = &s.elem;
                Ok(ArgKind::Launched {
                    key: quote_spanned!(ty.span()=> [#elem]),
                })
            }
            (Type::Slice(_), Some(_)) => Err(syn::Error::new(
                ty.span(),
                "`&mut [T]` would let every thread write every element; take a \
                 `DisjointSlice<T>` to write",
            )),
            _ => Err(host_pointer(ty)),
        },
        Type::Path(p) if p.qself.is_none() => {
            match p.path.segments.last() {
                Some(seg) if seg.ident == "Shared" => return shared_array(seg),
                Some(seg) if seg.ident == "DynShared" => {
                    return match shared_array(seg) {
                        Ok(ArgKind::Shared(elem)) => Ok(ArgKind::DynShared(elem)),
                        _ => Err(syn::Error::new(
                            seg.span(),
                            "expected `DynShared<T>` with its element type, e.g. \
                             `DynShared<f32>`",
                        )),
                    };
                }
                _ => {}
            }
            no_references(ty)?;
            no_named_lifetimes(ty)?;
            Ok(launched(ty))
        }
        Type::ImplTrait(_) => Err(syn::Error::new(
            ty.span(),
            "a kernel cannot take `impl Trait` arguments (the launcher could not name the \
             type): use a type parameter, `fn kernel<F: Trait>(f: F)`",
        )),
        _ => {
            check_value(ty)?;
            Ok(launched(ty))
        }
    }
}

fn launched(ty: &Type) -> ArgKind {
    ArgKind::Launched {
        key: quote_spanned!(ty.span()=> fn(#ty)),
    }
}

/// Refuses a named lifetime anywhere in an argument's type (`DisjointSlice<'static, T>`,
/// `&'static [T]` inside a tuple): the launch lends its buffers for the kernel's call only, and
/// the launcher's keys elide every lifetime.
fn no_named_lifetimes(ty: &Type) -> syn::Result<()> {
    struct Named(Option<Lifetime>);
    impl<'ast> Visit<'ast> for Named {
        fn visit_lifetime(&mut self, l: &'ast Lifetime) {
            if l.ident != "_" && self.0.is_none() {
                self.0 = Some(l.clone());
            }
        }
    }
    let mut named = Named(None);
    named.visit_type(ty);
    match named.0 {
        Some(l) => Err(launch_lifetime(&l)),
        None => Ok(()),
    }
}

/// Refuses a reference anywhere in a path's generic arguments (`Option<&u32>`), as a host
/// pointer: the syntax shows it, so the message can say so before any type is checked.
fn no_references(ty: &Type) -> syn::Result<()> {
    struct Reference(Option<Type>);
    impl<'ast> Visit<'ast> for Reference {
        fn visit_type_reference(&mut self, r: &'ast syn::TypeReference) {
            if self.0.is_none() {
                self.0 = Some(Type::Reference(r.clone()));
            }
        }
    }
    let mut found = Reference(None);
    found.visit_type(ty);
    match found.0 {
        Some(r) => Err(host_pointer(&r)),
        None => Ok(()),
    }
}

/// `Shared<A>` or `Shared<'_, A>`: its array type.
fn shared_array(seg: &PathSegment) -> syn::Result<ArgKind> {
    let expected = || {
        syn::Error::new(
            seg.span(),
            "expected `Shared<A>` with its array type, `Shared<[T; N]>` or `Shared<[[T; C]; R]>`",
        )
    };
    let PathArguments::AngleBracketed(a) = &seg.arguments else {
        return Err(expected());
    };
    let mut array = None;
    for arg in &a.args {
        match arg {
            GenericArgument::Lifetime(l) if l.ident == "_" => {}
            GenericArgument::Lifetime(l) => {
                return Err(syn::Error::new(
                    l.span(),
                    "a kernel's shared memory lives for the kernel's call only: leave the \
                     lifetime out (`Shared<[T; N]>`) or write `'_`",
                ));
            }
            GenericArgument::Type(t) if array.is_none() => array = Some(t.clone()),
            _ => return Err(expected()),
        }
    }
    array.map(ArgKind::Shared).ok_or_else(expected)
}

/// A named lifetime on a kernel's slice: the launch lends its buffers for the kernel's call
/// only, so a kernel that asked for `'static` could keep them after the launch.
fn launch_lifetime(lifetime: &Lifetime) -> syn::Error {
    syn::Error::new(
        lifetime.span(),
        "a kernel's slices borrow the launch's buffers for the kernel's call only: leave the \
         lifetime out (`&[T]`, `DisjointSlice<T>`) or write `'_`",
    )
}

/// Rejects by-value types that would carry host addresses the GPU cannot use, as far as the
/// syntax shows, with a message that says so; whatever the syntax hides (an alias, a struct's
/// field, an `Option<&T>`) is rejected by the parameter's `oxide::KernelParam` impl, which a
/// value has only when it is `Copy` plain device data (`oxide::DeviceData`).
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
        _ => {
            no_references(ty)?;
            no_named_lifetimes(ty)
        }
    }
}

fn host_pointer(ty: &Type) -> syn::Error {
    syn::Error::new(
        ty.span(),
        "a kernel takes no references or function pointers except `&[T]`: a host address means \
         nothing on the GPU; pass the value itself",
    )
}
