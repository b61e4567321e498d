//! `#[kernel]`: marks a `pub fn` as a GPU kernel (see docs/contracts.md).
//!
//! In: a free `pub fn` returning nothing, whose arguments are plain names and whose generic
//! parameters (if any) are types; options `strict_float` and `grid = "1d"`.
//! Out, for a non-generic kernel: the function unchanged and a hidden
//! `pub const <marker>: fn(args) = <name>;`; for a generic one: the function unchanged and a hidden
//! wrapper `pub fn <marker><generics>(args) { <name>::<params>(args) }`, each instance of which
//! the backend compiles. The marker is `__oxide_kernel__<name>`, or with options
//! `__oxide_kernel_<opt>_<opt>__<name>` (opts sorted from `grid1d`, `strict`): how the backend
//! finds kernels and their options. Then a module `<name>` with a typed host launcher
//! `<name>::launch(gpu, cfg, args...)` and the CPU emulator `<name>::emulate(&cfg, args...)`
//! (generic over the kernel's type parameters, if any).

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2, TokenTree};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{
    FnArg, GenericParam, Generics, Ident, ItemFn, LitStr, Pat, ReturnType, Type, Visibility,
    WherePredicate, parse_quote_spanned,
};

mod args;
mod options;
mod printf;
mod repr;

use args::ArgKind;
use oxide_contract::KernelOptions;

/// `printf!("x = %d, y = %.3f\n", x, y)`: CUDA's device `printf`, with C's format (`%d`
/// `%i` take an `i32`, `%u` `%x` `%X` `%o` `%c` a `u32`, `%lld` an `i64`, `%llu` `%llx` a
/// `u64`, `%f` `%e` `%g` `%a` an `f64` or `f32`, `%s` a `&CStr`, `%p` a pointer; narrower
/// integers widen), checked at compile time against the arguments. On the GPU it calls the
/// driver's `vprintf` (the output appears when the host next synchronises, as CUDA's); on the
/// CPU emulator and in plain Rust it prints the same text to stdout (docs/debugging.md).
#[proc_macro]
pub fn printf(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as printf::PrintfInput);
    printf::expand_printf(input)
        .unwrap_or_else(|e| e.to_compile_error())
        .into()
}

/// `device_assert!(cond)` or `device_assert!(cond, "format", args...)`: when `cond` is false,
/// prints `file:line: block (x, y, z), thread (x, y, z): assertion `cond` failed: <message>`
/// (the message formatted as by [`printf!`]) and stops the kernel: on the GPU the launch fails
/// (`Error::KernelFailed`), on the emulator the thread panics.
#[proc_macro]
pub fn device_assert(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as printf::AssertInput);
    printf::expand_assert(input)
        .unwrap_or_else(|e| e.to_compile_error())
        .into()
}

/// `#[derive(DeviceRepr)]`: implements cudarc's `unsafe trait DeviceRepr` (re-exported as
/// `oxide::host::DeviceRepr`) for a type whose values may be the elements of a device buffer
/// (`Gpu::htod`, `Gpu::dtoh`, kernel arguments `&[T]` and `DisjointSlice<T>`), after checking
/// it: a `#[repr(C)]` or `#[repr(transparent)]` struct, not packed, aligned to at most 256
/// bytes, `Copy`, whose every field is `oxide::repr::ReprField` (`bool`, integers, floats,
/// arrays of them, `PhantomData`, derived types) and `oxide::DeviceData`; or a non-empty
/// fieldless enum with an integer `#[repr]`. A generic struct's impl is bounded by the fields
/// that name its parameters (docs/safety.md, "Derived device representations").
#[proc_macro_derive(DeviceRepr)]
pub fn derive_device_repr(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    repr::expand(&input, repr::Derive::DeviceRepr)
        .unwrap_or_else(|e| e.to_compile_error())
        .into()
}

/// `#[derive(ValidAsZeroBits)]`: implements cudarc's `unsafe trait ValidAsZeroBits`
/// (`oxide::host::ValidAsZeroBits`, which `Gpu::alloc_zeroed` needs) after checking that
/// all-zero bytes are a value: for a struct of the shape `#[derive(DeviceRepr)]` takes, every
/// field is `oxide::repr::ZeroableField`; for a fieldless enum with an integer `#[repr]`, a
/// variant's discriminant is 0 (a compile-time assertion).
#[proc_macro_derive(ValidAsZeroBits)]
pub fn derive_valid_as_zero_bits(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    repr::expand(&input, repr::Derive::ValidAsZeroBits)
        .unwrap_or_else(|e| e.to_compile_error())
        .into()
}

