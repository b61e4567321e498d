//! The control-flow facts the uniformity analysis needs, on a plain graph (so that they can be
//! tested without rustc): post-dominators, with one virtual exit, and the region each branch
//! controls.
//!
//! The region of a branch `b` is every node reachable from `b`'s successors without passing
//! through `b`'s immediate post-dominator: the nodes that only some of the threads reaching `b`
//! may execute when `b`'s condition differs between them. It holds every node control-dependent
//! on `b`, transitively, and, when `b` exits a loop, the whole loop (a divergent trip count).
//! The immediate post-dominator is where the threads that took different sides meet again.

/// A node of the graph, or [`Cfg::exit`].
pub(crate) type Node = usize;

pub(crate) struct Cfg {
    /// Successors of each node, then of the virtual exit (none). A return, a dead end and the
    /// header of a loop that never exits get an edge to the exit.
    succs: Vec<Vec<Node>>,
    /// Whether each node can reach a return along real edges (not a loop's virtual exit).
    reaches_return: Vec<bool>,
    /// Immediate post-dominator of each node; `None` for nodes the entry does not reach (and
    /// for the exit).
    ipdom: Vec<Option<Node>>,
}

impl Cfg {
    /// The graph of `succs` (node 0 is the entry); `returns[n]` says that `n` leaves the function
    /// normally. Edges the caller does not want considered (into blocks that only panic) must
    /// already be left out.
    pub(crate) fn new(succs: Vec<Vec<Node>>, returns: &[bool]) -> Cfg {
        let n = succs.len();
        let exit = n;
        let mut succs: Vec<Vec<Node>> = succs
            .into_iter()
            .map(|mut s| {
                s.sort_unstable();
                s.dedup();
                s
            })
            .collect();
        succs.push(Vec::new());
        let reachable = forward_reachable(&succs, 0);
        let mut real = succs.clone();
        for node in 0..n {
            if reachable[node] && returns[node] {
                real[node].push(exit);
            }
        }
        let reaches_return = reaches_exit(&real, exit);
        for node in 0..n {
            if reachable[node] && (returns[node] || succs[node].is_empty()) {
                succs[node].push(exit);
            }
        }
        // A loop that never exits (`loop {}`) has no path to the exit: connect its first node (in
        // reverse post-order, the loop's entry) to the exit, as LLVM's post-dominator tree does,
        // until every node reaches the exit.
        let rpo = reverse_post_order(&succs, 0);
        loop {
            let reaches = reaches_exit(&succs, exit);
            let Some(&stuck) = rpo.iter().find(|&&v| v != exit && !reaches[v]) else {
                break;
            };
            succs[stuck].push(exit);
        }
        let ipdom = post_dominators(&succs, exit, &reachable);
        Cfg {
            succs,
            reaches_return,
            ipdom,
        }
    }

    /// Whether each node can reach a return (a node of an endless loop cannot; a dead end,
    /// which only panics, counts as leaving the kernel, not as returning). Excludes the exit.
    pub(crate) fn reaches_a_return(&self) -> &[bool] {
        &self.reaches_return[..self.exit()]
    }

    /// Whether `to` is reachable from a successor of `from` (`from` itself only around a loop).
    pub(crate) fn reaches_from_successors(&self, from: Node, to: Node) -> bool {
        let mut seen = vec![false; self.succs.len()];
        let mut stack = self.succs[from].clone();
        while let Some(v) = stack.pop() {
            if v == to {
                return true;
            }
            if !std::mem::replace(&mut seen[v], true) {
                stack.extend(self.succs[v].iter().copied());
            }
        }
        false
    }

    /// The virtual exit.
    pub(crate) fn exit(&self) -> Node {
        self.succs.len() - 1
    }

    /// Where the paths from `node` meet again (the exit when they only meet on leaving).
    pub(crate) fn ipdom(&self, node: Node) -> Option<Node> {
        self.ipdom[node]
    }

