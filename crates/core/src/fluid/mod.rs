//! Max-min fair bandwidth sharing between flows, solved incrementally.
//!
//! # The model
//!
//! SimGrid's CM02 network model with equal weights (Casanova & Marchal 2002;
//! Casanova et al. 2014). Channels `c` have capacities `C_c` (bytes/s); a
//! flow `f` crosses a set of channels `S_f` and may have its own rate cap
//! `u_f` (a FATPIPE link: every flow gets its full bandwidth, never shared).
//! The rates `x` are the max-min fair allocation:
//!
//! ```text
//! maximise x lexicographically (smallest first) subject to
//!     sum_{f : c in S_f} x_f <= C_c   for every channel c,
//!     x_f <= u_f                      for every flow f,
//! ```
//!
//! computed by progressive filling (Bertsekas & Gallager 1992): raise one
//! common level `lambda` for every unfixed flow; when a channel fills
//! (`lambda = remaining capacity / unfixed flows crossing it`) or a flow
//! reaches its cap, fix those flows at `lambda`, subtract, continue. So
//! `x_f = min(u_f, min_{c in S_f} l_c)`, where `l_c` is the level at which
//! `c` filled. A flow delivers its bytes at its rate; rates change whenever a
//! flow starts or leaves. A flow constrained by nothing (no finite channel,
//! no cap) has an infinite rate and completes at once.
//!
//! What it ignores: latency (the engine puts a `delay` stage before each
//! flow), TCP slow start and window limits, the per-link `bw_factor` and
//! `lat_factor` corrections of SimGrid's LV08, weights other than 1, and any
//! cross-traffic between the two directions of a link (the front gives each
//! direction its own channel).
//!
//! Precision (as SimGrid's `maxmin/precision`): levels within a relative
//! `1e-9` of each other count as equal (ties between channels that fill "at
//! the same time" are not broken by rounding), and a flow with at most
//! `1e-9` of its bytes left has finished.
//!
//! Worked numbers (test `classic_max_min_example`): channels of 1 and 2
//! bytes/s; flow 0 crosses both, flow 1 the first, flow 2 the second: the
//! first channel fills at 1/2, fixing flows 0 and 1; flow 2 gets the rest of
//! the second channel, 3/2.
//!
//! ```
//! use collsched_core::fluid::MaxMin;
//! let mut mm = MaxMin::new(&[1.0, 2.0]);
//! mm.add(0.0, 0, &[0, 1], 1.0, f64::INFINITY);
//! mm.add(0.0, 1, &[0], 1.0, f64::INFINITY);
//! mm.add(0.0, 2, &[1], 3.0, f64::INFINITY);
//! assert_eq!((mm.rate(0), mm.rate(1), mm.rate(2)), (0.5, 0.5, 1.5));
//! // all three finish at t = 2, then each channel has carried its share
//! assert_eq!(mm.next_completion(), Some((2.0, 0)));
//! for id in 0..3 { mm.remove(2.0, id); }
//! assert_eq!(mm.channel_bytes(), &[2.0, 4.0]);
//! assert_eq!(mm.next_completion(), None);
//! ```
//!
//! # The incremental solver
//!
//! Changes are batched: `add` and `remove` only record what changed, and the
//! rates are recomputed once, on the next `next_completion` or `rate` (or
//! before time advances). A recomputation replays progressive filling only
//! where the new run differs from the previous one: a channel keeps its old
//! level as long as none of its flows changed rate, and a flow keeps its old
//! rate as long as none of its channels changed level. The replay visits
//! levels in increasing order, starting from the channels that lost a flow
//! (only those that had filled: removing a flow from a channel with slack
//! changes nothing) and the channels of new flows; a channel joins when one of
//! its flows changes rate. A channel that joins is first tracked *lightly*
//! (no scan: flows not known to change are taken at their old rate, which can
//! only make it fill early), and scanned only when it might fill, or, if it
//! lost load, at its old level, where its bottlenecked flows are re-examined.
//! A flow whose rate is confirmed by another channel filled at its old level
//! (or by its cap) stops the propagation. So a change costs the size of the
//! region whose rates actually move, plus a scan of each channel on its rim.
//! Two cases cost nothing there: a flow that leaves its channel empty (the
//! channel has not filled: nothing to re-examine), and a new flow alone on
//! channels the run has not touched (fixed at once at the smallest of its cap
//! and their capacities, where progressive filling would fix it), as in a
//! permutation where every flow has its channels to itself.
//!
//! Both priority queues (the levels of one run, and the completion times)
//! are indexed binary heaps (`heap.rs`): at most one entry per channel or flow,
//! moved in place when its key changes, so nothing stale is ever popped. The
//! order of events is `(level, slot)` with channels in slots `0..E` and flows
//! after them: at one level, channels come first.
//!
//! Complexity: `add`/`remove` O(route length), plus O(channels) when time
//! advances (byte accounting); a recomputation O((F + E) log E) over the `F`
//! flows and `E` channels it visits, at worst the connected component of the
//! changes; `next_completion` O(1) (a rate change costs O(log active)).
//!
//! # References
//!
//! - H. Casanova, L. Marchal, *A network model for simulation of grid
//!   application*, LIP research report 2002-40, ENS Lyon, 2002.
//! - H. Casanova, A. Giersch, A. Legrand, M. Quinson, F. Suter, *Versatile,
//!   scalable, and accurate simulation of distributed applications and
//!   platforms*, JPDC 74(10), 2014, doi:10.1016/j.jpdc.2014.06.008.
//! - D. Bertsekas, R. Gallager, *Data Networks*, 2nd ed., Prentice Hall,
//!   1992 (max-min flow control).

