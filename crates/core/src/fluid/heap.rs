//! An indexed min-heap for the solver's hot loops.
//!
//! [`Indexed`] is a binary min-heap of entries `(key, tag, slot)`, packed in
//! a `u128` (`key` in the high half, then a `u32` tag that breaks ties, then
//! the `u32` slot, so entries compare as tuples, without branches), with at
//! most one entry per slot, changed or removed in place:
//! no stale entries to pop, a cheap decrease-key, and cheaper than
//! `BinaryHeap<Reverse<_>>` with an `f64` key (no `total_cmp`, 16-byte
//! entries; a pop sifts the hole to the bottom, then the last entry up).
//! [`key`] maps an `f64` to a `u64` in the order of `f64::total_cmp`, so
//! entries come out in exactly the `(f64::total_cmp, tag, slot)` order. The
//! tag is the slot itself unless given ([`Indexed::set_tagged`]): the
//! completion times are ordered by flow id but placed by the flow's slot, so
//! the positions are a small array (one entry per active flow), not one
//! entry per id ever seen.

/// `x` as a `u64` ordered like `f64::total_cmp`.
#[inline]
pub(super) fn key(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | (1 << 63)
    }
}

/// The `f64` of a [`key`].
#[inline]
pub(super) fn unkey(k: u64) -> f64 {
    f64::from_bits(if k >> 63 == 1 { k & !(1 << 63) } else { !k })
}

/// Children per node: 4 (a shallower heap; the solver's recorded calls on the fat-tree sequential all-to-all,
/// N = 128, replayed: 396.3 M instructions with 2, 379.0 M with 4, callgrind; wall times within the load's noise).
const ARITY: usize = 4;
const NOWHERE: u32 = u32::MAX;

/// A min-heap of `(key, tag, slot)` with at most one entry per slot, updated in place.
#[derive(Default)]
pub(super) struct Indexed {
    v: Vec<u128>,
    /// position of each slot's entry in `v` (`NOWHERE`: none)
    pos: Vec<u32>,
}

#[inline]
fn pack(k: u64, tag: u32, slot: usize) -> u128 {
    debug_assert!(slot <= u32::MAX as usize);
    ((k as u128) << 64) | ((tag as u128) << 32) | slot as u32 as u128
}

/// `(key, tag, slot)` of an entry.
#[inline]
fn unpack(e: u128) -> (u64, u32, usize) {
    ((e >> 64) as u64, (e >> 32) as u32, slot_of(e))
}

#[inline]
fn slot_of(e: u128) -> usize {
    e as u32 as usize
}

impl Indexed {
    /// The smallest entry `(key, tag, slot)`.
    #[inline]
    pub(super) fn peek(&self) -> Option<(u64, u32, usize)> {
        self.v.first().map(|&e| unpack(e))
    }

    /// Take the smallest entry `(key, tag, slot)`.
    pub(super) fn pop(&mut self) -> Option<(u64, u32, usize)> {
        let top = *self.v.first()?;
        let last = self.v.pop().expect("nonempty");
        self.pos[slot_of(top)] = NOWHERE;
        if !self.v.is_empty() {
            // the last entry is large: move the hole to the bottom along the smallest children, then up
            let n = self.v.len();
            let mut i = 0;
            while let Some((m, best)) = self.smallest_child(i, n) {
                self.v[i] = best;
                self.pos[slot_of(best)] = i as u32;
                i = m;
            }
            self.up(i, last);
        }
        Some(unpack(top))
    }

    /// Number of entries.
    pub(super) fn len(&self) -> usize {
        self.v.len()
    }

