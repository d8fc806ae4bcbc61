//! Engine tests: worked cases of each rule, errors, and a differential test
//! against a slow, obvious reference (`reference.rs`) on random programs.

use super::*;
use crate::program::ProgramView;

mod checks;
mod flows;
mod reference;

pub(super) const HOLD: i64 = 0;
pub(super) const DELAY: i64 = 1;
pub(super) const FLOW: i64 = 2;

pub(super) fn send_port(r: i64) -> i64 {
    3 * r
}
pub(super) fn recv_port(r: i64) -> i64 {
    3 * r + 1
}
pub(super) fn cpu(r: i64) -> i64 {
    3 * r + 2
}

/// A program built op by op.
#[derive(Clone, Debug)]
pub(super) struct Prog {
    pub n_ranks: usize,
    pub op_rank: Vec<i64>,
    pub op_kind: Vec<i64>,
    pub op_peer: Vec<i64>,
    pub op_msg: Vec<i64>,
    pub dep_ptr: Vec<i64>,
    pub dep_idx: Vec<i64>,
    pub piece_ptr: Vec<i64>,
}

impl Prog {
    pub fn new(n_ranks: usize) -> Prog {
        Prog {
            n_ranks,
            op_rank: vec![],
            op_kind: vec![],
            op_peer: vec![],
            op_msg: vec![],
            dep_ptr: vec![0],
            dep_idx: vec![],
            piece_ptr: vec![0],
        }
    }
    fn op(&mut self, rank: i64, kind: i64, peer: i64, msg: i64, deps: &[usize]) -> usize {
        self.op_rank.push(rank);
        self.op_kind.push(kind);
        self.op_peer.push(peer);
        self.op_msg.push(msg);
        self.dep_idx.extend(deps.iter().map(|&d| d as i64));
        self.dep_ptr.push(self.dep_idx.len() as i64);
        self.piece_ptr.push(0);
        self.op_rank.len() - 1
    }
    pub fn send(&mut self, rank: i64, to: i64, msg: i64, deps: &[usize]) -> usize {
        self.op(rank, 0, to, msg, deps)
    }
    pub fn recv(&mut self, rank: i64, from: i64, msg: i64, deps: &[usize]) -> usize {
        self.op(rank, 1, from, msg, deps)
    }
    pub fn compute(&mut self, rank: i64, deps: &[usize]) -> usize {
        self.op(rank, 2, -1, -1, deps)
    }
    pub fn view(&self) -> ProgramView<'_> {
        ProgramView {
            n_ranks: self.n_ranks,
            op_rank: &self.op_rank,
            op_kind: &self.op_kind,
            op_peer: &self.op_peer,
            op_msg: &self.op_msg,
            dep_ptr: &self.dep_ptr,
            dep_idx: &self.dep_idx,
            piece_ptr: &self.piece_ptr,
            pieces: &[],
            denominator: 1,
        }
    }
}

/// One stage: `(kind, amount, resources, channels, needs_recv)`.
pub(super) type Stage<'a> = (i64, f64, &'a [i64], &'a [i64], u8);

/// A stage table built activity by activity (messages first, then computes in op order): the compile's own
/// table type, filled by hand.
pub(super) type Stages = crate::compile::FluidStages;

impl Stages {
    pub fn new() -> Stages {
        Stages { act_ptr: vec![0], res_ptr: vec![0], chan_ptr: vec![0], ..Stages::default() }
    }
    pub fn activity(&mut self, stages: &[Stage]) {
        for &(kind, amount, res, chan, needs_recv) in stages {
            self.kind.push(kind);
            self.amount.push(amount);
            self.res.extend_from_slice(res);
            self.res_ptr.push(self.res.len() as i64);
            self.chan.extend_from_slice(chan);
            self.chan_ptr.push(self.chan.len() as i64);
            self.cap.push(f64::INFINITY);
            self.needs_recv.push(needs_recv);
        }
        self.act_ptr.push(self.kind.len() as i64);
    }
    pub fn message(&mut self, stages: &[Stage], sender_done: i64, recv_begins: i64) {
        self.activity(stages);
        self.sender_done.push(sender_done);
        self.recv_begins.push(recv_begins);
    }
    /// Synchronous one-port transfer of `secs` from `s` to `r`.
    pub fn sync(&mut self, s: i64, r: i64, secs: f64) {
        self.message(&[(HOLD, secs, &[send_port(s), recv_port(r)], &[], 1)], 0, 0);
    }
    pub fn compute(&mut self, rank: i64, secs: f64) {
        self.activity(&[(HOLD, secs, &[cpu(rank)], &[], 0)]);
    }
}

