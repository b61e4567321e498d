//! What the GPU tests share: the hand-written PTX (it follows the parameter ABI of
//! docs/contracts.md, so it needs no backend), the GPU or the reason to skip, and a vecadd
//! launch through the low-level `Launch`.

use std::ffi::CStr;

use oxide::host::{DeviceMemory, DeviceMemoryMut, Error, Gpu, Launch, LaunchConfig, load_module};

// A static, so that every use is the same PTX image (modules are cached by image).
pub static PTX: &CStr = c"
.version 7.0
.target sm_50
.address_size 64

// vecadd(a: &[f32], b: &[f32], c: DisjointSlice<f32>)
.visible .entry vecadd(
    .param .u64 a_ptr, .param .u64 a_len,
    .param .u64 b_ptr, .param .u64 b_len,
    .param .u64 c_ptr, .param .u64 c_len)
{
    .reg .pred %p;
    .reg .b32 %r<4>;
    .reg .b64 %rd<10>;
    .reg .f32 %f<4>;
    ld.param.u64 %rd1, [a_ptr];
    ld.param.u64 %rd2, [b_ptr];
    ld.param.u64 %rd3, [c_ptr];
    ld.param.u64 %rd4, [c_len];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mul.wide.u32 %rd5, %r1, %r2;
    cvt.u64.u32 %rd6, %r3;
    add.u64 %rd5, %rd5, %rd6;
    setp.ge.u64 %p, %rd5, %rd4;
    @%p bra DONE;
    shl.b64 %rd6, %rd5, 2;
    add.u64 %rd7, %rd1, %rd6;
    add.u64 %rd8, %rd2, %rd6;
    add.u64 %rd9, %rd3, %rd6;
    ld.global.f32 %f1, [%rd7];
    ld.global.f32 %f2, [%rd8];
    add.f32 %f3, %f1, %f2;
    st.global.f32 [%rd9], %f3;
DONE:
    ret;
}

// params(a: f32, unit: (), s: Params, input: &[u32], out: DisjointSlice<f64>): thread 0
// writes [a, s.x, s.y, input.len, out.len, input[0]].
.visible .entry params(
    .param .f32 a,
    .param .align 8 .b8 s[16],
    .param .u64 in_ptr, .param .u64 in_len,
    .param .u64 out_ptr, .param .u64 out_len)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<5>;
    .reg .f32 %f1;
    .reg .f64 %fd<7>;
    ld.param.f32 %f1, [a];
    ld.param.u32 %r1, [s];
    ld.param.f64 %fd3, [s+8];
    ld.param.u64 %rd1, [in_ptr];
    ld.param.u64 %rd2, [in_len];
    ld.param.u64 %rd3, [out_ptr];
    ld.param.u64 %rd4, [out_len];
    cvt.f64.f32 %fd1, %f1;
    cvt.rn.f64.u32 %fd2, %r1;
    cvt.rn.f64.u64 %fd4, %rd2;
    cvt.rn.f64.u64 %fd5, %rd4;
    ld.global.u32 %r2, [%rd1];
    cvt.rn.f64.u32 %fd6, %r2;
    st.global.f64 [%rd3], %fd1;
    st.global.f64 [%rd3+8], %fd2;
    st.global.f64 [%rd3+16], %fd3;
    st.global.f64 [%rd3+24], %fd4;
    st.global.f64 [%rd3+32], %fd5;
    st.global.f64 [%rd3+40], %fd6;
    ret;
}

// ptrs(a: &[f64], b: DisjointSlice<u16>, out: DisjointSlice<u64>): writes the pointers it got
// for a and b.
.visible .entry ptrs(
    .param .u64 a_ptr, .param .u64 a_len,
    .param .u64 b_ptr, .param .u64 b_len,
    .param .u64 out_ptr, .param .u64 out_len)
{
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [a_ptr];
    ld.param.u64 %rd2, [b_ptr];
    ld.param.u64 %rd3, [out_ptr];
    st.global.u64 [%rd3], %rd1;
    st.global.u64 [%rd3+8], %rd2;
    ret;
}

// static_shared(out: DisjointSlice<u32>): 16 KiB of static shared memory; thread 0 writes a
// value into its last word and the dynamic region's first word, then copies both to out[0..2].
.shared .align 4 .b8 fixed[16384];
.extern .shared .align 16 .b8 dynamic[];
.visible .entry static_shared(.param .u64 out_ptr, .param .u64 out_len)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<3>;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, 7;
    st.shared.u32 [fixed+16380], %r2;
    mov.u32 %r2, 11;
    st.shared.u32 [dynamic], %r2;
    bar.sync 0;
    ld.shared.u32 %r2, [fixed+16380];
    ld.shared.u32 %r3, [dynamic];
    ld.param.u64 %rd1, [out_ptr];
    st.global.u32 [%rd1], %r2;
    st.global.u32 [%rd1+4], %r3;
    ret;
}
";

/// The GPU, or `None` on a machine without a driver or GPU (the test then passes without doing
/// anything, saying so); the GPU suite sets OXIDE_REQUIRE_GPU, which makes a missing GPU a
/// failure instead.
pub fn gpu() -> Option<Gpu> {
    match Gpu::new(0) {
        Ok(gpu) => Some(gpu),
        Err(e) if e.is_unavailable() && std::env::var_os("OXIDE_REQUIRE_GPU").is_none() => {
            eprintln!("skipped (no GPU): {e}");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// Queues the hand-written `vecadd` (c = a + b) on `gpu`'s stream, or captures it when `gpu`
/// is a capture's.
pub fn queue_vecadd(
    gpu: &Gpu,
    a: &impl DeviceMemory<f32>,
    b: &impl DeviceMemory<f32>,
    c: &mut impl DeviceMemoryMut<f32>,
) -> Result<(), Error> {
    let module = load_module(gpu, Some(PTX), "handwritten")?;
    let function = module.function("vecadd")?;
    let cfg = LaunchConfig::for_num_elems(c.len(), 256)?;
    let mut launch = Launch::new(gpu, &function);
    // SAFETY: the parameters of the hand-written PTX entry, in order.
    unsafe {
        launch
            .push_slice(DeviceMemory::region(a), &[])
            .push_slice(DeviceMemory::region(b), &[])
            .push_slice(DeviceMemoryMut::region_mut(c), &[])
    };
    // SAFETY: the parameters match the PTX entry `vecadd`.
    unsafe { launch.launch(cfg) }
}
