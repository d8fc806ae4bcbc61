//! Spanning out-trees for every root, of total weight `rate` each, within arc capacities (Edmonds, made constructive).
//!
//! ForestColl's tree generator, after Lovász's proof of Edmonds' branching
//! theorem: partial trees (a root, a node set, a weight `C_T`) are grown one
//! arc at a time. Adding `a → b` (`a ∈ T`, `b ∉ T`) to `δ` of `T`'s weight
//! is admissible for the largest `δ = min(C_T, c(ab), f - Σ_{T' ≠ T} C_T')`,
//! `f` the maximum flow from `{a, hub}` to `b` in the remaining capacities,
//! where `hub` feeds every other unfinished tree (a root not started yet by
//! an arc of capacity `rate`; a pending partial tree `T'` by an arc of
//! capacity `C_T'` to a node with unbounded arcs to each node of `T'`). When
//! `δ < C_T`, `T`'s remainder waits on a stack as a partial tree of its own.
//!
//! [`pack_spanning_trees`] returns exactly what `collsched`'s Python
//! reference (`tests/algorithms/test_trees.py::_reference`) returns: the same
//! arcs tried in the same order (thin arcs first, ties in input order), each
//! answered by the same `δ`. Two things make it fast, neither changes an
//! answer:
//!
//! * the flow network holds only the live partial trees (the reference keeps
//!   every finished tree's hub node, with zero capacity, in its network);
//! * every failed try (`f ≤ Σ_{T' ≠ T} C_T'`) leaves a minimum cut; a later
//!   try `a' → b'` with `a'` on the cut's source side and `b'` on its sink
//!   side fails too when that cut, re-valued in the current capacities, is
//!   still at most `Σ_{T' ≠ T} C_T'` (a cut bounds every flow across it).
//!   Cuts are re-valued exactly, on integers, so this test never fails an
//!   arc that a flow would admit.
//!
//! # Example
//!
//! ```
//! use collsched_core::arborescence::pack_spanning_trees;
//! // a one-way ring of capacity 2: each root's one tree is the path around it
//! let trees = pack_spanning_trees(3, &[((0, 1), 2), ((1, 2), 2), ((2, 0), 2)], 1).unwrap();
//! assert_eq!(trees[0].root, 0);
//! assert_eq!(trees[0].weight, 1);
//! assert_eq!(trees[0].arcs, vec![(0, 1), (1, 2)]);
//! assert_eq!(trees.len(), 3);
//! ```
//!
//! References: J. Edmonds, Edge-disjoint branchings, 1973; L. Lovász, On two
//! minimax theorems in graph, J. Combin. Theory B 21, 1976; L. Zhao et al.,
//! ForestColl, arXiv:2402.06787, 2024.

use std::fmt;

use crate::maxflow::{FlowError, FlowNetwork, INF};

/// One spanning out-tree: its root, its weight and its arcs `(parent, child)` in breadth-first order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tree {
    /// The root (a node index).
    pub root: usize,
    /// The weight, in the capacities' units.
    pub weight: i128,
    /// `(parent, child)` arcs, breadth first from the root (children in the order they were added).
    pub arcs: Vec<(usize, usize)>,
}

/// Why no packing was returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PackError {
    /// A node index, arc or capacity the flow network refuses.
    Flow(FlowError),
    /// The same arc given twice.
    Duplicate(usize, usize),
    /// No tree of `root` can grow past `grown` of `n` nodes: Edmonds' cut condition fails.
    Stuck { root: usize, grown: usize, n: usize, rate: i128 },
}

impl fmt::Display for PackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PackError::Flow(e) => e.fmt(f),
            PackError::Duplicate(u, v) => write!(f, "arc ({u}, {v}) is given twice"),
            PackError::Stuck { root, grown, n, rate } => write!(
                f,
                "no spanning tree for root {root} can grow past {grown} of {n} nodes: some cut is below {n}·{rate} \
                 (Edmonds' condition fails)"
            ),
        }
    }
}

impl std::error::Error for PackError {}

impl From<FlowError> for PackError {
    fn from(e: FlowError) -> Self {
        PackError::Flow(e)
    }
}

