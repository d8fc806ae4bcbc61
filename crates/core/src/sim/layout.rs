//! Check a stage table against its program, up front, and pack both into
//! the records the event loop reads.
//!
//! The loop touches, per message, one stage record, one activity record and
//! the records of its two operations, so each is a small struct (array of
//! structs) rather than one column per field: on a million messages, the
//! number of cache lines touched per event is what sets the pace, and so is
//! the memory written once (every fresh page is a fault that the system
//! zeroes). Hence:
//!
//! - a stage is 16 bytes and an activity 24: what the stage table already
//!   holds (resources, channels, caps) is read from it, not copied;
//! - operations live in **slots**, message `m`'s send in slot `2m` and its
//!   receive in `2m + 1`, then the computations: the records and the times
//!   of both ends of a message share a cache line, and an activity's slots
//!   follow from its index. The times go back to operation order once, at
//!   the end;
//! - the large arrays stay on ordinary pages. Advising them onto transparent
//!   huge pages (`madvise(MADV_HUGEPAGE)`, as an earlier version did) made
//!   every first touch a 2 MiB fault, dearer than the 4 KiB faults it saved:
//!   the first call at N = 1,024, star, everything in flight, took 1.24 s
//!   of CPU with the advice and 0.99 s without, the fat tree in flight
//!   1.50 s and 1.37 s (`benchmarks/bench_simulate_fluid.py --phases
//!   --repeat 1 1024`, column `first`, CPU row, load 17-18).

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{SimConfig, SimError, StageTable, Tie};
use crate::program::{Checked, Kind, ProgramView};

/// No index (an unused message id has no send and no receive; a compute activity has no receive).
pub(super) const NONE: u32 = u32::MAX;

pub(super) const HOLD: u8 = 0;
pub(super) const DELAY: u8 = 1;
pub(super) const FLOW: u8 = 2;

/// One stage (16 bytes; its resources, read only when `n_res > 0`, stay in the stage table).
#[derive(Clone, Copy, Debug)]
pub(super) struct StageRec {
    /// Seconds (hold, delay) or bytes (flow).
    pub amount: f64,
    pub act: u32,
    pub kind: u8,
    pub needs_recv: u8,
    pub n_res: u16,
}

/// One activity, with the engine's mutable state of it (24 bytes; its operations' slots follow from its index,
/// see [`Layout::send_slot`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct ActRec {
    /// First and last stage (absolute indices).
    pub first: u32,
    pub last: u32,
    /// The stage whose end completes the send, and the one whose start starts the receive (`NONE` for a compute).
    pub done_at: u32,
    pub begins_at: u32,
    /// Tie-break value (smaller first).
    pub tie: u32,
    /// Engine state of a message whose receive is not posted yet: `NONE`, [`DELIVERED`],
    /// or the stage waiting for the receive to be posted (see [`OpRec::attention`]).
    pub wait: u32,
}

/// [`ActRec::wait`]: the last stage has ended, the receive is not posted yet.
pub(super) const DELIVERED: u32 = u32::MAX - 1;

/// One operation (12 bytes) in its slot; its successors' slots are `succ[succ_lo..next slot's succ_lo]`.
///
/// An operation is ready when `deps_left` reaches 0; for a receive, that is
/// "posted" (a receive without dependencies is posted from the start, and
/// the engine never visits it just for that).
#[derive(Clone, Copy, Debug)]
pub(super) struct OpRec {
    pub succ_lo: u32,
    /// Dependencies not completed yet (engine state).
    pub deps_left: u32,
    /// `kind << 30 | attention << 29 | done << 28 | activity`.
    act_kind: u32,
}

const ACT_BITS: u32 = 28;
const DONE: u32 = 1 << ACT_BITS;
const ATTENTION: u32 = 1 << (ACT_BITS + 1);

