//! Weighted edge colouring of a bipartite multigraph into matchings (seed 000, section 3.3).
//!
//! A period of a steady-state schedule is a bipartite graph: one side for the
//! senders, one for the receivers, and an edge per transfer weighted by its
//! duration. One-port lets a node send one message and receive one at a time,
//! so the transfers that run together form a matching. [`weighted_edge_coloring`]
//! splits the graph into weighted matchings whose durations sum to the largest
//! weighted degree `Δ` (optimal: no schedule of the period is shorter):
//!
//! 1. make the graph `Δ`-weight-regular by adding dummy edges between the
//!    nodes that fall short of `Δ` (north-west corner pairing of deficits);
//! 2. peel perfect matchings (one exists in a regular bipartite graph, König):
//!    each is used for the smallest weight it covers, which zeroes an edge;
//!    the matching is kept between rounds and only the nodes that lost their
//!    edge are augmented again (Kuhn's augmenting paths).
//!
//! Weights are integers (the caller scales its rationals by a common
//! denominator); sums are checked, never wrapped.
//!
//! ```
//! use collsched_core::coloring::weighted_edge_coloring;
//! // a -> b (2), a -> c (1), d -> b (1): Δ = 3
//! let m = weighted_edge_coloring(&[0, 0, 1], &[0, 1, 0], &[2, 1, 1], 2, 2).unwrap();
//! let total: u64 = m.iter().map(|(d, _)| *d).sum();
//! assert_eq!(total, 3);
//! // every edge is covered for exactly its weight
//! let mut cover = [0u64; 3];
//! for (d, edges) in &m { for &e in edges { cover[e] += d; } }
//! assert_eq!(cover, [2, 1, 1]);
//! ```

use std::fmt;

/// Why a colouring cannot be computed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColoringError {
    /// Arrays of different lengths, or an endpoint out of range.
    Shape(String),
    /// A weight sum does not fit in 64 bits.
    Overflow,
}

impl fmt::Display for ColoringError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ColoringError::Shape(s) => write!(f, "bad colouring input: {s}"),
            ColoringError::Overflow => write!(f, "weights overflow 64 bits"),
        }
    }
}

impl std::error::Error for ColoringError {}

/// Split a weighted bipartite multigraph into matchings `(duration, edge indices)`.
///
/// `src[e]` in `0..n_left`, `dst[e]` in `0..n_right`, `weight[e] >= 0`. Dummy
/// edges are left out of the result; matchings of dummy edges only are dropped,
/// so the durations sum to at most `Δ`, the largest weighted degree, and every
/// edge `e` appears in matchings whose durations sum to `weight[e]`.
///
/// ```
/// use collsched_core::coloring::weighted_edge_coloring;
/// assert!(weighted_edge_coloring(&[0], &[0], &[0], 1, 1).unwrap().is_empty());
/// assert!(weighted_edge_coloring(&[0], &[3], &[1], 1, 1).is_err());
/// ```
pub fn weighted_edge_coloring(
    src: &[usize],
    dst: &[usize],
    weight: &[u64],
    n_left: usize,
    n_right: usize,
) -> Result<Vec<(u64, Vec<usize>)>, ColoringError> {
    if src.len() != dst.len() || src.len() != weight.len() {
        return Err(ColoringError::Shape("src, dst and weight differ in length".into()));
    }
    if src.iter().any(|&u| u >= n_left) || dst.iter().any(|&v| v >= n_right) {
        return Err(ColoringError::Shape("an endpoint is out of range".into()));
    }
    let n = n_left.max(n_right);
    let real = src.len();
    let mut eu: Vec<usize> = Vec::with_capacity(real + 2 * n);
    let mut ev: Vec<usize> = Vec::with_capacity(real + 2 * n);
    let mut ew: Vec<u64> = Vec::with_capacity(real + 2 * n);
    let mut dl = vec![0u64; n];
    let mut dr = vec![0u64; n];
    for e in 0..real {
        if weight[e] == 0 {
            continue;
        }
        eu.push(src[e]);
        ev.push(dst[e]);
        ew.push(weight[e]);
        dl[src[e]] = dl[src[e]].checked_add(weight[e]).ok_or(ColoringError::Overflow)?;
        dr[dst[e]] = dr[dst[e]].checked_add(weight[e]).ok_or(ColoringError::Overflow)?;
    }
    let orig: Vec<usize> = (0..real).filter(|&e| weight[e] > 0).collect();
    let n_real = eu.len();
    if n_real == 0 {
        return Ok(Vec::new());
    }
    let delta = dl.iter().chain(dr.iter()).copied().max().unwrap_or(0);
    // north-west corner pairing of the deficits
    let (mut i, mut j) = (0usize, 0usize);
    let mut sl: Vec<u64> = dl.iter().map(|d| delta - d).collect();
    let mut sr: Vec<u64> = dr.iter().map(|d| delta - d).collect();
    while i < n && j < n {
        if sl[i] == 0 {
            i += 1;
            continue;
        }
        if sr[j] == 0 {
            j += 1;
            continue;
        }
        let x = sl[i].min(sr[j]);
        eu.push(i);
        ev.push(j);
        ew.push(x);
        sl[i] -= x;
        sr[j] -= x;
    }
    // adjacency of the left side
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); n];
    for e in 0..eu.len() {
        adj[eu[e]].push(e);
    }
    let mut match_l: Vec<Option<usize>> = vec![None; n]; // edge matched at each left node
    let mut match_r: Vec<Option<usize>> = vec![None; n];
    let mut out = Vec::new();
    loop {
        // augment every free left node (Kuhn)
        for u in 0..n {
            if match_l[u].is_none() {
                let mut seen = vec![false; n];
                if !augment(u, &adj, &eu, &ev, &ew, &mut match_l, &mut match_r, &mut seen) {
                    // no edge left at all: done (regularity makes this all-or-nothing)
                    if adj[u].iter().all(|&e| ew[e] == 0) {
                        return Ok(out);
                    }
                    return Err(ColoringError::Shape("no perfect matching (graph not regular)".into()));
                }
            }
        }
        let eps = match_l.iter().map(|m| ew[m.unwrap()]).min().unwrap_or(0);
        if eps == 0 {
            return Ok(out);
        }
        let mut edges = Vec::new();
        for slot in match_l.iter_mut() {
            let e = slot.expect("every left node is matched");
            if e < n_real {
                edges.push(orig[e]);
            }
            ew[e] -= eps;
            if ew[e] == 0 {
                *slot = None;
                match_r[ev[e]] = None;
            }
        }
        if !edges.is_empty() {
            edges.sort_unstable();
            out.push((eps, edges));
        }
        for a in adj.iter_mut() {
            a.retain(|&e| ew[e] > 0);
        }
        if adj.iter().all(|a| a.is_empty()) {
            return Ok(out);
        }
    }
}

