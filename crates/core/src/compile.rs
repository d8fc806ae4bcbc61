//! Compile a column-wise program into the Fluid model's stage table
//! ([`crate::sim::StageTable`], contract `docs/engine.md`), from the routes
//! of every ordered pair of hosts.
//!
//! The Python front (`collsched.simulation.fluid_core`) keeps, per platform,
//! the routes of every host pair as channel sets; this module reads a
//! program's columns once, matches each message's send and receive, and
//! writes the stages of every message and computation without any
//! per-message object on the Python side. The stages are those of
//! `collsched.simulation.models.Fluid` (its Python compile is the reference
//! the tests compare with, array for array):
//!
//! - message `m` from rank `s` to rank `r`, `b` bytes, over host pair `p`:
//!   a delay of the route's latency, a flow of `b` bytes over the pair's
//!   channels at most at the pair's cap (holding `send(s)` and `recv(r)`,
//!   resources `3s` and `3r + 1`, when `one_port`), then a delay of 0 that
//!   waits for the receive to be posted; the send completes, and the receive
//!   starts, with the flow (position 1);
//! - computation of `c` flop on rank `r`: one hold of `cpu(r)` (resource
//!   `3r + 2`) for `c / speed(r)` seconds, activities after the messages in
//!   operation order.
//!
//! It also sums, per channel, the bytes that cross it (every hop of each
//! pair's route, in pair order; the bytes of a pair summed in message
//! order), so that the links' busy times need no second pass.
//!
//! The pair table itself comes from the routes of every host pair
//! ([`pair_table`]: channel sets, latencies and caps, in one pass over the
//! hops, without a Python object per pair).
//!
//! Only what the compile itself relies on is checked (ranks, kinds and
//! peers in range, message ids dense with one send and one receive each,
//! sizes finite and `>= 0`); a program that fails is [`Unfit`], and the
//! caller compiles it the slow way, which names the fault. The rest of the
//! program's structure (dependencies; a message's send and receive naming
//! each other's ranks) is the engine's check ([`crate::sim::simulate`]
//! checks [`crate::program::ProgramView::check`] before any work).
//!
//! # Examples
//!
//! Two hosts joined by one full-duplex link (channels 0 and 1, latency
//! 1 ms): rank 0 sends 1 MB to rank 1, rank 1 computes 2 Gflop at 1 Gflop/s.
//!
//! ```
//! use collsched_core::compile::{compile_fluid, HostPairs, Ops};
//! let ops = Ops {
//!     n_ranks: 2,
//!     op_rank: &[0, 1, 1],
//!     op_kind: &[0, 1, 2],
//!     op_peer: &[1, 0, -1],
//!     op_msg: &[0, 0, -1],
//!     op_size: &[1e6, 1e6, 2e9],
//! };
//! let pairs = HostPairs {
//!     n_hosts: 2,
//!     ptr: &[0, 0, 1, 2, 2],        // pairs (0,0) (0,1) (1,0) (1,1)
//!     chan: &[0, 1],
//!     latency: &[0.0, 1e-3, 1e-3, 0.0],
//!     cap: &[f64::INFINITY; 4],
//!     busy_ptr: &[0, 0, 1, 2, 2],
//!     busy_chan: &[0, 1],
//!     n_channels: 2,
//! };
//! let t = compile_fluid(&ops, &[0, 1], &[1e9, 1e9], &pairs, false).unwrap();
//! assert_eq!(t.act_ptr, vec![0, 3, 4]);
//! assert_eq!(t.kind, vec![1, 2, 1, 0]);
//! assert_eq!(t.amount, vec![1e-3, 1e6, 0.0, 2.0]);
//! assert_eq!((t.chan_ptr.clone(), t.chan.clone()), (vec![0, 0, 1, 1, 1], vec![0]));
//! assert_eq!((t.res_ptr.clone(), t.res.clone()), (vec![0, 0, 0, 0, 1], vec![5]));
//! assert_eq!(t.needs_recv, vec![0, 0, 1, 0]);
//! assert_eq!(t.channel_bytes, vec![1e6, 0.0]);
//! ```

use std::fmt;

use crate::sim::StageTable;

