//! The GPU architectures oxide compiles for and the PTX ISA version each is compiled with.
//!
//! Supported means both tools in the pipeline take it: the NVPTX backend of rustc's LLVM 22
//! (`llc -march=nvptx64 -mcpu=help`) and ptxas 13.0 (`ptxas --help`, `--gpu-name`). CUDA 13
//! dropped everything below sm_75, and LLVM's sm_101 is ptxas 13.0's sm_110. Each entry was
//! checked by compiling a kernel with llc for that CPU and ISA and assembling it with ptxas.

use std::fmt;
use std::str::FromStr;

/// A PTX ISA version: the `.version` line of the PTX and LLVM's `+ptxNN` feature.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PtxIsa {
    pub major: u8,
    pub minor: u8,
}

impl PtxIsa {
    /// The LLVM target feature that selects this version: `+ptx80` for 8.0.
    pub fn llvm_feature(self) -> String {
        format!("+ptx{}{}", self.major, self.minor)
    }
}

/// As in the PTX's `.version` line: `8.0`.
impl fmt::Display for PtxIsa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

const fn isa(major: u8, minor: u8) -> PtxIsa {
    PtxIsa { major, minor }
}

/// PTX ISA 8.0 (CUDA 12.0) is the floor: the oldest that sm_90 and sm_90a accept, so one PTX
/// version serves every architecture up to sm_87 and older drivers still load it. Newer
/// architectures get the first ISA that knows them (LLVM refuses anything older).
const FLOOR: PtxIsa = isa(8, 0);

/// PTX ISA 8.4 (CUDA 12.4): the first with `mma.sync` on fp8 (e4m3/e5m2) operands, and with the
/// fp8 conversions on sm_89 (8.1): what sm_89, sm_90 and sm_90a declare, so that the
/// tensor-core API builds whole there. Drivers of CUDA 12.4 (R550) and later load it.
const FP8: PtxIsa = isa(8, 4);

/// Every supported architecture with its PTX ISA, in the order the error message lists them.
const SUPPORTED: [(&str, PtxIsa); 23] = [
    ("sm_75", FLOOR),
    ("sm_80", FLOOR),
    ("sm_86", FLOOR),
    ("sm_87", FLOOR),
    ("sm_88", isa(9, 0)),
    ("sm_89", FP8),
    ("sm_90", FP8),
    ("sm_90a", FP8),
    ("sm_100", isa(8, 6)),
    ("sm_100a", isa(8, 6)),
    ("sm_100f", isa(8, 8)),
    ("sm_103", isa(8, 8)),
    ("sm_103a", isa(8, 8)),
    ("sm_103f", isa(8, 8)),
    ("sm_110", isa(9, 0)),
    ("sm_110a", isa(9, 0)),
    ("sm_110f", isa(9, 0)),
    ("sm_120", isa(8, 7)),
    ("sm_120a", isa(8, 7)),
    ("sm_120f", isa(8, 8)),
    ("sm_121", isa(8, 8)),
    ("sm_121a", isa(8, 8)),
    ("sm_121f", isa(8, 8)),
];

/// A GPU architecture oxide supports, such as `sm_90` or `sm_90a`: only [`FromStr`] and
/// [`GpuArch::supported`] make one, so holding a `GpuArch` means it was validated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GpuArch {
    /// Index into `SUPPORTED`.
    index: usize,
}

/// What kernels are compiled for unless told otherwise: Hopper (H100, H200).
pub const DEFAULT_ARCH: GpuArch = GpuArch { index: 6 };

impl GpuArch {
    /// The processor name, as LLVM, ptxas and the PTX `.target` line spell it: `sm_90`.
    pub fn name(self) -> &'static str {
        SUPPORTED[self.index].0
    }

    /// The PTX ISA version the PTX for this architecture declares.
    pub fn ptx_isa(self) -> PtxIsa {
        SUPPORTED[self.index].1
    }

    /// The compute capability as one number, major·10 + minor: 90 for `sm_90` and `sm_90a`,
    /// 100 for `sm_100f` (what `#[kernel(sm = 80)]` compares with).
    pub fn compute_capability(self) -> u32 {
        let digits: String = self.name()[3..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().unwrap_or(0)
    }

    /// Whether the architecture has thread-block clusters, and with them PTX's `.cluster`
    /// scope: Hopper (sm_90) and later. Before it a cluster is one block.
    pub fn has_clusters(self) -> bool {
        self.compute_capability() >= 90
    }

    /// Every supported architecture, oldest first.
    pub fn supported() -> impl Iterator<Item = GpuArch> {
        (0..SUPPORTED.len()).map(|index| GpuArch { index })
    }
}

impl fmt::Display for GpuArch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for GpuArch {
    type Err = ArchError;

    fn from_str(s: &str) -> Result<GpuArch, ArchError> {
        SUPPORTED
            .iter()
            .position(|(name, _)| *name == s)
            .map(|index| GpuArch { index })
            .ok_or_else(|| ArchError {
                given: s.to_owned(),
            })
    }
}

/// A name that is not a supported architecture. The message lists the supported ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArchError {
    /// What was asked for.
    pub given: String,
}

