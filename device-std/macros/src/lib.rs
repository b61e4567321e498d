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
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::quote;
use syn::ItemFn;

mod kernel;
mod options;
mod printf;
mod repr;

use kernel::Kernel;
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

/// `::oxide::__private::KernelOptions { ... }` with the values of `options`.
pub(crate) fn options_tokens(options: &KernelOptions) -> TokenStream2 {
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
pub(crate) fn crate_name() -> syn::Result<String> {
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
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    pub(crate) fn add(&mut self, span: Span, message: &str) {
        self.push(syn::Error::new(span, message));
    }

    pub(crate) fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    pub(crate) fn finish(self) -> syn::Result<()> {
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
    /// `same_len` is checked by `launch` and by `launch_unchecked` (which skips the shape
    /// contract only), and the kernel's entry, then `unsafe`, states the equal lengths.
    #[test]
    fn same_len_is_checked_by_both_launchers_and_stated_by_the_entry() {
        let out = expanded(
            quote!(same_len = "a, out"),
            quote!(
                pub fn copy(a: &[u32], mut out: DisjointSlice<u32>) {}
            ),
        );
        let check = ":: oxide :: __private :: same_len (";
        let launch = out.find("pub fn launch").expect("a launcher");
        let unchecked = out
            .find("pub unsafe fn launch_unchecked")
            .expect("an unchecked one");
        let first = out.find(check).expect("a same_len check");
        let last = out.rfind(check).expect("a same_len check");
        assert!(
            first > launch && first < unchecked && last > unchecked,
            "{out}"
        );
        assert!(out.contains("pub unsafe fn copy"), "{out}");
        assert!(
            out.contains(":: core :: hint :: assert_unchecked (:: oxide :: CountedParam :: elements (& a) == :: oxide :: CountedParam :: elements (& out) ,)"),
            "{out}"
        );
    }

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
        // `load` looks the entry up in the module, the launchers in the Gpu's cache of kernels.
        assert!(
            out.contains(&format!("function (\"{entry}\") . map")),
            "{out}"
        );
        assert!(
            out.contains(":: oxide :: host :: kernel_function (")
                && out.contains(&format!("\"{entry}\" ,) ?")),
            "{out}"
        );
        assert!(out.contains("const __oxide_kernel__façade"), "{out}");
        // Messages and the emulator still name the kernel as written.
        assert!(out.contains("run (\"façade\""), "{out}");
    }

    #[test]
    fn every_argument_is_checked_to_be_a_kernel_parameter_at_the_definition() {
        let item = quote!(
            pub fn fill(v: (u32, [f32; 2]), mut out: DisjointSlice<'_, u32>, x: &'_ [u8]) {}
        );
        let out = expanded(quote!(), item);
        // One check per argument, through the type's `KernelParam` impl: the macro names no
        // parameter type.
        for name in ["v", "out", "x"] {
            assert!(
                out.contains(&format!(":: oxide :: __private :: kernel_param (& {name})")),
                "{name}: {out}"
            );
        }
    }

    #[test]
    fn launchers_take_each_argument_by_its_key() {
        let item = quote!(
            pub fn k(x: &'_ [u32], out: DisjointSlice<'_, u32>, v: f32) {}
        );
        let out = expanded(quote!(), item);
        for key in [
            "x : impl :: oxide :: host :: LaunchArg < [u32] >",
            "out : impl :: oxide :: host :: LaunchArg < fn (DisjointSlice < '_ , u32 >) >",
            "v : impl :: oxide :: host :: LaunchArg < fn (f32) >",
            "x : impl :: oxide :: emulate :: EmulatorArg < '__oxide_run , [u32] >",
        ] {
            assert!(out.contains(key), "{key}: {out}");
        }
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
                pub fn k(v: (u32, Option<&u32>)) {}
            ),
        ] {
            assert!(expand(quote!(), item.clone()).is_err(), "{item}");
        }
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
        // The arguments name the type parameter: checked by `launch` and `emulate`, at each
        // instantiation, not at the definition.
        assert!(!out.contains("kernel_param (& k)"), "{out}");
        assert!(out.contains("T : 'static"), "{out}");
        for call in [". unwrap (", ". expect (", "panic !", "unreachable !"] {
            assert!(!out.contains(call), "{call}: {out}");
        }
    }
}
