//! The engine's large arrays, on transparent huge pages where the system offers them.
//!
//! The loop reads its records (stages, activities, operation slots, times)
//! at a few places per event spread over hundreds of megabytes at a million
//! messages: on 4 KiB pages, each such read can miss the TLB as well as the
//! cache, and the first touch of each page is a fault. Linux with
//! transparent huge pages in `madvise` mode backs a range with 2 MiB pages
//! only when asked (`madvise(MADV_HUGEPAGE)`), which [`reserve`] does for
//! the 2 MiB-aligned part of a fresh allocation, before anything touches
//! it. Elsewhere (or if the call fails) the hint is simply not given: the
//! contents are the same either way.

/// An empty vector with room for `n` values, its 2 MiB-aligned pages advised huge (when at least 4 MiB).
pub(super) fn reserve<T>(n: usize) -> Vec<T> {
    let v = Vec::with_capacity(n);
    advise_huge(v.as_ptr() as usize, v.capacity() * size_of::<T>());
    v
}

/// `v` (fresh from `vec![0; n]`, whose large allocations the system hands out zeroed and untouched), its
/// pages advised as in [`reserve`]: zeroed once, by the system, rather than again by a fill.
pub(super) fn advised<T>(v: Vec<T>) -> Vec<T> {
    advise_huge(v.as_ptr() as usize, v.capacity() * size_of::<T>());
    v
}

/// `n` copies of `x`, in memory advised as in [`reserve`].
pub(super) fn filled<T: Clone>(n: usize, x: T) -> Vec<T> {
    let mut v = reserve(n);
    v.resize(n, x);
    v
}

#[cfg(target_os = "linux")]
fn advise_huge(start: usize, bytes: usize) {
    const HUGE: usize = 2 << 20;
    const MADV_HUGEPAGE: std::ffi::c_int = 14;
    extern "C" {
        fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: std::ffi::c_int) -> std::ffi::c_int;
    }
    if bytes < 2 * HUGE {
        return;
    }
    let (lo, hi) = (start.next_multiple_of(HUGE), (start + bytes) / HUGE * HUGE);
    if hi > lo {
        // SAFETY: [lo, hi) lies inside the allocation just made and not yet used; MADV_HUGEPAGE changes
        // how its pages are backed, never their contents, and a failure (say, THP unsupported) is harmless.
        unsafe {
            madvise(lo as *mut std::ffi::c_void, hi - lo, MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge(_start: usize, _bytes: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filled_and_reserved_vectors_are_ordinary_vectors() {
        let big = filled(3 << 20, 7u32); // 12 MiB: advised
        assert_eq!((big.len(), big[0], big[(3 << 20) - 1]), (3 << 20, 7, 7));
        let small = filled(5, 1.5f64);
        assert_eq!(small, vec![1.5; 5]);
        let zeros = advised(vec![[0.0f64; 2]; 1 << 20]);
        assert!(zeros.len() == 1 << 20 && zeros.iter().all(|&x| x == [0.0; 2]));
        let mut r: Vec<u64> = reserve(1 << 20);
        assert!(r.is_empty() && r.capacity() >= 1 << 20);
        r.push(3);
        assert_eq!(r, vec![3]);
    }
}