/// A program's operations, column-wise, as the compile reads them (dependencies are not read).
#[derive(Clone, Copy, Debug)]
pub struct Ops<'a> {
    pub n_ranks: usize,
    pub op_rank: &'a [i64],
    pub op_kind: &'a [i64],
    pub op_peer: &'a [i64],
    pub op_msg: &'a [i64],
    /// Bytes (sends and receives) or flop (computations).
    pub op_size: &'a [f64],
}

/// The Fluid quantities of every ordered pair of hosts `(a, b)`, pair `a * n_hosts + b`.
#[derive(Clone, Copy, Debug)]
pub struct HostPairs<'a> {
    pub n_hosts: usize,
    /// The flow's channels of pair `p` are `chan[ptr[p]..ptr[p + 1]]` (distinct; fatpipe hops left out).
    pub ptr: &'a [i64],
    pub chan: &'a [i64],
    /// Route latency sum of each pair (s).
    pub latency: &'a [f64],
    /// Rate cap of each pair's flows (bytes/s; `f64::INFINITY`: none).
    pub cap: &'a [f64],
    /// The channel of every hop of pair `p` (fatpipe and repeated ones too): `busy_chan[busy_ptr[p]..busy_ptr[p + 1]]`.
    pub busy_ptr: &'a [i64],
    pub busy_chan: &'a [i64],
    /// Number of channels (2 per link).
    pub n_channels: usize,
}

/// The stage table of a program under the Fluid model (the arrays of [`crate::sim::StageTable`], owned).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FluidStages {
    pub act_ptr: Vec<i64>,
    pub kind: Vec<i64>,
    pub amount: Vec<f64>,
    pub res_ptr: Vec<i64>,
    pub res: Vec<i64>,
    pub chan_ptr: Vec<i64>,
    pub chan: Vec<i64>,
    pub cap: Vec<f64>,
    pub needs_recv: Vec<u8>,
    pub sender_done: Vec<i64>,
    pub recv_begins: Vec<i64>,
    /// Per channel, the bytes of every message whose route crosses it.
    pub channel_bytes: Vec<f64>,
}

impl FluidStages {
    /// The table as the engine reads it.
    pub fn table(&self) -> StageTable<'_> {
        StageTable {
            act_ptr: &self.act_ptr,
            kind: &self.kind,
            amount: &self.amount,
            res_ptr: &self.res_ptr,
            res: &self.res,
            chan_ptr: &self.chan_ptr,
            chan: &self.chan,
            cap: &self.cap,
            needs_recv: &self.needs_recv,
            sender_done: &self.sender_done,
            recv_begins: &self.recv_begins,
        }
    }
}

/// Why a program (or the pair table) cannot be compiled here; the caller takes the slow path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unfit(pub &'static str);

impl fmt::Display for Unfit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

const HOLD: i64 = 0;
const DELAY: i64 = 1;
const FLOW: i64 = 2;

/// The lengths that must agree; the pair table's contents are checked where they are read (a pair's
/// channel range, a busy hop's channel), and the channels written into the table by the engine.
fn shapes(ops: &Ops, rank_host: &[i64], speed: &[f64], pairs: &HostPairs) -> Result<(), Unfit> {
    let n = ops.op_rank.len();
    if ops.op_kind.len() != n || ops.op_peer.len() != n || ops.op_msg.len() != n || ops.op_size.len() != n {
        return Err(Unfit("per-operation arrays differ in length"));
    }
    if rank_host.len() != ops.n_ranks || speed.len() != ops.n_ranks {
        return Err(Unfit("rank_host and speed need one entry per rank"));
    }
    let h = pairs.n_hosts;
    if rank_host.iter().any(|&x| x < 0 || x as usize >= h) {
        return Err(Unfit("a rank is not a host of the pair table"));
    }
    let np = h.checked_mul(h).ok_or(Unfit("too many hosts"))?;
    if pairs.ptr.len() != np + 1 || pairs.busy_ptr.len() != np + 1 || pairs.latency.len() != np
        || pairs.cap.len() != np
    {
        return Err(Unfit("the pair table needs one entry per host pair (and one more in its CSR pointers)"));
    }
    Ok(())
}

