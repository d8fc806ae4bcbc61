//! Timing of the incremental max-min solver on all-to-all exchanges.
//!
//! `cargo run --release -p collsched-core --example bench_fluid`
//!
//! Star: host `h` has an uplink (channel `h`) and a downlink (channel `N + h`), all of
//! 1 GB/s; a message from `s` to `d` crosses uplink `s` and downlink `d`. Fat-tree: leaves
//! of 32 hosts, each leaf with an uplink and a downlink to the spine of 32/4 GB/s (4:1
//! oversubscription). Modes: every message in flight at once (`all`), or each sender
//! sending its messages one after the other (`N` flows at a time): to `s+1, s+2, ...`
//! (`shifted`, every round a permutation) or to `0, 1, ...` skipping itself (`in-order`:
//! receivers are contended, senders drift apart). Sizes: all 100 MB, or uneven (1 to
//! 1000 MB, seeded). A mini event loop removes each completed flow and starts the
//! sender's next message at the same time.

use std::time::Instant;

use collsched_core::fluid::MaxMin;

const GB: f64 = 1e9;

/// splitmix64, for the uneven sizes
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

struct Platform {
    caps: Vec<f64>,
    route: Box<dyn Fn(usize, usize) -> Vec<usize>>,
}

fn star(n: usize) -> Platform {
    Platform { caps: vec![GB; 2 * n], route: Box::new(move |s, d| vec![s, n + d]) }
}

fn fat_tree(n: usize) -> Platform {
    let hosts = 32;
    let leaves = n.div_ceil(hosts);
    let mut caps = vec![GB; 2 * n];
    caps.resize(2 * n + 2 * leaves, hosts as f64 * GB / 4.0);
    let route = move |s: usize, d: usize| {
        let (ls, ld) = (s / hosts, d / hosts);
        if ls == ld {
            vec![s, n + d]
        } else {
            vec![s, 2 * n + ls, 2 * n + leaves + ld, n + d]
        }
    };
    Platform { caps, route: Box::new(route) }
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    All,
    Shifted,
    InOrder,
}

/// Run all-to-all among `n` hosts; returns (flows, seconds, simulated makespan).
fn all_to_all(p: &Platform, n: usize, mode: Mode, uneven: bool) -> (usize, f64, f64) {
    let mut rng = Rng(42);
    let dest = |s: usize, k: usize| match mode {
        Mode::InOrder => k + (k >= s) as usize,
        _ => (s + 1 + k) % n,
    };
    let sequential = mode != Mode::All;
    let size: Vec<f64> = (0..n * (n - 1))
        .map(|_| if uneven { 1e6 * (1 + rng.next() % 1000) as f64 } else { 1e8 })
        .collect();
    let id = |s: usize, k: usize| s * (n - 1) + k;
    let start = Instant::now();
    let mut mm = MaxMin::new(&p.caps);
    let per_sender = if sequential { 1 } else { n - 1 };
    for s in 0..n {
        for k in 0..per_sender {
            mm.add(0.0, id(s, k), &(p.route)(s, dest(s, k)), size[id(s, k)], f64::INFINITY);
        }
    }
    let (mut done, mut end) = (0, 0.0);
    while let Some((t, f)) = mm.next_completion() {
        mm.remove(t, f);
        done += 1;
        end = t;
        let (s, k) = (f / (n - 1), f % (n - 1));
        if sequential && k + 1 < n - 1 {
            let g = id(s, k + 1);
            mm.add(t, g, &(p.route)(s, dest(s, k + 1)), size[g], f64::INFINITY);
        }
    }
    assert_eq!((done, mm.active()), (n * (n - 1), 0));
    let total: f64 = mm.channel_bytes()[..n].iter().sum();
    assert!((total - size.iter().sum::<f64>()).abs() <= 1e-6 * total);
    (done, start.elapsed().as_secs_f64(), end)
}

fn main() {
    println!("{:<9} {:<9} {:<7} {:>5} {:>9} {:>9} {:>12} {:>10}", "platform", "mode", "sizes", "N", "flows", "wall s", "flows/s", "makespan");
    let full: &[usize] = &[64, 128, 256, 1024];
    let cases: &[(&str, &str, Mode, bool, &[usize])] = &[
        ("star", "all", Mode::All, false, full),
        ("star", "shifted", Mode::Shifted, false, full),
        ("star", "in-order", Mode::InOrder, false, full),
        ("star", "shifted", Mode::Shifted, true, full),
        ("star", "in-order", Mode::InOrder, true, full),
        // every completion moves most rates of one component of N(N-1) flows: quadratic
        ("star", "all", Mode::All, true, &[64, 128]),
        ("fat-tree", "all", Mode::All, false, full),
        ("fat-tree", "shifted", Mode::Shifted, false, full),
        ("fat-tree", "in-order", Mode::InOrder, false, full),
        ("fat-tree", "shifted", Mode::Shifted, true, full),
    ];
    for &(platform, label, mode, uneven, sizes) in cases {
        for &n in sizes {
            let p = if platform == "star" { star(n) } else { fat_tree(n) };
            let (flows, secs, end) = all_to_all(&p, n, mode, uneven);
            let sizes = if uneven { "uneven" } else { "equal" };
            println!(
                "{platform:<9} {label:<9} {sizes:<7} {n:>5} {flows:>9} {secs:>9.3} {:>12.0} {end:>10.4}",
                flows as f64 / secs
            );
        }
    }
}