    /// The nodes only some of the threads at `branch` may reach when its condition differs
    /// between them (module docs). Excludes the exit.
    pub(crate) fn region(&self, branch: Node) -> Vec<bool> {
        let exit = self.exit();
        let mut inside = vec![false; exit];
        let Some(join) = self.ipdom[branch] else {
            return inside;
        };
        let mut stack: Vec<Node> = self.succs[branch].clone();
        while let Some(v) = stack.pop() {
            if v == join || v == exit || inside[v] {
                continue;
            }
            inside[v] = true;
            stack.extend(self.succs[v].iter().copied());
        }
        inside
    }
}

fn forward_reachable(succs: &[Vec<Node>], entry: Node) -> Vec<bool> {
    let mut seen = vec![false; succs.len()];
    let mut stack = vec![entry];
    while let Some(v) = stack.pop() {
        if !std::mem::replace(&mut seen[v], true) {
            stack.extend(succs[v].iter().copied());
        }
    }
    seen
}

fn reaches_exit(succs: &[Vec<Node>], exit: Node) -> Vec<bool> {
    let mut preds = vec![Vec::new(); succs.len()];
    for (v, s) in succs.iter().enumerate() {
        for &w in s {
            preds[w].push(v);
        }
    }
    forward_reachable(&preds, exit)
}

/// Reverse post-order of the nodes reachable from `root` along `edges`.
fn reverse_post_order(edges: &[Vec<Node>], root: Node) -> Vec<Node> {
    let mut order = Vec::new();
    let mut seen = vec![false; edges.len()];
    // (node, index of the next edge to follow)
    let mut stack = vec![(root, 0)];
    seen[root] = true;
    while let Some((v, i)) = stack.pop() {
        if let Some(&w) = edges[v].get(i) {
            stack.push((v, i + 1));
            if !seen[w] {
                seen[w] = true;
                stack.push((w, 0));
            }
        } else {
            order.push(v);
        }
    }
    order.reverse();
    order
}

