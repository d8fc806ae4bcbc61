//! Liquid schedules (Gabrielyan and Hersch, seed 001): full teams by category
//! fission, and the search for a schedule of a given length over full teams of
//! the reduced traffic, with backtracking.
//!
//! A *traffic* is a set of transfers, each the set of resources (link
//! directions) of its static route. A schedule of length `L` partitions it
//! into `L` simultaneities (sets of transfers sharing no resource). With `r`
//! steps left, every resource of load `r` must be used by every remaining step
//! (its *bottlenecks*; a load above `r` is a dead end), so each step is a
//! *team* of the reduced traffic; it may be taken *full* (no remaining
//! transfer can be added). For `L = Λ` (the largest load) this is the paper's
//! liquid-schedule search; for `L > Λ` the same search decides whether a
//! schedule of length `L` exists, so the shortest schedule is the first `L`
//! that succeeds.
//!
//! Full teams are found as in Sections 2 and 3: fission of categories
//! (excluder, depot, includer) of the *skeleton* (the transfers using a
//! bottleneck) with blank and idle pruning, then expansion of each skeleton
//! team to the whole traffic. Sets of transfers are bitsets.
//!
//! Exact speed-ups beyond the paper: with `symmetry`, each step must contain
//! one fixed remaining transfer (steps are unordered); reduced traffics proved
//! dead are remembered; and the fission splits on a transfer of the
//! bottleneck with fewest candidates, the most *urgent* one (highest summed
//! load of its resources) first, which only orders the search. The Python
//! reference (`collsched.algorithms.liquid.search.search_python`) walks the
//! same tree, category for category.
//!
//! ```
//! use collsched_core::liquid::{search, Outcome};
//! // three transfers pairwise congesting on three links (the paper's Fig. 5 case)
//! let routes = vec![vec![0, 1], vec![1, 2], vec![2, 0]];
//! let (out, _) = search(&routes, 3, 2, 1_000, true);
//! assert_eq!(out, Outcome::Infeasible);
//! let (out, _) = search(&routes, 3, 3, 1_000, true);
//! assert!(matches!(out, Outcome::Found(ref steps) if steps.len() == 3));
//! ```

use rustc_hash::FxHashSet;

/// What a search ends with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A schedule of the length asked: transfer indices per step.
    Found(Vec<Vec<usize>>),
    /// Proved: no schedule of that length exists.
    Infeasible,
    /// The budget of categories ran out first.
    Limit,
}

type Bits = Vec<u64>;

#[inline]
fn words(n: usize) -> usize {
    n.div_ceil(64).max(1)
}

#[inline]
fn set(b: &mut [u64], i: usize) {
    b[i / 64] |= 1 << (i % 64);
}

#[inline]
fn is_empty(b: &[u64]) -> bool {
    b.iter().all(|&w| w == 0)
}

#[inline]
fn intersects(a: &[u64], b: &[u64]) -> bool {
    a.iter().zip(b).any(|(x, y)| x & y != 0)
}

/// `a &= !b`, word by word.
#[inline]
fn remove(a: &mut [u64], b: &[u64]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x &= !y;
    }
}

fn ones(b: &[u64]) -> impl Iterator<Item = usize> + '_ {
    b.iter().enumerate().flat_map(|(k, &w)| {
        let mut w = w;
        std::iter::from_fn(move || {
            if w == 0 {
                return None;
            }
            let t = w.trailing_zeros() as usize;
            w &= w - 1;
            Some(k * 64 + t)
        })
    })
}

/// A category of the fission: transfers' bitsets, and whether it is in the skeleton phase.
struct Category {
    excluder: Bits,
    depot: Bits,
    includer: Bits,
    skeleton: bool,
}

struct Searcher<'a> {
    routes: &'a [Vec<usize>],
    n_res: usize,
    /// Per transfer, the transfers congesting with it (itself included).
    conflicts: Vec<Bits>,
    /// Per resource, the transfers using it.
    users: Vec<Bits>,
    budget: u64,
    nodes: u64,
    symmetry: bool,
    dead: FxHashSet<(Bits, usize)>,
    chosen: Vec<Bits>,
}

enum Stop {
    Limit,
}

