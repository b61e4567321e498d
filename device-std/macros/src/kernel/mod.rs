//! `#[kernel]`'s checked signature ([`Kernel`]) and what it expands to: the entry the backend
//! compiles (`entry`), the host launcher (`launcher`) and the CPU emulator (`emulator`).

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::spanned::Spanned;
use syn::{FnArg, GenericParam, Ident, ItemFn, LitStr, Pat, ReturnType, Type, Visibility};

mod args;
mod emulator;
mod entry;
mod foreign;
mod launcher;
mod requires;

use crate::Errors;
use crate::options::ArgumentContracts;
use args::ArgKind;
use oxide_contract::KernelOptions;

/// A checked kernel signature.
pub struct Kernel {
    name: Ident,
    options: KernelOptions,
    /// `same_len`/`covers`: checked by `launch`, `launch_unchecked` and `emulate`; the entry
    /// tells the compiler `same_len`'s lengths are equal.
    lengths: ArgumentContracts,
    /// The type parameters, in order (the only generic parameters a kernel may have).
    type_params: Vec<Ident>,
    /// Each argument's name, type as written, and who makes it.
    args: Vec<(Ident, Type, ArgKind)>,
}

/// The names and literals every part of the expansion shares.
struct Names {
    /// The kernel's name as written (`r#` removed): what messages and the emulator call it.
    kernel_name: LitStr,
    /// The backend's marker for the kernel (docs/contracts.md).
    marker: String,
}

