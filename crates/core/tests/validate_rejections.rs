//! Every way the validator rejects a program, one test per rejection class
//! (and per reason of a class), each asserting the exact error.
//!
//! The classes, as `collsched_core::validate::Invalid` has them:
//! - `Structure(_)`: the program is malformed (see `program::StructureError`:
//!   shape, bad op, bad dependency, unmatched or mismatched message, bad piece,
//!   pieces on a receive, message id out of range);
//! - `Deadlock`: a cycle of waits, eagerly or only under rendezvous;
//! - `NotHeld`: a piece used before it arrived (or that never arrives);
//! - `NotWaited`: a piece used after it arrived, but without waiting for it;
//! - `Duplicate`: a piece delivered to a rank that already holds it;
//! - `BadCombine`: a combination that is not "adjacent partial results, in
//!   operand order, into their union" nor "reductions of pairwise disjoint
//!   operand sets into their union" (seven reasons);
//! - `Missing`: a rank ends without (the whole of) a value, or of the fragment
//!   of it, that it must hold.
//!
//! Byte counts and task costs are checked on the Python side
//! (`collsched.schedules.validate._check_weights`), which has its own tests.

use collsched_core::program::{OperandSets, ProgramView, StructureError};
use collsched_core::validate::{validate, Invalid, Options};

/// A column-wise program written operation by operation.
struct Prog {
    n_ranks: usize,
    denominator: i64,
    op_rank: Vec<i64>,
    op_kind: Vec<i64>,
    op_peer: Vec<i64>,
    op_msg: Vec<i64>,
    dep_ptr: Vec<i64>,
    dep_idx: Vec<i64>,
    piece_ptr: Vec<i64>,
    pieces: Vec<i64>,
    set_ptr: Vec<i64>,
    set_words: Vec<u64>,
}

type Piece = [i64; 6];
/// A row of `initial` or `finals`: `(rank, kind, inst, a, b)` (for `finals`, the whole value).
type Holds = [i64; 5];
/// A row of `finals` naming a fragment: `(rank, kind, inst, a, b, start, end)`.
type HoldsPart = [i64; 7];

const EAGER: Options = Options { rendezvous: false };
const RENDEZVOUS: Options = Options { rendezvous: true };

/// The whole partial result `v[a..b]` of instance 0.
fn v(a: i64, b: i64) -> Piece {
    [1, 0, a, b, 0, 1]
}

/// The whole block `m[src→dst]` of instance 0.
fn m(src: i64, dst: i64) -> Piece {
    [0, 0, src, dst, 0, 1]
}

fn holds(rank: i64, p: Piece) -> Holds {
    [rank, p[0], p[1], p[2], p[3]]
}

impl Prog {
    fn new(n_ranks: usize) -> Self {
        Prog {
            n_ranks,
            denominator: 1,
            op_rank: vec![],
            op_kind: vec![],
            op_peer: vec![],
            op_msg: vec![],
            dep_ptr: vec![0],
            dep_idx: vec![],
            piece_ptr: vec![0],
            pieces: vec![],
            set_ptr: vec![0],
            set_words: vec![],
        }
    }

    /// Append the operand set of `positions` to the table (no interning: equal sets may repeat); its index.
    fn set(&mut self, positions: &[usize]) -> i64 {
        let words = positions.iter().map(|&i| i / 64 + 1).max().unwrap_or(0);
        let mut w = vec![0u64; words];
        for &i in positions {
            w[i / 64] |= 1 << (i % 64);
        }
        self.set_words.extend(w);
        self.set_ptr.push(self.set_words.len() as i64);
        self.set_ptr.len() as i64 - 2
    }

    fn op(&mut self, rank: i64, kind: i64, peer: i64, msg: i64, deps: &[usize], pieces: &[Piece]) -> usize {
        self.op_rank.push(rank);
        self.op_kind.push(kind);
        self.op_peer.push(peer);
        self.op_msg.push(msg);
        self.dep_idx.extend(deps.iter().map(|&d| d as i64));
        self.dep_ptr.push(self.dep_idx.len() as i64);
        self.pieces.extend(pieces.iter().flatten());
        self.piece_ptr.push((self.pieces.len() / 6) as i64);
        self.op_rank.len() - 1
    }

    fn send(&mut self, rank: i64, to: i64, msg: i64, deps: &[usize], pieces: &[Piece]) -> usize {
        self.op(rank, 0, to, msg, deps, pieces)
    }

