//! The transfer functions of statements and values: what an assignment writes, where a
//! place is, what reading it gives.

use std::collections::BTreeSet;

use rustc_middle::{
    mir::{
        self, CastKind, Operand, Place, ProjectionElem, Rvalue, StatementKind,
        interpret::GlobalAlloc,
    },
    ty::{self, TypingEnv},
};

use super::FnAnalysis;
use crate::uniformity::{
    callees::monomorphize,
    state::{Abs, CauseId, Loc, State},
};

impl<'tcx> FnAnalysis<'_, '_, 'tcx> {
    pub(super) fn statement(
        &mut self,
        kind: &StatementKind<'tcx>,
        state: &mut State,
        written: &mut BTreeSet<Loc>,
    ) {
        match kind {
            StatementKind::Assign(assign) => {
                let (place, rvalue) = &**assign;
                let value = self.rvalue(rvalue, state);
                self.write(*place, value, true, state, written);
            }
            StatementKind::SetDiscriminant { place, .. } => {
                self.write(**place, Abs::uniform(), false, state, written);
            }
            StatementKind::Intrinsic(intrinsic) => {
                if let mir::NonDivergingIntrinsic::CopyNonOverlapping(copy) = &**intrinsic {
                    let src = self.operand(&copy.src, state);
                    let dst = self.operand(&copy.dst, state);
                    let count = self.operand(&copy.count, state);
                    let mut data = self.pointee(&src, state);
                    data.diverge(count.div);
                    self.write_through(&dst, &data, state, written);
                }
            }
            _ => {}
        }
    }

    pub(super) fn rvalue(&mut self, rvalue: &Rvalue<'tcx>, state: &State) -> Abs {
        match rvalue {
            Rvalue::Use(op, ..) | Rvalue::Repeat(op, _) | Rvalue::WrapUnsafeBinder(op, _) => {
                self.operand(op, state)
            }
            Rvalue::Ref(_, _, place) | Rvalue::RawPtr(_, place) => {
                let (locs, div) = self.address(*place, state);
                Abs::pointer(div, locs)
            }
            Rvalue::ThreadLocalRef(_) => Abs::pointer(None, [Loc::Shared]),
            Rvalue::Cast(kind, op, to) => {
                let mut value = self.operand(op, state);
                let tcx = self.an.tcx;
                let from = monomorphize(tcx, self.instance, op.ty(self.body, tcx));
                let to = monomorphize(tcx, self.instance, *to);
                let is_ptr = |t: ty::Ty<'tcx>| t.is_raw_ptr() || t.is_ref();
                let exposes = matches!(kind, CastKind::PointerExposeProvenance)
                    || (matches!(kind, CastKind::Transmute) && is_ptr(from) && !is_ptr(to));
                if exposes && value.pts.iter().any(|l| l.is_tracked()) {
                    // Each thread's own variables have their own addresses.
                    let cause = self
                        .an
                        .cause("the address of a thread's own variable".into(), self.span);
                    value.diverge(Some(cause));
                }
                if is_ptr(to) && value.pts.is_empty() && !is_ptr(from) {
                    value.pts.insert(Loc::Shared);
                }
                value
            }
            Rvalue::BinaryOp(_, ops) => {
                let a = self.operand(&ops.0, state);
                let b = self.operand(&ops.1, state);
                a.joined(&b)
            }
            Rvalue::UnaryOp(_, op) => self.operand(op, state),
            Rvalue::Discriminant(place)
            | Rvalue::CopyForDeref(place)
            | Rvalue::Reborrow(_, _, place) => self.read(*place, state),
            Rvalue::Aggregate(_, ops) => ops.iter().fold(Abs::uniform(), |acc, op| {
                acc.joined(&self.operand(op, state))
            }),
        }
    }

    pub(super) fn operand(&mut self, op: &Operand<'tcx>, state: &State) -> Abs {
        match op {
            Operand::Copy(place) | Operand::Move(place) => self.read(*place, state),
            Operand::Constant(constant) => self.constant(constant),
            Operand::RuntimeChecks(_) => Abs::uniform(),
        }
    }

    /// A constant is the same in every thread; the pointers in it point to immutable memory
    /// unless they point to a mutable static, or to one with interior mutability.
    pub(super) fn constant(&mut self, constant: &mir::ConstOperand<'tcx>) -> Abs {
        let tcx = self.an.tcx;
        let value = monomorphize(tcx, self.instance, constant.const_).eval(
            tcx,
            TypingEnv::fully_monomorphized(),
            constant.span,
        );
        let allocs: Vec<mir::interpret::AllocId> = match value {
            Ok(mir::ConstValue::Scalar(mir::interpret::Scalar::Ptr(ptr, _))) => {
                vec![ptr.into_raw_parts().0.alloc_id()]
            }
            Ok(mir::ConstValue::Scalar(_) | mir::ConstValue::ZeroSized) => Vec::new(),
            Ok(mir::ConstValue::Slice { alloc_id, .. }) => vec![alloc_id],
            Ok(mir::ConstValue::Indirect { alloc_id, .. }) => match tcx.global_alloc(alloc_id) {
                GlobalAlloc::Memory(alloc) => alloc
                    .inner()
                    .provenance()
                    .ptrs()
                    .iter()
                    .map(|(_, p)| p.alloc_id())
                    .collect(),
                _ => return Abs::pointer(None, [Loc::Shared]),
            },
            Err(_) => return Abs::pointer(None, [Loc::Shared]),
        };
        Abs::pointer(None, allocs.into_iter().map(|a| self.alloc_loc(a)))
    }

