//! How the CPU emulator pairs barriers (docs/safety.md, "The emulator pairs barriers by what
//! they synchronise"): the threads meeting at one barrier must agree on what it synchronises
//! (which shared array's phase it ends, and which phase, or a plain `sync_threads()`, or a block
//! collective's scratch), wherever it was called from. The kernels here diverge, which the
//! backend rejects; the emulator runs them as plain Rust and must fail them before two phases
//! of one array overlap.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use oxide::emulate::{FailureKind, KernelFailure};
use oxide::prelude::*;
use oxide::shared::{SharedLayout, SharedRead, SharedWrite};

fn one_block(threads: u32) -> LaunchConfig {
    LaunchConfig {
        grid: (1, 1, 1),
        block: (threads, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// The barrier mismatch `e` should be, with both threads and both lines in its message.
fn assert_mismatch(e: &KernelFailure) {
    assert!(
        matches!(e.kind, FailureKind::BarrierMismatch { .. }),
        "not a barrier mismatch: {e}"
    );
    let text = e.to_string();
    assert!(text.contains("barriers.rs:"), "names the lines: {text}");
}

/// Ends a write phase, whatever the array: every call has the same line inside this helper.
fn end_write<'k, A: SharedLayout>(write: SharedWrite<'k, A>) -> SharedRead<'k, A> {
    write.sync()
}

/// Waits (at most a second) until `flag` is set, so that the test shows the overlap when the
/// emulator lets it happen rather than hanging.
fn wait_for(flag: &AtomicU32) {
    let start = Instant::now();
    while flag.load(Ordering::Acquire) == 0 && start.elapsed() < Duration::from_secs(1) {
        std::thread::yield_now();
    }
}

/// Issue 18, hole 3. Thread 0 ends `a`'s write phase while the others end `b`'s, through one
/// helper: then thread 0 reads `a[5]` while thread 5 still writes it. `seen` gets what thread 0
/// read before and after thread 5's write.
#[kernel]
pub fn helper_pairs_two_arrays(
    flag: &[AtomicU32],
    mut seen: DisjointSlice<u32>,
    a: Shared<[u32; 64]>,
    b: Shared<[u32; 64]>,
) {
    let t = thread::thread_idx_x();
    let (mut a, b) = (a.fill(40), b.fill(7));
    let mut before_after = [0, 0];
    if t == 0 {
        let a = end_write(a);
        let tile: &[u32; 64] = &a;
        before_after[0] = tile[5];
        wait_for(&flag[0]);
        before_after[1] = std::hint::black_box(tile)[5];
        let _ = end_write(b);
    } else {
        let _ = end_write(b);
        if t == 5
            && let Some(slot) = a.own_mut(0)
        {
            *slot = 99999;
            flag[0].store(1, Ordering::Release);
        }
        let _ = end_write(a);
    }
    if let Some(o) = seen.get_mut(ThreadIndex::linear()) {
        *o = before_after[0] + before_after[1];
    }
}

#[test]
fn a_helper_ending_two_arrays_phases_does_not_pair_them() {
    let mut flag = [0u32];
    let mut seen = vec![0u32; 64];
    let result = helper_pairs_two_arrays::emulate(&one_block(64), &mut flag, &mut seen);
    let e = result.expect_err(&format!(
        "the phases of `a` overlapped: thread 0 read {} in total from a[5] (40, then 99999)",
        seen[0]
    ));
    assert_mismatch(&e);
    assert_eq!(flag[0], 0, "nobody wrote `a` in its read phase");
}

/// Ends the write phases of two arrays, `first`'s then `second`'s: two barriers, each naming
/// its array.
fn end_both<'k, A: SharedLayout, B: SharedLayout>(
    first: SharedWrite<'k, A>,
    second: SharedWrite<'k, B>,
) -> (SharedRead<'k, A>, SharedRead<'k, B>) {
    (first.sync(), second.sync())
}