    fn recv(&mut self, rank: i64, from: i64, msg: i64, deps: &[usize]) -> usize {
        self.op(rank, 1, from, msg, deps, &[])
    }

    /// A combination: `inputs` then `output`, as a program stores them.
    fn compute(&mut self, rank: i64, deps: &[usize], inputs: &[Piece], output: Piece) -> usize {
        let rows: Vec<Piece> = inputs.iter().copied().chain([output]).collect();
        self.op(rank, 2, -1, -1, deps, &rows)
    }

    fn view(&self) -> ProgramView<'_> {
        ProgramView {
            n_ranks: self.n_ranks,
            op_rank: &self.op_rank,
            op_kind: &self.op_kind,
            op_peer: &self.op_peer,
            op_msg: &self.op_msg,
            dep_ptr: &self.dep_ptr,
            dep_idx: &self.dep_idx,
            piece_ptr: &self.piece_ptr,
            pieces: &self.pieces,
            denominator: self.denominator,
        }
    }

    fn run(&self, initial: &[Holds], finals: &[Holds], opts: Options) -> Result<Vec<usize>, Invalid> {
        let whole: Vec<HoldsPart> =
            finals.iter().map(|h| [h[0], h[1], h[2], h[3], h[4], 0, self.denominator]).collect();
        self.run_parts(initial, &whole, opts)
    }

    fn run_parts(&self, initial: &[Holds], finals: &[HoldsPart], opts: Options) -> Result<Vec<usize>, Invalid> {
        let sets = OperandSets::new(&self.set_ptr, &self.set_words).expect("a CSR table");
        validate(&self.view(), &sets, initial.concat().as_slice(), finals.concat().as_slice(), opts)
    }
}

// --- a reduce of v_0, v_1, v_2 on rank 0 ----------------------------------------------

/// Rank `k` starts with `v[k..k]`; rank 0 must end with `v[0..2]`.
fn reduce_values() -> (Vec<Holds>, Vec<Holds>) {
    ((0..3).map(|k| holds(k, v(k, k))).collect(), vec![holds(0, v(0, 2))])
}

/// Ranks 1 and 2 send their operands to rank 0 (ops 0-3), which runs two combinations (ops 4, 5).
fn reduce(first: &[Piece], first_out: Piece, second: &[Piece], second_out: Piece) -> Prog {
    let mut p = Prog::new(3);
    p.send(1, 0, 0, &[], &[v(1, 1)]);
    let r1 = p.recv(0, 1, 0, &[]);
    p.send(2, 0, 1, &[], &[v(2, 2)]);
    let r2 = p.recv(0, 2, 1, &[r1]);
    let c1 = p.compute(0, &[r2], first, first_out);
    p.compute(0, &[c1], second, second_out);
    p
}

fn run_reduce(p: &Prog) -> Result<Vec<usize>, Invalid> {
    let (initial, finals) = reduce_values();
    p.run(&initial, &finals, EAGER)
}

fn bad_combine(op: usize, reason: &'static str) -> Result<Vec<usize>, Invalid> {
    Err(Invalid::BadCombine { op, reason })
}

const NOT_ADJACENT: &str = "inputs are not adjacent in operand order";
const NOT_UNION: &str = "the output is not the union of the inputs";

#[test]
fn reduce_in_operand_order_is_valid() {
    let p = reduce(&[v(0, 0), v(1, 1)], v(0, 1), &[v(0, 1), v(2, 2)], v(0, 2));
    assert_eq!(run_reduce(&p), Ok(vec![0, 2, 1, 3, 4, 5]));
    // (v0 ⊕ (v1 ⊕ v2)) is another valid bracketing
    let p = reduce(&[v(1, 1), v(2, 2)], v(1, 2), &[v(0, 0), v(1, 2)], v(0, 2));
    assert!(run_reduce(&p).is_ok());
}

#[test]
fn adjacent_operands_in_swapped_order_are_rejected() {
    // v1 ⊕ v0 for v0 ⊕ v1: a commuted operator
    let p = reduce(&[v(1, 1), v(0, 0)], v(0, 1), &[v(0, 1), v(2, 2)], v(0, 2));
    assert_eq!(run_reduce(&p), bad_combine(4, NOT_ADJACENT));
}

#[test]
fn adjacent_blocks_in_swapped_order_are_rejected() {
    // v2 ⊕ v[0..1] for v[0..1] ⊕ v2, in the second combination
    let p = reduce(&[v(0, 0), v(1, 1)], v(0, 1), &[v(2, 2), v(0, 1)], v(0, 2));
    assert_eq!(run_reduce(&p), bad_combine(5, NOT_ADJACENT));
}