pub(super) fn run(p: &Prog, s: &Stages, n_ranks: usize, capacities: &[f64], tie: Tie) -> Result<SimOutcome, SimError> {
    simulate(&p.view(), &s.table(), &SimConfig { n_resources: 3 * n_ranks, capacities, tie })
}

pub(super) fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// Ranks 0 and 1 each send one message to rank 2 (message i from rank i).
fn two_to_one() -> (Prog, Stages) {
    let mut p = Prog::new(3);
    p.send(0, 2, 0, &[]);
    p.send(1, 2, 1, &[]);
    p.recv(2, 0, 0, &[]);
    p.recv(2, 1, 1, &[]);
    let mut s = Stages::new();
    s.sync(0, 2, 1.0);
    s.sync(1, 2, 1.0);
    (p, s)
}

#[test]
fn single_transfer() {
    let mut p = Prog::new(2);
    p.send(0, 1, 0, &[]);
    p.recv(1, 0, 0, &[]);
    let mut s = Stages::new();
    s.sync(0, 1, 2.5);
    let out = run(&p, &s, 2, &[], Tie::Fixed).unwrap();
    assert_eq!(out.op_start, vec![0.0, 0.0]);
    assert_eq!(out.op_end, vec![2.5, 2.5]);
    assert_eq!(out.makespan, 2.5);
    assert_eq!(out.events, 1);
    assert_eq!(out.resource_busy, vec![2.5, 0.0, 0.0, 0.0, 2.5, 0.0]);
    assert!(out.channel_busy.is_empty());
}

#[test]
fn competing_transfers_are_serialised_in_activity_order() {
    let (p, s) = two_to_one();
    let out = run(&p, &s, 3, &[], Tie::Fixed).unwrap();
    assert_eq!(out.op_start, vec![0.0, 1.0, 0.0, 1.0]);
    assert_eq!(out.op_end, vec![1.0, 2.0, 1.0, 2.0]);
    assert_eq!(out.resource_busy[recv_port(2) as usize], 2.0);
}

#[test]
fn random_ties_change_only_the_order() {
    let (p, s) = two_to_one();
    let mut orders = std::collections::BTreeSet::new();
    for seed in 0..16 {
        let out = run(&p, &s, 3, &[], Tie::Random(seed)).unwrap();
        assert_eq!(out.makespan, 2.0);
        assert_eq!(out.events, 2);
        assert_eq!(out.resource_busy[recv_port(2) as usize], 2.0);
        let first = if out.op_end[0] == 1.0 { 0 } else { 1 };
        assert_eq!(out.op_start[first], 0.0);
        assert_eq!(out.op_start[1 - first], 1.0);
        orders.insert(first);
    }
    assert_eq!(orders.len(), 2, "some seed must let message 1 go first");
}

#[test]
fn same_seed_same_outcome() {
    let (p, s) = reference::random_case(7, 6, 30, true);
    let a = run(&p, &s, 6, &[], Tie::Random(42));
    let b = run(&p, &s, 6, &[], Tie::Random(42));
    assert_eq!(a, b);
}

#[test]
fn earliest_eligible_time_beats_the_tie_break() {
    // rank 0 computes for 1 s, then sends m0 to 2; rank 1 sends m1 to 2 at 0.5 s (after its own compute).
    // Both wait for rank 2's receive port, busy with m2 from rank 3 until 2 s: m1 (eligible first) goes first.
    let mut p = Prog::new(4);
    let c0 = p.compute(0, &[]);
    p.send(0, 2, 0, &[c0]);
    let c1 = p.compute(1, &[]);
    p.send(1, 2, 1, &[c1]);
    p.send(3, 2, 2, &[]);
    p.recv(2, 0, 0, &[]);
    p.recv(2, 1, 1, &[]);
    p.recv(2, 3, 2, &[]);
    let mut s = Stages::new();
    s.sync(0, 2, 1.0);
    s.sync(1, 2, 1.0);
    s.sync(3, 2, 2.0);
    s.compute(0, 1.0);
    s.compute(1, 0.5);
    for tie in [Tie::Fixed, Tie::Random(1), Tie::Random(2), Tie::Random(3)] {
        let out = run(&p, &s, 4, &[], tie).unwrap();
        assert_eq!(out.op_start[3], 2.0, "{tie:?}"); // m1
        assert_eq!(out.op_start[1], 3.0, "{tie:?}"); // m0
        assert_eq!(out.makespan, 4.0);
    }
}

