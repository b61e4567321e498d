//! A function's control-flow graph read through LLVM's C API: its blocks, predecessor edges,
//! dominance by a block, and natural loops. inkwell does not expose LLVM's analyses, and the
//! IR passes of this crate that run outside LLVM's pass manager need only these.

use std::collections::{HashMap, HashSet, VecDeque};

use llvm_sys::core::{
    LLVMGetBasicBlockTerminator, LLVMGetEntryBasicBlock, LLVMGetFirstBasicBlock,
    LLVMGetNextBasicBlock, LLVMGetNumSuccessors, LLVMGetSuccessor,
};
use llvm_sys::prelude::{LLVMBasicBlockRef, LLVMValueRef};

/// A function's blocks and predecessor edges (a predecessor appears once per edge).
pub(crate) struct Cfg {
    pub(crate) entry: LLVMBasicBlockRef,
    pub(crate) blocks: Vec<LLVMBasicBlockRef>,
    preds: HashMap<LLVMBasicBlockRef, Vec<LLVMBasicBlockRef>>,
}

impl Cfg {
    /// # Safety
    /// `function` is a live LLVM function.
    pub(crate) unsafe fn of(function: LLVMValueRef) -> Cfg {
        let mut blocks = Vec::new();
        let mut preds: HashMap<_, Vec<_>> = HashMap::new();
        unsafe {
            let mut b = LLVMGetFirstBasicBlock(function);
            while !b.is_null() {
                blocks.push(b);
                preds.entry(b).or_default();
                for s in successors(b) {
                    preds.entry(s).or_default().push(b);
                }
                b = LLVMGetNextBasicBlock(b);
            }
            Cfg {
                entry: LLVMGetEntryBasicBlock(function),
                blocks,
                preds,
            }
        }
    }

    pub(crate) fn preds(&self, b: LLVMBasicBlockRef) -> &[LLVMBasicBlockRef] {
        self.preds.get(&b).map_or(&[], Vec::as_slice)
    }

    /// The one predecessor of `b`, if it has exactly one edge in.
    pub(crate) fn single_pred(&self, b: LLVMBasicBlockRef) -> Option<LLVMBasicBlockRef> {
        match self.preds(b) {
            [p] => Some(*p),
            _ => None,
        }
    }

    /// The blocks every path from the entry to which passes through `s`, and the blocks no path
    /// reaches: the blocks a search from the entry that avoids `s` does not reach. (`s` itself is
    /// among them.)
    pub(crate) unsafe fn not_reached_without(
        &self,
        s: LLVMBasicBlockRef,
    ) -> HashSet<LLVMBasicBlockRef> {
        let mut seen = HashSet::new();
        let mut queue = VecDeque::new();
        if self.entry != s {
            seen.insert(self.entry);
            queue.push_back(self.entry);
        }
        while let Some(b) = queue.pop_front() {
            for n in unsafe { successors(b) } {
                if n != s && seen.insert(n) {
                    queue.push_back(n);
                }
            }
        }
        self.blocks
            .iter()
            .copied()
            .filter(|b| !seen.contains(b))
            .collect()
    }

    /// The blocks a search from the entry reaches.
    pub(crate) unsafe fn reachable(&self) -> HashSet<LLVMBasicBlockRef> {
        let mut seen = HashSet::from([self.entry]);
        let mut queue = VecDeque::from([self.entry]);
        while let Some(b) = queue.pop_front() {
            for n in unsafe { successors(b) } {
                if seen.insert(n) {
                    queue.push_back(n);
                }
            }
        }
        seen
    }
}

/// The successors of `b`, one per edge.
///
/// # Safety
/// `b` is a live LLVM block.
pub(crate) unsafe fn successors(b: LLVMBasicBlockRef) -> Vec<LLVMBasicBlockRef> {
    unsafe {
        let term = LLVMGetBasicBlockTerminator(b);
        if term.is_null() {
            return Vec::new();
        }
        (0..LLVMGetNumSuccessors(term))
            .map(|i| LLVMGetSuccessor(term, i))
            .collect()
    }
}

/// A natural loop: its header and every block of its body (the header included).
pub(crate) struct Loop {
    pub(crate) header: LLVMBasicBlockRef,
    pub(crate) latches: Vec<LLVMBasicBlockRef>,
    pub(crate) body: HashSet<LLVMBasicBlockRef>,
}

impl Cfg {
    /// The natural loops of the function, one per header: an edge to a block still on the
    /// depth-first search's path from the entry is a back edge, its target a header, and the
    /// loop's body the blocks that reach one of the header's latches without passing the header.
    pub(crate) unsafe fn loops(&self) -> Vec<Loop> {
        let mut latches: HashMap<LLVMBasicBlockRef, Vec<LLVMBasicBlockRef>> = HashMap::new();
        let mut on_path = HashSet::from([self.entry]);
        let mut seen = HashSet::from([self.entry]);
        let mut stack = vec![(self.entry, unsafe { successors(self.entry) }, 0usize)];
        while let Some((block, succs, next)) = stack.last_mut() {
            if let Some(&s) = succs.get(*next) {
                *next += 1;
                if on_path.contains(&s) {
                    latches.entry(s).or_default().push(*block);
                } else if seen.insert(s) {
                    on_path.insert(s);
                    stack.push((s, unsafe { successors(s) }, 0));
                }
            } else {
                on_path.remove(block);
                stack.pop();
            }
        }
        let mut headers: Vec<_> = latches.keys().copied().collect();
        headers.sort_by_key(|h| self.blocks.iter().position(|b| b == h));
        headers
            .into_iter()
            .map(|header| {
                let latches = latches.remove(&header).unwrap_or_default();
                let mut body = HashSet::from([header]);
                let mut queue: VecDeque<_> = latches.iter().copied().collect();
                while let Some(b) = queue.pop_front() {
                    if body.insert(b) {
                        queue.extend(self.preds(b).iter().copied());
                    }
                }
                Loop {
                    header,
                    latches,
                    body,
                }
            })
            .collect()
    }
}

