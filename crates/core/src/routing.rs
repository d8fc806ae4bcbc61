//! Shortest-path trees with collsched's deterministic tie-break.
//!
//! The graph is given in CSR form, each node's incident arcs in link
//! declaration order. Dijkstra's algorithm settles nodes by (cost, hops,
//! node index) and replaces a node's predecessor only on a strict
//! improvement of (cost, hops), where cost is the hop count or the latency
//! sum. Among equal routes, the one through earlier-declared nodes wins; the
//! result depends only on the graph.
//!
//! ```
//! use collsched_core::routing::{shortest_path_trees, Graph};
//! // a square 0-1-3, 0-2-3: both routes to 3 have two hops; node 1 is declared first
//! let g = Graph {
//!     ptr: &[0, 2, 4, 6, 8],
//!     node: &[1, 2, 0, 3, 0, 3, 1, 2],
//!     arc: &[0, 2, 1, 4, 3, 6, 5, 7],
//!     latency: &[1.0; 8],
//! };
//! let (parent, arc) = shortest_path_trees(&g, false, &[0]);
//! assert_eq!(parent, vec![-1, 0, 0, 1]);
//! assert_eq!(arc[3], 4); // the arc 1 -> 3
//! ```

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A directed graph: node `u`'s arcs are `ptr[u]..ptr[u+1]`, to `node[i]`, with an id `arc[i]` and a latency.
#[derive(Clone, Copy, Debug)]
pub struct Graph<'a> {
    pub ptr: &'a [i64],
    pub node: &'a [i64],
    pub arc: &'a [i64],
    pub latency: &'a [f64],
}

#[derive(PartialEq)]
struct Entry {
    cost: f64,
    hops: u32,
    node: u32,
}

impl Eq for Entry {}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        // a min-heap on (cost, hops, node)
        (other.cost.total_cmp(&self.cost))
            .then(other.hops.cmp(&self.hops))
            .then(other.node.cmp(&self.node))
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// One tree per source: `parent[k * n + v]` (−1: none) and the id of the arc into `v` (−1: none).
pub fn shortest_path_trees(g: &Graph, by_latency: bool, sources: &[i64]) -> (Vec<i64>, Vec<i64>) {
    let n = g.ptr.len() - 1;
    let mut parent = vec![-1i64; sources.len() * n];
    let mut arc_in = vec![-1i64; sources.len() * n];
    let mut best: Vec<(f64, u32)> = vec![(f64::INFINITY, u32::MAX); n];
    let mut done = vec![false; n];
    let mut heap = BinaryHeap::new();
    for (k, &src) in sources.iter().enumerate() {
        let (parent, arc_in) = (&mut parent[k * n..(k + 1) * n], &mut arc_in[k * n..(k + 1) * n]);
        best.iter_mut().for_each(|b| *b = (f64::INFINITY, u32::MAX));
        done.iter_mut().for_each(|d| *d = false);
        let src = src as usize;
        best[src] = (0.0, 0);
        heap.push(Entry { cost: 0.0, hops: 0, node: src as u32 });
        while let Some(Entry { cost, hops, node }) = heap.pop() {
            let u = node as usize;
            if done[u] {
                continue;
            }
            done[u] = true;
            for i in g.ptr[u] as usize..g.ptr[u + 1] as usize {
                let v = g.node[i] as usize;
                if done[v] {
                    continue;
                }
                let c = if by_latency { (cost + g.latency[i], hops + 1) } else { ((hops + 1) as f64, hops + 1) };
                let (bc, bh) = best[v];
                if c.0 < bc || (c.0 == bc && c.1 < bh) {
                    best[v] = c;
                    parent[v] = u as i64;
                    arc_in[v] = g.arc[i];
                    heap.push(Entry { cost: c.0, hops: c.1, node: v as u32 });
                }
            }
        }
    }
    (parent, arc_in)
}

