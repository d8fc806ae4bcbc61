//! The event loop: operations become ready, post their activities, stages
//! start (through the [`Arbiter`]) and end (events, or flow completions of
//! the fluid solver), ends complete operations.
//!
//! One step of the loop takes the earliest pending time `t`, processes every
//! stage end at `t` (heap events and flow completions), then every
//! operation that became ready at `t`, and only then starts the stages that
//! can start at `t` (semantics 4 of `docs/engine.md`). A stage of zero
//! duration ends at `t` again, which the next step handles.

use super::arbiter::Arbiter;
use super::layout::{Layout, DELIVERED, FLOW, NONE, RECV};
use super::queue::EndQueue;
use super::time::{Priority, Time};
use super::{SimConfig, SimError, SimOutcome};
use crate::fluid::MaxMin;

/// Relative tolerance under which two flow completions count as simultaneous.
const SAME_INSTANT: f64 = 1e-12;

struct Engine<'a> {
    l: Layout<'a>,
    /// Start and end time of the operation in each slot (see [`Layout::ops`]).
    times: Vec<[f64; 2]>,
    /// Operations that became ready and are not handled yet.
    ready: Vec<u32>,
    events: EndQueue,
    /// The stage ends taken off `events` for the current instant.
    batch: Vec<u32>,
    arbiter: Arbiter,
    /// The fluid solver, only if some stage is a flow.
    fluid: Option<MaxMin>,
    /// Start time of each running flow stage that holds resources (indexed by stage; empty if none does).
    flow_start: Vec<f64>,
    /// The channels of the flow being added, as the fluid solver takes them.
    route: Vec<usize>,
    /// Stages the arbiter started in this step (without resources anywhere: every stage made eligible).
    started: Vec<u32>,
    resource_busy: Vec<f64>,
    n_done: usize,
    n_events: u64,
}

pub(super) fn run(l: Layout<'_>, cfg: &SimConfig) -> Result<SimOutcome, SimError> {
    let n_ops = l.slot.len();
    let n_stages = l.stages.len();
    let has_flows = l.has_flows;
    let mut e = Engine {
        // zeroed pages come lazily from the system, and a first write finds its line in the cache
        times: vec![[0.0; 2]; l.ops.len() - 1],
        ready: Vec::new(),
        events: EndQueue::new(),
        batch: Vec::new(),
        arbiter: Arbiter::new(cfg.n_resources),
        fluid: has_flows.then(|| MaxMin::new(cfg.capacities)),
        flow_start: if l.flow_holds { vec![0.0; n_stages] } else { Vec::new() },
        started: Vec::new(),
        route: Vec::new(),
        resource_busy: vec![0.0; cfg.n_resources],
        n_done: 0,
        n_events: 0,
        l,
    };
    // what is ready at 0 (a receive without dependencies is simply posted: nothing to do)
    let mut now = 0.0;
    for op in 0..n_ops {
        let at = e.l.slot[op];
        let rec = e.l.ops[at as usize];
        if rec.deps_left == 0 && rec.kind() != RECV {
            e.ready.push(at);
            e.drain_ready(now);
        }
    }
    e.start_stages(now);
    while let Some(t) = e.next_time() {
        now = t.max(now);
        e.end_stages(now);
        e.drain_ready(now);
        e.start_stages(now);
    }
    if e.n_done < n_ops {
        let stuck = (0..n_ops).filter(|&op| !e.l.ops[e.l.slot[op] as usize].done()).take(8).collect();
        return Err(SimError::Deadlock { stuck });
    }
    let channel_busy = match &e.fluid {
        Some(fluid) => {
            let bytes = fluid.channel_bytes();
            cfg.capacities.iter().enumerate().map(|(c, &cap)| bytes.get(c).map_or(0.0, |b| b / cap)).collect()
        }
        None => vec![0.0; cfg.capacities.len()],
    };
    // back to operation order
    let (mut op_start, mut op_end) = (Vec::with_capacity(n_ops), Vec::with_capacity(n_ops));
    for &at in &e.l.slot {
        let [start, end] = e.times[at as usize];
        op_start.push(start);
        op_end.push(end);
    }
    let makespan = op_end.iter().copied().fold(0.0, f64::max);
    Ok(SimOutcome {
        op_start,
        op_end,
        resource_busy: e.resource_busy,
        channel_busy,
        events: e.n_events,
        makespan,
    })
}

