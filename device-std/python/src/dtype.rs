//! Element types as the two protocols spell them (`__cuda_array_interface__`'s `typestr`,
//! DLPack's type code and bits) and as kernels name them ([`Element`]).

use std::fmt;

use oxide_device::{bf16, f16};

/// The element types a tensor argument may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DType {
    Bool,
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    F16,
    BF16,
    F32,
    F64,
}

impl DType {
    /// Every element type, in declaration order.
    pub const ALL: [DType; 13] = [
        DType::Bool,
        DType::I8,
        DType::U8,
        DType::I16,
        DType::U16,
        DType::I32,
        DType::U32,
        DType::I64,
        DType::U64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
    ];

    /// Bytes per element.
    pub const fn size(self) -> usize {
        match self {
            DType::Bool | DType::I8 | DType::U8 => 1,
            DType::I16 | DType::U16 | DType::F16 | DType::BF16 => 2,
            DType::I32 | DType::U32 | DType::F32 => 4,
            DType::I64 | DType::U64 | DType::F64 => 8,
        }
    }

    /// PyTorch's name for it (`float32`), which messages use (`.to(torch.float32)`).
    pub fn torch_name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I8 => "int8",
            DType::U8 => "uint8",
            DType::I16 => "int16",
            DType::U16 => "uint16",
            DType::I32 => "int32",
            DType::U32 => "uint32",
            DType::I64 => "int64",
            DType::U64 => "uint64",
            DType::F16 => "float16",
            DType::BF16 => "bfloat16",
            DType::F32 => "float32",
            DType::F64 => "float64",
        }
    }

    /// From a `__cuda_array_interface__` `typestr` (`"<f4"`, `"|u1"`); big-endian types and
    /// types without an element type here are `Err` with what to say. bfloat16 has no
    /// `typestr` (PyTorch refuses to give one): it comes through DLPack.
    pub fn from_typestr(typestr: &str) -> Result<DType, String> {
        let bytes = typestr.as_bytes();
        let (order, kind, size) = match bytes {
            [order, kind, size @ ..] => (*order, *kind, std::str::from_utf8(size).ok()),
            _ => (0, 0, None),
        };
        let size: Option<usize> = size.and_then(|s| s.parse().ok());
        if order == b'>' && size.is_some_and(|s| s > 1) {
            return Err(format!("`{typestr}` is big-endian; GPUs are little-endian"));
        }
        let dtype = match (kind, size) {
            (b'b', Some(1)) => DType::Bool,
            (b'i', Some(1)) => DType::I8,
            (b'u', Some(1)) => DType::U8,
            (b'i', Some(2)) => DType::I16,
            (b'u', Some(2)) => DType::U16,
            (b'i', Some(4)) => DType::I32,
            (b'u', Some(4)) => DType::U32,
            (b'i', Some(8)) => DType::I64,
            (b'u', Some(8)) => DType::U64,
            (b'f', Some(2)) => DType::F16,
            (b'f', Some(4)) => DType::F32,
            (b'f', Some(8)) => DType::F64,
            _ => {
                return Err(format!(
                    "typestr `{typestr}` is no element type a kernel takes"
                ));
            }
        };
        match order {
            // One byte has no order: `>i1` is an `i1`.
            b'<' | b'|' | b'=' | b'>' => Ok(dtype),
            _ => Err(format!(
                "typestr `{typestr}` has no byte order (`<`, `|` or `=`)"
            )),
        }
    }

    /// From DLPack's `DLDataType` (type code, bits, lanes).
    pub fn from_dlpack(code: u8, bits: u8, lanes: u16) -> Result<DType, String> {
        const INT: u8 = 0;
        const UINT: u8 = 1;
        const FLOAT: u8 = 2;
        const BFLOAT: u8 = 4;
        const BOOL: u8 = 6;
        if lanes != 1 {
            return Err(format!("DLPack vector type of {lanes} lanes"));
        }
        Ok(match (code, bits) {
            (BOOL, 8) | (UINT, 1) => DType::Bool,
            (INT, 8) => DType::I8,
            (UINT, 8) => DType::U8,
            (INT, 16) => DType::I16,
            (UINT, 16) => DType::U16,
            (INT, 32) => DType::I32,
            (UINT, 32) => DType::U32,
            (INT, 64) => DType::I64,
            (UINT, 64) => DType::U64,
            (FLOAT, 16) => DType::F16,
            (BFLOAT, 16) => DType::BF16,
            (FLOAT, 32) => DType::F32,
            (FLOAT, 64) => DType::F64,
            _ => return Err(format!("DLPack type code {code} of {bits} bits")),
        })
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.torch_name())
    }
}

