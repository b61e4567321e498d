// A byte memset writes the same byte into every byte of the buffer: only types for which every
// byte pattern is a value take it. `bool` (2 is not a bool) and a derived enum do not.
use oxide::prelude::*;

#[repr(u8)]
#[derive(Clone, Copy, DeviceRepr, ValidAsZeroBits)]
pub enum Mode {
    Off = 0,
    On = 1,
}

fn main() -> Result<(), oxide::host::Error> {
    let gpu = Gpu::new(0)?;
    let mut flags = gpu.alloc_zeroed::<bool>(16)?;
    gpu.memset_d8(&mut flags, 2)?;
    let mut modes = gpu.alloc_zeroed::<Mode>(16)?;
    gpu.memset_d8(&mut modes, 7)?;
    // Zeros are fine for both: they are `ValidAsZeroBits`.
    gpu.memset_zeros(&mut flags)?;
    gpu.memset_zeros(&mut modes)?;
    Ok(())
}
