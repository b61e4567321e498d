//! What a case is, its inputs, and how results compare.

use oxide::emulate::KernelFailure;
use oxide::host::{DeviceBuffer, DeviceRepr, Error, Gpu, LaunchConfig, ValidAsZeroBits};
use oxide_contract::panic_message;

/// Elements per case: several blocks and a partial last one.
pub const N: usize = 1024 + 37;
pub const BLOCK: u32 = 128;

/// A value a case produces, as bits for comparison.
pub trait Bits: Copy + Default + DeviceRepr + ValidAsZeroBits + Send + Sync + 'static {
    /// Width in bits when the type is a float, else 0.
    const FLOAT_BITS: u32 = 0;
    fn bits(self) -> u128;
}

macro_rules! int_bits {
    ($($t:ty),*) => {$(
        impl Bits for $t {
            fn bits(self) -> u128 { self as u128 }
        }
    )*};
}
int_bits!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize
);

impl Bits for bool {
    fn bits(self) -> u128 {
        self as u128
    }
}
impl Bits for f32 {
    const FLOAT_BITS: u32 = 32;
    fn bits(self) -> u128 {
        self.to_bits() as u128
    }
}
impl Bits for f64 {
    const FLOAT_BITS: u32 = 64;
    fn bits(self) -> u128 {
        self.to_bits() as u128
    }
}

/// How results must agree.
#[derive(Clone, Copy, Debug)]
pub enum Check {
    /// Bit for bit.
    Exact,
    /// Floats within this many units in the last place (NaN equals NaN, whatever the payload).
    Ulp(u32),
    /// Every way of running the case must fail (panic, trap).
    Traps,
}

/// What running a case gave.
#[derive(Debug)]
pub enum Outcome {
    Values(Vec<u128>),
    Failed(String),
}

pub trait Case: Sync {
    fn name(&self) -> &'static str;
    fn check(&self) -> Check;
    /// Width of float results (0 for others), for `Check::Ulp`.
    fn float_bits(&self) -> u32;
    /// The case body as plain Rust on the host, element by element.
    fn reference(&self, input: &[u64]) -> Outcome;
    /// The kernel on the CPU emulator.
    fn emulate(&self, input: &[u64]) -> Outcome;
    /// The kernel on the GPU.
    fn gpu(&self, gpu: &Gpu, input: &[u64]) -> Outcome;
}

pub type Launch<R> =
    fn(&Gpu, LaunchConfig, &DeviceBuffer<u64>, &mut DeviceBuffer<R>) -> Result<(), Error>;
pub type Emulate<R> = fn(&LaunchConfig, &[u64], &mut [R]) -> Result<(), KernelFailure>;

/// One case: a kernel from `input` to one output element per thread, how to launch it on the
/// GPU and on the emulator (the functions close over any other arguments: structs, closures,
/// generic parameters), and the same computation as plain Rust.
pub struct KernelCase<R: Bits> {
    pub name: &'static str,
    pub check: Check,
    pub reference: fn(&[u64]) -> Vec<R>,
    pub launch: Launch<R>,
    pub emulate: Emulate<R>,
}

fn config(n: usize) -> LaunchConfig {
    LaunchConfig::for_num_elems(n, BLOCK).expect("a valid launch shape")
}

fn bits_of<R: Bits>(values: &[R]) -> Vec<u128> {
    values.iter().map(|v| v.bits()).collect()
}

impl<R: Bits> Case for KernelCase<R> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn check(&self) -> Check {
        self.check
    }

    fn float_bits(&self) -> u32 {
        R::FLOAT_BITS
    }

    fn reference(&self, input: &[u64]) -> Outcome {
        let reference = self.reference;
        match std::panic::catch_unwind(|| reference(input)) {
            Ok(values) => Outcome::Values(bits_of(&values)),
            Err(payload) => Outcome::Failed(panic_message(&*payload)),
        }
    }

    fn emulate(&self, input: &[u64]) -> Outcome {
        let mut out = vec![R::default(); input.len()];
        match (self.emulate)(&config(input.len()), input, &mut out) {
            Ok(()) => Outcome::Values(bits_of(&out)),
            Err(failure) => Outcome::Failed(failure.to_string()),
        }
    }

    fn gpu(&self, gpu: &Gpu, input: &[u64]) -> Outcome {
        let run = || -> Result<Vec<R>, Error> {
            let input = gpu.htod(input)?;
            let mut out = gpu.alloc_zeroed::<R>(input.len())?;
            (self.launch)(gpu, config(input.len()), &input, &mut out)?;
            gpu.dtoh(&out)
        };
        match run() {
            Ok(values) => Outcome::Values(bits_of(&values)),
            Err(e) => Outcome::Failed(e.to_string()),
        }
    }
}

