//! `#[derive(DeviceRepr)]` and `#[derive(ValidAsZeroBits)]`: derived structs and enums are
//! buffer elements (`Gpu::htod`, `Gpu::alloc_zeroed`, `Gpu::dtoh` accept them), kernels read
//! them as `&[T]` and write them through `DisjointSlice<T>`, and the emulator computes the
//! values plain Rust does. The refusals are compile-fail tests in tests/ui (derive_*.rs).

use core::marker::PhantomData;
use core::mem::{align_of, size_of};

use oxide::host::{DeviceBuffer, DeviceRepr, Error, Gpu, ValidAsZeroBits};
use oxide::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, DeviceRepr, ValidAsZeroBits)]
#[repr(u8)]
pub enum Phase {
    Idle = 0,
    Moving = 1,
    Stopped = 7,
}

/// Padding after `phase` (3 bytes) and at the end (the `f64` alignment), a nested array and a
/// nested derived enum.
#[derive(Clone, Copy, Debug, PartialEq, DeviceRepr, ValidAsZeroBits)]
#[repr(C)]
pub struct Particle {
    pub pos: [f32; 3],
    pub phase: Phase,
    pub id: u32,
    pub mass: f64,
    pub alive: bool,
}

/// Generic: the impls are bounded by `T`; the `PhantomData<U>` marker asks only the `U: Copy`
/// of the derived `Copy` (`U = char`, not a field type, is fine).
#[derive(Clone, Copy, Debug, PartialEq, DeviceRepr, ValidAsZeroBits)]
#[repr(C)]
pub struct Tagged<T, U> {
    pub value: T,
    pub tags: [[u16; 2]; 2],
    pub unit: PhantomData<U>,
}

#[derive(Clone, Copy, Debug, PartialEq, DeviceRepr, ValidAsZeroBits)]
#[repr(transparent)]
pub struct Meters(pub f32);

#[derive(Clone, Copy, Debug, PartialEq, DeviceRepr, ValidAsZeroBits)]
#[repr(C)]
pub struct Empty;

/// One step of the particle: what the kernel and the reference both compute.
fn step(p: Particle, dt: f32) -> Particle {
    let moving = p.phase == Phase::Moving && p.alive;
    let v = if moving { 1.0 + p.id as f32 } else { 0.0 };
    let pos = [p.pos[0] + v * dt, p.pos[1] - v * dt, p.pos[2] * 2.0];
    let phase = match p.phase {
        Phase::Moving if pos[0] > 10.0 => Phase::Stopped,
        other => other,
    };
    Particle {
        pos,
        phase,
        id: p.id,
        mass: p.mass * 0.5,
        alive: p.alive && phase != Phase::Stopped,
    }
}

#[kernel]
pub fn advance(dt: f32, input: &[Particle], mut out: DisjointSlice<Particle>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = step(input[i], dt);
    }
}

#[kernel]
pub fn tag_sum(input: &[Tagged<u32, u64>], mut out: DisjointSlice<Tagged<u64, ()>>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        let t = input[i];
        let sum: u32 = t.tags.iter().flatten().map(|&x| u32::from(x)).sum();
        *o = Tagged {
            value: u64::from(t.value) + u64::from(sum),
            tags: [[t.tags[1][1], t.tags[1][0]], [t.tags[0][1], t.tags[0][0]]],
            unit: PhantomData,
        };
    }
}

const ZERO: Particle = Particle {
    pos: [0.0; 3],
    phase: Phase::Idle,
    id: 0,
    mass: 0.0,
    alive: false,
};

fn particles(n: u32) -> Vec<Particle> {
    let phases = [Phase::Idle, Phase::Moving, Phase::Stopped];
    (0..n)
        .map(|i| Particle {
            pos: [i as f32 * 0.25, 3.0 - i as f32, (i % 5) as f32],
            phase: phases[(i % 3) as usize],
            id: i,
            mass: f64::from(i) + 0.5,
            alive: i % 4 != 0,
        })
        .collect()
}

