//! Backend settings, read from the `--cfg`s `cargo oxide` passes (so cargo rebuilds when they
//! change, which environment variables would not do). Their names are `oxide_contract::cfg`'s.

use oxide_contract::{DEFAULT_ARCH, GpuArch, cfg};
use rustc_session::Session;
use rustc_span::Symbol;

pub(crate) struct DeviceConfig {
    /// `--cfg oxide_arch="sm_90"`, validated: LLVM would only warn about an unknown processor
    /// and ptxas reject the PTX later.
    pub(crate) arch: GpuArch,
    /// `--cfg oxide_dump`: write every pipeline stage next to the PTX.
    pub(crate) dump: bool,
    /// `--cfg oxide_libdevice="..."`: NVIDIA's math library, for kernels that call `f32::sin` and
    /// the like; `None` makes such calls an error at the user's line.
    pub(crate) libdevice: Option<std::path::PathBuf>,
}

impl DeviceConfig {
    /// The settings, or `None` after reporting an unsupported architecture as an error.
    pub(crate) fn from_session(sess: &Session) -> Option<Self> {
        let arch_key = Symbol::intern(cfg::ARCH);
        let dump_key = Symbol::intern(cfg::DUMP);
        let arch = match sess
            .config
            .iter()
            .find_map(|(k, v)| (*k == arch_key).then_some(*v).flatten())
        {
            None => DEFAULT_ARCH,
            Some(name) => match name.as_str().parse() {
                Ok(arch) => arch,
                Err(e) => {
                    sess.dcx()
                        .err(format!("oxide: `--cfg {}=\"{name}\"`: {e}", cfg::ARCH));
                    return None;
                }
            },
        };
        let dump = sess.config.iter().any(|(k, _)| *k == dump_key);
        let libdevice_key = Symbol::intern(cfg::LIBDEVICE);
        let libdevice = sess
            .config
            .iter()
            .find_map(|(k, v)| (*k == libdevice_key).then_some(*v).flatten())
            .map(|path| std::path::PathBuf::from(path.as_str()));
        Some(DeviceConfig {
            arch,
            dump,
            libdevice,
        })
    }
}