/// The inputs every case gets: edge values of every width and float, then pseudo-random bits.
pub fn inputs() -> Vec<u64> {
    let mut values: Vec<u64> = vec![
        0,
        1,
        2,
        3,
        7,
        u64::MAX,
        u64::MAX - 1,
        0x7f,
        0x80,
        0xff,
        0x100,
        0x7fff,
        0x8000,
        0xffff,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0x1_0000_0000,
        i64::MAX as u64,
        i64::MIN as u64,
        1.0f32.to_bits() as u64,
        (-1.5f32).to_bits() as u64,
        (-0.0f32).to_bits() as u64,
        f32::INFINITY.to_bits() as u64,
        f32::NAN.to_bits() as u64,
        f32::MIN_POSITIVE.to_bits() as u64,
        1e-45f32.to_bits() as u64,
        3.0e9f32.to_bits() as u64,
        1.0f64.to_bits(),
        (-2.75f64).to_bits(),
        f64::NEG_INFINITY.to_bits(),
        f64::NAN.to_bits(),
        1e300f64.to_bits(),
        123_456_789,
    ];
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    while values.len() < N {
        // splitmix64
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        values.push(z ^ (z >> 31));
    }
    values
}

/// Compares two outcomes; `Err` says where and how they differ. `Ok` holds what a `Ulp` case
/// measured (the largest difference, against the bound), empty for the others.
pub fn compare(
    case: &dyn Case,
    left: (&str, &Outcome),
    right: (&str, &Outcome),
) -> Result<String, String> {
    let ((ln, l), (rn, r)) = (left, right);
    match (case.check(), l, r) {
        (Check::Traps, Outcome::Failed(_), Outcome::Failed(_)) => Ok(String::new()),
        (Check::Traps, Outcome::Values(_), _) => {
            Err(format!("{ln} did not fail, but the case must trap"))
        }
        (Check::Traps, _, Outcome::Values(_)) => {
            Err(format!("{rn} did not fail, but the case must trap"))
        }
        (_, Outcome::Failed(e), _) => Err(format!("{ln} failed: {e}")),
        (_, _, Outcome::Failed(e)) => Err(format!("{rn} failed: {e}")),
        (check, Outcome::Values(a), Outcome::Values(b)) => {
            if a.len() != b.len() {
                return Err(format!("{ln} gave {} values, {rn} {}", a.len(), b.len()));
            }
            let float_bits = case.float_bits();
            let mut largest = 0u128;
            for (i, (&x, &y)) in a.iter().zip(b).enumerate() {
                let same = match check {
                    Check::Ulp(max) if float_bits != 0 => {
                        let d = ulp_distance(x, y, float_bits);
                        largest = largest.max(d.unwrap_or(0));
                        d.is_some_and(|d| d <= u128::from(max))
                    }
                    _ => x == y,
                };
                if !same {
                    return Err(format!(
                        "first difference at index {i}: {ln} {} vs {rn} {}",
                        show(x, float_bits),
                        show(y, float_bits)
                    ));
                }
            }
            Ok(match check {
                Check::Ulp(max) if float_bits != 0 => {
                    format!("largest difference {largest} ulp (bound {max})")
                }
                _ => String::new(),
            })
        }
    }
}

/// How many units in the last place apart two floats are: 0 for two NaNs, `None` for a NaN
/// and a number.
fn ulp_distance(a: u128, b: u128, bits: u32) -> Option<u128> {
    // Map float bits to integers ordered like the floats they are.
    let ordered = |v: u128| -> i128 {
        let sign = 1u128 << (bits - 1);
        if v & sign != 0 {
            -((v & !sign) as i128)
        } else {
            v as i128
        }
    };
    let is_nan = |v: u128| match bits {
        32 => f32::from_bits(v as u32).is_nan(),
        _ => f64::from_bits(v as u64).is_nan(),
    };
    if is_nan(a) || is_nan(b) {
        return (is_nan(a) && is_nan(b)).then_some(0);
    }
    Some((ordered(a) - ordered(b)).unsigned_abs())
}

fn show(v: u128, float_bits: u32) -> String {
    match float_bits {
        32 => format!("{:?} ({v:#x})", f32::from_bits(v as u32)),
        64 => format!("{:?} ({v:#x})", f64::from_bits(v as u64)),
        _ => format!("{v} ({v:#x})"),
    }
}
