//! The kernels on the CPU emulator against references in f64 (`cargo test -p pyops`); the
//! GPU's results against torch are ci/gpu-suite/python_torch_ops.py's.

use super::*;

/// Inputs spread over where SwiGLU's curve bends (about -8 to 8), from a fixed sequence.
fn inputs(n: usize, seed: u32) -> Vec<f32> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            16.0 * ((state >> 8) as f32 / (1u32 << 24) as f32) - 8.0
        })
        .collect()
}

fn silu(g: f64) -> f64 {
    g / (1.0 + (-g).exp())
}

/// `|got - want|` within f32 rounding of a few operations, relative to the value's size.
fn close(got: f32, want: f64) -> bool {
    (f64::from(got) - want).abs() <= 1e-5 * (1.0 + want.abs())
}

// An odd length, so the last block is partly past the end.
const N: usize = 1000;

#[test]
fn swiglu_is_silu_of_g_times_u() {
    let (g, u) = (inputs(N, 1), inputs(N, 2));
    let mut h = vec![f32::NAN; N];
    let cfg = LaunchConfig::for_num_elems(N, 128).unwrap();
    swiglu::emulate(&cfg, &g, &u, &mut h).unwrap();
    for i in 0..N {
        let want = silu(g[i].into()) * f64::from(u[i]);
        assert!(close(h[i], want), "h[{i}] = {} vs {want}", h[i]);
    }
}

#[test]
fn swiglu_backward_is_the_derivative_of_swiglu() {
    let (g, u, dh) = (inputs(N, 3), inputs(N, 4), inputs(N, 5));
    let (mut dg, mut du) = (vec![f32::NAN; N], vec![f32::NAN; N]);
    let cfg = LaunchConfig::for_num_elems(N, 128).unwrap();
    swiglu_backward::emulate(&cfg, &g, &u, &dh, &mut dg, &mut du).unwrap();
    // Central differences of the forward in f64: the formula is checked, not only restated.
    let step = 1e-6;
    for i in 0..N {
        let (gi, ui, dhi) = (f64::from(g[i]), f64::from(u[i]), f64::from(dh[i]));
        let dsilu = (silu(gi + step) - silu(gi - step)) / (2.0 * step);
        let want_dg = dhi * ui * dsilu;
        let want_du = dhi * silu(gi);
        assert!(
            (f64::from(dg[i]) - want_dg).abs() <= 1e-4 * (1.0 + want_dg.abs()),
            "dg[{i}] = {} vs {want_dg}",
            dg[i]
        );
        assert!(close(du[i], want_du), "du[{i}] = {} vs {want_du}", du[i]);
    }
}
