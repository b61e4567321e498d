//! CUDA graphs against a real GPU (docs/host.md, "CUDA graphs"), with the hand-written PTX
//! tests/gpu.rs uses (tests/common). Each test passes without doing anything on a machine that
//! has no driver or GPU; the GPU suite sets OXIDE_REQUIRE_GPU, which makes a missing GPU a
//! failure.

mod common;

use common::queue_vecadd;
use oxide::host::{Error, Gpu};
use oxide::prelude::*;

/// A kernel of this crate: a plain `cargo test` build has no PTX for it, so its launcher
/// fails with `Error::NoPtx`, inside a capture too.
#[kernel]
pub fn add(a: &[f32], b: &[f32], mut c: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(out) = c.get_mut(idx) {
        *out = a[i] + b[i];
    }
}

/// The tests run one at a time: while any stream of a context captures, the driver refuses a
/// wait for the whole device (`synchronize_device`, and cudarc's wait at the first `new_stream`)
/// and invalidates that capture, so one test's capture and another's device-wide wait would fail
/// each other (measured on the H200: `CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED` and
/// `CUDA_ERROR_STREAM_CAPTURE_INVALIDATED`).
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The GPU, and the lock that keeps the tests apart; `None` without a GPU.
fn gpu() -> Option<(Gpu, std::sync::MutexGuard<'static, ()>)> {
    let lock = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    common::gpu().map(|gpu| (gpu, lock))
}

/// The work of `a_graph_replays_launches_and_copies`, on the CPU: one replay.
fn replay_on_cpu(a: &mut [f32], b: &[f32], c: &mut [f32], d: &mut [f32]) {
    for i in 0..a.len() {
        c[i] = a[i] + b[i];
        d[i] = c[i] + b[i];
    }
    a.copy_from_slice(d);
    c.fill(0.0);
}

#[test]
fn a_graph_replays_launches_and_copies() -> Result<(), Error> {
    let Some((gpu, _one_at_a_time)) = gpu() else {
        return Ok(());
    };
    let s = gpu.new_stream()?;
    let n = 100_003;
    let mut a: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let (mut c, mut d) = (vec![0.0f32; n], vec![0.0f32; n]);
    let (mut da, db) = (gpu.htod(&a)?, gpu.htod(&b)?);
    let (mut dc, mut dd) = (gpu.alloc_zeroed::<f32>(n)?, gpu.alloc_zeroed::<f32>(n)?);
    let graph = gpu.capture((&mut da, &db, &mut dc, &mut dd), |g, (da, db, dc, dd)| {
        queue_vecadd(g, da, db, dc)?;
        queue_vecadd(g, dc, db, dd)?;
        g.memcpy_dtod(dd, da)?;
        g.memset_zeros(dc)
    })?;
    assert_eq!((graph.launches(), graph.copies()), (2, 2));
    // Half the replays on the stream of the handle that captured, half on another stream:
    // the buffers' records order the second half after the first.
    for i in 0..100 {
        graph.launch(if i < 50 { &gpu } else { &s })?;
        replay_on_cpu(&mut a, &b, &mut c, &mut d);
    }
    drop(graph);
    assert_eq!(gpu.dtoh(&da)?, a);
    assert_eq!(gpu.dtoh(&dc)?, c);
    assert_eq!(gpu.dtoh(&dd)?, d);
    // Nothing ran at capture: 100 replays, each adding 2b.
    assert_eq!(
        a[n - 1],
        ((n - 1) % 1000) as f32 + 200.0 * ((n - 1) % 7) as f32
    );
    Ok(())
}

#[test]
fn a_replay_is_ordered_with_other_streams_work_on_its_buffers() -> Result<(), Error> {
    let Some((gpu, _one_at_a_time)) = gpu() else {
        return Ok(());
    };
    let (s1, s2) = (gpu.new_stream()?, gpu.new_stream()?);
    let n = 1 << 24;
    let mut x = s1.alloc_zeroed::<f32>(n)?;
    let mut out = s2.alloc_zeroed::<f32>(n)?;
    for v in [1.0f32, 2.0, 3.0, 4.0] {
        // A write of x on s1, still running when the graph is launched on s2: the replay waits
        // for it.
        s1.memset_zeros(&mut x)?;
        s1.fill(&mut x, v)?;
        let graph = gpu.capture((&x, &mut out), |g, (x, out)| queue_vecadd(g, x, x, out))?;
        graph.launch(&s2)?;
        drop(graph);
        // A write of x on s1 after the replay that read it: it waits for the replay.
        s1.memset_zeros(&mut x)?;
        assert!(s2.dtoh(&out)?.iter().all(|&o| o == 2.0 * v), "value {v}");
    }
    Ok(())
}