/// The routes of every ordered pair of `nodes`, read off the sources' trees: CSR `(hop_ptr, arcs)` over
/// pairs `a * nodes.len() + b`, each route's arcs from `nodes[a]` to `nodes[b]`, or None if a pair has no
/// route.
///
/// `parent` and `arc_in` are the trees of `nodes` (row `a` is `nodes[a]`'s tree over `n_nodes` nodes), as
/// [`shortest_path_trees`] returns them; a pair `(a, a)` has no hop. No allocation per pair.
///
/// ```
/// use collsched_core::routing::{shortest_path_trees, tree_routes, Graph};
/// // a path 0 - 1 - 2 (arcs 2l forward, 2l + 1 backward); the routes between nodes 0 and 2
/// let g = Graph { ptr: &[0, 1, 3, 4], node: &[1, 0, 2, 1], arc: &[0, 1, 2, 3], latency: &[1.0; 4] };
/// let (parent, arc_in) = shortest_path_trees(&g, false, &[0, 2]);
/// let (ptr, arcs) = tree_routes(&parent, &arc_in, 3, &[0, 2]).unwrap();
/// assert_eq!(ptr, vec![0, 0, 2, 4, 4]);
/// assert_eq!(arcs, vec![0, 2, 3, 1]);
/// ```
pub fn tree_routes(parent: &[i64], arc_in: &[i64], n_nodes: usize, nodes: &[i64]) -> Option<(Vec<i64>, Vec<i64>)> {
    let h = nodes.len();
    if parent.len() != h * n_nodes || arc_in.len() != h * n_nodes || nodes.iter().any(|&v| v < 0 || v as usize >= n_nodes) {
        return None;
    }
    let mut ptr = Vec::with_capacity(h * h + 1);
    ptr.push(0i64);
    let mut arcs: Vec<i64> = Vec::new();
    for (a, &home) in nodes.iter().enumerate() {
        let (up, into) = (&parent[a * n_nodes..(a + 1) * n_nodes], &arc_in[a * n_nodes..(a + 1) * n_nodes]);
        for &dst in nodes {
            let (from, mut cur) = (arcs.len(), dst);
            while cur != home {
                let (arc, next) = (into[cur as usize], up[cur as usize]);
                // unreachable, or a walk longer than any tree path (a malformed tree)
                if arc < 0 || next < 0 || next as usize >= n_nodes || arcs.len() - from >= n_nodes {
                    return None;
                }
                arcs.push(arc);
                cur = next;
            }
            arcs[from..].reverse();
            ptr.push(arcs.len() as i64);
        }
    }
    Some((ptr, arcs))
}