impl OpRec {
    #[inline]
    pub fn act(&self) -> usize {
        (self.act_kind & (DONE - 1)) as usize
    }
    #[inline]
    pub fn kind(&self) -> u32 {
        self.act_kind >> 30
    }
    /// A receive whose message needs to know when it is posted: the engine
    /// parked a stage or delivered the message ([`ActRec::wait`]), or started
    /// stage `begins_at`, before that.
    #[inline]
    pub fn attention(&self) -> bool {
        self.act_kind & ATTENTION != 0
    }
    #[inline]
    pub fn set_attention(&mut self, on: bool) {
        self.act_kind = self.act_kind & !ATTENTION | if on { ATTENTION } else { 0 };
    }
    /// The operation has completed.
    #[inline]
    pub fn done(&self) -> bool {
        self.act_kind & DONE != 0
    }
    #[inline]
    pub fn set_done(&mut self) {
        self.act_kind |= DONE;
    }
}

pub(super) const RECV: u32 = Kind::Recv as u32;

/// Everything the event loop needs to know about the program and its stages (the flows' channels and
/// caps borrowed from the stage table, as they are read once per flow).
pub(super) struct Layout<'a> {
    /// Message ids: activities `0..n_msgs` are messages, the rest computations.
    pub n_msgs: usize,
    pub stages: Vec<StageRec>,
    /// Exclusive resources of stage `s`: `res[res_ptr[s]..res_ptr[s + 1]]`.
    res_ptr: &'a [i64],
    res: &'a [i64],
    /// Fluid channels of stage `s`: `chan[chan_ptr[s]..chan_ptr[s + 1]]`.
    chan_ptr: &'a [i64],
    chan: &'a [i64],
    /// Per-flow rate cap of each stage.
    cap: &'a [f64],
    pub acts: Vec<ActRec>,
    /// One per slot plus a sentinel: message `m`'s send in slot `2m`, its receive in `2m + 1`, then the
    /// computations in operation order.
    pub ops: Vec<OpRec>,
    /// The slot of each operation of the program.
    pub slot: Vec<u32>,
    succ: Vec<u32>,
    /// Some stage is a flow.
    pub has_flows: bool,
    /// Some stage holds an exclusive resource (else every eligible stage starts at once).
    pub holds: bool,
    /// Some flow stage holds an exclusive resource (its start is kept for the resource's busy time).
    pub flow_holds: bool,
}

fn bad(msg: String) -> SimError {
    SimError::BadStages(msg)
}

/// Check that `ptr` is a CSR pointer over `rows` rows of `data_len` entries.
fn check_csr(name: &str, ptr: &[i64], rows: usize, data: &str, data_len: usize) -> Result<(), SimError> {
    if ptr.len() != rows + 1 {
        return Err(bad(format!("{name} has {} entries, expected {} (one per row plus one)", ptr.len(), rows + 1)));
    }
    if ptr[0] != 0 {
        return Err(bad(format!("{name}[0] = {}, expected 0", ptr[0])));
    }
    if let Some(i) = (0..rows).find(|&i| ptr[i] > ptr[i + 1]) {
        return Err(bad(format!("{name} decreases at row {i} ({} > {})", ptr[i], ptr[i + 1])));
    }
    if ptr[rows] as u64 != data_len as u64 {
        return Err(bad(format!("{name} ends at {}, but {data} has {data_len} entries", ptr[rows])));
    }
    Ok(())
}