/// Marks a `pub fn` as a GPU kernel and generates its host launcher `<name>::launch` and its
/// CPU emulator `<name>::emulate`.
///
/// Argument types and what the launcher takes for them:
/// `&[T]` → `&impl oxide::host::DeviceMemory<T>` (`&buf` of a `DeviceBuffer<T>`, or `&view` of a
/// `DeviceView`/`DeviceViewMut`); `DisjointSlice<T>` (and an atomic slice) →
/// `&mut impl oxide::host::DeviceMemoryMut<T>` (`&mut buf`, or `&mut view` of a
/// `DeviceViewMut`, which borrows its buffer mutably); any other `T: Copy + oxide::DeviceData` → `T` (plain
/// device data: no references, raw pointers or interior mutability; docs/safety.md).
///
/// What the emulator takes for them: `&[T]` → `&[T]` (`T: Sync`); `DisjointSlice<T>` →
/// `&mut [T]` (`T: Send`); any other `T: Copy + oxide::DeviceData` → `T` (`T: Sync`).
///
/// A kernel may have type parameters (closures passed from the host are type parameters too):
/// `launch` and `emulate` are then generic over them, with `'static` bounds, and the backend
/// compiles one PTX entry per instance that the crate's own code launches.
///
/// Options: `#[kernel(strict_float)]` (no FMA contraction: bit-for-bit Rust float semantics)
/// and `#[kernel(grid = "1d")]` (the kernel is launched with grid and block y = z = 1, which
/// `launch` and `emulate` check; the backend folds the y and z indices to 0).
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
    let options = options::parse(attr);
    let func = syn::parse2::<ItemFn>(item)
        .map_err(|e| syn::Error::new(e.span(), "`#[kernel]` goes on a free `pub fn`"));
    let ((options, lengths), func) = match (options, func) {
        (Ok(options), Ok(func)) => (options, func),
        (Err(mut a), Err(b)) => {
            a.combine(b);
            return Err(a);
        }
        (Err(e), _) | (_, Err(e)) => return Err(e),
    };
    let kernel = Kernel::check(&func, options, lengths)?;
    Ok(kernel.expand(&func))
}

/// A checked kernel signature.
struct Kernel {
    name: Ident,
    options: KernelOptions,
    /// `same_len`/`covers`: checked by `launch` and `emulate`, unknown to the backend.
    lengths: options::LengthContracts,
    /// The type parameters, in order (the only generic parameters a kernel may have).
    type_params: Vec<Ident>,
    /// Each argument's name, type as written, and how it is passed.
    args: Vec<(Ident, Type, ArgKind)>,
}