use heap::{key, unkey, Indexed};

mod heap;

/// Relative tolerance under which two levels count as equal.
const TOL: f64 = 1e-9;
/// A flow with at most this fraction of its bytes left has finished.
const DONE: f64 = 1e-9;
const NONE: u32 = u32::MAX;
const INF: f64 = f64::INFINITY;

/// Channel `chan` of a flow, and the flow's position in that channel's member list.
#[derive(Clone, Copy, Debug, Default)]
struct Link {
    chan: u32,
    pos: u32,
}

/// Flow in slot `slot` crosses this channel as its `k`-th.
#[derive(Clone, Copy, Debug)]
struct Member {
    slot: u32,
    k: u32,
}

#[derive(Clone, Copy, Debug, Default)]
struct Flow {
    id: usize,
    bytes: f64,
    /// bytes left at time `last`
    rem: f64,
    last: f64,
    rate: f64,
    cap: f64,
    start: u32,
    len: u32,
    /// epochs (solver runs) in which the flow was discovered to change, fixed, queued for a check
    disc: u32,
    fixed: u32,
    checked: u32,
    active: bool,
    /// added since the last run
    pending: bool,
}

/// A channel's state during one run (valid when `epoch` is the current run).
#[derive(Clone, Copy, Debug, Default)]
struct ChanRun {
    epoch: u32,
    /// scanned: `r` and `n` are exact (else light: only flows that changed are counted)
    full: bool,
    /// lost load in this run, while it had filled before
    freed: bool,
    /// unfixed flows counted
    n: u32,
    /// capacity left for them
    r: f64,
    /// level at which a light channel must be scanned regardless
    act_at: f64,
    /// level of its live entry in the event heap (INF: none)
    queued: f64,
}

/// Incremental max-min fair sharing of channels between flows (see the module documentation).
///
/// Flows are named by arbitrary ids (`usize` below `2^32 - 1`; storage grows with
/// the largest id seen, 4 bytes per id); an id may be reused once its flow has left. Times
/// passed to [`add`](Self::add) and [`remove`](Self::remove) never decrease.
pub struct MaxMin {
    capacity: Vec<f64>,
    members: Vec<Vec<Member>>,
    /// sum of the (finite) rates of the flows crossing each channel
    load: Vec<f64>,
    /// level at which each channel filled in the last run (INF: it did not)
    level: Vec<f64>,
    carried: Vec<f64>,
    run: Vec<ChanRun>,
    freed_pending: Vec<bool>,

    slot_of: Vec<u32>,
    flows: Vec<Flow>,
    free_slots: Vec<u32>,
    links: Vec<Link>,
    /// free ranges of `links`, by length
    free_links: Vec<Vec<u32>>,
    n_active: usize,

    now: f64,
    dirty: bool,
    pend_add: Vec<u32>,
    pend_freed: Vec<u32>,
    /// completion time of each flow that will complete, in the flow's slot, tagged (ordered) by its id
    completions: Indexed,
    /// the flows done at `now` taken off `completions` in one go, in its order (`(key, id, slot)`, from
    /// `done_at` on); all come before what is left in `completions`
    done: Vec<(u64, u32, usize)>,
    done_at: usize,

