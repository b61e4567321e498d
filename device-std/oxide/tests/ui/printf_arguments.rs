// `printf!` checks its C format against its arguments at compile time: each conversion takes
// one argument of the C type it prints (`%d` an i32, `%f` an f64 or f32, `%s` a `&CStr`...),
// and the number of arguments is the number of conversions.
use oxide::prelude::*;
use oxide::{device_assert, printf};

#[kernel]
pub fn show(values: &[f32], mut out: DisjointSlice<f32>) {
    let i = thread::index_1d();
    let v = values[i];
    printf!("%d\n", v);
    printf!("%u %u\n", i as u32);
    printf!("%hd\n", 1i16);
    printf!("%s\n", "not a C string");
    printf!("%llu\n", -1i64);
    device_assert!(v > 0.0, "%f %f", v);
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = v;
    }
}

fn main() {}
