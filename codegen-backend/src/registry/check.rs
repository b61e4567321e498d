//! Every device mark of the crate being compiled, checked where it is written: a mark on an
//! item no kernel calls yet is as much a hole as one that is called (another crate can call
//! it), and an error at the attribute says what to change. Each attribute gets one error, the
//! first of: an unknown keyword; the wrong kind of item (a function mark on a struct, a static,
//! a closure...; a type mark on a function); a mark the crate may not write (outside
//! device-std: a type mark, a device-std-only mark, a function mark on a safe `fn`); a result
//! type the mark cannot produce; malformed arguments; a second mark on one item.

use rustc_hir::{self as hir, HirId, Node, def::DefKind, def_id::DefId};
use rustc_middle::ty::{self, TyCtxt};
use rustc_span::{Span, Symbol};

use super::{BadAttribute, parse_function_mark};
use crate::marks::{self, Mark, Returns, TOOL, Target};

/// A mistake in one mark.
struct Mistake {
    span: Span,
    message: String,
    help: Option<String>,
}

/// Checks every `#[oxide_gpu::…]` attribute of the local crate and reports each mistake at its
/// attribute; whether there was one.
pub(crate) fn check_crate(tcx: TyCtxt<'_>) -> bool {
    let tool = Symbol::intern(TOOL);
    let mut mistakes = Vec::new();
    // Every attribute of the crate, wherever written (items, fields, closures, statements...):
    // attributes are stored per owner (item), keyed by the node within it.
    for owner in tcx.hir_crate_items(()).owners() {
        for (local_id, attrs) in tcx.hir_attr_map(owner).map.iter() {
            let hir_id = HirId {
                owner,
                local_id: *local_id,
            };
            // A tuple or unit struct's constructor carries the struct's own attributes.
            if matches!(tcx.hir_node(hir_id), Node::Ctor(_)) {
                continue;
            }
            let mut first: Option<&'static Mark> = None;
            for attr in attrs.iter() {
                let path = attr.path();
                if path.first() != Some(&tool) {
                    continue;
                }
                match check_mark(tcx, hir_id, attr, &path) {
                    Ok(mark) => match first {
                        None => first = Some(mark),
                        Some(earlier) => mistakes.push(Mistake {
                            span: attr.span(),
                            message: format!(
                                "`#[{TOOL}::{}]` is a second device mark on one item, after \
                                 `#[{TOOL}::{}]`",
                                mark.name, earlier.name
                            ),
                            help: Some(
                                "a call of a marked function (or a `static` of a marked type) \
                                 becomes one thing: keep one mark"
                                    .into(),
                            ),
                        }),
                    },
                    Err(mistake) => mistakes.push(mistake),
                }
            }
        }
    }
    mistakes.sort_by_key(|m| m.span);
    for mistake in &mistakes {
        let mut diag = tcx
            .dcx()
            .struct_span_err(mistake.span, format!("oxide: {}", mistake.message));
        if let Some(help) = &mistake.help {
            diag.help(help.clone());
        }
        diag.emit();
    }
    !mistakes.is_empty()
}