    epoch: u32,
    lam: f64,
    /// levels of the current run: channel `c` in heap slot `c`, the flow in slot `s` in heap slot `channels + s`
    events: Indexed,
    discovered: Vec<u32>,
    scratch: Vec<u32>,
    /// number of runs so far (tests check the batching)
    solves: u64,
}

impl MaxMin {
    /// A solver for channels of the given capacities (bytes/s; `>= 0`, `INFINITY` never limits).
    ///
    /// # Panics
    /// If a capacity is negative or NaN.
    pub fn new(capacities: &[f64]) -> MaxMin {
        for (c, &cap) in capacities.iter().enumerate() {
            assert!(cap >= 0.0, "channel {c}: capacity must be >= 0, got {cap}");
        }
        let n = capacities.len();
        MaxMin {
            capacity: capacities.to_vec(),
            members: vec![Vec::new(); n],
            load: vec![0.0; n],
            level: vec![INF; n],
            carried: vec![0.0; n],
            run: vec![ChanRun::default(); n],
            freed_pending: vec![false; n],
            slot_of: Vec::new(),
            flows: Vec::new(),
            free_slots: Vec::new(),
            links: Vec::new(),
            free_links: Vec::new(),
            n_active: 0,
            now: f64::NEG_INFINITY,
            dirty: false,
            pend_add: Vec::new(),
            pend_freed: Vec::new(),
            completions: Indexed::default(),
            done: Vec::new(),
            done_at: 0,
            epoch: 0,
            lam: 0.0,
            events: Indexed::default(),
            discovered: Vec::new(),
            scratch: Vec::new(),
            solves: 0,
        }
    }

    /// Flow `id` starts at `now`, carrying `bytes` over `channels`, its rate capped at `cap` (`INFINITY`: no cap).
    ///
    /// # Panics
    /// If `id` is active or not below `2^32 - 1`, a channel is out of range or repeated, `bytes` or `cap`
    /// is negative or NaN, or `now` is earlier than a time passed before.
    pub fn add(&mut self, now: f64, id: usize, channels: &[usize], bytes: f64, cap: f64) {
        assert!(id < NONE as usize, "flow {id}: ids must be below 2^32 - 1");
        assert!(bytes >= 0.0, "flow {id}: bytes must be >= 0, got {bytes}");
        assert!(cap >= 0.0, "flow {id}: cap must be >= 0, got {cap}");
        for (k, &c) in channels.iter().enumerate() {
            assert!(c < self.capacity.len(), "flow {id}: channel {c} out of range");
            assert!(!channels[..k].contains(&c), "flow {id}: channel {c} repeated");
        }
        self.advance(now);
        if id >= self.slot_of.len() {
            self.slot_of.resize(id + 1, NONE);
        }
        assert!(self.slot_of[id] == NONE, "flow {id} is already active");
        let slot = match self.free_slots.pop() {
            Some(s) => s as usize,
            None => {
                self.flows.push(Flow::default());
                self.flows.len() - 1
            }
        };
        assert!(slot < NONE as usize, "too many active flows");
        self.slot_of[id] = slot as u32;
        let start = self.alloc_links(channels.len());
        let mut constrained = cap.is_finite();
        for (k, &c) in channels.iter().enumerate() {
            let pos = self.members[c].len() as u32;
            self.members[c].push(Member { slot: slot as u32, k: k as u32 });
            self.links[start + k] = Link { chan: c as u32, pos };
            constrained |= self.capacity[c].is_finite();
        }
        self.flows[slot] = Flow {
            id,
            bytes,
            rem: bytes,
            last: now,
            rate: 0.0,
            cap,
            start: start as u32,
            len: channels.len() as u32,
            active: true,
            pending: constrained,
            ..Flow::default()
        };
        self.n_active += 1;
        if !constrained {
            self.set_rate(slot, INF); // nothing limits it: it completes now
        } else {
            self.pend_add.push(slot as u32);
            self.dirty = true;
            if bytes == 0.0 {
                self.push_completion(slot);
            }
        }
    }

