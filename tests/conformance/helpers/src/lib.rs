//! Functions the conformance corpus calls across a crate boundary. `mix` is neither generic nor
//! `#[inline]`, so its MIR reaches the backend only because `cargo oxide` builds every crate with
//! `-Zalways-encode-mir`; `fold_with` is generic.

/// A 64-bit mixing function (the splitmix64 finaliser).
pub fn mix(x: u64) -> u64 {
    let mut z = x;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Folds the bytes of `x` with `f`, from the lowest.
pub fn fold_with<T: Copy, F: Fn(T, u8) -> T>(x: u64, init: T, f: F) -> T {
    let mut acc = init;
    for byte in x.to_le_bytes() {
        acc = f(acc, byte);
    }
    acc
}

/// A struct with a method, defined in this crate.
#[derive(Clone, Copy)]
pub struct Window {
    pub low: u32,
    pub high: u32,
}

impl Window {
    pub fn clamp(self, v: u32) -> u32 {
        v.max(self.low).min(self.high)
    }
}