/// Immediate post-dominators, by the iterative algorithm of Cooper, Harvey and Kennedy ("A
/// Simple, Fast Dominance Algorithm") on the reversed graph, rooted at the exit.
fn post_dominators(succs: &[Vec<Node>], exit: Node, reachable: &[bool]) -> Vec<Option<Node>> {
    let mut preds = vec![Vec::new(); succs.len()];
    for (v, s) in succs.iter().enumerate() {
        for &w in s {
            preds[w].push(v);
        }
    }
    // On the reversed graph a node's predecessors are its successors here.
    let order = reverse_post_order(&preds, exit);
    let mut number = vec![usize::MAX; succs.len()];
    for (i, &v) in order.iter().enumerate() {
        number[v] = order.len() - i; // post-order number: the exit is the largest
    }
    let mut idom: Vec<Option<Node>> = vec![None; succs.len()];
    idom[exit] = Some(exit);
    let intersect = |idom: &[Option<Node>], mut a: Node, mut b: Node| {
        while a != b {
            while number[a] < number[b] {
                a = idom[a].expect("processed");
            }
            while number[b] < number[a] {
                b = idom[b].expect("processed");
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &v in order.iter().skip(1) {
            let mut new = None;
            for &s in &succs[v] {
                if idom[s].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => s,
                    Some(current) => intersect(&idom, s, current),
                });
            }
            if new.is_some() && idom[v] != new {
                idom[v] = new;
                changed = true;
            }
        }
    }
    idom[exit] = None;
    for (v, d) in idom.iter_mut().enumerate() {
        if v != exit && !reachable[v] {
            *d = None;
        }
    }
    idom
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nodes(region: &[bool]) -> Vec<Node> {
        region
            .iter()
            .enumerate()
            .filter_map(|(v, &inside)| inside.then_some(v))
            .collect()
    }

    #[test]
    fn an_if_controls_its_arms_and_not_the_join() {
        // 0: if -> 1 | 2; 1 -> 3; 2 -> 3; 3: return
        let cfg = Cfg::new(
            vec![vec![1, 2], vec![3], vec![3], vec![]],
            &[false, false, false, true],
        );
        assert_eq!(cfg.ipdom(0), Some(3));
        assert_eq!(nodes(&cfg.region(0)), [1, 2]);
        // An if without else: the join is the else target itself.
        let cfg = Cfg::new(vec![vec![1, 2], vec![2], vec![]], &[false, false, true]);
        assert_eq!(cfg.ipdom(0), Some(2));
        assert_eq!(nodes(&cfg.region(0)), [1]);
    }

    #[test]
    fn an_early_return_controls_everything_after_it() {
        // 0: if -> 1 (return) | 2; 2: barrier -> 3; 3: return
        let cfg = Cfg::new(
            vec![vec![1, 2], vec![], vec![3], vec![]],
            &[false, true, false, true],
        );
        assert_eq!(cfg.ipdom(0), Some(cfg.exit()));
        assert_eq!(nodes(&cfg.region(0)), [1, 2, 3]);
    }

    #[test]
    fn a_loop_exit_controls_the_whole_loop_but_not_what_follows() {
        // 0 -> 1; 1: header, exits to 4 or enters 2; 2: if -> 3 | 3 ... ; 3: latch -> 1; 4: return
        let cfg = Cfg::new(
            vec![vec![1], vec![2, 4], vec![3], vec![1], vec![]],
            &[false, false, false, false, true],
        );
        assert_eq!(cfg.ipdom(1), Some(4));
        assert_eq!(nodes(&cfg.region(1)), [1, 2, 3]);
        // A barrier after the loop (node 4) is reached by every thread that reached the loop.
        assert!(!cfg.region(1)[4]);
    }

    #[test]
    fn a_branch_inside_a_loop_body_joins_before_the_latch() {
        // 0 -> 1; 1: header -> 2 | 6; 2: if -> 3 | 4; 3 -> 5; 4 -> 5; 5: barrier, latch -> 1; 6: ret
        let cfg = Cfg::new(
            vec![
                vec![1],
                vec![2, 6],
                vec![3, 4],
                vec![5],
                vec![5],
                vec![1],
                vec![],
            ],
            &[false, false, false, false, false, false, true],
        );
        assert_eq!(cfg.ipdom(2), Some(5));
        assert_eq!(nodes(&cfg.region(2)), [3, 4]);
    }

    #[test]
    fn a_break_controls_the_rest_of_the_loop() {
        // 0 -> 1; 1: header -> 2 | 4; 2: barrier -> 3; 3: if break -> 4 | 1; 4: return
        let cfg = Cfg::new(
            vec![vec![1], vec![2, 4], vec![3], vec![4, 1], vec![]],
            &[false, false, false, false, true],
        );
        assert_eq!(cfg.ipdom(3), Some(4));
        assert_eq!(nodes(&cfg.region(3)), [1, 2, 3]);
    }

    #[test]
    fn a_loop_without_exit_gets_one_through_its_entry() {
        // 0: if -> 1 | 3; 1 -> 2; 2 -> 1 (forever); 3: barrier -> 4; 4: return
        let cfg = Cfg::new(
            vec![vec![1, 3], vec![2], vec![1], vec![4], vec![]],
            &[false, false, false, false, true],
        );
        // Threads caught in the loop never reach the barrier.
        assert_eq!(cfg.ipdom(0), Some(cfg.exit()));
        assert!(cfg.region(0)[3]);
        assert_eq!(cfg.ipdom(2), Some(1));
        // A kernel that is one endless loop with a barrier in it and a branch that rejoins.
        // 0 -> 1; 1: barrier -> 2; 2: if -> 3 | 4; 3 -> 5; 4 -> 5; 5 -> 1
        let cfg = Cfg::new(
            vec![vec![1], vec![2], vec![3, 4], vec![5], vec![5], vec![1]],
            &[false; 6],
        );
        assert_eq!(nodes(&cfg.region(2)), [3, 4]);
    }

    #[test]
    fn unreachable_nodes_have_no_post_dominator() {
        let cfg = Cfg::new(vec![vec![2], vec![2], vec![]], &[false, false, true]);
        assert_eq!(cfg.ipdom(1), None);
        assert_eq!(cfg.ipdom(0), Some(2));
    }
}
