//! `oxide-bench`: what the benchmark programs of kernels/ share (their `main`s): element-count
//! arguments, throughput, exit codes. Not part of the library kernels depend on.

/// Parses an element count written as an integer or a small expression: `1048579`,
/// `268_435_456`, `2^28`, `1<<20`, `3*2^20`, `2^20+3`. `+` binds loosest, then `*`, then `^`
/// and `<<`. `None` when malformed or out of `usize` range.
pub fn parse_count(text: &str) -> Option<usize> {
    let text: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    text.split('+').try_fold(0usize, |sum, term| {
        let product = term
            .split('*')
            .try_fold(1usize, |p, factor| p.checked_mul(parse_factor(factor)?))?;
        sum.checked_add(product)
    })
}

fn parse_factor(text: &str) -> Option<usize> {
    if let Some((base, exp)) = text.split_once('^') {
        parse_int(base)?.checked_pow(u32::try_from(parse_int(exp)?).ok()?)
    } else if let Some((value, shift)) = text.split_once("<<") {
        let shift = u32::try_from(parse_int(shift)?).ok()?;
        let value = parse_int(value)?;
        // `checked_shl` only rejects shifts >= 64; also reject bits shifted out.
        value
            .checked_shl(shift)
            .filter(|v| v.checked_shr(shift) == Some(value))
    } else {
        parse_int(text)
    }
}

