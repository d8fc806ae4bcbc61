//! Rounds of maximum-weight matchings of a personalized exchange (Bhat, Prasanna and
//! Raghavendra, HPDC 1998; seed 004, section 3.1): each round is a matching of largest
//! cardinality, heaviest among those, of the messages still to send; its messages are then
//! removed.
//!
//! Each round is a maximum-weight perfect assignment of a square, sparse graph that embeds
//! the exchange (the classic reduction of a largest matching to a perfect one): rows are the
//! S senders and a copy of each of the R receivers, columns the R receivers and a stand-in
//! for each of the S senders. Sender i reaches receiver j by a message still to send
//! (weight `big + cost`) and its own stand-in (weight 0); receiver copy j reaches receiver j
//! (weight 0) and the stand-in of every sender i with a message to j (weight 0). A matching
//! M of the messages extends to a perfect assignment of the same weight (unmatched senders
//! take their stand-ins, unmatched receivers their copies, the copies of matched receivers
//! the stand-ins of their senders, by M itself), and every perfect assignment restricts to
//! one. It is solved by shortest augmenting paths (the Jonker–Volgenant family, as Crouse
//! 2016 describes it and scipy's `linear_sum_assignment` implements it) over each row's list
//! of edges, with one difference: the dual potentials of one round start the next. A round
//! only removes edges (its messages), so the previous duals stay feasible, and being
//! square, every column ends matched, so no column's dual has to be zero. Most rows then
//! find a free column over a tight edge (reduced cost 0) in their first scan.
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

const NONE: usize = usize::MAX;

/// A sparse maximum-weight perfect assignment of an `n x n` graph given by per-row edge
/// lists `(column, weight)`, solved by shortest augmenting paths on the costs `-weight`,
/// with the duals kept between calls (valid while calls only remove edges).
struct Assignment {
    u: Vec<f64>,
    v: Vec<f64>,
    dist: Vec<f64>,
    path: Vec<usize>,
    ready: Vec<bool>,
    touched: Vec<usize>,
    open: Vec<usize>,
    cold: bool,
    calls: u64,
}

impl Assignment {
    fn new(n: usize) -> Self {
        Assignment {
            u: vec![0.0; n],
            v: vec![0.0; n],
            dist: vec![f64::INFINITY; n],
            path: vec![NONE; n],
            ready: vec![false; n],
            touched: Vec::new(),
            open: Vec::new(),
            cold: true,
            calls: 0,
        }
    }