/// Check the shapes of the stage table and the configuration.
fn check_shapes(st: &StageTable, cfg: &SimConfig, n_msgs: usize, n_compute: usize) -> Result<(), SimError> {
    let n_stages = st.kind.len();
    let n_acts = n_msgs + n_compute;
    if n_stages >= DELIVERED as usize || st.res.len() >= NONE as usize || st.chan.len() >= NONE as usize {
        return Err(bad("more than 2^32 - 3 stages, resource or channel entries".into()));
    }
    if cfg.n_resources >= NONE as usize {
        return Err(bad(format!("n_resources = {} is too large", cfg.n_resources)));
    }
    if let Some(c) = cfg.capacities.iter().position(|&x| x.is_nan() || x <= 0.0) {
        return Err(bad(format!("capacity of fluid channel {c} is {}: must be > 0", cfg.capacities[c])));
    }
    for (name, len) in [("amount", st.amount.len()), ("cap", st.cap.len()), ("needs_recv", st.needs_recv.len())] {
        if len != n_stages {
            return Err(bad(format!("{name} has {len} entries, kind has {n_stages} (one per stage)")));
        }
    }
    for (name, len) in [("sender_done", st.sender_done.len()), ("recv_begins", st.recv_begins.len())] {
        if len != n_msgs {
            return Err(bad(format!("{name} has {len} entries, expected one per message id ({n_msgs})")));
        }
    }
    if st.act_ptr.len() != n_acts + 1 {
        return Err(bad(format!(
            "act_ptr has {} entries, expected {} ({n_msgs} message ids + {n_compute} compute ops + 1)",
            st.act_ptr.len(),
            n_acts + 1
        )));
    }
    check_csr("act_ptr", st.act_ptr, n_acts, "kind", n_stages)?;
    check_csr("res_ptr", st.res_ptr, n_stages, "res", st.res.len())?;
    check_csr("chan_ptr", st.chan_ptr, n_stages, "chan", st.chan.len())
}

/// Check stage `s` of activity `a` and pack it.
fn pack_stage(st: &StageTable, cfg: &SimConfig, s: usize, a: usize, is_msg: bool) -> Result<StageRec, SimError> {
    let at = || format!("stage {s} ({} activity {a})", if is_msg { "message" } else { "compute" });
    let kind = st.kind[s];
    if !(0..=2).contains(&kind) {
        return Err(bad(format!("{}: kind = {kind}, expected 0 (hold), 1 (delay) or 2 (flow)", at())));
    }
    let amount = st.amount[s];
    if !(amount.is_finite() && amount >= 0.0) {
        return Err(bad(format!("{}: amount = {amount}, must be finite and >= 0", at())));
    }
    let needs_recv = st.needs_recv[s];
    if needs_recv > 1 || (!is_msg && needs_recv != 0) {
        return Err(bad(format!("{}: needs_recv = {needs_recv}, expected 0 or 1 (0 on compute stages)", at())));
    }
    let rs = &st.res[st.res_ptr[s] as usize..st.res_ptr[s + 1] as usize];
    if kind == DELAY as i64 && !rs.is_empty() {
        return Err(bad(format!("{}: a delay holds nothing, but lists resources {rs:?}", at())));
    }
    if rs.len() > u16::MAX as usize {
        return Err(bad(format!("{}: {} resources, at most {}", at(), rs.len(), u16::MAX)));
    }
    for (i, &r) in rs.iter().enumerate() {
        if r < 0 || r as u64 >= cfg.n_resources as u64 {
            return Err(bad(format!("{}: resource {r} out of range 0..{}", at(), cfg.n_resources)));
        }
        if rs[..i].contains(&r) {
            return Err(bad(format!("{}: resource {r} listed twice", at())));
        }
    }
    let cs = &st.chan[st.chan_ptr[s] as usize..st.chan_ptr[s + 1] as usize];
    if kind != FLOW as i64 && !cs.is_empty() {
        return Err(bad(format!("{}: only flow stages cross channels, but it lists {cs:?}", at())));
    }
    for (i, &c) in cs.iter().enumerate() {
        if c < 0 || c as u64 >= cfg.capacities.len() as u64 {
            return Err(bad(format!("{}: channel {c} out of range 0..{}", at(), cfg.capacities.len())));
        }
        if cs[..i].contains(&c) {
            return Err(bad(format!("{}: channel {c} listed twice", at())));
        }
    }
    if kind == FLOW as i64 && (st.cap[s].is_nan() || st.cap[s] <= 0.0) {
        return Err(bad(format!("{}: cap = {}, must be > 0 (f64::INFINITY: no cap)", at(), st.cap[s])));
    }
    Ok(StageRec { amount, act: a as u32, kind: kind as u8, needs_recv, n_res: rs.len() as u16 })
}