    /// The earliest completion `(time, id)` at the current rates; `None` if no active flow will ever complete
    /// (none left, or all at rate 0). A flow with (almost) nothing left completes at the last `now`; among
    /// several, they come in order of their former completion time, then id.
    pub fn next_completion(&mut self) -> Option<(f64, usize)> {
        if let Some(&(_, id, _)) = self.done.get(self.done_at) {
            return Some((self.now, id as usize));
        }
        loop {
            match self.completions.peek() {
                Some((t, id, s)) => {
                    // done whatever the new rates: no need to recompute them
                    if self.done_now(s) {
                        self.take_done();
                        return Some((self.now, id as usize));
                    }
                    if !self.dirty {
                        return Some((unkey(t), id as usize));
                    }
                }
                None if !self.dirty => return None,
                None => {}
            }
            self.solve();
        }
    }

    /// Flow `id` leaves at `now` (finished or cancelled).
    ///
    /// # Panics
    /// If `id` is not active or `now` is earlier than a time passed before.
    pub fn remove(&mut self, now: f64, id: usize) {
        let slot = self.slot(id);
        self.advance(now);
        let f = self.flows[slot];
        for k in 0..f.len as usize {
            let Link { chan, pos } = self.links[f.start as usize + k];
            let (c, pos) = (chan as usize, pos as usize);
            let list = &mut self.members[c];
            list.swap_remove(pos);
            if pos < list.len() {
                let m = list[pos];
                let g = &self.flows[m.slot as usize];
                self.links[(g.start + m.k) as usize].pos = pos as u32;
            }
            if list.is_empty() {
                // nothing left to re-examine: an empty channel has not filled
                self.load[c] = 0.0;
                self.level[c] = INF;
                continue;
            }
            if f.rate.is_finite() {
                self.load[c] -= f.rate;
            }
            // a channel with slack stays so; one that had filled frees room for its other flows
            if f.rate > 0.0 && self.level[c].is_finite() && !self.freed_pending[c] {
                self.freed_pending[c] = true;
                self.pend_freed.push(c as u32);
                self.dirty = true;
            }
        }
        if f.len > 0 {
            let len = f.len as usize;
            if self.free_links.len() <= len {
                self.free_links.resize(len + 1, Vec::new());
            }
            self.free_links[len].push(f.start);
        }
        let g = &mut self.flows[slot];
        g.active = false;
        g.pending = false;
        if self.done.get(self.done_at).is_some_and(|&(_, _, d)| d == slot) {
            self.done_at += 1;
        } else {
            self.flush_done();
            self.completions.remove(slot);
        }
        self.free_slots.push(slot as u32);
        self.slot_of[id] = NONE;
        self.n_active -= 1;
    }

    /// The current rate of flow `id` (bytes/s; `INFINITY` if nothing limits it).
    ///
    /// # Panics
    /// If `id` is not active.
    pub fn rate(&mut self, id: usize) -> f64 {
        let slot = self.slot(id);
        if self.dirty {
            self.solve();
        }
        self.flows[slot].rate
    }

    /// Bytes carried by each channel up to the last `now` passed to `add` or `remove`.
    pub fn channel_bytes(&self) -> &[f64] {
        &self.carried
    }

    /// Number of active flows.
    pub fn active(&self) -> usize {
        self.n_active
    }

    fn slot(&self, id: usize) -> usize {
        match self.slot_of.get(id) {
            Some(&s) if s != NONE => s as usize,
            _ => panic!("flow {id} is not active"),
        }
    }

    fn alloc_links(&mut self, len: usize) -> usize {
        if let Some(start) = self.free_links.get_mut(len).and_then(Vec::pop) {
            return start as usize;
        }
        let start = self.links.len();
        self.links.resize(start + len, Link::default());
        start
    }

    /// Move the clock to `now`: rates fixed at the old time first, then bytes carried meanwhile.
    fn advance(&mut self, now: f64) {
        assert!(now >= self.now, "time went backwards: {now} < {}", self.now);
        if now > self.now {
            if self.dirty {
                self.solve();
            }
            if self.now > f64::NEG_INFINITY {
                let dt = now - self.now;
                for (b, l) in self.carried.iter_mut().zip(&self.load) {
                    *b += l * dt;
                }
            }
            self.now = now;
        }
    }

    fn done_now(&self, s: usize) -> bool {
        done_at(&self.flows[s], self.now)
    }