#[test]
fn async_stages_and_a_late_receive() {
    // rank 0 sends to rank 1: hold{send(0)} 1 s, delay 2 s, hold{recv(1)} 1 s (needs_recv).
    // Rank 1 posts the receive only after a 5 s computation.
    let mut p = Prog::new(2);
    p.send(0, 1, 0, &[]);
    let c = p.compute(1, &[]);
    p.recv(1, 0, 0, &[c]);
    let mut s = Stages::new();
    s.message(
        &[(HOLD, 1.0, &[send_port(0)], &[], 0), (DELAY, 2.0, &[], &[], 0), (HOLD, 1.0, &[recv_port(1)], &[], 1)],
        0,
        2,
    );
    s.compute(1, 5.0);
    let out = run(&p, &s, 2, &[], Tie::Fixed).unwrap();
    assert_eq!((out.op_start[0], out.op_end[0]), (0.0, 1.0)); // the send completes after its overhead
    assert_eq!((out.op_start[1], out.op_end[1]), (0.0, 5.0));
    assert_eq!((out.op_start[2], out.op_end[2]), (5.0, 6.0)); // the receive starts when posted
    assert_eq!(out.events, 4);
    // posted in time: the receive starts when the data arrives
    let early = Prog { dep_ptr: vec![0, 0, 0, 0], dep_idx: vec![], ..p.clone() };
    let out = run(&early, &s, 2, &[], Tie::Fixed).unwrap();
    assert_eq!((out.op_start[2], out.op_end[2]), (3.0, 4.0));
}

#[test]
fn synchronous_send_waits_for_a_late_receive() {
    // rank 1 computes for 5 s before posting its receive: the rendezvous starts then
    let mut p = Prog::new(2);
    p.send(0, 1, 0, &[]);
    let c = p.compute(1, &[]);
    p.recv(1, 0, 0, &[c]);
    let mut s = Stages::new();
    s.sync(0, 1, 1.0);
    s.compute(1, 5.0);
    let out = run(&p, &s, 2, &[], Tie::Fixed).unwrap();
    assert_eq!(out.op_start, vec![5.0, 0.0, 5.0]);
    assert_eq!(out.op_end, vec![6.0, 5.0, 6.0]);
    assert_eq!(out.resource_busy[send_port(0) as usize], 1.0);
}

#[test]
fn empty_program_runs() {
    let p = Prog::new(1);
    let out = run(&p, &Stages::new(), 1, &[2.0], Tie::Random(1)).unwrap();
    assert_eq!(out.makespan, 0.0);
    assert!(out.op_start.is_empty() && out.op_end.is_empty());
    assert_eq!(out.channel_busy, vec![0.0]);
}

#[test]
fn eager_message_waits_in_the_mailbox() {
    // no stage needs the receive: the message is delivered at 1 s, the receive is posted at 3 s
    let mut p = Prog::new(2);
    p.send(0, 1, 0, &[]);
    let c = p.compute(1, &[]);
    p.recv(1, 0, 0, &[c]);
    let mut s = Stages::new();
    s.message(&[(HOLD, 1.0, &[send_port(0), recv_port(1)], &[], 0)], 0, 0);
    s.compute(1, 3.0);
    let out = run(&p, &s, 2, &[], Tie::Fixed).unwrap();
    assert_eq!(out.op_end[0], 1.0);
    assert_eq!((out.op_start[2], out.op_end[2]), (3.0, 3.0));
}

#[test]
fn compute_overlaps_communication_on_one_rank() {
    let mut p = Prog::new(2);
    p.send(0, 1, 0, &[]);
    p.compute(0, &[]);
    p.recv(1, 0, 0, &[]);
    let mut s = Stages::new();
    s.sync(0, 1, 2.0);
    s.compute(0, 3.0);
    let out = run(&p, &s, 2, &[], Tie::Fixed).unwrap();
    assert_eq!(out.op_start, vec![0.0, 0.0, 0.0]);
    assert_eq!(out.op_end, vec![2.0, 3.0, 2.0]);
    assert_eq!(out.resource_busy[cpu(0) as usize], 3.0);
    // two computations on one CPU do not overlap
    let c2 = p.compute(0, &[]);
    s.compute(0, 1.0);
    let out = run(&p, &s, 2, &[], Tie::Fixed).unwrap();
    assert_eq!((out.op_start[c2], out.op_end[c2]), (3.0, 4.0));
}

