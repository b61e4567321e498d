//! The launch's shape and stream from the keyword arguments `grid`, `block` and `stream`, and
//! the shape a call gets without them (docs/python.md, "The launch").

use oxide_host::{ForeignSignature, LaunchConfig};
use pyo3::prelude::*;

use crate::refusal::Refusal;
use crate::tensor::Checked;

/// A grid or block shape, `(x, y, z)`.
pub type Shape = [u32; 3];

/// The threads a block has when neither `block=` nor the kernel's `#[kernel(block = ...)]`
/// says: 256, a common choice for one element per thread.
pub const DEFAULT_BLOCK: u32 = 256;

/// `grid=` or `block=`: an int, or a tuple of one to three ints; `None` is none given.
pub fn shape(value: &Bound<'_, PyAny>, what: &str) -> Result<Option<Shape>, Refusal> {
    if value.is_none() {
        return Ok(None);
    }
    let dims: Vec<u32> = match value.extract::<u32>() {
        Ok(x) => vec![x],
        Err(_) => value.extract().map_err(|_| {
            Refusal::type_error(format!(
                "`{what}` takes an int or a tuple of one to three ints (x, y, z), each 0 ..= \
                 {}",
                u32::MAX
            ))
        })?,
    };
    match dims[..] {
        [x] => Ok(Some([x, 1, 1])),
        [x, y] => Ok(Some([x, y, 1])),
        [x, y, z] => Ok(Some([x, y, z])),
        _ => Err(Refusal::type_error(format!(
            "`{what}` has {} dimensions; a launch has one to three",
            dims.len()
        ))),
    }
}

/// `stream=`: a raw `cudaStream_t` as an int (0 the legacy default stream), an object with
/// `cuda_stream` (a `torch.cuda.Stream`), or one with `__cuda_stream__()` (the CUDA stream
/// protocol: `(version, handle)`); `None` is none given.
pub fn stream(value: &Bound<'_, PyAny>) -> Result<Option<usize>, Refusal> {
    if value.is_none() {
        return Ok(None);
    }
    let refused = || {
        Refusal::type_error(
            "`stream` takes a CUDA stream: a `torch.cuda.Stream`, an object with \
             `__cuda_stream__`, or a raw `cudaStream_t` as an int",
        )
    };
    if let Ok(raw) = value.extract::<usize>() {
        return Ok(Some(raw));
    }
    if let Ok(raw) = value.getattr("cuda_stream") {
        return raw.extract().map(Some).map_err(|_| refused());
    }
    if let Ok(protocol) = value.call_method0("__cuda_stream__") {
        let (_, raw): (i64, usize) = protocol.extract().map_err(|_| refused())?;
        return Ok(Some(raw));
    }
    Err(refused())
}

/// What a kernel parameter does with its tensor, as far as the default grid cares: only an
/// output of one element a thread (`DisjointSlice<T>`, ...) says how many threads the launch
/// takes. An atomic slice (`&[AtomicU32]`) is every thread's (sizing the grid by a histogram's
/// 256 bins launched 256 threads for a million keys: found on the GPU, 2026-12-07), and a 2-D
/// output is a tile a block or a row a warp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Read only (`&[T]`, `Matrix<T>`).
    Read,
    /// An atomic slice, written by every thread.
    Atomic,
    /// A 1-D output, an element (or a chunk) a thread.
    Elements,
    /// A 2-D output (`DisjointRows`, `BlockTiles`, `MmaTiles`, ...).
    Tiles,
}

impl Role {
    /// Whether the kernel writes the tensor.
    pub fn writes(self) -> bool {
        self != Role::Read
    }
}

