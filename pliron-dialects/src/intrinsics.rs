//! The one registry of device intrinsics: which device-std function becomes which `gpu` op, and
//! which LLVM intrinsic that op becomes. The backend looks calls up here by path; the lowering
//! reads the LLVM names from here. Nothing else matches intrinsic names.

/// What a device-std intrinsic is on the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntrinsicKind {
    /// `gpu.special_reg` of this PTX register; returns `u32`.
    SpecialReg(&'static str),
    /// `gpu.barrier`.
    Barrier,
}

#[derive(Clone, Copy, Debug)]
pub struct Intrinsic {
    /// The device-std function, as rustc prints its path.
    pub device_std_path: &'static str,
    pub kind: IntrinsicKind,
    /// The LLVM intrinsic the `gpu` op lowers to.
    pub llvm_intrinsic: &'static str,
}

macro_rules! special_regs {
    ($($fn_name:literal => $reg:literal => $llvm:literal,)*) => {
        &[$(Intrinsic {
            device_std_path: concat!("oxide::thread::", $fn_name),
            kind: IntrinsicKind::SpecialReg($reg),
            llvm_intrinsic: $llvm,
        },)*]
    };
}

const SPECIAL_REGISTERS: &[Intrinsic] = special_regs! {
    "thread_idx_x" => "tid.x" => "llvm.nvvm.read.ptx.sreg.tid.x",
    "thread_idx_y" => "tid.y" => "llvm.nvvm.read.ptx.sreg.tid.y",
    "thread_idx_z" => "tid.z" => "llvm.nvvm.read.ptx.sreg.tid.z",
    "block_idx_x" => "ctaid.x" => "llvm.nvvm.read.ptx.sreg.ctaid.x",
    "block_idx_y" => "ctaid.y" => "llvm.nvvm.read.ptx.sreg.ctaid.y",
    "block_idx_z" => "ctaid.z" => "llvm.nvvm.read.ptx.sreg.ctaid.z",
    "block_dim_x" => "ntid.x" => "llvm.nvvm.read.ptx.sreg.ntid.x",
    "block_dim_y" => "ntid.y" => "llvm.nvvm.read.ptx.sreg.ntid.y",
    "block_dim_z" => "ntid.z" => "llvm.nvvm.read.ptx.sreg.ntid.z",
    "grid_dim_x" => "nctaid.x" => "llvm.nvvm.read.ptx.sreg.nctaid.x",
    "grid_dim_y" => "nctaid.y" => "llvm.nvvm.read.ptx.sreg.nctaid.y",
    "grid_dim_z" => "nctaid.z" => "llvm.nvvm.read.ptx.sreg.nctaid.z",
};

const BARRIER: Intrinsic = Intrinsic {
    device_std_path: "oxide::thread::sync_threads",
    kind: IntrinsicKind::Barrier,
    llvm_intrinsic: "llvm.nvvm.barrier.cta.sync.aligned.all",
};

/// A Rust operation the GPU has no exact instruction for, implemented in Rust in device-std
/// (`oxide::soft`) and compiled like any device code.
#[derive(Clone, Copy, Debug)]
pub struct SoftFn {
    /// The Rust construct, as a user would name it.
    pub construct: &'static str,
    pub device_std_path: &'static str,
}

/// The soft implementations the backend calls.
pub const SOFT: &[SoftFn] = &[
    SoftFn {
        construct: "`%` on f32",
        device_std_path: "oxide::soft::fmod_f32",
    },
    SoftFn {
        construct: "`%` on f64",
        device_std_path: "oxide::soft::fmod_f64",
    },
    SoftFn {
        construct: "core::intrinsics::compare_bytes",
        device_std_path: "oxide::soft::compare_bytes",
    },
    SoftFn {
        construct: "`as` between i128/u128 and f32/f64",
        device_std_path: "oxide::soft::{from}_to_{to}",
    },
];

/// Every intrinsic, for documentation and tests.
pub fn all() -> impl Iterator<Item = &'static Intrinsic> {
    SPECIAL_REGISTERS.iter().chain(std::iter::once(&BARRIER))
}

/// The intrinsic a device-std function path names, if it is one.
pub fn by_path(path: &str) -> Option<&'static Intrinsic> {
    all().find(|i| i.device_std_path == path)
}

/// The LLVM intrinsic reading a special register.
pub fn special_reg_llvm_name(register: &str) -> Option<&'static str> {
    all().find_map(|i| match i.kind {
        IntrinsicKind::SpecialReg(r) if r == register => Some(i.llvm_intrinsic),
        _ => None,
    })
}

/// The value a special register has in every launch of a one-dimensional grid of
/// one-dimensional blocks (the launch contract `grid = "1d"`), if fixed.
pub fn special_reg_in_1d_grid(register: &str) -> Option<u32> {
    match register {
        "tid.y" | "tid.z" | "ctaid.y" | "ctaid.z" => Some(0),
        "ntid.y" | "ntid.z" | "nctaid.y" | "nctaid.z" => Some(1),
        _ => None,
    }
}

pub fn barrier() -> &'static Intrinsic {
    &BARRIER
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_path_is_unique_and_found() {
        let paths: Vec<_> = all().map(|i| i.device_std_path).collect();
        for p in &paths {
            assert_eq!(paths.iter().filter(|q| q == &p).count(), 1, "{p}");
            assert!(by_path(p).is_some());
        }
        assert_eq!(paths.len(), 13);
    }

    #[test]
    fn registers_map_to_nvvm() {
        assert_eq!(
            special_reg_llvm_name("ctaid.y"),
            Some("llvm.nvvm.read.ptx.sreg.ctaid.y")
        );
        assert_eq!(special_reg_llvm_name("bogus"), None);
        assert!(by_path("oxide::thread::thread_idx_w").is_none());
    }
}
