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
#[derive(Clone, Debug, Default)]
pub struct Fragments {
    segs: Vec<(i64, i64, i64)>,
}

impl Fragments {
    /// Add `[start, end)` produced by `producer`; on overlap, return the producer of the overlapped fragment.
    pub fn insert(&mut self, start: i64, end: i64, producer: i64) -> Result<(), i64> {
        let at = self.segs.partition_point(|&(_, e, _)| e <= start);
        if let Some(&(s, _, p)) = self.segs.get(at) {
            if s < end {
                return Err(p);
            }
        }
        self.segs.insert(at, (start, end, producer));
        Ok(())
    }

    /// The producers of the fragments that together cover `[start, end)`, or None if a part is missing.
    pub fn producers(&self, start: i64, end: i64) -> Option<Vec<i64>> {
        let mut at = self.segs.partition_point(|&(_, e, _)| e <= start);
        let mut reached = start;
        let mut out = Vec::new();
        while reached < end {
            let &(s, e, p) = self.segs.get(at)?;
            if s > reached {
                return None;
            }
            out.push(p);
            reached = e;
            at += 1;
        }
        Some(out)
    }

    /// True if `[start, end)` is entirely held.
    pub fn covers(&self, start: i64, end: i64) -> bool {
        self.producers(start, end).is_some()
    }

    /// Total length held.
    pub fn held(&self) -> i64 {
        self.segs.iter().map(|&(s, e, _)| e - s).sum()
    }

    /// Length held inside `[start, end)`.
    pub fn held_in(&self, start: i64, end: i64) -> i64 {
        self.segs.iter().map(|&(s, e, _)| (e.min(end) - s.max(start)).max(0)).sum()
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
}