#[test]
fn non_adjacent_operands_are_rejected() {
    // v0 ⊕ v2 skips v1, even if the output claims v[0..2]
    let p = reduce(&[v(0, 0), v(2, 2)], v(0, 2), &[v(0, 2), v(1, 1)], v(0, 2));
    assert_eq!(run_reduce(&p), bad_combine(4, NOT_ADJACENT));
}

#[test]
fn non_adjacent_operands_in_swapped_order_are_rejected() {
    // v2 ⊕ v0 (skipping v1, and commuted), claimed as v[0..2]
    let p = reduce(&[v(2, 2), v(0, 0)], v(0, 2), &[v(0, 2), v(1, 1)], v(0, 2));
    assert_eq!(run_reduce(&p), bad_combine(4, NOT_ADJACENT));
    // three inputs, the last two commuted: v0 ⊕ v2 ⊕ v1
    let mut p = Prog::new(3);
    p.send(1, 0, 0, &[], &[v(1, 1)]);
    let r1 = p.recv(0, 1, 0, &[]);
    p.send(2, 0, 1, &[], &[v(2, 2)]);
    let r2 = p.recv(0, 2, 1, &[r1]);
    p.compute(0, &[r2], &[v(0, 0), v(2, 2), v(1, 1)], v(0, 2));
    assert_eq!(run_reduce(&p), bad_combine(4, NOT_ADJACENT));
}

#[test]
fn output_that_is_not_the_union_is_rejected() {
    // claims more than it combined
    let p = reduce(&[v(0, 0), v(1, 1)], v(0, 2), &[v(0, 1), v(2, 2)], v(0, 2));
    assert_eq!(run_reduce(&p), bad_combine(4, NOT_UNION));
    // claims less
    let p = reduce(&[v(0, 0), v(1, 1)], v(1, 1), &[v(0, 1), v(2, 2)], v(0, 2));
    assert_eq!(run_reduce(&p), bad_combine(4, NOT_UNION));
}

#[test]
fn combination_of_one_input_is_rejected() {
    let p = reduce(&[v(0, 0)], v(0, 0), &[v(0, 1), v(2, 2)], v(0, 2));
    assert_eq!(run_reduce(&p), bad_combine(4, "a combination needs two inputs and one output"));
}

#[test]
fn combination_of_blocks_is_rejected() {
    let p = reduce(&[v(0, 0), m(1, 0)], v(0, 1), &[v(0, 1), v(2, 2)], v(0, 2));
    assert_eq!(run_reduce(&p), bad_combine(4, "only partial results v[k..m] can be combined"));
}

#[test]
fn combination_across_instances_or_fragments_is_rejected() {
    let same = "inputs and output must be the same instance and fragment";
    let other_instance = [1, 1, 1, 1, 0, 1];
    let p = reduce(&[v(0, 0), other_instance], v(0, 1), &[v(0, 1), v(2, 2)], v(0, 2));
    assert_eq!(run_reduce(&p), bad_combine(4, same));
    let mut p = reduce(&[v(0, 0), [1, 0, 1, 1, 0, 1]], [1, 0, 0, 1, 0, 2], &[v(0, 1), v(2, 2)], v(0, 2));
    p.denominator = 2; // the output is the whole of v[0..1], the inputs half of it
    assert_eq!(run_reduce(&p), bad_combine(4, same));
}

// --- commutative reductions Σ{...} ------------------------------------------------------

/// A reduction of instance `inst` over table set `set`, fragment `[s, s+1)`.
fn r(inst: i64, set: i64, s: i64) -> Piece {
    [2, inst, set, 0, s, s + 1]
}

