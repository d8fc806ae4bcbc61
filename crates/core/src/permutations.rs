//! Decomposition of a sparse personalized exchange into disjoint partial permutations.
//!
//! Ranka and Wang, "Static and runtime scheduling of unstructured
//! communication" (1993), sections 4-6: the random-scheduling family RS_N,
//! RS_NL, RS_NP, RS_NLP, RS_NLH and RS_NLPH. The COM matrix arrives row-wise
//! (messages of source `i` are `row_ptr[i] .. row_ptr[i+1]`, each with a
//! destination, a size and, for link-contention avoidance, the exclusive
//! resources of its route). Every phase is a partial permutation: a node
//! sends at most one message and receives at most one.
//!
//! Options mirror the paper's letters: `pairs` is `Locate_Pair` (P),
//! `links` is `Check_Path`/`Mark_Path` on the routes' resources (L),
//! `heap` keeps each row as a max-heap of remaining sizes and splits the
//! messages larger than `M_thresh` (H).
//!
//! ```
//! use collsched_core::permutations::{decompose, Options};
//! // 3 nodes, every node sends to both others (a 2-regular COM).
//! let row_ptr = [0, 2, 4, 6];
//! let dst = [1, 2, 0, 2, 0, 1];
//! let size = [1.0; 6];
//! let d = decompose(3, &row_ptr, &dst, &size, &[0; 7], &[], 0, &Options::default()).unwrap();
//! assert_eq!(d.msg.len(), 6);                 // every message once, whole
//! assert!(d.n_phases >= 2);                   // at least the maximum degree
//! for p in 0..d.n_phases {                    // each phase a partial permutation
//!     let mut out = [0; 3];
//!     let mut inn = [0; 3];
//!     for (k, &m) in d.msg.iter().enumerate() {
//!         if d.phase[k] == p { out[[0, 0, 1, 1, 2, 2][m]] += 1; inn[dst[m]] += 1; }
//!     }
//!     assert!(out.iter().chain(inn.iter()).all(|&c| c <= 1));
//! }
//! ```

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rustc_hash::FxHashMap;

const NONE: usize = usize::MAX;

/// Options of [`decompose`].
#[derive(Clone, Debug)]
pub struct Options {
    /// `Locate_Pair`: first pair up pairwise exchanges (i -> k with k -> i).
    pub pairs: bool,
    /// `Check_Path` / `Mark_Path`: the routes of one phase share no resource.
    pub links: bool,
    /// Heap variant: `Some(k)` with `M_thresh` the k-th smallest message
    /// size of the phase (1-based, idle nodes count as 0), i.e. `lambda = k / n`.
    pub heap_k: Option<usize>,
    /// Parts are in units of `denominator` per message (heap variant; 1 otherwise).
    pub denominator: u64,
    /// Seed of the random row orders and start rows.
    pub seed: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options { pairs: false, links: false, heap_k: None, denominator: 1, seed: 0 }
    }
}

/// Why a decomposition cannot be made.
#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    /// Inconsistent input arrays; the string says which.
    Shape(String),
    /// A phase placed nothing (cannot happen on consistent input; never loops).
    Stuck { phase: usize },
}

/// The pieces of a decomposition: piece `p` sends units `start[p] .. end[p]`
/// (of `denominator`) of message `msg[p]` in phase `phase[p]`.
#[derive(Clone, Debug, Default)]
pub struct Decomposition {
    pub msg: Vec<usize>,
    pub phase: Vec<usize>,
    pub start: Vec<u64>,
    pub end: Vec<u64>,
    pub n_phases: usize,
}

struct Rows {
    /// CCOM: per row the message indices still active (a heap in heap mode).
    rows: Vec<Vec<usize>>,
    /// Position of each active message in its row.
    at: Vec<usize>,
}

impl Rows {
    fn swap(&mut self, i: usize, a: usize, b: usize) {
        self.rows[i].swap(a, b);
        let (ma, mb) = (self.rows[i][a], self.rows[i][b]);
        self.at[ma] = a;
        self.at[mb] = b;
    }

