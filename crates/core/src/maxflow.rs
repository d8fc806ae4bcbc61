//! Maximum flow on a digraph with integer capacities (Dinic's algorithm), with set sources and sinks.
//!
//! The collective planners (ForestColl-style cut bound, edge splitting and
//! arborescence packing) ask many maximum-flow questions of one network whose
//! capacities change a little between questions. [`FlowNetwork`] keeps the
//! arcs and their capacities; [`FlowNetwork::max_flow`] answers one question
//! from a *set* of sources to a *set* of sinks (every source has unlimited
//! supply, every sink unlimited demand) and can stop once the flow reaches a
//! `limit` (the callers only ask "is the flow at least k?" or "what is the
//! smallest of these flows?"). Capacities are `i128`; [`INF`] stands for an
//! unbounded arc.
//!
//! Dinic's algorithm: O(V² E) per flow whatever the capacities, exact on
//! integers. After a flow that was not stopped by its limit,
//! [`FlowNetwork::source_side`] gives the nodes reachable from the sources in
//! the residual network: the source side of the minimum cut closest to the
//! sources.
//!
//! # Example
//!
//! ```
//! use collsched_core::maxflow::FlowNetwork;
//! let mut g = FlowNetwork::new(4); // s=0, a=1, b=2, t=3
//! g.add_arc(0, 1, 3).unwrap();
//! g.add_arc(0, 2, 2).unwrap();
//! let ab = g.add_arc(1, 2, 1).unwrap();
//! g.add_arc(1, 3, 2).unwrap();
//! g.add_arc(2, 3, 3).unwrap();
//! assert_eq!(g.max_flow(&[0], &[3], None).unwrap(), 5);
//! assert_eq!(g.source_side(), vec![true, false, false, false]); // both arcs out of s are full
//! g.set_capacity(ab, 0).unwrap();
//! assert_eq!(g.max_flow(&[0], &[3], None).unwrap(), 4);
//! assert_eq!(g.max_flow(&[0], &[3], Some(2)).unwrap(), 2); // stopped at the limit
//! assert_eq!(g.max_flow(&[0, 1], &[2, 3], None).unwrap(), 4); // set sources and sinks
//! ```

use std::fmt;

/// The capacity of an unbounded arc (large enough that sums of a few never overflow).
pub const INF: i128 = i128::MAX / 16;

/// What a flow question got wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FlowError {
    /// A node index is not below the number of nodes.
    BadNode(usize),
    /// An arc index is not below the number of arcs.
    BadArc(usize),
    /// A capacity is negative or above [`INF`].
    BadCapacity(i128),
    /// A node is both a source and a sink.
    Overlap(usize),
    /// No source or no sink was given.
    Empty,
}

impl fmt::Display for FlowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FlowError::BadNode(v) => write!(f, "node {v} is not a node of the flow network"),
            FlowError::BadArc(a) => write!(f, "arc {a} is not an arc of the flow network"),
            FlowError::BadCapacity(c) => write!(f, "capacity {c} is negative or above the unbounded value"),
            FlowError::Overlap(v) => write!(f, "node {v} is both a source and a sink"),
            FlowError::Empty => write!(f, "a flow needs at least one source and one sink"),
        }
    }
}

impl std::error::Error for FlowError {}

/// A digraph with integer arc capacities, for repeated maximum-flow questions.
#[derive(Debug, Clone, Default)]
pub struct FlowNetwork {
    n: usize,
    tail: Vec<usize>,
    head: Vec<usize>,
    cap: Vec<i128>,
    // residual arcs by origin (CSR), rebuilt when arcs were added: 2a is arc a, 2a+1 its reverse
    start: Vec<usize>,
    order: Vec<usize>,
    dirty: bool,
    side: Vec<bool>,
    res: Vec<i128>,
}

impl FlowNetwork {
    /// A network of `n` nodes (numbered `0..n`) and no arcs.
    pub fn new(n: usize) -> Self {
        FlowNetwork { n, dirty: true, side: vec![false; n], ..Default::default() }
    }

    /// Number of nodes.
    pub fn n_nodes(&self) -> usize {
        self.n
    }

    /// Number of arcs.
    pub fn n_arcs(&self) -> usize {
        self.cap.len()
    }

    /// Add a node; returns its index.
    pub fn add_node(&mut self) -> usize {
        self.n += 1;
        self.side.push(false);
        self.dirty = true;
        self.n - 1
    }

