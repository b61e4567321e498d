//! What the backend compiles: the user's function (with, for a kernel with shared memory, the
//! entry that makes each shared array), the item the backend finds it by, and the compile-time
//! checks of the arguments' types.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, ItemFn, Type, Visibility, parse_quote_spanned};

use super::Kernel;
use super::args::ArgKind;

impl Kernel {
    /// The user's function, unchanged, and `#[doc(hidden)] pub const <marker>: fn(args) = <name>;`:
    /// the item the backend finds a non-generic kernel by. The marker is an item name, not a
    /// symbol (an `export_name` would be one global symbol per kernel name, which two crates
    /// with a kernel of the same name could not both define in one program).
    pub(super) fn marker_const(&self, func: &ItemFn, marker: &str) -> TokenStream {
        let name = &self.name;
        let marker = format_ident!("{}", marker);
        let vis = &func.vis;
        let arg_types = self.launch_arg_types();
        let fn_type = self.fn_type_keyword();
        let func = self.entry_function(func);
        quote! {
            #func

            #[doc(hidden)]
            #[allow(dead_code, non_upper_case_globals, clippy::type_complexity)]
            #vis const #marker: #fn_type(#(#arg_types),*) = #name;
        }
    }

    /// A function that compiles only if each argument is a kernel parameter: each type's
    /// `oxide::KernelParam` impl, checked here once for the types that name no type parameter
    /// (the others are checked by `launch` and `emulate` at each instantiation, through their
    /// `LaunchArg`/`EmulatorArg` impls), and each shared-memory argument is oxide's own
    /// `Shared`/`DynShared` (`ArgKind::expected_type`).
    pub(super) fn argument_type_check(&self, func: &ItemFn) -> TokenStream {
        let mut params = Vec::new();
        let mut checks = Vec::new();
        for (name, ty, kind) in &self.args {
            if let Some(expected) = kind.expected_type(ty) {
                params.push(quote!(#name: #ty));
                checks.push(quote_spanned!(ty.span()=> let _: #expected = #name;));
            } else if !self.mentions_type_param(ty) {
                params.push(quote!(#name: #ty));
                checks.push(quote_spanned!(ty.span()=> ::oxide::__private::kernel_param(&#name);));
            }
        }
        if checks.is_empty() {
            return TokenStream::new();
        }
        let generics = &func.sig.generics;
        let where_clause = &generics.where_clause;
        let check = Ident::new("__oxide_argument_types", Span::mixed_site());
        quote! {
            const _: () = {
                #[allow(dead_code, unused_variables, clippy::too_many_arguments)]
                fn #check #generics (#(#params),*) #where_clause {
                    #(#checks)*
                }
            };
        }
    }

    /// The function the launch enters: the user's, or for a kernel with shared parameters an
    /// `unsafe fn` of the launch's arguments that makes each shared array (a `static` of
    /// `.shared` memory, one copy per block) and its one view, then calls the user's body as a
    /// nested, safe function (so that the body gets no `unsafe` context from the outer `fn`).
    fn entry_function(&self, func: &ItemFn) -> TokenStream {
        if !self.needs_entry() {
            return func.to_token_stream();
        }
        let body_fn = Ident::new(oxide_contract::KERNEL_BODY_FN, Span::mixed_site());
        let call = Ident::new("__oxide_kernel_call", Span::mixed_site());
        let mut body = func.clone();
        body.sig.ident = body_fn.clone();
        body.vis = Visibility::Inherited;
        body.attrs = vec![parse_quote_spanned!(Span::mixed_site()=> #[inline(always)])];
        let mut outer = func.clone();
        outer.sig.unsafety = Some(Default::default());
        outer.sig.inputs = Default::default();
        let mut call_args = Vec::new();
        let mut ends = Vec::new();
        for (name, ty, kind) in &self.args {
            match kind {
                ArgKind::DynShared(elem) => {
                    ends.push(quote_spanned! {elem.span()=>
                        <#elem as ::oxide::shared::SharedElem>::end_of_kernel();
                    });
                    let region = Ident::new("__OXIDE_DYNAMIC_SHARED", Span::mixed_site());
                    outer
                        .sig
                        .inputs
                        .push(parse_quote_spanned!(name.span()=> #name: usize));
                    // SAFETY (quote drops comments): as for `Shared` below; the launch set its
                    // dynamic shared memory to `#name` elements of `#elem`.
                    call_args.push(quote_spanned! {elem.span()=> {
                        static #region: ::oxide::shared::DynamicSharedMemory =
                            ::oxide::shared::DynamicSharedMemory::new();
                        unsafe {
                            ::oxide::shared::DynShared::<#elem>::claim(&#region, #name, &#call)
                        }
                    }});
                }
                ArgKind::Shared(array) => {
                    ends.push(quote_spanned! {array.span()=>
                        <#array as ::oxide::shared::SharedLayout>::end_of_kernel();
                    });
                    // The static lives in a block of its own, which nothing else can name.
                    // SAFETY (quote drops comments): the launch enters this function once per
                    // thread (it is `unsafe` to call otherwise), and nothing else names the
                    // static, so this is the thread's one view of its block's copy.
                    call_args.push(quote_spanned! {array.span()=> {
                        #[allow(non_upper_case_globals)]
                        static #name: ::oxide::shared::SharedArray<#array, 1> =
                            ::oxide::shared::SharedArray::new();
                        unsafe { ::oxide::shared::Shared::claim(&#name, &#call) }
                    }});
                }
                ArgKind::Launched { .. } => {
                    outer
                        .sig
                        .inputs
                        .push(parse_quote_spanned!(name.span()=> #name: #ty));
                    call_args.push(quote!(#name));
                }
            }
        }
        let (_, type_args, _) = func.sig.generics.split_for_impl();
        let turbofish = type_args.as_turbofish();
        let safety = "\n\n# Safety\nOnly a launch (`launch`, `emulate`) may call this kernel: it \
                      declares block-shared memory, of which each thread must have one view, and \
                      takes the lengths `same_len` names to be equal, as the launch checked.";
        // What `same_len` checked, told to the compiler: a bounds check of one argument at an
        // index below another's length then folds away.
        let facts = self.lengths.same_len.iter().flat_map(|group| {
            group.windows(2).map(|pair| {
                let (a, b) = (&pair[0], &pair[1]);
                quote_spanned! {Span::mixed_site()=>
                    unsafe {
                        ::core::hint::assert_unchecked(
                            ::oxide::CountedParam::elements(&#a)
                                == ::oxide::CountedParam::elements(&#b),
                        )
                    };
                }
            })
        });
        // After the body, each shared array's end-of-kernel duty (a pipeline's copies must all
        // have landed before the block's shared memory goes to the next block, however the body
        // left its pipeline: `mem::forget` included).
        let run = quote!(#body_fn #turbofish (#(#call_args),*));
        let run = if ends.is_empty() {
            run
        } else {
            quote! {{
                let __oxide_result = #run;
                #(#ends)*
                __oxide_result
            }}
        };
        let block = quote! {{
            #body
            #(#facts)*
            let #call = ();
            #run
        }};
        // The user's body was parsed as a block already; this block only wraps it.
        *outer.block = syn::parse_quote!(#block);
        outer
            .attrs
            .push(parse_quote_spanned!(Span::mixed_site()=> #[doc = #safety]));
        outer.to_token_stream()
    }

    /// `#[doc(hidden)] pub fn <marker><generics>(args) { <name>::<params>(args) }` after the
    /// user's function, unchanged: the item the backend finds a generic kernel by (a generic
    /// function cannot have an `export_name`).
    pub(super) fn generic_wrapper(&self, func: &ItemFn, marker: &str) -> TokenStream {
        let name = &self.name;
        let wrapper = format_ident!("{}", marker);
        let vis = &func.vis;
        let generics = &func.sig.generics;
        let where_clause = &generics.where_clause;
        let (_, kernel_args, _) = generics.split_for_impl();
        let turbofish = kernel_args.as_turbofish();
        let launched: Vec<(&Ident, Type)> = self.launched_args().collect();
        let params = launched.iter().map(|(arg, ty)| quote!(#arg: #ty));
        let args = launched.iter().map(|(arg, _)| arg);
        let fn_type = self.fn_type_keyword();
        let call = quote!(#name #turbofish (#(#args),*));
        let call = if self.needs_entry() {
            quote!(unsafe { #call })
        } else {
            call
        };
        let func = self.entry_function(func);
        quote! {
            #func

            #[doc(hidden)]
            #[allow(non_snake_case, clippy::too_many_arguments)]
            #vis #fn_type #wrapper #generics (#(#params),*) #where_clause {
                #call
            }
        }
    }
}