impl<'a> Layout<'a> {
    pub fn new(p: &ProgramView, checked: &Checked, st: &StageTable<'a>, cfg: &SimConfig) -> Result<Layout<'a>, SimError> {
        let n_ops = p.n_ops();
        let n_msgs = checked.send_of_msg.len();
        let n_compute = (0..n_ops).filter(|&o| p.op_kind[o] == Kind::Compute as i64).count();
        let n_acts = n_msgs + n_compute;
        if n_ops >= NONE as usize || 2 * n_msgs + n_compute >= NONE as usize || n_acts >= DONE as usize {
            return Err(bad("more than 2^32 - 2 operation slots (two per message id, one per computation) or 2^28 activities".into()));
        }
        check_shapes(st, cfg, n_msgs, n_compute)?;

        // activities and their stages
        let mut ties = match cfg.tie {
            Tie::Fixed => None,
            Tie::Random(seed) => Some(ChaCha8Rng::seed_from_u64(seed)),
        };
        let mut stages = Vec::with_capacity(st.kind.len());
        let mut acts = Vec::with_capacity(n_acts);
        let (mut has_flows, mut holds, mut flow_holds) = (false, false, false);
        for a in 0..n_acts {
            let (first, end) = (st.act_ptr[a] as usize, st.act_ptr[a + 1] as usize);
            let is_msg = a < n_msgs;
            for s in first..end {
                let rec = pack_stage(st, cfg, s, a, is_msg)?;
                has_flows |= rec.kind == FLOW;
                holds |= rec.n_res > 0;
                flow_holds |= rec.kind == FLOW && rec.n_res > 0;
                stages.push(rec);
            }
            let tie = match ties.as_mut() {
                None => a as u32,
                Some(rng) => rng.next_u32(),
            };
            let (mut done_at, mut begins_at) = (NONE, NONE);
            if is_msg && checked.send_of_msg[a] != usize::MAX {
                let (send_op, recv_op) = (checked.send_of_msg[a], checked.recv_of_msg[a]);
                let len = (end - first) as i64;
                if len == 0 {
                    return Err(bad(format!(
                        "message activity {a} (send op {send_op}, recv op {recv_op}) has no stage"
                    )));
                }
                for (name, v) in [("sender_done", st.sender_done[a]), ("recv_begins", st.recv_begins[a])] {
                    if !(0..len).contains(&v) {
                        return Err(bad(format!(
                            "{name}[{a}] = {v}: message activity {a} has {len} stage(s), positions 0..{len}"
                        )));
                    }
                }
                done_at = (first as i64 + st.sender_done[a]) as u32;
                begins_at = (first as i64 + st.recv_begins[a]) as u32;
            }
            acts.push(ActRec {
                first: first as u32,
                last: (end as u32).wrapping_sub(1), // wraps for an activity with no stage, which never runs
                done_at,
                begins_at,
                tie,
                wait: NONE,
            });
        }

        // operations, in slots: message m's send at 2m and its receive at 2m + 1, then the computations in
        // operation order (what one message's end touches shares a cache line); slots of unused ids stay idle
        let mut slot = vec![0u32; n_ops];
        let mut ops = vec![OpRec { succ_lo: 0, deps_left: 0, act_kind: 0 }; 2 * n_msgs + n_compute + 1];
        let mut n_computes_seen = 0;
        for (op, op_slot) in slot.iter_mut().enumerate() {
            let kind = p.op_kind[op] as u8;
            let (act, at) = if kind == Kind::Compute as u8 {
                let a = n_msgs + n_computes_seen;
                n_computes_seen += 1;
                let (first, end) = (acts[a].first as usize, acts[a].last.wrapping_add(1) as usize);
                if end - first != 1 || st.kind[first] != HOLD as i64 {
                    let of_kind = if end - first == 1 { format!(" of kind {}", st.kind[first]) } else { String::new() };
                    return Err(bad(format!(
                        "compute activity {a} (op {op}) must be exactly one hold stage, it has {} stage(s){of_kind}",
                        end - first
                    )));
                }
                (a as u32, (n_msgs + a) as u32)
            } else {
                let m = p.op_msg[op] as u32;
                (m, 2 * m + u32::from(kind == Kind::Recv as u8))
            };
            *op_slot = at;
            let deps_left = (p.dep_ptr[op + 1] - p.dep_ptr[op]) as u32;
            ops[at as usize] = OpRec { succ_lo: 0, deps_left, act_kind: (kind as u32) << 30 | act };
        }
        // count successors into succ_lo[d + 1], take prefix sums, fill by bumping succ_lo[d] (then one to the
        // right), shift back; each list in operation order
        let n_slots = ops.len() - 1;
        for &d in p.dep_idx {
            ops[slot[d as usize] as usize + 1].succ_lo += 1;
        }
        for o in 0..n_slots {
            ops[o + 1].succ_lo += ops[o].succ_lo;
        }
        let mut succ = vec![0u32; p.dep_idx.len()];
        for op in 0..n_ops {
            for &d in p.deps(op) {
                let lo = &mut ops[slot[d as usize] as usize].succ_lo;
                succ[*lo as usize] = slot[op];
                *lo += 1;
            }
        }
        for o in (1..=n_slots).rev() {
            ops[o].succ_lo = ops[o - 1].succ_lo;
        }
        ops[0].succ_lo = 0;

        let (res_ptr, res, chan_ptr, chan, cap) = (st.res_ptr, st.res, st.chan_ptr, st.chan, st.cap);
        Ok(Layout { n_msgs, stages, res_ptr, res, chan_ptr, chan, cap, acts, ops, slot, succ, has_flows, holds, flow_holds })
    }

    /// The slot of activity `a`'s send (of its computation, for a compute activity).
    #[inline]
    pub fn send_slot(&self, a: usize) -> usize {
        if a < self.n_msgs {
            2 * a
        } else {
            self.n_msgs + a
        }
    }

    /// The slot of message activity `a`'s receive.
    #[inline]
    pub fn recv_slot(a: usize) -> usize {
        2 * a + 1
    }

    /// Exclusive resources of stage `s`.
    #[inline]
    pub fn res_of(&self, s: usize) -> &'a [i64] {
        &self.res[self.res_ptr[s] as usize..self.res_ptr[s + 1] as usize]
    }