    pub(super) fn alloc_loc(&self, alloc: mir::interpret::AllocId) -> Loc {
        let tcx = self.an.tcx;
        match tcx.global_alloc(alloc) {
            GlobalAlloc::Static(def_id) => {
                let ty = tcx
                    .type_of(def_id)
                    .instantiate_identity()
                    .skip_normalization();
                let shared = matches!(ty.kind(), ty::Adt(adt, _) if self.an.registry.is_shared_memory(adt.did()));
                let frozen = !tcx.is_mutable_static(def_id)
                    && !tcx.is_thread_local_static(def_id)
                    && !shared
                    && ty.is_freeze(tcx, TypingEnv::fully_monomorphized());
                if frozen { Loc::Frozen } else { Loc::Shared }
            }
            GlobalAlloc::Memory(memory) if memory.inner().mutability.is_not() => Loc::Frozen,
            GlobalAlloc::Memory(_) => Loc::Shared,
            GlobalAlloc::Function { .. } | GlobalAlloc::VTable(..) | GlobalAlloc::TypeId { .. } => {
                Loc::Frozen
            }
        }
    }

    /// The locations `place` may designate, and whether threads may designate different ones.
    pub(super) fn address(
        &mut self,
        place: Place<'tcx>,
        state: &State,
    ) -> (BTreeSet<Loc>, Option<CauseId>) {
        let mut locs = BTreeSet::from([Loc::Local(place.local.as_u32())]);
        let mut div = None;
        for elem in place.projection {
            match elem {
                ProjectionElem::Deref => {
                    let mut pointer = Abs::uniform();
                    for loc in &locs {
                        pointer.join(&self.contents(*loc, state));
                    }
                    div = div.or(pointer.div);
                    locs = if pointer.pts.is_empty() {
                        BTreeSet::from([Loc::Shared])
                    } else {
                        pointer.pts
                    };
                }
                ProjectionElem::Index(index) => {
                    div = div.or(state.locals[index.index()].div);
                }
                _ => {}
            }
        }
        (locs, div)
    }

    pub(super) fn read(&mut self, place: Place<'tcx>, state: &State) -> Abs {
        let (locs, div) = self.address(place, state);
        let mut value = Abs::uniform();
        for loc in locs {
            value.join(&self.contents(loc, state));
        }
        value.diverge(div);
        if !self.place_holds_pointers(place) {
            value.pts.clear();
        }
        value
    }

    pub(super) fn place_holds_pointers(&mut self, place: Place<'tcx>) -> bool {
        let tcx = self.an.tcx;
        let ty = monomorphize(tcx, self.instance, place.ty(self.body, tcx).ty);
        self.an.holds_pointers(ty)
    }

    /// What reading `loc` gives.
    pub(super) fn contents(&mut self, loc: Loc, state: &State) -> Abs {
        match loc {
            Loc::Local(_) | Loc::Caller(_) => state.tracked(loc).cloned().unwrap_or_default(),
            Loc::Frozen => Abs::pointer(None, [Loc::Shared]),
            Loc::Shared => {
                let what = "a value read from memory that other threads may write".to_string();
                Abs::pointer(Some(self.an.cause(what, self.span)), [Loc::Shared])
            }
        }
    }

    /// What reading through `pointer` gives.
    pub(super) fn pointee(&mut self, pointer: &Abs, state: &State) -> Abs {
        let mut value = Abs::uniform();
        let pts = if pointer.pts.is_empty() {
            BTreeSet::from([Loc::Shared])
        } else {
            pointer.pts.clone()
        };
        for loc in pts {
            value.join(&self.contents(loc, state));
        }
        value.diverge(pointer.div);
        value
    }

    /// Stores `value` into `place`: a whole local is replaced, anything else joined into what
    /// it may designate.
    pub(super) fn write(
        &mut self,
        place: Place<'tcx>,
        mut value: Abs,
        replace: bool,
        state: &mut State,
        written: &mut BTreeSet<Loc>,
    ) {
        let local = Loc::Local(place.local.as_u32());
        if !self.place_holds_pointers(place) {
            value.pts.clear();
        }
        if replace && place.projection.is_empty() {
            state.locals[place.local.index()] = value;
            written.insert(local);
            return;
        }
        let (locs, div) = self.address(place, state);
        value.diverge(div);
        for loc in locs {
            if let Some(contents) = state.tracked_mut(loc) {
                contents.join(&value);
                written.insert(loc);
            }
        }
    }

    /// A write of `value` through `pointer`, wherever it may point.
    pub(super) fn write_through(
        &mut self,
        pointer: &Abs,
        value: &Abs,
        state: &mut State,
        written: &mut BTreeSet<Loc>,
    ) {
        let mut value = value.clone();
        value.diverge(pointer.div);
        for loc in &pointer.pts {
            if let Some(contents) = state.tracked_mut(*loc) {
                contents.join(&value);
                written.insert(*loc);
            }
        }
    }
}