#[test]
fn dependencies_chain_a_forward() {
    // 0 -> 1 -> 2, then rank 2 computes on what it got
    let mut p = Prog::new(3);
    p.send(0, 1, 0, &[]);
    let r1 = p.recv(1, 0, 0, &[]);
    let s1 = p.send(1, 2, 1, &[r1]);
    let r2 = p.recv(2, 1, 1, &[]);
    let c = p.compute(2, &[r2]);
    let mut s = Stages::new();
    s.sync(0, 1, 1.0);
    s.sync(1, 2, 2.0);
    s.compute(2, 0.5);
    let out = run(&p, &s, 3, &[], Tie::Fixed).unwrap();
    assert_eq!((out.op_start[s1], out.op_end[s1]), (1.0, 3.0));
    assert_eq!((out.op_start[r2], out.op_end[r2]), (1.0, 3.0)); // posted at 0, the transfer starts at 1
    assert_eq!((out.op_start[c], out.op_end[c]), (3.0, 3.5));
    assert_eq!(out.makespan, 3.5);
}

#[test]
fn crossed_synchronous_sends_deadlock() {
    // each rank sends before receiving, and sends need the receive posted
    let mut p = Prog::new(2);
    let a = p.send(0, 1, 0, &[]);
    let b = p.send(1, 0, 1, &[]);
    p.recv(0, 1, 1, &[a]);
    p.recv(1, 0, 0, &[b]);
    let mut s = Stages::new();
    s.sync(0, 1, 1.0);
    s.sync(1, 0, 1.0);
    let err = run(&p, &s, 2, &[], Tie::Fixed).unwrap_err();
    assert_eq!(err, SimError::Deadlock { stuck: vec![0, 1, 2, 3] });
    assert!(err.to_string().contains("[0, 1, 2, 3]"));
    // eager sends (no needs_recv) get through
    s.needs_recv = vec![0, 0];
    assert_eq!(run(&p, &s, 2, &[], Tie::Fixed).unwrap().makespan, 1.0);
}

#[test]
fn deadlock_names_at_most_eight_lowest_ops() {
    // a ring where every rank receives before it sends
    let n = 12;
    let mut p = Prog::new(n);
    let mut s = Stages::new();
    for r in 0..n as i64 {
        let rv = p.recv(r, (r + n as i64 - 1) % n as i64, (r + n as i64 - 1) % n as i64, &[]);
        p.send(r, (r + 1) % n as i64, r, &[rv]);
        s.sync(r, (r + 1) % n as i64, 1.0);
    }
    let err = run(&p, &s, n, &[], Tie::Fixed).unwrap_err();
    assert_eq!(err, SimError::Deadlock { stuck: (0..8).collect() });
}

#[test]
fn times_come_back_in_operation_order() {
    // the engine keeps operations in slots (message m's send, its receive, then the computations); here the
    // program lists a computation first and a receive before its send, and the times must land on each op
    let mut p = Prog::new(2);
    let c = p.compute(0, &[]); // op 0: 2 s on rank 0's cpu
    let r1 = p.recv(0, 1, 1, &[]); // op 1: rank 0 receives m1
    let s0 = p.send(0, 1, 0, &[]); // op 2: rank 0 sends m0
    let r0 = p.recv(1, 0, 0, &[]); // op 3
    let s1 = p.send(1, 0, 1, &[r0]); // op 4: rank 1 answers once m0 is in
    let mut s = Stages::new();
    s.sync(0, 1, 1.0);
    s.sync(1, 0, 1.0);
    s.compute(0, 2.0);
    let out = run(&p, &s, 2, &[], Tie::Fixed).unwrap();
    assert_eq!([c, r1, s0, r0, s1], [0, 1, 2, 3, 4]);
    assert_eq!(out.op_start, vec![0.0, 1.0, 0.0, 0.0, 1.0]);
    assert_eq!(out.op_end, vec![2.0, 2.0, 1.0, 1.0, 2.0]);
    // m0 only after m1 is in: a cycle; the stuck ops are named in program order, the computation completes
    p.dep_idx.insert(0, r1 as i64);
    for d in &mut p.dep_ptr[3..] {
        *d += 1;
    }
    assert_eq!(p.dep_idx[p.dep_ptr[s0] as usize..p.dep_ptr[s0 + 1] as usize], [r1 as i64]);
    let err = run(&p, &s, 2, &[], Tie::Fixed).unwrap_err();
    assert_eq!(err, SimError::Deadlock { stuck: vec![1, 2, 3, 4] });
}