/// `idx[ptr[p]..ptr[p + 1]]`, or [`Unfit`] if the pointers do not delimit a range of `idx`.
fn row<'a>(ptr: &[i64], idx: &'a [i64], p: usize) -> Result<&'a [i64], Unfit> {
    let (lo, hi) = (ptr[p], ptr[p + 1]);
    if lo < 0 || hi < lo {
        return Err(Unfit("a pair CSR pointer is malformed"));
    }
    idx.get(lo as usize..hi as usize).ok_or(Unfit("a pair CSR pointer is malformed"))
}

/// Each message's send operation (message ids dense `0..M-1`, one send and one receive each), and the
/// number of computations.
///
/// Whether a message's send and receive name each other is left to the engine's structure check
/// (`ProgramView::check`, before any work), which names the first such message as the slow path does;
/// reading each receive's rank here would cost a cache miss per message.
fn match_messages(ops: &Ops) -> Result<(Vec<usize>, usize), Unfit> {
    let (n, r) = (ops.op_rank.len(), ops.n_ranks as i64);
    // dense ids with a send and a receive each: fewer ids than half the operations, so one pass fills them
    let mut send_of = vec![usize::MAX; n / 2];
    let mut received = vec![0u64; (n / 2).div_ceil(64)];
    let (mut sends, mut recvs, mut computes, mut top) = (0usize, 0usize, 0usize, -1i64);
    for op in 0..n {
        let size = ops.op_size[op];
        if !(size.is_finite() && size >= 0.0) || !(0..r).contains(&ops.op_rank[op]) {
            return Err(Unfit("a size or a rank is out of range"));
        }
        let kind = ops.op_kind[op];
        if kind == 2 {
            computes += 1;
            continue;
        }
        let msg = ops.op_msg[op];
        if !(0..=1).contains(&kind) || !(0..r).contains(&ops.op_peer[op]) || msg < 0 {
            return Err(Unfit("a kind, a peer or a message id is out of range"));
        }
        if msg as usize >= send_of.len() {
            return Err(Unfit("message ids are not dense with one send and one receive each"));
        }
        let msg = msg as usize;
        if kind == 0 {
            if send_of[msg] != usize::MAX {
                return Err(Unfit("a message has two sends or two receives"));
            }
            send_of[msg] = op;
            sends += 1;
        } else {
            if received[msg / 64] & (1 << (msg % 64)) != 0 {
                return Err(Unfit("a message has two sends or two receives"));
            }
            received[msg / 64] |= 1 << (msg % 64);
            recvs += 1;
        }
        top = top.max(msg as i64);
    }
    // as many sends (receives) as ids and no id twice: every id has one of each
    let m = (top + 1) as usize;
    if sends != m || recvs != m {
        return Err(Unfit("message ids are not dense with one send and one receive each"));
    }
    send_of.truncate(m);
    Ok((send_of, computes))
}