impl<'a> Searcher<'a> {
    fn new(routes: &'a [Vec<usize>], n_res: usize, budget: u64, symmetry: bool) -> Self {
        let n = routes.len();
        let w = words(n);
        let mut users = vec![vec![0u64; w]; n_res];
        for (i, route) in routes.iter().enumerate() {
            for &r in route {
                set(&mut users[r], i);
            }
        }
        let conflicts = routes
            .iter()
            .enumerate()
            .map(|(i, route)| {
                let mut c = vec![0u64; w];
                set(&mut c, i);
                for &r in route {
                    for (x, y) in c.iter_mut().zip(&users[r]) {
                        *x |= y;
                    }
                }
                c
            })
            .collect();
        Searcher { routes, n_res, conflicts, users, budget, nodes: 0, symmetry, dead: FxHashSet::default(), chosen: vec![] }
    }

    /// Is there a schedule of `traffic` in exactly `r` steps? (Steps pushed on `chosen`.)
    fn rec(&mut self, traffic: &Bits, r: usize) -> Result<bool, Stop> {
        if is_empty(traffic) {
            return Ok(true);
        }
        if r == 0 || self.dead.contains(&(traffic.clone(), r)) {
            return Ok(false);
        }
        // loads of the reduced traffic; bottlenecks = resources of load r
        let mut loads = vec![0usize; self.n_res];
        for i in ones(traffic) {
            for &res in &self.routes[i] {
                loads[res] += 1;
            }
        }
        if loads.iter().any(|&l| l > r) {
            self.dead.insert((traffic.clone(), r));
            return Ok(false);
        }
        let need: Vec<usize> = (0..self.n_res).filter(|&res| loads[res] == r).collect();
        // urgency of each transfer: the summed load of its resources (the most loaded first)
        let mut score = vec![0usize; self.routes.len()];
        for i in ones(traffic) {
            score[i] = self.routes[i].iter().map(|&res| loads[res]).sum();
        }
        let most_urgent = |set: &[u64]| ones(set).max_by_key(|&i| (score[i], std::cmp::Reverse(i)));
        let w = traffic.len();
        // skeleton ζ: transfers of the traffic using a bottleneck
        let mut skel = vec![0u64; w];
        for &res in &need {
            for k in 0..w {
                skel[k] |= self.users[res][k] & traffic[k];
            }
        }
        let pick = if self.symmetry { most_urgent(if need.is_empty() { traffic } else { &skel }) } else { None };
        // step 1: fission of the skeleton's prim-category (or of the one that holds `pick`)
        let mut start = Category { excluder: vec![0; w], depot: skel.clone(), includer: vec![0; w], skeleton: true };
        if let (Some(x), false) = (pick, need.is_empty()) {
            set(&mut start.includer, x);
            remove(&mut start.depot, &self.conflicts[x]);
        }
        let mut stack = vec![start];
        while let Some(cat) = stack.pop() {
            self.nodes += 1;
            if self.nodes > self.budget {
                return Err(Stop::Limit);
            }
            // blank: an excluder transfer with no congesting transfer left in the depot
            if ones(&cat.excluder).any(|x| !intersects(&self.conflicts[x], &cat.depot)) {
                continue;
            }
            // idle (skeleton phase): a bottleneck unused by the includer and with no depot transfer
            let mut split = None;
            if cat.skeleton && !need.is_empty() {
                let mut best: Option<(u32, usize)> = None;
                let mut idle = false;
                for &res in &need {
                    if intersects(&self.users[res], &cat.includer) {
                        continue;
                    }
                    let count: u32 = self.users[res].iter().zip(&cat.depot).map(|(a, b)| (a & b).count_ones()).sum();
                    if count == 0 {
                        idle = true;
                        break;
                    }
                    if best.is_none_or(|(c, _)| count < c) {
                        best = Some((count, res));
                    }
                }
                if idle {
                    continue;
                }
                if let Some((_, res)) = best {
                    let both: Bits = self.users[res].iter().zip(&cat.depot).map(|(a, b)| a & b).collect();
                    split = most_urgent(&both);
                }
            }
            let split = split.or_else(|| most_urgent(&cat.depot));
            let Some(x) = split else {
                // singular: the includer is a full simultaneity (of the skeleton, or of the traffic)
                if cat.skeleton {
                    // step 2: a category of the traffic with the skeleton's team as includer
                    let mut team = cat.includer;
                    let mut depot: Bits = (0..w).map(|k| traffic[k] & !skel[k]).collect();
                    for t in ones(&team) {
                        remove(&mut depot, &self.conflicts[t]);
                    }
                    if let (Some(p), true) = (pick, need.is_empty()) {
                        set(&mut team, p);
                        remove(&mut depot, &self.conflicts[p]);
                    }
                    // step 3: its fission, without the idle check
                    stack.push(Category { excluder: vec![0; w], depot, includer: team, skeleton: false });
                } else {
                    // a full team of the reduced traffic: take it as the next step
                    let rest: Bits = (0..w).map(|k| traffic[k] & !cat.includer[k]).collect();
                    self.chosen.push(cat.includer);
                    if self.rec(&rest, r - 1)? {
                        return Ok(true);
                    }
                    self.chosen.pop();
                }
                continue;
            };
            // fission on x: R-x below, R+x on top (explored first)
            let mut neg = Category { excluder: cat.excluder.clone(), depot: cat.depot.clone(), includer: cat.includer.clone(), skeleton: cat.skeleton };
            set(&mut neg.excluder, x);
            neg.depot[x / 64] &= !(1u64 << (x % 64));
            let c = &self.conflicts[x];
            let mut pos = cat;
            remove(&mut pos.excluder, c);
            remove(&mut pos.depot, c);
            set(&mut pos.includer, x);
            stack.push(neg);
            stack.push(pos);
        }
        self.dead.insert((traffic.clone(), r));
        Ok(false)
    }
}

