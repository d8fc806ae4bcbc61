//! Symbolic execution of a program: does it implement its collective?
//!
//! Every rank starts with its initial values. Operations run in a
//! topological order of the happens-before graph (dependencies, and each
//! message's send before its receive; with `rendezvous`, a send and its
//! receive happen together, as with synchronous MPI sends). A send or a
//! computation may only use pieces its rank holds *and waits for*: the
//! operation that produced a piece must be among its ancestors through
//! dependencies, otherwise the program races. A receive adds the pieces of its
//! message; receiving a piece already held is a duplicate. A computation
//! combines adjacent partial results `v[k..l]`, `v[l+1..m]` (same instance,
//! same fragment) into `v[k..m]`, which preserves operand order, or
//! commutative reductions `Σ{S_1}`, `Σ{S_2}`, ... of pairwise disjoint operand
//! sets (same instance, same fragment, any order) into `Σ{S_1 ∪ S_2 ∪ ...}`;
//! the sets are the program's [`OperandSets`] and a reduction's row names one
//! by index. At the end, every rank must hold every fragment `[start, end)`
//! of every value it must hold.
//!
//! Each way of failing is a variant of [`Invalid`] (a malformed program is
//! [`Invalid::Structure`]); `tests/validate_rejections.rs` has a test for each
//! that asserts the exact error.
//!
//! ```
//! use collsched_core::program::{OperandSets, ProgramView};
//! use collsched_core::validate::{validate, Invalid, Options};
//! // rank 1 sends v[1..1] to rank 0, which combines it with v[0..0]
//! let p = ProgramView {
//!     n_ranks: 2,
//!     op_rank: &[1, 0, 0],
//!     op_kind: &[0, 1, 2],
//!     op_peer: &[0, 1, -1],
//!     op_msg: &[0, 0, -1],
//!     dep_ptr: &[0, 0, 0, 1],
//!     dep_idx: &[1],
//!     piece_ptr: &[0, 1, 1, 4],
//!     pieces: &[1, 0, 1, 1, 0, 1, /* compute: */ 1, 0, 0, 0, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 0, 1, 0, 1],
//!     denominator: 1,
//! };
//! let initial = [0, 1, 0, 0, 0, /* */ 1, 1, 0, 1, 1];
//! let finals = [0, 1, 0, 0, 1, 0, 1];
//! let no_sets = OperandSets::EMPTY;
//! assert_eq!(validate(&p, &no_sets, &initial, &finals, Options::default()).unwrap(), vec![0, 1, 2]);
//! // without the dependency of the computation on the receive, the program races
//! let racy = ProgramView { dep_ptr: &[0, 0, 0, 0], dep_idx: &[], ..p };
//! assert!(matches!(validate(&racy, &no_sets, &initial, &finals, Options::default()),
//!                  Err(Invalid::NotHeld { op: 2, piece: 1 })));
//! ```

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use crate::holdings::Fragments;
use crate::program::{Kind, OperandSets, ProgramView, StructureError};

/// A symbolic value: `(kind, inst, a, b)`; kind 0 is a block `m[a→b]@inst`, kind 1 a partial result
/// `v[a..b]@inst`, kind 2 the commutative reduction `Σ{set a}@inst` (`b == 0`).
pub type ValueKey = [i64; 4];

const PARTIAL: i64 = 1;
const REDUCED: i64 = 2;

/// Execution semantics.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// A send completes only together with its receive (synchronous sends); deadlocks are checked under it.
    pub rendezvous: bool,
}

/// Why a program does not implement its collective.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Invalid {
    /// The program is malformed.
    Structure(StructureError),
    /// These operations (the lowest indices, at most 8) can never run: a dependency cycle.
    Deadlock { stuck: Vec<usize> },
    /// Operation `op` uses piece `piece` (of its list), which its rank does not hold when it runs.
    NotHeld { op: usize, piece: usize },
    /// Operation `op` uses piece `piece`, produced by operation `producer` that `op` does not wait for.
    NotWaited { op: usize, piece: usize, producer: usize },
    /// Operation `op` delivers piece `piece` to a rank that already holds (part of) it, from `earlier` (-1: from the start).
    Duplicate { op: usize, piece: usize, earlier: i64 },
    /// Computation `op` does not combine adjacent partial results of one instance into their union.
    BadCombine { op: usize, reason: &'static str },
    /// Rank `rank` ends without all of `[start, end)` of `value` (it holds `held` parts of that range).
    Missing { rank: usize, value: ValueKey, start: i64, end: i64, held: i64 },
}