/// The d-mod-k routes of every ordered pair of `h` hosts on a two-level fat tree: CSR `(hop_ptr, arcs)` over
/// pairs `a * h + b`, or None if the arrays do not fit together.
///
/// Host `a` reaches its leaf `leaf[a]` by arc `up[a]` and is reached from it by `down[a]`; a route between
/// two leaves goes through spine `spine[b]` of its destination `b`, by arcs `to_spine[leaf * n_spines +
/// spine]` and `from_spine[spine * n_leaves + leaf]` (`n_leaves` is `from_spine.len() / n_spines`). A pair
/// `(a, a)` has no hop, a pair on one leaf two (up, down), any other four. The same routes as
/// `collsched.platform.routing.DModK.route`; no allocation per pair.
///
/// ```
/// use collsched_core::routing::dmodk_routes;
/// // hosts 0, 1 on leaf 0 and host 2 on leaf 1, two spines; arcs numbered for the example
/// let (ptr, arcs) = dmodk_routes(&[10, 11, 12], &[20, 21, 22], &[0, 0, 1], &[0, 1, 0],
///                                &[30, 31, 32, 33], &[40, 41, 42, 43], 2).unwrap();
/// assert_eq!(ptr, vec![0, 0, 2, 6, 8, 8, 12, 16, 20, 20]);
/// assert_eq!(&arcs[..6], &[10, 21, 10, 30, 41, 22]); // (0, 1) on one leaf; (0, 2) through spine 0
/// assert_eq!(&arcs[16..20], &[12, 33, 42, 21]);      // (2, 1) through spine 1
/// ```
pub fn dmodk_routes(up: &[i64], down: &[i64], leaf: &[i64], spine: &[i64], to_spine: &[i64], from_spine: &[i64],
                    n_spines: usize) -> Option<(Vec<i64>, Vec<i64>)> {
    let h = up.len();
    if n_spines == 0 || down.len() != h || leaf.len() != h || spine.len() != h || to_spine.len() % n_spines != 0
        || to_spine.len() != from_spine.len() {
        return None;
    }
    let n_leaves = to_spine.len() / n_spines;
    if leaf.iter().any(|&l| l < 0 || l as usize >= n_leaves) || spine.iter().any(|&s| s < 0 || s as usize >= n_spines) {
        return None;
    }
    // exact sizes: two hops per pair on one leaf, four per pair across leaves
    let mut on_leaf = vec![0usize; n_leaves];
    leaf.iter().for_each(|&l| on_leaf[l as usize] += 1);
    let near: usize = on_leaf.iter().map(|&c| c * c.saturating_sub(1)).sum();
    let mut ptr = Vec::with_capacity(h * h + 1);
    let mut arcs = Vec::with_capacity(2 * near + 4 * (h * h.saturating_sub(1) - near));
    ptr.push(0i64);
    for a in 0..h {
        let la = leaf[a] as usize;
        for b in 0..h {
            if a != b {
                let lb = leaf[b] as usize;
                arcs.push(up[a]);
                if la != lb {
                    let s = spine[b] as usize;
                    arcs.push(to_spine[la * n_spines + s]);
                    arcs.push(from_spine[s * n_leaves + lb]);
                }
                arcs.push(down[b]);
            }
            ptr.push(arcs.len() as i64);
        }
    }
    Some((ptr, arcs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_metric_prefers_the_fast_detour() {
        // 0 -> 2 directly (latency 5) or via 1 (1 + 1)
        let g = Graph {
            ptr: &[0, 2, 4, 6],
            node: &[1, 2, 0, 2, 0, 1],
            arc: &[0, 1, 2, 3, 4, 5],
            latency: &[1.0, 5.0, 1.0, 1.0, 5.0, 1.0],
        };
        let (parent, _) = shortest_path_trees(&g, true, &[0]);
        assert_eq!(parent[2], 1);
        let (parent, _) = shortest_path_trees(&g, false, &[0]);
        assert_eq!(parent[2], 0);
    }

    #[test]
    fn unreachable_nodes_have_no_parent_and_trees_are_per_source() {
        let g = Graph { ptr: &[0, 1, 2, 2], node: &[1, 0], arc: &[7, 8], latency: &[0.0, 0.0] };
        let (parent, arc) = shortest_path_trees(&g, false, &[0, 1]);
        assert_eq!(parent, vec![-1, 0, -1, 1, -1, -1]);
        assert_eq!(arc, vec![-1, 7, -1, 8, -1, -1]);
    }

    #[test]
    fn tree_routes_walk_every_pair_and_fail_on_a_missing_one() {
        // a star: leaves 0, 1, 2 on hub 3, link l joins leaf l to the hub (arc 2l: leaf -> hub)
        let g = Graph {
            ptr: &[0, 1, 2, 3, 6],
            node: &[3, 3, 3, 0, 1, 2],
            arc: &[0, 2, 4, 1, 3, 5],
            latency: &[1.0; 6],
        };
        let leaves = [0, 1, 2];
        let (parent, arc_in) = shortest_path_trees(&g, false, &leaves);
        let (ptr, arcs) = tree_routes(&parent, &arc_in, 4, &leaves).unwrap();
        assert_eq!(ptr, vec![0, 0, 2, 4, 6, 6, 8, 10, 12, 12]);
        assert_eq!(arcs, vec![0, 3, 0, 5, 2, 1, 2, 5, 4, 1, 4, 3]);
        // node 1 cut off (no arc into it): no table
        let cut = Graph { ptr: &[0, 1, 1, 2, 4], node: &[3, 3, 0, 2], arc: &[0, 4, 1, 5], latency: &[1.0; 4] };
        let (parent, arc_in) = shortest_path_trees(&cut, false, &leaves);
        assert_eq!(tree_routes(&parent, &arc_in, 4, &leaves), None);
        assert_eq!(tree_routes(&parent, &arc_in, 4, &[0, 7]), None);
    }

    #[test]
    fn dmodk_routes_refuse_arrays_that_do_not_fit() {
        let ok = dmodk_routes(&[0, 1], &[2, 3], &[0, 1], &[0, 0], &[4, 5], &[6, 7], 1).unwrap();
        assert_eq!(ok, (vec![0, 0, 4, 8, 8], vec![0, 4, 7, 3, 1, 5, 6, 2]));
        assert_eq!(dmodk_routes(&[0, 1], &[2, 3], &[0, 2], &[0, 0], &[4, 5], &[6, 7], 1), None); // no leaf 2
        assert_eq!(dmodk_routes(&[0, 1], &[2, 3], &[0, 1], &[0, 1], &[4, 5], &[6, 7], 1), None); // no spine 1
        assert_eq!(dmodk_routes(&[0, 1], &[2], &[0, 1], &[0, 0], &[4, 5], &[6, 7], 1), None);
        assert_eq!(dmodk_routes(&[], &[], &[], &[], &[], &[], 0), None);
    }
}
