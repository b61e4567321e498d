//! The registry: what the backend knows about definitions, keyed by `DefId`, never by printed
//! paths.
//!
//! device-std (`oxide-device`) registers the tool `oxide_gpu` and marks what the GPU does
//! differently from the host with attributes (docs/contracts.md, "Device intrinsics"):
//!
//! | attribute on a device-std item | a call becomes |
//! |---|---|
//! | `#[oxide_gpu::special_register("tid.x")]` | `gpu.special_reg` (folded under `grid = "1d"`) |
//! | `#[oxide_gpu::barrier]` | `gpu.barrier` |
//! | `#[oxide_gpu::emulator_check]` | nothing: a hook of the CPU emulator's race detector |
//! | `#[oxide_gpu::unroll_hint]` | a call that llvm-emit turns into a full-unroll mark on the loop around it |
//! | `#[oxide_gpu::warp_uniform]` | the function as it is; the uniformity analysis takes its result to be the same in every lane of a warp |
//! | `#[oxide_gpu::warp_collective]` | nothing: it marks a point every thread of the block must reach (the safe warp functions call it) |
//! | `#[oxide_gpu::nvvm("llvm.nvvm.…")]` | `gpu.intrinsic_call` of that NVVM/LLVM intrinsic, with the call's arguments |
//! | `#[oxide_gpu::ptx(template = "…", constraints = "…", volatile)]` | `gpu.inline_asm`, with the call's arguments |
//! | `#[oxide_gpu::float_convert("bf16")]` (or `"f16"`) | on `f32 -> u16`, LLVM's `fptrunc` to that format and its bits; on `u16 -> f32`, the bits as that format and `fpext` (LLVM packs two neighbouring roundings into one `cvt.rn.bf16x2.f32`, which it cannot do across inline PTX) |
//! | `#[oxide_gpu::atomic(op = "add", scope = "block", ordering = "relaxed")]` | an LLVM atomic (`atomicrmw`, `cmpxchg`, `fence`) at that scope, on the call's arguments |
//! | `#[oxide_gpu::device_runtime("vprintf")]` | a call of that function of CUDA's device runtime, which the driver links |
//! | `#[oxide_gpu::shared_address]` | on the GPU, the call returns its first (pointer) argument |
//! | `#[oxide_gpu::shared_window]` | the offset of its pointer argument in the `.shared` window (`addrspacecast` to `addrspace(3)`, `ptrtoint`), which LLVM folds with the cast that made the pointer generic |
//! | `#[oxide_gpu::shared_memory]` (on a type) | a `static` of the type is block-shared memory (`.shared`) |
//! | `#[oxide_gpu::dynamic_shared_memory]` (on a type) | a `static` of the type is the start of the dynamic shared memory (`.extern .shared .align 16`) |
//!
//! The function's body is its host implementation (the CPU emulator's), so a new instruction is
//! a function of device-std with an attribute: no backend change. The keywords, the items they
//! mark and who may write them are `crate::marks`'s: outside device-std a mark is believed only
//! on an `unsafe fn`, and only for the marks a caller can make a promise about. Functions the backend itself
//! calls (exact soft implementations of constructs PTX has no instruction for) are found by
//! their diagnostic items (`#[rustc_diagnostic_item = "oxide_soft_…"]`), the way rustc finds
//! `core`'s items. Standard-library items are classified by lang and diagnostic items. How each
//! kernel parameter is passed is its type's `oxide::KernelParam` impl (the trait's diagnostic
//! item `oxide_kernel_param`), whose `ABI_CODE` the backend evaluates ([`Registry::kernel_param_abi`]).
//!
//! The registry's vocabulary lives beside it, below the analysis and the importer that read it:
//! `atomics` (the operations, scopes and orderings an atomic mark names), `math` (the libdevice
//! tables), and `check`, which parses every mark of the crate where it is written.

pub(crate) mod atomics;
pub(crate) mod check;
pub(crate) mod math;

use std::cell::RefCell;