/// Search a schedule of exactly `length` steps for the traffic whose transfer
/// `i` holds the resources `routes[i]` (each `< n_res`).
///
/// Returns the outcome and the number of categories visited. `budget` caps
/// that number ([`Outcome::Limit`] past it); `symmetry` fixes one transfer
/// per step (exact). With `length` equal to the largest load this is the
/// liquid-schedule search.
///
/// # Panics
/// If a route names a resource `>= n_res`.
///
/// ```
/// use collsched_core::liquid::{search, Outcome};
/// // two transfers sharing resource 1: two steps
/// let (out, nodes) = search(&[vec![0, 1], vec![2, 1]], 3, 2, 100, true);
/// assert_eq!(out, Outcome::Found(vec![vec![0], vec![1]]));
/// assert!(nodes > 0);
/// assert_eq!(search(&[vec![0, 1], vec![2, 1]], 3, 1, 100, true).0, Outcome::Infeasible);
/// ```
pub fn search(routes: &[Vec<usize>], n_res: usize, length: usize, budget: u64, symmetry: bool) -> (Outcome, u64) {
    let n = routes.len();
    let mut s = Searcher::new(routes, n_res, budget, symmetry);
    let mut all = vec![0u64; words(n)];
    for i in 0..n {
        set(&mut all, i);
    }
    let out = match s.rec(&all, length) {
        Ok(true) => Outcome::Found(s.chosen.iter().map(|b| ones(b).collect()).collect()),
        Ok(false) => Outcome::Infeasible,
        Err(Stop::Limit) => Outcome::Limit,
    };
    (out, s.nodes)
}

/// A fast schedule, most loaded links first: each step scans the remaining
/// transfers by decreasing load (in the reduced traffic) of their most loaded
/// resource and takes every one that does not congest with those taken.
///
/// ```
/// use collsched_core::liquid::greedy;
/// let steps = greedy(&[vec![0, 1], vec![2, 1], vec![3]], 4);
/// assert_eq!(steps, vec![vec![0, 2], vec![1]]);
/// ```
pub fn greedy(routes: &[Vec<usize>], n_res: usize) -> Vec<Vec<usize>> {
    let mut loads = vec![0usize; n_res];
    for route in routes {
        for &r in route {
            loads[r] += 1;
        }
    }
    let mut left: Vec<usize> = (0..routes.len()).collect();
    let mut used = vec![usize::MAX; n_res];
    let mut steps = Vec::new();
    let mut round = 0usize;
    while !left.is_empty() {
        let key = |i: &usize| (std::cmp::Reverse(routes[*i].iter().map(|&r| loads[r]).max().unwrap_or(0)), *i);
        left.sort_by_key(key);
        let mut step = Vec::new();
        let mut rest = Vec::with_capacity(left.len());
        for &i in &left {
            if routes[i].iter().all(|&r| used[r] != round) {
                for &r in &routes[i] {
                    used[r] = round;
                }
                step.push(i);
            } else {
                rest.push(i);
            }
        }
        for &i in &step {
            for &r in &routes[i] {
                loads[r] -= 1;
            }
        }
        step.sort_unstable();
        steps.push(step);
        left = rest;
        round += 1;
    }
    steps
}

