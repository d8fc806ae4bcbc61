//! Flow stages: max-min sharing through `crate::fluid::MaxMin`, rate caps,
//! resources held for the whole flow, simultaneous completions.

use super::*;

#[test]
fn flows_share_a_channel_max_min_fairly() {
    // m0 (2 MB) and m1 (1 MB) from ranks 0 and 1 to rank 2 over one 1 MB/s channel
    let mut p = Prog::new(3);
    p.send(0, 2, 0, &[]);
    p.send(1, 2, 1, &[]);
    p.recv(2, 0, 0, &[]);
    p.recv(2, 1, 1, &[]);
    let mut s = Stages::new();
    s.message(&[(DELAY, 0.5, &[], &[], 0), (FLOW, 2e6, &[], &[0], 0)], 1, 1);
    s.message(&[(FLOW, 1e6, &[], &[0], 0)], 0, 0);
    let out = run(&p, &s, 3, &[1e6], Tie::Fixed).unwrap();
    // m1 alone for 0.5 s (0.5 MB), then 0.5 MB/s each: m1 ends at 1.5 s, m0 then has 1.5 MB left, alone: 3 s
    assert!(close(out.op_end[1], 1.5), "{:?}", out.op_end);
    assert!(close(out.op_end[0], 3.0), "{:?}", out.op_end);
    assert_eq!(out.op_start[2], 0.5); // the receive begins with the flow stage
    assert!(close(out.channel_busy[0], 3.0));
    assert_eq!(out.events, 3);
}

#[test]
fn per_flow_cap_and_resources_held_for_the_whole_flow() {
    // a capped flow (0.25 MB/s on a 1 MB/s channel) holding rank 0's send port, then a hold on that port
    let mut p = Prog::new(2);
    let a = p.send(0, 1, 0, &[]);
    p.recv(1, 0, 0, &[]);
    p.compute(1, &[]);
    p.send(0, 1, 1, &[]);
    p.recv(1, 0, 1, &[]);
    let _ = a;
    let mut s = Stages::new();
    s.message(&[(FLOW, 1e6, &[send_port(0)], &[0], 0)], 0, 0);
    s.sync(0, 1, 1.0);
    s.compute(1, 0.0);
    s.cap[0] = 0.25e6;
    let out = run(&p, &s, 2, &[1e6], Tie::Fixed).unwrap();
    assert!(close(out.op_end[0], 4.0));
    assert!(close(out.op_start[3], 4.0)); // the port was held by the flow
    assert!(close(out.resource_busy[send_port(0) as usize], 5.0));
    assert!(close(out.channel_busy[0], 1.0));
}

#[test]
fn simultaneous_flow_completions_are_one_instant() {
    // three equal flows share one 0.7 MB/s channel and end together (up to rounding); each frees a send
    // port that the next message of its rank, a hold on rank 3's receive port, needs: those holds
    // compete at one instant, so the tie-break alone orders them, and some seed must change the order
    let n = 3;
    let mut p = Prog::new(n + 1);
    let mut s = Stages::new();
    for r in 0..n as i64 {
        let snd = p.send(r, n as i64, 2 * r, &[]);
        p.recv(n as i64, r, 2 * r, &[]);
        p.send(r, n as i64, 2 * r + 1, &[snd]);
        p.recv(n as i64, r, 2 * r + 1, &[]);
        s.message(&[(FLOW, 0.1e6, &[send_port(r)], &[0], 0)], 0, 0);
        s.sync(r, n as i64, 1.0);
    }
    let t1 = 0.1e6 / (0.7e6 / 3.0);
    let mut orders = std::collections::BTreeSet::new();
    for tie in [Tie::Fixed, Tie::Random(0), Tie::Random(1), Tie::Random(2), Tie::Random(3), Tie::Random(4)] {
        let out = run(&p, &s, n + 1, &[0.7e6], tie).unwrap();
        let firsts: Vec<f64> = (0..n).map(|r| out.op_end[4 * r]).collect();
        assert!(firsts.iter().all(|&t| close(t, t1)), "{firsts:?}");
        let mut seconds: Vec<(f64, usize)> = (0..n).map(|r| (out.op_start[4 * r + 2], r)).collect();
        seconds.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (k, &(start, _)) in seconds.iter().enumerate() {
            assert!(close(start, t1 + k as f64), "{tie:?}: {seconds:?}");
        }
        if tie == Tie::Fixed {
            assert_eq!(seconds.iter().map(|x| x.1).collect::<Vec<_>>(), vec![0, 1, 2]);
        }
        orders.insert(seconds.iter().map(|x| x.1).collect::<Vec<_>>());
    }
    assert!(orders.len() > 1, "{orders:?}");
}

#[test]
fn fluid_all_to_all_on_a_star_conserves_bytes() {
    // 5 hosts on a star: an uplink and a downlink channel per host (1 MB/s), 1 ms latency;
    // every host sends 1..3 MB to every other, all at once
    let n = 5i64;
    let mut p = Prog::new(n as usize);
    let mut s = Stages::new();
    let mut up = vec![0.0; n as usize];
    let mut msg = 0;
    for a in 0..n {
        for b in (0..n).filter(|&b| b != a) {
            let bytes = 1e6 * (1 + (a + 2 * b) % 3) as f64;
            p.send(a, b, msg, &[]);
            s.message(&[(DELAY, 1e-3, &[], &[], 0), (FLOW, bytes, &[], &[a, n + b], 0)], 1, 1);
            up[a as usize] += bytes;
            msg += 1;
        }
    }
    let mut m = 0;
    for a in 0..n {
        for b in (0..n).filter(|&b| b != a) {
            p.recv(b, a, m, &[]);
            m += 1;
        }
    }
    let caps = vec![1e6; 2 * n as usize];
    let a = run(&p, &s, n as usize, &caps, Tie::Random(5)).unwrap();
    let b = run(&p, &s, n as usize, &caps, Tie::Random(5)).unwrap();
    assert_eq!(a, b);
    for (h, &bytes) in up.iter().enumerate() {
        assert!(close(a.channel_busy[h], bytes / 1e6), "uplink {h}: {} vs {}", a.channel_busy[h], bytes / 1e6);
    }
    let total_up: f64 = a.channel_busy[..n as usize].iter().sum();
    let total_down: f64 = a.channel_busy[n as usize..].iter().sum();
    assert!(close(total_up, total_down));
    // no channel carries more than its capacity allows: the makespan covers the busiest one
    let busiest = a.channel_busy.iter().copied().fold(0.0, f64::max);
    assert!(a.makespan >= busiest + 1e-3 - 1e-9 && a.makespan <= total_up, "{} vs {busiest}", a.makespan);
    assert_eq!(a.events, 2 * 20);
}