use oxide_dialects::gpu::SpecialRegister;
use pliron_llvm::attributes::AtomicOrderingAttr;
use rustc_ast::{LitKind, MetaItemInner};
use rustc_data_structures::fx::FxHashMap;
use rustc_hir::{LangItem, def::DefKind, def_id::DefId};
use rustc_middle::ty::TyCtxt;
use rustc_span::{Symbol, sym};

use crate::error::HostOnly;
use crate::marks::{self, Keyword, Mark, TOOL, Target};
use atomics::{AtomicScope, ScopedOp, ordering_from_name};

/// What a call of a marked device-std function becomes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum DeviceFn {
    SpecialRegister(SpecialRegister),
    Barrier,
    /// Emits nothing; the uniformity analysis requires that every thread of the block reaches
    /// it, as it does for barriers: the safe warp collectives call it, so that their full-warp
    /// shuffles are executed by every lane of the warp.
    WarpCollective,
    /// Emits nothing: the host body is a check of the CPU emulator (its race detector).
    EmulatorCheck,
    /// Emits nothing; the uniformity analysis requires that its arguments are the same in every
    /// thread of the block (device-std's computed-slot shared steps pass their slot map).
    UniformOperands,
    /// A call of [`oxide_contract::UNROLL_HINT_SYMBOL`]: the loop around it is unrolled fully.
    UnrollHint,
    /// An LLVM (usually NVVM) intrinsic, called with the function's arguments; its result is
    /// the function's.
    Nvvm {
        intrinsic: String,
    },
    /// The call returns its one argument: on the GPU the address of a shared-memory static is
    /// already the block's own, which the host implementation has to look up per block.
    SharedAddress,
    /// The offset of the call's pointer argument (into block-shared memory) in the `.shared`
    /// window, as the call's integer result: `cvta.to.shared` as LLVM sees it, so that it folds
    /// with the `cvta.shared` that made the pointer generic (inline PTX hid the pair from LLVM,
    /// and ptxas rebuilt the generic address, `S2R SR_SWINHI`, in every loop that used it).
    SharedWindow,
    /// An atomic operation at an explicit scope and ordering (device-std's scoped and float
    /// atomics, scoped fences).
    Atomic {
        op: ScopedOp,
        scope: AtomicScope,
        ordering: AtomicOrderingAttr,
    },
    /// A function of CUDA's device runtime (`vprintf`), declared and called with the
    /// function's arguments; the driver links it when it loads the PTX.
    DeviceRuntime {
        symbol: String,
    },
    /// A conversion between `f32` and a 16-bit float format as LLVM casts (`fptrunc`,
    /// `fpext`), the format's values carried as their bits (`u16`): which way is the
    /// function's signature's.
    FloatConvert {
        format: Float16,
    },
    /// Inline PTX with LLVM constraints (`=r,r`), given the function's arguments.
    Ptx {
        template: String,
        constraints: String,
        side_effects: bool,
    },
}

/// The 16-bit float formats of `float_convert` marks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Float16 {
    /// bfloat16 (LLVM `bfloat`).
    Bf16,
    /// IEEE binary16 (LLVM `half`).
    F16,
}

impl Float16 {
    /// The format written in a mark: `"bf16"` or `"f16"`.
    fn from_name(name: &str) -> Option<Float16> {
        match name {
            "bf16" => Some(Float16::Bf16),
            "f16" => Some(Float16::F16),
            _ => None,
        }
    }
}

/// A device-std function the backend calls for a construct the GPU has no instruction for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum SoftFn {
    FmodF32,
    FmodF64,
    CompareBytes,
    I128ToF32,
    U128ToF32,
    I128ToF64,
    U128ToF64,
    F32ToI128,
    F32ToU128,
    F64ToI128,
    F64ToU128,
}

