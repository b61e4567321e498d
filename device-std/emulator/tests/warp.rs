//! Warps under the emulator: lane ids, shuffles as real exchanges between the OS threads of a
//! warp (whole and partial warps, segments, lanes that returned), and the undefined uses a
//! shuffle reports instead of hanging.

use std::sync::Mutex;

use oxide_device::ThreadIndex;
use oxide_device::thread::{self, sync_threads};
use oxide_device::warp::{lane_id, shfl_sync_bfly_i32, shfl_sync_idx_i32, vote_ballot_sync};
use oxide_emulator::{FailureKind, KernelFailure, LaunchConfig, run};

const FULL: u32 = u32::MAX;
const WHOLE_WARP: u32 = 0x1f;

fn shape(grid: (u32, u32, u32), block: (u32, u32, u32)) -> LaunchConfig {
    LaunchConfig {
        grid,
        block,
        shared_mem_bytes: 0,
    }
}

/// Runs `f` as every thread of `cfg` and returns what each returned, by linear index.
fn each_thread<T: Copy + Default + Send>(
    cfg: &LaunchConfig,
    f: impl Fn() -> T + Sync,
) -> Result<Vec<T>, KernelFailure> {
    let threads = [
        cfg.grid.0,
        cfg.grid.1,
        cfg.grid.2,
        cfg.block.0,
        cfg.block.1,
        cfg.block.2,
    ]
    .iter()
    .map(|&d| d as usize)
    .product();
    let out = Mutex::new(vec![T::default(); threads]);
    run("warp", cfg, || {
        let value = f();
        out.lock().unwrap()[ThreadIndex::linear().get()] = value;
    })?;
    Ok(out.into_inner().unwrap())
}

/// The thread's linear number in its block.
fn in_block() -> u32 {
    (thread::thread_idx_z() * thread::block_dim_y() + thread::thread_idx_y())
        * thread::block_dim_x()
        + thread::thread_idx_x()
}

#[test]
fn lane_ids_count_the_linear_order_in_the_block() {
    // 2 blocks of 64 threads, a 3-D block of 60 (its second warp has 28 lanes), and a block
    // of 40 (8 lanes in the second warp).
    for cfg in [
        shape((2, 1, 1), (64, 1, 1)),
        shape((1, 2, 1), (5, 4, 3)),
        shape((1, 1, 1), (40, 1, 1)),
    ] {
        let got = each_thread(&cfg, || (lane_id(), in_block())).unwrap();
        for (i, &(lane, thread)) in got.iter().enumerate() {
            assert_eq!(lane, thread % 32, "{cfg:?} thread {i}");
        }
        let per_block = (cfg.block.0 * cfg.block.1 * cfg.block.2) as usize;
        let expected: Vec<u32> = (0..got.len()).map(|i| (i % per_block) as u32).collect();
        assert_eq!(got.iter().map(|g| g.1).collect::<Vec<_>>(), expected);
    }
}

/// Every lane gets its warp's sum by a butterfly of index shuffles.
fn butterfly_sum(value: i32) -> i32 {
    let lane = lane_id();
    let mut sum = value;
    for offset in [16, 8, 4, 2, 1] {
        sum += unsafe { shfl_sync_idx_i32(FULL, sum, lane ^ offset, WHOLE_WARP) };
    }
    sum
}

#[test]
fn warp_sums_by_shuffles_over_two_blocks_of_64() {
    let cfg = shape((2, 1, 1), (64, 1, 1));
    let got = each_thread(&cfg, || {
        butterfly_sum(ThreadIndex::linear().get() as i32 * 3 - 100)
    })
    .unwrap();
    assert_eq!(got.len(), 128);
    for (warp, lanes) in got.chunks(32).enumerate() {
        let expected: i32 = (warp * 32..warp * 32 + 32)
            .map(|i| i as i32 * 3 - 100)
            .sum();
        assert!(
            lanes.iter().all(|&s| s == expected),
            "warp {warp}: {lanes:?}"
        );
    }
}

#[test]
fn xor_shuffles_and_ballots_over_a_block_of_40() {
    // The second warp has 8 lanes: its mask names just those.
    let cfg = shape((1, 1, 1), (40, 1, 1));
    let got = each_thread(&cfg, || {
        let i = ThreadIndex::linear().get() as i32;
        let mask = if i < 32 { FULL } else { 0xff };
        let mut sum = i;
        for offset in [16, 8, 4, 2, 1] {
            if i < 32 || offset < 8 {
                sum += unsafe { shfl_sync_bfly_i32(mask, sum, offset, WHOLE_WARP) };
            }
        }
        (sum, unsafe { vote_ballot_sync(mask, i % 3 == 0) })
    })
    .unwrap();
    let first: i32 = (0..32).sum();
    let second: i32 = (32..40).sum();
    let thirds = |range: std::ops::Range<u32>| {
        range
            .filter(|i| i % 3 == 0)
            .fold(0u32, |m, i| m | 1 << (i % 32))
    };
    for (i, &(sum, ballot)) in got.iter().enumerate() {
        if i < 32 {
            assert_eq!((sum, ballot), (first, thirds(0..32)), "thread {i}");
        } else {
            assert_eq!((sum, ballot), (second, thirds(32..40)), "thread {i}");
        }
    }
}