    /// Add an arc `u -> v` of capacity `cap` (0..=[`INF`]); returns its index. Parallel arcs are allowed.
    pub fn add_arc(&mut self, u: usize, v: usize, cap: i128) -> Result<usize, FlowError> {
        for x in [u, v] {
            if x >= self.n {
                return Err(FlowError::BadNode(x));
            }
        }
        check_cap(cap)?;
        self.tail.push(u);
        self.head.push(v);
        self.cap.push(cap);
        self.dirty = true;
        Ok(self.cap.len() - 1)
    }

    /// Change the capacity of arc `arc`.
    pub fn set_capacity(&mut self, arc: usize, cap: i128) -> Result<(), FlowError> {
        check_cap(cap)?;
        *self.cap.get_mut(arc).ok_or(FlowError::BadArc(arc))? = cap;
        Ok(())
    }

    /// The capacity of arc `arc`.
    pub fn capacity(&self, arc: usize) -> Result<i128, FlowError> {
        self.cap.get(arc).copied().ok_or(FlowError::BadArc(arc))
    }

    /// The flow on every arc (by arc index) after the last [`max_flow`](Self::max_flow).
    pub fn arc_flows(&self) -> Vec<i128> {
        (0..self.cap.len()).map(|a| self.res.get(2 * a + 1).copied().unwrap_or(0)).collect()
    }

    /// The nodes reachable from the sources in the residual network of the last flow (by node index).
    ///
    /// When that flow was not stopped by its limit, this is the source side of a minimum cut.
    pub fn source_side(&self) -> Vec<bool> {
        self.side.clone()
    }

    fn build(&mut self) {
        if !self.dirty {
            return;
        }
        let mut count = vec![0usize; self.n + 1];
        for a in 0..self.cap.len() {
            count[self.tail[a] + 1] += 1;
            count[self.head[a] + 1] += 1;
        }
        for v in 0..self.n {
            count[v + 1] += count[v];
        }
        let mut pos = count.clone();
        let mut order = vec![0usize; 2 * self.cap.len()];
        for a in 0..self.cap.len() {
            order[pos[self.tail[a]]] = 2 * a;
            pos[self.tail[a]] += 1;
            order[pos[self.head[a]]] = 2 * a + 1;
            pos[self.head[a]] += 1;
        }
        self.start = count;
        self.order = order;
        self.dirty = false;
    }

    /// The maximum flow from the node set `sources` to the node set `sinks`, or `limit` if it is reached first.
    ///
    /// Every source has unlimited supply and every sink unlimited demand (as
    /// if a super source fed the sources and the sinks fed a super sink by
    /// unbounded arcs). With `limit = Some(k)` the search stops as soon as
    /// the flow reaches `k` and returns `k` (then [`source_side`](Self::source_side)
    /// is not a minimum cut).
    ///
    /// # Errors
    /// [`FlowError`] for an unknown node, an empty side or a node on both sides.
    pub fn max_flow(&mut self, sources: &[usize], sinks: &[usize], limit: Option<i128>) -> Result<i128, FlowError> {
        if sources.is_empty() || sinks.is_empty() {
            return Err(FlowError::Empty);
        }
        let mut is_src = vec![false; self.n];
        let mut is_sink = vec![false; self.n];
        for &s in sources {
            *is_src.get_mut(s).ok_or(FlowError::BadNode(s))? = true;
        }
        for &t in sinks {
            if t >= self.n {
                return Err(FlowError::BadNode(t));
            }
            if is_src[t] {
                return Err(FlowError::Overlap(t));
            }
            is_sink[t] = true;
        }
        self.build();
        let limit = limit.unwrap_or(INF).max(0);
        let m2 = 2 * self.cap.len();
        let mut res = vec![0i128; m2];
        for (a, &c) in self.cap.iter().enumerate() {
            res[2 * a] = c;
        }
        let net = Residual { start: &self.start, order: &self.order, tail: &self.tail, head: &self.head };
        let mut level = vec![usize::MAX; self.n];
        let mut it = vec![0usize; self.n];
        let mut queue = Vec::with_capacity(self.n);
        let mut flow: i128 = 0;
        while flow < limit {
            // phase: BFS levels from all sources at once
            level.iter_mut().for_each(|l| *l = usize::MAX);
            queue.clear();
            for &s in sources {
                if level[s] == usize::MAX {
                    level[s] = 0;
                    queue.push(s);
                }
            }
            // stop expanding at the level of the first sink: longer paths wait for a later phase
            let mut sink_level = usize::MAX;
            let mut q = 0;
            while q < queue.len() {
                let v = queue[q];
                q += 1;
                if level[v] >= sink_level {
                    break;
                }
                if is_sink[v] {
                    sink_level = level[v];
                    continue;
                }
                for &e in &net.order[net.start[v]..net.start[v + 1]] {
                    let w = net.to(e);
                    if res[e] > 0 && level[w] == usize::MAX {
                        level[w] = level[v] + 1;
                        queue.push(w);
                    }
                }
            }
            if sink_level == usize::MAX {
                break;
            }
            // blocking flow by depth-first augmentation along the levels
            it.copy_from_slice(&self.start[..self.n]);
            for &s in sources {
                loop {
                    let pushed = augment(&net, s, limit - flow, &mut res, &level, &mut it, &is_sink);
                    if pushed == 0 {
                        break;
                    }
                    flow += pushed;
                    if flow >= limit {
                        break;
                    }
                }
                if flow >= limit {
                    break;
                }
            }
        }
        // residual reach of the sources
        self.side.iter_mut().for_each(|x| *x = false);
        queue.clear();
        for &s in sources {
            if !self.side[s] {
                self.side[s] = true;
                queue.push(s);
            }
        }
        let mut q = 0;
        while q < queue.len() {
            let v = queue[q];
            q += 1;
            for &e in &net.order[net.start[v]..net.start[v + 1]] {
                let w = net.to(e);
                if res[e] > 0 && !self.side[w] {
                    self.side[w] = true;
                    queue.push(w);
                }
            }
        }
        self.res = res;
        Ok(flow.min(limit))
    }

