//! The transfer functions of statements and values: what an assignment writes, where a
//! place is, what reading it gives.

use std::collections::BTreeSet;

use rustc_middle::{
    mir::{self, Operand, Place, ProjectionElem, Rvalue, StatementKind, interpret::GlobalAlloc},
    ty::{self, TypingEnv},
};

use super::FnAnalysis;
use crate::uniformity::{
    callees::monomorphize,
    state::{Abs, CauseId, Loc, State, Tree},
};

/// Where a place is.
pub(super) struct Target<'tcx> {
    /// The locations it may be in.
    pub(super) locs: BTreeSet<Loc>,
    /// Whether threads may designate different places (a divergent index or pointer).
    pub(super) div: Option<CauseId>,
    /// When the place is inside its own local (no dereference): the fields leading to it, with
    /// their types, and whether it is exactly that field (no index or variant on the way).
    inside: Option<(Vec<(usize, ty::Ty<'tcx>)>, bool)>,
}

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
                self.write(**place, Tree::default(), false, state, written);
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

    pub(super) fn rvalue(&mut self, rvalue: &Rvalue<'tcx>, state: &State) -> Tree {
        match rvalue {
            Rvalue::Use(op, ..) | Rvalue::WrapUnsafeBinder(op, _) => self.operand_tree(op, state),
            Rvalue::Aggregate(kind, ops) => {
                let by_field = match &**kind {
                    mir::AggregateKind::Tuple => true,
                    mir::AggregateKind::Adt(def, ..) => self.an.tcx.adt_def(*def).is_struct(),
                    _ => false,
                };
                let fields: Vec<Tree> = ops.iter().map(|op| self.operand_tree(op, state)).collect();
                if by_field {
                    Tree::Node(fields)
                } else {
                    Tree::Leaf(
                        fields
                            .iter()
                            .fold(Abs::uniform(), |acc, f| acc.joined(&f.flat())),
                    )
                }
            }
            other => Tree::Leaf(self.scalar_rvalue(other, state)),
        }
    }

    fn scalar_rvalue(&mut self, rvalue: &Rvalue<'tcx>, state: &State) -> Abs {
        match rvalue {
            Rvalue::Use(op, ..) | Rvalue::Repeat(op, _) | Rvalue::WrapUnsafeBinder(op, _) => {
                self.operand(op, state)
            }
            Rvalue::Ref(_, _, place) | Rvalue::RawPtr(_, place) => {
                let target = self.target(*place, state);
                Abs::pointer(target.div, target.locs)
            }
            Rvalue::ThreadLocalRef(_) => Abs::pointer(None, [Loc::Shared]),
            Rvalue::Cast(_, op, to) => {
                let mut value = self.operand(op, state);
                let tcx = self.an.tcx;
                let from = monomorphize(tcx, self.instance, op.ty(self.body, tcx));
                let to = monomorphize(tcx, self.instance, *to);
                let is_ptr = |t: ty::Ty<'tcx>| t.is_raw_ptr() || t.is_ref();
                // A thread's own variable's address, as an integer, is no more divergent than the
                // offset that made it: on the GPU each thread sees its local memory through the
                // same window of the generic space at the same addresses (the frame is one
                // `.local` array per thread), so `&x as usize` is one number in every thread, and
                // so is a slice iterator's `end - ptr` over a thread's own array. (The CPU
                // emulator's threads have stacks of their own: there such an address differs, and
                // a barrier under a branch on it fails at run time, `BarrierDivergence`.)
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
        self.operand_tree(op, state).flat()
    }

    fn operand_tree(&mut self, op: &Operand<'tcx>, state: &State) -> Tree {
        match op {
            Operand::Copy(place) | Operand::Move(place) => self.read_tree(*place, state),
            Operand::Constant(constant) => Tree::Leaf(self.constant(constant)),
            Operand::RuntimeChecks(_) => Tree::default(),
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

    /// Where `place` is: the locations it may designate, and whether threads may designate
    /// different ones.
    pub(super) fn target(&mut self, place: Place<'tcx>, state: &State) -> Target<'tcx> {
        let tcx = self.an.tcx;
        let local = place.local;
        let mut locs = BTreeSet::from([Loc::Local(local.as_u32())]);
        let mut div = None;
        let mut inside = Some((Vec::new(), true));
        for elem in place.projection {
            match elem {
                ProjectionElem::Deref => {
                    let pointer = match inside.take() {
                        Some((path, _)) => state.locals[local.index()].at(&indices(&path)).0.flat(),
                        None => {
                            let mut pointer = Abs::uniform();
                            for loc in &locs {
                                pointer.join(&self.contents(*loc, state));
                            }
                            pointer
                        }
                    };
                    div = super::super::state::stronger(div, pointer.div);
                    locs = if pointer.pts.is_empty() {
                        BTreeSet::from([Loc::Shared])
                    } else {
                        pointer.pts
                    };
                }
                ProjectionElem::Field(field, ty) => {
                    if let Some((path, true)) = &mut inside {
                        path.push((field.index(), monomorphize(tcx, self.instance, ty)));
                    }
                }
                ProjectionElem::Index(index) => {
                    div =
                        super::super::state::stronger(div, state.locals[index.index()].flat().div);
                    if let Some((_, exact)) = &mut inside {
                        *exact = false;
                    }
                }
                _ => {
                    if let Some((_, exact)) = &mut inside {
                        *exact = false;
                    }
                }
            }
        }
        Target { locs, div, inside }
    }

    /// What reading `place` gives, field by field where its local is followed so.
    pub(super) fn read_tree(&mut self, place: Place<'tcx>, state: &State) -> Tree {
        let target = self.target(place, state);
        let mut value = match &target.inside {
            Some((path, exact)) => {
                let (tree, at_field) = state.locals[place.local.index()].at(&indices(path));
                if *exact && at_field {
                    tree.clone()
                } else {
                    Tree::Leaf(tree.flat())
                }
            }
            None => {
                let mut value = Abs::uniform();
                for loc in &target.locs {
                    value.join(&self.contents(*loc, state));
                }
                Tree::Leaf(value)
            }
        };
        value.diverge(target.div);
        if !self.place_holds_pointers(place) {
            value.clear_pointers();
        }
        value
    }

    pub(super) fn read(&mut self, place: Place<'tcx>, state: &State) -> Abs {
        self.read_tree(place, state).flat()
    }

    pub(super) fn place_holds_pointers(&mut self, place: Place<'tcx>) -> bool {
        let tcx = self.an.tcx;
        let ty = monomorphize(tcx, self.instance, place.ty(self.body, tcx).ty);
        self.an.holds_pointers(ty)
    }

    /// What reading `loc` gives.
    pub(super) fn contents(&mut self, loc: Loc, state: &State) -> Abs {
        match loc {
            Loc::Local(_) | Loc::Caller(_) => state.tracked(loc).unwrap_or_default(),
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

    /// Stores `value` into `place`: a local's field (or the whole local) is replaced when
    /// `replace`, anything else joined into what the place may designate.
    pub(super) fn write(
        &mut self,
        place: Place<'tcx>,
        mut value: Tree,
        replace: bool,
        state: &mut State,
        written: &mut BTreeSet<Loc>,
    ) {
        if !self.place_holds_pointers(place) {
            value.clear_pointers();
        }
        let target = self.target(place, state);
        value.diverge(target.div);
        match target.inside {
            Some((path, exact)) => {
                let local = place.local;
                written.insert(Loc::Local(local.as_u32()));
                let root =
                    monomorphize(self.an.tcx, self.instance, self.body.local_decls[local].ty);
                let fields = self.field_counts(root, &path);
                let slot = &mut state.locals[local.index()];
                if replace && exact {
                    replace_field(slot, &path, &fields, value);
                } else {
                    // An element or a variant's field: somewhere in the field at `path`.
                    let whole = value.flat();
                    field_mut(slot, &indices(&path)).join_everywhere(&whole);
                }
            }
            None => {
                let whole = value.flat();
                for loc in target.locs {
                    if state.join_into(loc, &whole) {
                        written.insert(loc);
                    }
                }
            }
        }
    }

    /// How many fields a struct or tuple at each step of `path` has (`None`: not one).
    fn field_counts(
        &mut self,
        root: ty::Ty<'tcx>,
        path: &[(usize, ty::Ty<'tcx>)],
    ) -> Vec<Option<usize>> {
        std::iter::once(root)
            .chain(path.iter().map(|(_, ty)| *ty))
            .take(path.len())
            .map(|ty| match ty.kind() {
                ty::Tuple(fields) => Some(fields.len()),
                ty::Adt(adt, _) if adt.is_struct() => Some(adt.non_enum_variant().fields.len()),
                _ => None,
            })
            .collect()
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
            if state.join_into(*loc, &value) {
                written.insert(*loc);
            }
        }
    }
}

fn indices(path: &[(usize, ty::Ty<'_>)]) -> Vec<usize> {
    path.iter().map(|(i, _)| *i).collect()
}

/// The value at `path`, as deep as the value is followed field by field.
fn field_mut<'t>(tree: &'t mut Tree, path: &[usize]) -> &'t mut Tree {
    let mut depth = 0;
    let mut probe = &*tree;
    while let (Tree::Node(fields), Some(&i)) = (probe, path.get(depth))
        && i < fields.len()
    {
        probe = &fields[i];
        depth += 1;
    }
    let mut node = tree;
    for &i in &path[..depth] {
        node = match node {
            Tree::Node(fields) => &mut fields[i],
            Tree::Leaf(_) => unreachable!("probed as a node"),
        };
    }
    node
}

/// Replaces the field at `path` with `value`, splitting a whole value into fields on the way
/// (`counts[i]`: how many fields the value at depth `i` has, if it is a struct or tuple). Where
/// it cannot split, `value` is joined into what holds the field.
fn replace_field(
    tree: &mut Tree,
    path: &[(usize, ty::Ty<'_>)],
    counts: &[Option<usize>],
    value: Tree,
) {
    let Some(((index, _), rest)) = path.split_first() else {
        *tree = value;
        return;
    };
    if let (Tree::Leaf(whole), Some(Some(count))) = (&*tree, counts.first())
        && index < count
    {
        *tree = Tree::Node(vec![Tree::Leaf(whole.clone()); *count]);
    }
    match tree {
        Tree::Node(fields) if *index < fields.len() => {
            replace_field(&mut fields[*index], rest, &counts[1..], value)
        }
        _ => {
            tree.join_everywhere(&value.flat());
        }
    }
}