/// A partial tree: waiting on the stack (`hub` weight `weight` feeds its nodes) or being grown.
struct Partial {
    weight: i128,
    nodes: Vec<usize>,
    arcs: Vec<(usize, usize)>,
}

/// A minimum cut left by a failed try: its source side over the participants, and its value when last computed.
struct Cut {
    source: Vec<bool>,
    version: u64,
    value: i128,
}

/// At most this many cuts are kept (the most recent first); older ones are dropped.
const KEPT_CUTS: usize = 32;

/// The state the flows are asked of: remaining capacities, unfinished trees.
struct State {
    n: usize,
    tails: Vec<usize>,
    heads: Vec<usize>,
    cap: Vec<i128>,
    rate: i128,
    root: usize,
    net: Option<FlowNetwork>,
    version: u64,
    cuts: Vec<Cut>,
}

impl State {
    /// The flow network of the current state: participants, the hub, one node per pending partial tree.
    fn network(&mut self, pending: &[Partial]) -> Result<&mut FlowNetwork, FlowError> {
        if self.net.is_none() {
            let hub = self.n;
            let mut net = FlowNetwork::new(self.n + 1);
            for i in 0..self.cap.len() {
                net.add_arc(self.tails[i], self.heads[i], self.cap[i])?; // arc i is input arc i
            }
            for r in self.root + 1..self.n {
                net.add_arc(hub, r, self.rate)?;
            }
            for p in pending {
                let h = net.add_node();
                net.add_arc(hub, h, p.weight)?;
                for &z in &p.nodes {
                    net.add_arc(h, z, INF)?;
                }
            }
            self.net = Some(net);
        }
        Ok(self.net.as_mut().expect("built above"))
    }

    /// The capacity of the cut whose source side over the participants is `source`, the hub's side chosen best.
    fn cut_value(&self, source: &[bool], pending: &[Partial]) -> i128 {
        let mut value: i128 = 0;
        for i in 0..self.cap.len() {
            if source[self.tails[i]] && !source[self.heads[i]] {
                value += self.cap[i];
            }
        }
        for r in self.root + 1..self.n {
            if !source[r] {
                value += self.rate;
            }
        }
        for p in pending {
            // its node on the source side costs nothing if all its nodes are there (else unbounded), on the
            // sink side its hub arc
            if !p.nodes.iter().all(|&z| source[z]) {
                value += p.weight;
            }
        }
        value
    }

    /// `min(f, others + most) - others` for the flow `f` from `{a, hub}` to `b`: the weight the arc admits.
    fn admits(&mut self, a: usize, b: usize, others: i128, most: i128, pending: &[Partial]) -> Result<i128, FlowError> {
        for k in 0..self.cuts.len() {
            if !self.cuts[k].source[a] || self.cuts[k].source[b] {
                continue;
            }
            if self.cuts[k].version != self.version {
                let value = self.cut_value(&self.cuts[k].source, pending);
                self.cuts[k].value = value;
                self.cuts[k].version = self.version;
            }
            if self.cuts[k].value <= others {
                let cut = self.cuts.remove(k); // most recent first: the cut that answered moves to the front
                self.cuts.insert(0, cut);
                return Ok(0);
            }
        }
        let n = self.n;
        let limit = others + most;
        let net = self.network(pending)?;
        let f = net.max_flow(&[a, n], &[b], Some(limit))?;
        if f < limit {
            // not stopped by the limit: the residual reach is a minimum cut, of value f
            let side = net.source_side();
            let cut = Cut { source: side[..n].to_vec(), version: self.version, value: f };
            debug_assert_eq!(self.cut_value(&cut.source, pending), f);
            if f <= others {
                self.cuts.insert(0, cut);
                self.cuts.truncate(KEPT_CUTS);
            }
        }
        Ok(f - others)
    }
}

