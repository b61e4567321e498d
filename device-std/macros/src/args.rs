//! Which launch parameters a kernel argument type becomes (docs/contracts.md).

use syn::spanned::Spanned;
use syn::{GenericArgument, Lifetime, PathArguments, PathSegment, Type};

/// A kernel argument, by how the host passes it.
pub enum ArgKind {
    /// `&[T]` (the element type): a device pointer and a length.
    Slice(Type),
    /// An output: `DisjointSlice<T>`, `DisjointChunks<T, C>` (a device pointer and a length) or,
    /// with `rows`, `DisjointRows<T>`, `WarpRows<T>`, `BlockTiles<T, R, C>` (a pointer, a
    /// length and a row width), written by the kernel. `elem` is the element type, `ty` the
    /// type as written.
    Disjoint {
        elem: Box<Type>,
        ty: Box<Type>,
        /// What the launch passes after the pointer and the length.
        words: Words,
    },
    /// Any other type, passed by value (must be `Copy`).
    Value(Type),
    /// `&[AtomicU32]`, the other integer atomics and `AtomicF32`/`AtomicF64` (the atomic type, and the plain value the
    /// host's buffer holds): a device pointer and a length, which every thread may update
    /// atomically. The launch borrows the buffer mutably.
    Atomics { atomic: Box<Type> },
    /// `Shared<A>` (the array type `A`): block-shared memory, which the launch does not pass;
    /// the kernel makes it.
    Shared(Type),
    /// `DynShared<T>` (the element type): the block's dynamic shared memory, whose length in
    /// elements the launch passes (a `usize`) and sets the launch's dynamic shared memory from.
    DynShared(Type),
}

impl ArgKind {
    /// The type that must be plain device data (`oxide::DeviceData`): a by-value argument's.
    /// Slice elements live in device buffers, whose element types cudarc's unsafe
    /// `DeviceRepr` already vouches for (and `&[AtomicU32]` is a sound shared scratch buffer).
    pub fn by_value(&self) -> Option<&Type> {
        match self {
            ArgKind::Value(t) => Some(t),
            ArgKind::Slice(_)
            | ArgKind::Disjoint { .. }
            | ArgKind::Atomics { .. }
            | ArgKind::Shared(_)
            | ArgKind::DynShared(_) => None,
        }
    }
}

/// The words an output passes after its pointer and length, and the host type that carries
/// them (`Rows::new`, `Pairs::new`, `Wave::new` check them).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Words {
    /// None: the host passes a `&mut DeviceBuffer<T>`.
    None,
    /// A row width and a pitch (`Rows`).
    Rows,
    /// A pairs' distance (`Pairs`).
    Pairs,
    /// A row width and a wave (`Wave`).
    Wave,
}

