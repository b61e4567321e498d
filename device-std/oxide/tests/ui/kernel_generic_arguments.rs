// What a generic kernel's launch and emulation require of its type arguments.
use oxide::prelude::*;

#[kernel]
pub fn store<T: Copy>(v: T, mut out: DisjointSlice<u32>) {
    let _ = v;
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = 1;
    }
}

fn main() {
    let cfg = LaunchConfig::for_num_elems(4, 4).unwrap();
    let mut out = [0u32; 4];
    // By-value arguments are copied byte for byte: `String` is not `Copy`.
    let _ = store::emulate(&cfg, String::new(), &mut out);
    let gpu = Gpu::new(0).unwrap();
    let mut buf = gpu.alloc_zeroed::<u32>(4).unwrap();
    let _ = store::launch(&gpu, cfg, vec![1u8], &mut buf);
}
