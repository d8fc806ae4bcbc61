//! The pending stage ends: a monotone radix heap on the end time.
//!
//! The loop only ever asks for the earliest end time and then takes every
//! end at that time, in stage order; a stage end is never scheduled before
//! the current time. A radix heap (Ahuja, Mehlhorn, Orlin, Tarjan 1990)
//! fits that exactly: a non-negative `f64` time orders like its bits as a
//! `u64`, and an entry goes into the bucket of the highest bit in which its
//! time differs from the last time taken. Pushing is an append; taking the
//! earliest time empties one bucket into lower ones. The ends at the time
//! taken are all in bucket 0, which is handed out sorted by stage: the
//! order of a binary heap of `(time, stage)`, without its `log E` cache
//! misses per event on millions of ends (a million transfers in flight end
//! their latency at one instant).
//!
//! # References
//!
//! R. K. Ahuja, K. Mehlhorn, J. B. Orlin, R. E. Tarjan, *Faster algorithms
//! for the shortest path problem*, J. ACM 37(2), 1990,
//! doi:10.1145/77600.77615.

/// Stage ends by time (see the module documentation).
pub(super) struct EndQueue {
    /// Bits of the last time taken (every entry's time is at least that).
    last: u64,
    /// Bucket `i > 0`: entries whose time differs from `last` first in bit `i - 1`; bucket 0: time `last`.
    buckets: Vec<Vec<(u64, u32)>>,
    /// Smallest time bits in each bucket (meaningful while it is not empty).
    mins: [u64; 65],
    /// Bit `i - 1` set: bucket `i > 0` is not empty.
    mask: u64,
    /// Room for sorting a large batch.
    scratch: Vec<u32>,
}

impl EndQueue {
    pub fn new() -> EndQueue {
        EndQueue {
            last: 0,
            buckets: (0..65).map(|_| Vec::new()).collect(),
            mins: [u64::MAX; 65],
            mask: 0,
            scratch: Vec::new(),
        }
    }

    #[inline]
    fn bucket(&self, k: u64) -> usize {
        (64 - (k ^ self.last).leading_zeros()) as usize
    }

    /// Stage `stage` ends at `t` (finite, `>= 0`, and not before the last time taken).
    #[inline]
    pub fn push(&mut self, t: f64, stage: u32) {
        let k = (t + 0.0).to_bits(); // -0.0 as 0.0
        debug_assert!(t >= 0.0 && k >= self.last, "end at {t} before the last time taken");
        let b = self.bucket(k);
        if b > 0 {
            self.mask |= 1 << (b - 1);
            self.mins[b] = self.mins[b].min(k);
        }
        self.buckets[b].push((k, stage));
    }

    /// The earliest end time, if any end is pending.
    #[inline]
    pub fn min(&self) -> Option<f64> {
        if !self.buckets[0].is_empty() {
            return Some(f64::from_bits(self.last));
        }
        if self.mask == 0 {
            return None;
        }
        Some(f64::from_bits(self.mins[self.mask.trailing_zeros() as usize + 1]))
    }

    /// Move every end at the earliest time into `out` (cleared first), in increasing stage order.
    pub fn take_min(&mut self, out: &mut Vec<u32>) {
        out.clear();
        if self.buckets[0].is_empty() {
            if self.mask == 0 {
                return;
            }
            let i = self.mask.trailing_zeros() as usize + 1;
            self.last = self.mins[i];
            self.mask &= !(1 << (i - 1));
            self.mins[i] = u64::MAX;
            let mut from = std::mem::take(&mut self.buckets[i]);
            for &(k, s) in &from {
                // every entry of bucket i goes to a lower one
                let b = self.bucket(k);
                if b > 0 {
                    self.mask |= 1 << (b - 1);
                    self.mins[b] = self.mins[b].min(k);
                }
                self.buckets[b].push((k, s));
            }
            from.clear();
            self.buckets[i] = from; // keep its allocation
        }
        out.extend(self.buckets[0].drain(..).map(|(_, s)| s));
        if out.len() < RADIX_FROM {
            out.sort_unstable();
        } else {
            radix_sort(out, &mut self.scratch);
        }
    }
}