impl SoftFn {
    /// The diagnostic item device-std gives the function.
    fn diagnostic_item(self) -> &'static str {
        match self {
            SoftFn::FmodF32 => "oxide_soft_fmod_f32",
            SoftFn::FmodF64 => "oxide_soft_fmod_f64",
            SoftFn::CompareBytes => "oxide_soft_compare_bytes",
            SoftFn::I128ToF32 => "oxide_soft_i128_to_f32",
            SoftFn::U128ToF32 => "oxide_soft_u128_to_f32",
            SoftFn::I128ToF64 => "oxide_soft_i128_to_f64",
            SoftFn::U128ToF64 => "oxide_soft_u128_to_f64",
            SoftFn::F32ToI128 => "oxide_soft_f32_to_i128",
            SoftFn::F32ToU128 => "oxide_soft_f32_to_u128",
            SoftFn::F64ToI128 => "oxide_soft_f64_to_i128",
            SoftFn::F64ToU128 => "oxide_soft_f64_to_u128",
        }
    }

    /// The Rust construct it implements, as a user would name it.
    pub(crate) fn construct(self) -> &'static str {
        match self {
            SoftFn::FmodF32 => "`%` on f32",
            SoftFn::FmodF64 => "`%` on f64",
            SoftFn::CompareBytes => "comparing byte slices",
            SoftFn::I128ToF32
            | SoftFn::U128ToF32
            | SoftFn::I128ToF64
            | SoftFn::U128ToF64
            | SoftFn::F32ToI128
            | SoftFn::F32ToU128
            | SoftFn::F64ToI128
            | SoftFn::F64ToU128 => "`as` between i128/u128 and f32/f64",
        }
    }
}

/// A malformed `#[oxide_gpu::…]` attribute (device-std and the backend disagree), or a mark
/// the rule of `crate::marks` does not believe.
#[derive(Clone, Debug)]
pub(crate) struct BadAttribute(pub(crate) String);

pub(crate) struct Registry<'tcx> {
    tcx: TyCtxt<'tcx>,
    tool: Symbol,
    device_fns: RefCell<FxHashMap<DefId, Result<Option<DeviceFn>, BadAttribute>>>,
}

impl<'tcx> Registry<'tcx> {
    pub(crate) fn new(tcx: TyCtxt<'tcx>) -> Self {
        Registry {
            tcx,
            tool: Symbol::intern(TOOL),
            device_fns: RefCell::default(),
        }
    }

    fn marks(&self, def_id: DefId) -> impl Iterator<Item = (Symbol, &'tcx rustc_hir::Attribute)> {
        let tool = self.tool;
        // Tool attributes are not parsed by rustc, so `find_attr!` does not see them.
        #[expect(deprecated)]
        let attrs = self.tcx.get_all_attrs(def_id);
        attrs
            .iter()
            .filter_map(move |attr| match attr.path().as_slice() {
                [first, name] if *first == tool => Some((*name, attr)),
                _ => None,
            })
    }

    /// What a call of `def_id` becomes, if device-std marked it.
    pub(crate) fn device_fn(&self, def_id: DefId) -> Result<Option<DeviceFn>, BadAttribute> {
        if let Some(known) = self.device_fns.borrow().get(&def_id) {
            return known.clone();
        }
        let parsed = self.parse_device_fn(def_id);
        self.device_fns.borrow_mut().insert(def_id, parsed.clone());
        parsed
    }

    fn parse_device_fn(&self, def_id: DefId) -> Result<Option<DeviceFn>, BadAttribute> {
        let mut found = None;
        for (name, attr) in self.marks(def_id) {
            let mark = marks::lookup(name.as_str()).ok_or_else(|| {
                BadAttribute(format!(
                    "`#[{TOOL}::{name}]` is not an attribute this backend knows"
                ))
            })?;
            // A type's mark on a function means nothing here; where it is written it is an
            // error (`check`).
            if mark.target != Target::Function {
                continue;
            }
            // A crate compiled without the backend escaped the check where marks are written:
            // its marks are believed only where that check would have accepted them.
            if let Some(refusal) = marks::refusal_of(self.tcx, def_id, mark) {
                return Err(BadAttribute(refusal.message(mark)));
            }
            let Some(parsed) = parse_function_mark(mark, attr)? else {
                continue;
            };
            if found.replace(parsed).is_some() {
                return Err(BadAttribute(
                    "a function has two device intrinsic attributes".into(),
                ));
            }
        }
        Ok(found)
    }

