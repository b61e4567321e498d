//! The abstract values of the uniformity analysis: whether a value may differ between the
//! threads of a block, and where the pointers it holds may point.
//!
//! Memory is a handful of abstract locations. A function's locals are thread-private (each thread
//! has its own copy, and a pointer to one means "this local" in every thread); locations a caller
//! passed in are named by their position in the call's context; everything else is either memory
//! no thread writes while the kernel runs (`Frozen`) or memory other threads may write
//! (`Shared`), which reads as divergent. Values are field-insensitive: a local's state covers all
//! of its bytes.

use std::collections::BTreeSet;

/// Why a value may differ between threads: an index into the analysis's list of causes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct CauseId(pub(crate) u32);

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

    /// Marks the value divergent (keeping an earlier cause).
    pub(crate) fn diverge(&mut self, cause: Option<CauseId>) {
        if self.div.is_none() {
            self.div = cause;
        }
    }

    /// Joins `other` into `self`; true when `self` grew. A cause never replaces another, so
    /// that values only ever grow and the analysis ends.
    pub(crate) fn join(&mut self, other: &Abs) -> bool {
        let mut changed = false;
        if self.div.is_none() && other.div.is_some() {
            self.div = other.div;
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

/// The abstract state at one point of a function: each local's value and each context location's
/// contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct State {
    pub(crate) locals: Vec<Abs>,
    pub(crate) callers: Vec<Abs>,
}

impl State {
    pub(crate) fn new(locals: usize, callers: Vec<Abs>) -> State {
        State {
            locals: vec![Abs::uniform(); locals],
            callers,
        }
    }

    /// The contents of a tracked location; `None` for the others.
    pub(crate) fn tracked(&self, loc: Loc) -> Option<&Abs> {
        match loc {
            Loc::Local(l) => self.locals.get(l as usize),
            Loc::Caller(c) => self.callers.get(c as usize),
            Loc::Frozen | Loc::Shared => None,
        }
    }

    pub(crate) fn tracked_mut(&mut self, loc: Loc) -> Option<&mut Abs> {
        match loc {
            Loc::Local(l) => self.locals.get_mut(l as usize),
            Loc::Caller(c) => self.callers.get_mut(c as usize),
            Loc::Frozen | Loc::Shared => None,
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
    }

    #[test]
    fn states_join_pointwise() {
        let mut s = State::new(2, vec![Abs::uniform()]);
        let mut t = s.clone();
        t.locals[1] = Abs::divergent(CauseId(0));
        assert!(s.join(&t));
        assert!(!s.join(&t));
        assert_eq!(
            s.tracked(Loc::Local(1)).and_then(|a| a.div),
            Some(CauseId(0))
        );
        assert!(s.tracked(Loc::Shared).is_none());
        assert!(Loc::Caller(0).is_tracked() && !Loc::Frozen.is_tracked());
    }
}