fn parse_int(text: &str) -> Option<usize> {
    let digits: String = text.chars().filter(|&c| c != '_').collect();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The inputs of the vector additions (vecadd, vecadd4): exactly representable values whose
/// sums are exact too, so the GPU's result can be compared bit for bit; varied across the index
/// range.
pub fn addends(n: usize) -> (Vec<f32>, Vec<f32>) {
    let a = (0..n).map(|i| (i % 4096) as f32 * 0.5).collect();
    let b = (0..n)
        .map(|i| (i.wrapping_mul(7) % 1000) as f32 * 0.25)
        .collect();
    (a, b)
}

/// The fewest runs in one timed batch; the nvcc twins time the same way
/// (ci/gpu-suite/twins/common.cuh).
pub const MIN_REPS: u32 = 10;
/// The most runs in one timed batch.
pub const MAX_REPS: u32 = 1000;
/// Batches timed; the median batch's time per run is reported.
pub const BATCHES: usize = 7;
/// A batch has enough runs to last at least this long (milliseconds): a run of a few
/// microseconds timed ten at a time measured the launch queue's jitter more than the kernel.
pub const MIN_BATCH_MS: f32 = 2.0;

/// Times `launch` on `gpu`'s stream — [`BATCHES`] batches of as many runs as last
/// [`MIN_BATCH_MS`] (estimated from a first batch of [`MIN_REPS`]), CUDA events around each
/// batch — and prints the median batch's time per run on the line ci/gpu-suite/run.sh reads,
/// `<name> n=<n> PASS [<detail> ]<x> GB/s <y> ms`, `bytes` being what one run moves.
/// `Ok(true)`: the PASS of [`main`]'s `run`.
pub fn report_timed(
    gpu: &oxide_host::Gpu,
    name: &str,
    n: usize,
    detail: &str,
    bytes: u64,
    launch: impl FnMut() -> Result<(), oxide_host::Error>,
) -> Result<bool, oxide_host::Error> {
    let ms = time_median(gpu, launch)?;
    let detail = if detail.is_empty() {
        String::new()
    } else {
        format!("{detail} ")
    };
    println!(
        "{name} n={n} PASS {detail}{:.1} GB/s {ms:.4} ms",
        gb_per_s(bytes, ms)
    );
    Ok(true)
}

/// [`report_timed`] for a kernel measured in floating-point operations too: `(bytes, flops)`
/// per run; the line gains `<t> TFLOP/s` before the bandwidth.
pub fn report_timed_flops(
    gpu: &oxide_host::Gpu,
    name: &str,
    n: usize,
    detail: &str,
    (bytes, flops): (u64, u64),
    launch: impl FnMut() -> Result<(), oxide_host::Error>,
) -> Result<bool, oxide_host::Error> {
    let ms = time_median(gpu, launch)?;
    println!(
        "{name} n={n} PASS {detail} {:.1} TFLOP/s {:.1} GB/s {ms:.4} ms",
        flops as f64 / (f64::from(ms) * 1e9),
        gb_per_s(bytes, ms)
    );
    Ok(true)
}

/// The median batch's time per run of `launch`, as [`report_timed`] measures it.
fn time_median(
    gpu: &oxide_host::Gpu,
    mut launch: impl FnMut() -> Result<(), oxide_host::Error>,
) -> Result<f32, oxide_host::Error> {
    let mut batch = |reps: u32| -> Result<f32, oxide_host::Error> {
        Ok(gpu.time(|| (0..reps).try_for_each(|_| launch()))? / reps as f32)
    };
    let reps = batch_reps(batch(MIN_REPS)?);
    let mut per_run = (0..BATCHES)
        .map(|_| batch(reps))
        .collect::<Result<Vec<f32>, _>>()?;
    Ok(median(&mut per_run))
}

/// Runs per batch for runs of `estimate_ms` each: enough for [`MIN_BATCH_MS`], within
/// [`MIN_REPS`]..=[`MAX_REPS`].
pub fn batch_reps(estimate_ms: f32) -> u32 {
    let wanted = (MIN_BATCH_MS / estimate_ms.max(1e-6)).ceil();
    (wanted.min(MAX_REPS as f32) as u32).clamp(MIN_REPS, MAX_REPS)
}

/// The median of `values` (the upper one of an even count), sorting them.
pub fn median(values: &mut [f32]) -> f32 {
    values.sort_by(f32::total_cmp);
    values[values.len() / 2]
}

/// Throughput in GB/s (10^9 bytes per second) of moving `bytes` in `ms` milliseconds.
pub fn gb_per_s(bytes: u64, ms: f32) -> f64 {
    bytes as f64 / (f64::from(ms) * 1e6)
}

/// The `main` of a benchmark program: reads the element count from the first argument (default
/// `default_n`; forms as in [`parse_count`]), runs `run`, and exits 0 on PASS (`Ok(true)`), 1 on
/// FAIL or a GPU error, 2 when this machine or build cannot run kernels (no driver, no device,
/// no PTX) or the argument is not a count.
pub fn main(
    name: &str,
    default_n: usize,
    run: impl FnOnce(usize) -> Result<bool, oxide_host::Error>,
) -> std::process::ExitCode {
    use std::process::ExitCode;
    let n = match std::env::args().nth(1) {
        None => default_n,
        Some(arg) => match parse_count(&arg) {
            Some(n) => n,
            None => {
                eprintln!("usage: {name} [N]  (element count, e.g. 1048579 or 2^28), not {arg:?}");
                return ExitCode::from(2);
            }
        },
    };
    match run(n) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("{name}: {e}");
            ExitCode::from(if e.is_unavailable() { 2 } else { 1 })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_last_long_enough_within_bounds() {
        assert_eq!(batch_reps(1.0), MIN_REPS);
        assert_eq!(batch_reps(0.008), 250);
        assert_eq!(batch_reps(0.0), MAX_REPS);
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 3.0);
    }

    #[test]
    fn counts() {
        assert_eq!(parse_count("1048579"), Some(1048579));
        assert_eq!(parse_count("268_435_456"), Some(1 << 28));
        assert_eq!(parse_count("2^28"), Some(1 << 28));
        assert_eq!(parse_count("1<<20"), Some(1 << 20));
        assert_eq!(parse_count("3*2^20"), Some(3 << 20));
        assert_eq!(parse_count(" 2^20 + 3 "), Some((1 << 20) + 3));
        assert_eq!(parse_count("0"), Some(0));
    }

    #[test]
    fn bad_counts() {
        for text in [
            "", "x", "-1", "2^", "1<<64", "2^64", "1.5", "++", "1e6", "3<<63",
        ] {
            assert_eq!(parse_count(text), None, "{text:?}");
        }
    }

    #[test]
    fn throughput() {
        assert_eq!(gb_per_s(2_000_000_000, 1000.0), 2.0);
    }
}