impl fmt::Display for ArchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let given = &self.given;
        let looks_like_one = given.strip_prefix("sm_").is_some_and(|rest| {
            let digits = rest.trim_end_matches(['a', 'f']);
            rest.len() - digits.len() <= 1
                && !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit())
        });
        if looks_like_one {
            write!(
                f,
                "GPU architecture `{given}` is not supported (oxide compiles with LLVM 22 and \
                 ptxas 13.0)"
            )?;
        } else {
            write!(
                f,
                "`{given}` is not a GPU architecture name like `{DEFAULT_ARCH}`"
            )?;
        }
        f.write_str("; the supported architectures are ")?;
        for (i, arch) in GpuArch::supported().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(arch.name())?;
        }
        Ok(())
    }
}

impl std::error::Error for ArchError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compute_capabilities_come_from_the_names() {
        let cc = |name: &str| name.parse::<GpuArch>().unwrap().compute_capability();
        assert_eq!(
            (cc("sm_75"), cc("sm_90a"), cc("sm_100f"), cc("sm_121")),
            (75, 90, 100, 121)
        );
    }

    /// Every architecture's answers, pinned: a new entry in `SUPPORTED` must be added here too.
    #[test]
    fn every_architecture_answers_its_capability_and_clusters() {
        let expected = [
            ("sm_75", 75, false),
            ("sm_80", 80, false),
            ("sm_86", 86, false),
            ("sm_87", 87, false),
            ("sm_88", 88, false),
            ("sm_89", 89, false),
            ("sm_90", 90, true),
            ("sm_90a", 90, true),
            ("sm_100", 100, true),
            ("sm_100a", 100, true),
            ("sm_100f", 100, true),
            ("sm_103", 103, true),
            ("sm_103a", 103, true),
            ("sm_103f", 103, true),
            ("sm_110", 110, true),
            ("sm_110a", 110, true),
            ("sm_110f", 110, true),
            ("sm_120", 120, true),
            ("sm_120a", 120, true),
            ("sm_120f", 120, true),
            ("sm_121", 121, true),
            ("sm_121a", 121, true),
            ("sm_121f", 121, true),
        ];
        let answers: Vec<(&str, u32, bool)> = GpuArch::supported()
            .map(|arch| (arch.name(), arch.compute_capability(), arch.has_clusters()))
            .collect();
        assert_eq!(answers, expected);
    }

    #[test]
    fn the_default_is_sm_90_on_ptx_8_4() {
        assert_eq!(DEFAULT_ARCH.name(), "sm_90");
        assert_eq!("sm_90".parse(), Ok(DEFAULT_ARCH));
        // vecadd's PTX is pinned with `.version 8.4`.
        assert_eq!(DEFAULT_ARCH.ptx_isa().to_string(), "8.4");
        assert_eq!(DEFAULT_ARCH.ptx_isa().llvm_feature(), "+ptx84");
    }

    #[test]
    fn every_supported_name_parses_to_itself() {
        assert_eq!(GpuArch::supported().count(), SUPPORTED.len());
        for arch in GpuArch::supported() {
            assert_eq!(arch.name().parse(), Ok(arch));
            assert_eq!(arch.to_string(), arch.name());
        }
    }

    #[test]
    fn newer_architectures_need_newer_isas() {
        let feature = |name: &str| name.parse::<GpuArch>().unwrap().ptx_isa().llvm_feature();
        assert_eq!(feature("sm_75"), "+ptx80");
        assert_eq!(feature("sm_87"), "+ptx80");
        assert_eq!(feature("sm_89"), "+ptx84");
        assert_eq!(feature("sm_90a"), "+ptx84");
        assert_eq!(feature("sm_88"), "+ptx90");
        assert_eq!(feature("sm_100"), "+ptx86");
        assert_eq!(feature("sm_100f"), "+ptx88");
        assert_eq!(feature("sm_110"), "+ptx90");
        assert_eq!(feature("sm_120"), "+ptx87");
        assert_eq!(feature("sm_121"), "+ptx88");
        for arch in GpuArch::supported() {
            assert!(arch.ptx_isa() >= FLOOR, "{arch}");
        }
    }

    #[test]
    fn unsupported_names_are_rejected_with_the_list() {
        for given in ["sm_20", "sm_70", "sm_101", "sm_1000", "sm_90f"] {
            let e = given.parse::<GpuArch>().unwrap_err();
            assert_eq!(e.given, given);
            let message = e.to_string();
            assert!(
                message.starts_with(&format!("GPU architecture `{given}` is not supported")),
                "{message}"
            );
            assert!(
                message.ends_with(
                    "; the supported architectures are sm_75, sm_80, sm_86, sm_87, \
                 sm_88, sm_89, sm_90, sm_90a, sm_100, sm_100a, sm_100f, sm_103, sm_103a, \
                 sm_103f, sm_110, sm_110a, sm_110f, sm_120, sm_120a, sm_120f, sm_121, sm_121a, \
                 sm_121f"
                ),
                "{message}"
            );
        }
        for given in [
            "",
            "90",
            "sm90",
            "sm_",
            "sm_x",
            "compute_90",
            "sm_90ab",
            "SM_90",
            "ampere",
        ] {
            let message = given.parse::<GpuArch>().unwrap_err().to_string();
            assert!(
                message.starts_with(&format!(
                    "`{given}` is not a GPU architecture name like `sm_90`; the supported"
                )),
                "{message}"
            );
        }
    }
}