#[test]
fn what_a_graph_cannot_hold_fails_the_capture_and_no_stream_is_left_capturing() -> Result<(), Error>
{
    let Some((gpu, _one_at_a_time)) = gpu() else {
        return Ok(());
    };
    let n = 4096;
    let a = gpu.htod(&vec![1.0f32; n])?;
    let mut c = gpu.alloc_zeroed::<f32>(n)?;
    let other = gpu.htod(&vec![5.0f32; n])?;
    let refused = |e: Error, operation: &str| match e {
        Error::NotCapturable { operation: o, .. } => assert_eq!(o, operation),
        e => panic!("{operation}: {e}"),
    };
    // A wait, an event, an allocation, host copies, a nested capture.
    let e = gpu.capture(&mut c, |g, _| g.synchronize());
    refused(e.err().unwrap(), "synchronize");
    let e = gpu.capture(&mut c, |g, _| g.record_event().map(drop));
    refused(e.err().unwrap(), "record_event");
    let e = gpu.capture(&mut c, |g, _| g.alloc_zeroed::<f32>(4).map(drop));
    refused(e.err().unwrap(), "alloc_zeroed");
    let e = gpu.capture(&mut c, |g, c| g.memcpy_htod(&vec![2.0; n], c));
    refused(e.err().unwrap(), "memcpy_htod");
    let e = gpu.capture(&mut c, |g, c| g.dtoh(c).map(drop));
    refused(e.err().unwrap(), "memcpy_dtoh");
    let e = gpu.capture(&mut c, |g, c| g.fill(c, 2.0));
    refused(e.err().unwrap(), "fill");
    let e = gpu.capture(&mut c, |g, _| g.capture((), |_, ()| Ok(())).map(drop));
    refused(e.err().unwrap(), "Gpu::capture");
    // Refused even when the closure ignores the error.
    let e = gpu.capture(&mut c, |g, _| {
        let _ = g.synchronize();
        Ok(())
    });
    refused(e.err().unwrap(), "synchronize");
    // Memory not given to the capture (memory given shared cannot be written: no `&mut`).
    let e = gpu.capture(&mut c, |g, c| queue_vecadd(g, &other, &other, c));
    assert!(
        matches!(e, Err(Error::NotInGraph { write: false })),
        "{:?}",
        e.err()
    );
    let e = gpu.capture(&a, |g, a| g.memcpy_dtod(a, &mut c));
    assert!(
        matches!(e, Err(Error::NotInGraph { write: true })),
        "{:?}",
        e.err()
    );
    // A launch refused before it is queued (a misaligned view), and a kernel whose crate has
    // no PTX in this build: the closure's error is the capture's.
    let e = gpu.capture((&a, &mut c), |g, (a, c)| {
        let (a1, a2) = (a.slice(1..n)?, a.slice(1..n)?);
        queue_vecadd(g, &a1, &a2, &mut c.slice_mut(..n - 1)?)
    });
    assert!(
        matches!(e, Err(Error::MisalignedBuffer { .. })),
        "{:?}",
        e.err()
    );
    let cfg = LaunchConfig::for_num_elems(n, 256)?;
    let e = gpu.capture((&a, &mut c), |g, (a, c)| add::launch(g, cfg, a, a, c));
    assert!(matches!(e, Err(Error::NoPtx { .. })), "{:?}", e.err());
    // A panic inside the capture ends it too.
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = gpu.capture(&mut c, |_, _| panic!("inside a capture"));
    }));
    assert!(caught.is_err());
    // Every stream still runs work: none was left capturing.
    queue_vecadd(&gpu, &a, &a, &mut c)?;
    assert!(gpu.dtoh(&c)?.iter().all(|&x| x == 2.0));
    gpu.synchronize_device()?;
    // And a graph is not launched inside a capture.
    let graph = gpu.capture((&a, &mut c), |g, (a, c)| queue_vecadd(g, a, a, c))?;
    let mut d = gpu.alloc_zeroed::<f32>(n)?;
    let e = gpu.capture(&mut d, |g, _| graph.launch(g));
    refused(e.err().unwrap(), "Graph::launch");
    graph.launch(&gpu)?;
    gpu.synchronize()?;
    // An empty graph launches and does nothing.
    let empty = gpu.capture((), |_, ()| Ok(()))?;
    assert_eq!((empty.launches(), empty.copies()), (0, 0));
    empty.launch(&gpu)?;
    gpu.synchronize()?;
    Ok(())
}
