// A pinned buffer's elements are borrowed from it, and an asynchronous copy takes the buffer
// mutably: the host cannot hold its elements while a copy into (or from) it is queued, and
// `as_slice` waits for the copies before it lends them again.
use oxide::prelude::*;

fn main() -> Result<(), oxide::host::Error> {
    let gpu = Gpu::new(0)?;
    let stream = gpu.new_stream()?;
    let dev = gpu.htod(&[1u32; 4])?;
    let mut host = gpu.alloc_pinned::<u32>(4)?;
    let seen = host.as_slice()?;
    stream.memcpy_dtoh_async(&dev, &mut host)?;
    println!("{}", seen[0]);
    let mut dst = gpu.alloc_zeroed::<u32>(4)?;
    let elements = host.as_mut_slice()?;
    stream.memcpy_htod_async(&mut host, &mut dst)?;
    elements[0] = 2;
    Ok(())
}
