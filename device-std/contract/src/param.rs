//! How each kernel parameter crosses a launch (docs/contracts.md, "Kernel parameter ABI"): the
//! one enum that the parameter types of device-std declare (`oxide::KernelParam::ABI`), the
//! launchers push by, and the backend checks each parameter's layout against.

/// What the kernel may do with the memory of a slice parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SliceAccess {
    /// A `&[T]`: every thread of the launch sees every element through a shared reference, so
    /// nothing writes it during the launch unless `T` has interior mutability (`&[AtomicU32]`),
    /// as for any Rust `&[T]`.
    Shared,
    /// An output (`DisjointSlice<T>` and the shapes of `oxide::outputs`): the kernel writes it,
    /// each element through one thread only, and no other parameter aliases it.
    Exclusive,
}

/// How one kernel parameter is passed: what the launcher pushes and the PTX entry declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamAbi {
    /// A device pointer (never null, aligned to [`crate::SLICE_ALIGN`]), the element count,
    /// then `words` more pointer-sized words of the parameter's shape (a 2-D output's width,
    /// pitch, rows and origin; a pairs' distance), each a `u64` parameter. The parameter's layout is the same words in
    /// that order, besides zero-sized fields (a `&[T]` is the pointer and the length).
    Slice {
        /// What the kernel may do with the elements.
        access: SliceAccess,
        /// How many words follow the pointer and the length (0 to [`MAX_SLICE_WORDS`]).
        words: u8,
    },
    /// The value's bytes, as the host holds them (`Copy` plain device data, `oxide::DeviceData`).
    Value,
}

/// The most shape words a slice parameter may carry after its pointer and length: a 2-D
/// output's five (width, pitch, rows, and the row and column of its origin in the buffer).
pub const MAX_SLICE_WORDS: u8 = 5;

impl ParamAbi {
    /// How many PTX parameters a slice passes: the pointer, the length and the words; `None`
    /// for a value, whose parameter count follows its size (zero-sized values pass none).
    pub const fn slice_params(self) -> Option<usize> {
        match self {
            ParamAbi::Slice { words, .. } => Some(2 + words as usize),
            ParamAbi::Value => None,
        }
    }

    /// The number that stands for this kind in a compiled crate: the backend reads the
    /// parameter type's `ABI_CODE` (an integer constant is the one value it can evaluate without
    /// reading an enum's memory) and decodes it with [`ParamAbi::from_code`].
    pub const fn code(self) -> u32 {
        match self {
            ParamAbi::Value => 1,
            ParamAbi::Slice { access, words } => {
                let access = match access {
                    SliceAccess::Shared => 0,
                    SliceAccess::Exclusive => 1,
                };
                0x100 | (access << 4) | words as u32
            }
        }
    }

    /// The kind [`code`](Self::code) gave `code`, or `None` for a number it never gives (a
    /// crate built against another version of this contract).
    pub const fn from_code(code: u32) -> Option<ParamAbi> {
        if code == 1 {
            return Some(ParamAbi::Value);
        }
        if code & !0x1ff != 0 || code & 0x100 == 0 {
            return None;
        }
        let access = match (code >> 4) & 0xf {
            0 => SliceAccess::Shared,
            1 => SliceAccess::Exclusive,
            _ => return None,
        };
        let words = (code & 0xf) as u8;
        if words > MAX_SLICE_WORDS {
            return None;
        }
        Some(ParamAbi::Slice { access, words })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_are_distinct() {
        let mut all = vec![ParamAbi::Value];
        for access in [SliceAccess::Shared, SliceAccess::Exclusive] {
            for words in 0..=MAX_SLICE_WORDS {
                all.push(ParamAbi::Slice { access, words });
            }
        }
        let mut codes: Vec<u32> = all.iter().map(|a| a.code()).collect();
        for (abi, code) in all.iter().zip(&codes) {
            assert_eq!(ParamAbi::from_code(*code), Some(*abi));
        }
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), all.len());
        for bad in [0, 2, 0x100 | 6, 0x120, 0x300, u32::MAX] {
            assert_eq!(ParamAbi::from_code(bad), None, "{bad:#x}");
        }
    }

    #[test]
    fn slices_count_their_parameters() {
        let rows = ParamAbi::Slice {
            access: SliceAccess::Exclusive,
            words: 5,
        };
        assert_eq!(rows.slice_params(), Some(7));
        assert_eq!(ParamAbi::Value.slice_params(), None);
    }
}
