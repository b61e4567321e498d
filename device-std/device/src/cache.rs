//! Cache hints on loads and stores: CUDA's `__ldcs`/`__stcs` (streaming: the line is evicted
//! first, for data used once) and `__ldlu` (last use), in 4-, 8- and 16-byte forms.
//!
//! ```ignore
//! // A GELU over float4s that streams its input and output past the caches:
//! let x = cache::load_streaming(&input[i]);        // ld.cs.v4.b32
//! cache::store_streaming(out, x.map(gelu));        // st.cs.v4.b32
//! ```
//!
//! A hint changes only where a line lives in L1 and L2, never a value or the memory model's
//! guarantees (PTX ISA, "Cache operators"), so these are safe: each reads or writes through a
//! reference the borrow rules already allow, exactly as `*r` and `*dst = v` do. The addresses
//! are generic, so a reference into shared or local memory works too (the hint is then moot).
//! A 16-byte form issues one vector instruction when the reference is 16-byte aligned (a
//! kernel's buffers are, and so is every 16-byte element of them) and four or two plain
//! accesses otherwise: `[f32; 4]` alone is only 4-byte aligned, and a misaligned vector access
//! would fault.
//!
//! The loads are compiled as reading memory (a `memory` clobber), so LLVM keeps them after the
//! thread's own earlier stores to the same place; on the CPU (plain calls and the emulator) they
//! are plain reads and writes.

mod sealed {
    pub trait Sealed {}
}

/// A value with cache-hinted loads and stores: `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, and
/// 16-byte arrays of them (`[f32; 4]`, `[u32; 4]`, `[i32; 4]`, `[f64; 2]`, `[u64; 2]`,
/// `[i64; 2]`).
pub trait Hinted: Copy + sealed::Sealed {
    #[doc(hidden)]
    fn load_cs(r: &Self) -> Self;
    #[doc(hidden)]
    fn load_lu(r: &Self) -> Self;
    #[doc(hidden)]
    fn store_cs(dst: &mut Self, value: Self);
}

/// `*r`, loaded with the streaming hint (`ld.cs`, CUDA's `__ldcs`): the line is likely used
/// once, so the caches evict it first.
#[inline]
pub fn load_streaming<T: Hinted>(r: &T) -> T {
    T::load_cs(r)
}

/// `*r`, loaded with the last-use hint (`ld.lu`, CUDA's `__ldlu`): no later access will need
/// the line.
#[inline]
pub fn load_last_use<T: Hinted>(r: &T) -> T {
    T::load_lu(r)
}

/// `*dst = value`, stored with the streaming hint (`st.cs`, CUDA's `__stcs`).
#[inline]
pub fn store_streaming<T: Hinted>(dst: &mut T, value: T) {
    T::store_cs(dst, value)
}

/// The hinted accesses of one register width, in inline PTX: the three templates and
/// constraint strings (written out: the backend reads them as literals), `r` for 32-bit
/// registers, `l` for 64-bit ones.
macro_rules! words {
    ($word:ty;
     $ld_cs:ident = $ld_cs_t:literal, $ld_c:literal;
     $ld_lu:ident = $ld_lu_t:literal;
     $st_cs:ident = $st_cs_t:literal, $st_c:literal) => {
        #[oxide_gpu::ptx(template = $ld_cs_t, constraints = $ld_c)]
        #[inline(never)]
        fn $ld_cs(r: &$word) -> $word {
            *r
        }

        #[oxide_gpu::ptx(template = $ld_lu_t, constraints = $ld_c)]
        #[inline(never)]
        fn $ld_lu(r: &$word) -> $word {
            *r
        }

        #[oxide_gpu::ptx(template = $st_cs_t, constraints = $st_c, volatile)]
        #[inline(never)]
        fn $st_cs(dst: &mut $word, value: $word) {
            *dst = value;
        }
    };
}

words! { u32;
    ld_cs_32 = "ld.cs.b32 $0, [$1];", "=r,l,~{memory}";
    ld_lu_32 = "ld.lu.b32 $0, [$1];";
    st_cs_32 = "st.cs.b32 [$0], $1;", "l,r,~{memory}"
}
words! { u64;
    ld_cs_64 = "ld.cs.b64 $0, [$1];", "=l,l,~{memory}";
    ld_lu_64 = "ld.lu.b64 $0, [$1];";
    st_cs_64 = "st.cs.b64 [$0], $1;", "l,l,~{memory}"
}

/// The 16-byte vector forms: four 32-bit words or two 64-bit ones, in one instruction. The
/// reference must be 16-byte aligned (the callers check).
#[oxide_gpu::ptx(
    template = "ld.cs.v4.b32 {$0, $1, $2, $3}, [$4];",
    constraints = "=r,=r,=r,=r,l,~{memory}"
)]
#[inline(never)]
fn ld_cs_v4(r: &[u32; 4]) -> [u32; 4] {
    *r
}

#[oxide_gpu::ptx(
    template = "ld.lu.v4.b32 {$0, $1, $2, $3}, [$4];",
    constraints = "=r,=r,=r,=r,l,~{memory}"
)]
#[inline(never)]
fn ld_lu_v4(r: &[u32; 4]) -> [u32; 4] {
    *r
}

#[oxide_gpu::ptx(
    template = "st.cs.v4.b32 [$0], {$1, $2, $3, $4};",
    constraints = "l,r,r,r,r,~{memory}",
    volatile
)]
#[inline(never)]
fn st_cs_v4(dst: &mut [u32; 4], a: u32, b: u32, c: u32, d: u32) {
    *dst = [a, b, c, d];
}