/// `a` and `b` filled with `t` and `100 + t`, their write phases ended through `end_both`; with
/// `swap`, odd threads pass the arrays the other way round (so their first barrier ends `b`'s
/// phase where the even threads' ends `a`'s). Each thread writes its neighbour's two values.
#[kernel]
pub fn two_arrays_one_helper(
    swap: bool,
    mut out: DisjointSlice<u32>,
    a: Shared<[u32; 32]>,
    b: Shared<[u32; 32]>,
) {
    let t = thread::thread_idx_x();
    let (a, b) = (a.fill(t), b.fill(100 + t));
    let (a, b) = if swap && t % 2 == 1 {
        let (b, a) = end_both(b, a);
        (a, b)
    } else {
        end_both(a, b)
    };
    let next = (t as usize + 1) % 32;
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = a[next] * 1000 + b[next];
    }
}

#[test]
fn a_helper_ending_two_arrays_phases_pairs_when_every_thread_calls_it_alike() {
    let mut out = vec![0u32; 32];
    two_arrays_one_helper::emulate(&one_block(32), false, &mut out).unwrap();
    for (t, o) in out.iter().enumerate() {
        let next = (t as u32 + 1) % 32;
        assert_eq!(*o, next * 1000 + 100 + next, "thread {t}");
    }
    let e = two_arrays_one_helper::emulate(&one_block(32), true, &mut out).unwrap_err();
    assert_mismatch(&e);
}

/// Every thread ends `rounds` pairs of phases of `a`, then thread 0 runs `extra` more rounds
/// while the others end `b`'s write phase (with `extra == 0`, all end `b`'s).
#[kernel]
pub fn phases_in_a_loop(
    rounds: u32,
    extra: u32,
    mut out: DisjointSlice<u32>,
    a: Shared<[u32; 32]>,
    b: Shared<[u32; 32]>,
) {
    let t = thread::thread_idx_x();
    let mut a = a.fill(t);
    let b = b.fill(t);
    let mut sum = 0;
    let own_rounds = if t == 0 { rounds + extra } else { rounds };
    for _ in 0..own_rounds {
        let read = a.sync();
        sum += read[(t as usize + 1) % 32];
        a = read.sync();
    }
    let b = b.sync();
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = sum + b[0];
    }
}

#[test]
fn loops_pair_phase_by_phase() {
    let mut out = vec![0u32; 32];
    phases_in_a_loop::emulate(&one_block(32), 3, 0, &mut out).unwrap();
    for (t, o) in out.iter().enumerate() {
        assert_eq!(*o, 3 * ((t as u32 + 1) % 32), "thread {t}");
    }
    // Thread 0's fourth round ends `a`'s write phase where the others end `b`'s.
    let e = phases_in_a_loop::emulate(&one_block(32), 3, 1, &mut out).unwrap_err();
    assert_mismatch(&e);
    let text = e.to_string();
    assert!(
        text.contains("ending phase 7 (a write phase)") && text.contains("ending phase 1"),
        "says which phase each thread ends: {text}"
    );
}

/// Threads `0..16` end `a`'s write phase at one line, the others at another: one barrier, as on
/// the GPU, since both end the same phase of the same array.
#[kernel]
pub fn one_phase_two_lines(mut out: DisjointSlice<u32>, a: Shared<[u32; 32]>) {
    let t = thread::thread_idx_x();
    let a = a.fill(t * 3);
    #[expect(
        clippy::if_same_then_else,
        reason = "the same call on two lines is the point"
    )]
    let a = if t < 16 { a.sync() } else { a.sync() };
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = a[31 - t as usize];
    }
}

#[test]
fn barriers_pair_by_what_they_end_not_by_their_line() {
    let mut out = vec![0u32; 32];
    one_phase_two_lines::emulate(&one_block(32), &mut out).unwrap();
    assert_eq!(out, (0..32).rev().map(|t| t * 3).collect::<Vec<u32>>());
}

/// With `how` 1, thread 0 calls `sync_threads()` where the others end `a`'s write phase; with
/// 2, the first warp sums the block (a collective, whose barriers end the phases of its
/// scratch) there instead; with 3 thread 0 returns instead.
#[kernel]
pub fn plain_collective_or_phase(how: u32, mut out: DisjointSlice<u32>, a: Shared<[u32; 64]>) {
    let t = thread::thread_idx_x();
    let a = a.fill(t);
    let mut got = 0;
    if t == 0 && how == 1 {
        thread::sync_threads();
    } else if t < 32 && how == 2 {
        got = oxide::block::sum(1u32);
    } else if t == 0 && how == 3 {
        return;
    } else {
        got = a.sync()[0];
    }
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = got;
    }
}