impl From<StructureError> for Invalid {
    fn from(e: StructureError) -> Self {
        Invalid::Structure(e)
    }
}

/// Symbolically execute `p`, whose reductions name the operand sets of `sets`.
///
/// `initial` is rows of `(rank, kind, inst, a, b)` (whole values), `finals`
/// rows of `(rank, kind, inst, a, b, start, end)` (fragments in units of the
/// program's denominator), flattened. Returns the order in which the
/// operations ran.
pub fn validate(
    p: &ProgramView,
    sets: &OperandSets,
    initial: &[i64],
    finals: &[i64],
    opts: Options,
) -> Result<Vec<usize>, Invalid> {
    let checked = p.check()?;
    for op in 0..p.n_ops() {
        for (piece, row) in p.pieces_of(op).enumerate() {
            if row[0] == REDUCED && !set_ok(sets, row) {
                return Err(StructureError::BadPiece { op, piece }.into());
            }
        }
    }
    let values = initial.chunks_exact(5).map(|r| &r[1..]).chain(finals.chunks_exact(7).map(|r| &r[1..]));
    if values.clone().any(|v| v[0] == REDUCED && !set_ok(sets, v)) {
        return Err(StructureError::Shape("an initial or final reduction names no operand set of the table").into());
    }
    let n = p.n_ops();
    let denom = p.denominator;
    // every initial value, and at most one new value per piece a receive or a computation brings
    let arriving = (0..n).filter(|&op| p.kind(op) != Kind::Send).map(|op| {
        let sent = if p.kind(op) == Kind::Recv { checked.send_of_msg[p.op_msg[op] as usize] } else { op };
        (p.piece_ptr[sent + 1] - p.piece_ptr[sent]) as usize
    });
    let mut hold: FxHashMap<(usize, ValueKey), Fragments> = FxHashMap::default();
    hold.reserve(initial.len() / 5 + arriving.sum::<usize>());
    for row in initial.chunks_exact(5) {
        let frags = hold.entry((row[0] as usize, key(&row[1..], sets))).or_default();
        if !frags.covers(0, denom) {
            let _ = frags.insert(0, denom, -1);
        }
    }
    let ancestry = Ancestry::new(p, &checked.local);
    let ctx = Ctx { p, checked: &checked, ancestry: &ancestry, sets };

    // happens-before graph over units: an op is its own unit, except that under
    // rendezvous a receive joins the unit of its send
    let unit = |op: usize| -> usize {
        if opts.rendezvous && p.kind(op) == Kind::Recv {
            checked.send_of_msg[p.op_msg[op] as usize]
        } else {
            op
        }
    };
    let mut indeg = vec![0u32; n];
    let mut succ_count = vec![0usize; n + 1];
    let mut edges: Vec<(usize, usize)> = Vec::with_capacity(p.dep_idx.len() + n / 2);
    for op in 0..n {
        for &d in p.deps(op) {
            edges.push((unit(d as usize), unit(op)));
        }
        if !opts.rendezvous && p.kind(op) == Kind::Recv {
            edges.push((checked.send_of_msg[p.op_msg[op] as usize], op));
        }
    }
    edges.retain(|&(a, b)| a != b);
    for &(a, b) in &edges {
        indeg[b] += 1;
        succ_count[a + 1] += 1;
    }
    for i in 0..n {
        succ_count[i + 1] += succ_count[i];
    }
    let mut fill = succ_count.clone();
    let mut succ = vec![0usize; edges.len()];
    for &(a, b) in &edges {
        succ[fill[a]] = b;
        fill[a] += 1;
    }
    let mut queue: VecDeque<usize> = (0..n).filter(|&op| unit(op) == op && indeg[op] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(u) = queue.pop_front() {
        run(&ctx, &mut hold, u)?;
        order.push(u);
        if opts.rendezvous && p.kind(u) == Kind::Send {
            let r = checked.recv_of_msg[p.op_msg[u] as usize];
            run(&ctx, &mut hold, r)?;
            order.push(r);
        }
        for &v in &succ[succ_count[u]..succ_count[u + 1]] {
            indeg[v] -= 1;
            if indeg[v] == 0 {
                queue.push_back(v);
            }
        }
    }
    if order.len() < n {
        let mut ran = vec![false; n];
        order.iter().for_each(|&op| ran[op] = true);
        let stuck: Vec<usize> = (0..n).filter(|&op| !ran[op]).take(8).collect();
        return Err(Invalid::Deadlock { stuck });
    }
    for row in finals.chunks_exact(7) {
        let (rank, value, start, end) = (row[0] as usize, key(&row[1..], sets), row[5], row[6]);
        let frags = hold.get(&(rank, value));
        if !frags.is_some_and(|f| f.covers(start, end)) {
            let held = frags.map_or(0, |f| f.held_in(start, end));
            let value = [row[1], row[2], row[3], row[4]];
            return Err(Invalid::Missing { rank, value, start, end, held });
        }
    }
    Ok(order)
}

/// A reduction's row names a non-empty set of the table, with `b == 0`.
fn set_ok(sets: &OperandSets, row: &[i64]) -> bool {
    row[3] == 0 && (0..sets.len() as i64).contains(&row[2]) && !sets.empty_set(row[2] as usize)
}

/// The holding key of a value row: equal operand sets are one value, whatever their index.
fn key(row: &[i64], sets: &OperandSets) -> ValueKey {
    let a = if row[0] == REDUCED { sets.canonical(row[2] as usize) } else { row[2] };
    [row[0], row[1], a, row[3]]
}

/// What executing an operation reads.
struct Ctx<'a> {
    p: &'a ProgramView<'a>,
    checked: &'a crate::program::Checked,
    ancestry: &'a Ancestry<'a>,
    sets: &'a OperandSets<'a>,
}

