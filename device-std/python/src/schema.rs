//! A kernel as a torch custom op sees it: each parameter's kind ([`Param`]), found by running
//! the kernel's own `__foreign` with [`Params`] as its caller (which records what each
//! parameter is and stops before any launch), and the op's schema text ([`op_schema`]):
//! `pyops::vecadd(Tensor a, Tensor b, Tensor(a0!) c, *, int[]? grid=None, int[]? block=None)
//! -> ()`. Module `torch` registers it (docs/python.md, "torch.compile and custom ops").
//!
//! The kinds come from the same `ForeignArg` impls a Python call goes through: every key
//! `Call` can pass has a [`SchemaArg`] beside its `ForeignArg` (call.rs), with the role its
//! `describe` checks, so the schema marks as mutated exactly what the call lets the kernel write.

use oxide_host::{ForeignArg, ForeignCall, ForeignSignature, Gpu, LaunchConfig};

use crate::call::Call;
pub use crate::param_kind::{Number, Param, SchemaArg};

/// The caller of a kernel's `__foreign` that records each parameter's [`Param`] as it is
/// described, and stops at `prepare`: nothing is read, nothing is launched.
pub struct Params(Vec<Option<Param>>);

/// Why [`Params`] stopped `__foreign`: always after the last parameter was described (a host
/// error cannot happen, as nothing reaches the host runtime).
pub struct Stop;

impl From<oxide_host::Error> for Stop {
    fn from(_: oxide_host::Error) -> Self {
        Stop
    }
}

/// A kernel's `__foreign`, instantiated for [`Params`].
pub type ParamsOf = fn(&mut Params) -> Result<(), Stop>;

impl Params {
    /// The parameters of the kernel `signature` describes, whose `__foreign` is `foreign`,
    /// in order.
    pub fn of(signature: &ForeignSignature, foreign: ParamsOf) -> Result<Vec<Param>, String> {
        let mut params = Params(vec![None; signature.params.len()]);
        // `Stop` at `prepare` is the end of the walk, not a failure.
        let _ = foreign(&mut params);
        params
            .0
            .into_iter()
            .zip(signature.params)
            .map(|(param, p)| {
                param.ok_or_else(|| {
                    format!(
                        "internal error: {}'s parameter `{}` was not described",
                        signature.name, p.name
                    )
                })
            })
            .collect()
    }

    fn set(&mut self, index: usize, param: Param) -> Result<(), Stop> {
        match self.0.get_mut(index) {
            Some(slot) => {
                *slot = Some(param);
                Ok(())
            }
            None => Err(Stop),
        }
    }
}

impl ForeignCall for Params {
    type Error = Stop;

    fn prepare(&mut self) -> Result<(), Stop> {
        Err(Stop)
    }

    fn gpu(&self) -> Result<&Gpu, Stop> {
        Err(Stop)
    }

    fn config(&self) -> Result<LaunchConfig, Stop> {
        Err(Stop)
    }

    fn describe_shared_len(&mut self, index: usize) -> Result<(), Stop> {
        self.set(index, Param::Number(Number::Int))
    }

    fn shared_len(&self, _: usize) -> Result<usize, Stop> {
        Err(Stop)
    }
}

/// Every key a Python call can pass: its launch argument type is the call's (never made: the
/// walk stops at `prepare`), its kind the call's [`SchemaArg`].
impl<K: ?Sized> ForeignArg<K> for Params
where
    Call: ForeignArg<K> + SchemaArg<K>,
{
    type Arg<'c>
        = <Call as ForeignArg<K>>::Arg<'c>
    where
        Self: 'c;

    fn describe(&mut self, index: usize) -> Result<(), Stop> {
        self.set(index, <Call as SchemaArg<K>>::PARAM)
    }

    fn arg(&self, _: usize) -> Result<Self::Arg<'_>, Stop> {
        Err(Stop)
    }
}

/// A kernel as a torch custom op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpSchema {
    /// `namespace::name`.
    pub qualname: String,
    /// The schema after the name, as `torch.library.custom_op(schema=...)` takes it:
    /// `(Tensor a, Tensor(a0!) c, *, int[]? grid=None, int[]? block=None) -> ()`.
    pub schema: String,
    /// The parameters the kernel writes (`mutates_args`), in order.
    pub mutates: Vec<&'static str>,
    /// Each parameter's kind, in order: what the op's implementation converts (a list to a
    /// tuple, a tensor detached from autograd) before the checked call.
    pub params: Vec<Param>,
}

/// The keyword-only launch arguments every op takes after the kernel's own, as the call's
/// `grid=` and `block=` (the stream is always torch's current one, as for torch's ops).
const LAUNCH: &str = "int[]? grid=None, int[]? block=None";

/// Python's keywords that a Rust parameter name can be: an op's argument of that name could not
/// be passed by keyword, and torch's schema parser refuses some of them.
const PYTHON_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "assert", "class", "def", "del", "elif", "except", "finally",
    "from", "global", "import", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "with",
];

/// The custom op `namespace::kernel` of the kernel `signature` describes, whose parameters
/// are `params`: each tensor `Tensor` (one the kernel writes `Tensor(aN!)`, its own alias set,
/// and in `mutates`), each number `int` or `float`, each tuple `int[]` or `float[]`, then the
/// launch's `grid` and `block`; the op returns nothing (its outputs are written in place).
/// An error says why a kernel cannot be expressed.
pub fn op_schema(
    namespace: &str,
    signature: &ForeignSignature,
    params: &[Param],
) -> Result<OpSchema, String> {
    let kernel = signature.name;
    let mut args = Vec::new();
    let mut mutates = Vec::new();
    for (p, param) in signature.params.iter().zip(params) {
        let name = p.name;
        if name == "grid" || name == "block" {
            return Err(format!(
                "{kernel}'s parameter `{name}` has the name of the op's launch argument \
                 `{name}=`: rename it"
            ));
        }
        if PYTHON_KEYWORDS.contains(&name) {
            return Err(format!(
                "{kernel}'s parameter `{name}` is a Python keyword, which an op's argument \
                 cannot be named: rename it"
            ));
        }
        let ty = match *param {
            Param::Tensor(role) if role.writes() => {
                let alias = format!("Tensor(a{}!)", mutates.len());
                mutates.push(name);
                alias
            }
            Param::Tensor(_) => "Tensor".to_owned(),
            Param::Number(number) => number.text().to_owned(),
            Param::Tuple(items) => {
                let first = items.first().copied().unwrap_or(Number::Int);
                if items.iter().any(|&n| n != first) {
                    return Err(format!(
                        "{kernel}'s parameter `{name}: {}` mixes ints and floats, and a torch \
                         schema's list has one item type: make its items one type",
                        p.ty
                    ));
                }
                format!("{}[]", first.text())
            }
        };
        args.push(format!("{ty} {name}"));
    }
    args.push(format!("*, {LAUNCH}"));
    Ok(OpSchema {
        qualname: format!("{namespace}::{kernel}"),
        schema: format!("({}) -> ()", args.join(", ")),
        mutates,
        params: params.to_vec(),
    })
}

#[cfg(test)]
mod tests;