    /// Take the flows done at `now` off the top of `completions` into `done`, in order (the top is done).
    /// One at a time while they are few; past that, the rest in one pass over the heap: those done and
    /// before the first flow not done, exactly the ones the one-at-a-time loop would take.
    fn take_done(&mut self) {
        self.done.clear();
        self.done_at = 0;
        let few = 64.max(self.completions.len() / 16);
        while let Some((k, id, s)) = self.completions.peek() {
            if !self.done_now(s) {
                return;
            }
            if self.done.len() == few {
                break;
            }
            self.completions.pop();
            self.done.push((k, id, s));
        }
        let (flows, now) = (&self.flows, self.now);
        let done = |s: usize| done_at(&flows[s], now);
        let first_not_done = self.completions.entries().filter(|&(_, _, s)| !done(s)).min();
        let before = |e: (u64, u32, usize)| first_not_done.is_none_or(|m| e < m);
        let mut rest = Vec::new();
        self.completions.retain(|k, id, s| {
            let take = before((k, id, s)) && done(s);
            if take {
                rest.push((k, id, s));
            }
            !take
        });
        rest.sort_unstable();
        self.done.extend(rest);
    }

    /// Put the flows still in `done` back into `completions` (before anything else changes there).
    fn flush_done(&mut self) {
        for &(k, id, s) in &self.done[self.done_at..] {
            self.completions.set_tagged(s, k, id);
        }
        self.done.clear();
        self.done_at = 0;
    }

    fn push_completion(&mut self, s: usize) {
        self.flush_done();
        let f = &self.flows[s];
        let t = if f.rem <= 0.0 {
            f.last
        } else if f.rate > 0.0 {
            f.last + f.rem / f.rate
        } else {
            self.completions.remove(s); // never completes
            return;
        };
        self.completions.set_tagged(s, key(t), f.id as u32);
    }

    /// Flow in slot `s` now runs at `x`: bytes so far at the old rate, loads, completion time.
    fn set_rate(&mut self, s: usize, x: f64) {
        let now = self.now;
        let f = &mut self.flows[s];
        if f.rate > 0.0 && f.rate.is_finite() {
            f.rem -= f.rate * (now - f.last);
        }
        if f.rem <= DONE * f.bytes {
            f.rem = 0.0;
        }
        f.last = now;
        let old = f.rate;
        debug_assert!(old.is_finite());
        for k in f.start..f.start + f.len {
            let c = self.links[k as usize].chan as usize;
            if x.is_finite() {
                self.load[c] += x - old;
            } else {
                self.load[c] -= old;
                self.carried[c] += f.rem;
            }
        }
        if x.is_infinite() {
            f.rem = 0.0;
        }
        f.rate = x;
        self.push_completion(s);
    }