    /// Fluid channels of stage `s` (a flow stage; checked in range).
    #[inline]
    pub fn chan_of(&self, s: usize) -> &'a [i64] {
        &self.chan[self.chan_ptr[s] as usize..self.chan_ptr[s + 1] as usize]
    }

    /// Per-flow rate cap of stage `s` (a flow stage).
    #[inline]
    pub fn cap_of(&self, s: usize) -> f64 {
        self.cap[s]
    }

    /// Entry `i` of the successor lists (see [`OpRec`]).
    #[inline]
    pub fn succ_at(&self, i: usize) -> u32 {
        self.succ[i]
    }

    /// A layout of stages holding the given resources, and nothing else (for the arbiter's tests).
    #[cfg(test)]
    pub fn with_resources(res: &[&[i64]]) -> Layout<'static> {
        let mut ptr = vec![0i64];
        let mut flat = Vec::new();
        for rs in res {
            flat.extend_from_slice(rs);
            ptr.push(flat.len() as i64);
        }
        let stages = res
            .iter()
            .map(|rs| StageRec { amount: 0.0, act: 0, kind: HOLD, needs_recv: 0, n_res: rs.len() as u16 })
            .collect();
        Layout {
            n_msgs: 0,
            stages,
            res_ptr: Vec::leak(ptr),
            res: Vec::leak(flat),
            chan_ptr: &[],
            chan: &[],
            cap: &[],
            acts: vec![],
            ops: vec![],
            slot: vec![],
            succ: vec![],
            has_flows: false,
            holds: true,
            flow_holds: false,
        }
    }
}