    /// The paper's hole-free removal: the last entry moves into the hole.
    fn remove(&mut self, i: usize, j: usize) {
        let last = self.rows[i].len() - 1;
        self.swap(i, j, last);
        let m = self.rows[i].pop().unwrap();
        self.at[m] = NONE;
    }
}

/// Heap order: larger remaining bytes first, then the random rank.
fn above(key: &[f64], rank: &[u64], a: usize, b: usize) -> bool {
    key[a] > key[b] || (key[a] == key[b] && rank[a] < rank[b])
}

fn sift(rows: &mut Rows, i: usize, mut j: usize, key: &[f64], rank: &[u64]) {
    while j > 0 {
        let p = (j - 1) / 2;
        if above(key, rank, rows.rows[i][j], rows.rows[i][p]) {
            rows.swap(i, j, p);
            j = p;
        } else {
            break;
        }
    }
    let len = rows.rows[i].len();
    loop {
        let (l, r) = (2 * j + 1, 2 * j + 2);
        let mut best = j;
        if l < len && above(key, rank, rows.rows[i][l], rows.rows[i][best]) {
            best = l;
        }
        if r < len && above(key, rank, rows.rows[i][r], rows.rows[i][best]) {
            best = r;
        }
        if best == j {
            break;
        }
        rows.swap(i, j, best);
        j = best;
    }
}