/// Scalars: their bits through the word of their width.
macro_rules! scalars {
    ($($t:ty: $word:ty, $ld_cs:ident, $ld_lu:ident, $st_cs:ident;)*) => {$(
        impl sealed::Sealed for $t {}
        impl Hinted for $t {
            #[inline]
            fn load_cs(r: &Self) -> Self {
                <$t>::from_ne_bytes($ld_cs(words_of(r)).to_ne_bytes())
            }
            #[inline]
            fn load_lu(r: &Self) -> Self {
                <$t>::from_ne_bytes($ld_lu(words_of(r)).to_ne_bytes())
            }
            #[inline]
            fn store_cs(dst: &mut Self, value: Self) {
                $st_cs(words_of_mut(dst), <$word>::from_ne_bytes(value.to_ne_bytes()))
            }
        }
    )*};
}

scalars! {
    u32: u32, ld_cs_32, ld_lu_32, st_cs_32;
    i32: u32, ld_cs_32, ld_lu_32, st_cs_32;
    f32: u32, ld_cs_32, ld_lu_32, st_cs_32;
    u64: u64, ld_cs_64, ld_lu_64, st_cs_64;
    i64: u64, ld_cs_64, ld_lu_64, st_cs_64;
    f64: u64, ld_cs_64, ld_lu_64, st_cs_64;
}

/// 16-byte arrays: one vector access when 16-byte aligned, else element by element.
macro_rules! vectors {
    ($($t:ty;)*) => {$(
        impl sealed::Sealed for $t {}
        impl Hinted for $t {
            #[inline]
            fn load_cs(r: &Self) -> Self {
                if is_16_aligned(r) {
                    from_words(ld_cs_v4(words_of(r)))
                } else {
                    core::array::from_fn(|i| Hinted::load_cs(&r[i]))
                }
            }
            #[inline]
            fn load_lu(r: &Self) -> Self {
                if is_16_aligned(r) {
                    from_words(ld_lu_v4(words_of(r)))
                } else {
                    core::array::from_fn(|i| Hinted::load_lu(&r[i]))
                }
            }
            #[inline]
            fn store_cs(dst: &mut Self, value: Self) {
                if is_16_aligned(dst) {
                    let [a, b, c, d]: [u32; 4] = to_words(value);
                    st_cs_v4(words_of_mut(dst), a, b, c, d);
                } else {
                    for (d, v) in dst.iter_mut().zip(value) {
                        Hinted::store_cs(d, v);
                    }
                }
            }
        }
    )*};
}

vectors! {
    [u32; 4];
    [i32; 4];
    [f32; 4];
    [u64; 2];
    [i64; 2];
    [f64; 2];
}

#[inline]
fn is_16_aligned<T>(r: &T) -> bool {
    (r as *const T).addr().is_multiple_of(16)
}

/// `r` seen as the words `W` it is made of.
#[inline]
fn words_of<T, W>(r: &T) -> &W {
    const { assert!(size_of::<T>() == size_of::<W>() && align_of::<T>() >= align_of::<W>()) };
    // SAFETY: same size, and `T` is at least as aligned; `T` and `W` are plain integers,
    // floats or arrays of them, every bit pattern of which is valid as either.
    unsafe { &*(r as *const T).cast::<W>() }
}

#[inline]
fn words_of_mut<T, W>(r: &mut T) -> &mut W {
    const { assert!(size_of::<T>() == size_of::<W>() && align_of::<T>() >= align_of::<W>()) };
    // SAFETY: as `words_of`, and the borrow is unique.
    unsafe { &mut *(r as *mut T).cast::<W>() }
}

/// The 16 bytes of a vector value as four `u32`s, and back.
#[inline]
fn to_words<T: Copy>(value: T) -> [u32; 4] {
    const { assert!(size_of::<T>() == 16) };
    // SAFETY: 16 bytes of plain data either way.
    unsafe { core::mem::transmute_copy(&value) }
}

#[inline]
fn from_words<T: Copy>(words: [u32; 4]) -> T {
    const { assert!(size_of::<T>() == 16) };
    // SAFETY: as `to_words`: every bit pattern is a valid `T` (integers and floats).
    unsafe { core::mem::transmute_copy(&words) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hinted_accesses_are_plain_ones_on_the_cpu() {
        let x = [1.5f32, -2.0, 3.25, 4.0];
        assert_eq!(load_streaming(&x), x);
        assert_eq!(load_last_use(&7i64), 7);
        assert_eq!(load_streaming(&-0.0f64).to_bits(), (-0.0f64).to_bits());
        let mut out = [0u64; 2];
        store_streaming(&mut out, [u64::MAX, 3]);
        assert_eq!(out, [u64::MAX, 3]);
        let mut y = 0f32;
        store_streaming(&mut y, f32::NAN);
        assert!(y.is_nan());
    }

    /// A 4-byte-aligned `[f32; 4]` (inside a larger array) goes element by element.
    #[test]
    fn misaligned_vectors_go_element_by_element() {
        #[repr(align(16))]
        struct Aligned([f32; 8]);
        let mut buf = Aligned([0.0; 8]);
        let (_, rest) = buf.0.split_at_mut(1);
        let (chunks, _) = rest.as_chunks_mut::<4>();
        assert!(!is_16_aligned(&chunks[0]));
        store_streaming(&mut chunks[0], [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(load_streaming(&chunks[0]), [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(buf.0, [0.0, 1.0, 2.0, 3.0, 4.0, 0.0, 0.0, 0.0]);
    }
}
