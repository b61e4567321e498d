//! [`TensorArg`]: a tensor argument as the protocols describe it, and the checks of one
//! argument against what its kernel parameter takes ([`Expect`]). Plain Rust: no Python
//! object, no GPU (the unit tests below, and the Python tests with fake objects, exercise
//! every refusal).

use std::ops::Range;

use crate::dtype::DType;
use crate::refusal::Refusal;

/// Where a tensor's memory is, as its producer says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Device {
    /// CUDA device memory; the ordinal when the producer gave one (`__dlpack_device__`;
    /// `__cuda_array_interface__` gives none, and the pointer's device is then asked of the
    /// driver).
    Cuda(Option<usize>),
    /// Anything else, in words (`the CPU`, `DLPack device type 3`).
    Other(String),
}

/// A tensor argument as `__cuda_array_interface__` or DLPack describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorArg {
    pub device: Device,
    /// The element type, or what it is instead.
    pub dtype: Result<DType, String>,
    pub shape: Vec<usize>,
    /// In elements; `None` is C-contiguous.
    pub strides: Option<Vec<i64>>,
    /// The device address of the first element.
    pub address: u64,
    /// Whether the producer lends it read-only (`__cuda_array_interface__`'s `data[1]`).
    pub readonly: bool,
    /// The stream its producer last queued work on it (`__cuda_array_interface__` v3's
    /// `stream`), which the launch must wait for.
    pub stream: Option<usize>,
}

/// How a kernel parameter reads its memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// A slice (`&[T]`, an output, an atomic slice): any shape, C-contiguous, its elements in
    /// order.
    Flat,
    /// A `Matrix<T>`: two dimensions, rows of `cols` elements each `pitch` apart (the row
    /// stride, at least `cols`); the column stride 1.
    Matrix,
    /// A 2-D output (`DisjointRows<T>`, `BlockTiles<T, R, C>`, `MmaTiles<...>`): two
    /// dimensions, C-contiguous (the rows one after another: the host's `Rows` takes a pitch
    /// only where it divides the memory's length, which a slice of wider rows' does not), at
    /// least one column.
    Rows,
}

/// What a kernel parameter takes.
#[derive(Clone, Copy, Debug)]
pub struct Expect<'s> {
    /// The parameter's name and type as written in the kernel.
    pub name: &'s str,
    pub ty: &'s str,
    pub dtype: DType,
    /// Whether the kernel writes it (an output, an atomic slice).
    pub writes: bool,
    pub layout: Layout,
}

/// An argument that passed its own checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// The elements the kernel may reach: the slice's length, or the matrix's span
    /// (`(rows - 1) * pitch + cols`).
    pub elements: usize,
    /// A matrix's rows, columns and pitch.
    pub matrix: Option<(usize, usize, usize)>,
    /// The bytes the kernel may reach.
    pub bytes: Range<u64>,
    pub device: Option<usize>,
}

impl TensorArg {
    /// Checks this argument against `expect`: its device kind, dtype, writability and layout.
    /// What it is checked against the other arguments, and on the GPU, comes later.
    pub fn check(&self, expect: &Expect<'_>) -> Result<Checked, Refusal> {
        let Expect { name, ty, .. } = *expect;
        let ordinal = match &self.device {
            Device::Cuda(ordinal) => *ordinal,
            Device::Other(what) => {
                return Err(Refusal::device_error(format!(
                    "argument `{name}` is in {what}'s memory, and the kernel's parameter \
                     `{name}: {ty}` is read on the GPU: move it to the GPU first (`.cuda()`)"
                )));
            }
        };
        let dtype = self.dtype.as_ref().map_err(|why| {
            Refusal::type_error(format!(
                "argument `{name}` has elements of no type a kernel takes ({why}); the \
                 kernel's parameter `{name}: {ty}` takes {}",
                expect.dtype
            ))
        })?;
        if *dtype != expect.dtype {
            return Err(Refusal::type_error(format!(
                "argument `{name}` has dtype {dtype}, and the kernel's parameter `{name}: {ty}` \
                 takes {want}: convert it (`.to(torch.{want})`)",
                want = expect.dtype
            )));
        }
        if expect.writes && self.readonly {
            return Err(Refusal::value_error(format!(
                "argument `{name}` is lent read-only, and the kernel writes it (`{name}: {ty}`): \
                 pass a writable tensor"
            )));
        }
        let (elements, matrix) = match expect.layout {
            Layout::Flat => (self.flat_elements(name)?, None),
            Layout::Matrix => {
                let (rows, cols, pitch) = self.matrix(name, ty)?;
                let span = if rows == 0 || cols == 0 {
                    0
                } else {
                    (rows - 1)
                        .checked_mul(pitch)
                        .and_then(|n| n.checked_add(cols))
                        .ok_or_else(|| too_large(name))?
                };
                (span, Some((rows, cols, pitch)))
            }
            Layout::Rows => {
                let (rows, cols) = self.rows(name, ty)?;
                (self.flat_elements(name)?, Some((rows, cols, cols)))
            }
        };
        let size = dtype.size() as u64;
        let bytes = (elements as u64)
            .checked_mul(size)
            .and_then(|n| self.address.checked_add(n))
            .ok_or_else(|| too_large(name))?;
        Ok(Checked {
            elements,
            matrix,
            bytes: self.address..bytes,
            device: ordinal,
        })
    }

