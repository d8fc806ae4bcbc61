//! A slow, obvious reference for hold and delay stages: at every instant,
//! settle readiness and eligibility to a fixpoint, then scan all waiting
//! stages in priority order and start those whose resources are free.
//! Durations must be > 0 (then nothing else happens at the instant a stage
//! starts).

#![allow(clippy::needless_range_loop)] // index-heavy on purpose: it must be obvious

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{cpu, recv_port, send_port, Prog, Stages, DELAY, HOLD};
use crate::sim::{SimError, SimOutcome, Tie};

/// A random program of `n_msgs` messages among `n_ranks` ranks, with
/// computations and random same-rank dependencies, each message compiled
/// under a random model (synchronous, asynchronous or eager one-port), with
/// integer durations (so that times are exact and ties frequent).
///
/// `acyclic`: operations are numbered in one global order where each receive
/// comes right after its send, so the program cannot deadlock (the earliest
/// incomplete operation is always ready, and so is the receive of a send);
/// otherwise each rank's operations are shuffled, and many cases deadlock.
pub fn random_case(seed: u64, n_ranks: usize, n_msgs: usize, acyclic: bool) -> (Prog, Stages) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut below = |n: usize| (rng.next_u64() % n as u64) as usize;
    // the operations in the order they get their indices: (rank, kind, msg or duration)
    let mut order: Vec<(usize, i64, i64)> = vec![];
    let mut ends = vec![];
    if acyclic {
        for m in 0..n_msgs {
            let s = below(n_ranks);
            let r = (s + 1 + below(n_ranks - 1)) % n_ranks;
            ends.push((s as i64, r as i64));
            if below(4) == 0 {
                order.push((below(n_ranks), 2, 1 + below(3) as i64));
            }
            order.push((s, 0, m as i64));
            order.push((r, 1, m as i64));
        }
    } else {
        // per rank, a shuffled list of (kind, msg or duration), then the ranks interleaved at random
        let mut lists: Vec<Vec<(i64, i64)>> = vec![vec![]; n_ranks];
        for m in 0..n_msgs {
            let s = below(n_ranks);
            let r = (s + 1 + below(n_ranks - 1)) % n_ranks;
            ends.push((s as i64, r as i64));
            lists[s].push((0, m as i64));
            lists[r].push((1, m as i64));
        }
        for list in lists.iter_mut() {
            for _ in 0..below(3) {
                list.push((2, 1 + below(3) as i64));
            }
            for i in (1..list.len()).rev() {
                list.swap(i, below(i + 1));
            }
        }
        let mut pos = vec![0; n_ranks];
        let mut left: usize = lists.iter().map(|l| l.len()).sum();
        while left > 0 {
            let r = below(n_ranks);
            if pos[r] < lists[r].len() {
                let (kind, x) = lists[r][pos[r]];
                order.push((r, kind, x));
                pos[r] += 1;
                left -= 1;
            }
        }
    }
    let mut p = Prog::new(n_ranks);
    let mut computes = vec![];
    let mut last: Vec<Vec<usize>> = vec![vec![]; n_ranks];
    for (r, kind, x) in order {
        let mut deps = vec![];
        if let Some(&prev) = last[r].last() {
            if below(2) == 0 {
                deps.push(prev);
            }
            if below(4) == 0 {
                let other = last[r][below(last[r].len())];
                if !deps.contains(&other) {
                    deps.push(other);
                }
            }
        }
        let op = match kind {
            0 => p.send(r as i64, ends[x as usize].1, x, &deps),
            1 => p.recv(r as i64, ends[x as usize].0, x, &deps),
            _ => {
                computes.push((r as i64, x as f64));
                p.compute(r as i64, &deps)
            }
        };
        last[r].push(op);
    }
    let mut st = Stages::new();
    for &(s, r) in &ends {
        let d = |k: usize| 1.0 + (k % 3) as f64;
        match below(3) {
            0 => st.sync(s, r, d(below(3))),
            1 => st.message(
                &[
                    (HOLD, d(below(3)), &[send_port(s)], &[], 0),
                    (DELAY, d(below(3)), &[], &[], 0),
                    (HOLD, d(below(3)), &[recv_port(r)], &[], 1),
                ],
                0,
                2,
            ),
            _ => st.message(&[(HOLD, d(below(3)), &[send_port(s), recv_port(r)], &[], 0)], 0, 0),
        }
    }
    for (r, secs) in computes {
        st.compute(r, secs);
    }
    let _ = cpu;
    (p, st)
}