/// The direct ReduceScatter of `n` ranks (denominator `n`): rank `i` sends fragment `j` of its operand
/// `Σ{i}` to rank `j`, which combines the `n` fragments `j` (in the order `order(j)` of operands) into
/// `Σ{0..n-1}` fragment `j`. Returns the program, the initial holdings and the final fragments; set `i`
/// is `{i}`, set `n` is everything.
fn reduce_scatter(n: usize, order: impl Fn(usize) -> Vec<usize>) -> (Prog, Vec<Holds>, Vec<HoldsPart>) {
    let mut p = Prog::new(n);
    p.denominator = n as i64;
    for i in 0..n {
        p.set(&[i]);
    }
    let all = p.set(&(0..n).collect::<Vec<_>>());
    let mut msg = 0;
    let mut recvs: Vec<Vec<usize>> = vec![vec![]; n];
    for i in 0..n {
        for j in (0..n).filter(|&j| j != i) {
            p.send(i as i64, j as i64, msg, &[], &[r(0, i as i64, j as i64)]);
            recvs[j].push(p.recv(j as i64, i as i64, msg, &[]));
            msg += 1;
        }
    }
    for (j, deps) in recvs.iter().enumerate() {
        let inputs: Vec<Piece> = order(j).iter().map(|&i| r(0, i as i64, j as i64)).collect();
        p.compute(j as i64, deps, &inputs, r(0, all, j as i64));
    }
    let initial = (0..n as i64).map(|i| [i, 2, 0, i, 0]).collect();
    let finals = (0..n as i64).map(|j| [j, 2, 0, all, 0, j, j + 1]).collect();
    (p, initial, finals)
}

#[test]
fn direct_reduce_scatter_in_any_operand_order_is_valid() {
    for n in 2..6 {
        let (p, initial, finals) = reduce_scatter(n, |j| (0..n).map(|k| (k + j) % n).rev().collect());
        assert!(p.run_parts(&initial, &finals, EAGER).is_ok(), "n = {n}");
        assert!(p.run_parts(&initial, &finals, RENDEZVOUS).is_ok(), "n = {n}");
    }
}

#[test]
fn reduction_of_overlapping_sets_is_rejected() {
    // rank 0 combines Σ{0,1} with Σ{1}: operand 1 would count twice
    let mut p = Prog::new(2);
    let (s0, s1, s01) = (p.set(&[0]), p.set(&[1]), p.set(&[0, 1]));
    p.send(1, 0, 0, &[], &[r(0, s1, 0)]);
    let got = p.recv(0, 1, 0, &[]);
    let c = p.compute(0, &[got], &[r(0, s0, 0), r(0, s1, 0)], r(0, s01, 0));
    p.compute(0, &[c], &[r(0, s01, 0), r(0, s1, 0)], r(0, s01, 0));
    let initial = [[0, 2, 0, s0, 0], [1, 2, 0, s1, 0]];
    assert_eq!(p.run(&initial, &[], EAGER), bad_combine(3, "the inputs' operand sets overlap"));
}

#[test]
fn reduction_whose_output_is_not_the_union_is_rejected() {
    let (mut p, initial, finals) = reduce_scatter(3, |_| vec![0, 1, 2]);
    // rank 0 claims Σ{0,1,2} from Σ{1} and Σ{2} only (its own operand left out)
    let first = p.op_rank.iter().position(|&r| r == 0).unwrap();
    let compute = (first..p.op_rank.len()).find(|&op| p.op_kind[op] == 2 && p.op_rank[op] == 0).unwrap();
    let lo = p.piece_ptr[compute] as usize * 6;
    p.pieces.drain(lo..lo + 6);
    for ptr in p.piece_ptr.iter_mut().skip(compute + 1) {
        *ptr -= 1;
    }
    assert_eq!(p.run_parts(&initial, &finals, EAGER), bad_combine(compute, NOT_UNION));
}

#[test]
fn reduction_across_instances_or_with_partial_results_is_rejected() {
    let mut p = Prog::new(2);
    let (s0, s1, s01) = (p.set(&[0]), p.set(&[1]), p.set(&[0, 1]));
    p.compute(0, &[], &[r(0, s0, 0), r(1, s1, 0)], r(0, s01, 0));
    assert_eq!(p.run(&[], &[], EAGER), bad_combine(0, "inputs and output must be the same instance and fragment"));
    let mut p = Prog::new(2);
    let (s0, s01) = (p.set(&[0]), p.set(&[0, 1]));
    p.compute(0, &[], &[r(0, s0, 0), v(1, 1)], r(0, s01, 0));
    assert_eq!(p.run(&[], &[], EAGER), bad_combine(0, "a reduction Σ{...} combines only with reductions Σ{...}"));
}

#[test]
fn reduce_scatter_missing_a_fragment_is_reported_with_its_range() {
    let (p, initial, mut finals) = reduce_scatter(3, |j| vec![j, (j + 1) % 3, (j + 2) % 3]);
    // rank 1 must also hold fragment [0, 1), which nobody sends it
    finals.push([1, 2, 0, 3, 0, 0, 1]);
    let err = p.run_parts(&initial, &finals, EAGER);
    assert_eq!(err, Err(Invalid::Missing { rank: 1, value: [2, 0, 3, 0], start: 0, end: 1, held: 0 }));
    // a program that does nothing leaves rank 0 without its block
    let mut idle = Prog::new(3);
    idle.denominator = 3;
    idle.set_ptr = p.set_ptr.clone();
    idle.set_words = p.set_words.clone();
    finals.pop();
    assert_eq!(idle.run_parts(&initial, &finals, EAGER),
               Err(Invalid::Missing { rank: 0, value: [2, 0, 3, 0], start: 0, end: 1, held: 0 }));
}

