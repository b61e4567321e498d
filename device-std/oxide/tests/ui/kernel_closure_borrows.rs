// A closure passed to a kernel crosses to the GPU as its bytes: one that borrows host data
// would carry host addresses, so launch and emulate take only `'static` closures (`move`).
use oxide::prelude::*;

#[kernel]
pub fn map<F: Fn(u32) -> u32 + Copy>(f: F, input: &[u32], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = f(input[i]);
    }
}

fn main() {
    let cfg = LaunchConfig::for_num_elems(4, 4).unwrap();
    let mut out = [0u32; 4];
    let k = 3u32;
    let _ = map::emulate(&cfg, |v| v * k, &[1, 2, 3, 4], &mut out);
}