    /// Every entry `(key, tag, slot)`, in no particular order.
    pub(super) fn entries(&self) -> impl Iterator<Item = (u64, u32, usize)> + '_ {
        self.v.iter().map(|&e| unpack(e))
    }

    /// Keep the entries `(key, tag, slot)` for which `keep` holds, drop the others; O(entries), the heap
    /// rebuilt bottom-up (what comes out next is the same as after removing them one at a time).
    pub(super) fn retain(&mut self, mut keep: impl FnMut(u64, u32, usize) -> bool) {
        let mut n = 0;
        for i in 0..self.v.len() {
            let e = self.v[i];
            let (k, tag, s) = unpack(e);
            if keep(k, tag, s) {
                self.v[n] = e;
                self.pos[s] = n as u32;
                n += 1;
            } else {
                self.pos[s] = NOWHERE;
            }
        }
        self.v.truncate(n);
        for i in (0..n / ARITY + 1).rev() {
            if i < n {
                self.down(i, self.v[i]);
            }
        }
    }

    /// Remove every entry.
    pub(super) fn clear(&mut self) {
        for &e in &self.v {
            self.pos[slot_of(e)] = NOWHERE;
        }
        self.v.clear();
    }

    /// Slot `s` now has key `k` and tag `s` (inserted, or its old entry replaced).
    #[inline]
    pub(super) fn set(&mut self, s: usize, k: u64) {
        self.set_tagged(s, k, s as u32);
    }

    /// Slot `s` now has key `k` and tag `tag` (inserted, or its old entry replaced).
    pub(super) fn set_tagged(&mut self, s: usize, k: u64, tag: u32) {
        if s >= self.pos.len() {
            self.pos.resize(s + 1, NOWHERE);
        }
        let item = pack(k, tag, s);
        let i = self.pos[s];
        if i == NOWHERE {
            self.v.push(item);
            self.up(self.v.len() - 1, item);
        } else if item < self.v[i as usize] {
            self.up(i as usize, item);
        } else {
            self.down(i as usize, item);
        }
    }

    /// Slot `s` has no entry any more.
    pub(super) fn remove(&mut self, s: usize) {
        let Some(&i) = self.pos.get(s) else { return };
        if i == NOWHERE {
            return;
        }
        self.pos[s] = NOWHERE;
        let last = self.v.pop().expect("indexed heap entry");
        let i = i as usize;
        if i < self.v.len() {
            if last < self.v[i] {
                self.up(i, last);
            } else {
                self.down(i, last);
            }
        }
    }

    fn up(&mut self, mut i: usize, item: u128) {
        while i > 0 {
            let p = (i - 1) / ARITY;
            let up = self.v[p];
            if up <= item {
                break;
            }
            self.v[i] = up;
            self.pos[slot_of(up)] = i as u32;
            i = p;
        }
        self.v[i] = item;
        self.pos[slot_of(item)] = i as u32;
    }

    fn down(&mut self, mut i: usize, item: u128) {
        let n = self.v.len();
        while let Some((m, best)) = self.smallest_child(i, n) {
            if item <= best {
                break;
            }
            self.v[i] = best;
            self.pos[slot_of(best)] = i as u32;
            i = m;
        }
        self.v[i] = item;
        self.pos[slot_of(item)] = i as u32;
    }

    /// The smallest child of position `i` among the first `n` entries, with its position; None at a leaf.
    #[inline]
    fn smallest_child(&self, i: usize, n: usize) -> Option<(usize, u128)> {
        let c = ARITY * i + 1;
        if c >= n {
            return None;
        }
        let mut m = c;
        let mut best = self.v[c];
        for j in c + 1..(c + ARITY).min(n) {
            let x = self.v[j];
            if x < best {
                best = x;
                m = j;
            }
        }
        Some((m, best))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_orders_like_total_cmp() {
        let xs = [f64::NEG_INFINITY, -2.5, -0.0, 0.0, 1e-300, 1.0, 3.5, f64::INFINITY];
        for a in xs {
            assert_eq!(unkey(key(a)).to_bits(), a.to_bits());
            for b in xs {
                assert_eq!(key(a).cmp(&key(b)), a.total_cmp(&b), "{a} {b}");
            }
        }
    }

    #[test]
    fn indexed_keeps_one_entry_per_slot() {
        let mut h = Indexed::default();
        let mut want: Vec<Option<u64>> = vec![None; 40];
        let mut x: u64 = 99;
        for _ in 0..5000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let s = ((x >> 33) % 40) as usize;
            if (x >> 20) % 4 == 0 {
                h.remove(s);
                want[s] = None;
            } else {
                let k = (x >> 45) % 30;
                h.set(s, k);
                want[s] = Some(k);
            }
            let min = want.iter().enumerate().filter_map(|(s, k)| k.map(|k| (k, s as u32, s))).min();
            assert_eq!(h.peek(), min);
            if (x >> 50) % 5 == 0 {
                assert_eq!(h.pop(), min);
                if let Some((_, _, s)) = min {
                    want[s] = None;
                }
            }
        }
        h.clear();
        assert_eq!(h.pop(), None);
    }

    #[test]
    fn retain_keeps_the_heap_order() {
        let mut h = Indexed::default();
        let mut x: u64 = 7;
        let mut want = Vec::new();
        for s in 0..500 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let k = (x >> 40) % 50;
            h.set(s, k);
            if s % 3 != 0 {
                want.push((k, s as u32, s));
            }
        }
        h.retain(|_, _, s| s % 3 != 0);
        assert_eq!(h.len(), want.len());
        assert_eq!(h.entries().filter(|&(_, _, s)| s % 3 == 0).count(), 0);
        want.sort();
        let got: Vec<_> = std::iter::from_fn(|| h.pop()).collect();
        assert_eq!(got, want);
        h.set(3, 0);
        assert_eq!(h.pop(), Some((0, 3, 3)), "a dropped slot can come back");
    }

    #[test]
    fn tags_break_ties_before_slots() {
        // placed by slot, ordered by (key, tag): the order of flow ids, whatever slots they sit in
        let mut h = Indexed::default();
        h.set_tagged(0, 5, 900);
        h.set_tagged(1, 5, 100);
        h.set_tagged(2, 4, 999);
        h.set_tagged(3, 5, 500);
        h.set_tagged(1, 5, 700); // moved in place: slot 1 now tagged 700
        let got: Vec<_> = std::iter::from_fn(|| h.pop()).collect();
        assert_eq!(got, vec![(4, 999, 2), (5, 500, 3), (5, 700, 1), (5, 900, 0)]);
    }
}
