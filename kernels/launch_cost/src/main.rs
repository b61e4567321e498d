//! What a launch costs the host: `LAUNCHES` launches of a kernel with three buffer arguments
//! (the shape of most small kernels: two read, one written) over 1024 elements, the host's wall
//! time from the first launch to the end of the last kernel, per launch. At this size the GPU
//! waits for the host, so the time is the launch path's: the launcher, the argument checks, the
//! buffers' ordering records and the driver. Its nvcc twin (ci/gpu-suite/twins/launch_cost.cu)
//! times `<<<>>>` the same way.
//!
//! Then the same launches through a CUDA graph: `GRAPH_LAUNCHES` of them captured once
//! (`Gpu::capture`), the graph launched `LAUNCHES / GRAPH_LAUNCHES` times, the host's wall time
//! per replay (the twin captures its `<<<>>>` launches on a stream and times `cudaGraphLaunch`).
//!
//! `launch_cost [N]`: N only names the row (the suite's sizes); the work is the same. Prints
//! `launch_cost graph: <us> us per replay of 100 launches`, then
//! `launch_cost n=<N> PASS ... <ms per launch> ms` (the suite reads the last `ms` of the output).

use std::process::ExitCode;
use std::time::Instant;

use oxide::host::Error;
use oxide::prelude::*;
use oxide_bench as bench;

#[kernel(grid = "1d")]
pub fn tiny_add(a: &[f32], b: &[f32], mut c: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(out) = c.get_mut(idx) {
        *out = a[i] + b[i];
    }
}

/// Launches timed, after as many warm-up launches; `OXIDE_LAUNCHES` sets another count (the
/// suite's sanitizer runs take 100: every launch is a sanitized kernel).
const LAUNCHES: u32 = 20_000;
/// Elements per launch: four blocks of 256.
const ELEMENTS: usize = 1024;
/// Launches captured into the graph.
const GRAPH_LAUNCHES: u32 = 100;

fn main() -> ExitCode {
    bench::main("launch_cost", 1 << 28, run)
}

fn run(n: usize) -> Result<bool, Error> {
    let gpu = Gpu::new(0)?;
    tiny_add::load(&gpu)?;
    let a: Vec<f32> = (0..ELEMENTS).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..ELEMENTS).map(|i| (i % 7) as f32 * 0.5).collect();
    let (da, db) = (gpu.htod(&a)?, gpu.htod(&b)?);
    let mut dc = gpu.alloc_zeroed::<f32>(ELEMENTS)?;
    let cfg = LaunchConfig::for_num_elems(ELEMENTS, 256)?;
    let mut launches = |count: u32| -> Result<f64, Error> {
        let start = Instant::now();
        for _ in 0..count {
            tiny_add::launch(&gpu, cfg, &da, &db, &mut dc)?;
        }
        gpu.synchronize()?;
        Ok(start.elapsed().as_secs_f64() * 1e3 / f64::from(count))
    };
    let count = std::env::var("OXIDE_LAUNCHES")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&c| c > 0)
        .unwrap_or(LAUNCHES);
    launches(count)?;
    let ms = launches(count)?;
    let c = gpu.dtoh(&dc)?;
    if let Some(i) = (0..ELEMENTS).find(|&i| c[i] != a[i] + b[i]) {
        println!("launch_cost n={n} FAIL at {i}: {} != {}", c[i], a[i] + b[i]);
        return Ok(false);
    }
    // The graph's kernels must have written `dc` themselves.
    gpu.memset_zeros(&mut dc)?;
    let graph_ms = replays(&gpu, cfg, &da, &db, &mut dc, count.div_ceil(GRAPH_LAUNCHES))?;
    let c = gpu.dtoh(&dc)?;
    if let Some(i) = (0..ELEMENTS).find(|&i| c[i] != a[i] + b[i]) {
        println!(
            "launch_cost n={n} FAIL at {i} after the graph: {} != {}",
            c[i],
            a[i] + b[i]
        );
        return Ok(false);
    }
    // No `<x> ms` in this line: the suite's ratio is the per-launch line's.
    println!(
        "launch_cost graph: {:.2} us per replay of {GRAPH_LAUNCHES} launches ({:.3} us per launch)",
        graph_ms * 1e3,
        graph_ms * 1e3 / f64::from(GRAPH_LAUNCHES)
    );
    println!(
        "launch_cost n={n} PASS ({:.2} us per launch of 3 buffers, {count} launches) 0.0 GB/s {ms:.4} ms",
        ms * 1e3
    );
    Ok(true)
}

/// Captures `GRAPH_LAUNCHES` launches of `tiny_add` into a graph, launches it `count` times
/// after as many warm-up replays, and returns the host's wall time per replay, in ms, from the
/// first replay to the end of the last.
fn replays(
    gpu: &Gpu,
    cfg: LaunchConfig,
    da: &DeviceBuffer<f32>,
    db: &DeviceBuffer<f32>,
    dc: &mut DeviceBuffer<f32>,
    count: u32,
) -> Result<f64, Error> {
    let graph = gpu.capture((da, db, dc), |g, (a, b, c)| {
        for _ in 0..GRAPH_LAUNCHES {
            tiny_add::launch(g, cfg, a, b, &mut *c)?;
        }
        Ok(())
    })?;
    let time = |count: u32| -> Result<f64, Error> {
        let start = Instant::now();
        for _ in 0..count {
            graph.launch(gpu)?;
        }
        gpu.synchronize()?;
        Ok(start.elapsed().as_secs_f64() * 1e3 / f64::from(count))
    };
    time(count)?;
    time(count)
}
