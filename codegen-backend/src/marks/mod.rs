//! Device marks (`#[oxide_gpu::…]`): the one list of keywords, what item each may mark, and
//! who may write it (docs/safety.md, "Device marks are unsafe outside device-std").
//!
//! A mark tells the backend to compile a call (or a type) as something other than its Rust
//! body, and the backend believes it: a `ptx` mark can store anywhere, a `warp_uniform` mark
//! makes the uniformity analysis admit warp collectives under a branch on the result. So a mark
//! is trusted only where Rust's own rules put the responsibility on someone:
//! - in device-std (the crate `oxide_device`), whose maintainers vouch for every mark, as
//!   rustc's backends vouch for `core`'s intrinsics;
//! - elsewhere, on an `unsafe fn` only, and only for the marks whose promise a caller can keep
//!   ([`Users::UnsafeFn`]): every call is then in an `unsafe` block, whose author states the
//!   promise. The other marks ([`Users::DeviceStd`]) describe device-std's own protocols and
//!   are refused outside it.
//!
//! The rule is checked twice: where a mark is written, over every attribute of the crate being
//! compiled (`registry::check`, which parses each mark as the registry does), and where a marked
//! function of another crate is called (the registry does not trust a mark the rule refuses:
//! that crate may have been compiled without the backend, so without the first check).

use rustc_hir::{
    def::DefKind,
    def_id::{CrateNum, DefId},
};
use rustc_middle::ty::TyCtxt;

/// The tool name device-std registers (`#![register_tool(oxide_gpu)]`). Not `oxide`: kernel
/// crates depend on the crate `oxide`, whose name would shadow it in attribute paths.
pub(crate) const TOOL: &str = "oxide_gpu";

/// The crate whose marks are trusted without `unsafe`: device-std's device crate. Recognised by
/// its name, as rustc recognises `core`: whoever builds a crate under this name (a fork, a
/// `[patch]`) vouches for its marks as device-std's maintainers do.
pub(crate) const DEVICE_STD: &str = "oxide_device";

/// What a call of (or a `static` of) a marked item becomes; each keyword once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Keyword {
    SpecialRegister,
    Barrier,
    WarpCollective,
    EmulatorCheck,
    UniformOperands,
    WarpUniform,
    Nvvm,
    Ptx,
    Atomic,
    DeviceRuntime,
    SharedAddress,
    SharedWindow,
    SharedMemory,
    DynamicSharedMemory,
    UnrollHint,
    FloatConvert,
}

/// The kind of item a mark belongs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    /// A `fn` (free, associated or foreign) with a body or a signature to call.
    Function,
    /// A `struct`.
    Struct,
}

/// Who may write a mark.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Users {
    /// Device-std, and any crate on an `unsafe fn`, whose callers promise `promise`.
    UnsafeFn { promise: &'static str },
    /// Device-std only: the mark is one side of a protocol of device-std's own, which no
    /// promise of a caller elsewhere can keep (`why`); `instead` says what to use.
    DeviceStd {
        why: &'static str,
        instead: &'static str,
    },
}

/// What the marked function must return: a mark that emits no value leaves the result
/// unwritten, so anything but `()` would be read uninitialised.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Returns {
    Any,
    Unit,
    U32,
}

/// One device mark.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mark {
    pub(crate) keyword: Keyword,
    /// What is written after `oxide_gpu::`.
    pub(crate) name: &'static str,
    pub(crate) target: Target,
    pub(crate) users: Users,
    pub(crate) returns: Returns,
}

const fn function(keyword: Keyword, name: &'static str, users: Users, returns: Returns) -> Mark {
    Mark {
        keyword,
        name,
        target: Target::Function,
        users,
        returns,
    }
}

const fn structure(
    keyword: Keyword,
    name: &'static str,
    why: &'static str,
    instead: &'static str,
) -> Mark {
    Mark {
        keyword,
        name,
        target: Target::Struct,
        users: Users::DeviceStd { why, instead },
        returns: Returns::Any,
    }
}