/// Spanning out-trees on nodes `0..n`, of total weight `rate` for every root, within `capacity`.
///
/// `capacity` lists arcs `((u, v), c)`; arcs with `c ≤ 0` and loops are
/// ignored. Every node is a root; each root's trees have integer weights
/// `> 0` summing to `rate`, and no arc carries more than its capacity. The
/// trees come root by root; within a root, in the order they were completed.
///
/// # Errors
/// [`PackError::Stuck`] when some tree cannot grow: then every `v` does not
/// have `λ(s, v) ≥ n·rate` from a super source `s` sending `rate` to each node
/// (Edmonds' condition), and no packing exists. [`PackError::Flow`] for a node
/// `≥ n` or a capacity above [`INF`], or a negative `rate`;
/// [`PackError::Duplicate`] for an arc given twice.
///
/// # Complexity
/// One maximum flow (Dinic's) per arc tried that no kept cut rules out; a
/// tree of `n` nodes takes `n - 1` successful tries, and each split adds a tree.
pub fn pack_spanning_trees(n: usize, capacity: &[((usize, usize), i128)], rate: i128) -> Result<Vec<Tree>, PackError> {
    let mut given = std::collections::HashSet::new();
    let (mut tails, mut heads, mut cap) = (vec![], vec![], vec![]);
    let mut out_of: Vec<Vec<usize>> = vec![vec![]; n]; // arc indices by tail, in input order
    for &((u, v), c) in capacity {
        if !given.insert((u, v)) {
            return Err(PackError::Duplicate(u, v));
        }
        if c <= 0 || u == v {
            continue;
        }
        for x in [u, v] {
            if x >= n {
                return Err(FlowError::BadNode(x).into());
            }
        }
        if c > INF {
            return Err(FlowError::BadCapacity(c).into());
        }
        out_of[u].push(cap.len());
        tails.push(u);
        heads.push(v);
        cap.push(c);
    }
    if !(0..=INF).contains(&rate) {
        return Err(FlowError::BadCapacity(rate).into());
    }
    let original = cap.clone();
    let mut st = State { n, tails, heads, cap, rate, root: 0, net: None, version: 0, cuts: vec![] };
    let total = (n as i128).checked_mul(rate).filter(|&x| x <= INF).ok_or(FlowError::BadCapacity(rate))?;
    let mut pending_sum: i128 = total; // weights of the trees not finished, the current one included
    let mut result = vec![];
    let mut inside = vec![false; n];
    for r in 0..n {
        st.root = r;
        st.net = None;
        st.version += 1;
        let mut stack = vec![Partial { weight: rate, nodes: vec![r], arcs: vec![] }];
        while let Some(mut t) = stack.pop() {
            st.net = None; // t's hub node leaves the network
            st.version += 1;
            inside.iter_mut().for_each(|x| *x = false);
            for &z in &t.nodes {
                inside[z] = true;
            }
            let mut scan = 0; // nodes before t.nodes[scan] had no admissible arc out (re-checked if stuck)
            while t.nodes.len() < n {
                let mut grown = None;
                'passes: for rescan in [false, true] {
                    let from = if rescan { 0 } else { scan };
                    for j in from..t.nodes.len() {
                        let a = t.nodes[j];
                        // thin arcs first: thick ones stay whole for later trees (a stable sort: ties in input order)
                        let mut arcs = out_of[a].clone();
                        arcs.sort_by_key(|&i| st.cap[i]);
                        for i in arcs {
                            let b = st.heads[i];
                            if inside[b] || st.cap[i] == 0 {
                                continue;
                            }
                            let most = t.weight.min(st.cap[i]);
                            let others = pending_sum - t.weight;
                            let d = st.admits(a, b, others, most, &stack)?;
                            if d > 0 {
                                grown = Some((i, d));
                                break 'passes;
                            }
                        }
                        if !rescan {
                            scan += 1;
                        }
                    }
                }
                let Some((i, d)) = grown else {
                    return Err(PackError::Stuck { root: r, grown: t.nodes.len(), n, rate });
                };
                if d < t.weight {
                    // the rest of t waits as a partial tree of its own
                    stack.push(Partial { weight: t.weight - d, nodes: t.nodes.clone(), arcs: t.arcs.clone() });
                    t.weight = d;
                    st.net = None;
                }
                st.cap[i] -= d;
                if let Some(net) = st.net.as_mut() {
                    net.set_capacity(i, st.cap[i])?;
                }
                st.version += 1;
                let (a, b) = (st.tails[i], st.heads[i]);
                t.nodes.push(b);
                t.arcs.push((a, b));
                inside[b] = true;
            }
            pending_sum -= t.weight;
            result.push(Tree { root: r, weight: t.weight, arcs: breadth_first(r, &t.arcs) });
        }
    }
    debug_assert_eq!(pending_sum, 0);
    debug_assert!(st.cap.iter().zip(&original).all(|(&c, &o)| (0..=o).contains(&c)));
    Ok(result)
}