/// The Fluid stage table of a program, and the bytes crossing each channel.
///
/// `rank_host[r]` is rank `r`'s host in `pairs`; `speed[r]` its flop/s.
/// With `one_port`, each flow also holds its sender's send port and its
/// receiver's receive port. See the module documentation for the stages.
///
/// # Errors
///
/// [`Unfit`] when the arrays do not fit together or the program is not
/// well formed in the ways listed in the module documentation.
///
/// # Complexity
///
/// `O(ops + stages + channels crossed + n_hosts^2)`, no allocation per message.
pub fn compile_fluid(ops: &Ops, rank_host: &[i64], speed: &[f64], pairs: &HostPairs, one_port: bool)
    -> Result<FluidStages, Unfit> {
    shapes(ops, rank_host, speed, pairs)?;
    let (send_of, computes) = match_messages(ops)?;
    let (m, h) = (send_of.len(), pairs.n_hosts);
    // step 1: message activities, in id order (the receive's rank is the send's peer), and each pair's bytes;
    // what is the same for every message is written in bulk, the rest message by message
    let mut t = FluidStages {
        act_ptr: (0..=m as i64).map(|a| 3 * a).collect(),
        kind: [DELAY, FLOW, DELAY].repeat(m),
        amount: vec![0.0; 3 * m],
        res_ptr: if one_port { (0..=3 * m as i64).map(|k| 2 * ((k + 1) / 3)).collect() } else { vec![0; 3 * m + 1] },
        res: vec![0; if one_port { 2 * m } else { 0 }],
        chan_ptr: vec![0; 3 * m + 1],
        chan: Vec::with_capacity(2 * m),
        cap: vec![f64::INFINITY; 3 * m],
        needs_recv: [0, 0, 1].repeat(m),
        sender_done: vec![1; m],
        recv_begins: vec![1; m],
        channel_bytes: vec![0.0; pairs.n_channels],
    };
    let mut pair_bytes = vec![0.0f64; h * h];
    for (msg, &s) in send_of.iter().enumerate() {
        let (src, dst, size) = (ops.op_rank[s], ops.op_peer[s], ops.op_size[s]);
        let p = rank_host[src as usize] as usize * h + rank_host[dst as usize] as usize;
        pair_bytes[p] += size;
        t.amount[3 * msg] = pairs.latency[p];
        t.amount[3 * msg + 1] = size;
        t.cap[3 * msg + 1] = pairs.cap[p];
        if one_port {
            t.res[2 * msg] = 3 * src;
            t.res[2 * msg + 1] = 3 * dst + 1;
        }
        let before = t.chan.len() as i64;
        t.chan.extend(row(pairs.ptr, pairs.chan, p)?.iter().copied());
        let crossed = t.chan.len() as i64;
        t.chan_ptr[3 * msg + 1] = before;
        t.chan_ptr[3 * msg + 2] = crossed;
        t.chan_ptr[3 * msg + 3] = crossed;
    }
    // step 2: the computations, in op order
    for v in [&mut t.act_ptr, &mut t.res_ptr, &mut t.chan_ptr, &mut t.kind, &mut t.res] {
        v.reserve_exact(computes);
    }
    t.amount.reserve_exact(computes);
    t.cap.reserve_exact(computes);
    t.needs_recv.reserve_exact(computes);
    let mut act = 3 * m as i64;
    for op in 0..ops.op_rank.len() {
        if ops.op_kind[op] != 2 {
            continue;
        }
        let rank = ops.op_rank[op];
        act += 1;
        t.act_ptr.push(act);
        t.kind.push(HOLD);
        t.amount.push(ops.op_size[op] / speed[rank as usize]);
        t.cap.push(f64::INFINITY);
        t.needs_recv.push(0);
        t.res.push(3 * rank + 2);
        t.res_ptr.push(t.res.len() as i64);
        t.chan_ptr.push(t.chan.len() as i64);
    }
    // step 3: every hop's channel carries its pair's bytes (pairs in order, hops in route order)
    for (p, &bytes) in pair_bytes.iter().enumerate() {
        if bytes != 0.0 {
            for &c in row(pairs.busy_ptr, pairs.busy_chan, p)? {
                *usize::try_from(c).ok().and_then(|c| t.channel_bytes.get_mut(c)).ok_or(Unfit("a hop's channel is out of range"))? += bytes;
            }
        }
    }
    Ok(t)
}

/// The Fluid quantities of a [`HostPairs`] table, computed from each pair's route (see [`pair_table`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PairTable {
    /// CSR over pairs: the distinct channels a flow crosses (fatpipe hops left out).
    pub ptr: Vec<i64>,
    pub chan: Vec<i64>,
    /// Route latency sum of each pair (s).
    pub latency: Vec<f64>,
    /// The least bandwidth of each pair's fatpipe hops (`f64::INFINITY` without any).
    pub cap: Vec<f64>,
    /// The channel of every hop (over the routes' own CSR pointers, [`HostPairs::busy_ptr`]).
    pub busy_chan: Vec<i64>,
}