#[test]
fn unmatched_message_is_a_structure_error() {
    let mut p = Prog::new(2);
    p.send(0, 1, 0, &[]);
    let mut s = Stages::new();
    s.sync(0, 1, 1.0);
    let err = run(&p, &s, 2, &[], Tie::Fixed).unwrap_err();
    assert_eq!(err, SimError::Structure(crate::program::StructureError::UnmatchedMessage { msg: 0, op: 0 }));
}

#[test]
fn unused_message_ids_keep_their_slot() {
    // message 0 is unused: its activity exists, with no stage
    let mut p = Prog::new(2);
    p.send(0, 1, 1, &[]);
    p.recv(1, 0, 1, &[]);
    let mut s = Stages::new();
    s.message(&[], 0, 0);
    s.sync(0, 1, 1.0);
    assert_eq!(run(&p, &s, 2, &[], Tie::Fixed).unwrap().op_end, vec![1.0, 1.0]);
}

#[test]
fn zero_duration_stages_chain_within_one_instant() {
    let mut p = Prog::new(2);
    p.send(0, 1, 0, &[]);
    p.recv(1, 0, 0, &[]);
    p.send(0, 1, 1, &[0]);
    p.recv(1, 0, 1, &[1]);
    let mut s = Stages::new();
    s.message(
        &[(HOLD, 0.0, &[send_port(0)], &[], 0), (DELAY, 0.0, &[], &[], 0), (HOLD, 0.0, &[recv_port(1)], &[], 1)],
        0,
        2,
    );
    s.sync(0, 1, 0.0);
    let out = run(&p, &s, 2, &[], Tie::Fixed).unwrap();
    assert_eq!(out.op_end, vec![0.0; 4]);
    assert_eq!(out.events, 4);
}

#[test]
fn busy_times_add_up() {
    let (p, s) = reference::random_case(3, 5, 40, true);
    let out = run(&p, &s, 5, &[], Tie::Random(9)).unwrap();
    let mut expected = vec![0.0; 15];
    for st in 0..s.kind.len() {
        for &r in &s.res[s.res_ptr[st] as usize..s.res_ptr[st + 1] as usize] {
            expected[r as usize] += s.amount[st];
        }
    }
    assert_eq!(out.resource_busy, expected);
    // a port is never busy for longer than the run
    assert!(out.resource_busy.iter().all(|&b| b <= out.makespan));
}

#[test]
fn matches_the_reference_on_random_programs() {
    let mut deadlocks = 0;
    for case in 0..400u64 {
        let n_ranks = 2 + (case % 5) as usize;
        // small shuffled programs (many deadlock), then larger ones that cannot deadlock
        let (n_msgs, acyclic) =
            if case < 300 { (4 + (case % 17) as usize, false) } else { (30 + (case % 40) as usize, true) };
        let (p, s) = reference::random_case(case, n_ranks, n_msgs, acyclic);
        for tie in [Tie::Fixed, Tie::Random(case)] {
            let got = run(&p, &s, n_ranks, &[], tie);
            let want = reference::simulate(&p, &s, n_ranks, tie);
            match (&got, &want) {
                (Ok(g), Ok(w)) => {
                    assert_eq!(g.op_start, w.op_start, "case {case} {tie:?}: op_start");
                    assert_eq!(g.op_end, w.op_end, "case {case} {tie:?}: op_end");
                    assert_eq!(g.resource_busy, w.resource_busy, "case {case} {tie:?}: busy");
                }
                (Err(g), Err(w)) => {
                    assert_eq!(g, w, "case {case} {tie:?}");
                    assert!(!acyclic, "case {case} {tie:?}: {g}");
                    deadlocks += 1;
                }
                _ => panic!("case {case} {tie:?}: engine {got:?}, reference {want:?}"),
            }
        }
    }
    assert!(deadlocks > 0 && deadlocks < 300, "the cases should mix deadlocks and runs ({deadlocks})");
}