/// Check that `op` may use every piece in `rows` (held, and waited for).
fn check_uses<'a>(
    ctx: &Ctx,
    op: usize,
    rank: usize,
    rows: impl Iterator<Item = &'a [i64]>,
    hold: &FxHashMap<(usize, ValueKey), Fragments>,
) -> Result<(), Invalid> {
    for (i, row) in rows.enumerate() {
        let frags = hold.get(&(rank, key(row, ctx.sets))).ok_or(Invalid::NotHeld { op, piece: i })?;
        // the fragments' producers in order: the first one not waited for is the error, unless a part is missing
        let mut unwaited = None;
        let covered = frags.each_producer(row[4], row[5], |producer| {
            if unwaited.is_none() && producer >= 0 && !ctx.ancestry.is_ancestor(producer as usize, op) {
                unwaited = Some(producer as usize);
            }
            Ok::<(), ()>(())
        });
        if covered != Ok(true) {
            return Err(Invalid::NotHeld { op, piece: i });
        }
        if let Some(producer) = unwaited {
            return Err(Invalid::NotWaited { op, piece: i, producer });
        }
    }
    Ok(())
}

fn run(ctx: &Ctx, hold: &mut FxHashMap<(usize, ValueKey), Fragments>, op: usize) -> Result<(), Invalid> {
    let p = ctx.p;
    let rank = p.op_rank[op] as usize;
    match p.kind(op) {
        Kind::Send => check_uses(ctx, op, rank, p.pieces_of(op), hold),
        Kind::Recv => {
            let send = ctx.checked.send_of_msg[p.op_msg[op] as usize];
            for (i, row) in p.pieces_of(send).enumerate() {
                let frags = hold.entry((rank, key(row, ctx.sets))).or_default();
                frags
                    .insert(row[4], row[5], op as i64)
                    .map_err(|earlier| Invalid::Duplicate { op, piece: i, earlier })?;
            }
            Ok(())
        }
        Kind::Compute => {
            let rows: Vec<&[i64]> = p.pieces_of(op).collect();
            if rows.is_empty() {
                return Ok(()); // a computation that only takes time
            }
            if rows.len() < 3 {
                return Err(Invalid::BadCombine { op, reason: "a combination needs two inputs and one output" });
            }
            let (inputs, output) = rows.split_at(rows.len() - 1);
            let output = output[0];
            if rows.iter().any(|r| r[0] == REDUCED) {
                if rows.iter().any(|r| r[0] != REDUCED) {
                    return Err(Invalid::BadCombine { op, reason: "a reduction Σ{...} combines only with reductions Σ{...}" });
                }
            } else if rows.iter().any(|r| r[0] != PARTIAL) {
                return Err(Invalid::BadCombine { op, reason: "only partial results v[k..m] can be combined" });
            }
            if rows.iter().any(|r| r[1] != output[1] || r[4] != output[4] || r[5] != output[5]) {
                return Err(Invalid::BadCombine { op, reason: "inputs and output must be the same instance and fragment" });
            }
            if output[0] == REDUCED {
                let ids: Vec<usize> = inputs.iter().map(|r| r[2] as usize).collect();
                let overlap = (0..ids.len()).any(|i| (i + 1..ids.len()).any(|j| !ctx.sets.disjoint(ids[i], ids[j])));
                if overlap {
                    return Err(Invalid::BadCombine { op, reason: "the inputs' operand sets overlap" });
                }
                if !ctx.sets.union_is(&ids, output[2] as usize) {
                    return Err(Invalid::BadCombine { op, reason: "the output is not the union of the inputs" });
                }
            } else {
                if inputs.windows(2).any(|w| w[0][3] + 1 != w[1][2]) {
                    return Err(Invalid::BadCombine { op, reason: "inputs are not adjacent in operand order" });
                }
                if inputs[0][2] != output[2] || inputs[inputs.len() - 1][3] != output[3] {
                    return Err(Invalid::BadCombine { op, reason: "the output is not the union of the inputs" });
                }
            }
            check_uses(ctx, op, rank, inputs.iter().copied(), hold)?;
            let frags = hold.entry((rank, key(output, ctx.sets))).or_default();
            frags
                .insert(output[4], output[5], op as i64)
                .map_err(|earlier| Invalid::Duplicate { op, piece: rows.len() - 1, earlier })
        }
    }
}