    /// Recompute the rates that the changes since the last run may have moved.
    fn solve(&mut self) {
        self.flush_done();
        self.dirty = false;
        self.solves += 1;
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            for f in &mut self.flows {
                (f.disc, f.fixed, f.checked) = (0, 0, 0);
            }
            for r in &mut self.run {
                r.epoch = 0;
            }
            self.epoch = 1;
        }
        let ep = self.epoch;
        self.lam = 0.0;
        self.events.clear();
        // step 1: channels that lost a flow after filling must be re-examined at their old level
        for i in 0..self.pend_freed.len() {
            let c = self.pend_freed[i] as usize;
            self.freed_pending[c] = false;
            if self.run[c].epoch != ep {
                self.light(c);
            }
            let run = &mut self.run[c];
            run.freed = true;
            run.act_at = run.act_at.min(self.level[c]);
            self.wake(c);
        }
        self.pend_freed.clear();
        // step 2: new flows are unfixed from level 0
        for i in 0..self.pend_add.len() {
            let s = self.pend_add[i] as usize;
            if self.flows[s].active && self.flows[s].pending {
                self.flows[s].pending = false;
                if !self.alone(s) {
                    self.discover(s);
                }
            }
        }
        self.pend_add.clear();
        // step 3: progressive filling, by increasing level, where the run differs from the last one
        let flow0 = self.capacity.len();
        while let Some((k, _, slot)) = self.events.peek() {
            let p = unkey(k);
            if slot < flow0 {
                if let Some(w) = self.later(slot, p) {
                    // nothing to do at `p`: the entry moves in place (no pop and push)
                    self.run[slot].queued = w;
                    if w < INF {
                        self.events.set(slot, key(w));
                    } else {
                        self.events.pop();
                    }
                    continue;
                }
                self.events.pop();
                self.on_channel(slot, p);
            } else {
                self.events.pop();
                self.on_flow(slot - flow0, p);
            }
        }
        debug_assert!(self.discovered.iter().all(|&s| self.flows[s as usize].fixed == ep));
        self.discovered.clear();
    }

    /// If new flow `s` is alone on each of its channels, none of them touched in this run, fix it at once where
    /// progressive filling would: at the smallest of its cap and its channels' capacities, the first such channel (by
    /// index, before the cap) filling there. Returns whether it did.
    fn alone(&mut self, s: usize) -> bool {
        let ep = self.epoch;
        let f = &self.flows[s];
        let (mut x, mut at) = (f.cap, NONE);
        for k in f.start..f.start + f.len {
            let c = self.links[k as usize].chan as usize;
            let cap = self.capacity[c];
            if !cap.is_finite() {
                continue;
            }
            if self.members[c].len() != 1 || self.run[c].epoch == ep {
                return false;
            }
            if cap < x || (cap == x && (at == NONE || (c as u32) < at)) {
                (x, at) = (cap, c as u32);
            }
        }
        if at != NONE {
            self.level[at as usize] = x;
        }
        self.flows[s].fixed = ep;
        if x != 0.0 {
            self.set_rate(s, x);
        }
        true
    }

    /// Start tracking channel `c` lightly: flows not known to change count at their old rate.
    fn light(&mut self, c: usize) {
        self.run[c] = ChanRun {
            epoch: self.epoch,
            full: false,
            freed: false,
            n: 0,
            r: self.capacity[c] - self.load[c],
            act_at: INF,
            queued: INF,
        };
    }

    /// Queue light channel `c` at the level where it might fill, or must be scanned.
    fn wake(&mut self, c: usize) {
        let run = &mut self.run[c];
        let mut w = run.act_at;
        if run.n > 0 {
            w = w.min((run.r / run.n as f64).max(0.0));
        }
        if w < run.queued {
            run.queued = w;
            self.events.set(c, key(w));
        }
    }

    /// Flow `s` will not keep its old rate: it is unfixed from the current level on.
    fn discover(&mut self, s: usize) {
        let ep = self.epoch;
        let f = &mut self.flows[s];
        f.disc = ep;
        let (x, cap, start, len) = (f.rate, f.cap, f.start as usize, f.len as usize);
        self.discovered.push(s as u32);
        for k in start..start + len {
            let c = self.links[k].chan as usize;
            if !self.capacity[c].is_finite() {
                continue;
            }
            if self.run[c].epoch != ep {
                self.light(c);
            }
            if !self.run[c].full {
                self.run[c].r += x;
                self.run[c].n += 1;
                self.wake(c);
            }
        }
        if cap.is_finite() {
            self.events.set(self.capacity.len() + s, key(cap));
        }
    }

    /// If channel `c`'s event at level `p` has nothing to do there, the level it moves to (`INF`: none): a light
    /// channel that cannot fill yet, a scanned one whose share is above the current level, or one with no flow left.
    fn later(&self, c: usize, p: f64) -> Option<f64> {
        let run = &self.run[c];
        debug_assert!(run.epoch == self.epoch && run.queued.to_bits() == p.to_bits(), "channel {c}: stale event");
        if !run.full {
            let mut w = run.act_at;
            if run.n > 0 {
                w = w.min((run.r / run.n as f64).max(0.0));
            }
            (w > p).then_some(w)
        } else if run.n > 0 {
            let s = run.r / run.n as f64;
            (s > self.lam.max(p) * (1.0 + TOL)).then_some(s)
        } else {
            Some(INF)
        }
    }

    /// Channel `c` acts at level `p` (where [`later`](Self::later) said it does): a light one is scanned, a
    /// scanned one fills.
    fn on_channel(&mut self, c: usize, p: f64) {
        self.run[c].queued = INF;
        self.lam = self.lam.max(p);
        if self.run[c].full {
            self.fill(c);
        } else {
            self.scan(c);
        }
    }

    /// Count channel `c` exactly at the current level: flows below it keep their rate, the others are unfixed
    /// (those not known to change get a check at their old rate).
    fn scan(&mut self, c: usize) {
        let ep = self.epoch;
        let thr = self.lam * (1.0 - TOL);
        let (mut r, mut n) = (self.capacity[c], 0u32);
        let flow0 = self.capacity.len();
        for m in &self.members[c] {
            let f = &mut self.flows[m.slot as usize];
            if f.fixed == ep {
                r -= f.rate;
            } else if f.disc == ep || f.checked == ep {
                n += 1;
            } else if f.rate >= thr {
                n += 1;
                f.checked = ep;
                self.events.set(flow0 + m.slot as usize, key(f.rate));
            } else {
                r -= f.rate;
            }
        }
        self.level[c] = INF;
        let run = &mut self.run[c];
        (run.full, run.r, run.n, run.queued) = (true, r, n, INF);
        if n > 0 {
            let s = r / n as f64;
            run.queued = s;
            self.events.set(c, key(s));
        }
    }

    /// Channel `c` fills at the current level: fix its unfixed flows there.
    fn fill(&mut self, c: usize) {
        let ep = self.epoch;
        let lam = self.lam;
        self.level[c] = lam;
        let mut todo = std::mem::take(&mut self.scratch);
        todo.clear();
        for m in &self.members[c] {
            let f = &self.flows[m.slot as usize];
            if f.fixed != ep && (f.disc == ep || f.checked == ep) {
                todo.push(m.slot);
            }
        }
        for &s in &todo {
            self.fix(s as usize, lam);
        }
        self.scratch = todo;
        debug_assert_eq!(self.run[c].n, 0);
        self.run[c].r = 0.0;
    }

    fn on_flow(&mut self, s: usize, p: f64) {
        let ep = self.epoch;
        let f = self.flows[s];
        if f.fixed == ep {
            return;
        }
        self.lam = self.lam.max(p);
        if f.disc == ep {
            self.fix(s, f.cap); // its cap event
            return;
        }
        // check at its old rate: does something still hold it there?
        let x = f.rate;
        let thr = x * (1.0 + TOL);
        let mut pinned = f.cap <= thr;
        for k in f.start..f.start + f.len {
            let c = self.links[k as usize].chan as usize;
            if !self.capacity[c].is_finite() {
                continue;
            }
            let run = &self.run[c];
            pinned |= if run.epoch != ep {
                self.level[c] <= thr
            } else if run.full {
                // it fills now: its level is now, even if pins leave nothing for it to fix
                let fills = run.r <= thr * run.n as f64;
                if fills {
                    self.level[c] = self.lam;
                }
                fills
            } else {
                !run.freed && self.level[c] <= thr
            };
        }
        if pinned {
            self.fix(s, x);
        } else {
            self.discover(s);
        }
    }

    /// Fix flow `s` at rate `x` (its old rate if within tolerance) and tell its channels.
    fn fix(&mut self, s: usize, x: f64) {
        let ep = self.epoch;
        let f = &mut self.flows[s];
        let old = f.rate;
        let x = if old > 0.0 && (x - old).abs() <= TOL * old { old } else { x };
        let disc = f.disc == ep;
        let changed = x != old;
        f.fixed = ep;
        self.events.remove(self.capacity.len() + s);
        let (start, len) = (f.start as usize, f.len as usize);
        for k in start..start + len {
            let c = self.links[k].chan as usize;
            if !self.capacity[c].is_finite() {
                continue;
            }
            if self.run[c].epoch == ep && (self.run[c].full || disc) {
                let run = &mut self.run[c];
                debug_assert!(run.n > 0);
                run.r -= x;
                run.n -= 1;
                if run.n == 0 && (run.full || run.act_at == INF) && run.queued < INF {
                    // its event would do nothing: drop it now, near the bottom of the heap, not later from the top
                    run.queued = INF;
                    self.events.remove(c);
                }
            } else if changed {
                if self.run[c].epoch != ep {
                    self.light(c);
                }
                let level = self.level[c];
                let run = &mut self.run[c];
                run.r += old - x;
                if x < old && level.is_finite() {
                    run.freed = true;
                    run.act_at = run.act_at.min(level);
                }
                self.wake(c);
            }
        }
        if changed {
            self.set_rate(s, x);
        }
    }
}

/// Flow `f` has (almost) nothing left at `now`.
fn done_at(f: &Flow, now: f64) -> bool {
    let mut rem = f.rem;
    if f.rate > 0.0 && f.rate.is_finite() {
        rem -= f.rate * (now - f.last);
    }
    rem <= DONE * f.bytes
}

#[cfg(test)]
mod tests;
