//! The CPU emulator of a kernel, `emulate`: each argument taken as
//! `impl oxide::emulate::EmulatorArg<'_, K>` for its key `K`, shared once before the run, and
//! made into each emulated thread's own argument.

use proc_macro2::{Span, TokenStream};
use quote::quote_spanned;
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::{Ident, ItemFn, Lifetime, LifetimeParam};

use super::{Kernel, Names};

impl Kernel {
    pub(super) fn emulator(&self, func: &ItemFn, names: &Names, entry: &str) -> TokenStream {
        let kernel_name = &names.kernel_name;
        let name = &self.name;
        let local = |n: &str| Ident::new(n, Span::mixed_site());
        let cfg = local("cfg");
        // The run: every argument is borrowed for it.
        let run = Lifetime::new("'__oxide_run", Span::mixed_site());

        let mut params = Vec::new();
        let mut shares = Vec::new();
        let mut threads = Vec::new();
        let (mut values, mut rebinds) = (Vec::new(), Vec::new());
        let required_value =
            |arg: &Ident| format_ident!("__oxide_required_{}", arg, span = Span::mixed_site());
        for passed in self.passed() {
            let (arg, key) = (passed.name, &passed.key);
            if let Some(elem) = passed.dynamic_shared {
                params.push(quote!(#arg: usize));
                shares.push(quote! {
                    let #cfg = &::oxide::__private::emulate_with_dynamic_shared::<#elem>(
                        #kernel_name, #cfg, #arg,
                    )?;
                });
            } else if self.required(arg) {
                let ty = passed.ty;
                params.push(quote_spanned! {passed.ty.span()=> #arg: #ty});
                // The `requires` checks run after `share` (they measure lengths as the threads
                // get them) on the values as passed.
                let value = required_value(arg);
                values.push(quote!(let #value = #arg;));
                rebinds.push(quote!(let #arg = #value;));
            } else {
                params.push(quote_spanned! {passed.ty.span()=>
                    #arg: impl ::oxide::emulate::EmulatorArg<#run, #key>
                });
            }
            shares.push(quote! {
                let #arg = ::oxide::emulate::EmulatorArg::<#run, #key>::share(#arg);
            });
            // SAFETY (quote drops comments): `run` calls this closure on the threads of this
            // run only, after `share` borrowed the argument for it.
            threads.push(quote! {
                let #arg = unsafe { ::oxide::emulate::ThreadArg::<#run, #key>::param(&#arg) };
            });
        }
        let call_args = self.args.iter().filter_map(|(arg, _, kind)| match kind {
            super::args::ArgKind::Shared(_) => None,
            _ => Some(arg),
        });
        let (_, kernel_args, _) = func.sig.generics.split_for_impl();
        let turbofish = kernel_args.as_turbofish();
        // A kernel with shared memory is `unsafe` to call: only a launch may enter it (one view
        // of each shared array per thread); the emulator's run is one.
        let call = if self.needs_entry() {
            quote!(unsafe { super::#name #turbofish (#(#call_args),*) })
        } else {
            quote!(super::#name #turbofish (#(#call_args),*))
        };

        let options = crate::options_tokens(&self.options);
        let contract_check = quote! {
            ::oxide::__private::emulate_check_launch(#kernel_name, #cfg, &#options)?;
        };
        // The lengths are those of what the threads get, measured after `share` (a caller's
        // `AsRef` could report one length and `AsMut` give another): the kernel's entry takes
        // `same_len`'s lengths to be equal.
        let length_check = self.length_checks(
            |n| {
                let key = self.key_of(n);
                quote!(::oxide::emulate::ThreadArg::<#run, #key>::elements(&#n))
            },
            [quote!(emulate_same_len), quote!(emulate_covers)],
            quote!(#cfg),
        );
        let required = self.requires_checks(
            quote!(emulate_requires),
            &|key| quote!(::oxide::emulate::ThreadArg::<#run, #key>),
        );
        let mut generics = self.host_generics(&func.sig.generics);
        generics
            .params
            .insert(0, LifetimeParam::new(run.clone()).into());
        let (emu_params, _, emu_where) = generics.split_for_impl();
        let doc = format!(
            "Runs the `{entry}` kernel on the CPU over the grid `cfg`, every GPU thread of a \
             block being an OS thread, and waits for it (see `oxide::emulate`). Each argument is \
             what `oxide::emulate::EmulatorArg` takes for its parameter: `&v` for a `&[T]`, \
             `&mut v` for an output or an atomic slice, the value for a value. Fails with the \
             first thread's panic, a `sync_threads()` that not every thread reaches, or a bad \
             launch shape."
        );
        quote! {
            #[doc = #doc]
            #[allow(
                unsafe_code,
                clippy::too_many_arguments,
                clippy::multiple_bound_locations
            )]
            pub fn emulate #emu_params (
                #cfg: &::oxide::host::LaunchConfig,
                #(#params),*
            ) -> ::core::result::Result<(), ::oxide::emulate::KernelFailure> #emu_where {
                #contract_check
                #(#values)*
                #(#shares)*
                {
                    #(#rebinds)*
                    #required
                }
                #length_check
                ::oxide::emulate::run(#kernel_name, #cfg, || {
                    #(#threads)*
                    #call
                })
            }
        }
    }
}