const fn promise(promise: &'static str) -> Users {
    Users::UnsafeFn { promise }
}

/// Every mark: the one place a keyword, its item kind and its users are written.
pub(crate) const MARKS: &[Mark] = &[
    function(
        Keyword::SpecialRegister,
        "special_register",
        promise(
            "the body returns, on the CPU emulator, what the register holds for the calling thread \
             (the backend takes block and grid registers to be the same in every thread of a block)",
        ),
        Returns::U32,
    ),
    function(
        Keyword::Barrier,
        "barrier",
        promise(
            "the body is a barrier of the emulated block (it calls `oxide::thread::sync_threads()`); \
             the backend checks that every call is block-uniform",
        ),
        Returns::Unit,
    ),
    function(
        Keyword::Nvvm,
        "nvvm",
        promise(
            "the intrinsic's own requirements hold (its operands, its mask, the memory it reads \
             or writes), and the body computes on the CPU what the intrinsic computes on the GPU",
        ),
        Returns::Any,
    ),
    function(
        Keyword::Ptx,
        "ptx",
        promise(
            "the assembly writes no memory the caller may not write (a read-only input, another \
             thread's element, shared memory outside its write phase), is a barrier or a warp \
             collective only where every thread (lane) reaches the call, and the body computes on \
             the CPU what the assembly computes on the GPU",
        ),
        Returns::Any,
    ),
    function(
        Keyword::FloatConvert,
        "float_convert",
        promise(
            "the body converts as LLVM's `fptrunc` from `f32` to the format does (round to \
             nearest, ties to even; a NaN stays a NaN), giving its 16 bits, or as `fpext` from the \
             format's 16 bits to `f32`",
        ),
        Returns::Any,
    ),
    function(
        Keyword::Atomic,
        "atomic",
        promise(
            "the pointer argument points to a live, aligned value of the atomic's width that is not \
             a kernel's read-only input and that no thread accesses non-atomically meanwhile, and \
             the scope covers every thread that accesses it",
        ),
        Returns::Any,
    ),
    function(
        Keyword::DeviceRuntime,
        "device_runtime",
        promise(
            "the arguments are what the CUDA device-runtime function takes (for `vprintf`: a \
             NUL-terminated format and an argument buffer laid out for it)",
        ),
        Returns::Any,
    ),
    function(
        Keyword::WarpUniform,
        "warp_uniform",
        promise(
            "every lane of the calling warp gets the same result (the backend then admits warp \
             collectives under a branch on it)",
        ),
        Returns::Any,
    ),
    function(
        Keyword::WarpCollective,
        "warp_collective",
        Users::DeviceStd {
            why: "it emits nothing and marks the precondition of device-std's safe warp functions, \
                  whose mask is the warp's existing lanes",
            instead: "call one of `oxide::warp`'s collectives (`oxide::warp::sync()`), which carry it",
        },
        Returns::Unit,
    ),
    function(
        Keyword::UnrollHint,
        "unroll_hint",
        Users::DeviceStd {
            why: "it marks the loop around the call to be unrolled fully; device-std calls it from \
                  the iterator `oxide::unroll` returns, once per step, so that the loop it marks is \
                  the one over that iterator",
            instead: "loop over `oxide::unroll(iter)`",
        },
        Returns::Unit,
    ),
    function(
        Keyword::EmulatorCheck,
        "emulator_check",
        Users::DeviceStd {
            why: "it is a hook of device-std's race detector: the call emits nothing on the GPU, so \
                  its body runs on the CPU emulator only",
            instead: "use `oxide::shared::SharedArray::read`/`write` or \
                      `DisjointSlice::get_unchecked_mut`, which report their accesses",
        },
        Returns::Unit,
    ),
    function(
        Keyword::UniformOperands,
        "uniform_operands",
        Users::DeviceStd {
            why: "it emits nothing and marks a precondition of device-std's computed-slot shared \
                  steps: the backend checks that its arguments are the same in every thread of a \
                  block, which is what makes the step's map of slots to threads one map",
            instead: "use `oxide::shared::SharedRead::step`, which carries it",
        },
        Returns::Unit,
    ),
    function(
        Keyword::SharedAddress,
        "shared_address",
        Users::DeviceStd {
            why: "the call returns its pointer argument unchanged on the GPU, which is the block's \
                  copy only for device-std's shared-memory statics; on any other argument it \
                  launders a pointer (a `&T` into a `*mut T`) behind a body that does something else",
            instead: "use `oxide::shared::SharedArray::as_mut_ptr` or `oxide::shared::Shared`",
        },
        Returns::Any,
    ),
    function(
        Keyword::SharedWindow,
        "shared_window",
        Users::DeviceStd {
            why: "on the GPU the call is its pointer argument's offset in the `.shared` window, \
                  defined only for a pointer into block-shared memory; device-std calls it only \
                  on its own shared tiles, whose pointers it made",
            instead: "read shared tiles through `oxide::mma`'s fragment loads",
        },
        Returns::Any,
    ),
    structure(
        Keyword::SharedMemory,
        "shared_memory",
        "a `static` of the type is uninitialised block-shared memory on the GPU while the host \
         sees its initialiser; only device-std's shared types give it phases that make it sound",
        "use `oxide::shared::Shared` (safe) or `oxide::shared::SharedArray` (raw, `unsafe`)",
    ),
    structure(
        Keyword::DynamicSharedMemory,
        "dynamic_shared_memory",
        "a `static` of the type is the block's dynamic shared memory, which the launch sizes; \
         only device-std's `DynShared` parameter passes that size",
        "take an `oxide::shared::DynShared` kernel parameter",
    ),
];

