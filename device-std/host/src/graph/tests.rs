//! What a capture records and refuses, without a GPU: the [`Recording`] a capture's handle
//! carries, over trackers of no device.

use super::*;
use crate::error::not_capturable::{HOST_MEMORY, WAITS};

fn region(tracker: &Tracker, write: bool) -> Region<'_> {
    static PARAMS: [u64; 2] = [16, 4];
    Region {
        address: 0x7f00_0000_0000,
        len: 4,
        bytes: 16,
        params: &PARAMS,
        misaligned: None,
        ordinal: 0,
        tracker,
        write,
    }
}

#[test]
fn only_the_buffers_given_to_the_capture_are_used_and_only_the_mut_ones_written() {
    let (read, written, other) = (Tracker::default(), Tracker::default(), Tracker::default());
    let recording = Recording::new(vec![
        (TrackerRef(&read), false),
        (TrackerRef(&written), true),
    ]);
    assert!(recording.allow(&region(&read, false)).is_ok());
    assert!(recording.allow(&region(&written, false)).is_ok());
    assert!(recording.allow(&region(&written, true)).is_ok());
    assert_eq!(recording.lock().refused, None);
    // A buffer given shared is not written; one not given is not used at all.
    let e = recording.allow(&region(&read, true)).unwrap_err();
    assert!(matches!(e, Error::NotInGraph { write: true }), "{e}");
    let e = recording.allow(&region(&other, false)).unwrap_err();
    assert!(matches!(e, Error::NotInGraph { write: false }), "{e}");
    // The first refusal fails the capture, even if the closure went on and returned Ok.
    let e = recording.finish().err().unwrap();
    assert!(matches!(e, Error::NotInGraph { write: true }), "{e}");
}

#[test]
fn a_refused_call_fails_the_capture() {
    let recording = Recording::new(Vec::new());
    let e = recording.refuse(Refusal::Operation {
        operation: "synchronize",
        reason: WAITS,
    });
    assert_eq!(
        e.to_string(),
        "`synchronize` cannot be captured into a CUDA graph: nothing captured runs before the \
         graph is launched; wait after `Graph::launch`"
    );
    recording.refuse(Refusal::Operation {
        operation: "fill",
        reason: HOST_MEMORY,
    });
    let e = recording.finish().err().unwrap();
    assert!(
        matches!(
            e,
            Error::NotCapturable {
                operation: "synchronize",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn each_buffer_is_ordered_once_as_a_write_if_any_captured_work_writes_it() {
    let (a, b, c) = (Tracker::default(), Tracker::default(), Tracker::default());
    let held = [&a, &b, &c].map(|t| (TrackerRef(t), true)).to_vec();
    let recording = Recording::new(held);
    let (k1, k2): (Arc<str>, Arc<str>) = (Arc::from("k1"), Arc::from("k2"));
    for _ in 0..50 {
        recording.captured([(&a, false), (&b, true)], Some(&k1));
        recording.captured([(&b, false), (&c, true)], Some(&k2));
    }
    // A copy from c into a.
    recording.captured([(&c, false), (&a, true)], None);
    let state = recording.finish().ok().unwrap();
    assert_eq!((state.launches, state.copies), (100, 1));
    assert_eq!(
        state.uses,
        vec![
            (TrackerRef(&a), true),
            (TrackerRef(&b), true),
            (TrackerRef(&c), true)
        ]
    );
    assert_eq!(
        state.name().as_deref(),
        Some("k1, k2 (a CUDA graph of 100 launches)")
    );
}

#[test]
fn a_graph_of_copies_only_has_no_name_in_the_launch_log() {
    let a = Tracker::default();
    let recording = Recording::new(vec![(TrackerRef(&a), false)]);
    recording.captured([(&a, false)], None);
    let state = recording.finish().ok().unwrap();
    assert_eq!(state.name(), None);
    assert_eq!(state.uses, vec![(TrackerRef(&a), false)]);
}

#[test]
fn messages() {
    let e = Error::NotInGraph { write: true };
    assert_eq!(
        e.to_string(),
        "a launch or copy captured into a CUDA graph writes a buffer that was not given to \
         `Gpu::capture` as `&mut`; pass every buffer the graph uses in the capture's first \
         argument (`&buf` for one it reads, `&mut buf` for one it writes)"
    );
    let e = Error::GraphDevice { graph: 0, gpu: 1 };
    assert_eq!(
        e.to_string(),
        "a CUDA graph captured on GPU 0 was launched on GPU 1"
    );
    assert!(!e.is_unavailable());
}