#[test]
fn reducing_before_the_fragments_arrive_is_rejected() {
    // rank 0's combination waits for none of its receives
    let (mut p, initial, finals) = reduce_scatter(3, |j| vec![j, (j + 1) % 3, (j + 2) % 3]);
    let compute = (0..p.op_rank.len()).find(|&op| p.op_kind[op] == 2 && p.op_rank[op] == 0).unwrap();
    let (lo, hi) = (p.dep_ptr[compute] as usize, p.dep_ptr[compute + 1] as usize);
    p.dep_idx.drain(lo..hi);
    for ptr in p.dep_ptr.iter_mut().skip(compute + 1) {
        *ptr -= (hi - lo) as i64;
    }
    let err = p.run_parts(&initial, &finals, EAGER).unwrap_err();
    assert!(matches!(err, Invalid::NotHeld { op, piece: 1 } | Invalid::NotWaited { op, piece: 1, .. } if op == compute),
            "{err:?}");
}

#[test]
fn equal_sets_at_two_indices_are_one_value() {
    // the table lists {0, 1} twice; a combination into the second satisfies a final naming the first
    let mut p = Prog::new(2);
    let (s0, s1, s01, again) = (p.set(&[0]), p.set(&[1]), p.set(&[0, 1]), p.set(&[0, 1]));
    p.send(1, 0, 0, &[], &[r(0, s1, 0)]);
    let got = p.recv(0, 1, 0, &[]);
    p.compute(0, &[got], &[r(0, s1, 0), r(0, s0, 0)], r(0, again, 0));
    let initial = [[0, 2, 0, s0, 0], [1, 2, 0, s1, 0]];
    assert!(p.run(&initial, &[[0, 2, 0, s01, 0]], EAGER).is_ok());
}

#[test]
fn sets_of_hundreds_of_operands_combine() {
    // {0..299} ⊕ {300} = {0..300}, across five words
    let mut p = Prog::new(2);
    let low: Vec<usize> = (0..300).collect();
    let (a, b, all) = (p.set(&low), p.set(&[300]), p.set(&(0..301).collect::<Vec<_>>()));
    p.send(1, 0, 0, &[], &[r(0, b, 0)]);
    let got = p.recv(0, 1, 0, &[]);
    p.compute(0, &[got], &[r(0, a, 0), r(0, b, 0)], r(0, all, 0));
    let initial = [[0, 2, 0, a, 0], [1, 2, 0, b, 0]];
    assert!(p.run(&initial, &[[0, 2, 0, all, 0]], EAGER).is_ok());
    // and {0..299} ⊕ {299} overlaps in the fifth word
    let mut p = Prog::new(1);
    let (a, b, all) = (p.set(&low), p.set(&[299]), p.set(&low));
    p.compute(0, &[], &[r(0, a, 0), r(0, b, 0)], r(0, all, 0));
    let initial = [[0, 2, 0, a, 0], [0, 2, 0, b, 0]];
    assert_eq!(p.run(&initial, &[], EAGER), bad_combine(0, "the inputs' operand sets overlap"));
}

// --- use before arrival, without waiting --------------------------------------------

#[test]
fn forwarding_before_arrival_is_rejected() {
    // rank 1 forwards m[0→2] to rank 2 (op 0) before it receives it from rank 0 (op 3)
    let mut p = Prog::new(3);
    let fwd = p.send(1, 2, 1, &[], &[m(0, 2)]);
    p.recv(2, 1, 1, &[]);
    p.send(0, 1, 0, &[], &[m(0, 2)]);
    p.recv(1, 0, 0, &[fwd]);
    let initial = [holds(0, m(0, 2))];
    let finals = [holds(2, m(0, 2))];
    assert_eq!(p.run(&initial, &finals, EAGER), Err(Invalid::NotHeld { op: 0, piece: 0 }));
}