impl Words {
    /// The host type (in `oxide::host`) and its accessors of the words, in order.
    pub fn host(self) -> Option<(&'static str, &'static [&'static str])> {
        match self {
            Words::None => None,
            Words::Rows => Some(("Rows", &["width", "pitch"])),
            Words::Pairs => Some(("Pairs", &["distance"])),
            Words::Wave => Some(("Wave", &["width", "wave"])),
        }
    }
}

impl ArgKind {
    /// The type `#[kernel]` takes an argument of this kind, written `ty`, to be: the launcher
    /// and the emulator are built for it, so the kernel checks that `ty` is it (a type alias or
    /// a `use ... as` of another type under an output's name then does not compile). `None`
    /// where what the argument is follows from its type anyway (slices, atomics through
    /// `AtomicElem`, by-value arguments through `DeviceData`).
    pub fn expected_type(&self, ty: &Type) -> Option<proc_macro2::TokenStream> {
        match self {
            ArgKind::Disjoint { .. } => {
                let Type::Path(p) = ty else { return None };
                let last = p.path.segments.last()?;
                let name = &last.ident;
                let PathArguments::AngleBracketed(a) = &last.arguments else {
                    return None;
                };
                let args = a
                    .args
                    .iter()
                    .filter(|a| !matches!(a, GenericArgument::Lifetime(_)));
                Some(quote::quote_spanned!(ty.span()=> ::oxide::#name<'_, #(#args),*>))
            }
            ArgKind::Shared(array) => Some(quote::quote_spanned! {ty.span()=>
                ::oxide::shared::Shared<'_, #array>
            }),
            ArgKind::DynShared(elem) => Some(quote::quote_spanned! {ty.span()=>
                ::oxide::shared::DynShared<'_, #elem>
            }),
            ArgKind::Slice(_) | ArgKind::Value(_) | ArgKind::Atomics { .. } => None,
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
                if names_an_atomic(&s.elem) {
                    Ok(ArgKind::Atomics {
                        atomic: s.elem.clone(),
                    })
                } else {
                    Ok(ArgKind::Slice((*s.elem).clone()))
                }
            }
            (Type::Slice(_), Some(_)) => Err(syn::Error::new(
                ty.span(),
                "`&mut [T]` would let every thread write every element; take a \
                 `DisjointSlice<T>` to write",
            )),
            _ => Err(host_pointer(ty)),
        },
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last();
            match last {
                Some(seg) if OUTPUTS.contains(&seg.ident.to_string().as_str()) => {
                    let words = match seg.ident.to_string().as_str() {
                        "DisjointRows" | "WarpRows" | "BlockTiles" => Words::Rows,
                        "DisjointPairs" => Words::Pairs,
                        "WaveTiles" => Words::Wave,
                        _ => Words::None,
                    };
                    let elem = output_element(seg)?;
                    Ok(ArgKind::Disjoint {
                        elem: Box::new(elem),
                        ty: Box::new(ty.clone()),
                        words,
                    })
                }
                Some(seg) if seg.ident == "Shared" => shared_array(seg),
                Some(seg) if seg.ident == "DynShared" => match shared_array(seg) {
                    Ok(ArgKind::Shared(elem)) => Ok(ArgKind::DynShared(elem)),
                    _ => Err(syn::Error::new(
                        seg.span(),
                        "expected `DynShared<T>` with its element type, e.g. `DynShared<f32>`",
                    )),
                },
                _ => Ok(ArgKind::Value(ty.clone())),
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

/// Whether `ty` is named like an atomic of `core::sync::atomic` or `oxide::atomic` (`AtomicU64`,
/// `core::sync::atomic::AtomicU64`, `AtomicF32`...). Only the name: the launcher's buffer type
/// comes from `oxide::atomic::AtomicElem`, which only the real atomics implement, so an alias
/// of another type by such a name does not compile.
fn names_an_atomic(ty: &Type) -> bool {
    let Type::Path(p) = ty else { return false };
    let Some(last) = p.path.segments.last() else {
        return false;
    };
    last.arguments.is_none()
        && p.qself.is_none()
        && [
            "AtomicU32",
            "AtomicI32",
            "AtomicU64",
            "AtomicI64",
            "AtomicUsize",
            "AtomicIsize",
            "AtomicF32",
            "AtomicF64",
        ]
        .contains(&last.ident.to_string().as_str())
}

/// The output types of `oxide::outputs` (and `DisjointSlice`), by name.
const OUTPUTS: [&str; 8] = [
    "DisjointSlice",
    "DisjointChunks",
    "DisjointRows",
    "WarpRows",
    "BlockTiles",
    "DisjointPairs",
    "BlockWindows",
    "WaveTiles",
];

/// `DisjointSlice<T>`, `DisjointSlice<'_, T>`, `DisjointChunks<T, 4>`...: its element type, the
/// first type argument (what follows are the shape's constants).
fn output_element(seg: &PathSegment) -> syn::Result<Type> {
    let name = &seg.ident;
    let expected = || {
        syn::Error::new(
            seg.span(),
            format!("expected `{name}<T>` (or `{name}<'_, T>`) with its element type first"),
        )
    };
    let PathArguments::AngleBracketed(a) = &seg.arguments else {
        return Err(expected());
    };
    let mut elem = None;
    for arg in &a.args {
        match arg {
            GenericArgument::Lifetime(l) if l.ident == "_" && elem.is_none() => {}
            GenericArgument::Lifetime(l) => return Err(launch_lifetime(l)),
            GenericArgument::Type(t) if elem.is_none() => elem = Some(t.clone()),
            // A shape's constants (`DisjointChunks<T, 4>`), after the element type.
            GenericArgument::Const(_) if elem.is_some() && name != "DisjointSlice" => {}
            GenericArgument::Type(syn::Type::Path(_))
                if elem.is_some() && name != "DisjointSlice" => {}
            _ => return Err(expected()),
        }
    }
    elem.ok_or_else(expected)
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
/// field, an `Option<&T>`) is rejected by the `oxide::DeviceData` bound the launcher and the
/// emulator put on every by-value type.
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