/// The mark written `#[oxide_gpu::<name>]`, if there is one.
pub(crate) fn lookup(name: &str) -> Option<&'static Mark> {
    MARKS.iter().find(|mark| mark.name == name)
}

/// Every mark's name, for messages.
pub(crate) fn names() -> String {
    MARKS
        .iter()
        .map(|mark| format!("`{}`", mark.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether `krate` is device-std (its device crate, [`DEVICE_STD`]).
pub(crate) fn is_device_std(tcx: TyCtxt<'_>, krate: CrateNum) -> bool {
    tcx.crate_name(krate).as_str() == DEVICE_STD
}

/// Why a mark written on an item is not trusted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The mark is device-std's own.
    DeviceStdOnly,
    /// Outside device-std, a function mark needs an `unsafe fn`.
    SafeFunction,
}

impl Refusal {
    /// The message, naming the mark.
    pub(crate) fn message(self, mark: &Mark) -> String {
        match self {
            Refusal::DeviceStdOnly => format!(
                "`#[{TOOL}::{}]` is device-std's own: only the crate `{DEVICE_STD}` may write it",
                mark.name
            ),
            Refusal::SafeFunction => format!(
                "`#[{TOOL}::{}]` on a safe function: outside device-std a device mark needs an \
                 `unsafe fn`, because the backend compiles the call as the mark says, not as the \
                 body does",
                mark.name
            ),
        }
    }

    /// What to do instead.
    pub(crate) fn help(self, mark: &Mark) -> String {
        match (self, mark.users) {
            (_, Users::DeviceStd { why, instead }) => format!("{why}; {instead}"),
            (_, Users::UnsafeFn { promise }) => format!(
                "make it an `unsafe fn` and state what its callers promise: {promise}; call it \
                 inside `unsafe {{}}` with a `// SAFETY:` comment"
            ),
        }
    }
}

/// Whether a mark may be written where it is: `None` in device-std, and elsewhere for a mark
/// kernel crates may write on an `unsafe fn` that is one. The rule itself, without the
/// compiler, so that it is tested on its own.
pub(crate) fn refusal(mark: &Mark, in_device_std: bool, unsafe_fn: bool) -> Option<Refusal> {
    match mark.users {
        _ if in_device_std => None,
        Users::DeviceStd { .. } => Some(Refusal::DeviceStdOnly),
        Users::UnsafeFn { .. } if unsafe_fn => None,
        Users::UnsafeFn { .. } => Some(Refusal::SafeFunction),
    }
}

/// [`refusal`] of `mark` on the item `def_id`, of any crate.
pub(crate) fn refusal_of(tcx: TyCtxt<'_>, def_id: DefId, mark: &Mark) -> Option<Refusal> {
    // A safe `#[target_feature]` fn has an unsafe signature to rustc, but its callers' `unsafe`
    // (where there is one: other target-feature fns call it without) promises only the CPU
    // feature, never the mark's contract. Only a fn declared `unsafe` carries that promise.
    let unsafe_fn = matches!(tcx.def_kind(def_id), DefKind::Fn | DefKind::AssocFn)
        && tcx.fn_sig(def_id).skip_binder().safety().is_unsafe()
        && !tcx.codegen_fn_attrs(def_id).safe_target_features;
    refusal(mark, is_device_std(tcx, def_id.krate), unsafe_fn)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_keyword_is_written_once() {
        let mut names: Vec<&str> = MARKS.iter().map(|m| m.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), MARKS.len(), "a name written twice");
        let distinct: rustc_data_structures::fx::FxHashSet<Keyword> =
            MARKS.iter().map(|m| m.keyword).collect();
        assert_eq!(distinct.len(), MARKS.len(), "a keyword listed twice");
        assert_eq!(
            MARKS.len(),
            std::mem::variant_count::<Keyword>(),
            "a keyword without its entry"
        );
        for mark in MARKS {
            assert_eq!(lookup(mark.name).map(|m| m.keyword), Some(mark.keyword));
        }
        assert!(lookup("ptxx").is_none());
    }

    #[test]
    fn type_marks_are_device_stds_and_function_marks_need_unsafe() {
        for mark in MARKS {
            // Types have no `unsafe` to carry a promise: their marks are device-std's.
            if mark.target == Target::Struct {
                assert!(
                    matches!(mark.users, Users::DeviceStd { .. }),
                    "{}",
                    mark.name
                );
                assert_eq!(mark.returns, Returns::Any, "{}", mark.name);
            }
            // device-std may write every mark, on any item.
            assert_eq!(refusal(mark, true, false), None, "{}", mark.name);
            let expected = match mark.users {
                Users::DeviceStd { .. } => {
                    (Some(Refusal::DeviceStdOnly), Some(Refusal::DeviceStdOnly))
                }
                Users::UnsafeFn { .. } => (Some(Refusal::SafeFunction), None),
            };
            assert_eq!(
                (refusal(mark, false, false), refusal(mark, false, true)),
                expected,
                "{}",
                mark.name
            );
        }
        let users = |name| lookup(name).unwrap().users;
        for name in [
            "ptx",
            "nvvm",
            "atomic",
            "special_register",
            "barrier",
            "device_runtime",
            "warp_uniform",
        ] {
            assert!(matches!(users(name), Users::UnsafeFn { .. }), "{name}");
        }
        for name in [
            "warp_collective",
            "emulator_check",
            "shared_address",
            "shared_window",
            "shared_memory",
            "dynamic_shared_memory",
        ] {
            assert!(matches!(users(name), Users::DeviceStd { .. }), "{name}");
        }
    }

    #[test]
    fn messages_name_the_mark_and_say_what_to_do() {
        let ptx = lookup("ptx").unwrap();
        assert!(
            Refusal::SafeFunction
                .message(ptx)
                .contains("`#[oxide_gpu::ptx]`")
        );
        assert!(Refusal::SafeFunction.help(ptx).contains("unsafe fn"));
        let shared = lookup("shared_memory").unwrap();
        assert!(
            Refusal::DeviceStdOnly
                .message(shared)
                .contains("`#[oxide_gpu::shared_memory]`")
        );
        assert!(
            Refusal::DeviceStdOnly
                .help(shared)
                .contains("oxide::shared::Shared")
        );
    }
}
