//! Column-wise programs: per operation a rank, a kind, a peer, a message id,
//! dependencies (CSR) and symbolic pieces (CSR of 6-tuples).
//!
//! ```
//! use collsched_core::program::{Kind, ProgramView};
//! // rank 0 sends message 0 to rank 1; rank 1 receives it
//! let p = ProgramView {
//!     n_ranks: 2,
//!     op_rank: &[0, 1],
//!     op_kind: &[0, 1],
//!     op_peer: &[1, 0],
//!     op_msg: &[0, 0],
//!     dep_ptr: &[0, 0, 0],
//!     dep_idx: &[],
//!     piece_ptr: &[0, 1, 1],
//!     pieces: &[0, 0, 0, 1, 0, 1],
//!     denominator: 1,
//! };
//! let checked = p.check().unwrap();
//! assert_eq!(checked.recv_of_msg[0], 1);
//! assert_eq!(p.kind(1), Kind::Recv);
//! ```

use std::fmt;

/// The kind of an operation (the integer codes are those of the Python side).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Send = 0,
    Recv = 1,
    Compute = 2,
}

/// Borrowed column-wise program, as handed over by Python (all `i64`).
#[derive(Clone, Copy, Debug)]
pub struct ProgramView<'a> {
    pub n_ranks: usize,
    pub op_rank: &'a [i64],
    pub op_kind: &'a [i64],
    pub op_peer: &'a [i64],
    pub op_msg: &'a [i64],
    pub dep_ptr: &'a [i64],
    pub dep_idx: &'a [i64],
    pub piece_ptr: &'a [i64],
    /// Rows of `(kind, inst, a, b, start, end)`, flattened.
    pub pieces: &'a [i64],
    pub denominator: i64,
}

/// A program whose structure is sound, with its messages matched.
#[derive(Clone, Debug)]
pub struct Checked {
    /// Send operation of each message id.
    pub send_of_msg: Vec<usize>,
    /// Receive operation of each message id.
    pub recv_of_msg: Vec<usize>,
    /// Position of each operation among the operations of its rank.
    pub local: Vec<usize>,
}

/// Why a program is not even well formed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StructureError {
    /// The arrays do not have consistent lengths.
    Shape(&'static str),
    /// Operation `op` has a rank, peer or kind out of range.
    BadOp { op: usize },
    /// Operation `op` depends on `dep`, which is not an earlier operation of the same rank.
    BadDependency { op: usize, dep: i64 },
    /// Message `msg` has no send, no receive, or more than one of either (`op` is one of its operations).
    UnmatchedMessage { msg: i64, op: usize },
    /// The send and the receive of message `msg` do not name each other's ranks.
    MismatchedMessage { msg: i64, send: usize, recv: usize },
    /// Piece `piece` of operation `op` is not a fragment `[start, end)` inside `[0, denominator)`.
    BadPiece { op: usize, piece: usize },
    /// Operation `op` (a receive) lists pieces; pieces travel on the send.
    PiecesOnRecv { op: usize },
    /// Operation `op` (a send or a receive) has message id `msg`, not below the number of operations.
    ///
    /// Message ids index arrays, so they are bounded before anything is allocated: a program with
    /// `M` messages has at least `2M` operations, so ids `0..M` always fit. Renumber sparse ids first.
    BadMessageId { op: usize, msg: i64 },
}

impl fmt::Display for StructureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

impl<'a> ProgramView<'a> {
    pub fn n_ops(&self) -> usize {
        self.op_rank.len()
    }

    pub fn kind(&self, op: usize) -> Kind {
        match self.op_kind[op] {
            0 => Kind::Send,
            1 => Kind::Recv,
            _ => Kind::Compute,
        }
    }