impl Kernel {
    fn check(
        func: &ItemFn,
        options: KernelOptions,
        lengths: options::LengthContracts,
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
        // The arguments `same_len` and `covers` name: ones with a length the host knows.
        let named = kernel
            .lengths
            .same_len
            .iter()
            .flatten()
            .chain(&kernel.lengths.covers);
        for name in named {
            let kind = kernel
                .args
                .iter()
                .find(|(n, _, _)| n == name)
                .map(|(_, _, k)| k);
            match kind {
                Some(
                    ArgKind::Slice(_)
                    | ArgKind::Atomics { .. }
                    | ArgKind::Disjoint {
                        words: args::Words::None,
                        ..
                    },
                ) => {}
                Some(_) => errors.add(
                    name.span(),
                    &format!(
                        "`{name}` has no length the launch contracts can check: `same_len` and \
                         `covers` take `&[T]`, atomic slices, `DisjointSlice`, `DisjointChunks` \
                         and `BlockWindows` arguments"
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

    fn is_generic(&self) -> bool {
        !self.type_params.is_empty()
    }

    fn expand(&self, func: &ItemFn) -> TokenStream2 {
        let name = &self.name;
        let entry = name.to_string().trim_start_matches("r#").to_owned();
        let marker = oxide_contract::kernel_marker(&entry, &self.options);
        let kernel_name = LitStr::new(&entry, Span::call_site());
        // What the backend names the kernel's PTX entry (docs/contracts.md).
        let ptx_entry = LitStr::new(&oxide_contract::kernel_entry(&entry), Span::call_site());
        let (crate_name, ptx_symbol) = match crate_name() {
            Ok(c) => (
                LitStr::new(&c, Span::call_site()),
                LitStr::new(&oxide_contract::ptx_image_symbol(&c), Span::call_site()),
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
        let data = local("kernel_arguments_must_be_plain_device_data");
        let mut params = Vec::new();
        let mut pushes = Vec::new();
        // The emulator: its parameters, what it does before `run`, what each emulated thread
        // does before calling the kernel, and the kernel's arguments.
        let mut emu_params = Vec::new();
        let mut emu_shared = Vec::new();
        let mut emu_thread = Vec::new();
        let mut emu_args = Vec::new();
        let (mut uses_copy, mut uses_sync, mut uses_send) = (false, false, false);
        for (arg, _, kind) in &self.args {
            match kind {
                ArgKind::Slice(elem) => {
                    params.push(quote!(#arg: &impl ::oxide::host::DeviceMemory<#elem>));
                    pushes.push(quote!(#launch.push(::oxide::host::DeviceMemory::region(#arg));));
                    emu_params.push(quote!(#arg: &[#elem]));
                    // Every emulated thread reads the slice: `T: Sync`.
                    emu_shared.push(quote_spanned! {elem.span()=>
                        let #arg = #sync::<[#elem]>(#arg);
                    });
                    emu_args.push(quote!(#arg.get()));
                    uses_sync = true;
                }
                ArgKind::Disjoint { elem, ty, words } => {
                    let host = words.host();
                    if let Some((host, _)) = host {
                        // The words travel with the buffer: `Rows::new` (`Pairs::new`,
                        // `Wave::new`) checked them.
                        let host = format_ident!("{}", host);
                        params.push(quote!(
                            mut #arg: ::oxide::host::#host<&mut ::oxide::host::DeviceBuffer<#elem>>
                        ));
                        pushes.push(quote!(#launch.push(&mut #arg);));
                        emu_params.push(quote!(#arg: ::oxide::host::#host<&mut [#elem]>));
                    } else {
                        params.push(quote!(#arg: &mut impl ::oxide::host::DeviceMemoryMut<#elem>));
                        pushes.push(quote!(
                            #launch.push(::oxide::host::DeviceMemoryMut::region_mut(#arg));
                        ));
                        emu_params.push(quote!(#arg: &mut [#elem]));
                    }
                    // The words after the pointer and the length, read before the buffer is
                    // taken out of its host type.
                    let accessors = host.map_or(&[][..], |(_, accessors)| accessors);
                    let word_names: Vec<Ident> = accessors
                        .iter()
                        .map(|a| format_ident!("{}_{}", arg, a, span = Span::mixed_site()))
                        .collect();
                    let accessor_idents = accessors.iter().map(|a| format_ident!("{}", a));
                    let width_of = quote! {
                        #(let #word_names = #arg.#accessor_idents();)*
                    };
                    let slice = if host.is_some() {
                        quote!(#arg.into_inner())
                    } else {
                        quote!(#arg)
                    };
                    let width_arg = (!word_names.is_empty()).then(|| quote!(#(, #word_names)*));
                    // The emulated threads write the elements: `T: Send`.
                    emu_shared.push(quote_spanned! {elem.span()=>
                        #width_of
                        let #arg = #send::<#elem>(#slice);
                    });
                    uses_send = true;
                    // SAFETY (not emitted: quote drops comments; see "Soundness" in the docs of
                    // `oxide::emulate`): `#arg` borrows the caller's `&mut [T]` until `run`
                    // returns, after every emulated thread has ended, so the memory is valid and
                    // only the kernel touches it; every thread gets the same pointer, length and
                    // width (which `Rows::new` checked divides the length); `run` gives the
                    // threads that run at once distinct positions, which they cannot change nor
                    // pass between OS threads, so by the output's rule no two threads reach one
                    // element; the elements are `Send`.
                    emu_thread.push(quote! {
                        let #arg = unsafe {
                            <#ty>::from_raw_parts(#arg.ptr(), #arg.len() #width_arg)
                        };
                    });
                    emu_args.push(quote!(#arg));
                }
                ArgKind::Atomics { atomic } => {
                    let plain = quote_spanned! {atomic.span()=>
                        <#atomic as ::oxide::atomic::AtomicElem>::Plain
                    };
                    // The kernel writes the buffer (atomically): the launch borrows it mutably,
                    // so no other argument of the launch aliases it.
                    params.push(quote!(#arg: &mut impl ::oxide::host::DeviceMemoryMut<#plain>));
                    pushes.push(quote!(
                        #launch.push(::oxide::host::DeviceMemoryMut::region_mut(#arg));
                    ));
                    emu_params.push(quote!(#arg: &mut [#plain]));
                    // SAFETY (not emitted): an atomic integer has the size, alignment and bit
                    // validity of its integer (`core::sync::atomic`), and the `&mut` borrow of
                    // the caller's slice is exclusive for as long as the threads run, so it may
                    // be shared as atomics, as `AtomicU64::from_mut_slice` does.
                    emu_shared.push(quote_spanned! {atomic.span()=>
                        let #arg: &[#atomic] = unsafe {
                            ::core::slice::from_raw_parts(
                                #arg.as_mut_ptr().cast::<#atomic>(),
                                #arg.len(),
                            )
                        };
                        let #arg = #sync::<[#atomic]>(#arg);
                    });
                    emu_args.push(quote!(#arg.get()));
                    uses_sync = true;
                }
                // Made by the kernel itself: neither the launch nor the emulator passes it.
                ArgKind::Shared(_) => {}
                // The length, in elements: a by-value `usize` the kernel makes its array from,
                // and the launch's dynamic shared memory in bytes.
                ArgKind::DynShared(elem) => {
                    params.push(quote!(#arg: usize));
                    pushes.push(quote! {
                        let #cfg = ::oxide::__private::with_dynamic_shared::<#elem>(#cfg, #arg)?;
                        #launch.push(::oxide::host::ByValue(&#arg));
                    });
                    emu_params.push(quote!(#arg: usize));
                    emu_shared.push(quote! {
                        let #cfg = &::oxide::__private::emulate_with_dynamic_shared::<#elem>(
                            #kernel_name, #cfg, #arg,
                        )?;
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
        // `DeviceData` of every by-value argument, checked here once for the types that name no
        // type parameter, and for the others by `launch` and `emulate` at each instantiation
        // (their where clauses, `host_generics`).
        let data_checks: Vec<TokenStream2> = self
            .args
            .iter()
            .filter_map(|(_, _, kind)| kind.by_value())
            .filter(|ty| !self.mentions_type_param(ty))
            .map(|ty| quote_spanned! {ty.span()=> #data::<#ty>();})
            .collect();
        let data_check = (!data_checks.is_empty()).then(|| {
            quote! {
                #[inline(always)]
                const fn #data<T: ?::core::marker::Sized + ::oxide::DeviceData>() {}
                const _: () = { #(#data_checks)* };
            }
        });
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
        let mod_doc = format!("Host side of the `{entry}` kernel.");
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
        let unchecked_doc = format!(
            "`launch` without the checks of the kernel's launch contract (`#[kernel(...)]`'s \
             `grid`, `block`, `max_threads` and `sm`, if any); the buffers are still checked.\n\n\
             # Safety\n\n`cfg` and the device meet the kernel's launch contract: the backend \
             compiled `{entry}` assuming them (a `block` shape is folded into its index \
             arithmetic, so another shape can give two threads one element)."
        );
        let launch_doc = format!(
            "Queues the `{entry}` kernel on `gpu`'s stream with shape `cfg` and returns without \
             waiting for it (`Gpu::dtoh` and `Gpu::synchronize` wait, and report its failure). \
             Fails with `Error::NoPtx` when the crate was built without the oxide backend.\
             {grid_doc}{generic_doc}"
        );
        let emulate_doc = format!(
            "Runs the `{entry}` kernel on the CPU over the grid `cfg`, every GPU thread of a \
             block being an OS thread, and waits for it (see `oxide::emulate`). `&[T]` \
             arguments are shared, a `DisjointSlice<T>` argument writes the `&mut [T]` given \
             here, other arguments are copied to every thread. Fails with the first thread's \
             panic, a `sync_threads()` that not every thread reaches, or a bad launch shape."
        );
        let load_doc = if self.is_generic() {
            "Loads the crate's PTX on `gpu` now rather than at the first launch, so that \
             `Error::NoPtx` or a PTX the driver rejects shows before any other work."
        } else {
            "Loads the crate's PTX on `gpu` now rather than at the first launch, and looks the \
             kernel up, so that `Error::NoPtx`, a PTX the driver rejects or a missing kernel \
             shows before any other work."
        };

        // The user's function, and for a generic kernel the wrapper the backend compiles.
        let kernel_item = if self.is_generic() {
            self.generic_wrapper(func, &marker)
        } else {
            self.marker_const(func, &marker)
        };

        let launch_generics = self.host_generics(&func.sig.generics, false);
        let emu_generics = self.host_generics(&func.sig.generics, true);
        let (launch_params, _, launch_where) = launch_generics.split_for_impl();
        let (emu_params_generics, _, emu_where) = emu_generics.split_for_impl();
        let (_, kernel_args, _) = func.sig.generics.split_for_impl();
        let turbofish = kernel_args.as_turbofish();
        // A kernel with shared memory is `unsafe` to call: only a launch may enter it (one view
        // of each shared array per thread); the emulator's run is one.
        let emu_call = if self.has_shared() {
            quote!(unsafe { super::#name #turbofish (#(#emu_args),*) })
        } else {
            quote!(super::#name #turbofish (#(#emu_args),*))
        };

        let options = options_tokens(&self.options);
        let contract_check = quote! {
            ::oxide::__private::check_launch(#gpu, #kernel_name, &#cfg, &#options)?;
        };
        let emu_contract_check = quote! {
            ::oxide::__private::emulate_check_launch(#kernel_name, #cfg, &#options)?;
        };
        // `same_len` and `covers`: the launcher's and the emulator's arguments all have `len()`.
        let length_checks = |emulate: bool| {
            let (same, covers) = if emulate {
                (quote!(emulate_same_len), quote!(emulate_covers))
            } else {
                (quote!(same_len), quote!(covers))
            };
            let cfg_ref = if emulate { quote!(#cfg) } else { quote!(&#cfg) };
            let groups = self.lengths.same_len.iter().map(|group| {
                let names = group.iter().map(|n| n.to_string());
                quote! {
                    ::oxide::__private::#same(#kernel_name, &[#((#names, #group.len())),*])?;
                }
            });
            let covered = self.lengths.covers.iter().map(|n| {
                let name = n.to_string();
                quote! {
                    ::oxide::__private::#covers(#kernel_name, #cfg_ref, #name, #n.len())?;
                }
            });
            quote!(#(#groups)* #(#covered)*)
        };
        let (length_check, emu_length_check) = (length_checks(false), length_checks(true));
        let ptx = quote! {
            ::oxide::host::load_module(
                #gpu,
                ::oxide::__embedded_ptx!(#ptx_symbol),
                #crate_name,
            )?
        };
        let (load_body, get_function) = if self.is_generic() {
            let wrapper = format_ident!("{}", marker);
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
            let get_function = quote! {
                let #module = #ptx;
                let #function = #module.function(#ptx_entry)?;
            };
            (load_body, get_function)
        };

        let argument_check = self.argument_type_check(func);
        quote! {
            #kernel_item
            #argument_check

            #[doc = #mod_doc]
            #vis mod #name {
                #[allow(unused_imports)]
                use super::*;

                #data_check
                #copy_helper
                #sync_helper
                #send_helper

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
                    #length_check
                    #get_function
                    let mut #launch = ::oxide::host::Launch::new(#gpu, &#function);
                    #(#pushes)*
                    // SAFETY: the parameters were pushed from this kernel's own signature, in
                    // order, and the PTX is the backend's compilation of this same function;
                    // the launch contract was checked above.
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
                    #get_function
                    let mut #launch = ::oxide::host::Launch::new(#gpu, &#function);
                    #(#pushes)*
                    // SAFETY: the parameters were pushed from this kernel's own signature, in
                    // order, and the PTX is the backend's compilation of this same function;
                    // the caller vouches for the launch contract.
                    unsafe { #launch.launch(#cfg) }
                }

                #[doc = #emulate_doc]
                #[allow(
                    unsafe_code,
                    clippy::too_many_arguments,
                    clippy::multiple_bound_locations
                )]
                pub fn emulate #emu_params_generics (
                    #cfg: &::oxide::host::LaunchConfig,
                    #(#emu_params),*
                ) -> ::core::result::Result<(), ::oxide::emulate::KernelFailure> #emu_where {
                    #emu_contract_check
                    #emu_length_check
                    #(#emu_shared)*
                    ::oxide::emulate::run(#kernel_name, #cfg, || {
                        #(#emu_thread)*
                        #emu_call
                    })
                }
            }
        }
    }

    /// The user's function, unchanged, and `#[doc(hidden)] pub const <marker>: fn(args) = <name>;`:
    /// the item the backend finds a non-generic kernel by. The marker is an item name, not a
    /// symbol (an `export_name` would be one global symbol per kernel name, which two crates
    /// with a kernel of the same name could not both define in one program).
    fn marker_const(&self, func: &ItemFn, marker: &str) -> TokenStream2 {
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

    /// A function that compiles only if each output and shared argument has the type the
    /// launcher and the emulator were built for (`ArgKind::expected_type`): an alias of another
    /// type under an output's name is a type error at the argument.
    fn argument_type_check(&self, func: &ItemFn) -> TokenStream2 {
        let mut params = Vec::new();
        let mut checks = Vec::new();
        for (name, ty, kind) in &self.args {
            let Some(expected) = kind.expected_type(ty) else {
                continue;
            };
            params.push(quote!(#name: #ty));
            checks.push(quote_spanned!(ty.span()=> let _: #expected = #name;));
        }
        if checks.is_empty() {
            return TokenStream2::new();
        }
        let generics = &func.sig.generics;
        let where_clause = &generics.where_clause;
        let check = Ident::new("__oxide_argument_types", Span::mixed_site());
        quote! {
            const _: () = {
                #[allow(dead_code, clippy::too_many_arguments)]
                fn #check #generics (#(#params),*) #where_clause {
                    #(#checks)*
                }
            };
        }
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
            _ => Some((name, ty.clone())),
        })
    }

    /// `fn`, or `unsafe fn` for a kernel with shared memory.
    fn fn_type_keyword(&self) -> TokenStream2 {
        if self.has_shared() {
            quote!(unsafe fn)
        } else {
            quote!(fn)
        }
    }

    /// The function the launch enters: the user's, or for a kernel with shared parameters an
    /// `unsafe fn` of the launch's arguments that makes each shared array (a `static` of
    /// `.shared` memory, one copy per block) and its one view, then calls the user's body as a
    /// nested, safe function (so that the body gets no `unsafe` context from the outer `fn`).
    fn entry_function(&self, func: &ItemFn) -> TokenStream2 {
        if !self.has_shared() {
            return func.to_token_stream();
        }
        let body_fn = Ident::new("__oxide_kernel_body", Span::mixed_site());
        let call = Ident::new("__oxide_kernel_call", Span::mixed_site());
        let mut body = func.clone();
        body.sig.ident = body_fn.clone();
        body.vis = Visibility::Inherited;
        body.attrs = vec![parse_quote_spanned!(Span::mixed_site()=> #[inline(always)])];
        let mut outer = func.clone();
        outer.sig.unsafety = Some(Default::default());
        outer.sig.inputs = Default::default();
        let mut call_args = Vec::new();
        for (name, ty, kind) in &self.args {
            match kind {
                ArgKind::DynShared(elem) => {
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
                _ => {
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
                      declares block-shared memory, of which each thread must have one view.";
        let block = quote! {{
            #body
            let #call = ();
            #body_fn #turbofish (#(#call_args),*)
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
    fn generic_wrapper(&self, func: &ItemFn, marker: &str) -> TokenStream2 {
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
        let call = if self.has_shared() {
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

    /// Whether `ty` names one of the kernel's type parameters (then what it must be is checked
    /// at each instantiation, not once at the definition).
    fn mentions_type_param(&self, ty: &Type) -> bool {
        fn mentions(tokens: TokenStream2, params: &[Ident]) -> bool {
            tokens.into_iter().any(|t| match t {
                TokenTree::Ident(i) => params.contains(&i),
                TokenTree::Group(g) => mentions(g.stream(), params),
                _ => false,
            })
        }
        mentions(ty.to_token_stream(), &self.type_params)
    }

    /// The generics of `launch` (`emulate` when `emulate` is true): the kernel's, each type
    /// parameter `'static` (a by-value argument crosses to the GPU as its bytes: a closure that
    /// borrows host data would carry host addresses), and for a generic kernel the bounds that
    /// the arguments need, each spanned at its type: `DeviceData` of the by-value types that
    /// name a type parameter (the others are checked once, at the definition), `Copy` of the
    /// by-value types, and for `emulate` `Sync` of what the threads
    /// share and `Send` of what they write (a non-generic kernel gets those checked by the
    /// helpers `emulate` calls).
    fn host_generics(&self, kernel: &Generics, emulate: bool) -> Generics {
        let mut generics = kernel.clone();
        for param in generics.type_params_mut() {
            param.eq_token = None;
            param.default = None;
        }
        if !self.is_generic() {
            return generics;
        }
        let mut bounds: Vec<WherePredicate> = self
            .type_params
            .iter()
            .map(|t| parse_quote_spanned!(t.span()=> #t: 'static))
            .collect();
        for (_, _, kind) in &self.args {
            if let Some(ty) = kind.by_value().filter(|ty| self.mentions_type_param(ty)) {
                bounds.push(parse_quote_spanned!(ty.span()=> #ty: ::oxide::DeviceData));
            }
            let bound: WherePredicate = match (kind, emulate) {
                (ArgKind::Value(ty), false) => {
                    parse_quote_spanned!(ty.span()=> #ty: ::core::marker::Copy)
                }
                (ArgKind::Value(ty), true) => parse_quote_spanned! {ty.span()=>
                    #ty: ::core::marker::Copy + ::core::marker::Sync
                },
                (ArgKind::Slice(elem), true) => {
                    parse_quote_spanned!(elem.span()=> #elem: ::core::marker::Sync)
                }
                (ArgKind::Disjoint { elem, .. }, true) => {
                    parse_quote_spanned!(elem.span()=> #elem: ::core::marker::Send)
                }
                (ArgKind::Slice(_) | ArgKind::Disjoint { .. }, false)
                | (ArgKind::Shared(_) | ArgKind::DynShared(_) | ArgKind::Atomics { .. }, _) => {
                    continue;
                }
            };
            bounds.push(bound);
        }
        generics.make_where_clause().predicates.extend(bounds);
        generics
    }
}

/// `::oxide::__private::KernelOptions { ... }` with the values of `options`.
fn options_tokens(options: &KernelOptions) -> TokenStream2 {
    let number = |v: Option<u32>| match v {
        Some(n) => quote!(::core::option::Option::Some(#n)),
        None => quote!(::core::option::Option::None),
    };
    let KernelOptions {
        strict_float,
        grid_1d,
        block,
        max_threads,
        min_blocks_per_sm,
        min_sm,
    } = *options;
    let block = match block {
        Some([x, y, z]) => quote!(::core::option::Option::Some([#x, #y, #z])),
        None => quote!(::core::option::Option::None),
    };
    let (max_threads, min_blocks_per_sm, min_sm) = (
        number(max_threads),
        number(min_blocks_per_sm),
        number(min_sm),
    );
    quote! {
        ::oxide::__private::KernelOptions {
            strict_float: #strict_float,
            grid_1d: #grid_1d,
            block: #block,
            max_threads: #max_threads,
            min_blocks_per_sm: #min_blocks_per_sm,
            min_sm: #min_sm,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn expanded(attr: TokenStream2, item: TokenStream2) -> String {
        expand(attr, item).unwrap().to_string()
    }

    #[test]
    fn non_generic_kernels_get_a_const_named_by_the_marker() {
        let item = quote!(
            pub fn fill(v: u32, mut out: DisjointSlice<u32>) {}
        );
        let constant = |marker: &str| {
            format!("pub const {marker} : fn (u32 , DisjointSlice < u32 >) = fill ;")
        };
        let out = expanded(quote!(), item.clone());
        assert!(out.contains(&constant("__oxide_kernel__fill")), "{out}");
        // No global symbol: two crates may both have a kernel `fill` (issue 7).
        for symbol in ["export_name", "no_mangle"] {
            assert!(!out.contains(symbol), "{out}");
        }
        let out = expanded(quote!(grid = "1d"), item.clone());
        assert!(
            out.contains(&constant("__oxide_kernel_grid1d__fill")),
            "{out}"
        );
        assert!(out.contains("check_launch"), "{out}");
        assert!(out.contains("grid_1d : true"), "{out}");
        assert!(out.contains("pub unsafe fn launch_unchecked"), "{out}");
        let out = expanded(quote!(grid = "1d", strict_float), item);
        assert!(
            out.contains(&constant("__oxide_kernel_grid1d_strict__fill")),
            "{out}"
        );
    }

    /// The launcher looks the kernel up under the PTX entry the backend gives it, which
    /// `oxide_contract::kernel_entry` computes for both (issue 7: `façade` was not found).
    #[test]
    fn launchers_look_up_the_contracts_entry() {
        let out = expanded(
            quote!(),
            quote!(
                pub fn façade(mut out: DisjointSlice<u32>) {}
            ),
        );
        let entry = oxide_contract::kernel_entry("façade");
        assert_eq!(entry, "fa$e7$ade");
        assert!(out.contains(&format!("function (\"{entry}\") ?")), "{out}");
        assert!(out.contains("const __oxide_kernel__façade"), "{out}");
        // Messages and the emulator still name the kernel as written.
        assert!(out.contains("run (\"façade\""), "{out}");
    }

    #[test]
    fn by_value_arguments_are_checked_for_device_data_at_the_definition() {
        let item = quote!(
            pub fn fill(v: (u32, [f32; 2]), mut out: DisjointSlice<'_, u32>, x: &'_ [u8]) {}
        );
        let out = expanded(quote!(), item);
        assert!(
            out.contains(
                "const _ : () = { kernel_arguments_must_be_plain_device_data :: < (u32 , [f32 ; 2]) > () ; }"
            ),
            "{out}"
        );
        // Only by-value arguments: slice elements live in device buffers.
        assert!(!out.contains("< u8 > ()"), "{out}");
        assert!(!out.contains("< u32 > ()"), "{out}");
    }

    #[test]
    fn slices_take_no_named_lifetime() {
        for item in [
            quote!(
                pub fn k(x: &'static [u32]) {}
            ),
            quote!(
                pub fn k(out: DisjointSlice<'static, u32>) {}
            ),
            quote!(
                pub fn k(out: DisjointSlice<'_, u32, u32>) {}
            ),
            quote!(
                pub fn k(out: DisjointSlice<'_>) {}
            ),
        ] {
            assert!(expand(quote!(), item.clone()).is_err(), "{item}");
        }
        let item = quote!(
            pub fn k(x: &'_ [u32], out: DisjointSlice<'_, u32>) {}
        );
        let out = expanded(quote!(), item);
        assert!(
            out.contains("x : & impl :: oxide :: host :: DeviceMemory < u32 >"),
            "{out}"
        );
        assert!(
            out.contains("out : & mut impl :: oxide :: host :: DeviceMemoryMut < u32 >"),
            "{out}"
        );
    }

    #[test]
    fn generic_kernels_get_a_wrapper_named_by_the_marker() {
        let item = quote!(
            pub fn scale<T: Copy>(k: T, x: &[T], mut y: DisjointSlice<T>) {}
        );
        let out = expanded(quote!(strict_float), item);
        assert!(!out.contains("export_name"), "{out}");
        assert!(
            out.contains("pub fn __oxide_kernel_strict__scale < T : Copy > (k : T , x : & [T] , y : DisjointSlice < T >)"),
            "{out}"
        );
        assert!(out.contains("scale :: < T > (k , x , y)"), "{out}");
        assert!(
            out.contains("super :: __oxide_kernel_strict__scale :: < T > as fn (T , & [T] , DisjointSlice < T >)"),
            "{out}"
        );
        assert!(
            out.contains(":: core :: any :: type_name :: < T > ()"),
            "{out}"
        );
        // The by-value argument names the type parameter: checked by `launch` and `emulate`.
        assert!(out.contains("T : :: oxide :: DeviceData"), "{out}");
        assert!(
            !out.contains("const _ : () = { kernel_arguments_must_be_plain_device_data"),
            "{out}"
        );
        // The output is checked to be `oxide`'s own type (an alias of another would not be).
        assert!(
            out.contains("let _ : :: oxide :: DisjointSlice < '_ , T > = y ;"),
            "{out}"
        );
        for call in [". unwrap (", ". expect (", "panic !", "unreachable !"] {
            assert!(!out.contains(call), "{call}: {out}");
        }
    }
}
