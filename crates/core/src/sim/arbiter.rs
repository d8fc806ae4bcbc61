//! Which eligible stages start now: exclusive resources, waiting stages,
//! greedy service in priority order.
//!
//! The rule (`docs/engine.md`, semantics 3) is "go through every waiting
//! stage in priority order and start each one whose resources are all free".
//! A waiting stage is blocked by some busy resource; it can only start once
//! that one is released. So each waiting stage is **parked on one busy
//! resource that blocks it** (its *blocker*), in that resource's queue (a
//! binary heap, best priority on top), and only two kinds of stage can start
//! at a given instant: those that just became eligible, and those parked on
//! a resource that was just released. [`Arbiter::decide`] merges them in
//! priority order, like a k-way merge, with one cursor per released
//! resource over its queue:
//!
//! * a candidate whose resources are all free starts; its resources become
//!   busy, which ends the cursors on them;
//! * a blocked candidate is parked on a resource that blocks it now, and the
//!   cursor it came from moves on to its resource's next parked stage.
//!
//! This serves stages exactly in the order of the rule: a stage not offered
//! in a round is blocked by its blocker, still busy, or by the resource whose
//! cursor stopped before it, taken by a stage of better priority. A stage is
//! examined only when its blocker is released, at `O(log q)` each time.
//!
//! Fast path: when no released resource has a parked stage and no two new
//! stages share a resource, the order cannot matter; every new stage whose
//! resources are free starts, without sorting (the common case of a
//! conflict-free step, like a round of a caterpillar).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::layout::{Layout, NONE};
use super::time::Priority;

/// A stage offered for starting in this round, with the resource whose cursor offered it (`NONE`: a new stage).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Candidate {
    prio: Priority,
    via: u32,
}

pub(super) struct Arbiter {
    busy: Vec<bool>,
    /// Stages parked on each resource, best priority on top.
    queue: Vec<BinaryHeap<Reverse<Priority>>>,
    /// Stages that became eligible since the last round.
    fresh: Vec<Priority>,
    /// Resources released since the last round.
    freed: Vec<u32>,
    /// This round's candidates, best first.
    pool: BinaryHeap<Reverse<Candidate>>,
    /// Round in which a new stage claimed each resource (fast path), and the current round.
    claim: Vec<u32>,
    round: u32,
}

impl Arbiter {
    pub fn new(n_resources: usize) -> Arbiter {
        Arbiter {
            busy: vec![false; n_resources],
            queue: (0..n_resources).map(|_| BinaryHeap::new()).collect(),
            fresh: Vec::new(),
            freed: Vec::new(),
            pool: BinaryHeap::new(),
            claim: vec![0; n_resources],
            round: 0,
        }
    }

    /// Stage `prio.stage` may start from now on.
    #[inline]
    pub fn make_eligible(&mut self, prio: Priority) {
        self.fresh.push(prio);
    }

    /// A stage holding `resources` ended.
    #[inline]
    pub fn release(&mut self, resources: &[i64]) {
        for &r in resources {
            self.busy[r as usize] = false;
            self.freed.push(r as u32);
        }
    }

    /// Start, in priority order, every eligible stage whose resources are all
    /// free; append the started stages to `started` and mark their resources busy.
    pub fn decide(&mut self, layout: &Layout<'_>, started: &mut Vec<u32>) {
        if self.fresh.is_empty() && self.freed.is_empty() {
            return;
        }
        for i in 0..self.freed.len() {
            let r = self.freed[i];
            if !self.busy[r as usize] {
                self.advance(r);
            }
        }
        self.freed.clear();
        if self.pool.is_empty() && self.start_independent(layout, started) {
            return;
        }
        for prio in self.fresh.drain(..) {
            self.pool.push(Reverse(Candidate { prio, via: NONE }));
        }
        while let Some(Reverse(Candidate { prio, via })) = self.pool.pop() {
            let res = layout.res_of(prio.stage as usize);
            match res.iter().find(|&&r| self.busy[r as usize]) {
                None => {
                    for &r in res {
                        self.busy[r as usize] = true;
                    }
                    started.push(prio.stage); // `via`, busy now, ends its cursor
                }
                Some(&blocker) => {
                    self.queue[blocker as usize].push(Reverse(prio));
                    if via != NONE && !self.busy[via as usize] {
                        self.advance(via);
                    }
                }
            }
        }
    }

