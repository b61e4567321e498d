//! `#[kernel]`: marks a `pub fn` as a GPU kernel (see docs/contracts.md).
//!
//! In: a free, non-generic `pub fn` returning nothing, whose arguments are plain names.
//! Out: the same function with `#[unsafe(export_name = "__oxide_kernel__<name>")]` (how the
//! backend finds kernels; the function stays callable on the host), and a module `<name>` with
//! a typed host launcher `<name>::launch(gpu, cfg, args...)` and the CPU emulator
//! `<name>::emulate(&cfg, args...)`.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, Ident, ItemFn, LitStr, Pat, ReturnType, Visibility};

mod args;

use args::ArgKind;

/// Marks a `pub fn` as a GPU kernel and generates its host launcher `<name>::launch` and its
/// CPU emulator `<name>::emulate`.
///
/// Argument types and what the launcher takes for them:
/// `&[T]` → `&oxide::host::DeviceBuffer<T>`; `DisjointSlice<T>` →
/// `&mut oxide::host::DeviceBuffer<T>`; any other `T: Copy` → `T`.
///
/// What the emulator takes for them: `&[T]` → `&[T]` (`T: Sync`); `DisjointSlice<T>` →
/// `&mut [T]` (`T: Send`); any other `T: Copy` → `T` (`T: Sync`).
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = TokenStream2::from(item);
    match expand(attr.into(), item.clone()) {
        Ok(out) => out.into(),
        // Keep the item so its other uses do not add errors of their own.
        Err(e) => {
            let e = e.to_compile_error();
            quote!(#e #item).into()
        }
    }
}

fn expand(attr: TokenStream2, item: TokenStream2) -> syn::Result<TokenStream2> {
    if !attr.is_empty() {
        return Err(syn::Error::new_spanned(
            attr,
            "`#[kernel]` takes no arguments",
        ));
    }
    let func: ItemFn = syn::parse2(item)
        .map_err(|e| syn::Error::new(e.span(), "`#[kernel]` goes on a free `pub fn`"))?;
    let kernel = Kernel::check(&func)?;
    Ok(kernel.expand(&func))
}

/// A checked kernel signature.
struct Kernel {
    name: Ident,
    args: Vec<(Ident, ArgKind)>,
}