    /// A place of its own for row `i` in this call: a hash of the row and the call (splitmix64).
    fn spread(&self, i: usize) -> usize {
        let mut z = (i as u64) ^ self.calls.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) as usize
    }

    /// The column of each row in a maximum-weight perfect assignment of `rows` (one must
    /// exist), `extra[i]` (if any) an edge of row `i` besides its list.
    ///
    /// Step 1: rows are added one at a time; step 2: Dijkstra from the new row over reduced
    /// costs `-w[i][j] - u[i] - v[j] >= 0` finds the cheapest path to a free column (it stops
    /// as soon as it reaches a free column no farther than the column last settled: no
    /// column reached is nearer); step 3: the duals of the settled rows and columns move by
    /// their distances; step 4: the path is flipped.
    fn solve(&mut self, rows: &[Vec<(usize, f64)>], extra: &[(usize, f64)]) -> Vec<usize> {
        let n = rows.len();
        let mut col4row = vec![NONE; n];
        let mut row4col = vec![NONE; n];
        let mut seen_rows: Vec<usize> = Vec::new();
        let mut seen_cols: Vec<usize> = Vec::new();
        for cur in 0..n {
            // step 2
            for &j in &self.touched {
                self.dist[j] = f64::INFINITY;
                self.ready[j] = false;
            }
            self.touched.clear();
            self.open.clear();
            seen_rows.clear();
            seen_cols.clear();
            if self.cold {
                // the first call: the row's dual as high as feasibility allows, so that every
                // reduced cost is >= 0 from the start (later calls inherit feasible duals)
                self.u[cur] =
                    rows[cur].iter().chain(extra.get(cur)).map(|&(j, w)| -w - self.v[j]).fold(f64::INFINITY, f64::min);
            }
            let (mut i, mut d) = (cur, 0.0);
            let (sink, min_val) = 'search: loop {
                seen_rows.push(i);
                let ui = self.u[i];
                // the first scan starts at a place of its own in the row (rows alike would
                // otherwise all walk past the columns the rows before them took)
                let list = &rows[i];
                let start = if i == cur && !list.is_empty() { self.spread(cur) % list.len() } else { 0 };
                for &(j, w) in list[start..].iter().chain(&list[..start]).chain(extra.get(i)) {
                    if self.ready[j] {
                        continue;
                    }
                    let r = d + (-w - ui - self.v[j]);
                    if r < self.dist[j] {
                        if self.dist[j] == f64::INFINITY {
                            self.touched.push(j);
                            self.open.push(j);
                        }
                        self.dist[j] = r;
                        self.path[j] = i;
                        if row4col[j] == NONE && r <= d {
                            break 'search (j, d); // r == d but for rounding
                        }
                    }
                }
                // the nearest column reached and not settled (ties go to a free column, as in
                // scipy): a scan of those reached, at most the columns
                let (mut lowest, mut at) = (f64::INFINITY, NONE);
                for (it, &j) in self.open.iter().enumerate() {
                    let dj = self.dist[j];
                    if dj < lowest || (dj == lowest && row4col[j] == NONE) {
                        lowest = dj;
                        at = it;
                    }
                }
                let j = self.open.swap_remove(at);
                self.ready[j] = true;
                seen_cols.push(j);
                d = self.dist[j];
                if row4col[j] == NONE {
                    break (j, d);
                }
                i = row4col[j];
            };
            // step 3
            self.u[cur] += min_val;
            for &r in &seen_rows[1..] {
                self.u[r] += min_val - self.dist[col4row[r]];
            }
            for &c in &seen_cols {
                self.v[c] -= min_val - self.dist[c];
            }
            // step 4
            let mut j = sink;
            loop {
                let r = self.path[j];
                row4col[j] = r;
                let previous = col4row[r];
                col4row[r] = j;
                if r == cur {
                    break;
                }
                j = previous;
            }
        }
        self.cold = false;
        self.calls += 1;
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
/// Notes: P rounds of 2P augmentations over the edge lists (O(E log E) each at worst,
/// E the messages left); with the duals carried over, most rows find a free column over a
/// tight edge in their first scan, so far below the O(P^4) of solving each round afresh.
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
    // step 1: the square graph of senders and receiver copies (rows) against receivers and
    // sender stand-ins (columns); the rows' lists hold the messages, `extra` the edges that
    // stay (sender to its stand-in, copy to its receiver); pos[k] = where message k sits in
    // its two rows' lists
    let n = s + r;
    let mut rows: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
    let mut pos_sender = vec![NONE; s * r];
    let mut pos_copy = vec![NONE; s * r];
    for i in 0..s {
        for j in 0..r {
            let k = i * r + j;
            if mask[k] {
                pos_sender[k] = rows[i].len();
                rows[i].push((j, big + cost[k]));
                pos_copy[k] = rows[s + j].len();
                rows[s + j].push((r + i, 0.0));
            }
        }
    }
    let extra: Vec<(usize, f64)> = (0..s).map(|i| (r + i, 0.0)).chain((0..r).map(|j| (j, 0.0))).collect();
    let mut remaining = mask.iter().filter(|&&x| x).count();
    let mut col_degree = vec![0usize; r];
    for k in (0..s * r).filter(|&k| mask[k]) {
        col_degree[k % r] += 1;
    }
    let (mut solver, mut square) = (Assignment::new(n), Assignment::new(s));
    let mut rounds = Vec::new();
    while remaining > 0 {
        // step 2: a maximum-weight perfect assignment; its sender-to-receiver pairs. When
        // what is left is a regular graph (as in an all-to-all), it has a perfect matching
        // (Koenig), so the senders' lists alone suffice, without the copies' half
        let d = rows[0].len();
        let regular = s == r && rows[..s].iter().all(|l| l.len() == d) && col_degree.iter().all(|&c| c == d);
        let col4row = if regular { square.solve(&rows[..s], &[]) } else { solver.solve(&rows, &extra) };
        let picks: Vec<(usize, usize)> = (0..s).filter(|&i| col4row[i] < r).map(|i| (i, col4row[i])).collect();
        if picks.is_empty() {
            return Err(Error::Stalled);
        }
        // step 3: remove the round's messages from both of their rows
        for &(i, j) in &picks {
            let k = i * r + j;
            col_degree[j] -= 1;
            let at = pos_sender[k];
            rows[i].swap_remove(at);
            if let Some(&(moved, _)) = rows[i].get(at) {
                pos_sender[i * r + moved] = at;
            }
            let at = pos_copy[k];
            rows[s + j].swap_remove(at);
            if let Some(&(moved, _)) = rows[s + j].get(at) {
                pos_copy[(moved - r) * r + j] = at;
            }
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
            let mut solver = Assignment::new(n);
            let mut w: Vec<f64> = (0..n * n).map(|_| next()).collect();
            for _ in 0..n - 1 {
                // the remaining edges form an regular graph: a perfect assignment exists
                let rows: Vec<Vec<(usize, f64)>> = (0..n)
                    .map(|i| (0..n).filter(|&j| w[i * n + j].is_finite()).map(|j| (j, w[i * n + j])).collect())
                    .collect();
                let cols = solver.solve(&rows, &[]);
                let got: f64 = (0..n).map(|i| w[i * n + cols[i]]).sum();
                assert!((got - brute(n, &w)).abs() < 1e-9, "n={n}: {got} vs {}", brute(n, &w));
                for i in 0..n {
                    w[i * n + cols[i]] = f64::NEG_INFINITY; // remove the edges: the duals stay feasible
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

    #[test]
    fn regular_rounds_are_best_perfect_matchings_of_what_is_left() {
        // an all-to-all stays regular round after round: the senders-only path
        let mut state = 99u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 33) % 1000) as f64 / 10.0
        };
        for n in 2..7 {
            let cost: Vec<f64> = (0..n * n).map(|_| next()).collect();
            let mask: Vec<bool> = (0..n * n).map(|k| k / n != k % n).collect();
            let rounds = matching_rounds(n, n, &cost, &mask).unwrap();
            let mut w: Vec<f64> = (0..n * n).map(|k| if mask[k] { cost[k] } else { f64::NEG_INFINITY }).collect();
            assert_eq!(rounds.len(), n - 1);
            for round in &rounds {
                assert_eq!(round.len(), n);
                let got: f64 = round.iter().map(|&(i, j)| w[i * n + j]).sum();
                assert!((got - brute(n, &w)).abs() < 1e-9, "n={n}: {got} vs {}", brute(n, &w));
                for &(i, j) in round {
                    w[i * n + j] = f64::NEG_INFINITY;
                }
            }
        }
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
            16.0, 16.0, 16.0, 16.0, 16.0, 16.0, 0.0, 21.0, 21.0, 21.0, 0.0, 21.0, t, t, t, t, t, t, 21.0, 21.0, 0.0,
            21.0, 21.0, 21.0, t, t, t,
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