/// The arcs of a tree breadth first from `root`, each node's children in the order their arcs were added.
fn breadth_first(root: usize, arcs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut out = Vec::with_capacity(arcs.len());
    let mut frontier = vec![root];
    while !frontier.is_empty() {
        let mut next = vec![];
        for &a in &frontier {
            for &(p, b) in arcs {
                if p == a {
                    out.push((p, b));
                    next.push(b);
                }
            }
        }
        frontier = next;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every root's weights sum to `rate`, every tree spans, and no arc carries more than its capacity.
    fn check(n: usize, capacity: &[((usize, usize), i128)], rate: i128, trees: &[Tree]) {
        let mut used = std::collections::HashMap::new();
        for r in 0..n {
            assert_eq!(trees.iter().filter(|t| t.root == r).map(|t| t.weight).sum::<i128>(), rate);
        }
        for t in trees {
            assert!(t.weight > 0);
            let mut seen = vec![false; n];
            seen[t.root] = true;
            for &(a, b) in &t.arcs {
                assert!(seen[a] && !seen[b], "breadth first from the root, each node once");
                seen[b] = true;
                *used.entry((a, b)).or_insert(0i128) += t.weight;
            }
            assert!(seen.iter().all(|&x| x));
        }
        for ((u, v), c) in capacity {
            assert!(used.get(&(*u, *v)).copied().unwrap_or(0) <= *c);
        }
    }

    #[test]
    fn a_complete_graph_gets_stars_and_paths() {
        let n = 4;
        let caps: Vec<_> = (0..n).flat_map(|u| (0..n).filter(move |&v| v != u).map(move |v| ((u, v), 2))).collect();
        let trees = pack_spanning_trees(n, &caps, 2).unwrap();
        check(n, &caps, 2, &trees);
        assert_eq!(trees[0], Tree { root: 0, weight: 2, arcs: vec![(0, 1), (0, 2), (0, 3)] });
    }

    #[test]
    fn random_graphs_pack_or_say_why_not() {
        let mut seed: u64 = 99;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let (mut packed, mut stuck) = (0, 0);
        for _ in 0..200 {
            let n = 2 + (next() % 6) as usize;
            let mut caps = vec![];
            for u in 0..n {
                for v in 0..n {
                    if u != v && next() % 3 > 0 {
                        caps.push(((u, v), (next() % 9) as i128));
                    }
                }
            }
            let rate = 1 + (next() % 3) as i128;
            match pack_spanning_trees(n, &caps, rate) {
                Ok(trees) => {
                    check(n, &caps, rate, &trees);
                    packed += 1;
                }
                Err(PackError::Stuck { .. }) => stuck += 1,
                Err(e) => panic!("{e}"),
            }
        }
        assert!(packed > 20 && stuck > 20, "{packed} packed, {stuck} stuck");
    }

    #[test]
    fn errors() {
        assert_eq!(pack_spanning_trees(2, &[((0, 2), 1)], 1), Err(PackError::Flow(FlowError::BadNode(2))));
        assert_eq!(pack_spanning_trees(2, &[((0, 1), 1), ((0, 1), 2)], 1), Err(PackError::Duplicate(0, 1)));
        assert_eq!(pack_spanning_trees(2, &[((0, 1), 1)], -1), Err(PackError::Flow(FlowError::BadCapacity(-1))));
        let e = pack_spanning_trees(2, &[((0, 1), 1)], 1).unwrap_err();
        assert_eq!(e.to_string(), "no spanning tree for root 1 can grow past 1 of 2 nodes: some cut is below 2·1 \
                                   (Edmonds' condition fails)");
    }
}