/// The launch's shape: `block` as given, else the kernel's declared block, else
/// [`DEFAULT_BLOCK`]; `grid` as given, else (for a block of one dimension) enough blocks for
/// one thread per element of the first [`Role::Elements`] output. The launch itself checks
/// the shape against the kernel's contract and the device.
pub fn launch_config(
    signature: &ForeignSignature,
    grid: Option<Shape>,
    block: Option<Shape>,
    tensors: &[(&str, &Checked, Role)],
) -> Result<LaunchConfig, Refusal> {
    let block = block
        .or(signature.options.block)
        .unwrap_or([DEFAULT_BLOCK, 1, 1]);
    let grid = match grid {
        Some(grid) => grid,
        None => {
            let kernel = signature.name;
            let role_of = |role: Role| tensors.iter().find(|(_, _, r)| *r == role);
            let Some((_, output, _)) = role_of(Role::Elements) else {
                return Err(Refusal::type_error(
                    if let Some((name, ..)) = role_of(Role::Tiles) {
                        format!(
                            "{kernel}() writes the 2-D output `{name}`, whose shape is not its \
                         thread count (a tile a block, a row a warp...): pass `grid=`"
                        )
                    } else if role_of(Role::Atomic).is_some() {
                        format!(
                            "{kernel}() writes only atomic slices, whose length says nothing of \
                         how many threads it takes: pass `grid=`"
                        )
                    } else {
                        format!("{kernel}() writes no tensor to size the grid by: pass `grid=`")
                    },
                ));
            };
            if block[1] != 1 || block[2] != 1 || block[0] == 0 {
                return Err(Refusal::type_error(format!(
                    "{kernel}() launches blocks of {block:?} threads: pass `grid=` (a grid is \
                     sized by itself only for blocks of one dimension)"
                )));
            }
            let blocks = output.elements.div_ceil(block[0] as usize).max(1);
            let blocks = u32::try_from(blocks).map_err(|_| {
                Refusal::value_error(format!(
                    "{kernel}(): {} elements need more than 2^32 blocks of {}: pass `grid=` \
                     and `block=`",
                    output.elements, block[0]
                ))
            })?;
            [blocks, 1, 1]
        }
    };
    Ok(LaunchConfig {
        grid: (grid[0], grid[1], grid[2]),
        block: (block[0], block[1], block[2]),
        shared_mem_bytes: 0,
    })
}

#[cfg(test)]
mod tests {
    use oxide_host::ForeignParam;

    use super::*;

    fn checked(elements: usize) -> Checked {
        Checked {
            elements,
            matrix: None,
            bytes: 0..4 * elements as u64,
            device: Some(0),
        }
    }

    fn signature(params: &'static [ForeignParam]) -> ForeignSignature {
        ForeignSignature {
            name: "k",
            params,
            options: Default::default(),
            same_len: &[],
        }
    }

    #[test]
    fn the_default_grid_is_sized_by_the_first_output() {
        let sig = signature(&[
            ForeignParam {
                name: "a",
                ty: "&[f32]",
            },
            ForeignParam {
                name: "c",
                ty: "DisjointSlice<f32>",
            },
        ]);
        let (a, c) = (checked(1 << 20), checked(1000));
        let cfg = launch_config(
            &sig,
            None,
            None,
            &[("a", &a, Role::Read), ("c", &c, Role::Elements)],
        )
        .unwrap();
        assert_eq!(cfg.grid, (1000u32.div_ceil(DEFAULT_BLOCK), 1, 1));
    }

    #[test]
    fn an_atomic_slice_does_not_size_the_grid() {
        let sig = signature(&[
            ForeignParam {
                name: "keys",
                ty: "&[u32]",
            },
            ForeignParam {
                name: "bins",
                ty: "&[AtomicU32]",
            },
        ]);
        let (keys, bins) = (checked(1 << 20), checked(256));
        let tensors = [("keys", &keys, Role::Read), ("bins", &bins, Role::Atomic)];
        let e = launch_config(&sig, None, None, &tensors).unwrap_err();
        assert!(
            e.message.contains("writes only atomic slices"),
            "{}",
            e.message
        );
        assert!(e.message.contains("pass `grid=`"), "{}", e.message);
        let cfg = launch_config(&sig, Some([4096, 1, 1]), None, &tensors).unwrap();
        assert_eq!(cfg.grid, (4096, 1, 1));
    }

    #[test]
    fn a_two_d_output_does_not_size_the_grid() {
        let sig = signature(&[ForeignParam {
            name: "out",
            ty: "BlockTiles<f32, 32, 32>",
        }]);
        let mut out = checked(64 * 64);
        out.matrix = Some((64, 64, 64));
        let e = launch_config(&sig, None, None, &[("out", &out, Role::Tiles)]).unwrap_err();
        assert!(
            e.message.contains("2-D output `out`") && e.message.contains("pass `grid=`"),
            "{}",
            e.message
        );
        let grid = Some([2, 2, 1]);
        let cfg = launch_config(&sig, grid, None, &[("out", &out, Role::Tiles)]).unwrap();
        assert_eq!(cfg.grid, (2, 2, 1));
    }
}
