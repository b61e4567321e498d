//@ build-pass
//@ compile-flags: -O
//! Probe kernels for a GPU-only difference (oxide-fuzz seed 1, programs 620 and 2224, both cut
//! down to `max(x, 0).trailing_zeros()` of an `i8`): bit counts of a clamped i8/i16, each alone in
//! a kernel so that ci/gpu-probes (narrow.cu) can run the backend's PTX of each over all 65,536
//! inputs at JIT -O0 and -O3 against the host. ci/build-gpu-probes.sh takes this case's PTX from
//! target/oxide/ui/pass_cttz_probe.ptx; narrow.cu has the host side of every kernel (by name).

use oxide::prelude::*;

macro_rules! probes {
    ($($name:ident |$x:ident| $e:expr;)*) => {$(
        #[kernel]
        pub fn $name(input: &[u64], mut out: DisjointSlice<u64>) {
            let idx = ThreadIndex::linear();
            let $x = input[idx.get()];
            if let Some(o) = out.get_mut(idx) {
                *o = $e;
            }
        }
    )*};
}

probes! {
    r_i8_max0 |x| (x as i8).max(0) as u64;
    r_i8_max0_tz |x| (x as i8).max(0).trailing_zeros() as u64;
    r_i8_max0_lz |x| (x as i8).max(0).leading_zeros() as u64;
    r_i8_max0_popc |x| (x as i8).max(0).count_ones() as u64;
    r_i8_min0_tz |x| (x as i8).min(0).trailing_zeros() as u64;
    r_i8_clamp_tz |x| (x as i8).clamp(-3, 50).trailing_zeros() as u64;
    r_i8_tz |x| (x as i8).trailing_zeros() as u64;
    r_i8_p2224 |x| { let v = x as i8; (v.saturating_sub(v).max(v).trailing_zeros() as i8) as u64 };
    r_i8_p620 |x| ((x as i8).max(0) as isize).trailing_zeros() as u64;
    r_i16_max0 |x| (x as i16).max(0) as u64;
    r_i16_max0_tz |x| (x as i16).max(0).trailing_zeros() as u64;
    r_i16_max0_lz |x| (x as i16).max(0).leading_zeros() as u64;
    r_i16_max0_popc |x| (x as i16).max(0).count_ones() as u64;
    r_i16_min0_tz |x| (x as i16).min(0).trailing_zeros() as u64;
    r_i16_clamp_tz |x| (x as i16).clamp(-3, 500).trailing_zeros() as u64;
    r_i16_tz |x| (x as i16).trailing_zeros() as u64;
    r_i16_p2224 |x| { let v = x as i16; (v.saturating_sub(v).max(v).trailing_zeros() as i8) as u64 };
    r_i16_p620 |x| ((x as i16).max(0) as isize).trailing_zeros() as u64;
}

fn main() {}
