//@ build-pass
//@ ptx: .visible .entry fa$e7$ade(
//@ ptx: .visible .entry $3c0$_kernel(
//@ ptx: .visible .entry fa_e7_ade(
//@ ptx: .visible .entry $e9$chelle__dd635018ff703544(
//@ ptx(fa$e7$ade): 7;
//@ ptx($3c0$_kernel): 3;
//@ ptx(fa_e7_ade): 5;
//! Kernels with non-ASCII names get the PTX entry `oxide_contract::kernel_entry` gives them, each
//! non-ASCII character written `$<hex>$` (the launcher looks up the same entry), and no other
//! kernel or function takes it: `fa_e7_ade`, what a sanitiser would make of `façade`, is a kernel
//! of its own. Before issue 7: "internal error ... kernel `façade` is not defined in the module".

use oxide::DeviceData;
use oxide::prelude::*;

#[kernel]
pub fn façade(mut out: DisjointSlice<u32>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = 7;
    }
}

#[kernel]
pub fn π_kernel(mut out: DisjointSlice<u32>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = 3;
    }
}

#[kernel]
pub fn fa_e7_ade(mut out: DisjointSlice<u32>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = 5;
    }
}

#[kernel]
pub fn échelle<T: Copy + DeviceData + core::ops::Mul<Output = T>>(
    k: T,
    x: &[T],
    mut y: DisjointSlice<T>,
) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = y.get_mut(idx) {
        *o = k * x[i];
    }
}

type Buffer = oxide::host::DeviceBuffer<f32>;

/// A launch of `échelle::<f32>`: the launcher takes any device memory (a buffer or a view), so
/// this names the buffer types.
fn launch_échelle(
    gpu: &Gpu,
    cfg: LaunchConfig,
    x: &Buffer,
    y: &mut Buffer,
) -> Result<(), oxide::host::Error> {
    échelle::launch::<f32>(gpu, cfg, 2.0, x, y)
}

fn main() {
    // Instantiates `échelle::<f32>` here, which is what makes the backend compile it.
    std::hint::black_box(launch_échelle as fn(_, _, _, _) -> _);
}
