// Fragments carry their operand role, element type and shape: a B fragment is not an A
// operand, bf16 and f16 operands do not mix, and neither do shapes (m16n8k8 tf32 with an
// m16n8k16 B; an f64 m8n8k4 product into f32 accumulators), nor integer and float bytes (an i8
// A with an e4m3 B: i8·u8 and e4m3·e5m2 mix, as mma.sync does; an i8 product into f32
// accumulators).
use oxide::mma::{FragA, FragB, FragC, fp64, fp8, int8, mma, tf32};
use oxide::prelude::*;

pub fn swapped(a: FragA<bf16>, b: FragB<bf16>) -> FragC {
    mma(&b, &a, FragC::zero())
}

pub fn mixed(a: FragA<bf16>, b: FragB<oxide::f16>) -> FragC {
    mma(&a, &b, FragC::zero())
}

pub fn shapes(a: tf32::FragA, b: FragB<bf16>) -> FragC {
    mma(&a, &b, FragC::zero())
}

pub fn accumulators(a: fp64::FragA, b: fp64::FragB) -> FragC {
    mma(&a, &b, FragC::zero())
}

pub fn integer_by_float(a: int8::FragA<i8>, b: fp8::FragB<oxide::e4m3>) -> int8::FragC {
    mma(&a, &b, int8::FragC::zero())
}

pub fn integer_accumulators(a: int8::FragA<i8>, b: int8::FragB<i8>) -> FragC {
    mma(&a, &b, FragC::zero())
}

fn main() {}