/// The Fluid table of pairs from their routes: pair `p`'s hops are `arcs[hop_ptr[p]..hop_ptr[p + 1]]`,
/// each `2 * link + (0 forward, 1 backward)`.
///
/// Per link, `sharing` is 0 (full duplex: the backward hops on channel `2l + 1`), 1 (shared or directed:
/// every hop on `2l`) or 2 (fatpipe: on `2l`, left out of the flows' channels and capping their rate);
/// `latency` and `bandwidth` its seconds and bytes/s. The quantities are those of
/// `collsched.simulation.fluid_core.HostPairs` to the last bit: latencies summed in hop order from 0;
/// a pair's channels in hop order, unless some route repeats a channel, and then every pair's sorted
/// and distinct (what `np.unique` over the (pair, channel) keys gives).
///
/// # Errors
///
/// [`Unfit`] if the pointers are malformed, a link is out of range or a sharing code unknown.
///
/// # Complexity
///
/// `O(hops)`, and `O(hops log hops)` when a route repeats a channel.
///
/// # Examples
///
/// Two links: 0 full duplex (1 ms), 1 fatpipe (2 ms, 5 bytes/s); pair 0 goes forward on both, pair 1
/// back on link 0.
///
/// ```
/// use collsched_core::compile::pair_table;
/// let t = pair_table(&[0, 2, 3], &[0, 2, 1], &[0, 2], &[1e-3, 2e-3], &[10.0, 5.0]).unwrap();
/// assert_eq!((t.ptr, t.chan), (vec![0, 1, 2], vec![0, 1]));
/// assert_eq!((t.latency, t.cap), (vec![3e-3, 1e-3], vec![5.0, f64::INFINITY]));
/// assert_eq!(t.busy_chan, vec![0, 2, 1]);
/// ```
pub fn pair_table(hop_ptr: &[i64], arcs: &[i64], sharing: &[i64], latency: &[f64], bandwidth: &[f64])
    -> Result<PairTable, Unfit> {
    let n_links = sharing.len();
    if latency.len() != n_links || bandwidth.len() != n_links {
        return Err(Unfit("sharing, latency and bandwidth need one entry per link"));
    }
    if sharing.iter().any(|&c| !(0..=2).contains(&c)) {
        return Err(Unfit("a sharing code is not 0, 1 or 2"));
    }
    let n_pairs = hop_ptr.len().checked_sub(1).ok_or(Unfit("a pair CSR pointer is malformed"))?;
    if hop_ptr[0] != 0 || hop_ptr[n_pairs] as u64 != arcs.len() as u64 {
        return Err(Unfit("a pair CSR pointer is malformed"));
    }
    let mut t = PairTable {
        ptr: Vec::with_capacity(n_pairs + 1),
        chan: Vec::with_capacity(arcs.len()),
        latency: Vec::with_capacity(n_pairs),
        cap: Vec::with_capacity(n_pairs),
        busy_chan: Vec::with_capacity(arcs.len()),
    };
    t.ptr.push(0);
    let mut repeated = false;
    for p in 0..n_pairs {
        let (from, mut lat, mut cap) = (t.chan.len(), 0.0f64, f64::INFINITY);
        for &arc in row(hop_ptr, arcs, p)? {
            let link = usize::try_from(arc >> 1).ok().filter(|&l| l < n_links).ok_or(Unfit("a hop's link is out of range"))?;
            let ch = if sharing[link] == 0 { arc } else { arc & !1 };
            t.busy_chan.push(ch);
            lat += latency[link];
            if sharing[link] == 2 {
                cap = cap.min(bandwidth[link]);
            } else {
                repeated |= t.chan[from..].contains(&ch);
                t.chan.push(ch);
            }
        }
        t.latency.push(lat);
        t.cap.push(cap);
        t.ptr.push(t.chan.len() as i64);
    }
    if repeated {
        // every pair's channels sorted and distinct, compacted in place
        let mut write = 0;
        for p in 0..n_pairs {
            let (lo, hi) = (t.ptr[p] as usize, t.ptr[p + 1] as usize);
            t.chan[lo..hi].sort_unstable();
            t.ptr[p] = write as i64;
            for i in lo..hi {
                if i == lo || t.chan[i] != t.chan[i - 1] {
                    t.chan[write] = t.chan[i];
                    write += 1;
                }
            }
        }
        t.ptr[n_pairs] = write as i64;
        t.chan.truncate(write);
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three hosts on a star: host `i`'s link `i` has channels `2i` (up) and `2i + 1` (down); latency 1 ms per link.
    fn star3() -> (Vec<i64>, Vec<i64>, Vec<f64>, Vec<f64>) {
        let (mut ptr, mut chan, mut lat) = (vec![0i64], vec![], vec![]);
        for a in 0..3i64 {
            for b in 0..3i64 {
                if a != b {
                    chan.extend_from_slice(&[2 * a, 2 * b + 1]);
                }
                ptr.push(chan.len() as i64);
                lat.push(if a == b { 0.0 } else { 2e-3 });
            }
        }
        (ptr, chan, lat, vec![f64::INFINITY; 9])
    }

    fn pairs<'a>(s: &'a (Vec<i64>, Vec<i64>, Vec<f64>, Vec<f64>)) -> HostPairs<'a> {
        HostPairs { n_hosts: 3, ptr: &s.0, chan: &s.1, latency: &s.2, cap: &s.3, busy_ptr: &s.0, busy_chan: &s.1,
                    n_channels: 6 }
    }

    #[test]
    fn two_senders_one_receiver_with_ports() {
        // ops: 0 = r0 sends m1 to r2, 1 = r1 sends m0 to r2, 2 = r2 recv m0, 3 = r2 recv m1
        let ops = Ops { n_ranks: 3, op_rank: &[0, 1, 2, 2], op_kind: &[0, 0, 1, 1], op_peer: &[2, 2, 1, 0],
                        op_msg: &[1, 0, 0, 1], op_size: &[10.0, 20.0, 20.0, 10.0] };
        let s = star3();
        let t = compile_fluid(&ops, &[0, 1, 2], &[1.0; 3], &pairs(&s), true).unwrap();
        assert_eq!(t.act_ptr, vec![0, 3, 6]);
        assert_eq!(t.amount, vec![2e-3, 20.0, 0.0, 2e-3, 10.0, 0.0]);
        assert_eq!(t.res, vec![3, 7, 0, 7]); // m0: send(1), recv(2); m1: send(0), recv(2)
        assert_eq!(t.res_ptr, vec![0, 0, 2, 2, 2, 4, 4]);
        assert_eq!(t.chan, vec![2, 5, 0, 5]);
        assert_eq!(t.chan_ptr, vec![0, 0, 2, 2, 2, 4, 4]);
        assert_eq!(t.channel_bytes, vec![10.0, 0.0, 20.0, 0.0, 0.0, 30.0]);
        assert_eq!((t.sender_done, t.recv_begins), (vec![1, 1], vec![1, 1]));
    }

    #[test]
    fn ranks_map_to_hosts() {
        // two ranks on hosts 2 and 0: the message 2 -> 0 crosses channels 4 and 1
        let ops = Ops { n_ranks: 2, op_rank: &[0, 1], op_kind: &[0, 1], op_peer: &[1, 0], op_msg: &[0, 0],
                        op_size: &[5.0, 5.0] };
        let s = star3();
        let t = compile_fluid(&ops, &[2, 0], &[1.0; 2], &pairs(&s), false).unwrap();
        assert_eq!(t.chan, vec![4, 1]);
        assert_eq!(t.channel_bytes, vec![0.0, 5.0, 0.0, 0.0, 5.0, 0.0]);
    }

    #[test]
    fn malformed_programs_are_unfit() {
        let s = star3();
        let p = pairs(&s);
        let sparse = Ops { n_ranks: 2, op_rank: &[0, 1], op_kind: &[0, 1], op_peer: &[1, 0], op_msg: &[1, 1],
                           op_size: &[1.0, 1.0] };
        assert!(compile_fluid(&sparse, &[0, 1], &[1.0; 2], &p, false).is_err());
        let two_sends = Ops { n_ranks: 2, op_rank: &[0, 1, 1, 0], op_kind: &[0, 0, 1, 1], op_peer: &[1, 0, 0, 1],
                              op_msg: &[0, 0, 1, 1], op_size: &[1.0; 4] };
        assert_eq!(compile_fluid(&two_sends, &[0, 1], &[1.0; 2], &p, false).unwrap_err(),
                   Unfit("a message has two sends or two receives"));
        let nan = Ops { n_ranks: 2, op_rank: &[0, 1], op_kind: &[0, 1], op_peer: &[1, 0], op_msg: &[0, 0],
                        op_size: &[f64::NAN, 1.0] };
        assert!(compile_fluid(&nan, &[0, 1], &[1.0; 2], &p, false).is_err());
        let ok = Ops { n_ranks: 2, op_rank: &[0, 1], op_kind: &[0, 1], op_peer: &[1, 0], op_msg: &[0, 0],
                       op_size: &[1.0; 2] };
        assert_eq!(compile_fluid(&ok, &[0, 3], &[1.0; 2], &p, false).unwrap_err(),
                   Unfit("a rank is not a host of the pair table"));
    }

    #[test]
    fn crossed_messages_are_the_engine_s_check() {
        use crate::program::{ProgramView, StructureError};
        use crate::sim::{simulate, SimConfig, SimError, Tie};
        // rank 0 sends m0 to rank 2, but rank 1 receives it
        let ops = Ops { n_ranks: 3, op_rank: &[0, 1], op_kind: &[0, 1], op_peer: &[2, 0], op_msg: &[0, 0],
                        op_size: &[1.0; 2] };
        let s = star3();
        let t = compile_fluid(&ops, &[0, 1, 2], &[1.0; 3], &pairs(&s), false).unwrap();
        let view = ProgramView { n_ranks: 3, op_rank: ops.op_rank, op_kind: ops.op_kind, op_peer: ops.op_peer,
                                 op_msg: ops.op_msg, dep_ptr: &[0, 0, 0], dep_idx: &[], piece_ptr: &[0, 0, 0],
                                 pieces: &[], denominator: 1 };
        let cfg = SimConfig { n_resources: 9, capacities: &[1.0; 6], tie: Tie::Fixed };
        let err = simulate(&view, &t.table(), &cfg).unwrap_err();
        assert!(matches!(err, SimError::Structure(StructureError::MismatchedMessage { msg: 0, send: 0, recv: 1 })));
    }

    #[test]
    fn malformed_pair_tables_are_unfit() {
        let ops = Ops { n_ranks: 2, op_rank: &[0, 1], op_kind: &[0, 1], op_peer: &[1, 0], op_msg: &[0, 0],
                        op_size: &[1.0; 2] };
        let s = star3();
        let mut backwards = s.0.clone();
        backwards[1] = 3; // pair (0, 0) ends after pair (0, 1) starts
        let p = HostPairs { ptr: &backwards, ..pairs(&s) };
        assert_eq!(compile_fluid(&ops, &[0, 1], &[1.0; 2], &p, false).unwrap_err(), Unfit("a pair CSR pointer is malformed"));
        let wild = vec![0, 7, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
        let p = HostPairs { busy_chan: &wild, ..pairs(&s) };
        assert_eq!(compile_fluid(&ops, &[0, 1], &[1.0; 2], &p, false).unwrap_err(), Unfit("a hop's channel is out of range"));
        let p = HostPairs { latency: &s.2[..8], ..pairs(&s) };
        assert!(compile_fluid(&ops, &[0, 1], &[1.0; 2], &p, false).is_err());
    }

    #[test]
    fn pair_table_sorts_every_pair_once_a_route_repeats_a_channel() {
        // links 0 and 1 shared: pair 0 crosses 0 back, 1, 0 forward (channel 0 twice); pair 1 crosses 1 then 0
        let t = pair_table(&[0, 3, 5], &[1, 2, 0, 2, 0], &[1, 1], &[1.0, 2.0], &[1.0, 1.0]).unwrap();
        assert_eq!((t.ptr, t.chan), (vec![0, 2, 4], vec![0, 2, 0, 2]));
        assert_eq!(t.busy_chan, vec![0, 2, 0, 2, 0]);
        assert_eq!(t.latency, vec![4.0, 3.0]);
        // without a repeat, hop order stays
        let t = pair_table(&[0, 2], &[2, 1], &[0, 0], &[1.0, 2.0], &[1.0, 1.0]).unwrap();
        assert_eq!(t.chan, vec![2, 1]);
        assert_eq!(pair_table(&[0, 1], &[4], &[0, 0], &[1.0; 2], &[1.0; 2]), Err(Unfit("a hop's link is out of range")));
        assert_eq!(pair_table(&[0, 2], &[0], &[0], &[1.0], &[1.0]), Err(Unfit("a pair CSR pointer is malformed")));
        assert!(pair_table(&[0, 1], &[0], &[3], &[1.0], &[1.0]).is_err());
    }

    #[test]
    fn empty_program() {
        let ops = Ops { n_ranks: 1, op_rank: &[], op_kind: &[], op_peer: &[], op_msg: &[], op_size: &[] };
        let s = star3();
        let t = compile_fluid(&ops, &[0], &[1.0], &pairs(&s), false).unwrap();
        assert_eq!((t.act_ptr, t.res_ptr, t.chan_ptr), (vec![0], vec![0], vec![0]));
        assert!(t.kind.is_empty() && t.chan.is_empty());
    }
}