    /// The smallest of several maximum flows, and the index of the first query that attains it.
    ///
    /// Each query is `(sources, sinks)`. Each flow is computed only up to
    /// the smallest value found so far (and up to `limit`), so a question
    /// "is every flow at least k?" stops early. Returns `(value, index)`;
    /// when every flow reaches the limit the value is the limit and the
    /// index 0. After the call, [`source_side`](Self::source_side) is the
    /// cut of the last query computed, not necessarily of `index`: ask
    /// [`max_flow`](Self::max_flow) again for it.
    ///
    /// # Errors
    /// As [`max_flow`](Self::max_flow); an empty list of queries is [`FlowError::Empty`].
    pub fn min_max_flow(&mut self, queries: &[(Vec<usize>, Vec<usize>)], limit: Option<i128>) -> Result<(i128, usize), FlowError> {
        if queries.is_empty() {
            return Err(FlowError::Empty);
        }
        let mut best = limit.unwrap_or(INF);
        let mut index = 0;
        for (i, (src, dst)) in queries.iter().enumerate() {
            let f = self.max_flow(src, dst, Some(best))?;
            if f < best {
                best = f;
                index = i;
            }
            if best <= 0 {
                break;
            }
        }
        Ok((best, index))
    }
}

fn check_cap(cap: i128) -> Result<(), FlowError> {
    if (0..=INF).contains(&cap) {
        Ok(())
    } else {
        Err(FlowError::BadCapacity(cap))
    }
}

struct Residual<'a> {
    start: &'a [usize],
    order: &'a [usize],
    tail: &'a [usize],
    head: &'a [usize],
}

impl Residual<'_> {
    #[inline]
    fn to(&self, e: usize) -> usize {
        if e & 1 == 0 {
            self.head[e >> 1]
        } else {
            self.tail[e >> 1]
        }
    }
}