/// Kuhn's augmenting path from free left node `u` over edges of positive weight.
#[allow(clippy::too_many_arguments)]
fn augment(
    u: usize,
    adj: &[Vec<usize>],
    eu: &[usize],
    ev: &[usize],
    ew: &[u64],
    match_l: &mut [Option<usize>],
    match_r: &mut [Option<usize>],
    seen: &mut [bool],
) -> bool {
    for &e in &adj[u] {
        if ew[e] == 0 {
            continue;
        }
        let v = ev[e];
        if seen[v] {
            continue;
        }
        seen[v] = true;
        let free = match match_r[v] {
            None => true,
            Some(f) => augment(eu[f], adj, eu, ev, ew, match_l, match_r, seen),
        };
        if free {
            match_l[u] = Some(e);
            match_r[v] = Some(e);
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(src: &[usize], dst: &[usize], w: &[u64], nl: usize, nr: usize) -> u64 {
        let m = weighted_edge_coloring(src, dst, w, nl, nr).unwrap();
        let mut cover = vec![0u64; w.len()];
        for (d, edges) in &m {
            let mut l = std::collections::HashSet::new();
            let mut r = std::collections::HashSet::new();
            for &e in edges {
                assert!(l.insert(src[e]) && r.insert(dst[e]), "not a matching");
                cover[e] += d;
            }
        }
        assert_eq!(cover, w);
        m.iter().map(|(d, _)| *d).sum()
    }

    #[test]
    fn durations_sum_to_max_degree() {
        assert_eq!(check(&[0, 0, 1, 2], &[0, 1, 1, 2], &[3, 4, 2, 7], 3, 3), 7);
        assert_eq!(check(&[0, 1, 2], &[0, 0, 0], &[1, 2, 3], 3, 1), 6);
    }

    #[test]
    fn parallel_edges_and_zero_weights() {
        assert_eq!(check(&[0, 0, 1], &[0, 0, 0], &[2, 3, 0], 2, 1), 5);
    }

    #[test]
    fn pseudo_random_graphs() {
        let mut x: u64 = 12345;
        for _ in 0..50 {
            let mut src = vec![];
            let mut dst = vec![];
            let mut w = vec![];
            for _ in 0..20 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                src.push((x >> 33) as usize % 6);
                dst.push((x >> 40) as usize % 5);
                w.push((x >> 50) % 17);
            }
            let mut dl = [0u64; 6];
            let mut dr = [0u64; 5];
            for e in 0..20 {
                dl[src[e]] += w[e];
                dr[dst[e]] += w[e];
            }
            let delta = dl.iter().chain(dr.iter()).copied().max().unwrap();
            assert!(check(&src, &dst, &w, 6, 5) <= delta);
        }
    }

    #[test]
    fn overflow_is_an_error() {
        assert_eq!(weighted_edge_coloring(&[0, 0], &[0, 1], &[u64::MAX, 1], 1, 2), Err(ColoringError::Overflow));
    }
}