    /// Whether `def_id` carries the mark `keyword` and may: outside device-std a type mark is
    /// never believed (a type cannot be `unsafe`), a function mark only on an `unsafe fn`.
    fn has_trusted_mark(&self, def_id: DefId, keyword: Keyword) -> bool {
        self.marks(def_id).any(|(name, _)| {
            marks::lookup(name.as_str()).is_some_and(|mark| {
                mark.keyword == keyword && marks::refusal_of(self.tcx, def_id, mark).is_none()
            })
        })
    }

    /// `oxide::KernelParam::ABI_CODE`, the associated constant that says how a kernel parameter
    /// of a type is passed (`oxide_contract::ParamAbi::code`); `None` when no crate of the build
    /// defines the trait (a kernel built without device-std).
    pub(crate) fn kernel_param_abi(&self) -> Option<DefId> {
        let tcx = self.tcx;
        let param = tcx.get_diagnostic_item(Symbol::intern("oxide_kernel_param"))?;
        tcx.associated_items(param)
            .filter_by_name_unhygienic(Symbol::intern("ABI_CODE"))
            .next()
            .map(|item| item.def_id)
    }

    /// Whether a `static` of the type `adt` is block-shared memory.
    pub(crate) fn is_shared_memory(&self, adt: DefId) -> bool {
        self.has_trusted_mark(adt, Keyword::SharedMemory)
    }

    /// Whether `def_id`'s result is the same in every lane of a warp (`#[oxide_gpu::warp_uniform]`,
    /// read by the uniformity analysis).
    pub(crate) fn is_warp_uniform(&self, def_id: DefId) -> bool {
        self.has_trusted_mark(def_id, Keyword::WarpUniform)
    }

    /// Whether a `static` of the type `adt` is the start of the block's dynamic shared memory.
    pub(crate) fn is_dynamic_shared_memory(&self, adt: DefId) -> bool {
        self.has_trusted_mark(adt, Keyword::DynamicSharedMemory)
    }

    /// The device-std function implementing `soft`, if device-std is linked.
    pub(crate) fn soft_fn(&self, soft: SoftFn) -> Option<DefId> {
        self.tcx
            .get_diagnostic_item(Symbol::intern(soft.diagnostic_item()))
    }

    /// Whether `def_id` is a function of the standard library (core, alloc, std).
    pub(crate) fn is_std(&self, def_id: DefId) -> bool {
        [sym::core, sym::std, sym::alloc].contains(&self.tcx.crate_name(def_id.krate))
    }

    /// Whether a call of `def_id` is a standard-library panic: on the GPU it traps.
    pub(crate) fn is_std_panic(&self, def_id: DefId) -> bool {
        self.is_std(def_id)
            && matches!(self.tcx.def_kind(def_id), DefKind::Fn | DefKind::AssocFn)
            && self
                .tcx
                .fn_sig(def_id)
                .skip_binder()
                .output()
                .skip_binder()
                .is_never()
    }