#[test]
fn combining_an_operand_that_never_arrives_is_rejected() {
    // rank 0 combines v0 ⊕ v1, but rank 1 never sent v1
    let mut p = Prog::new(2);
    p.compute(0, &[], &[v(0, 0), v(1, 1)], v(0, 1));
    let initial = [holds(0, v(0, 0)), holds(1, v(1, 1))];
    assert_eq!(p.run(&initial, &[holds(0, v(0, 1))], EAGER), Err(Invalid::NotHeld { op: 0, piece: 1 }));
}

#[test]
fn forwarding_without_waiting_for_the_receive_is_rejected() {
    // rank 1 receives m[0→2] (op 1) and forwards it (op 3) after an unrelated computation (op 2), not after
    // the receive: it happens to arrive first in this execution, but nothing makes the send wait for it
    let mut p = Prog::new(3);
    p.send(0, 1, 0, &[], &[m(0, 2)]);
    p.recv(1, 0, 0, &[]);
    let work = p.op(1, 2, -1, -1, &[], &[]);
    p.send(1, 2, 1, &[work], &[m(0, 2)]);
    p.recv(2, 1, 1, &[]);
    let initial = [holds(0, m(0, 2))];
    let finals = [holds(2, m(0, 2))];
    assert_eq!(p.run(&initial, &finals, EAGER), Err(Invalid::NotWaited { op: 3, piece: 0, producer: 1 }));
    // waiting for the receive (through the computation) makes it valid
    p.dep_idx = vec![1, 2];
    p.dep_ptr = vec![0, 0, 0, 1, 2, 2];
    assert_eq!(p.run(&initial, &finals, EAGER), Ok(vec![0, 1, 2, 3, 4]));
}

#[test]
fn combining_without_waiting_for_the_computation_is_rejected() {
    // the second combination uses v[0..1], made by the first, without waiting for it
    let mut p = reduce(&[v(0, 0), v(1, 1)], v(0, 1), &[v(0, 1), v(2, 2)], v(0, 2));
    p.dep_idx = vec![1, 3, 3]; // op 3 waits for op 1, ops 4 and 5 for op 3 (op 5 not for op 4)
    p.dep_ptr = vec![0, 0, 0, 0, 1, 2, 3];
    assert_eq!(run_reduce(&p), Err(Invalid::NotWaited { op: 5, piece: 0, producer: 4 }));
}

// --- duplicate delivery -------------------------------------------------------------

#[test]
fn delivering_what_the_rank_holds_from_the_start_is_rejected() {
    let mut p = Prog::new(2);
    p.send(0, 1, 0, &[], &[m(0, 1)]);
    p.recv(1, 0, 0, &[]);
    let initial = [holds(0, m(0, 1)), holds(1, m(0, 1))];
    assert_eq!(p.run(&initial, &[], EAGER), Err(Invalid::Duplicate { op: 1, piece: 0, earlier: -1 }));
}

#[test]
fn delivering_twice_is_rejected() {
    // rank 0 sends m[0→2] to rank 2 directly (ops 0, 1) and through rank 1 (ops 2-5)
    let mut p = Prog::new(3);
    p.send(0, 2, 0, &[], &[m(0, 2)]);
    let first = p.recv(2, 0, 0, &[]);
    p.send(0, 1, 1, &[0], &[m(0, 2)]);
    let relay = p.recv(1, 0, 1, &[]);
    p.send(1, 2, 2, &[relay], &[m(0, 2)]);
    p.recv(2, 1, 2, &[first]);
    let initial = [holds(0, m(0, 2))];
    let finals = [holds(2, m(0, 2))];
    assert_eq!(p.run(&initial, &finals, EAGER), Err(Invalid::Duplicate { op: 5, piece: 0, earlier: 1 }));
}

#[test]
fn delivering_an_overlapping_fragment_is_rejected() {
    // halves [0, 1) and [1, 2) of m[0→1] are fine; then [0, 2) again overlaps what op 1 brought
    let mut p = Prog::new(2);
    p.denominator = 2;
    let half = |s: i64| [0, 0, 0, 1, s, s + 1];
    p.send(0, 1, 0, &[], &[half(0)]);
    let r0 = p.recv(1, 0, 0, &[]);
    p.send(0, 1, 1, &[0], &[half(1)]);
    let r1 = p.recv(1, 0, 1, &[r0]);
    let initial = [holds(0, m(0, 1))];
    let finals = [holds(1, m(0, 1))];
    assert!(p.run(&initial, &finals, EAGER).is_ok());
    p.send(0, 1, 2, &[2], &[[0, 0, 0, 1, 0, 2]]);
    p.recv(1, 0, 2, &[r1]);
    assert_eq!(p.run(&initial, &finals, EAGER), Err(Invalid::Duplicate { op: 5, piece: 0, earlier: 1 }));
}