impl Cfg {
    /// Each block's immediate post-dominator (`None` for a block that ends the function, and for
    /// every block when some block cannot reach an end: then the answer is not known).
    pub(crate) unsafe fn immediate_post_dominators(
        &self,
    ) -> Option<HashMap<LLVMBasicBlockRef, Option<LLVMBasicBlockRef>>> {
        let n = self.blocks.len();
        let index: HashMap<_, _> = self
            .blocks
            .iter()
            .enumerate()
            .map(|(i, &b)| (b, i))
            .collect();
        let succs: Vec<Vec<usize>> = self
            .blocks
            .iter()
            .map(|&b| unsafe { successors(b) }.iter().map(|s| index[s]).collect())
            .collect();
        // pdom[b]: the blocks on every path from `b` to an end, `b` included (all blocks to
        // start with, then narrowed to a fixed point).
        let mut pdom: Vec<Vec<bool>> = (0..n)
            .map(|b| {
                if succs[b].is_empty() {
                    (0..n).map(|x| x == b).collect()
                } else {
                    vec![true; n]
                }
            })
            .collect();
        let mut changed = true;
        while changed {
            changed = false;
            for b in 0..n {
                if succs[b].is_empty() {
                    continue;
                }
                let mut meet = vec![true; n];
                for &s in &succs[b] {
                    for (m, p) in meet.iter_mut().zip(&pdom[s]) {
                        *m &= *p;
                    }
                }
                meet[b] = true;
                if meet != pdom[b] {
                    pdom[b] = meet;
                    changed = true;
                }
            }
        }
        // A block that reaches no end (an endless loop) has no post-dominators to speak of:
        // then nothing is known.
        let mut reaches_end: Vec<bool> = succs.iter().map(Vec::is_empty).collect();
        let mut grew = true;
        while grew {
            grew = false;
            for b in 0..n {
                if !reaches_end[b] && succs[b].iter().any(|&s| reaches_end[s]) {
                    reaches_end[b] = true;
                    grew = true;
                }
            }
        }
        if reaches_end.contains(&false) {
            return None;
        }
        let size = |b: usize| pdom[b].iter().filter(|&&x| x).count();
        Some(
            (0..n)
                .map(|b| {
                    // The nearest strict post-dominator has the most post-dominators.
                    let ipdom = (0..n)
                        .filter(|&d| d != b && pdom[b][d])
                        .max_by_key(|&d| size(d))
                        .map(|d| self.blocks[d]);
                    (self.blocks[b], ipdom)
                })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use inkwell::context::Context;
    use inkwell::memory_buffer::MemoryBuffer;
    use inkwell::values::AsValueRef;

    use super::*;

    /// The immediate post-dominators of `@f` in `ir`, by block name.
    fn ipdoms(ir: &str) -> Option<Vec<(String, Option<String>)>> {
        let ll = Context::create();
        let buffer = MemoryBuffer::create_from_memory_range_copy(ir.as_bytes(), "test");
        let module = ll.create_module_from_ir(buffer).expect("test IR parses");
        let f = module.get_function("f").expect("@f");
        let name = |b: LLVMBasicBlockRef| {
            f.get_basic_blocks()
                .into_iter()
                .find(|x| x.as_mut_ptr() == b)
                .map(|x| x.get_name().to_string_lossy().into_owned())
                .expect("a block of @f")
        };
        // SAFETY: `f` lives as long as `module`, here.
        let cfg = unsafe { Cfg::of(f.as_value_ref()) };
        let map = unsafe { cfg.immediate_post_dominators() }?;
        let mut out: Vec<_> = map
            .into_iter()
            .map(|(b, d)| (name(b), d.map(name)))
            .collect();
        out.sort();
        Some(out)
    }

    #[test]
    fn post_dominators_of_a_diamond_and_a_chain() {
        let ir = r#"
define void @f(i1 %c) {
entry:
  br label %head
head:
  br i1 %c, label %left, label %right
left:
  br label %join
right:
  br label %join
join:
  ret void
}
"#;
        let got = ipdoms(ir).expect("every block reaches the end");
        let want = [
            ("entry", Some("head")),
            ("head", Some("join")),
            ("join", None),
            ("left", Some("join")),
            ("right", Some("join")),
        ];
        let want: Vec<_> = want
            .iter()
            .map(|(b, d)| (b.to_string(), d.map(str::to_string)))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn an_endless_loop_leaves_post_dominance_unknown() {
        let ir = r#"
define void @f(i1 %c) {
entry:
  br i1 %c, label %spin, label %done
spin:
  br label %spin
done:
  ret void
}
"#;
        assert_eq!(ipdoms(ir), None);
    }
}