    pub fn deps(&self, op: usize) -> &'a [i64] {
        &self.dep_idx[self.dep_ptr[op] as usize..self.dep_ptr[op + 1] as usize]
    }

    /// Piece rows of operation `op`, each `[kind, inst, a, b, start, end]`.
    pub fn pieces_of(&self, op: usize) -> impl Iterator<Item = &'a [i64]> + 'a {
        let (lo, hi) = (self.piece_ptr[op] as usize, self.piece_ptr[op + 1] as usize);
        self.pieces[6 * lo..6 * hi].chunks_exact(6)
    }

    /// Check shapes, ranges, dependencies and message matching.
    pub fn check(&self) -> Result<Checked, StructureError> {
        let n = self.n_ops();
        if self.op_kind.len() != n || self.op_peer.len() != n || self.op_msg.len() != n {
            return Err(StructureError::Shape("per-operation arrays differ in length"));
        }
        if self.dep_ptr.len() != n + 1 || self.piece_ptr.len() != n + 1 {
            return Err(StructureError::Shape("CSR pointers must have one entry per operation plus one"));
        }
        if *self.dep_ptr.last().unwrap() as usize != self.dep_idx.len()
            || 6 * (*self.piece_ptr.last().unwrap() as usize) != self.pieces.len()
        {
            return Err(StructureError::Shape("CSR pointers do not end at the data length"));
        }
        if self.denominator < 1 {
            return Err(StructureError::Shape("denominator must be >= 1"));
        }
        let mut local = vec![0usize; n];
        let mut count = vec![0usize; self.n_ranks];
        let mut last_of_rank: Vec<i64> = vec![-1; self.n_ranks];
        // message ids index the two arrays below: bound them before allocating
        let talks = |op: usize| (0..=1).contains(&self.op_kind[op]);
        if let Some(op) = (0..n).find(|&op| talks(op) && self.op_msg[op] >= n as i64) {
            return Err(StructureError::BadMessageId { op, msg: self.op_msg[op] });
        }
        let n_msgs = (0..n).filter(|&op| talks(op)).map(|op| self.op_msg[op] + 1).max().unwrap_or(0).max(0) as usize;
        let mut send_of_msg = vec![usize::MAX; n_msgs];
        let mut recv_of_msg = vec![usize::MAX; n_msgs];
        for op in 0..n {
            let rank = self.op_rank[op];
            if rank < 0 || rank as usize >= self.n_ranks || !(0..=2).contains(&self.op_kind[op]) {
                return Err(StructureError::BadOp { op });
            }
            let r = rank as usize;
            local[op] = count[r];
            count[r] += 1;
            for &dep in self.deps(op) {
                if dep < 0 || dep as usize >= op || self.op_rank[dep as usize] != rank {
                    return Err(StructureError::BadDependency { op, dep });
                }
            }
            last_of_rank[r] = op as i64;
            for (i, row) in self.pieces_of(op).enumerate() {
                if row[4] < 0 || row[4] >= row[5] || row[5] > self.denominator || !(0..=2).contains(&row[0]) {
                    return Err(StructureError::BadPiece { op, piece: i });
                }
            }
            let kind = self.kind(op);
            if kind == Kind::Compute {
                continue;
            }
            let peer = self.op_peer[op];
            let msg = self.op_msg[op];
            if peer < 0 || peer as usize >= self.n_ranks || msg < 0 {
                return Err(StructureError::BadOp { op });
            }
            let slot = if kind == Kind::Send { &mut send_of_msg } else { &mut recv_of_msg };
            if slot[msg as usize] != usize::MAX {
                return Err(StructureError::UnmatchedMessage { msg, op });
            }
            slot[msg as usize] = op;
            if kind == Kind::Recv && self.piece_ptr[op] != self.piece_ptr[op + 1] {
                return Err(StructureError::PiecesOnRecv { op });
            }
        }
        for msg in 0..send_of_msg.len() {
            let (s, r) = (send_of_msg[msg], recv_of_msg[msg]);
            match (s == usize::MAX, r == usize::MAX) {
                (true, true) => continue, // unused id
                (true, false) => return Err(StructureError::UnmatchedMessage { msg: msg as i64, op: r }),
                (false, true) => return Err(StructureError::UnmatchedMessage { msg: msg as i64, op: s }),
                (false, false) => {}
            }
            if self.op_peer[s] != self.op_rank[r] || self.op_peer[r] != self.op_rank[s] {
                return Err(StructureError::MismatchedMessage { msg: msg as i64, send: s, recv: r });
            }
        }
        Ok(Checked { send_of_msg, recv_of_msg, local })
    }
}

/// The operand sets of a program's commutative reductions (kind 2), CSR of
/// little-endian `u64` words of bitmasks (bit `i`: operand `i`); a reduction's
/// row `(2, inst, a, 0, ..)` names set `a`.
///
/// ```
/// use collsched_core::program::OperandSets;
/// // set 0 = {0, 3}, set 1 = {64} (second word), set 2 = {0, 3} again
/// let sets = OperandSets::new(&[0, 1, 3, 4], &[0b1001, 0, 1, 0b1001]).unwrap();
/// assert_eq!(sets.len(), 3);
/// assert!(sets.disjoint(0, 1));
/// assert_eq!(sets.canonical(2), 0); // equal sets share one holding key
/// assert_eq!(sets.positions(1), vec![64]);
/// ```
#[derive(Clone, Debug)]
pub struct OperandSets<'a> {
    ptr: &'a [i64],
    words: &'a [u64],
    canon: Vec<i64>,
}

