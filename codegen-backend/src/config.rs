//! Backend settings, read from the `--cfg`s `cargo oxide` passes (so cargo rebuilds when they
//! change, which environment variables would not do).

use rustc_session::Session;
use rustc_span::Symbol;

pub(crate) struct DeviceConfig {
    /// `--cfg oxide_arch="sm_90"`.
    pub(crate) arch: String,
    /// `--cfg oxide_dump`: write every pipeline stage next to the PTX.
    pub(crate) dump: bool,
}

impl DeviceConfig {
    pub(crate) fn from_session(sess: &Session) -> Self {
        let arch_key = Symbol::intern("oxide_arch");
        let dump_key = Symbol::intern("oxide_dump");
        let arch = sess
            .config
            .iter()
            .find_map(|(k, v)| (*k == arch_key).then_some(*v).flatten())
            .map_or_else(|| "sm_90".to_string(), |v| v.to_string());
        let dump = sess.config.iter().any(|(k, _)| *k == dump_key);
        DeviceConfig { arch, dump }
    }
}
