//! Rounds of maximum-weight matchings of a personalized exchange (Bhat, Prasanna and
//! Raghavendra, HPDC 1998; seed 004, section 3.1): each round is a matching of largest
//! cardinality, heaviest among those, of the messages still to send; its messages are then
//! removed.
//!
//! Each round solves a dense assignment problem by shortest augmenting paths (the
//! Jonker–Volgenant family, as Crouse 2016 describes it and scipy's `linear_sum_assignment`
//! implements it), with one difference: the dual potentials of one round start the next. A
//! round only lowers weights (a sent message's weight drops to zero), so the previous duals
//! stay feasible, and most rows then find a free column at once. That holds for square
//! exchanges only: there every column ends matched, so no column's dual needs to be zero.
//! In a rectangular one (more senders than receivers, say) a column left free must have a
//! zero dual for the assignment to be optimal, which old duals break; its rounds start cold.
//!
//! ```
//! use collsched_core::matching::matching_rounds;
//! // the example of collsched.algorithms.orderings.matching.matching_rounds
//! let cost = [0.0, 3.0, 1.0, 2.0, 0.0, 5.0, 4.0, 1.0, 0.0];
//! let mask = [false, true, true, true, false, true, true, true, false];
//! let rounds = matching_rounds(3, 3, &cost, &mask).unwrap();
//! assert_eq!(rounds, vec![vec![(0, 1), (1, 2), (2, 0)], vec![(0, 2), (1, 0), (2, 1)]]);
//! ```

/// Why the inputs were refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// An array does not have the length its shape asks for (what is wrong).
    Shape(String),
    /// A round sent no message although some were left: a bug of the solver, never an input's.
    Stalled,
    /// A weight is not finite (NaN or infinite), so no assignment is defined.
    NotFinite,
}

/// A dense maximum-weight assignment of every row of an `nr x nc` matrix (`nr <= nc`),
/// solved by shortest augmenting paths on the costs `-weight`, with duals kept between calls.
struct Assignment {
    nr: usize,
    nc: usize,
    u: Vec<f64>,
    v: Vec<f64>,
}

impl Assignment {
    fn new(nr: usize, nc: usize) -> Self {
        Assignment { nr, nc, u: vec![0.0; nr], v: vec![0.0; nc] }
    }

    /// The column of each row in a maximum-weight assignment of `weight` (row-major `nr x nc`).
    ///
    /// Step 1: rows are added one at a time; step 2: Dijkstra from the new row over reduced
    /// costs `-w[i][j] - u[i] - v[j] >= 0` finds the cheapest path to a free column (ties go
    /// to a free column, as in scipy); step 3: the duals of the visited rows and columns move
    /// by their distances; step 4: the path is flipped.
    fn solve(&mut self, weight: &[f64]) -> Vec<usize> {
        let (nr, nc) = (self.nr, self.nc);
        let mut col4row = vec![usize::MAX; nr];
        let mut row4col = vec![usize::MAX; nc];
        let mut path = vec![usize::MAX; nc];
        let mut dist = vec![f64::INFINITY; nc];
        let mut remaining: Vec<usize> = Vec::with_capacity(nc);
        let mut seen_rows: Vec<usize> = Vec::with_capacity(nr);
        let mut seen_cols: Vec<usize> = Vec::with_capacity(nc);
        for cur in 0..nr {
            // step 2
            remaining.clear();
            remaining.extend((0..nc).rev());
            dist.iter_mut().for_each(|d| *d = f64::INFINITY);
            seen_rows.clear();
            seen_cols.clear();
            let mut min_val = 0.0;
            let mut i = cur;
            let sink = loop {
                seen_rows.push(i);
                let (ui, row) = (self.u[i], &weight[i * nc..(i + 1) * nc]);
                let mut lowest = f64::INFINITY;
                let mut index = usize::MAX;
                for (it, &j) in remaining.iter().enumerate() {
                    let r = min_val + (-row[j]) - ui - self.v[j];
                    if r < dist[j] {
                        path[j] = i;
                        dist[j] = r;
                    }
                    if dist[j] < lowest || (dist[j] == lowest && row4col[j] == usize::MAX) {
                        lowest = dist[j];
                        index = it;
                    }
                }
                min_val = lowest;
                let j = remaining.swap_remove(index);
                seen_cols.push(j);
                if row4col[j] == usize::MAX {
                    break j;
                }
                i = row4col[j];
            };
            // step 3
            self.u[cur] += min_val;
            for &r in &seen_rows[1..] {
                self.u[r] += min_val - dist[col4row[r]];
            }
            for &c in &seen_cols {
                self.v[c] -= min_val - dist[c];
            }
            // step 4
            let mut j = sink;
            loop {
                let r = path[j];
                row4col[j] = r;
                let previous = col4row[r];
                col4row[r] = j;
                if r == cur {
                    break;
                }
                j = previous;
            }
        }
        col4row
    }
}