impl<'a> OperandSets<'a> {
    /// No sets (a program without commutative reductions).
    pub const EMPTY: OperandSets<'static> = OperandSets { ptr: &[], words: &[], canon: Vec::new() };

    /// The table `ptr` (one entry per set plus one) over `words`; None if the pointers are not a CSR of `words`.
    pub fn new(ptr: &'a [i64], words: &'a [u64]) -> Option<Self> {
        if ptr.is_empty() {
            return if words.is_empty() { Some(OperandSets { ptr, words, canon: Vec::new() }) } else { None };
        }
        if ptr[0] != 0 || *ptr.last().unwrap() as usize != words.len() || ptr.windows(2).any(|w| w[0] > w[1]) {
            return None;
        }
        let mut sets = OperandSets { ptr, words, canon: Vec::with_capacity(ptr.len() - 1) };
        let mut first: rustc_hash::FxHashMap<Vec<u64>, i64> = rustc_hash::FxHashMap::default();
        for i in 0..ptr.len() - 1 {
            let key = sets.trimmed(i).to_vec();
            let c = *first.entry(key).or_insert(i as i64);
            sets.canon.push(c);
        }
        Some(sets)
    }

    /// Number of sets.
    pub fn len(&self) -> usize {
        self.canon.len()
    }

    /// True if there are no sets.
    pub fn is_empty(&self) -> bool {
        self.canon.is_empty()
    }

    /// The words of set `i`, without trailing zero words.
    pub fn trimmed(&self, i: usize) -> &'a [u64] {
        let w = &self.words[self.ptr[i] as usize..self.ptr[i + 1] as usize];
        let n = w.iter().rposition(|&x| x != 0).map_or(0, |k| k + 1);
        &w[..n]
    }

    /// The first set index equal to set `i` (equal sets are one value).
    pub fn canonical(&self, i: usize) -> i64 {
        self.canon[i]
    }

    /// True if sets `i` and `j` share no operand.
    pub fn disjoint(&self, i: usize, j: usize) -> bool {
        self.trimmed(i).iter().zip(self.trimmed(j)).all(|(a, b)| a & b == 0)
    }

    /// True if set `i` is empty.
    pub fn empty_set(&self, i: usize) -> bool {
        self.trimmed(i).is_empty()
    }

    /// The operand positions of set `i`, increasing.
    pub fn positions(&self, i: usize) -> Vec<usize> {
        let mut out = Vec::new();
        for (k, &w) in self.trimmed(i).iter().enumerate() {
            let mut w = w;
            while w != 0 {
                out.push(64 * k + w.trailing_zeros() as usize);
                w &= w - 1;
            }
        }
        out
    }

    /// True if the union of `parts` (pairwise disjoint or not) is set `whole`.
    pub fn union_is(&self, parts: &[usize], whole: usize) -> bool {
        let target = self.trimmed(whole);
        let n = parts.iter().map(|&i| self.trimmed(i).len()).max().unwrap_or(0).max(target.len());
        let mut acc = vec![0u64; n];
        for &i in parts {
            for (a, &w) in acc.iter_mut().zip(self.trimmed(i)) {
                *a |= w;
            }
        }
        acc.iter().enumerate().all(|(k, &a)| a == target.get(k).copied().unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_op(deps: &'static [i64], dep_ptr: &'static [i64]) -> ProgramView<'static> {
        ProgramView {
            n_ranks: 2,
            op_rank: &[0, 1],
            op_kind: &[0, 1],
            op_peer: &[1, 0],
            op_msg: &[0, 0],
            dep_ptr,
            dep_idx: deps,
            piece_ptr: &[0, 0, 0],
            pieces: &[],
            denominator: 1,
        }
    }

    #[test]
    fn dependency_on_another_rank_is_rejected() {
        let p = two_op(&[0], &[0, 0, 1]);
        assert_eq!(p.check().unwrap_err(), StructureError::BadDependency { op: 1, dep: 0 });
    }

    #[test]
    fn send_without_receive_is_rejected() {
        let mut p = two_op(&[], &[0, 0, 0]);
        p.op_kind = &[0, 0];
        assert!(matches!(p.check().unwrap_err(), StructureError::UnmatchedMessage { msg: 0, .. }));
    }

    #[test]
    fn peers_must_agree() {
        let mut p = two_op(&[], &[0, 0, 0]);
        p.n_ranks = 3;
        p.op_peer = &[2, 0];
        assert!(matches!(p.check().unwrap_err(), StructureError::MismatchedMessage { msg: 0, .. }));
    }
}