#[test]
fn a_plain_barrier_or_a_collective_does_not_end_a_shared_phase() {
    let mut out = vec![0u32; 64];
    for (how, expected) in [(1, "sync_threads()"), (2, "ending phase 1 (a read phase)")] {
        let e = plain_collective_or_phase::emulate(&one_block(64), how, &mut out).unwrap_err();
        assert_mismatch(&e);
        let text = e.to_string();
        assert!(text.contains(expected), "case {how}: {text}");
    }
    // Thread 0 returns: the others wait for it at the phase's end, which fails the launch
    // instead of letting them read.
    let e = plain_collective_or_phase::emulate(&one_block(64), 3, &mut out).unwrap_err();
    assert!(
        matches!(
            e.kind,
            FailureKind::BarrierDivergence {
                returned: [0, 0, 0],
                ..
            }
        ),
        "{e}"
    );
}

/// A computed-slot step whose map comes from the thread index (the backend rejects this
/// kernel): thread 0 would own slots 0 and 1, thread 1 slots 1 and 2. The emulator refuses to
/// start the step, since its threads give different maps.
#[kernel]
pub fn step_maps_differ(mut out: DisjointSlice<u32>, tile: Shared<[u32; 64]>) {
    let t = thread::thread_idx_x() as usize;
    let mut step = tile
        .fill(1)
        .sync()
        .step(oxide::shared::SlotMap::new(2, t, 2, 2));
    if let Some((_, own)) = step.own_mut(1) {
        *own += 1;
    }
    let read = step.sync();
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = read[1];
    }
}

#[test]
fn a_step_map_that_differs_between_threads_fails_the_launch() {
    let mut out = vec![0u32; 4];
    let e = step_maps_differ::emulate(&one_block(4), &mut out).unwrap_err();
    assert_mismatch(&e);
    assert!(e.to_string().contains("starting a step"), "{e}");
}

/// The same map in every thread passes, and the step writes what its map says.
#[kernel]
pub fn step_maps_agree(mut out: DisjointSlice<u32>, tile: Shared<[u32; 64]>) {
    let mut step = tile
        .fill(1)
        .sync()
        .step(oxide::shared::SlotMap::new(4, 1, 2, 8));
    let t = thread::thread_idx_x() as usize;
    for i in 0..2 {
        if let Some((slot, own)) = step.own_mut(i) {
            assert_eq!(slot, 4 * t + 1 + i);
            *own = slot as u32 * 10;
        }
    }
    // Slot 0 is nobody's in the step (readable); slot 5 is thread 1's.
    assert_eq!(step.get(0), Some(&1));
    assert_eq!(step.get(5).is_some(), t == 1);
    let read = step.sync();
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = read[t];
    }
}

#[test]
fn a_step_writes_the_slots_of_its_map() {
    let mut out = vec![0u32; 16];
    step_maps_agree::emulate(&one_block(16), &mut out).unwrap();
    let expected: Vec<u32> = (0..16)
        .map(|s| if s % 4 == 1 || s % 4 == 2 { s * 10 } else { 1 })
        .collect();
    assert_eq!(out, expected);
}

/// Lanes 0..16 end the write phase of their warp's region while lanes 16.. end a read phase
/// after a second `sync` (the backend rejects this kernel: the `sync`s are under a condition
/// on the lane): the emulator refuses to let them meet at one `__syncwarp`.
#[kernel]
pub fn warp_region_phases_differ(
    mut out: DisjointSlice<u32>,
    regions: Shared<oxide::shared::WarpRegions<u32, 32, 1>>,
) {
    let Some(region) = regions.warp_region() else {
        return;
    };
    let write = region.fill(3);
    let seen = if oxide::warp::lane_id() < 16 {
        write.sync()[0]
    } else {
        let mut write = write.sync().sync();
        if let Some(own) = write.own_mut(0) {
            *own = 4;
        }
        0
    };
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = seen;
    }
}

#[test]
fn lanes_ending_different_phases_of_a_warp_region_fail_the_launch() {
    let mut out = vec![0u32; 32];
    let e = warp_region_phases_differ::emulate(&one_block(32), &mut out).unwrap_err();
    assert!(
        e.to_string()
            .contains("different phases of their warp's shared region"),
        "{e}"
    );
}