#[test]
fn computing_a_value_the_rank_holds_is_rejected() {
    // rank 0 combines v0 ⊕ v1 twice: the second output is a duplicate (piece 2: the output row)
    let mut p = reduce(&[v(0, 0), v(1, 1)], v(0, 1), &[v(0, 0), v(1, 1)], v(0, 1));
    assert_eq!(run_reduce(&p), Err(Invalid::Duplicate { op: 5, piece: 2, earlier: 4 }));
    // a combination into a value held from the start
    p = reduce(&[v(0, 0), v(1, 1)], v(0, 1), &[v(0, 1), v(2, 2)], v(0, 2));
    let (mut initial, finals) = reduce_values();
    initial.push(holds(0, v(0, 1)));
    assert_eq!(p.run(&initial, &finals, EAGER), Err(Invalid::Duplicate { op: 4, piece: 2, earlier: -1 }));
}

// --- what must be held at the end ---------------------------------------------------

#[test]
fn value_never_delivered_is_missing() {
    let p = reduce(&[v(0, 0), v(1, 1)], v(0, 1), &[v(1, 1), v(2, 2)], v(1, 2));
    let (initial, finals) = reduce_values();
    assert_eq!(p.run(&initial, &finals, EAGER), Err(Invalid::Missing { rank: 0, value: [1, 0, 0, 2], start: 0, end: 1, held: 0 }));
}

#[test]
fn value_delivered_in_part_is_missing() {
    let mut p = Prog::new(2);
    p.denominator = 2;
    p.send(0, 1, 0, &[], &[[0, 0, 0, 1, 1, 2]]);
    p.recv(1, 0, 0, &[]);
    let err = p.run(&[holds(0, m(0, 1))], &[holds(1, m(0, 1))], EAGER);
    assert_eq!(err, Err(Invalid::Missing { rank: 1, value: [0, 0, 0, 1], start: 0, end: 2, held: 1 }));
}

// --- deadlock -----------------------------------------------------------------------

/// Ranks 0 and 1 exchange a signal (msg 0: 0 → 1, msg 1: 1 → 0); `recv_first` puts each receive before the send.
fn exchange(recv_first: bool) -> Prog {
    let mut p = Prog::new(2);
    if recv_first {
        let r0 = p.recv(0, 1, 1, &[]);
        let r1 = p.recv(1, 0, 0, &[]);
        p.send(0, 1, 0, &[r0], &[]);
        p.send(1, 0, 1, &[r1], &[]);
    } else {
        let s0 = p.send(0, 1, 0, &[], &[]);
        let s1 = p.send(1, 0, 1, &[], &[]);
        p.recv(0, 1, 1, &[s0]);
        p.recv(1, 0, 0, &[s1]);
    }
    p
}

#[test]
fn receives_that_wait_for_each_other_deadlock() {
    // each rank receives before it sends: a cycle of waits even with buffered sends
    let p = exchange(true);
    assert_eq!(p.run(&[], &[], EAGER), Err(Invalid::Deadlock { stuck: vec![0, 1, 2, 3] }));
    assert_eq!(p.run(&[], &[], RENDEZVOUS), Err(Invalid::Deadlock { stuck: vec![0, 1, 2, 3] }));
}

#[test]
fn sends_before_receives_deadlock_only_under_rendezvous() {
    let p = exchange(false);
    assert_eq!(p.run(&[], &[], EAGER), Ok(vec![0, 1, 2, 3]));
    assert_eq!(p.run(&[], &[], RENDEZVOUS), Err(Invalid::Deadlock { stuck: vec![0, 1, 2, 3] }));
}

#[test]
fn deadlock_names_at_most_eight_stuck_operations() {
    // a ring of 6 ranks, each receiving from its left before sending to its right: 12 operations stuck
    let n = 6;
    let mut p = Prog::new(n as usize);
    let left = |r: i64| (r + n - 1) % n;
    let recvs: Vec<usize> = (0..n).map(|r| p.recv(r, left(r), left(r), &[])).collect();
    for r in 0..n {
        p.send(r, (r + 1) % n, r, &[recvs[r as usize]], &[]);
    }
    assert_eq!(p.run(&[], &[], EAGER), Err(Invalid::Deadlock { stuck: (0..8).collect() }));
}

// --- malformed programs -------------------------------------------------------------