/// First fit: transfers taken in `order`, each put in its `home` step when
/// its resources are free there, else in the first step where they are, else
/// in a new step. With the caterpillar's shifts as homes, an all-to-all on a
/// network that carries every shift without congestion gets exactly its
/// shifts; congested transfers move to the first step with room.
///
/// `O(Σ_i |route_i| · tries_i)`, where a transfer tries its home, then steps
/// from the first one on.
///
/// # Panics
/// If `order` or `home` do not have one entry per transfer, or a route names
/// a resource `>= n_res`.
///
/// ```
/// use collsched_core::liquid::first_fit;
/// let routes = vec![vec![0, 1], vec![2, 1], vec![3]];
/// assert_eq!(first_fit(&routes, 4, &[0, 1, 2], &[0, 0, 0]), vec![vec![0, 2], vec![1]]);
/// ```
pub fn first_fit(routes: &[Vec<usize>], n_res: usize, order: &[usize], home: &[usize]) -> Vec<Vec<usize>> {
    assert_eq!(order.len(), routes.len(), "order must list every transfer");
    assert_eq!(home.len(), routes.len(), "home must give one step per transfer");
    let w = words(n_res);
    let mut used: Vec<Bits> = Vec::new();
    let mut steps: Vec<Vec<usize>> = Vec::new();
    let fits = |u: &Bits, route: &[usize]| route.iter().all(|&r| u[r / 64] >> (r % 64) & 1 == 0);
    for &i in order {
        let route = &routes[i];
        let h = home[i];
        while used.len() <= h {
            used.push(vec![0; w]);
            steps.push(Vec::new());
        }
        let k = if fits(&used[h], route) {
            h
        } else {
            match (0..used.len()).find(|&k| fits(&used[k], route)) {
                Some(k) => k,
                None => {
                    used.push(vec![0; w]);
                    steps.push(Vec::new());
                    used.len() - 1
                }
            }
        };
        for &r in route {
            set(&mut used[k], r);
        }
        steps[k].push(i);
    }
    steps.retain(|s| !s.is_empty());
    for s in &mut steps {
        s.sort_unstable();
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seed 001's Figure 1: T1..T3, R1..R3 on switch 1; T4, T5, R4, R5 on switch 2;
    /// resources 0..4 = l1..l5, 5..9 = l6..l10, 10 = l11 (S2->S1), 11 = l12 (S1->S2).
    fn figure1() -> Vec<Vec<usize>> {
        let side = |i: usize| if i < 3 { 0 } else { 1 };
        let mut routes = vec![];
        for t in 0..5 {
            for r in 0..5 {
                let mut route = vec![t, 5 + r];
                if side(t) != side(r) {
                    route.push(if side(t) == 0 { 11 } else { 10 });
                }
                routes.push(route);
            }
        }
        routes
    }

    fn check(routes: &[Vec<usize>], steps: &[Vec<usize>]) {
        let mut seen = vec![false; routes.len()];
        for step in steps {
            let mut used = std::collections::HashSet::new();
            for &i in step {
                assert!(!seen[i]);
                seen[i] = true;
                for &r in &routes[i] {
                    assert!(used.insert(r), "step shares resource {r}");
                }
            }
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn figure1_has_a_liquid_schedule_of_six_steps() {
        let routes = figure1();
        for symmetry in [true, false] {
            let (out, _) = search(&routes, 12, 6, 1_000_000, symmetry);
            let Outcome::Found(steps) = out else { panic!("no liquid schedule") };
            assert_eq!(steps.len(), 6);
            check(&routes, &steps);
            assert_eq!(search(&routes, 12, 5, 1_000_000, symmetry).0, Outcome::Infeasible);
        }
    }

    #[test]
    fn budget_stops_the_search() {
        assert_eq!(search(&figure1(), 12, 6, 1, true).0, Outcome::Limit);
    }

    #[test]
    fn greedy_is_a_schedule() {
        let routes = figure1();
        let steps = greedy(&routes, 12);
        check(&routes, &steps);
        assert!(steps.len() >= 6);
    }

    #[test]
    fn first_fit_is_a_schedule() {
        let routes = figure1();
        let order: Vec<usize> = (0..routes.len()).collect();
        let home: Vec<usize> = (0..routes.len()).map(|i| (i % 5 + 5 - i / 5) % 5).collect();
        let steps = first_fit(&routes, 12, &order, &home);
        check(&routes, &steps);
        assert!(steps.len() >= 6);
    }

    #[test]
    fn empty_traffic() {
        assert_eq!(search(&[], 0, 0, 10, true).0, Outcome::Found(vec![]));
    }
}
