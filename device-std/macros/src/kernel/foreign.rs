//! The kernel as another language calls it: `__SIGNATURE` (its name, parameters and launch
//! contract) and `__foreign`, which reads each argument through the caller's `ForeignArg` for
//! its key, lets the caller check them together, and launches through the kernel's own
//! `launch` (oxide-host's module `foreign`, oxide-python). Both are written for every
//! non-generic kernel; `__foreign` is generic over the caller, so its bounds are checked only
//! where a crate exports the kernel (`oxide::python_module!`). A `DynShared` array is passed as
//! the launch takes it: its element count, keyed `fn(usize)`, which the kernel's `launch` turns
//! into the launch's dynamic shared memory and checks against the device's limit.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::{Ident, LitStr};

use super::Kernel;

impl Kernel {
    pub(super) fn foreign(&self, entry: &str) -> TokenStream {
        if self.is_generic() {
            return TokenStream::new();
        }
        let call = Ident::new("call", Span::mixed_site());
        let caller = Ident::new("C", Span::mixed_site());
        let passed: Vec<_> = self.passed().collect();
        // A `DynShared` array's element count goes through `ForeignCall`'s own methods: the
        // launch takes it as a `usize`, not as a `LaunchArg`.
        let keys: Vec<Option<&TokenStream>> = passed
            .iter()
            .map(|p| p.dynamic_shared.is_none().then_some(&p.key))
            .collect();
        let describe = keys.iter().enumerate().map(|(i, key)| match key {
            Some(key) => quote! {
                <#caller as ::oxide::host::ForeignArg<#key>>::describe(#call, #i)?;
            },
            None => quote! {
                ::oxide::host::ForeignCall::describe_shared_len(#call, #i)?;
            },
        });
        // An argument a `requires` condition names is the kernel's own type in `launch`: the
        // caller's value for it must become one (a by-value parameter's only `LaunchArg` is the
        // type itself, so every caller's is that type).
        let args = keys
            .iter()
            .zip(&passed)
            .enumerate()
            .map(|(i, (key, p))| match key {
                Some(key) if self.required(p.name) => {
                    let ty = p.ty;
                    quote! {
                        ::core::convert::Into::<#ty>::into(
                            <#caller as ::oxide::host::ForeignArg<#key>>::arg(#call, #i)?
                        )
                    }
                }
                Some(key) => quote!(<#caller as ::oxide::host::ForeignArg<#key>>::arg(#call, #i)?),
                None => quote!(::oxide::host::ForeignCall::shared_len(#call, #i)?),
            });
        let into_required = keys.iter().zip(&passed).filter_map(|(key, p)| {
            let key = (*key)?;
            let ty = p.ty;
            self.required(p.name).then(|| {
                quote! {
                    for<'c> <#caller as ::oxide::host::ForeignArg<#key>>::Arg<'c>:
                        ::core::convert::Into<#ty>,
                }
            })
        });
        let params = passed.iter().map(|p| {
            let name = p.name.to_string();
            let name = name.trim_start_matches("r#");
            let ty = LitStr::new(&type_text(p.ty), Span::call_site());
            quote!(::oxide::host::ForeignParam { name: #name, ty: #ty })
        });
        let same_len = self.lengths.same_len.iter().map(|group| {
            let names = group.iter().map(|n| n.to_string());
            quote!(&[#(#names),*])
        });
        // One bound per key: two equal higher-ranked bounds (`fn(DisjointSlice<u32>)` twice)
        // are two candidates, which leaves the call ambiguous.
        let mut bounds: Vec<&TokenStream> = Vec::new();
        for key in keys.iter().flatten() {
            if !bounds.iter().any(|b| b.to_string() == key.to_string()) {
                bounds.push(key);
            }
        }
        let options = crate::options_tokens(&self.options);
        let kernel_name = LitStr::new(entry, Span::call_site());
        quote! {
            /// What a caller from another language needs of this kernel (oxide-python).
            #[doc(hidden)]
            pub const __SIGNATURE: ::oxide::host::ForeignSignature =
                ::oxide::host::ForeignSignature {
                    name: #kernel_name,
                    params: &[#(#params),*],
                    options: #options,
                    same_len: &[#(#same_len),*],
                };

            /// The kernel launched by a caller from another language: each argument described
            /// and checked by the caller, then all together, then `launch`.
            #[doc(hidden)]
            pub fn __foreign<#caller>(
                #call: &mut #caller,
            ) -> ::core::result::Result<(), <#caller as ::oxide::host::ForeignCall>::Error>
            where
                #caller: ::oxide::host::ForeignCall #(+ ::oxide::host::ForeignArg<#bounds>)*,
                #(#into_required)*
            {
                #(#describe)*
                ::oxide::host::ForeignCall::prepare(#call)?;
                let #call = &*#call;
                launch(
                    ::oxide::host::ForeignCall::gpu(#call)?,
                    ::oxide::host::ForeignCall::config(#call)?,
                    #(#args),*
                )?;
                ::core::result::Result::Ok(())
            }
        }
    }
}

/// A type as its author would write it: `&[f32]`, `DisjointSlice<f32>`, `(u32, f32)`.
fn type_text(ty: &syn::Type) -> String {
    ty.to_token_stream()
        .to_string()
        .replace(' ', "")
        .replace(',', ", ")
}

#[cfg(test)]
mod tests {
    use super::type_text;

    #[test]
    fn types_read_as_written() {
        let text = |s: &str| type_text(&syn::parse_str(s).unwrap());
        assert_eq!(text("& [f32]"), "&[f32]");
        assert_eq!(text("DisjointSlice < f32 >"), "DisjointSlice<f32>");
        assert_eq!(text("DisjointChunks<f32,4>"), "DisjointChunks<f32, 4>");
        assert_eq!(text("&[AtomicU32]"), "&[AtomicU32]");
    }
}
