//! What each rank holds: per symbolic value, disjoint fragments `[start, end)`
//! each with the operation that produced it (-1: held from the start).
//!
//! ```
//! use collsched_core::holdings::Fragments;
//! let mut f = Fragments::default();
//! f.insert(0, 2, 7).unwrap();
//! f.insert(2, 4, 9).unwrap();
//! assert_eq!(f.insert(1, 3, 11), Err(7)); // overlaps the fragment op 7 produced
//! assert!(f.covers(0, 4));
//! assert_eq!(f.producers(1, 3), Some(vec![7, 9]));
//! assert_eq!(f.held_in(1, 9), 3);
//! ```

/// Disjoint fragments of one value, sorted by start.
///
/// The first fragment is stored inline: most values are held whole, as one
/// fragment, and a validation holds millions of them, so the common case
/// allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct Fragments {
    /// The only fragment, while there is one; None once `more` holds them all (or while empty).
    one: Option<(i64, i64, i64)>,
    /// Every fragment, sorted, once there are two or more.
    more: Vec<(i64, i64, i64)>,
}

impl Fragments {
    fn segs(&self) -> &[(i64, i64, i64)] {
        match &self.one {
            Some(seg) => std::slice::from_ref(seg),
            None => &self.more,
        }
    }

    /// Add `[start, end)` produced by `producer`; on overlap, return the producer of the overlapped fragment.
    pub fn insert(&mut self, start: i64, end: i64, producer: i64) -> Result<(), i64> {
        let segs = self.segs();
        let at = segs.partition_point(|&(_, e, _)| e <= start);
        if let Some(&(s, _, p)) = segs.get(at) {
            if s < end {
                return Err(p);
            }
        }
        let seg = (start, end, producer);
        if segs.is_empty() {
            self.one = Some(seg);
        } else {
            if let Some(first) = self.one.take() {
                self.more.push(first);
            }
            self.more.insert(at, seg);
        }
        Ok(())
    }

    /// Call `each` with the producer of every fragment that together cover `[start, end)`, in order;
    /// false (after calling it for a prefix) if a part is missing. Allocates nothing.
    pub fn each_producer<E>(&self, start: i64, end: i64, mut each: impl FnMut(i64) -> Result<(), E>) -> Result<bool, E> {
        let segs = self.segs();
        let mut at = segs.partition_point(|&(_, e, _)| e <= start);
        let mut reached = start;
        while reached < end {
            match segs.get(at) {
                Some(&(s, e, p)) if s <= reached => {
                    each(p)?;
                    reached = e;
                    at += 1;
                }
                _ => return Ok(false),
            }
        }
        Ok(true)
    }

    /// The producers of the fragments that together cover `[start, end)`, or None if a part is missing.
    pub fn producers(&self, start: i64, end: i64) -> Option<Vec<i64>> {
        let mut out = Vec::new();
        let covered = self.each_producer(start, end, |p| {
            out.push(p);
            Ok::<(), ()>(())
        });
        covered.ok().filter(|&c| c).map(|_| out)
    }

    /// True if `[start, end)` is entirely held.
    pub fn covers(&self, start: i64, end: i64) -> bool {
        self.each_producer(start, end, |_| Ok::<(), ()>(())) == Ok(true)
    }

    /// Total length held.
    pub fn held(&self) -> i64 {
        self.segs().iter().map(|&(s, e, _)| e - s).sum()
    }

    /// Length held inside `[start, end)`.
    pub fn held_in(&self, start: i64, end: i64) -> i64 {
        self.segs().iter().map(|&(s, e, _)| (e.min(end) - s.max(start)).max(0)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gap_is_not_covered() {
        let mut f = Fragments::default();
        f.insert(0, 1, 1).unwrap();
        f.insert(2, 3, 2).unwrap();
        assert!(!f.covers(0, 3));
        assert!(f.covers(2, 3));
        assert_eq!(f.held(), 2);
    }

    #[test]
    fn adjacent_fragments_do_not_overlap() {
        let mut f = Fragments::default();
        f.insert(1, 2, 1).unwrap();
        f.insert(0, 1, 2).unwrap();
        f.insert(2, 5, 3).unwrap();
        assert_eq!(f.producers(0, 5), Some(vec![2, 1, 3]));
    }

    #[test]
    fn one_fragment_then_more_keep_their_order() {
        let mut f = Fragments::default();
        f.insert(2, 3, 5).unwrap();
        assert_eq!(f.producers(2, 3), Some(vec![5]));
        assert_eq!(f.insert(2, 4, 6), Err(5));
        f.insert(0, 2, 7).unwrap();
        f.insert(3, 4, 8).unwrap();
        assert_eq!(f.producers(0, 4), Some(vec![7, 5, 8]));
        assert_eq!(f.producers(1, 5), None);
        let mut seen = Vec::new();
        assert_eq!(f.each_producer(1, 5, |p| { seen.push(p); Ok::<(), ()>(()) }), Ok(false));
        assert_eq!(seen, vec![7, 5, 8]);
        assert_eq!((f.held(), f.held_in(1, 3)), (4, 2));
    }
}
