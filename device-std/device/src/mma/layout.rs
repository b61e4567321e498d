//! Where each lane's fragment elements sit in the `m16n8k16` tiles: the PTX ISA's layouts
//! ("Matrix Fragments for mma.m16n8k16 with floating point type"), written once and used by the
//! fragments' element access, the loads, and the CPU's MMA.
//!
//! A lane's `group` is `lane / 4` and its `pair` column is `2 · (lane % 4)`; element `i` of a
//! fragment is half `i % 2` (low 16 bits first) of register `i / 2`.

/// `(row, col)` of element `i` (0..8) of lane `lane`'s A fragment (16 × 16, row-major):
/// registers 0..4 hold rows `g, g + 8, g, g + 8` at columns `p, p, p + 8, p + 8` (and `+ 1`).
#[inline]
pub(crate) const fn a_position(lane: u32, i: usize) -> (usize, usize) {
    let (group, pair) = ((lane / 4) as usize, 2 * (lane % 4) as usize);
    let register = i / 2;
    (
        group + 8 * (register % 2),
        pair + i % 2 + 8 * (register / 2),
    )
}

/// `(k, n)` of element `i` (0..4) of lane `lane`'s B fragment (16 × 8, `k` down): registers 0
/// and 1 hold `k = p, p + 1` and `p + 8, p + 9` of column `n = g`.
#[inline]
pub(crate) const fn b_position(lane: u32, i: usize) -> (usize, usize) {
    let (group, pair) = ((lane / 4) as usize, 2 * (lane % 4) as usize);
    (pair + i % 2 + 8 * (i / 2), group)
}

/// `(row, col)` of element `i` (0..4) of lane `lane`'s accumulator (16 × 8): rows `g` (0, 1)
/// and `g + 8` (2, 3), columns `p` and `p + 1`.
#[inline]
pub(crate) const fn c_position(lane: u32, i: usize) -> (usize, usize) {
    let (group, pair) = ((lane / 4) as usize, 2 * (lane % 4) as usize);
    (group + 8 * (i / 2), pair + i % 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each layout puts the warp's 32 lanes' elements on every position of its tile once.
    #[test]
    fn each_layout_covers_its_tile_once() {
        let mut a = [[0u8; 16]; 16];
        let mut b = [[0u8; 8]; 16];
        let mut c = [[0u8; 8]; 16];
        for lane in 0..32 {
            for i in 0..8 {
                let (r, col) = a_position(lane, i);
                a[r][col] += 1;
            }
            for i in 0..4 {
                let (k, n) = b_position(lane, i);
                b[k][n] += 1;
                let (r, col) = c_position(lane, i);
                c[r][col] += 1;
            }
        }
        assert!(a.iter().flatten().all(|&n| n == 1));
        assert!(b.iter().flatten().all(|&n| n == 1));
        assert!(c.iter().flatten().all(|&n| n == 1));
    }

    /// Spot checks against the PTX ISA's figures: lane 5 is group 1, pair column 2.
    #[test]
    fn lane_five_is_where_the_isa_draws_it() {
        assert_eq!(a_position(5, 0), (1, 2));
        assert_eq!(a_position(5, 3), (9, 3));
        assert_eq!(a_position(5, 4), (1, 10));
        assert_eq!(a_position(5, 7), (9, 11));
        assert_eq!(b_position(5, 1), (3, 1));
        assert_eq!(b_position(5, 2), (10, 1));
        assert_eq!(c_position(5, 2), (9, 2));
        assert_eq!(c_position(31, 3), (15, 7));
    }
}
