//! The abstract values of the uniformity analysis: whether a value may differ between the
//! threads of a block, and where the pointers it holds may point.
//!
//! Memory is a handful of abstract locations. A function's locals are thread-private (each thread
//! has its own copy, and a pointer to one means "this local" in every thread); locations a caller
//! passed in are named by their position in the call's context; everything else is either memory
//! no thread writes while the kernel runs (`Frozen`) or memory other threads may write
//! (`Shared`), which reads as divergent. A local of a struct or tuple type is followed field by
//! field while it is accessed by field (`let (t, n) = (thread_idx_x(), block_dim_x())` keeps `n`
//! uniform); anything else, and all memory reached through pointers, is one value for all its
//! bytes.

use std::collections::BTreeSet;

/// Why a value may differ between threads: an index into the analysis's list of causes, with
/// [`CauseId::WARP`] set when the value is the same in every lane of a warp (it differs only
/// between warps: `warp::warp_in_block()`), which warp collectives may depend on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct CauseId(pub(crate) u32);

impl CauseId {
    /// The bit of a warp-uniform cause.
    pub(crate) const WARP: u32 = 1 << 31;

    /// The index in the analysis's list of causes.
    pub(crate) fn index(self) -> usize {
        (self.0 & !Self::WARP) as usize
    }

    /// Whether the value is the same in every lane of a warp.
    pub(crate) fn is_warp_uniform(self) -> bool {
        self.0 & Self::WARP != 0
    }

    /// The stronger of two causes: a lane-divergent one wins over a warp-uniform one (so that
    /// values only grow: uniform < warp-uniform < divergent), else `self`.
    pub(crate) fn stronger(self, other: CauseId) -> CauseId {
        if self.is_warp_uniform() && !other.is_warp_uniform() {
            other
        } else {
            self
        }
    }
}

/// The stronger of two optional causes ([`CauseId::stronger`]).
pub(crate) fn stronger(a: Option<CauseId>, b: Option<CauseId>) -> Option<CauseId> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.stronger(b)),
        (a, b) => a.or(b),
    }
}

/// An abstract memory location.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Loc {
    /// A local of the function analysed.
    Local(u32),
    /// The `n`th location of the call's context: memory of a caller that the arguments point to.
    Caller(u32),
    /// Memory no thread writes while the kernel runs: the elements of a `&[T]` kernel argument
    /// with `T: Freeze`, immutable statics and constants.
    Frozen,
    /// Any other memory (global, shared, unknown): other threads may write it.
    Shared,
}

impl Loc {
    /// Whether the location is thread-private memory the analysis follows.
    pub(crate) fn is_tracked(self) -> bool {
        matches!(self, Loc::Local(_) | Loc::Caller(_))
    }
}

/// The abstract value of a local, a location's contents or an expression.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Abs {
    /// `Some(cause)` when the value may differ between the threads of a block. For a pointer,
    /// when threads may point to different locations (a pointer to a thread's own local is the
    /// same location in every thread).
    pub(crate) div: Option<CauseId>,
    /// Where the pointers in the value may point.
    pub(crate) pts: BTreeSet<Loc>,
}

impl Abs {
    pub(crate) fn uniform() -> Abs {
        Abs::default()
    }

    pub(crate) fn divergent(cause: CauseId) -> Abs {
        Abs {
            div: Some(cause),
            pts: BTreeSet::new(),
        }
    }

    pub(crate) fn pointer(div: Option<CauseId>, pts: impl IntoIterator<Item = Loc>) -> Abs {
        Abs {
            div,
            pts: pts.into_iter().collect(),
        }
    }

    /// Marks the value divergent (keeping an earlier cause, unless `cause` is stronger).
    pub(crate) fn diverge(&mut self, cause: Option<CauseId>) {
        self.div = stronger(self.div, cause);
    }

    /// Joins `other` into `self`; true when `self` grew. A cause is replaced only by a
    /// stronger one (a warp-uniform one by a divergent one), so that values only ever grow and
    /// the analysis ends.
    pub(crate) fn join(&mut self, other: &Abs) -> bool {
        let mut changed = false;
        let div = stronger(self.div, other.div);
        if div != self.div {
            self.div = div;
            changed = true;
        }
        for loc in &other.pts {
            changed |= self.pts.insert(*loc);
        }
        changed
    }