fn two_ranks_one_message() -> Prog {
    let mut p = Prog::new(2);
    p.send(0, 1, 0, &[], &[m(0, 1)]);
    p.recv(1, 0, 0, &[]);
    p
}

fn structure(p: &Prog) -> StructureError {
    match p.run(&[holds(0, m(0, 1))], &[], EAGER) {
        Err(Invalid::Structure(e)) => e,
        other => panic!("expected a structure error, got {other:?}"),
    }
}

#[test]
fn arrays_of_different_lengths_are_rejected() {
    let mut p = two_ranks_one_message();
    p.op_peer.pop();
    assert_eq!(structure(&p), StructureError::Shape("per-operation arrays differ in length"));
    let mut p = two_ranks_one_message();
    p.dep_ptr.pop();
    assert_eq!(structure(&p), StructureError::Shape("CSR pointers must have one entry per operation plus one"));
    let mut p = two_ranks_one_message();
    p.pieces.pop();
    assert_eq!(structure(&p), StructureError::Shape("CSR pointers do not end at the data length"));
    let mut p = two_ranks_one_message();
    p.denominator = 0;
    assert_eq!(structure(&p), StructureError::Shape("denominator must be >= 1"));
}

#[test]
fn ranks_peers_kinds_and_negative_ids_out_of_range_are_rejected() {
    for (column, value) in [("rank", 2), ("rank", -1), ("kind", 3), ("peer", 2), ("peer", -1), ("msg", -1)] {
        let mut p = two_ranks_one_message();
        let col = match column {
            "rank" => &mut p.op_rank,
            "kind" => &mut p.op_kind,
            "peer" => &mut p.op_peer,
            _ => &mut p.op_msg,
        };
        col[1] = value;
        assert_eq!(structure(&p), StructureError::BadOp { op: 1 }, "{column} = {value}");
    }
}

#[test]
fn dependency_on_a_later_operation_is_rejected() {
    let mut p = two_ranks_one_message();
    p.dep_idx = vec![1];
    p.dep_ptr = vec![0, 0, 1];
    assert_eq!(structure(&p), StructureError::BadDependency { op: 1, dep: 1 });
}

#[test]
fn message_sent_twice_or_never_is_rejected() {
    let mut p = two_ranks_one_message();
    p.send(0, 1, 0, &[0], &[]);
    assert_eq!(structure(&p), StructureError::UnmatchedMessage { msg: 0, op: 2 });
    let mut p = two_ranks_one_message();
    p.recv(1, 0, 1, &[1]);
    assert_eq!(structure(&p), StructureError::UnmatchedMessage { msg: 1, op: 2 });
}

#[test]
fn message_whose_ends_do_not_name_each_other_is_rejected() {
    let mut p = two_ranks_one_message();
    p.n_ranks = 3;
    p.op_peer[1] = 2;
    assert_eq!(structure(&p), StructureError::MismatchedMessage { msg: 0, send: 0, recv: 1 });
}

#[test]
fn pieces_outside_the_value_are_rejected() {
    for bad in [[0, 0, 0, 1, 1, 1], [0, 0, 0, 1, -1, 1], [0, 0, 0, 1, 0, 2], [3, 0, 0, 1, 0, 1], [2, 0, 0, 0, 0, 1]] {
        let mut p = Prog::new(2);
        p.send(0, 1, 0, &[], &[m(0, 1), bad]);
        p.recv(1, 0, 0, &[]);
        assert_eq!(structure(&p), StructureError::BadPiece { op: 0, piece: 1 }, "{bad:?}");
    }
}

#[test]
fn pieces_on_a_receive_are_rejected() {
    let mut p = Prog::new(2);
    p.send(0, 1, 0, &[], &[m(0, 1)]);
    p.op(1, 1, 0, 0, &[], &[m(0, 1)]);
    assert_eq!(structure(&p), StructureError::PiecesOnRecv { op: 1 });
}

#[test]
fn message_ids_past_the_number_of_operations_are_rejected_before_allocating() {
    // ids index arrays: 2^40 (or i64::MAX) would ask for terabytes
    for id in [2, 1 << 40, i64::MAX] {
        let mut p = two_ranks_one_message();
        p.op_msg = vec![id, id];
        assert_eq!(structure(&p), StructureError::BadMessageId { op: 0, msg: id });
    }
    // a computation's message id is not used
    let mut p = two_ranks_one_message();
    p.op(0, 2, -1, i64::MAX, &[0], &[]);
    assert!(p.run(&[holds(0, m(0, 1))], &[holds(1, m(0, 1))], EAGER).is_ok());
}