#[test]
fn a_partial_warp_exchanges_among_the_lanes_it_has() {
    // Blocks of 40: the second warp has 8 lanes. The full mask waits only for the lanes that
    // exist; each lane sums the others by reading them in turn.
    let cfg = shape((2, 1, 1), (40, 1, 1));
    let got = each_thread(&cfg, || {
        let lanes = (thread::block_dim_x() - in_block() / 32 * 32).min(32);
        let (lane, value) = (lane_id(), ThreadIndex::linear().get() as i32);
        let mut sum = value;
        for k in 1..lanes {
            sum += unsafe { shfl_sync_idx_i32(FULL, value, (lane + k) % lanes, WHOLE_WARP) };
        }
        sum
    })
    .unwrap();
    for block in 0..2 {
        let first = block * 40;
        let full: i32 = (first..first + 32).map(|i| i as i32).sum();
        let partial: i32 = (first + 32..first + 40).map(|i| i as i32).sum();
        assert!(got[first..first + 32].iter().all(|&s| s == full), "{got:?}");
        assert!(
            got[first + 32..first + 40].iter().all(|&s| s == partial),
            "{got:?}"
        );
    }
}

#[test]
fn segments_masks_and_returned_lanes() {
    let cfg = shape((1, 1, 1), (32, 1, 1));
    // width 8: each lane reads lane 2 of its group of eight.
    let width_8 = (24 << 8) | WHOLE_WARP;
    let got = each_thread(&cfg, || unsafe {
        shfl_sync_idx_i32(FULL, lane_id() as i32, 2, width_8)
    })
    .unwrap();
    let expected: Vec<i32> = (0..32).map(|lane| lane / 8 * 8 + 2).collect();
    assert_eq!(got, expected);

    // The two halves shuffle at once, each with its own mask, reading its other end.
    let got = each_thread(&cfg, || {
        let lane = lane_id();
        let mask = if lane < 16 { 0x0000_ffff } else { 0xffff_0000 };
        unsafe { shfl_sync_idx_i32(mask, lane as i32 * 10, lane ^ 15, WHOLE_WARP) }
    })
    .unwrap();
    let expected: Vec<i32> = (0..32).map(|lane| (lane ^ 15) * 10).collect();
    assert_eq!(got, expected);

    // Lanes 24.. return first: a shuffle with the full mask does not wait for them.
    let got = each_thread(&cfg, || {
        let lane = lane_id();
        if lane >= 24 {
            return -1;
        }
        unsafe { shfl_sync_idx_i32(FULL, lane as i32, 23 - lane, WHOLE_WARP) }
    })
    .unwrap();
    let expected: Vec<i32> = (0..32)
        .map(|lane| if lane >= 24 { -1 } else { 23 - lane })
        .collect();
    assert_eq!(got, expected);
}

fn failure(cfg: &LaunchConfig, kernel: impl Fn() + Sync) -> FailureKind {
    run("warp", cfg, kernel).unwrap_err().kind
}

#[test]
fn reading_a_lane_that_takes_no_part_fails_the_launch() {
    // Lane 3 of a warp of 8 reads lane 20, which does not exist.
    let kind = failure(&shape((1, 1, 1), (8, 1, 1)), || {
        let lane = lane_id();
        let src = if lane == 3 { 20 } else { lane };
        unsafe { shfl_sync_idx_i32(FULL, 1, src, WHOLE_WARP) };
    });
    let FailureKind::Panicked {
        thread, message, ..
    } = &kind
    else {
        panic!("{kind}");
    };
    assert_eq!(*thread, [3, 0, 0]);
    assert!(message.contains("lane 3 reads lane 20"), "{message}");

    // A lane outside its own mask.
    let kind = failure(&shape((1, 1, 1), (4, 1, 1)), || {
        unsafe { shfl_sync_idx_i32(0b0111, 1, 0, WHOLE_WARP) };
    });
    assert!(
        matches!(&kind, FailureKind::Panicked { thread: [3, 0, 0], message, .. }
            if message.contains("does not name it")),
        "{kind}"
    );
}

#[test]
fn a_shuffle_some_lanes_never_reach_fails_instead_of_hanging() {
    let cfg = shape((1, 1, 1), (32, 1, 1));
    // The upper half waits at the barrier, the lower half at a shuffle waiting for it.
    let kind = failure(&cfg, || {
        if lane_id() < 16 {
            unsafe { shfl_sync_idx_i32(FULL, 1, 0, WHOLE_WARP) };
        }
        sync_threads();
    });
    let FailureKind::WarpDivergence {
        block,
        thread,
        mask,
        missing,
    } = kind
    else {
        panic!("{kind}");
    };
    assert_eq!(
        (block, thread, mask, missing),
        ([0; 3], [0, 0, 0], FULL, [16, 0, 0])
    );

    // Lane 5 names a different mask from the rest of its warp.
    let kind = failure(&cfg, || {
        let mask = if lane_id() == 5 { 0xff } else { FULL };
        unsafe { shfl_sync_idx_i32(mask, 1, 0, WHOLE_WARP) };
    });
    assert!(matches!(kind, FailureKind::WarpDivergence { .. }), "{kind}");
    assert!(kind.to_string().contains("never reaches"), "{kind}");
}

#[test]
fn a_panic_releases_the_lanes_waiting_at_a_shuffle() {
    let cfg = shape((3, 1, 1), (64, 1, 1));
    let kind = failure(&cfg, || {
        if thread::block_idx_x() == 1 && lane_id() == 7 && thread::thread_idx_x() >= 32 {
            panic!("lane 7 of the second warp");
        }
        butterfly_sum(1);
    });
    let FailureKind::Panicked {
        block,
        thread,
        message,
        ..
    } = &kind
    else {
        panic!("{kind}");
    };
    assert_eq!((*block, *thread), ([1, 0, 0], [39, 0, 0]), "{kind}");
    assert_eq!(message, "lane 7 of the second warp");
}