    /// Why a standard-library function cannot run on the GPU, if it cannot. Checked before its
    /// body is imported, so that the error names the call the user wrote.
    /// The libdevice twin of a C math function `std` or `core` declares (`tanhf`, `cbrt`...),
    /// which `f32::tanh` and friends call.
    pub(crate) fn c_math(&self, def_id: DefId) -> Option<&'static str> {
        let tcx = self.tcx;
        let krate = tcx.crate_name(def_id.krate);
        if ![sym::std, sym::core].contains(&krate) || !tcx.is_foreign_item(def_id) {
            return None;
        }
        math::c_math_libdevice(tcx.item_name(def_id).as_str())
    }

    pub(crate) fn host_only(&self, def_id: DefId) -> Option<HostOnly> {
        let tcx = self.tcx;
        let krate = tcx.crate_name(def_id.krate);
        let within = |anchor: Option<DefId>| {
            anchor.is_some_and(|anchor| tcx.is_descendant_of(def_id, tcx.parent(anchor)))
        };
        if ![sym::core, sym::std, sym::alloc].contains(&krate) {
            None
        } else if within(tcx.lang_items().get(LangItem::FormatArguments)) {
            Some(HostOnly::Formatting)
        } else if krate == sym::alloc {
            Some(HostOnly::Heap)
        } else if within(tcx.get_diagnostic_item(Symbol::intern("LocalKey"))) {
            Some(HostOnly::ThreadLocal)
        } else if tcx.is_foreign_item(def_id)
            && math::c_math_without_twin(tcx.item_name(def_id).as_str())
        {
            Some(HostOnly::MathWithoutGpuVersion)
        } else if krate == sym::std
            && !tcx.is_mir_available(def_id)
            && self.c_math(def_id).is_none()
        {
            // `std`'s own float methods (`f32::sqrt`...) are inline wrappers of core intrinsics
            // and have MIR; what has none is the OS interface.
            Some(HostOnly::Std)
        } else {
            None
        }
    }
}

/// What a call of a function with `mark` becomes (`None`: the function as it is, for
/// `warp_uniform`, which the uniformity analysis reads), or why `attr`'s arguments are wrong.
/// Also what `check` runs where a mark is written.
pub(crate) fn parse_function_mark(
    mark: &Mark,
    attr: &rustc_hir::Attribute,
) -> Result<Option<DeviceFn>, BadAttribute> {
    let word = || {
        if attr.is_word() {
            Ok(())
        } else {
            Err(BadAttribute(format!(
                "`#[{TOOL}::{}]` takes no arguments",
                mark.name
            )))
        }
    };
    match mark.keyword {
        Keyword::SpecialRegister => {
            let register = single_string(attr, mark.name)?;
            SpecialRegister::from_ptx_name(&register)
                .map(|r| Some(DeviceFn::SpecialRegister(r)))
                .ok_or_else(|| BadAttribute(format!("`{register}` is not a special register")))
        }
        Keyword::Barrier => word().map(|()| Some(DeviceFn::Barrier)),
        Keyword::WarpCollective => word().map(|()| Some(DeviceFn::WarpCollective)),
        Keyword::EmulatorCheck => word().map(|()| Some(DeviceFn::EmulatorCheck)),
        Keyword::UniformOperands => word().map(|()| Some(DeviceFn::UniformOperands)),
        Keyword::UnrollHint => word().map(|()| Some(DeviceFn::UnrollHint)),
        Keyword::SharedAddress => word().map(|()| Some(DeviceFn::SharedAddress)),
        Keyword::SharedWindow => word().map(|()| Some(DeviceFn::SharedWindow)),
        Keyword::WarpUniform => word().map(|()| None),
        Keyword::Nvvm => Ok(Some(DeviceFn::Nvvm {
            intrinsic: single_string(attr, mark.name)?,
        })),
        Keyword::Ptx => parse_ptx(attr).map(Some),
        Keyword::FloatConvert => {
            let name = single_string(attr, mark.name)?;
            let format = Float16::from_name(&name).ok_or_else(|| {
                BadAttribute(format!(
                    "`#[{TOOL}::float_convert]` takes the format `\"bf16\"` or `\"f16\"`, not `{name}`"
                ))
            })?;
            Ok(Some(DeviceFn::FloatConvert { format }))
        }
        Keyword::Atomic => parse_atomic(attr).map(Some),
        Keyword::DeviceRuntime => {
            let symbol = single_string(attr, mark.name)?;
            if !oxide_contract::DEVICE_RUNTIME_FUNCTIONS.contains(&symbol.as_str()) {
                return Err(BadAttribute(format!(
                    "`{symbol}` is not a device-runtime function oxide declares ({})",
                    oxide_contract::DEVICE_RUNTIME_FUNCTIONS.join(", ")
                )));
            }
            Ok(Some(DeviceFn::DeviceRuntime { symbol }))
        }
        Keyword::SharedMemory | Keyword::DynamicSharedMemory => Err(BadAttribute(format!(
            "`#[{TOOL}::{}]` marks a struct, not a function",
            mark.name
        ))),
    }
}