impl Kernel {
    fn check(func: &ItemFn) -> syn::Result<Kernel> {
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
        if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
            errors.add(
                sig.generics.span(),
                "a kernel cannot be generic: the backend compiles one PTX entry per kernel",
            );
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
                        (Some(name), Ok(kind)) => args.push((name, kind)),
                        (_, Err(e)) => errors.push(e),
                        (None, Ok(_)) => {}
                    }
                }
            }
        }
        errors.finish()?;
        Ok(Kernel {
            name: sig.ident.clone(),
            args,
        })
    }

    fn expand(&self, func: &ItemFn) -> TokenStream2 {
        let name = &self.name;
        let entry = name.to_string().trim_start_matches("r#").to_owned();
        let export = LitStr::new(&format!("__oxide_kernel__{entry}"), Span::call_site());
        let kernel_name = LitStr::new(&entry, Span::call_site());
        let (crate_name, ptx_symbol) = match crate_name() {
            Ok(c) => (
                LitStr::new(&c, Span::call_site()),
                LitStr::new(&format!("__oxide_ptx_{c}"), Span::call_site()),
            ),
            Err(e) => return e.to_compile_error(),
        };

        // Mixed-site names cannot collide with the kernel's own argument names.
        let local = |n: &str| Ident::new(n, Span::mixed_site());
        let (gpu, cfg, module, function, launch) = (
            local("gpu"),
            local("cfg"),
            local("module"),
            local("function"),
            local("launch"),
        );

        // Helpers whose bounds state what the arguments need, reported at the argument's type.
        let copy = local("kernel_arguments_passed_by_value_must_be_copy");
        let sync = local("emulated_kernel_shared_arguments_must_be_sync");
        let send = local("emulated_kernel_output_elements_must_be_send");
        let mut params = Vec::new();
        let mut pushes = Vec::new();
        // The emulator: its parameters, what it does before `run`, what each emulated thread
        // does before calling the kernel, and the kernel's arguments.
        let mut emu_params = Vec::new();
        let mut emu_shared = Vec::new();
        let mut emu_thread = Vec::new();
        let mut emu_args = Vec::new();
        let (mut uses_copy, mut uses_sync, mut uses_send) = (false, false, false);
        for (arg, kind) in &self.args {
            match kind {
                ArgKind::Slice(elem) => {
                    params.push(quote!(#arg: &::oxide::host::DeviceBuffer<#elem>));
                    pushes.push(quote!(#launch.push(#arg);));
                    emu_params.push(quote!(#arg: &[#elem]));
                    // Every emulated thread reads the slice: `T: Sync`.
                    emu_shared.push(quote_spanned! {elem.span()=>
                        let #arg = #sync::<[#elem]>(#arg);
                    });
                    emu_args.push(quote!(#arg.get()));
                    uses_sync = true;
                }
                ArgKind::Disjoint(elem) => {
                    params.push(quote!(#arg: &mut ::oxide::host::DeviceBuffer<#elem>));
                    pushes.push(quote!(#launch.push(#arg);));
                    emu_params.push(quote!(#arg: &mut [#elem]));
                    // The emulated threads write the elements: `T: Send`.
                    emu_shared.push(quote_spanned! {elem.span()=>
                        let #arg = #send::<#elem>(#arg);
                    });
                    uses_send = true;
                    // SAFETY (not emitted: quote drops comments; see "Soundness" in the docs of
                    // `oxide::emulate`): `#arg` borrows the caller's `&mut [T]` until `run`
                    // returns, after every emulated thread has ended, so the memory is valid and
                    // only the kernel touches it; every thread gets the same pointer and length;
                    // `run` gives the threads that run at once distinct indices, which they
                    // cannot change nor pass between OS threads, so through `get_mut` no two
                    // threads reach one element; the elements are `Send`.
                    emu_thread.push(quote! {
                        let #arg = unsafe {
                            ::oxide::DisjointSlice::from_raw_parts(#arg.ptr(), #arg.len())
                        };
                    });
                    emu_args.push(quote!(#arg));
                }
                ArgKind::Value(ty) => {
                    params.push(quote!(#arg: #ty));
                    pushes.push(quote!(#launch.push(::oxide::host::ByValue(&#arg));));
                    emu_params.push(quote!(#arg: #ty));
                    // Every emulated thread copies the value: `T: Sync`.
                    emu_shared.push(quote_spanned! {ty.span()=> let #arg = #sync::<#ty>(&#arg);});
                    // By-value arguments are copied byte for byte to the GPU, and here to every
                    // emulated thread: they must be `Copy`. Spanned at the type, so that a
                    // non-`Copy` type is reported where it is written.
                    emu_args.push(quote_spanned! {ty.span()=> #copy::<#ty>(#arg.get())});
                    uses_copy = true;
                    uses_sync = true;
                }
            }
        }
        let copy_helper = uses_copy.then(|| {
            quote! {
                #[inline(always)]
                fn #copy<T: ::core::marker::Copy>(value: &T) -> T {
                    *value
                }
            }
        });
        let sync_helper = uses_sync.then(|| {
            quote! {
                #[inline(always)]
                fn #sync<T: ?::core::marker::Sized + ::core::marker::Sync>(
                    value: &T,
                ) -> ::oxide::emulate::Shared<'_, T> {
                    ::oxide::emulate::Shared::new(value)
                }
            }
        });
        let send_helper = uses_send.then(|| {
            quote! {
                #[inline(always)]
                fn #send<T: ::core::marker::Send>(
                    slice: &mut [T],
                ) -> ::oxide::emulate::RawSlice<'_, T> {
                    ::oxide::emulate::RawSlice::new(slice)
                }
            }
        });
        let vis = &func.vis;
        let attrs = &func.attrs;
        let sig = &func.sig;
        let block = &func.block;
        let mod_doc = format!("Host side of the `{entry}` kernel.");
        let launch_doc = format!(
            "Queues the `{entry}` kernel on `gpu`'s stream with shape `cfg` and returns without \
             waiting for it (`Gpu::dtoh` and `Gpu::synchronize` wait). Fails with \
             `Error::NoPtx` when the crate was built without the oxide backend."
        );
        let emulate_doc = format!(
            "Runs the `{entry}` kernel on the CPU over the grid `cfg`, every GPU thread of a \
             block being an OS thread, and waits for it (see `oxide::emulate`). `&[T]` \
             arguments are shared, a `DisjointSlice<T>` argument writes the `&mut [T]` given \
             here, other arguments are copied to every thread. Fails with the first thread's \
             panic, a `sync_threads()` that not every thread reaches, or a bad launch shape."
        );
        quote! {
            #(#attrs)*
            #[unsafe(export_name = #export)]
            #vis #sig #block

            #[doc = #mod_doc]
            #vis mod #name {
                #[allow(unused_imports)]
                use super::*;

                #copy_helper
                #sync_helper
                #send_helper

                /// Loads the crate's PTX on `gpu` now rather than at the first launch, so that
                /// `Error::NoPtx` or a PTX the driver rejects shows before any other work.
                pub fn load(
                    #gpu: &::oxide::host::Gpu,
                ) -> ::core::result::Result<(), ::oxide::host::Error> {
                    let #module = ::oxide::host::load_module(
                        #gpu,
                        ::oxide::__embedded_ptx!(#ptx_symbol),
                        #crate_name,
                    )?;
                    #module.function(#kernel_name).map(drop)
                }

                #[doc = #launch_doc]
                #[allow(unsafe_code, clippy::too_many_arguments)]
                pub fn launch(
                    #gpu: &::oxide::host::Gpu,
                    #cfg: ::oxide::host::LaunchConfig,
                    #(#params),*
                ) -> ::core::result::Result<(), ::oxide::host::Error> {
                    let #module = ::oxide::host::load_module(
                        #gpu,
                        ::oxide::__embedded_ptx!(#ptx_symbol),
                        #crate_name,
                    )?;
                    let #function = #module.function(#kernel_name)?;
                    let mut #launch = ::oxide::host::Launch::new(#gpu, &#function);
                    #(#pushes)*
                    // SAFETY: the parameters were pushed from this kernel's own signature, in
                    // order, and the PTX is the backend's compilation of this same function.
                    unsafe { #launch.launch(#cfg) }
                }

                #[doc = #emulate_doc]
                #[allow(unsafe_code, clippy::too_many_arguments)]
                pub fn emulate(
                    #cfg: &::oxide::host::LaunchConfig,
                    #(#emu_params),*
                ) -> ::core::result::Result<(), ::oxide::emulate::KernelFailure> {
                    #(#emu_shared)*
                    ::oxide::emulate::run(#kernel_name, #cfg, || {
                        #(#emu_thread)*
                        super::#name(#(#emu_args),*)
                    })
                }
            }
        }
    }
}

/// The crate being compiled, as rustc names it (`-` becomes `_`); the backend names the PTX
/// symbol after it.
fn crate_name() -> syn::Result<String> {
    std::env::var("CARGO_CRATE_NAME")
        .or_else(|_| std::env::var("CARGO_PKG_NAME").map(|n| n.replace('-', "_")))
        .map_err(|_| {
            syn::Error::new(
                Span::call_site(),
                "`#[kernel]` must be compiled by cargo (CARGO_CRATE_NAME is not set)",
            )
        })
}

/// Collects every problem of a signature so one build reports them all.
#[derive(Default)]
struct Errors(Option<syn::Error>);

impl Errors {
    fn add(&mut self, span: Span, message: &str) {
        self.push(syn::Error::new(span, message));
    }

    fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}