/// A kernel slice's element type as a tensor's dtype: what a `&[T]` or an output of `T` takes.
/// Every bit pattern is a value of each (`oxide_host::AnyBitPattern`), so a tensor's bytes are
/// always valid elements. `bool` is not one: a byte other than 0 or 1 is no `bool`.
///
/// Sealed: the boundary sizes a view of `T`s by the bytes it checked for `DTYPE`, so the two
/// must be one size (asserted at compile time for each type below); a type of another crate
/// whose `DTYPE` were smaller than itself would be launched on more memory than was checked.
pub trait Element: oxide_host::AnyBitPattern + sealed::Sealed + 'static {
    /// The dtype a tensor must have.
    const DTYPE: DType;
}

macro_rules! element {
    ($($t:ty => $d:ident),*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$d;
        }
        const _: () = assert!(size_of::<$t>() == DType::$d.size());
    )*};
}

/// Only this crate implements [`Element`] and `call::SliceElement`.
pub(crate) mod sealed {
    pub trait Sealed {}
}

element!(
    i8 => I8, u8 => U8, i16 => I16, u16 => U16, i32 => I32, u32 => U32, i64 => I64,
    u64 => U64, f16 => F16, bf16 => BF16, f32 => F32, f64 => F64
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typestrs() {
        assert_eq!(DType::from_typestr("<f4"), Ok(DType::F32));
        assert_eq!(DType::from_typestr("|u1"), Ok(DType::U8));
        assert_eq!(DType::from_typestr("|b1"), Ok(DType::Bool));
        assert_eq!(DType::from_typestr("<i8"), Ok(DType::I64));
        assert_eq!(DType::from_typestr("=f2"), Ok(DType::F16));
        assert_eq!(DType::from_typestr(">i1"), Ok(DType::I8));
        assert!(
            DType::from_typestr(">f4")
                .unwrap_err()
                .contains("big-endian")
        );
        assert!(
            DType::from_typestr("<c8")
                .unwrap_err()
                .contains("no element type")
        );
        assert!(DType::from_typestr("<V2").is_err());
        assert!(DType::from_typestr("").is_err());
        assert!(DType::from_typestr("f4").is_err());
    }

    #[test]
    fn dlpack_types() {
        assert_eq!(DType::from_dlpack(4, 16, 1), Ok(DType::BF16));
        assert_eq!(DType::from_dlpack(2, 32, 1), Ok(DType::F32));
        assert_eq!(DType::from_dlpack(1, 8, 1), Ok(DType::U8));
        assert_eq!(DType::from_dlpack(6, 8, 1), Ok(DType::Bool));
        assert!(
            DType::from_dlpack(2, 32, 4)
                .unwrap_err()
                .contains("4 lanes")
        );
        assert!(DType::from_dlpack(5, 64, 1).is_err());
    }

    #[test]
    fn elements_name_their_dtype() {
        assert_eq!(<bf16 as Element>::DTYPE, DType::BF16);
        assert_eq!(<f32 as Element>::DTYPE.size(), size_of::<f32>());
        assert_eq!(<u64 as Element>::DTYPE.torch_name(), "uint64");
    }
}
