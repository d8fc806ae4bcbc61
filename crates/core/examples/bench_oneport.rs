//! Throughput of the event engine on a caterpillar all-to-all under the
//! synchronous one-port model.
//!
//! `n` hosts; at step `k = 1 .. n-1` host `i` sends one message to host
//! `(i + k) mod n`. Each rank's send of step `k` waits for its previous send
//! (a blocking caterpillar); all receives are posted at once. Every message
//! is one hold stage on {send port of the sender, receive port of the
//! receiver}. Prints operations simulated per second (the `simulate` call
//! only, stage-table checks included).
//!
//! ```text
//! cargo run --release -p collsched-core --example bench_oneport -- 1024
//! ```

use std::time::Instant;

use collsched_core::program::ProgramView;
use collsched_core::sim::{simulate, SimConfig, StageTable, Tie};

fn main() {
    let n: usize =
        std::env::args().nth(1).map_or(1024, |a| a.parse().expect("usage: bench_oneport [n_hosts] [repeats]"));
    let repeats: usize = std::env::args().nth(2).map_or(3, |a| a.parse().expect("repeats"));
    assert!(n >= 2);
    let built = Instant::now();
    let n_msgs = n * (n - 1);
    let msg = |i: usize, k: usize| (i * (n - 1) + k - 1) as i64; // message of host i at step k
    let n_ops = 2 * n_msgs;
    let (mut op_rank, mut op_kind, mut op_peer, mut op_msg) =
        (Vec::with_capacity(n_ops), Vec::with_capacity(n_ops), Vec::with_capacity(n_ops), Vec::with_capacity(n_ops));
    let mut dep_ptr = Vec::with_capacity(n_ops + 1);
    let mut dep_idx = Vec::with_capacity(n_msgs);
    dep_ptr.push(0i64);
    for i in 0..n {
        for k in 1..n {
            if k > 1 {
                dep_idx.push((op_rank.len() - 1) as i64); // the previous send of this rank
            }
            op_rank.push(i as i64);
            op_kind.push(0);
            op_peer.push(((i + k) % n) as i64);
            op_msg.push(msg(i, k));
            dep_ptr.push(dep_idx.len() as i64);
        }
        for k in 1..n {
            let from = (i + n - k) % n;
            op_rank.push(i as i64);
            op_kind.push(1);
            op_peer.push(from as i64);
            op_msg.push(msg(from, k));
            dep_ptr.push(dep_idx.len() as i64);
        }
    }
    let piece_ptr = vec![0i64; n_ops + 1];
    let p = ProgramView {
        n_ranks: n,
        op_rank: &op_rank,
        op_kind: &op_kind,
        op_peer: &op_peer,
        op_msg: &op_msg,
        dep_ptr: &dep_ptr,
        dep_idx: &dep_idx,
        piece_ptr: &piece_ptr,
        pieces: &[],
        denominator: 1,
    };

    // one hold per message, 1 MB at 1 GB/s plus 10 us
    let secs = 1e-5 + 1e6 / 1e9;
    let act_ptr: Vec<i64> = (0..=n_msgs as i64).collect();
    let mut res = Vec::with_capacity(2 * n_msgs);
    for i in 0..n {
        for k in 1..n {
            res.push(3 * i as i64);
            res.push(3 * ((i + k) % n) as i64 + 1);
        }
    }
    let res_ptr: Vec<i64> = (0..=n_msgs as i64).map(|s| 2 * s).collect();
    let zeros = vec![0i64; n_msgs];
    let chan_ptr = vec![0i64; n_msgs + 1];
    let stages = StageTable {
        act_ptr: &act_ptr,
        kind: &zeros,
        amount: &vec![secs; n_msgs],
        res_ptr: &res_ptr,
        res: &res,
        chan_ptr: &chan_ptr,
        chan: &[],
        cap: &vec![f64::INFINITY; n_msgs],
        needs_recv: &vec![1u8; n_msgs],
        sender_done: &zeros,
        recv_begins: &zeros,
    };
    println!("built {n} hosts: {n_msgs} messages, {n_ops} ops in {:.3} s", built.elapsed().as_secs_f64());

    let mut best = f64::INFINITY;
    let mut first = None;
    for tie in (0..repeats).flat_map(|_| [Tie::Fixed, Tie::Random(1)]) {
        let cfg = SimConfig { n_resources: 3 * n, capacities: &[], tie };
        let t0 = Instant::now();
        let out = simulate(&p, &stages, &cfg).expect("the caterpillar runs");
        let dt = t0.elapsed().as_secs_f64();
        let expected = (n - 1) as f64 * secs;
        assert!((out.makespan - expected).abs() <= 1e-9 * expected, "makespan {} != {expected}", out.makespan);
        assert_eq!(out.events, n_msgs as u64);
        println!(
            "{tie:?}: {:.3} s, {:.2} M ops/s, {:.2} M events/s, makespan {:.6} s",
            dt,
            n_ops as f64 / dt / 1e6,
            out.events as f64 / dt / 1e6,
            out.makespan
        );
        best = best.min(dt);
        first.get_or_insert(dt);
    }
    // the first call also pays for fresh pages from the system, as a lone call from Python does
    let first = first.expect("at least one repeat");
    println!("first call: {:.2} M ops/s, best: {:.2} M ops/s", n_ops as f64 / first / 1e6, n_ops as f64 / best / 1e6);
}