/// The one string argument of `#[oxide::<what>("...")]`.
fn single_string(attr: &rustc_hir::Attribute, what: &str) -> Result<String, BadAttribute> {
    let bad = || BadAttribute(format!("`#[{TOOL}::{what}]` takes one string literal"));
    let items = attr.meta_item_list().ok_or_else(bad)?;
    match items.as_slice() {
        [MetaItemInner::Lit(lit)] => match lit.kind {
            LitKind::Str(s, _) => Ok(s.to_string()),
            _ => Err(bad()),
        },
        _ => Err(bad()),
    }
}

/// `#[oxide_gpu::atomic(op = "...", scope = "...", ordering = "...")]`.
fn parse_atomic(attr: &rustc_hir::Attribute) -> Result<DeviceFn, BadAttribute> {
    let bad = |why: &str| BadAttribute(format!("`#[{TOOL}::atomic(..)]`: {why}"));
    let items = attr
        .meta_item_list()
        .ok_or_else(|| bad("expected `op = \"...\", scope = \"...\", ordering = \"...\"`"))?;
    let (mut op, mut scope, mut ordering) = (None, None, None);
    for item in items.iter() {
        let name = item.name().map(|n| n.to_string()).unwrap_or_default();
        let value = item.value_str().map(|s| s.to_string()).unwrap_or_default();
        match name.as_str() {
            "op" => {
                op = Some(
                    ScopedOp::from_name(&value)
                        .ok_or_else(|| bad(&format!("unknown op `{value}`")))?,
                )
            }
            "scope" => {
                scope = Some(AtomicScope::from_name(&value).ok_or_else(|| {
                    bad(&format!("unknown scope `{value}` (block, device, system)"))
                })?)
            }
            "ordering" => {
                ordering = Some(
                    ordering_from_name(&value)
                        .ok_or_else(|| bad(&format!("unknown ordering `{value}`")))?,
                )
            }
            _ => return Err(bad(&format!("unknown argument `{name}`"))),
        }
    }
    Ok(DeviceFn::Atomic {
        op: op.ok_or_else(|| bad("missing `op`"))?,
        scope: scope.ok_or_else(|| bad("missing `scope`"))?,
        ordering: ordering.ok_or_else(|| bad("missing `ordering`"))?,
    })
}

/// `#[oxide_gpu::ptx(template = "...", constraints = "...", volatile)]`.
fn parse_ptx(attr: &rustc_hir::Attribute) -> Result<DeviceFn, BadAttribute> {
    let bad = |why: &str| BadAttribute(format!("`#[{TOOL}::ptx(..)]`: {why}"));
    let items = attr
        .meta_item_list()
        .ok_or_else(|| bad("expected `template = \"...\", constraints = \"...\"`"))?;
    let (mut template, mut constraints, mut side_effects) = (None, None, false);
    for item in items.iter() {
        let name = item.name().map(|n| n.to_string()).unwrap_or_default();
        match name.as_str() {
            "template" => template = item.value_str().map(|s| s.to_string()),
            "constraints" => constraints = item.value_str().map(|s| s.to_string()),
            "volatile" if item.is_word() => side_effects = true,
            _ => return Err(bad(&format!("unknown argument `{name}`"))),
        }
    }
    Ok(DeviceFn::Ptx {
        template: template.ok_or_else(|| bad("missing `template = \"...\"`"))?,
        constraints: constraints.unwrap_or_default(),
        side_effects,
    })
}