/// The mark `attr` (written `#[oxide_gpu::<path[1..]>]` on `hir_id`), if it may be there.
fn check_mark(
    tcx: TyCtxt<'_>,
    hir_id: HirId,
    attr: &hir::Attribute,
    path: &[Symbol],
) -> Result<&'static Mark, Mistake> {
    let span = attr.span();
    let mistake = |message: String, help: Option<String>| Mistake {
        span,
        message,
        help,
    };
    let written: Vec<&str> = path[1..].iter().map(|s| s.as_str()).collect();
    let mark = match written.as_slice() {
        [name] => marks::lookup(name),
        _ => None,
    }
    .ok_or_else(|| {
        mistake(
            format!("`#[{TOOL}::{}]` is not a device mark", written.join("::")),
            Some(format!("the device marks are {}", marks::names())),
        )
    })?;

    // The item the mark is on: only an item (the owner itself) can be a function or a struct.
    let item = (hir_id.local_id.as_u32() == 0).then(|| hir_id.owner.to_def_id());
    let fits = item.is_some_and(|def_id| match mark.target {
        Target::Function => is_function_with_a_body(tcx, def_id),
        Target::Struct => tcx.def_kind(def_id) == DefKind::Struct,
    });
    if !fits {
        let (wanted, help) = match mark.target {
            Target::Function => (
                "a function",
                "put it on the `fn` whose calls it compiles (an `unsafe fn` outside device-std)",
            ),
            Target::Struct => ("a struct", "it belongs on a struct of device-std"),
        };
        return Err(mistake(
            format!(
                "`#[{TOOL}::{}]` marks {wanted}, and this is {}",
                mark.name,
                describe(tcx, hir_id)
            ),
            Some(help.into()),
        ));
    }
    let def_id = item.expect("a mark that fits is on an item");

    if let Some(refusal) = marks::refusal_of(tcx, def_id, mark) {
        return Err(mistake(refusal.message(mark), Some(refusal.help(mark))));
    }

    if mark.target == Target::Function {
        let output = tcx.fn_sig(def_id).skip_binder().output().skip_binder();
        let (fits, needs) = match mark.returns {
            Returns::Any => (true, ""),
            Returns::Unit => (output.is_unit(), "`()`: the call emits no value"),
            Returns::U32 => (
                *output.kind() == ty::Uint(ty::UintTy::U32),
                "`u32`: the call reads a 32-bit register",
            ),
        };
        if !fits {
            return Err(mistake(
                format!(
                    "`#[{TOOL}::{}]` needs a function that returns {needs}, and this one returns `{output}`",
                    mark.name
                ),
                None,
            ));
        }
        if let Err(BadAttribute(why)) = parse_function_mark(mark, attr) {
            return Err(mistake(why, None));
        }
    } else if !attr.is_word() {
        return Err(mistake(
            format!("`#[{TOOL}::{}]` takes no arguments", mark.name),
            None,
        ));
    }
    Ok(mark)
}

/// Whether `def_id` is a function a call can reach with its mark: a free, associated or foreign
/// `fn`, not a trait's method declaration without a body (a call runs an impl's method, which
/// carries its own marks).
fn is_function_with_a_body(tcx: TyCtxt<'_>, def_id: DefId) -> bool {
    match tcx.def_kind(def_id) {
        DefKind::Fn => true,
        DefKind::AssocFn => !matches!(
            tcx.hir_get_if_local(def_id),
            Some(Node::TraitItem(hir::TraitItem {
                kind: hir::TraitItemKind::Fn(_, hir::TraitFn::Required(_)),
                ..
            }))
        ),
        _ => false,
    }
}

/// What the attribute is written on, for "... and this is <it>".
fn describe(tcx: TyCtxt<'_>, hir_id: HirId) -> String {
    if hir_id.local_id.as_u32() == 0 {
        let def_id = hir_id.owner.to_def_id();
        if tcx.def_kind(def_id) == DefKind::AssocFn && !is_function_with_a_body(tcx, def_id) {
            return "a trait's method declaration without a body".into();
        }
        return format!(
            "{} {}",
            tcx.def_descr_article(def_id),
            tcx.def_descr(def_id)
        );
    }
    match tcx.hir_node(hir_id) {
        Node::Expr(hir::Expr {
            kind: hir::ExprKind::Closure(_),
            ..
        }) => "a closure",
        Node::Expr(_) => "an expression",
        Node::Stmt(_) | Node::LetStmt(_) => "a statement",
        Node::Field(_) | Node::ExprField(_) | Node::PatField(_) => "a field",
        Node::Variant(_) => "an enum variant",
        Node::Param(_) => "a parameter",
        Node::Arm(_) => "a match arm",
        Node::GenericParam(_) => "a generic parameter",
        _ => "not an item",
    }
    .into()
}