#[test]
fn derived_structs_cross_as_slices_and_outputs() {
    let input = particles(100);
    let mut out = vec![ZERO; 100];
    let cfg = LaunchConfig::for_num_elems(100, 32).unwrap();
    advance::emulate(&cfg, 0.5, &input, &mut out).unwrap();
    let expected: Vec<Particle> = input.iter().map(|&p| step(p, 0.5)).collect();
    assert_eq!(out, expected);
    // The values exercise every path of `step`: all three phases come out, moving or not.
    for phase in [Phase::Idle, Phase::Moving, Phase::Stopped] {
        assert!(out.iter().any(|p| p.phase == phase), "{phase:?}");
    }
    assert!(out.iter().any(|p| p.alive) && out.iter().any(|p| !p.alive));
    // Particle 7 moves at 8 per unit of time; 25 moves past 10 and stops.
    assert_eq!(
        out[7],
        Particle {
            pos: [5.75, -8.0, 4.0],
            phase: Phase::Moving,
            id: 7,
            mass: 3.75,
            alive: true,
        }
    );
    assert_eq!(
        (out[25].pos[0], out[25].phase, out[25].alive),
        (19.25, Phase::Stopped, false)
    );
}

#[test]
fn derived_generic_structs_cross_at_their_instances() {
    let input: Vec<Tagged<u32, u64>> = (0..64u16)
        .map(|i| Tagged {
            value: u32::from(i) * 1000,
            tags: [[i, i + 1], [i + 2, 3 * i]],
            unit: PhantomData,
        })
        .collect();
    let zero = Tagged {
        value: 0u64,
        tags: [[0; 2]; 2],
        unit: PhantomData,
    };
    let mut out = vec![zero; 64];
    let cfg = LaunchConfig::for_num_elems(64, 16).unwrap();
    tag_sum::emulate(&cfg, &input, &mut out).unwrap();
    for (i, o) in (0..64u64).zip(&out) {
        assert_eq!(o.value, i * 1000 + 6 * i + 3, "{i}");
        let i = i as u16;
        assert_eq!(o.tags, [[3 * i, i + 2], [i + 1, i]]);
    }
}

/// The host API's bounds hold for the derived types: these calls type-check. A driverless
/// machine gets `NoDriver` before any copy, and a machine with a GPU runs them.
fn round_trip<T: DeviceRepr + ValidAsZeroBits + PartialEq + core::fmt::Debug>(
    values: &[T],
) -> Result<(), Error> {
    let gpu = Gpu::new(0)?;
    let buf: DeviceBuffer<T> = gpu.htod(values)?;
    assert_eq!(gpu.dtoh(&buf)?, values);
    let zeroed = gpu.alloc_zeroed::<T>(values.len())?;
    assert_eq!(gpu.dtoh(&zeroed)?.len(), values.len());
    Ok(())
}

#[test]
fn derived_types_are_buffer_elements() {
    let ok_or_no_driver = |r: Result<(), Error>| match r {
        Ok(()) | Err(Error::NoDriver(_)) => {}
        Err(e) => panic!("{e}"),
    };
    ok_or_no_driver(round_trip(&particles(10)));
    ok_or_no_driver(round_trip(&[Phase::Stopped, Phase::Idle]));
    ok_or_no_driver(round_trip(&[Meters(1.5), Meters(-2.0)]));
    ok_or_no_driver(round_trip(&[Tagged {
        value: 7u8,
        tags: [[1, 2], [3, 4]],
        unit: PhantomData::<char>,
    }]));
}

#[test]
fn derived_layouts_are_c_layouts() {
    // `pos` 12 bytes, `phase` at 12, `id` at 16, `mass` at 24, `alive` at 32, padded to 40.
    assert_eq!(size_of::<Particle>(), 40);
    assert_eq!(align_of::<Particle>(), 8);
    assert_eq!(size_of::<Phase>(), 1);
    assert_eq!(size_of::<Meters>(), 4);
    assert_eq!(size_of::<Empty>(), 0);
    // Zero bits are `Phase::Idle`, the variant whose discriminant is 0.
    assert_eq!(Phase::Idle as u8, 0);
    assert_eq!(Phase::Stopped as u8, 7);
}