impl Engine<'_> {
    /// The earliest pending stage end, if any.
    fn next_time(&mut self) -> Option<f64> {
        let te = self.events.min();
        let tf = match &mut self.fluid {
            Some(fluid) if fluid.active() > 0 => fluid.next_completion().map(|(t, _)| t),
            _ => None,
        };
        match (te, tf) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Process every stage end at `t`.
    fn end_stages(&mut self, t: f64) {
        // every pending end is at `t` or later: those at `t`, in stage order
        if self.events.min().is_some_and(|te| te <= t) {
            let mut batch = std::mem::take(&mut self.batch);
            self.events.take_min(&mut batch);
            for &s in &batch {
                self.end_stage(s as usize, t);
            }
            self.batch = batch;
        }
        let limit = t + SAME_INSTANT * t.abs();
        while let Some(fluid) = &mut self.fluid {
            if fluid.active() == 0 {
                break;
            }
            match fluid.next_completion() {
                Some((tc, id)) if tc <= limit => {
                    fluid.remove(t, id);
                    self.end_stage(id, t);
                }
                _ => break,
            }
        }
    }

    fn end_stage(&mut self, s: usize, t: f64) {
        self.n_events += 1;
        let rec = self.l.stages[s];
        if rec.n_res > 0 {
            let held = if rec.kind == FLOW { t - self.flow_start[s] } else { rec.amount };
            let res = self.l.res_of(s);
            for &r in res {
                self.resource_busy[r as usize] += held;
            }
            self.arbiter.release(res);
        }
        let a = rec.act as usize;
        let act = self.l.acts[a];
        if a >= self.l.n_msgs {
            // a compute
            self.finish(self.l.send_slot(a), t);
            return;
        }
        if s == act.done_at as usize {
            self.finish(self.l.send_slot(a), t);
        }
        if s == act.last as usize {
            let recv = Layout::recv_slot(a);
            if self.l.ops[recv].deps_left == 0 {
                self.finish(recv, t);
            } else {
                self.l.acts[a].wait = DELIVERED;
                self.l.ops[recv].set_attention(true);
            }
        } else {
            self.make_eligible(s + 1, a, t);
        }
    }

    fn finish(&mut self, op: usize, t: f64) {
        self.times[op][1] = t;
        self.n_done += 1;
        self.l.ops[op].set_done();
        let (lo, hi) = (self.l.ops[op].succ_lo, self.l.ops[op + 1].succ_lo);
        for i in lo..hi {
            let next = self.l.succ_at(i as usize);
            let left = &mut self.l.ops[next as usize].deps_left;
            *left -= 1;
            if *left == 0 {
                self.ready.push(next);
            }
        }
    }

    /// Handle every operation that became ready at `t` (and those their handling makes ready).
    fn drain_ready(&mut self, t: f64) {
        while let Some(op) = self.ready.pop() {
            let rec = self.l.ops[op as usize];
            let a = rec.act();
            if rec.kind() == RECV {
                if rec.attention() {
                    self.l.ops[op as usize].set_attention(false);
                    let act = &mut self.l.acts[a];
                    let (wait, begins_at) = (std::mem::replace(&mut act.wait, NONE), act.begins_at);
                    let tie = act.tie;
                    // posted now: the receive began with stage `begins_at`, but not before
                    if wait == NONE || wait == DELIVERED || wait > begins_at {
                        self.times[op as usize][0] = t;
                    }
                    if wait == DELIVERED {
                        self.finish(op as usize, t);
                    } else if wait != NONE {
                        self.eligible(Priority { eligible: Time(t), tie, stage: wait });
                    }
                }
            } else {
                let first = self.l.acts[a].first as usize;
                self.make_eligible(first, a, t);
            }
        }
    }

    /// Stage `s` of activity `a` may start from `t` on, or once its receive is posted if it needs it.
    #[inline]
    fn make_eligible(&mut self, s: usize, a: usize, t: f64) {
        let act = &mut self.l.acts[a];
        let recv = Layout::recv_slot(a);
        if self.l.stages[s].needs_recv != 0 && self.l.ops[recv].deps_left != 0 {
            act.wait = s as u32;
            self.l.ops[recv].set_attention(true);
        } else {
            let prio = Priority { eligible: Time(t), tie: act.tie, stage: s as u32 };
            self.eligible(prio);
        }
    }

    /// A stage is eligible: to the arbiter, or, when no stage holds a resource, started in this step
    /// (what the arbiter would do: nothing blocks, and it starts them in the order they came).
    #[inline]
    fn eligible(&mut self, prio: Priority) {
        if self.l.holds {
            self.arbiter.make_eligible(prio);
        } else {
            self.started.push(prio.stage);
        }
    }

    /// Start at `t` every stage the arbiter lets start.
    fn start_stages(&mut self, t: f64) {
        if self.l.holds {
            self.arbiter.decide(&self.l, &mut self.started);
        }
        for i in 0..self.started.len() {
            let s = self.started[i] as usize;
            let rec = self.l.stages[s];
            let a = rec.act as usize;
            let act = &self.l.acts[a];
            if s == act.first as usize {
                self.times[self.l.send_slot(a)][0] = t; // the send (or compute) starts with stage 0
            }
            if s == act.begins_at as usize {
                let recv = Layout::recv_slot(a);
                self.times[recv][0] = t;
                if self.l.ops[recv].deps_left != 0 {
                    self.l.ops[recv].set_attention(true); // to move the start to the post time
                }
            }
            if rec.kind != FLOW {
                self.schedule_end(s, t + rec.amount);
                continue;
            }
            if rec.n_res > 0 {
                self.flow_start[s] = t;
            }
            let cap = self.l.cap_of(s);
            let chans = self.l.chan_of(s);
            if rec.amount == 0.0 || chans.is_empty() {
                // nothing to share: the per-flow cap alone sets the pace
                self.schedule_end(s, t + rec.amount / cap);
            } else if let Some(fluid) = &mut self.fluid {
                self.route.clear();
                self.route.extend(chans.iter().map(|&c| c as usize));
                fluid.add(t, s, &self.route, rec.amount, cap);
            }
        }
        self.started.clear();
    }

    #[inline]
    fn schedule_end(&mut self, s: usize, t: f64) {
        self.events.push(t, s as u32);
    }
}
