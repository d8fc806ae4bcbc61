//! The stage table and the configuration are checked before any work, and
//! each fault is named with its place.

use super::*;

fn bad_stages(p: &Prog, s: &Stages) -> String {
    match run(p, s, 2, &[1e6], Tie::Fixed) {
        Err(SimError::BadStages(msg)) => msg,
        other => panic!("expected BadStages, got {other:?}"),
    }
}

fn one_transfer() -> (Prog, Stages) {
    let mut p = Prog::new(2);
    p.send(0, 1, 0, &[]);
    p.recv(1, 0, 0, &[]);
    p.compute(0, &[]);
    let mut s = Stages::new();
    s.sync(0, 1, 1.0);
    s.compute(0, 1.0);
    (p, s)
}

#[test]
fn stage_table_shapes_are_checked() {
    let (p, s) = one_transfer();
    let mut t = s.clone();
    t.act_ptr.pop();
    assert!(bad_stages(&p, &t).contains("act_ptr has 2 entries, expected 3 (1 message ids + 1 compute ops + 1)"));
    let mut t = s.clone();
    t.amount.push(1.0);
    assert!(bad_stages(&p, &t).contains("amount has 3 entries"));
    let mut t = s.clone();
    t.res_ptr[1] = 4;
    assert!(bad_stages(&p, &t).contains("res_ptr decreases at row 1"));
    let mut t = s.clone();
    t.sender_done.clear();
    assert!(bad_stages(&p, &t).contains("sender_done has 0 entries"));
}

#[test]
fn stage_values_are_checked_with_their_place() {
    let (p, s) = one_transfer();
    let mut t = s.clone();
    t.res[1] = 6;
    assert_eq!(bad_stages(&p, &t), "stage 0 (message activity 0): resource 6 out of range 0..6");
    let mut t = s.clone();
    t.res[1] = t.res[0];
    assert_eq!(bad_stages(&p, &t), "stage 0 (message activity 0): resource 0 listed twice");
    let mut t = s.clone();
    t.amount[1] = f64::NAN;
    assert_eq!(bad_stages(&p, &t), "stage 1 (compute activity 1): amount = NaN, must be finite and >= 0");
    let mut t = s.clone();
    t.kind[0] = 3;
    assert!(bad_stages(&p, &t).starts_with("stage 0 (message activity 0): kind = 3"));
    let mut t = s.clone();
    t.kind[0] = DELAY;
    assert!(bad_stages(&p, &t).contains("a delay holds nothing"));
    let mut t = s.clone();
    t.chan = vec![0];
    t.chan_ptr = vec![0, 1, 1];
    assert!(bad_stages(&p, &t).contains("only flow stages cross channels"));
    t.kind[0] = FLOW;
    t.chan[0] = 1;
    assert_eq!(bad_stages(&p, &t), "stage 0 (message activity 0): channel 1 out of range 0..1");
    t.chan[0] = 0;
    t.cap[0] = 0.0;
    assert!(bad_stages(&p, &t).contains("cap = 0"));
    let mut t = s.clone();
    t.needs_recv[1] = 1;
    assert!(bad_stages(&p, &t).contains("stage 1 (compute activity 1): needs_recv = 1"));
}

#[test]
fn every_op_must_be_covered() {
    let (p, s) = one_transfer();
    let mut t = s.clone();
    t.recv_begins[0] = 1;
    assert_eq!(bad_stages(&p, &t), "recv_begins[0] = 1: message activity 0 has 1 stage(s), positions 0..1");
    let mut t = s.clone();
    t.sender_done[0] = -1;
    assert!(bad_stages(&p, &t).starts_with("sender_done[0] = -1"));
    // the message activity has no stage
    let mut t = Stages::new();
    t.message(&[], 0, 0);
    t.compute(0, 1.0);
    assert_eq!(bad_stages(&p, &t), "message activity 0 (send op 0, recv op 1) has no stage");
    // the compute activity is not one hold
    let mut t = Stages::new();
    t.sync(0, 1, 1.0);
    t.activity(&[(HOLD, 1.0, &[cpu(0)], &[], 0), (HOLD, 1.0, &[cpu(0)], &[], 0)]);
    assert_eq!(bad_stages(&p, &t), "compute activity 1 (op 2) must be exactly one hold stage, it has 2 stage(s)");
    let mut t = Stages::new();
    t.sync(0, 1, 1.0);
    t.activity(&[(DELAY, 1.0, &[], &[], 0)]);
    assert!(bad_stages(&p, &t).ends_with("it has 1 stage(s) of kind 1"));
}

#[test]
fn capacities_are_checked() {
    let (p, s) = one_transfer();
    let err = run(&p, &s, 2, &[1.0, 0.0], Tie::Fixed).unwrap_err();
    assert_eq!(err, SimError::BadStages("capacity of fluid channel 1 is 0: must be > 0".into()));
    assert!(err.to_string().starts_with("bad stage table: "));
}
