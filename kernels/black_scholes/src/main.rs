//! Black-Scholes call and put prices, one option per thread.
//!
//! `black_scholes [N]` (N defaults to 2^28... of options: 5 GiB of traffic). Exit 0 on PASS, 1
//! on FAIL or a GPU error, 2 when this machine or build cannot run kernels.

use std::process::ExitCode;

use oxide::host::Error;
use oxide::prelude::*;
use oxide_bench as bench;

const RISK_FREE: f32 = 0.02;
const VOLATILITY: f32 = 0.30;

/// The cumulative normal distribution, by the polynomial approximation of CUDA's sample
/// (Abramowitz and Stegun 26.2.17).
#[inline]
fn cnd(d: f32) -> f32 {
    const A1: f32 = 0.319_381_53;
    const A2: f32 = -0.356_563_78;
    const A3: f32 = 1.781_477_9;
    const A4: f32 = -1.821_256;
    const A5: f32 = 1.330_274_4;
    const RSQRT_2PI: f32 = 0.398_942_3;
    let k = 1.0 / (1.0 + 0.231_641_9 * d.abs());
    let c = RSQRT_2PI * (-0.5 * d * d).exp() * (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))));
    if d > 0.0 { 1.0 - c } else { c }
}

/// Call and put prices of an option of spot `s`, strike `x` and years `t`.
#[inline]
fn price(s: f32, x: f32, t: f32, r: f32, v: f32) -> (f32, f32) {
    let sqrt_t = t.sqrt();
    let d1 = ((s / x).ln() + (r + 0.5 * v * v) * t) / (v * sqrt_t);
    let d2 = d1 - v * sqrt_t;
    let (cnd1, cnd2) = (cnd(d1), cnd(d2));
    let discount = x * (-r * t).exp();
    (
        s * cnd1 - discount * cnd2,
        discount * (1.0 - cnd2) - s * (1.0 - cnd1),
    )
}

#[kernel(grid = "1d", same_len = "spot, strike, years, call, put")]
pub fn black_scholes(
    spot: &[f32],
    strike: &[f32],
    years: &[f32],
    r: f32,
    v: f32,
    mut call: DisjointSlice<f32>,
    mut put: DisjointSlice<f32>,
) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if i < spot.len() {
        let (c, p) = price(spot[i], strike[i], years[i], r, v);
        if let Some(out) = call.get_mut(idx) {
            *out = c;
        }
        if let Some(out) = put.get_mut(ThreadIndex::linear()) {
            *out = p;
        }
    }
}

const BLOCK: u32 = 128;

/// Options as CUDA's sample draws them: spot in [5, 30], strike in [1, 100], years in
/// [0.25, 10], from a fixed linear congruential sequence.
fn options(n: usize) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let mut state = 12345u32;
    let mut uniform = move |lo: f32, hi: f32| {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        lo + (hi - lo) * (state >> 8) as f32 / (1u32 << 24) as f32
    };
    let mut s = Vec::with_capacity(n);
    let mut x = Vec::with_capacity(n);
    let mut t = Vec::with_capacity(n);
    for _ in 0..n {
        s.push(uniform(5.0, 30.0));
        x.push(uniform(1.0, 100.0));
        t.push(uniform(0.25, 10.0));
    }
    (s, x, t)
}

/// The same formula in f64.
fn reference(s: f32, x: f32, t: f32) -> (f64, f64) {
    let cnd = |d: f64| {
        let k = 1.0 / (1.0 + 0.231_641_9 * d.abs());
        let c = 0.398_942_280_401_432_7
            * (-0.5 * d * d).exp()
            * (k * (0.319_381_53
                + k * (-0.356_563_782
                    + k * (1.781_477_937 + k * (-1.821_255_978 + k * 1.330_274_429)))));
        if d > 0.0 { 1.0 - c } else { c }
    };
    let (s, x, t) = (f64::from(s), f64::from(x), f64::from(t));
    let (r, v) = (f64::from(RISK_FREE), f64::from(VOLATILITY));
    let d1 = ((s / x).ln() + (r + 0.5 * v * v) * t) / (v * t.sqrt());
    let d2 = d1 - v * t.sqrt();
    let discount = x * (-r * t).exp();
    (
        s * cnd(d1) - discount * cnd(d2),
        discount * (1.0 - cnd(d2)) - s * (1.0 - cnd(d1)),
    )
}

/// Whether `got` is within 1e-4 of max(1, |expected|) of `expected`.
fn close(got: f32, expected: f64) -> bool {
    (f64::from(got) - expected).abs() <= 1e-4 * expected.abs().max(1.0)
}

fn main() -> ExitCode {
    bench::main("black_scholes", 1 << 26, run)
}

/// Prints the PASS or FAIL line; `Ok(false)` on FAIL.
fn run(n: usize) -> Result<bool, Error> {
    let gpu = Gpu::new(0)?;
    black_scholes::load(&gpu)?;
    let (s, x, t) = options(n);
    let (ds, dx, dt) = (gpu.htod(&s)?, gpu.htod(&x)?, gpu.htod(&t)?);
    let (mut dcall, mut dput) = (gpu.alloc_zeroed::<f32>(n)?, gpu.alloc_zeroed::<f32>(n)?);
    let cfg = LaunchConfig::for_num_elems(n, BLOCK)?;
    let launch = |dcall: &mut DeviceBuffer<f32>, dput: &mut DeviceBuffer<f32>| {
        black_scholes::launch(&gpu, cfg, &ds, &dx, &dt, RISK_FREE, VOLATILITY, dcall, dput)
    };
    launch(&mut dcall, &mut dput)?;
    let (call, put) = (gpu.dtoh(&dcall)?, gpu.dtoh(&dput)?);
    let mut worst = 0.0f64;
    for i in 0..n {
        let (c, p) = reference(s[i], x[i], t[i]);
        if !close(call[i], c) || !close(put[i], p) {
            println!(
                "black_scholes n={n} FAIL at {i}: call {} put {} expected {c} {p}",
                call[i], put[i]
            );
            return Ok(false);
        }
        worst = worst.max(
            (f64::from(call[i]) - c)
                .abs()
                .max((f64::from(put[i]) - p).abs()),
        );
    }
    let bytes = 5 * n as u64 * size_of::<f32>() as u64;
    bench::report_timed(
        &gpu,
        "black_scholes",
        n,
        &format!("(largest difference from f64 {worst:.2e})"),
        bytes,
        || launch(&mut dcall, &mut dput),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_emulator_prices_like_the_f64_formula() {
        let n = 1000;
        let (s, x, t) = options(n);
        let (mut call, mut put) = (vec![0.0f32; n], vec![0.0f32; n]);
        let cfg = LaunchConfig::for_num_elems(n, BLOCK).unwrap();
        black_scholes::emulate(&cfg, &s, &x, &t, RISK_FREE, VOLATILITY, &mut call, &mut put)
            .unwrap();
        for i in 0..n {
            let (c, p) = reference(s[i], x[i], t[i]);
            assert!(
                close(call[i], c) && close(put[i], p),
                "{i}: {} {} vs {c} {p}",
                call[i],
                put[i]
            );
        }
    }
}
