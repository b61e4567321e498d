//! The host launcher of a kernel: `load`, `launch` and `launch_unchecked`, each argument taken
//! as `impl oxide::host::LaunchArg<K>` for its key `K`.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Generics, Ident, ItemFn, LitStr, WherePredicate, parse_quote_spanned};

use super::{Kernel, Names};

impl Kernel {
    pub(super) fn launcher(
        &self,
        func: &ItemFn,
        names: &Names,
        entry: &str,
    ) -> syn::Result<TokenStream> {
        let kernel_name = &names.kernel_name;
        // What the backend names the kernel's PTX entry (docs/contracts.md).
        let ptx_entry = LitStr::new(&oxide_contract::kernel_entry(entry), Span::call_site());
        let crate_name = crate::crate_name()?;
        let ptx_symbol = LitStr::new(
            &oxide_contract::ptx_image_symbol(&crate_name),
            Span::call_site(),
        );
        let crate_name = LitStr::new(&crate_name, Span::call_site());

        // Mixed-site names cannot collide with the kernel's own argument names.
        let local = |n: &str| Ident::new(n, Span::mixed_site());
        let (gpu, cfg, module, function, launch) = (
            local("gpu"),
            local("cfg"),
            local("module"),
            local("function"),
            local("launch"),
        );

        let mut params = Vec::new();
        let mut takes = Vec::new();
        let mut pushes = Vec::new();
        for passed in self.passed() {
            let (arg, key) = (passed.name, &passed.key);
            if let Some(elem) = passed.dynamic_shared {
                // The length, in elements: the kernel makes its array from it, and the launch's
                // dynamic shared memory is sized by it.
                params.push(quote!(#arg: usize));
                takes.push(quote! {
                    let #cfg = ::oxide::__private::with_dynamic_shared::<#elem>(#cfg, #arg)?;
                });
            } else if self.required(arg) {
                let ty = passed.ty;
                params.push(quote_spanned! {passed.ty.span()=> #arg: #ty});
            } else {
                params.push(quote_spanned! {passed.ty.span()=>
                    #arg: impl ::oxide::host::LaunchArg<#key>
                });
            }
            // The driver reads each parameter from where it is: the argument stays in place
            // until the launch is queued.
            takes.push(quote!(let mut #arg = #arg;));
            pushes.push(quote!(#launch.push::<#key>(&mut #arg);));
        }

        let options = crate::options_tokens(&self.options);
        let contract_check = quote! {
            ::oxide::__private::check_launch(#gpu, #kernel_name, &#cfg, &#options)?;
        };
        let length_check = self.length_checks(
            |n| quote!(::oxide::host::LaunchArg::elements(&#n)),
            [quote!(same_len), quote!(covers)],
            quote!(&#cfg),
        );
        let required = self.requires_checks(
            quote!(requires),
            &|key| quote!(::oxide::host::LaunchArg::<#key>),
        );
        let ptx = quote! {
            ::oxide::host::load_module(
                #gpu,
                ::oxide::__embedded_ptx!(#ptx_symbol),
                #crate_name,
            )?
        };
        let (_, kernel_args, _) = func.sig.generics.split_for_impl();
        let turbofish = kernel_args.as_turbofish();
        let (load_body, get_function) = if self.is_generic() {
            let wrapper = format_ident!("{}", names.marker);
            let arg_types = self.launch_arg_types();
            let fn_type = self.fn_type_keyword();
            let type_params = &self.type_params;
            let load_body = quote! {
                let _ = #ptx;
                ::core::result::Result::Ok(())
            };
            let get_function = quote! {
                // Makes this instance of the kernel a mono item of the crate: the backend
                // compiles the instances it finds there.
                let _ = ::core::hint::black_box(
                    super::#wrapper #turbofish as #fn_type(#(#arg_types),*)
                );
                let #module = #ptx;
                let #function = ::oxide::__private::generic_function(
                    &#module,
                    #kernel_name,
                    &[#(::core::any::type_name::<#type_params>()),*],
                )?;
            };
            (load_body, get_function)
        } else {
            let load_body = quote! {
                let #module = #ptx;
                #module.function(#ptx_entry).map(drop)
            };
            // One lookup per launch in the Gpu's cache of kernels (a module and its function on
            // the first launch).
            let get_function = quote! {
                let #function = ::oxide::host::kernel_function(
                    #gpu,
                    ::oxide::__embedded_ptx!(#ptx_symbol),
                    #crate_name,
                    #ptx_entry,
                )?;
            };
            (load_body, get_function)
        };

        let generics = self.host_generics(&func.sig.generics);
        let (launch_params, _, launch_where) = generics.split_for_impl();
        let docs = self.launcher_docs(entry);
        let (load_doc, launch_doc, unchecked_doc) = (&docs[0], &docs[1], &docs[2]);
        Ok(quote! {
            #[doc = #load_doc]
            pub fn load(
                #gpu: &::oxide::host::Gpu,
            ) -> ::core::result::Result<(), ::oxide::host::Error> {
                #load_body
            }

            #[doc = #launch_doc]
            #[allow(
                unsafe_code,
                clippy::too_many_arguments,
                clippy::multiple_bound_locations
            )]
            pub fn launch #launch_params (
                #gpu: &::oxide::host::Gpu,
                #cfg: ::oxide::host::LaunchConfig,
                #(#params),*
            ) -> ::core::result::Result<(), ::oxide::host::Error> #launch_where {
                #contract_check
                #required
                #length_check
                #(#takes)*
                #get_function
                let mut #launch = ::oxide::host::Launch::new(#gpu, &#function);
                #(#pushes)*
                // SAFETY: the parameters were pushed from this kernel's own signature, in
                // order, each by its type's `LaunchArg`, and the PTX is the backend's
                // compilation of this same function; the launch contract was checked above.
                unsafe { #launch.launch(#cfg) }
            }

            #[doc = #unchecked_doc]
            #[allow(
                unsafe_code,
                clippy::too_many_arguments,
                clippy::multiple_bound_locations
            )]
            pub unsafe fn launch_unchecked #launch_params (
                #gpu: &::oxide::host::Gpu,
                #cfg: ::oxide::host::LaunchConfig,
                #(#params),*
            ) -> ::core::result::Result<(), ::oxide::host::Error> #launch_where {
                // The lengths are checked here too: the kernel's entry takes `same_len`'s
                // lengths to be equal. So are the `requires` conditions, the arguments' own.
                #required
                #length_check
                #(#takes)*
                #get_function
                let mut #launch = ::oxide::host::Launch::new(#gpu, &#function);
                #(#pushes)*
                // SAFETY: the parameters were pushed from this kernel's own signature, in
                // order, and the PTX is the backend's compilation of this same function;
                // the caller vouches for the launch contract, the lengths were checked above.
                unsafe { #launch.launch(#cfg) }
            }
        })
    }

    /// The checks of `same_len` and `covers`, for the launcher or the emulator: `elements`
    /// gives the expression of an argument's length, `[same, covers]` the `__private` checks.
    /// Each named argument is first checked, at compile time, to have a length
    /// (`oxide::CountedParam`), at the span of its name.
    pub(super) fn length_checks(
        &self,
        elements: impl Fn(&Ident) -> TokenStream,
        [same, covers]: [TokenStream; 2],
        cfg: TokenStream,
    ) -> TokenStream {
        let kernel_name = self.name.to_string().trim_start_matches("r#").to_owned();
        let counted = |n: &Ident| {
            let ty = self
                .args
                .iter()
                .find(|(name, _, _)| name == n)
                .map(|(_, ty, _)| ty);
            ty.map(|ty| {
                quote_spanned! {n.span()=>
                    ::oxide::__private::counted::<#ty>();
                }
            })
        };
        let groups = self.lengths.same_len.iter().map(|group| {
            let names = group.iter().map(|n| n.to_string());
            let counted = group.iter().map(counted);
            let lengths = group.iter().map(&elements);
            quote! {
                #(#counted)*
                ::oxide::__private::#same(#kernel_name, &[#((#names, #lengths)),*])?;
            }
        });
        let covered = self.lengths.covers.iter().map(|n| {
            let name = n.to_string();
            let counted = counted(n);
            let length = elements(n);
            quote! {
                #counted
                ::oxide::__private::#covers(#kernel_name, #cfg, #name, #length)?;
            }
        });
        quote!(#(#groups)* #(#covered)*)
    }

    /// The generics of `launch` and `emulate`: the kernel's, each type parameter `'static` (a
    /// by-value argument crosses to the GPU as its bytes: a closure that borrows host data
    /// would carry host addresses). What each argument needs is the bound of its type's
    /// `LaunchArg`/`EmulatorArg` impl, checked at each instantiation.
    pub(super) fn host_generics(&self, kernel: &Generics) -> Generics {
        let mut generics = kernel.clone();
        for param in generics.type_params_mut() {
            param.eq_token = None;
            param.default = None;
        }
        if !self.is_generic() {
            return generics;
        }
        let bounds: Vec<WherePredicate> = self
            .type_params
            .iter()
            .map(|t| parse_quote_spanned!(t.span()=> #t: 'static))
            .collect();
        generics.make_where_clause().predicates.extend(bounds);
        generics
    }

    /// The docs of `load`, `launch` and `launch_unchecked`.
    fn launcher_docs(&self, entry: &str) -> [String; 3] {
        let generic_doc = if self.is_generic() {
            " One PTX entry per instance: only instances that the kernel's own crate launches \
             are compiled (another crate's launch fails with `Error::KernelNotFound`)."
        } else {
            ""
        };
        let grid_doc = if self.options.grid_1d
            || self.options.block.is_some()
            || self.options.max_threads.is_some()
            || self.options.min_sm.is_some()
        {
            " The kernel's launch contract (`#[kernel(...)]`'s `grid`, `block`, `max_threads`, \
             `sm`) is checked first: a `cfg` that breaks it is an `Error::LaunchShape`, a device \
             older than `sm` an `Error::UnsupportedDevice`, and nothing is launched."
        } else {
            ""
        };
        let load_doc = if self.is_generic() {
            "Loads the crate's PTX on `gpu` now rather than at the first launch, so that \
             `Error::NoPtx` or a PTX the driver rejects shows before any other work."
        } else {
            "Loads the crate's PTX on `gpu` now rather than at the first launch, and looks the \
             kernel up, so that `Error::NoPtx`, a PTX the driver rejects or a missing kernel \
             shows before any other work."
        };
        [
            load_doc.to_owned(),
            format!(
                "Queues the `{entry}` kernel on `gpu`'s stream with shape `cfg` and returns \
                 without waiting for it (`Gpu::dtoh` and `Gpu::synchronize` wait, and report its \
                 failure). Each argument is what `oxide::host::LaunchArg` takes for its \
                 parameter: `&buf` for a `&[T]`, `&mut buf` for an output or an atomic slice, \
                 the value for a value. Fails with `Error::NoPtx` when the crate was built \
                 without the oxide backend.{grid_doc}{generic_doc}"
            ),
            format!(
                "`launch` without the checks of the kernel's launch contract (`#[kernel(...)]`'s \
                 `grid`, `block`, `max_threads` and `sm`, if any); the buffers, and `same_len` \
                 and `covers`, are still checked.\n\n# Safety\n\n`cfg` and the device meet the kernel's launch \
                 contract: the backend compiled `{entry}` assuming them (a `block` shape is \
                 folded into its index arithmetic, so another shape can give two threads one \
                 element)."
            ),
        ]
    }
}
