//! `printf!` and `device_assert!`. The printing case runs the kernel in a child process of the
//! runner (`conformance --print <reference|emulator|gpu>`) and compares the text each prints
//! on stdout, line by line in sorted order (threads print in no fixed order): C's formatting on
//! the host against the driver's `vprintf` on the GPU. The assertion cases trap on the GPU and
//! panic on the host when the condition fails.

use std::process::Command;

use oxide::device_assert;
use oxide::host::{Error, Gpu};
use oxide::prelude::*;
use oxide::printf;

use crate::harness::{Case, Check, KernelCase, Outcome};

/// Threads whose index is a multiple of this print.
const EVERY: usize = 37;

/// One line of every conversion `printf!` has, from `x` (finite floats only: the text of NaNs
/// and infinities is the C library's own, and the driver's may differ).
fn print_line(i: usize, x: u64) {
    let small = (x >> 40) as i32 - (1 << 23);
    let real = f64::from(small) / 1024.0;
    let single = (x as u32 >> 9) as f32 * 1.0e-3;
    printf!(
        "%5u: d=%d i=%+i u=%u x=%#x X=%08X o=%o c=%c lld=%lld llu=%llu llx=%llx f=%f .3f=%.3f \
         e=%e g=%g G=%G a=%a s=%s %%\n",
        i as u32,
        small,
        -small,
        x as u32,
        x as u32,
        (x >> 32) as u32,
        x as u16,
        u32::from(b'a' + (x % 26) as u8),
        x as i64,
        x,
        x,
        real,
        single,
        real * 1.0e-7,
        single,
        real * 3.0e12,
        real,
        c"text"
    );
}

#[kernel]
pub fn print_values(input: &[u64], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(&x) = input.get(i)
        && i.is_multiple_of(EVERY)
    {
        print_line(i, x);
    }
    if let Some(o) = out.get_mut(idx) {
        *o = 1;
    }
}

/// `conformance --print <how>`: prints the lines of `print_values` one way, for the parent.
pub fn print_for_parent(how: &str, input: &[u64]) -> Result<(), String> {
    let cfg = LaunchConfig::for_num_elems(input.len(), 128).map_err(|e| e.to_string())?;
    let mut out = vec![0u32; input.len()];
    match how {
        "reference" => {
            for (i, &x) in input.iter().enumerate().step_by(EVERY) {
                print_line(i, x);
            }
            Ok(())
        }
        "emulator" => print_values::emulate(&cfg, input, &mut out).map_err(|e| e.to_string()),
        "gpu" => {
            let run = || -> Result<(), Error> {
                let gpu = Gpu::new(0)?;
                let input = gpu.htod(input)?;
                let mut out = gpu.alloc_zeroed::<u32>(input.len())?;
                print_values::launch(&gpu, cfg, &input, &mut out)?;
                // The driver prints the buffered text when the host synchronises.
                gpu.dtoh(&out).map(drop)
            };
            run().map_err(|e| e.to_string())
        }
        other => Err(format!("unknown --print mode {other:?}")),
    }
}

/// The case comparing what each way of running prints.
struct PrintCase;

impl PrintCase {
    fn printed(how: &str) -> Outcome {
        let exe = match std::env::current_exe() {
            Ok(exe) => exe,
            Err(e) => return Outcome::Failed(e.to_string()),
        };
        let out = match Command::new(exe).args(["--print", how]).output() {
            Ok(out) => out,
            Err(e) => return Outcome::Failed(e.to_string()),
        };
        if !out.status.success() {
            return Outcome::Failed(String::from_utf8_lossy(&out.stderr).into_owned());
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let mut lines: Vec<&str> = text.lines().collect();
        lines.sort_unstable();
        if lines.len() != crate::harness::N.div_ceil(EVERY) {
            return Outcome::Failed(format!("{how} printed {} lines", lines.len()));
        }
        Outcome::Values(lines.join("\n").bytes().map(u128::from).collect())
    }
}

impl Case for PrintCase {
    fn name(&self) -> &'static str {
        "printf_every_conversion"
    }
    fn check(&self) -> Check {
        Check::Exact
    }
    fn float_bits(&self) -> u32 {
        0
    }
    fn reference(&self, _: &[u64]) -> Outcome {
        PrintCase::printed("reference")
    }
    fn emulate(&self, _: &[u64]) -> Outcome {
        PrintCase::printed("emulator")
    }
    fn gpu(&self, _: &Gpu, _: &[u64]) -> Outcome {
        PrintCase::printed("gpu")
    }
}

/// Holds for every input but one: that thread's assertion fails, with a message.
fn checked(i: usize, x: u64) -> u64 {
    device_assert!(i != 700, "input %llu at %u", x, i as u32);
    x.rotate_left(3)
}

#[kernel]
pub fn assert_message_traps(input: &[u64], mut out: DisjointSlice<u64>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = checked(i, input[i]);
    }
}

/// Holds for every input: nothing is printed and the values are those of the reference.
#[kernel]
pub fn assert_holds(input: &[u64], mut out: DisjointSlice<u64>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        let x = input[i];
        device_assert!(x.rotate_left(3).rotate_right(3) == x);
        *o = x ^ 0x55;
    }
}

pub fn cases() -> Vec<Box<dyn Case>> {
    vec![
        Box::new(PrintCase),
        Box::new(KernelCase::<u64> {
            name: "device_assert_message_traps",
            check: Check::Traps,
            reference: |input| {
                input
                    .iter()
                    .enumerate()
                    .map(|(i, &x)| checked(i, x))
                    .collect()
            },
            launch: |gpu, cfg, input, out| assert_message_traps::launch(gpu, cfg, input, out),
            emulate: |cfg, input, out| assert_message_traps::emulate(cfg, input, out),
        }),
        Box::new(KernelCase::<u64> {
            name: "device_assert_holds",
            check: Check::Exact,
            reference: |input| input.iter().map(|&x| x ^ 0x55).collect(),
            launch: |gpu, cfg, input, out| assert_holds::launch(gpu, cfg, input, out),
            emulate: |cfg, input, out| assert_holds::emulate(cfg, input, out),
        }),
    ]
}
