//! Block-shared memory under the emulator: one copy per block, shared by the block's threads,
//! fresh (garbage, not the last block's values) in each block, and separate for emulations
//! that run at the same time.

use std::sync::{Barrier, Mutex};

use oxide_device::ThreadIndex;
use oxide_device::host_context::SHARED_GARBAGE;
use oxide_device::shared::SharedArray;
use oxide_device::thread::{self, sync_threads};
use oxide_emulator::{LaunchConfig, run};

fn shape(grid: u32, block: u32) -> LaunchConfig {
    LaunchConfig {
        grid: (grid, 1, 1),
        block: (block, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// What a thread saw, by linear index over the grid.
fn each_thread<T: Copy + Default + Send>(cfg: &LaunchConfig, f: impl Fn() -> T + Sync) -> Vec<T> {
    let threads = (cfg.grid.0 * cfg.block.0) as usize;
    let out = Mutex::new(vec![T::default(); threads]);
    run("shared", cfg, || {
        let value = f();
        out.lock().unwrap()[ThreadIndex::linear().get()] = value;
    })
    .unwrap();
    out.into_inner().unwrap()
}

const GARBAGE: u32 = u32::from_ne_bytes([SHARED_GARBAGE; 4]);

#[test]
fn the_threads_of_a_block_share_one_copy() {
    static TILE: SharedArray<u32, 64> = SharedArray::new();
    let seen = each_thread(&shape(3, 64), || {
        let (t, b) = (thread::thread_idx_x(), thread::block_idx_x());
        let tile = TILE.as_mut_ptr();
        // SAFETY: thread `t` writes element `t` only; after the barrier each reads an element
        // its block wrote before it.
        unsafe { tile.add(t as usize).write(b * 1000 + t) };
        sync_threads();
        let neighbour = unsafe { tile.add((t as usize + 1) % 64).read() };
        (tile.addr(), neighbour)
    });
    for (b, block) in seen.chunks(64).enumerate() {
        assert!(
            block.iter().all(|&(addr, _)| addr == block[0].0),
            "block {b}: one copy"
        );
        for (t, &(_, neighbour)) in block.iter().enumerate() {
            assert_eq!(
                neighbour as usize,
                b * 1000 + (t + 1) % 64,
                "block {b} thread {t}"
            );
        }
    }
}

#[test]
fn each_block_starts_with_garbage_not_the_last_blocks_values() {
    static COUNTS: SharedArray<u32, 8> = SharedArray::new();
    let seen = each_thread(&shape(4, 8), || {
        let t = thread::thread_idx_x() as usize;
        let counts = COUNTS.as_mut_ptr();
        // The emulator's promise (a kernel may not rely on it): a fresh copy is garbage.
        // SAFETY: each thread reads then writes its own element; the emulator made the copy.
        let fresh = unsafe { counts.add(t).read() };
        unsafe { counts.add(t).write(thread::block_idx_x() + 1) };
        sync_threads();
        fresh
    });
    assert!(seen.iter().all(|&v| v == GARBAGE), "{seen:x?}");
}

#[test]
fn two_statics_have_two_copies() {
    static A: SharedArray<u8, 32> = SharedArray::new();
    static B: SharedArray<u8, 32> = SharedArray::new();
    let seen = each_thread(&shape(2, 32), || {
        let t = thread::thread_idx_x() as usize;
        let (a, b) = (A.as_mut_ptr(), B.as_mut_ptr());
        // SAFETY: each thread writes element `t` of each, and reads after the barrier.
        unsafe {
            a.add(t).write(1);
            b.add(t).write(2);
        }
        sync_threads();
        unsafe { (a.add(31 - t).read(), b.add(31 - t).read()) }
    });
    assert!(seen.iter().all(|&v| v == (1, 2)));
}

#[test]
fn emulations_running_at_once_have_their_own_copies() {
    static TILE: SharedArray<u64, 32> = SharedArray::new();
    // Thread 0 of each emulation waits here for the other's, so that both emulations have
    // written their tiles before either reads.
    let both_wrote = Barrier::new(2);
    let emulate = |tag: u64| {
        each_thread(&shape(2, 32), || {
            let t = thread::thread_idx_x() as usize;
            let tile = TILE.as_mut_ptr();
            // SAFETY: thread `t` writes element `t`; reads come after the barrier.
            unsafe { tile.add(t).write(tag + t as u64) };
            sync_threads();
            if t == 0 && thread::block_idx_x() == 0 {
                both_wrote.wait();
            }
            sync_threads();
            unsafe { tile.add(31 - t).read() }
        })
    };
    let (first, second) = std::thread::scope(|s| {
        let first = s.spawn(|| emulate(1000));
        let second = s.spawn(|| emulate(2000));
        (first.join().unwrap(), second.join().unwrap())
    });
    for (tag, seen) in [(1000, first), (2000, second)] {
        for (i, v) in seen.into_iter().enumerate() {
            assert_eq!(v, tag + 31 - (i as u64 % 32), "emulation {tag}, thread {i}");
        }
    }
}