impl Kernel {
    pub fn check(
        func: &ItemFn,
        options: KernelOptions,
        lengths: ArgumentContracts,
    ) -> syn::Result<Kernel> {
        let sig = &func.sig;
        let mut errors = Errors::default();
        if !matches!(func.vis, Visibility::Public(_)) {
            let span = match &func.vis {
                Visibility::Inherited => sig.fn_token.span,
                vis => vis.span(),
            };
            errors.add(
                span,
                "a kernel must be `pub`: the host launcher and the backend call it",
            );
        }
        if let Some(t) = &sig.constness {
            errors.add(t.span, "a kernel cannot be `const`");
        }
        if let Some(t) = &sig.asyncness {
            errors.add(t.span, "a kernel cannot be `async`");
        }
        if let Some(t) = &sig.unsafety {
            errors.add(
                t.span,
                "a kernel cannot be `unsafe`: its launch must be safe",
            );
        }
        if let Some(abi) = &sig.abi {
            errors.add(abi.span(), "a kernel uses the Rust ABI: remove `extern`");
        }
        let mut type_params = Vec::new();
        for param in &sig.generics.params {
            match param {
                GenericParam::Type(t) => type_params.push(t.ident.clone()),
                GenericParam::Const(c) => errors.add(
                    c.span(),
                    "a kernel cannot have const generic parameters, only type parameters: its \
                     PTX entries are named after the type arguments; pass the value as an \
                     argument",
                ),
                GenericParam::Lifetime(l) => errors.add(
                    l.span(),
                    "a kernel cannot have lifetime parameters, only type parameters: its slices \
                     borrow device buffers for the launch; write `&[T]` without a lifetime",
                ),
            }
        }
        if let Some(v) = &sig.variadic {
            errors.add(v.span(), "a kernel cannot be variadic");
        }
        if let ReturnType::Type(_, ty) = &sig.output {
            errors.add(
                ty.span(),
                "a kernel returns nothing: write results through a `DisjointSlice`",
            );
        }
        let mut args = Vec::new();
        for input in &sig.inputs {
            match input {
                FnArg::Receiver(r) => {
                    errors.add(r.span(), "a kernel is a free function, not a method");
                }
                FnArg::Typed(arg) => {
                    let name = match &*arg.pat {
                        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                            Some(p.ident.clone())
                        }
                        pat => {
                            errors.add(
                                pat.span(),
                                "a kernel argument must be a plain name (`x` or `mut x`)",
                            );
                            None
                        }
                    };
                    match (name, args::classify(&arg.ty)) {
                        (Some(name), Ok(kind)) => args.push((name, (*arg.ty).clone(), kind)),
                        (_, Err(e)) => errors.push(e),
                        (None, Ok(_)) => {}
                    }
                }
            }
        }
        let kernel = Kernel {
            name: sig.ident.clone(),
            options,
            lengths,
            type_params,
            args,
        };
        // The arguments `same_len` and `covers` name exist and are passed by the launch; that
        // each has a length is the `oxide::CountedParam` bound the launcher checks.
        let named = kernel
            .lengths
            .same_len
            .iter()
            .flatten()
            .chain(&kernel.lengths.covers);
        for name in named {
            match kernel.args.iter().find(|(n, _, _)| n == name) {
                Some((_, _, ArgKind::Launched { .. })) => {}
                Some(_) => errors.add(
                    name.span(),
                    &format!(
                        "`{name}` is shared memory, which the launch does not pass: `same_len` \
                         and `covers` take `&[T]`, atomic slices, `DisjointSlice`, \
                         `DisjointChunks`, `BlockWindows`, `BlockSlots` and `WarpSlots` arguments"
                    ),
                ),
                None => errors.add(name.span(), &format!("the kernel has no argument `{name}`")),
            }
        }
        let dynamic: Vec<&Type> = kernel
            .args
            .iter()
            .filter_map(|(_, ty, kind)| matches!(kind, ArgKind::DynShared(_)).then_some(ty))
            .collect();
        if let [_, second, ..] = dynamic[..] {
            errors.add(
                second.span(),
                "a kernel has at most one `DynShared` array (CUDA's one `extern __shared__` \
                 region): put the others in it, or make them `Shared<[T; N]>`",
            );
        }
        for (_, _, kind) in &kernel.args {
            if let ArgKind::Shared(array) | ArgKind::DynShared(array) = kind
                && kernel.mentions_type_param(array)
            {
                errors.add(
                    array.span(),
                    "a kernel's shared memory is sized and typed once for all its instances: \
                     its type cannot name the kernel's type parameters",
                );
            }
        }
        errors.finish()?;
        Ok(kernel)
    }

    pub fn expand(&self, func: &ItemFn) -> TokenStream {
        let entry = self.name.to_string().trim_start_matches("r#").to_owned();
        let names = Names {
            kernel_name: LitStr::new(&entry, Span::call_site()),
            marker: oxide_contract::kernel_marker(&entry, &self.options),
        };
        // The user's function, and for a generic kernel the wrapper the backend compiles.
        let kernel_item = if self.is_generic() {
            self.generic_wrapper(func, &names.marker)
        } else {
            self.marker_const(func, &names.marker)
        };
        let argument_check = self.argument_type_check(func);
        let launcher = match self.launcher(func, &names, &entry) {
            Ok(launcher) => launcher,
            Err(e) => return e.to_compile_error(),
        };
        let emulator = self.emulator(func, &names, &entry);
        let foreign = self.foreign(&entry);
        let vis = &func.vis;
        let name = &self.name;
        let mod_doc = format!("Host side of the `{entry}` kernel.");
        quote! {
            #kernel_item
            #argument_check

            #[doc = #mod_doc]
            #vis mod #name {
                #[allow(unused_imports)]
                use super::*;

                #launcher
                #emulator
                #foreign
            }
        }
    }

    fn is_generic(&self) -> bool {
        !self.type_params.is_empty()
    }

    /// Whether the launch enters an `unsafe` entry rather than the user's function: one that
    /// makes the shared arrays, or tells the compiler what `same_len` checked.
    fn needs_entry(&self) -> bool {
        self.has_shared() || !self.lengths.same_len.is_empty()
    }

    fn has_shared(&self) -> bool {
        self.args
            .iter()
            .any(|(_, _, kind)| matches!(kind, ArgKind::Shared(_) | ArgKind::DynShared(_)))
    }

    /// The types of the parameters of the function a launch enters: the arguments but the
    /// shared arrays, a dynamic one's length (`usize`) in its place.
    fn launch_arg_types(&self) -> impl Iterator<Item = Type> + '_ {
        self.launched_args().map(|(_, ty)| ty)
    }

    /// The parameters of the function a launch enters, as `(name, type)`.
    fn launched_args(&self) -> impl Iterator<Item = (&Ident, Type)> + '_ {
        self.args.iter().filter_map(|(name, ty, kind)| match kind {
            ArgKind::Shared(_) => None,
            ArgKind::DynShared(_) => Some((name, syn::parse_quote!(usize))),
            ArgKind::Launched { .. } => Some((name, ty.clone())),
        })
    }

    /// What the host passes, in the kernel's order: each argument's name, its type's span, and
    /// its key (`oxide::ParamKey`); a `DynShared` passes its length, keyed `fn(usize)`, and its
    /// element type.
    fn passed(&self) -> impl Iterator<Item = Passed<'_>> + '_ {
        self.args.iter().filter_map(|(name, ty, kind)| match kind {
            ArgKind::Shared(_) => None,
            ArgKind::DynShared(elem) => Some(Passed {
                name,
                ty,
                key: quote!(fn(usize)),
                dynamic_shared: Some(elem),
            }),
            ArgKind::Launched { key } => Some(Passed {
                name,
                ty,
                key: key.clone(),
                dynamic_shared: None,
            }),
        })
    }

    /// The key of the passed argument `name` (what its `LaunchArg`/`ThreadArg` is keyed by);
    /// nothing for a name that is not one.
    fn key_of(&self, name: &Ident) -> TokenStream {
        self.passed()
            .find(|p| p.name == name)
            .map(|p| p.key)
            .unwrap_or_default()
    }

    /// `fn`, or `unsafe fn` for a kernel with an entry of its own ([`Self::needs_entry`]).
    fn fn_type_keyword(&self) -> TokenStream {
        if self.needs_entry() {
            quote!(unsafe fn)
        } else {
            quote!(fn)
        }
    }

    /// Whether `ty` names one of the kernel's type parameters (then what it must be is checked
    /// at each instantiation, not once at the definition).
    fn mentions_type_param(&self, ty: &Type) -> bool {
        fn mentions(tokens: TokenStream, params: &[Ident]) -> bool {
            tokens.into_iter().any(|t| match t {
                TokenTree::Ident(i) => params.contains(&i),
                TokenTree::Group(g) => mentions(g.stream(), params),
                _ => false,
            })
        }
        mentions(ty.to_token_stream(), &self.type_params)
    }
}

/// One argument the host passes.
struct Passed<'k> {
    name: &'k Ident,
    /// The type as written (for spans).
    ty: &'k Type,
    key: TokenStream,
    /// A `DynShared`'s element type: the argument is its length.
    dynamic_shared: Option<&'k Type>,
}