/// Answers "does operation `b` wait (transitively) for operation `a` of its rank?".
///
/// `prefix[b]` is a count `k` such that the first `k` operations of the rank
/// are all ancestors of `b` (exact for chains and barriers, so O(1) in the
/// common case); otherwise a depth-first search over dependencies, which only
/// visits operations after `a`.
struct Ancestry<'a> {
    p: &'a ProgramView<'a>,
    local: &'a [usize],
    prefix: Vec<usize>,
}

impl<'a> Ancestry<'a> {
    fn new(p: &'a ProgramView<'a>, local: &'a [usize]) -> Self {
        let mut prefix = vec![0usize; p.n_ops()];
        for op in 0..p.n_ops() {
            prefix[op] = p
                .deps(op)
                .iter()
                .map(|&d| {
                    let d = d as usize;
                    if prefix[d] == local[d] {
                        local[d] + 1
                    } else {
                        prefix[d]
                    }
                })
                .max()
                .unwrap_or(0);
        }
        Ancestry { p, local, prefix }
    }

    fn is_ancestor(&self, a: usize, b: usize) -> bool {
        if a >= b {
            return false;
        }
        let mut stack = vec![b];
        let mut seen = rustc_hash::FxHashSet::default();
        while let Some(x) = stack.pop() {
            if self.local[a] < self.prefix[x] {
                return true;
            }
            for &d in self.p.deps(x) {
                let d = d as usize;
                if d == a {
                    return true;
                }
                if d > a && seen.insert(d) {
                    stack.push(d);
                }
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain 0 -> 1 -> 2: rank 0 sends m to rank 1, which forwards it to rank 2.
    struct Chain {
        op_rank: Vec<i64>,
        op_kind: Vec<i64>,
        op_peer: Vec<i64>,
        op_msg: Vec<i64>,
        dep_ptr: Vec<i64>,
        dep_idx: Vec<i64>,
        piece_ptr: Vec<i64>,
        pieces: Vec<i64>,
    }

    impl Chain {
        fn new(forward_waits: bool) -> Self {
            let m = [0, 0, 0, 2, 0, 1];
            Chain {
                op_rank: vec![0, 1, 1, 2],
                op_kind: vec![0, 1, 0, 1],
                op_peer: vec![1, 0, 2, 1],
                op_msg: vec![0, 0, 1, 1],
                dep_ptr: if forward_waits { vec![0, 0, 0, 1, 1] } else { vec![0, 0, 0, 0, 0] },
                dep_idx: if forward_waits { vec![1] } else { vec![] },
                piece_ptr: vec![0, 1, 1, 2, 2],
                pieces: [m, m].concat(),
            }
        }
        fn view(&self) -> ProgramView<'_> {
            ProgramView {
                n_ranks: 3,
                op_rank: &self.op_rank,
                op_kind: &self.op_kind,
                op_peer: &self.op_peer,
                op_msg: &self.op_msg,
                dep_ptr: &self.dep_ptr,
                dep_idx: &self.dep_idx,
                piece_ptr: &self.piece_ptr,
                pieces: &self.pieces,
                denominator: 1,
            }
        }
    }

    const INIT: [i64; 5] = [0, 0, 0, 0, 2];
    const FINAL: [i64; 7] = [2, 0, 0, 0, 2, 0, 1];
    const NO_SETS: OperandSets<'static> = OperandSets::EMPTY;

    #[test]
    fn forwarding_chain_validates() {
        let c = Chain::new(true);
        assert_eq!(validate(&c.view(), &NO_SETS, &INIT, &FINAL, Options::default()).unwrap(), vec![0, 1, 2, 3]);
    }

    #[test]
    fn forwarding_without_waiting_is_caught() {
        let c = Chain::new(false);
        let err = validate(&c.view(), &NO_SETS, &INIT, &FINAL, Options::default()).unwrap_err();
        assert!(matches!(err, Invalid::NotHeld { op: 2, piece: 0 } | Invalid::NotWaited { op: 2, piece: 0, producer: 1 }));
    }

    #[test]
    fn missing_final_value_is_reported_with_its_rank() {
        let c = Chain::new(true);
        let finals = [1, 0, 0, 0, 1, 0, 1];
        let err = validate(&c.view(), &NO_SETS, &INIT, &finals, Options::default()).unwrap_err();
        assert_eq!(err, Invalid::Missing { rank: 1, value: [0, 0, 0, 1], start: 0, end: 1, held: 0 });
    }

    #[test]
    fn duplicate_delivery_is_caught() {
        let mut c = Chain::new(true);
        // rank 0 sends m to rank 2 directly as well
        c.op_rank.extend([0, 2]);
        c.op_kind.extend([0, 1]);
        c.op_peer.extend([2, 0]);
        c.op_msg.extend([2, 2]);
        c.dep_ptr.extend([1, 1]);
        c.piece_ptr.extend([3, 3]);
        c.pieces.extend([0, 0, 0, 2, 0, 1]);
        let err = validate(&c.view(), &NO_SETS, &INIT, &FINAL, Options::default()).unwrap_err();
        assert!(matches!(err, Invalid::Duplicate { .. }));
    }

    #[test]
    fn rendezvous_deadlock_is_found() {
        // two ranks each send to the other before receiving: fine eagerly, a deadlock under rendezvous
        let op_rank = [0, 1, 0, 1];
        let op_kind = [0, 0, 1, 1];
        let op_peer = [1, 0, 1, 0];
        let op_msg = [0, 1, 1, 0];
        let dep_ptr = [0, 0, 0, 1, 2];
        let dep_idx = [0, 1];
        let p = ProgramView {
            n_ranks: 2,
            op_rank: &op_rank,
            op_kind: &op_kind,
            op_peer: &op_peer,
            op_msg: &op_msg,
            dep_ptr: &dep_ptr,
            dep_idx: &dep_idx,
            piece_ptr: &[0, 0, 0, 0, 0],
            pieces: &[],
            denominator: 1,
        };
        assert!(validate(&p, &NO_SETS, &[], &[], Options { rendezvous: false }).is_ok());
        let err = validate(&p, &NO_SETS, &[], &[], Options { rendezvous: true }).unwrap_err();
        assert_eq!(err, Invalid::Deadlock { stuck: vec![0, 1, 2, 3] });
    }
}