    pub(crate) fn joined(mut self, other: &Abs) -> Abs {
        self.join(other);
        self
    }
}

/// The value of a local: one value, or one per field of a struct or tuple.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Tree {
    Leaf(Abs),
    Node(Vec<Tree>),
}

impl Default for Tree {
    fn default() -> Tree {
        Tree::Leaf(Abs::uniform())
    }
}

impl Tree {
    /// The value of all the fields together.
    pub(crate) fn flat(&self) -> Abs {
        match self {
            Tree::Leaf(value) => value.clone(),
            Tree::Node(fields) => fields
                .iter()
                .fold(Abs::uniform(), |acc, field| acc.joined(&field.flat())),
        }
    }

    /// Joins `other` into `self`; true when `self` grew. Values of different shapes meet as one
    /// value.
    pub(crate) fn join(&mut self, other: &Tree) -> bool {
        match (&mut *self, other) {
            (Tree::Node(mine), Tree::Node(theirs)) if mine.len() == theirs.len() => mine
                .iter_mut()
                .zip(theirs)
                .fold(false, |changed, (a, b)| a.join(b) | changed),
            (Tree::Leaf(mine), theirs) => mine.join(&theirs.flat()),
            (Tree::Node(_), theirs) => {
                let whole = self.flat().joined(&theirs.flat());
                *self = Tree::Leaf(whole);
                true
            }
        }
    }

    /// Joins `value` into every field (a write the analysis cannot place exactly).
    pub(crate) fn join_everywhere(&mut self, value: &Abs) -> bool {
        match self {
            Tree::Leaf(mine) => mine.join(value),
            Tree::Node(fields) => fields
                .iter_mut()
                .fold(false, |changed, f| f.join_everywhere(value) | changed),
        }
    }

    pub(crate) fn diverge(&mut self, cause: Option<CauseId>) {
        match self {
            Tree::Leaf(value) => value.diverge(cause),
            Tree::Node(fields) => fields.iter_mut().for_each(|f| f.diverge(cause)),
        }
    }

    /// Forgets the pointers of every field.
    pub(crate) fn clear_pointers(&mut self) {
        match self {
            Tree::Leaf(value) => value.pts.clear(),
            Tree::Node(fields) => fields.iter_mut().for_each(Tree::clear_pointers),
        }
    }

    /// The field at `path`, or the deepest value holding it; and whether it is exactly the
    /// field.
    pub(crate) fn at(&self, path: &[usize]) -> (&Tree, bool) {
        match (self, path) {
            (_, []) => (self, true),
            (Tree::Node(fields), [first, rest @ ..]) if *first < fields.len() => {
                fields[*first].at(rest)
            }
            _ => (self, false),
        }
    }
}

/// The abstract state at one point of a function: each local's value and each context location's
/// contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct State {
    pub(crate) locals: Vec<Tree>,
    pub(crate) callers: Vec<Abs>,
}

impl State {
    pub(crate) fn new(locals: usize, callers: Vec<Abs>) -> State {
        State {
            locals: vec![Tree::default(); locals],
            callers,
        }
    }

    /// The contents of a tracked location, all fields together; `None` for the others.
    pub(crate) fn tracked(&self, loc: Loc) -> Option<Abs> {
        match loc {
            Loc::Local(l) => self.locals.get(l as usize).map(Tree::flat),
            Loc::Caller(c) => self.callers.get(c as usize).cloned(),
            Loc::Frozen | Loc::Shared => None,
        }
    }

    /// Joins `value` into what a tracked location holds (a write through a pointer); false for
    /// the other locations.
    pub(crate) fn join_into(&mut self, loc: Loc, value: &Abs) -> bool {
        match loc {
            Loc::Local(l) => match self.locals.get_mut(l as usize) {
                Some(tree) => {
                    tree.join_everywhere(value);
                    true
                }
                None => false,
            },
            Loc::Caller(c) => match self.callers.get_mut(c as usize) {
                Some(contents) => {
                    contents.join(value);
                    true
                }
                None => false,
            },
            Loc::Frozen | Loc::Shared => false,
        }
    }