    /// Fast path, when no released resource has a parked stage: if no two
    /// new stages share a resource, the order in which they are served
    /// cannot matter, so each starts if its resources are free, without
    /// sorting. Returns false (doing nothing) if two of them share one.
    fn start_independent(&mut self, layout: &Layout<'_>, started: &mut Vec<u32>) -> bool {
        self.round = self.round.wrapping_add(1);
        if self.round == 0 {
            self.claim.iter_mut().for_each(|c| *c = 0); // old claims would alias
            self.round = 1;
        }
        let round = self.round;
        for prio in &self.fresh {
            for &r in layout.res_of(prio.stage as usize) {
                if self.claim[r as usize] == round {
                    return false;
                }
                self.claim[r as usize] = round;
            }
        }
        for prio in self.fresh.drain(..) {
            let res = layout.res_of(prio.stage as usize);
            match res.iter().find(|&&r| self.busy[r as usize]) {
                None => {
                    for &r in res {
                        self.busy[r as usize] = true;
                    }
                    started.push(prio.stage);
                }
                Some(&blocker) => self.queue[blocker as usize].push(Reverse(prio)),
            }
        }
        true
    }

    /// Offer the best stage parked on free resource `r`, if any.
    #[inline]
    fn advance(&mut self, r: u32) {
        if let Some(Reverse(prio)) = self.queue[r as usize].pop() {
            self.pool.push(Reverse(Candidate { prio, via: r }));
        }
    }

    /// Number of parked stages (tests).
    #[cfg(test)]
    pub fn waiting(&self) -> usize {
        self.queue.iter().map(|q| q.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::Time;

    fn layout(res: &[&[i64]]) -> Layout<'static> {
        Layout::with_resources(res)
    }

    fn prio(t: f64, stage: u32) -> Priority {
        Priority { eligible: Time(t), tie: stage, stage }
    }

    #[test]
    fn greedy_without_reservation() {
        // stage 0 holds resource 0; stage 1 wants {0, 1}; stage 2 wants {1}: 2 starts although 1 came first
        let l = layout(&[&[0], &[0, 1], &[1]]);
        let mut a = Arbiter::new(2);
        let mut started = Vec::new();
        a.make_eligible(prio(0.0, 0));
        a.decide(&l, &mut started);
        assert_eq!(started, vec![0]);
        started.clear();
        a.make_eligible(prio(1.0, 1));
        a.make_eligible(prio(1.0, 2));
        a.decide(&l, &mut started);
        assert_eq!(started, vec![2]);
        assert_eq!(a.waiting(), 1);
        // 0 ends: 1 is still blocked by 2; then 2 ends: 1 starts
        started.clear();
        a.release(&[0]);
        a.decide(&l, &mut started);
        assert!(started.is_empty());
        a.release(&[1]);
        a.decide(&l, &mut started);
        assert_eq!(started, vec![1]);
    }

    #[test]
    fn released_resources_serve_waiters_in_global_priority_order() {
        // 0 holds {0, 1}; waiting: 1 wants {0, 1} (eligible at 1), 2 wants {0} (at 2), 3 wants {1} (at 0.5)
        let l = layout(&[&[0, 1], &[0, 1], &[0], &[1]]);
        let mut a = Arbiter::new(2);
        let mut started = Vec::new();
        a.make_eligible(prio(0.0, 0));
        a.decide(&l, &mut started);
        a.make_eligible(prio(1.0, 1));
        a.make_eligible(prio(2.0, 2));
        a.make_eligible(prio(0.5, 3));
        started.clear();
        a.decide(&l, &mut started);
        assert!(started.is_empty());
        // both released together: 3 (best) takes 1, which blocks 1; then 2 takes 0
        a.release(&[0, 1]);
        a.decide(&l, &mut started);
        assert_eq!(started, vec![3, 2]);
    }
}