/// One augmenting path of the level graph from `v` (recursive; depth at most the number of levels).
fn augment(net: &Residual<'_>, v: usize, pushed: i128, res: &mut [i128], level: &[usize], it: &mut [usize], is_sink: &[bool]) -> i128 {
    if is_sink[v] {
        return pushed;
    }
    while it[v] < net.start[v + 1] {
        let e = net.order[it[v]];
        let w = net.to(e);
        if res[e] > 0 && level[w] == level[v].wrapping_add(1) {
            let d = augment(net, w, pushed.min(res[e]), res, level, it, is_sink);
            if d > 0 {
                res[e] -= d;
                res[e ^ 1] += d;
                return d;
            }
        }
        it[v] += 1;
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Slow reference: the smallest cut over every partition (few nodes only).
    fn brute_min_cut(n: usize, arcs: &[(usize, usize, i128)], src: &[usize], dst: &[usize]) -> i128 {
        let mut best = i128::MAX;
        for mask in 0u32..(1 << n) {
            let inside = |v: usize| mask >> v & 1 == 1;
            if src.iter().any(|&s| !inside(s)) || dst.iter().any(|&t| inside(t)) {
                continue;
            }
            let c: i128 = arcs.iter().filter(|(u, v, _)| inside(*u) && !inside(*v)).map(|a| a.2).sum();
            best = best.min(c);
        }
        best
    }

    #[test]
    fn matches_brute_force_on_small_random_graphs() {
        let mut seed: u64 = 12345;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..300 {
            let n = 2 + (next() % 6) as usize;
            let m = (next() % 14) as usize;
            let mut g = FlowNetwork::new(n);
            let mut arcs = vec![];
            for _ in 0..m {
                let (u, v) = ((next() % n as u64) as usize, (next() % n as u64) as usize);
                let c = (next() % 7) as i128;
                g.add_arc(u, v, c).unwrap();
                arcs.push((u, v, c));
            }
            let (s, t) = (0, n - 1);
            let want = brute_min_cut(n, &arcs, &[s], &[t]);
            assert_eq!(g.max_flow(&[s], &[t], None).unwrap(), want);
            let side = g.source_side();
            let cut: i128 = arcs.iter().filter(|(u, v, _)| side[*u] && !side[*v]).map(|a| a.2).sum();
            assert_eq!(cut, want, "the residual reach is a minimum cut");
            if want > 1 {
                assert_eq!(g.max_flow(&[s], &[t], Some(want - 1)).unwrap(), want - 1);
            }
        }
    }

    #[test]
    fn set_sources_and_sinks_and_the_smallest_of_several() {
        let mut g = FlowNetwork::new(5);
        for (u, v, c) in [(0, 1, 4), (0, 2, 1), (1, 3, 2), (2, 3, 5), (1, 4, 1), (2, 4, 1)] {
            g.add_arc(u, v, c).unwrap();
        }
        assert_eq!(g.max_flow(&[0], &[3, 4], None).unwrap(), 4);
        let f = g.arc_flows();
        assert_eq!(f[0] + f[1], 4);
        assert_eq!(f[2] + f[3] + f[4] + f[5], 4, "what leaves the source reaches the sinks");
        assert_eq!(g.max_flow(&[0, 2], &[3], None).unwrap(), 7);
        let queries = vec![(vec![0], vec![3]), (vec![0], vec![4]), (vec![0, 1], vec![4])];
        assert_eq!(g.min_max_flow(&queries, None).unwrap(), (2, 1));
        assert_eq!(g.min_max_flow(&queries, Some(1)).unwrap(), (1, 0));
    }

    #[test]
    fn large_capacities_and_unbounded_arcs() {
        let big: i128 = 1 << 100;
        let mut g = FlowNetwork::new(3);
        g.add_arc(0, 1, INF).unwrap();
        g.add_arc(1, 2, big).unwrap();
        g.add_arc(0, 2, big + 3).unwrap();
        assert_eq!(g.max_flow(&[0], &[2], None).unwrap(), 2 * big + 3);
    }

    #[test]
    fn errors() {
        let mut g = FlowNetwork::new(2);
        assert_eq!(g.add_arc(0, 2, 1), Err(FlowError::BadNode(2)));
        assert_eq!(g.add_arc(0, 1, -1), Err(FlowError::BadCapacity(-1)));
        assert_eq!(g.set_capacity(3, 1), Err(FlowError::BadArc(3)));
        assert_eq!(g.max_flow(&[0], &[0], None), Err(FlowError::Overlap(0)));
        assert_eq!(g.max_flow(&[], &[1], None), Err(FlowError::Empty));
        assert_eq!(g.max_flow(&[0], &[1], None), Ok(0));
        let v = g.add_node();
        g.add_arc(0, v, 2).unwrap();
        assert_eq!(g.max_flow(&[0], &[1, v], None), Ok(2));
        assert_eq!(g.n_nodes(), 3);
        assert_eq!(g.n_arcs(), 1);
    }
}