    /// Marks everything a tracked location holds divergent.
    pub(crate) fn diverge(&mut self, loc: Loc, cause: Option<CauseId>) {
        match loc {
            Loc::Local(l) => {
                if let Some(tree) = self.locals.get_mut(l as usize) {
                    tree.diverge(cause);
                }
            }
            Loc::Caller(c) => {
                if let Some(contents) = self.callers.get_mut(c as usize) {
                    contents.diverge(cause);
                }
            }
            Loc::Frozen | Loc::Shared => {}
        }
    }

    /// Joins `other` into `self`; true when `self` grew.
    pub(crate) fn join(&mut self, other: &State) -> bool {
        let mut changed = false;
        for (a, b) in self.locals.iter_mut().zip(&other.locals) {
            changed |= a.join(b);
        }
        for (a, b) in self.callers.iter_mut().zip(&other.callers) {
            changed |= a.join(b);
        }
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_only_grow_and_keep_the_first_cause() {
        let mut a = Abs::pointer(None, [Loc::Local(1)]);
        assert!(!a.join(&Abs::uniform()));
        assert!(a.join(&Abs::divergent(CauseId(3))));
        assert!(!a.join(&Abs::divergent(CauseId(4))));
        assert_eq!(a.div, Some(CauseId(3)));
        assert!(a.join(&Abs::pointer(None, [Loc::Shared])));
        assert_eq!(a.pts, BTreeSet::from([Loc::Local(1), Loc::Shared]));
        let mut b = Abs::uniform();
        b.diverge(Some(CauseId(1)));
        b.diverge(Some(CauseId(2)));
        assert_eq!(b.div, Some(CauseId(1)));
        // A warp-uniform cause gives way to a divergent one, never the other way.
        let warp = CauseId(CauseId::WARP | 5);
        let mut w = Abs::divergent(warp);
        assert!(!w.join(&Abs::divergent(CauseId(CauseId::WARP | 6))));
        assert!(w.join(&Abs::divergent(CauseId(7))));
        assert_eq!(w.div, Some(CauseId(7)));
        w.diverge(Some(warp));
        assert_eq!(w.div, Some(CauseId(7)));
    }

    #[test]
    fn states_join_pointwise() {
        let mut s = State::new(2, vec![Abs::uniform()]);
        let mut t = s.clone();
        t.locals[1] = Tree::Leaf(Abs::divergent(CauseId(0)));
        assert!(s.join(&t));
        assert!(!s.join(&t));
        assert_eq!(
            s.tracked(Loc::Local(1)).and_then(|a| a.div),
            Some(CauseId(0))
        );
        assert!(s.tracked(Loc::Shared).is_none());
        assert!(Loc::Caller(0).is_tracked() && !Loc::Frozen.is_tracked());
        assert!(s.join_into(Loc::Caller(0), &Abs::pointer(None, [Loc::Frozen])));
        assert!(!s.join_into(Loc::Shared, &Abs::divergent(CauseId(1))));
    }

    #[test]
    fn fields_of_a_local_stay_apart_until_shapes_differ() {
        let (uniform, divergent) = (Abs::uniform(), Abs::divergent(CauseId(0)));
        // let pair = (thread_idx_x(), block_dim_x()): the second field stays uniform.
        let mut pair = Tree::Node(vec![
            Tree::Leaf(divergent.clone()),
            Tree::Leaf(uniform.clone()),
        ]);
        assert_eq!(pair.at(&[1]), (&Tree::Leaf(uniform.clone()), true));
        assert_eq!(pair.flat().div, Some(CauseId(0)));
        // Past a leaf, the leaf holds the field.
        let leaf = Tree::Leaf(uniform.clone());
        assert_eq!(leaf.at(&[0, 2]), (&leaf, false));
        // Joining a node and a leaf gives one value for the whole.
        let mut joined = pair.clone();
        assert!(joined.join(&Tree::Leaf(uniform.clone())));
        assert_eq!(joined, Tree::Leaf(divergent.clone()));
        assert!(!pair.join(&pair.clone()));
        assert!(pair.join_everywhere(&divergent));
        assert_eq!(pair.at(&[1]).0.flat().div, Some(CauseId(0)));
    }
}