/// Batches of at least this many ends are sorted by [`radix_sort`] (a million ends at one instant is common).
const RADIX_FROM: usize = 1 << 12;

/// Sort `v` increasingly: two stable counting passes on 16-bit digits, least significant first, through
/// `scratch` (`O(n + 2^16)`, against `O(n log n)` comparisons).
fn radix_sort(v: &mut Vec<u32>, scratch: &mut Vec<u32>) {
    scratch.clear();
    scratch.resize(v.len(), 0);
    let mut count = vec![0usize; 1 << 16];
    for shift in [0, 16] {
        count.fill(0);
        for &x in v.iter() {
            count[(x >> shift) as usize & 0xffff] += 1;
        }
        let mut at = 0;
        for c in count.iter_mut() {
            (*c, at) = (at, at + *c);
        }
        for &x in v.iter() {
            let d = (x >> shift) as usize & 0xffff;
            scratch[count[d]] = x;
            count[d] += 1;
        }
        std::mem::swap(v, scratch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    /// The same batches as a binary heap of `(time, stage)` taking every entry at its minimum time.
    #[test]
    fn takes_the_order_of_a_binary_heap() {
        let mut q = EndQueue::new();
        let mut h: BinaryHeap<Reverse<(u64, u32)>> = BinaryHeap::new();
        let mut x: u64 = 12345;
        let mut now = 0.0f64;
        let mut stage = 0u32;
        let (mut got, mut want) = (Vec::new(), Vec::new());
        for round in 0..3000 {
            // a few ends scheduled from `now`: zero durations, repeated durations, random ones
            for _ in 0..(round % 5) {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let d = match (x >> 60) % 4 {
                    0 => 0.0,
                    1 => 2e-5,
                    _ => ((x >> 20) % 1000) as f64 * 1e-3,
                };
                let t = now + d;
                q.push(t, stage);
                h.push(Reverse((t.to_bits(), stage)));
                stage = stage.wrapping_mul(2654435761).wrapping_add(7) % 100_000;
            }
            assert_eq!(q.min(), h.peek().map(|Reverse((k, _))| f64::from_bits(*k)));
            if round % 3 == 0 {
                if let Some(t) = q.min() {
                    now = t;
                    q.take_min(&mut got);
                    want.clear();
                    while h.peek().is_some_and(|Reverse((k, _))| *k == t.to_bits()) {
                        want.push(h.pop().unwrap().0 .1);
                    }
                    assert_eq!(got, want);
                }
            }
        }
        while let Some(t) = q.min() {
            q.take_min(&mut got);
            want.clear();
            while h.peek().is_some_and(|Reverse((k, _))| *k == t.to_bits()) {
                want.push(h.pop().unwrap().0 .1);
            }
            assert_eq!(got, want);
        }
        assert!(h.is_empty());
    }

    #[test]
    fn a_large_instant_comes_out_sorted_by_stage() {
        // past RADIX_FROM ends at one instant, stage ids spread over all 32 bits, some repeated
        let mut q = EndQueue::new();
        let mut x: u32 = 7;
        let mut want = Vec::new();
        for i in 0..3 * RADIX_FROM as u32 {
            x = x.wrapping_mul(2654435761).wrapping_add(12345);
            let s = if i % 5 == 0 { i / 5 } else { x };
            q.push(1.5, s);
            want.push(s);
        }
        q.push(2.0, 1);
        want.sort_unstable();
        let mut out = Vec::new();
        q.take_min(&mut out);
        assert_eq!(out, want);
        q.take_min(&mut out);
        assert_eq!(out, vec![1]);
    }

    #[test]
    fn one_instant_comes_out_sorted_by_stage() {
        let mut q = EndQueue::new();
        for s in (0..10).rev() {
            q.push(2e-5, s);
        }
        q.push(0.0, 42);
        let mut out = Vec::new();
        assert_eq!(q.min(), Some(0.0));
        q.take_min(&mut out);
        assert_eq!(out, vec![42]);
        assert_eq!(q.min(), Some(2e-5));
        q.take_min(&mut out);
        assert_eq!(out, (0..10).collect::<Vec<_>>());
        assert_eq!(q.min(), None);
    }
}