pub fn simulate(p: &Prog, st: &Stages, n_ranks: usize, tie: Tie) -> Result<SimOutcome, SimError> {
    let n = p.op_rank.len();
    let n_msgs = (p.op_msg.iter().copied().max().unwrap_or(-1) + 1) as usize;
    let ns = st.kind.len();
    let n_acts = st.act_ptr.len() - 1;
    let mut send_of = vec![usize::MAX; n_msgs];
    let mut recv_of = vec![usize::MAX; n_msgs];
    let mut op_of_act = vec![usize::MAX; n_acts];
    let mut act_of_op = vec![0; n];
    let mut next_compute = n_msgs;
    for op in 0..n {
        let m = p.op_msg[op];
        match p.op_kind[op] {
            0 => send_of[m as usize] = op,
            1 => recv_of[m as usize] = op,
            _ => {
                op_of_act[next_compute] = op;
                act_of_op[op] = next_compute;
                next_compute += 1;
                continue;
            }
        }
        act_of_op[op] = m as usize;
    }
    let tie_of: Vec<u32> = match tie {
        Tie::Fixed => (0..n_acts as u32).collect(),
        Tie::Random(seed) => {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            (0..n_acts).map(|_| rng.next_u32()).collect()
        }
    };
    let act_of_stage = |s: usize| (0..n_acts).find(|&a| st.act_ptr[a + 1] as usize > s).unwrap();
    let res_of = |s: usize| &st.res[st.res_ptr[s] as usize..st.res_ptr[s + 1] as usize];
    let deps = |op: usize| &p.dep_idx[p.dep_ptr[op] as usize..p.dep_ptr[op + 1] as usize];

    let mut ready: Vec<Option<f64>> = vec![None; n];
    let mut op_start = vec![f64::NAN; n];
    let mut op_end: Vec<Option<f64>> = vec![None; n];
    let mut elig: Vec<Option<f64>> = vec![None; ns];
    let mut start: Vec<Option<f64>> = vec![None; ns];
    let mut end: Vec<Option<f64>> = vec![None; ns];
    let mut now = 0.0f64;
    loop {
        let done = |x: Option<f64>, now: f64| x.filter(|&e| e <= now);
        loop {
            let mut changed = false;
            for op in 0..n {
                if ready[op].is_none() && deps(op).iter().all(|&d| op_end[d as usize].is_some()) {
                    ready[op] = Some(deps(op).iter().map(|&d| op_end[d as usize].unwrap()).fold(0.0, f64::max));
                    changed = true;
                }
                if op_end[op].is_some() {
                    continue;
                }
                let a = act_of_op[op];
                let first = st.act_ptr[a] as usize;
                let last = st.act_ptr[a + 1] as usize - 1;
                match p.op_kind[op] {
                    0 => {
                        if let Some(e) = done(end[first + st.sender_done[a] as usize], now) {
                            op_end[op] = Some(e);
                            op_start[op] = start[first].unwrap();
                            changed = true;
                        }
                    }
                    1 => {
                        if let (Some(e), Some(r)) = (done(end[last], now), ready[op]) {
                            op_end[op] = Some(e.max(r));
                            op_start[op] = start[first + st.recv_begins[a] as usize].unwrap().max(r);
                            changed = true;
                        }
                    }
                    _ => {
                        if let Some(e) = done(end[first], now) {
                            op_end[op] = Some(e);
                            op_start[op] = start[first].unwrap();
                            changed = true;
                        }
                    }
                }
            }
            for s in 0..ns {
                if elig[s].is_some() {
                    continue;
                }
                let a = act_of_stage(s);
                if a < n_msgs && send_of[a] == usize::MAX {
                    continue;
                }
                let first = st.act_ptr[a] as usize;
                let prev = if s == first {
                    ready[if a < n_msgs { send_of[a] } else { op_of_act[a] }]
                } else {
                    done(end[s - 1], now)
                };
                let Some(t0) = prev else { continue };
                if st.needs_recv[s] == 1 {
                    if let Some(r) = ready[recv_of[a]] {
                        elig[s] = Some(t0.max(r));
                        changed = true;
                    }
                } else {
                    elig[s] = Some(t0);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let mut waiting: Vec<usize> = (0..ns).filter(|&s| elig[s].is_some() && start[s].is_none()).collect();
        waiting.sort_by(|&x, &y| {
            let key = |s: usize| (elig[s].unwrap(), tie_of[act_of_stage(s)], s);
            key(x).partial_cmp(&key(y)).unwrap()
        });
        let mut busy = vec![false; 3 * n_ranks];
        for s in 0..ns {
            if start[s].is_some() && end[s].unwrap() > now {
                res_of(s).iter().for_each(|&r| busy[r as usize] = true);
            }
        }
        for s in waiting {
            if res_of(s).iter().all(|&r| !busy[r as usize]) {
                res_of(s).iter().for_each(|&r| busy[r as usize] = true);
                start[s] = Some(now);
                end[s] = Some(now + st.amount[s]);
            }
        }
        match end.iter().flatten().copied().filter(|&e| e > now).min_by(f64::total_cmp) {
            Some(t) => now = t,
            None => break,
        }
    }
    if op_end.iter().any(|e| e.is_none()) {
        return Err(SimError::Deadlock { stuck: (0..n).filter(|&op| op_end[op].is_none()).take(8).collect() });
    }
    let mut resource_busy = vec![0.0; 3 * n_ranks];
    for s in 0..ns {
        if start[s].is_some() {
            res_of(s).iter().for_each(|&r| resource_busy[r as usize] += st.amount[s]);
        }
    }
    let op_end: Vec<f64> = op_end.into_iter().map(Option::unwrap).collect();
    let makespan = op_end.iter().copied().fold(0.0, f64::max);
    Ok(SimOutcome { op_start, op_end, resource_busy, channel_busy: vec![], events: 0, makespan })
}