    /// The element count of a C-contiguous tensor, or the refusal of one that is not.
    fn flat_elements(&self, name: &str) -> Result<usize, Refusal> {
        let elements = self
            .shape
            .iter()
            .try_fold(1usize, |n, &d| n.checked_mul(d))
            .ok_or_else(|| too_large(name))?;
        if elements == 0 {
            return Ok(0);
        }
        if let Some(strides) = &self.strides {
            let mut expected: i64 = 1;
            for (&dim, &stride) in self.shape.iter().zip(strides).rev() {
                // A dimension of one element has no stride to keep.
                if dim != 1 && stride != expected {
                    return Err(Refusal::value_error(format!(
                        "argument `{name}` is not contiguous (shape {:?}, strides {strides:?} \
                         in elements), and kernels read slices in order: pass \
                         `{name}.contiguous()`",
                        self.shape
                    )));
                }
                expected = expected.saturating_mul(dim as i64);
            }
        }
        Ok(elements)
    }

    /// A 2-D output's rows and columns; its contiguity is `flat_elements`'s to check.
    fn rows(&self, name: &str, ty: &str) -> Result<(usize, usize), Refusal> {
        let &[rows, cols] = &self.shape[..] else {
            return Err(Refusal::value_error(format!(
                "argument `{name}` has {} dimensions, and the kernel's parameter `{name}: {ty}` \
                 is a 2-D output: pass a 2-D tensor (rows × columns, `{name}.view(rows, -1)`)",
                self.shape.len()
            )));
        };
        if cols == 0 {
            return Err(Refusal::value_error(format!(
                "argument `{name}` has no columns (shape {:?}), and the kernel's parameter \
                 `{name}: {ty}` is rows of at least one element: pass a tensor of at least one \
                 column",
                self.shape
            )));
        }
        Ok((rows, cols))
    }

    /// A 2-D tensor's rows, columns and row pitch (in elements).
    fn matrix(&self, name: &str, ty: &str) -> Result<(usize, usize, usize), Refusal> {
        let &[rows, cols] = &self.shape[..] else {
            return Err(Refusal::value_error(format!(
                "argument `{name}` has {} dimensions, and the kernel's parameter `{name}: {ty}` \
                 is a matrix: pass a 2-D tensor",
                self.shape.len()
            )));
        };
        let pitch = match self.strides.as_deref() {
            None => cols,
            Some(&[row, col]) => {
                let col_ok = col == 1 || cols <= 1;
                let row_ok = rows <= 1 || (row >= 0 && row as u64 >= cols as u64);
                if !(col_ok && row_ok) {
                    return Err(Refusal::value_error(format!(
                        "argument `{name}` is not laid out in rows (shape {:?}, strides \
                         {:?} in elements), and a matrix's elements are consecutive within a \
                         row: pass `{name}.contiguous()`",
                        self.shape,
                        [row, col]
                    )));
                }
                if rows <= 1 { cols } else { row as usize }
            }
            Some(_) => cols,
        };
        Ok((rows, cols, pitch))
    }
}

fn too_large(name: &str) -> Refusal {
    Refusal::value_error(format!(
        "argument `{name}` spans more bytes than an address has: its shape or strides are wrong"
    ))
}