/// Decompose the COM matrix into phases (see the module documentation).
///
/// `path_ptr` (one more entry than messages) and `path` give each message's
/// exclusive route resources (`< n_resources`); they are read only when
/// `opts.links`. `size` is read only in heap mode.
///
/// # Errors
/// [`Error::Shape`] if the arrays disagree (lengths, a destination `>= n` or
/// equal to its source, a resource out of range, a size not finite and > 0).
///
/// ```
/// use collsched_core::permutations::{decompose, Options};
/// // node 0 sends 4 units to 1 and 1 unit to 2; node 1 sends 1 unit to 2.
/// let opts = Options { heap_k: Some(2), denominator: 4, ..Options::default() };
/// let d = decompose(3, &[0, 2, 3, 3], &[1, 2, 2], &[4.0, 1.0, 1.0], &[0; 4], &[], 0, &opts).unwrap();
/// // every message is covered exactly: its pieces add up to the denominator
/// for m in 0..3 {
///     let units: u64 = (0..d.msg.len()).filter(|&p| d.msg[p] == m).map(|p| d.end[p] - d.start[p]).sum();
///     assert_eq!(units, 4);
/// }
/// ```
#[allow(clippy::too_many_arguments)]
pub fn decompose(
    n: usize,
    row_ptr: &[usize],
    dst: &[usize],
    size: &[f64],
    path_ptr: &[usize],
    path: &[usize],
    n_resources: usize,
    opts: &Options,
) -> Result<Decomposition, Error> {
    let n_msg = dst.len();
    check(n, row_ptr, dst, size, path_ptr, path, n_resources, opts)?;
    let mut rng = ChaCha8Rng::seed_from_u64(opts.seed);
    let heap = opts.heap_k.is_some();
    let den = if heap { opts.denominator } else { 1 };
    let mut src = vec![0usize; n_msg];
    // step 1: CCOM, each row's destinations in random order (a heap of sizes in heap mode)
    let rank: Vec<u64> = (0..n_msg).map(|_| rng.next_u64()).collect();
    let mut rows = Rows { rows: Vec::with_capacity(n), at: vec![NONE; n_msg] };
    for i in 0..n {
        let mut row: Vec<usize> = (row_ptr[i]..row_ptr[i + 1]).collect();
        for m in &row {
            src[*m] = i;
        }
        if heap {
            row.sort_by(|&a, &b| size[b].total_cmp(&size[a]).then(rank[a].cmp(&rank[b])));
        } else {
            for j in (1..row.len()).rev() {
                let k = (rng.next_u64() % (j as u64 + 1)) as usize;
                row.swap(j, k);
            }
        }
        for (j, m) in row.iter().enumerate() {
            rows.at[*m] = j;
        }
        rows.rows.push(row);
    }
    // PAIRS: (source, destination) -> message, for Locate_Pair (a dense n x n table: looked up for every
    // entry of every row in every phase)
    let mut pair_of: Vec<usize> = if opts.pairs { vec![NONE; n * n] } else { Vec::new() };
    if opts.pairs {
        for m in 0..n_msg {
            pair_of[src[m] * n + dst[m]] = m;
        }
    }
    let mut key: Vec<f64> = size.to_vec();
    let mut left: Vec<u64> = vec![den; n_msg];
    let mut send = vec![NONE; n];
    let mut recv = vec![NONE; n];
    let mut stamp = vec![0usize; if opts.links { n_resources } else { 0 }];
    let mut out = Decomposition::default();
    let mut active = n_msg;
    let mut chosen: Vec<usize> = Vec::with_capacity(n);
    let mut phase = 0usize;
    while active > 0 {
        // (a) send = receive = -1; PATHS cleared (a new stamp)
        send.iter_mut().for_each(|s| *s = NONE);
        recv.iter_mut().for_each(|r| *r = NONE);
        chosen.clear();
        let mark = phase + 1;
        let free = |m: usize, stamp: &[usize]| path[path_ptr[m]..path_ptr[m + 1]].iter().all(|&r| stamp[r] != mark);
        // (b) a random start row
        let x = (rng.next_u64() % n as u64) as usize;
        if opts.pairs {
            // Locate_Pair(x): pairwise exchanges first
            for y in 0..n {
                let i = (x + y) % n;
                if send[i] != NONE || recv[i] != NONE {
                    continue;
                }
                for j in 0..rows.rows[i].len() {
                    let m = rows.rows[i][j];
                    let k = dst[m];
                    if send[k] != NONE || recv[k] != NONE {
                        continue;
                    }
                    let mate = pair_of[k * n + i];
                    if mate == NONE || rows.at[mate] == NONE {
                        continue;
                    }
                    if opts.links {
                        if !free(m, &stamp) {
                            continue;
                        }
                        for &r in &path[path_ptr[m]..path_ptr[m + 1]] {
                            stamp[r] = mark;
                        }
                        if !free(mate, &stamp) {
                            for &r in &path[path_ptr[m]..path_ptr[m + 1]] {
                                stamp[r] = 0;
                            }
                            continue;
                        }
                        for &r in &path[path_ptr[mate]..path_ptr[mate + 1]] {
                            stamp[r] = mark;
                        }
                    }
                    send[i] = k;
                    recv[k] = i;
                    send[k] = i;
                    recv[i] = k;
                    chosen.push(m);
                    chosen.push(mate);
                    if !heap {
                        rows.remove(k, rows.at[mate]);
                        rows.remove(i, j);
                    }
                    break;
                }
            }
        }
        for y in 0..n {
            let i = (x + y) % n;
            if send[i] != NONE {
                continue;
            }
            let mut j = 0;
            while j < rows.rows[i].len() {
                let m = rows.rows[i][j];
                let k = dst[m];
                if recv[k] == NONE && (!opts.links || free(m, &stamp)) {
                    send[i] = k;
                    recv[k] = i;
                    if opts.links {
                        for &r in &path[path_ptr[m]..path_ptr[m + 1]] {
                            stamp[r] = mark;
                        }
                    }
                    chosen.push(m);
                    if !heap {
                        rows.remove(i, j);
                    }
                    break;
                }
                j += 1;
            }
        }
        if chosen.is_empty() {
            return Err(Error::Stuck { phase });
        }
        // (c) the phase's transfers; in heap mode only up to M_thresh bytes each
        let thresh = match opts.heap_k {
            None => f64::INFINITY,
            Some(k) => {
                let mut sizes: Vec<f64> = chosen.iter().map(|&m| key[m]).collect();
                sizes.resize(n.max(chosen.len()), 0.0);
                sizes.sort_by(f64::total_cmp);
                let t = sizes[k.clamp(1, sizes.len()) - 1];
                if t > 0.0 { t } else { sizes[sizes.len() - 1] }
            }
        };
        for &m in &chosen {
            let start = den - left[m];
            let units = if key[m] <= thresh || left[m] == 1 {
                left[m]
            } else {
                ((thresh / size[m] * den as f64).floor() as u64).clamp(1, left[m] - 1)
            };
            out.msg.push(m);
            out.phase.push(phase);
            out.start.push(start);
            out.end.push(start + units);
            left[m] -= units;
            if heap {
                let i = src[m];
                if left[m] == 0 {
                    let j = rows.at[m];
                    rows.remove(i, j);
                    if j < rows.rows[i].len() {
                        sift(&mut rows, i, j, &key, &rank);
                    }
                } else {
                    key[m] = size[m] * left[m] as f64 / den as f64;
                    let j = rows.at[m];
                    sift(&mut rows, i, j, &key, &rank);
                }
            }
            if left[m] == 0 {
                active -= 1;
            }
        }
        phase += 1;
    }
    out.n_phases = phase;
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
fn check(
    n: usize,
    row_ptr: &[usize],
    dst: &[usize],
    size: &[f64],
    path_ptr: &[usize],
    path: &[usize],
    n_resources: usize,
    opts: &Options,
) -> Result<(), Error> {
    let n_msg = dst.len();
    let bad = |s: &str| Err(Error::Shape(s.to_string()));
    if row_ptr.len() != n + 1 || row_ptr[0] != 0 || row_ptr[n] != n_msg || row_ptr.windows(2).any(|w| w[0] > w[1]) {
        return bad("row_ptr must have n + 1 nondecreasing entries from 0 to the number of messages");
    }
    if size.len() != n_msg || size.iter().any(|s| !(s.is_finite() && *s > 0.0)) {
        return bad("size must have one finite positive entry per message");
    }
    for i in 0..n {
        for &d in &dst[row_ptr[i]..row_ptr[i + 1]] {
            if d >= n || d == i {
                return bad("a destination is out of range or equals its source");
            }
        }
    }
    if opts.links {
        if path_ptr.len() != n_msg + 1 || path_ptr[0] != 0 || path_ptr[n_msg] != path.len()
            || path_ptr.windows(2).any(|w| w[0] > w[1])
        {
            return bad("path_ptr must have one more entry than messages, from 0 to len(path)");
        }
        if path.iter().any(|&r| r >= n_resources) {
            return bad("a path resource is >= n_resources");
        }
    }
    if opts.heap_k.is_some() && opts.denominator < 1 {
        return bad("denominator must be >= 1");
    }
    if opts.pairs || opts.heap_k.is_some() {
        let mut seen: FxHashMap<u64, ()> = FxHashMap::default();
        for i in 0..n {
            for &d in &dst[row_ptr[i]..row_ptr[i + 1]] {
                if seen.insert((i * n + d) as u64, ()).is_some() {
                    return bad("a (source, destination) pair appears twice");
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn random_com(n: usize, d: usize, seed: u64) -> (Vec<usize>, Vec<usize>) {
        // d-regular: node i sends to i + s_1, ..., i + s_d for random distinct shifts
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut shifts: Vec<usize> = (1..n).collect();
        for j in (1..shifts.len()).rev() {
            let k = (rng.next_u64() % (j as u64 + 1)) as usize;
            shifts.swap(j, k);
        }
        let shifts = &shifts[..d];
        let mut row_ptr = vec![0];
        let mut dst = vec![];
        for i in 0..n {
            for s in shifts {
                dst.push((i + s) % n);
            }
            row_ptr.push(dst.len());
        }
        (row_ptr, dst)
    }

    fn check_phases(n: usize, row_ptr: &[usize], dst: &[usize], d: &Decomposition, paths: Option<(&[usize], &[usize])>) {
        let src: Vec<usize> = (0..n).flat_map(|i| std::iter::repeat(i).take(row_ptr[i + 1] - row_ptr[i])).collect();
        for p in 0..d.n_phases {
            let mut out = vec![0; n];
            let mut inn = vec![0; n];
            let mut used = FxHashMap::default();
            for k in (0..d.msg.len()).filter(|&k| d.phase[k] == p) {
                let m = d.msg[k];
                out[src[m]] += 1;
                inn[dst[m]] += 1;
                if let Some((ptr, path)) = paths {
                    for &r in &path[ptr[m]..ptr[m + 1]] {
                        assert!(used.insert(r, m).is_none(), "phase {p}: resource {r} used twice");
                    }
                }
            }
            assert!(out.iter().chain(inn.iter()).all(|&c| c <= 1), "phase {p} is not a partial permutation");
        }
    }

    #[test]
    fn every_variant_covers_every_message_once_per_unit() {
        let (n, deg) = (16, 5);
        let (row_ptr, dst) = random_com(n, deg, 7);
        let m = dst.len();
        // a path: the two endpoints' "links" (resource 2i: out of i, 2j+1: into j)
        let path_ptr: Vec<usize> = (0..=m).map(|k| 2 * k).collect();
        let src: Vec<usize> = (0..n).flat_map(|i| std::iter::repeat(i).take(deg)).collect();
        let path: Vec<usize> = (0..m).flat_map(|k| [2 * src[k], 2 * dst[k] + 1]).collect();
        let size: Vec<f64> = (0..m).map(|k| 1.0 + (k % 7) as f64).collect();
        for pairs in [false, true] {
            for links in [false, true] {
                for heap_k in [None, Some(12)] {
                    let opts = Options { pairs, links, heap_k, denominator: 64, seed: 3 };
                    let d = decompose(n, &row_ptr, &dst, &size, &path_ptr, &path, 2 * n, &opts).unwrap();
                    let den = if heap_k.is_some() { 64 } else { 1 };
                    let mut units = vec![0u64; m];
                    for k in 0..d.msg.len() {
                        assert_eq!(d.start[k], units[d.msg[k]], "pieces are consecutive");
                        units[d.msg[k]] = d.end[k];
                    }
                    assert!(units.iter().all(|&u| u == den));
                    assert!(d.n_phases >= deg);
                    check_phases(n, &row_ptr, &dst, &d, if links { Some((&path_ptr, &path)) } else { None });
                }
            }
        }
    }

    #[test]
    fn rs_n_stays_near_d_plus_log_d() {
        let (n, deg) = (64, 16);
        let mut total = 0;
        for seed in 0..20 {
            let (row_ptr, dst) = random_com(n, deg, seed);
            let size = vec![1.0; dst.len()];
            let d = decompose(n, &row_ptr, &dst, &size, &[], &[], 0, &Options { seed, ..Options::default() }).unwrap();
            assert!(d.n_phases >= deg);
            total += d.n_phases;
        }
        // the paper's bound d + log d = 20 holds on average
        assert!(total as f64 / 20.0 <= 20.0 + 1.0, "mean phases {}", total as f64 / 20.0);
    }

    #[test]
    fn pairs_find_the_exchanges() {
        // 0 <-> 1 and 2 <-> 3: one phase of two pairwise exchanges
        let d = decompose(4, &[0, 1, 2, 3, 4], &[1, 0, 3, 2], &[1.0; 4], &[], &[], 0,
                          &Options { pairs: true, ..Options::default() }).unwrap();
        assert_eq!(d.n_phases, 1);
    }

    #[test]
    fn bad_input_is_an_error() {
        let e = decompose(2, &[0, 1, 1], &[0], &[1.0], &[], &[], 0, &Options::default());
        assert!(matches!(e, Err(Error::Shape(_))));
    }
}