/// Rounds of maximum-weight matchings of an `s x r` exchange (row-major `cost` and `mask`).
///
/// Each round: the weight of a message still to send is `big + cost` (`big` = the sum of
/// `|cost|` plus one, so cardinality comes first), of anything else zero; the round is a
/// maximum-weight assignment, keeping the pairs that are messages, in sender order. Rounds
/// go on until every message of `mask` is sent.
///
/// Notes: P rounds of at most P augmentations, each O(P) per step of its path; with the
/// duals carried over, most paths have one step, so far below the O(P^4) of solving each
/// round afresh.
///
/// ```
/// use collsched_core::matching::{matching_rounds, Error};
/// // two senders, three receivers: every round a largest matching
/// let cost = [1.0, 2.0, 3.0, 3.0, 2.0, 1.0];
/// let rounds = matching_rounds(2, 3, &cost, &[true; 6]).unwrap();
/// assert_eq!(rounds[0], vec![(0, 2), (1, 0)]);
/// assert_eq!(rounds.iter().map(|r| r.len()).sum::<usize>(), 6);
/// assert!(matches!(matching_rounds(2, 2, &[1.0], &[true], ), Err(Error::Shape(_))));
/// ```
pub fn matching_rounds(s: usize, r: usize, cost: &[f64], mask: &[bool]) -> Result<Vec<Vec<(usize, usize)>>, Error> {
    if cost.len() != s * r || mask.len() != s * r {
        return Err(Error::Shape(format!(
            "cost has {} entries and mask {}, expected {} x {} = {}",
            cost.len(),
            mask.len(),
            s,
            r,
            s * r
        )));
    }
    if cost.iter().any(|c| !c.is_finite()) {
        return Err(Error::NotFinite);
    }
    let big = cost.iter().map(|c| c.abs()).sum::<f64>() + 1.0;
    let transposed = s > r;
    let (nr, nc) = if transposed { (r, s) } else { (s, r) };
    let at = |i: usize, j: usize| if transposed { j * r + i } else { i * r + j };
    let mut left: Vec<bool> = mask.to_vec();
    let mut remaining = left.iter().filter(|&&x| x).count();
    let mut weight = vec![0.0; nr * nc];
    let mut solver = Assignment::new(nr, nc);
    let mut rounds = Vec::new();
    while remaining > 0 {
        for i in 0..nr {
            for j in 0..nc {
                let k = at(i, j);
                weight[i * nc + j] = if left[k] { big + cost[k] } else { 0.0 };
            }
        }
        if nr != nc {
            solver = Assignment::new(nr, nc); // free columns need zero duals: start cold
        }
        let col4row = solver.solve(&weight);
        let mut picks: Vec<(usize, usize)> = (0..nr)
            .map(|i| if transposed { (col4row[i], i) } else { (i, col4row[i]) })
            .filter(|&(a, b)| left[a * r + b])
            .collect();
        picks.sort_unstable();
        for &(a, b) in &picks {
            left[a * r + b] = false;
        }
        if picks.is_empty() {
            return Err(Error::Stalled);
        }
        remaining -= picks.len();
        rounds.push(picks);
    }
    Ok(rounds)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The best assignment by brute force over permutations (small n).
    fn brute(n: usize, w: &[f64]) -> f64 {
        fn go(i: usize, n: usize, w: &[f64], used: &mut Vec<bool>) -> f64 {
            if i == n {
                return 0.0;
            }
            let mut best = f64::NEG_INFINITY;
            for j in 0..n {
                if !used[j] {
                    used[j] = true;
                    best = best.max(w[i * n + j] + go(i + 1, n, w, used));
                    used[j] = false;
                }
            }
            best
        }
        go(0, n, w, &mut vec![false; n])
    }

    #[test]
    fn each_round_is_a_best_assignment_with_warm_duals() {
        let mut state = 12345u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 33) % 1000) as f64 / 10.0
        };
        for n in 2..7 {
            let mut solver = Assignment::new(n, n);
            let mut w: Vec<f64> = (0..n * n).map(|_| next()).collect();
            for _ in 0..4 {
                let cols = solver.solve(&w);
                let got: f64 = (0..n).map(|i| w[i * n + cols[i]]).sum();
                assert!((got - brute(n, &w)).abs() < 1e-9, "n={n}: {got} vs {}", brute(n, &w));
                for i in 0..n {
                    w[i * n + cols[i]] = 0.0; // lower the weights: the duals stay feasible
                }
            }
        }
    }

    #[test]
    fn full_exchange_takes_n_minus_one_perfect_rounds() {
        let n = 6;
        let cost: Vec<f64> = (0..n * n).map(|k| if k / n == k % n { 0.0 } else { 1.0 + (k % 5) as f64 }).collect();
        let mask: Vec<bool> = (0..n * n).map(|k| k / n != k % n).collect();
        let rounds = matching_rounds(n, n, &cost, &mask).unwrap();
        assert_eq!(rounds.len(), n - 1);
        assert!(rounds.iter().all(|r| r.len() == n));
    }

    /// The size of a largest matching of the `s x r` bipartite graph `edge` (Kuhn's augmenting paths).
    fn largest(s: usize, r: usize, edge: &[bool]) -> usize {
        fn augment(i: usize, r: usize, edge: &[bool], seen: &mut [bool], owner: &mut [usize]) -> bool {
            for j in 0..r {
                if edge[i * r + j] && !seen[j] {
                    seen[j] = true;
                    if owner[j] == usize::MAX || augment(owner[j], r, edge, seen, owner) {
                        owner[j] = i;
                        return true;
                    }
                }
            }
            false
        }
        let mut owner = vec![usize::MAX; r];
        (0..s).filter(|&i| augment(i, r, edge, &mut vec![false; r], &mut owner)).count()
    }

    /// Every round is a largest matching of the messages left, and all are sent.
    fn check_rounds(s: usize, r: usize, cost: &[f64], mask: &[bool]) {
        let rounds = matching_rounds(s, r, cost, mask).unwrap();
        let mut left = mask.to_vec();
        for round in &rounds {
            assert_eq!(round.len(), largest(s, r, &left), "{s} x {r}: a round is not a largest matching");
            for &(a, b) in round {
                assert!(left[a * r + b]);
                left[a * r + b] = false;
            }
        }
        assert!(!left.iter().any(|&x| x));
    }

    #[test]
    fn rectangular_exchanges_take_largest_matchings_every_round() {
        // found by the orderings battery: 9 senders, 3 receivers, costs with rounding
        // (12.000000000000002); warm duals left free columns with non-zero duals and the
        // rounds stopped sending
        let t = 12.000000000000002;
        let cost = [
            16.0, 16.0, 16.0, 16.0, 16.0, 16.0, 0.0, 21.0, 21.0, 21.0, 0.0, 21.0, t, t, t, t, t, t, 21.0, 21.0,
            0.0, 21.0, 21.0, 21.0, t, t, t,
        ];
        let mask: Vec<bool> = cost.iter().map(|&c| c > 0.0).collect();
        check_rounds(9, 3, &cost, &mask);
        let mut state = 7u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            state >> 33
        };
        for (s, r) in [(2, 3), (3, 9), (7, 4), (5, 5), (1, 6)] {
            let cost: Vec<f64> = (0..s * r).map(|_| (next() % 50) as f64 / 4.0).collect();
            let mask: Vec<bool> = (0..s * r).map(|_| next() % 4 != 0).collect();
            check_rounds(s, r, &cost, &mask);
        }
    }

    #[test]
    fn refuses_bad_shapes_and_nan() {
        assert!(matches!(matching_rounds(2, 2, &[1.0; 3], &[true; 4]), Err(Error::Shape(_))));
        assert_eq!(matching_rounds(1, 2, &[1.0, f64::NAN], &[true; 2]), Err(Error::NotFinite));
    }
}