/// The checks across the arguments, once each was checked on its own: `(name, checked,
/// writes)` in the kernel's order. Refuses an argument the kernel writes whose bytes overlap
/// any other argument's (the same tensor twice, or overlapping views of one storage), two
/// devices, and memory that is not 16-byte aligned (what kernels assume of every slice).
/// Read-only arguments may overlap each other.
pub fn check_together(args: &[(&str, &Checked, bool)]) -> Result<Option<usize>, Refusal> {
    for (i, &(name, a, writes)) in args.iter().enumerate() {
        if !writes || a.bytes.is_empty() {
            continue;
        }
        for (j, &(other, b, _)) in args.iter().enumerate() {
            let overlap = a.bytes.start < b.bytes.end && b.bytes.start < a.bytes.end;
            if i != j && !b.bytes.is_empty() && overlap {
                let same = if a.bytes == b.bytes {
                    "is the same memory as"
                } else {
                    "overlaps"
                };
                return Err(Refusal::value_error(format!(
                    "argument `{name}`, which the kernel writes, {same} argument `{other}` \
                     (bytes 0x{:x}..0x{:x} and 0x{:x}..0x{:x}): an output must share no memory \
                     with any other argument; write into a tensor of its own \
                     (`torch.empty_like({other})`) or pass `{other}.clone()`",
                    a.bytes.start, a.bytes.end, b.bytes.start, b.bytes.end
                )));
            }
        }
    }
    let mut device: Option<(&str, usize)> = None;
    for &(name, arg, _) in args {
        match (device, arg.device) {
            (None, Some(ordinal)) => device = Some((name, ordinal)),
            (Some((first, ordinal)), Some(other)) if other != ordinal => {
                return Err(Refusal::device_error(format!(
                    "argument `{name}` is on cuda:{other} and argument `{first}` on \
                     cuda:{ordinal}: a kernel's tensors must all be on one device (`.to({first}.device)`)"
                )));
            }
            _ => {}
        }
    }
    for &(name, arg, _) in args {
        let align = oxide_contract::SLICE_ALIGN;
        if !arg.bytes.is_empty() && !arg.bytes.start.is_multiple_of(align) {
            return Err(Refusal::value_error(format!(
                "argument `{name}` starts at address 0x{:x}, which is not {align}-byte aligned, \
                 and kernels assume every slice is (a view that starts inside a tensor, such \
                 as `x[1:]`, often is not): pass `{name}.clone()`",
                arg.bytes.start
            )));
        }
    }
    Ok(device.map(|(_, ordinal)| ordinal))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::refusal::Kind;

    fn tensor(shape: &[usize], strides: Option<&[i64]>, address: u64) -> TensorArg {
        TensorArg {
            device: Device::Cuda(Some(0)),
            dtype: Ok(DType::F32),
            shape: shape.to_vec(),
            strides: strides.map(<[i64]>::to_vec),
            address,
            readonly: false,
            stream: None,
        }
    }

    fn expect(name: &'static str, writes: bool, layout: Layout) -> Expect<'static> {
        Expect {
            name,
            ty: if writes {
                "DisjointSlice<f32>"
            } else {
                "&[f32]"
            },
            dtype: DType::F32,
            writes,
            layout,
        }
    }

    const BASE: u64 = 0x7f00_0000_0000;

    #[test]
    fn one_argument_is_checked_against_its_parameter() {
        let a = tensor(&[4, 8], None, BASE).check(&expect("a", false, Layout::Flat));
        assert_eq!(a.unwrap().bytes, BASE..BASE + 128);
        // The strides of a contiguous tensor, and of one with a dimension of one element.
        let c = tensor(&[4, 1, 8], Some(&[8, 99, 1]), BASE);
        assert_eq!(
            c.check(&expect("c", true, Layout::Flat)).unwrap().elements,
            32
        );
        // `x.t()`: not contiguous.
        let t = tensor(&[8, 4], Some(&[1, 8]), BASE).check(&expect("x", false, Layout::Flat));
        let e = t.unwrap_err();
        assert_eq!(e.kind, Kind::Value);
        assert!(e.message.contains("`x.contiguous()`"), "{e}");
        let mut wrong = tensor(&[4], None, BASE);
        wrong.dtype = Ok(DType::F16);
        let e = wrong.check(&expect("b", false, Layout::Flat)).unwrap_err();
        assert_eq!(e.kind, Kind::Type);
        assert!(
            e.message.contains("has dtype float16") && e.message.contains("float32"),
            "{e}"
        );
        let mut host = tensor(&[4], None, BASE);
        host.device = Device::Other("the CPU".into());
        let e = host.check(&expect("a", false, Layout::Flat)).unwrap_err();
        assert_eq!(e.kind, Kind::Device);
        assert!(e.message.contains("`.cuda()`"), "{e}");
        let mut readonly = tensor(&[4], None, BASE);
        readonly.readonly = true;
        assert!(readonly.check(&expect("a", false, Layout::Flat)).is_ok());
        let e = readonly
            .check(&expect("c", true, Layout::Flat))
            .unwrap_err();
        assert!(e.message.contains("read-only"), "{e}");
    }

    #[test]
    fn matrices_take_rows_with_a_pitch() {
        let m = tensor(&[3, 4], Some(&[10, 1]), BASE).check(&expect("m", false, Layout::Matrix));
        let m = m.unwrap();
        assert_eq!((m.matrix, m.elements), (Some((3, 4, 10)), 24));
        let e = tensor(&[12], None, BASE)
            .check(&expect("m", false, Layout::Matrix))
            .unwrap_err();
        assert!(e.message.contains("2-D tensor"), "{e}");
        let e = tensor(&[3, 4], Some(&[1, 3]), BASE)
            .check(&expect("m", false, Layout::Matrix))
            .unwrap_err();
        assert!(e.message.contains("`m.contiguous()`"), "{e}");
    }

    #[test]
    fn two_d_outputs_take_contiguous_rows() {
        let rows = |shape: &[usize], strides: Option<&[i64]>| {
            tensor(shape, strides, BASE).check(&expect("out", true, Layout::Rows))
        };
        let out = rows(&[3, 4], None).unwrap();
        assert_eq!((out.matrix, out.elements), (Some((3, 4, 4)), 12));
        assert_eq!(out.bytes, BASE..BASE + 48);
        // The strides of a contiguous tensor; no rows at all is an empty output.
        assert_eq!(rows(&[3, 4], Some(&[4, 1])).unwrap().elements, 12);
        assert_eq!(rows(&[0, 4], None).unwrap().matrix, Some((0, 4, 4)));
        // One dimension, or three: a 2-D tensor is needed.
        for shape in [&[12][..], &[2, 3, 2]] {
            let e = rows(shape, None).unwrap_err();
            assert_eq!(e.kind, Kind::Value);
            assert!(
                e.message.contains("`out`") && e.message.contains("2-D"),
                "{e}"
            );
        }
        // A slice of wider rows (`m[:, :4]` of 10 columns) and `x.t()` are not contiguous.
        for strides in [&[10, 1][..], &[1, 3]] {
            let e = rows(&[3, 4], Some(strides)).unwrap_err();
            assert!(e.message.contains("`out.contiguous()`"), "{e}");
        }
        let e = rows(&[3, 0], None).unwrap_err();
        assert!(e.message.contains("no columns"), "{e}");
        // Read-only memory is refused as for any output.
        let mut readonly = tensor(&[3, 4], None, BASE);
        readonly.readonly = true;
        assert!(readonly.check(&expect("out", true, Layout::Rows)).is_err());
    }

    fn checked(range: Range<u64>, device: Option<usize>) -> Checked {
        Checked {
            elements: ((range.end - range.start) / 4) as usize,
            matrix: None,
            bytes: range,
            device,
        }
    }

    #[test]
    fn a_written_argument_shares_no_memory() {
        let x = checked(BASE..BASE + 64, Some(0));
        let y = checked(BASE + 64..BASE + 128, Some(0));
        let shifted = checked(BASE + 16..BASE + 80, Some(0));
        // Inputs may overlap each other; disjoint views of one storage are two arguments.
        assert_eq!(
            check_together(&[("a", &x, false), ("b", &x, false), ("c", &y, true)]),
            Ok(Some(0))
        );
        // The same tensor as input and output.
        let e = check_together(&[("a", &x, false), ("c", &x, true)]).unwrap_err();
        assert!(
            e.message
                .contains("`c`, which the kernel writes, is the same memory as argument `a`"),
            "{e}"
        );
        // Overlapping views (`x[4:]` and `x[:-4]`), in either order.
        let e = check_together(&[("c", &shifted, true), ("a", &x, false)]).unwrap_err();
        assert!(e.message.contains("overlaps argument `a`"), "{e}");
        let e = check_together(&[("a", &x, false), ("c", &shifted, true)]).unwrap_err();
        assert!(e.message.contains("`a.clone()`"), "{e}");
        // Two outputs overlapping each other.
        assert!(check_together(&[("c", &x, true), ("d", &shifted, true)]).is_err());
        // An empty output overlaps nothing.
        let empty = checked(BASE..BASE, Some(0));
        assert!(check_together(&[("a", &x, false), ("c", &empty, true)]).is_ok());
    }

    #[test]
    fn one_device_and_aligned_starts() {
        let x = checked(BASE..BASE + 64, Some(0));
        let y = checked(BASE + 64..BASE + 128, Some(1));
        let e = check_together(&[("a", &x, false), ("b", &y, false)]).unwrap_err();
        assert_eq!(e.kind, Kind::Device);
        assert!(
            e.message
                .contains("`b` is on cuda:1 and argument `a` on cuda:0"),
            "{e}"
        );
        let unknown = checked(BASE + 128..BASE + 192, None);
        assert_eq!(check_together(&[("a", &unknown, false)]), Ok(None));
        let odd = checked(BASE + 4..BASE + 64, Some(0));
        let e = check_together(&[("a", &odd, false)]).unwrap_err();
        assert!(e.message.contains("not 16-byte aligned"), "{e}");
    }
}
