//! Discrete-event simulation of a program whose messages and computations
//! have been compiled into **stages on resources** (contract:
//! `docs/engine.md`).
//!
//! The Python front turns a Program and a network model into a
//! [`StageTable`]; [`simulate`] runs it without any per-event call back into
//! the caller and returns the start and end of every operation and the busy
//! time of every resource.
//!
//! # Activities and stages
//!
//! Message id `m` is activity `m` (`M` = largest message id + 1; an id with
//! no send and no receive keeps its slot but does nothing), then the compute
//! operations, in operation order, are activities `M, M+1, ...`. An activity
//! is a sequence of stages run one after the other:
//!
//! | kind | code | `amount` | holds |
//! |---|---|---|---|
//! | hold | 0 | seconds | its exclusive resources, for `amount` seconds |
//! | delay | 1 | seconds | nothing (it may list no resource) |
//! | flow | 2 | bytes | its exclusive resources until `amount` bytes have crossed its fluid channels at the max-min fair rate ([`crate::fluid::MaxMin`]), at most `cap` bytes/s |
//!
//! `sender_done[m]` and `recv_begins[m]` are positions **inside** activity
//! `m` (0 is its first stage): the send completes when stage `sender_done`
//! ends, the receive starts when stage `recv_begins` starts.
//!
//! # Semantics
//!
//! An operation is ready when its dependencies have completed. A ready send
//! makes stage 0 of its message eligible, a ready compute makes its stage
//! eligible; a ready receive *posts* its message, which releases a stage
//! marked `needs_recv` (such a stage is eligible only once the receive is
//! posted). An eligible stage starts as soon as all its exclusive resources
//! are free; waiting stages are served greedily (no reservation) in priority
//! order: earliest eligible time, then [`Tie`]. All events at one time are
//! processed before any stage starts at that time. A stage's end makes the
//! next stage of its activity eligible.
//!
//! Operation times: a send runs from the start of stage 0 to the end of
//! stage `sender_done`; a receive from the start of stage `recv_begins` to
//! the end of the last stage; a compute over its stage. A receive never
//! starts or ends before it is posted: when its message got ahead of it
//! (stages without `needs_recv`), its times are clamped to the post time.
//!
//! Flow completions whose times agree to a relative `1e-12` are processed
//! together, at the first of those times (floating-point rounding in the
//! fluid solver must not split one instant in two).
//!
//! # Checks
//!
//! Before any work, [`simulate`] checks the program ([`ProgramView::check`])
//! and then the stage table, and names the first fault it finds (field,
//! stage, activity): array lengths and CSR pointers; per stage, a kind in
//! `0..=2`, a finite `amount >= 0`, `needs_recv` 0 or 1 (0 on a compute),
//! distinct resources below `n_resources` (none on a delay), distinct
//! channels below `capacities.len()` on flow stages only, a flow `cap > 0`;
//! every message with a send and a receive has a stage, and `sender_done`,
//! `recv_begins` are positions inside it; every compute activity is exactly
//! one hold stage; channel capacities are `> 0`.
//!
//! # Performance
//!
//! One pass packs the program and the stages into small records (a stage,
//! an activity and an operation each fit in a fraction of a cache line; the
//! two operations of a message side by side, see `layout.rs`);
//! the loop then does no allocation per event: a radix heap of stage ends
//! that hands out every end of one instant at once (`queue.rs`),
//! dependency counters, and waiting stages parked, each on one busy resource
//! that blocks it, in per-resource heaps (see `arbiter.rs`). The example
//! `bench_oneport` runs a caterpillar all-to-all of 1,024 hosts (2.1 million
//! operations) at several million operations per second on one core.
//!
//! # Examples
//!
//! Two ranks send to rank 2 at once under the synchronous one-port model:
//! each transfer holds the sender's send port and the receiver's receive
//! port (resources `3r` and `3r + 1`) for one second, so the second waits.
//!
//! ```
//! use collsched_core::program::ProgramView;
//! use collsched_core::sim::{simulate, SimConfig, StageTable, Tie};
//! // ops: 0 = rank 0 sends m0, 1 = rank 1 sends m1, 2 = rank 2 receives m0, 3 = rank 2 receives m1
//! let p = ProgramView {
//!     n_ranks: 3,
//!     op_rank: &[0, 1, 2, 2],
//!     op_kind: &[0, 0, 1, 1],
//!     op_peer: &[2, 2, 0, 1],
//!     op_msg: &[0, 1, 0, 1],
//!     dep_ptr: &[0, 0, 0, 0, 0],
//!     dep_idx: &[],
//!     piece_ptr: &[0, 0, 0, 0, 0],
//!     pieces: &[],
//!     denominator: 1,
//! };
//! let stages = StageTable {
//!     act_ptr: &[0, 1, 2],
//!     kind: &[0, 0],
//!     amount: &[1.0, 1.0],
//!     res_ptr: &[0, 2, 4],
//!     res: &[0, 7, 3, 7], // {send(0), recv(2)}, {send(1), recv(2)}
//!     chan_ptr: &[0, 0, 0],
//!     chan: &[],
//!     cap: &[f64::INFINITY; 2],
//!     needs_recv: &[1, 1],
//!     sender_done: &[0, 0],
//!     recv_begins: &[0, 0],
//! };
//! let cfg = SimConfig { n_resources: 9, capacities: &[], tie: Tie::Fixed };
//! let out = simulate(&p, &stages, &cfg).unwrap();
//! assert_eq!(out.op_start, vec![0.0, 1.0, 0.0, 1.0]);
//! assert_eq!(out.op_end, vec![1.0, 2.0, 1.0, 2.0]);
//! assert_eq!(out.makespan, 2.0);
//! assert_eq!(out.resource_busy[7], 2.0); // rank 2's receive port never rested
//! ```
//!
//! A flow shares its channel max-min fairly with the flows it meets: two
//! flows of 1 MB and 2 MB on one 1 MB/s channel get 0.5 MB/s each until the
//! first ends at 2 s, then the second has the channel to itself.
//!
//! ```
//! use collsched_core::program::ProgramView;
//! use collsched_core::sim::{simulate, SimConfig, StageTable, Tie};
//! let p = ProgramView {
//!     n_ranks: 3,
//!     op_rank: &[0, 1, 2, 2],
//!     op_kind: &[0, 0, 1, 1],
//!     op_peer: &[2, 2, 0, 1],
//!     op_msg: &[0, 1, 0, 1],
//!     dep_ptr: &[0, 0, 0, 0, 0],
//!     dep_idx: &[],
//!     piece_ptr: &[0, 0, 0, 0, 0],
//!     pieces: &[],
//!     denominator: 1,
//! };
//! let stages = StageTable {
//!     act_ptr: &[0, 1, 2],
//!     kind: &[2, 2],
//!     amount: &[1e6, 2e6],
//!     res_ptr: &[0, 0, 0],
//!     res: &[],
//!     chan_ptr: &[0, 1, 2],
//!     chan: &[0, 0],
//!     cap: &[f64::INFINITY; 2],
//!     needs_recv: &[0, 0],
//!     sender_done: &[0, 0],
//!     recv_begins: &[0, 0],
//! };
//! let cfg = SimConfig { n_resources: 9, capacities: &[1e6], tie: Tie::Fixed };
//! let out = simulate(&p, &stages, &cfg).unwrap();
//! assert!((out.op_end[0] - 2.0).abs() < 1e-9);
//! assert!((out.op_end[1] - 3.0).abs() < 1e-9);
//! assert!((out.channel_busy[0] - 3.0).abs() < 1e-9); // 3 MB at 1 MB/s
//! ```

mod arbiter;
mod engine;
mod layout;
mod queue;
#[cfg(test)]
mod tests;
mod time;

use std::fmt;

use crate::program::{ProgramView, StructureError};

/// Stages of every activity, column-wise (CSR), as compiled by the front.
///
/// Indices are `i64` as handed over from numpy. Stage `s` belongs to the
/// activity `a` with `act_ptr[a] <= s < act_ptr[a + 1]`.
#[derive(Clone, Copy, Debug)]
pub struct StageTable<'a> {
    /// Stages of activity `a` are `act_ptr[a]..act_ptr[a + 1]`; one entry per activity plus one.
    pub act_ptr: &'a [i64],
    /// Per stage: 0 hold, 1 delay, 2 flow.
    pub kind: &'a [i64],
    /// Per stage: seconds (hold, delay) or bytes (flow); finite, >= 0.
    pub amount: &'a [f64],
    /// Exclusive resources of stage `s` are `res[res_ptr[s]..res_ptr[s + 1]]`.
    pub res_ptr: &'a [i64],
    pub res: &'a [i64],
    /// Fluid channels of stage `s` are `chan[chan_ptr[s]..chan_ptr[s + 1]]` (flow stages only).
    pub chan_ptr: &'a [i64],
    pub chan: &'a [i64],
    /// Per stage: per-flow rate cap in bytes/s (`f64::INFINITY`: none); read for flow stages only.
    pub cap: &'a [f64],
    /// Per stage: 1 if the stage may only start once its message's receive is posted.
    pub needs_recv: &'a [u8],
    /// Per message id: the position, inside its activity, of the stage whose end completes the send.
    pub sender_done: &'a [i64],
    /// Per message id: the position, inside its activity, of the stage whose start is the receive's start.
    pub recv_begins: &'a [i64],
}

/// How stages that became eligible at the same time are ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tie {
    /// By activity index.
    Fixed,
    /// By a random priority per activity: `ChaCha8Rng::seed_from_u64(seed)`
    /// draws one `next_u32` per activity, in activity order (smaller first;
    /// equal draws fall back to the stage index).
    Random(u64),
}

/// What the simulation runs on.
#[derive(Clone, Copy, Debug)]
pub struct SimConfig<'a> {
    /// Number of exclusive resources (every resource index is below it).
    pub n_resources: usize,
    /// Per fluid channel: capacity in bytes/s (> 0; `f64::INFINITY` never limits).
    pub capacities: &'a [f64],
    pub tie: Tie,
}

/// Times of a completed run.
#[derive(Clone, Debug, PartialEq)]
pub struct SimOutcome {
    /// Per operation of the program: start time (s).
    pub op_start: Vec<f64>,
    /// Per operation of the program: end time (s).
    pub op_end: Vec<f64>,
    /// Per exclusive resource: total seconds it was held.
    pub resource_busy: Vec<f64>,
    /// Per fluid channel: bytes carried / capacity (s).
    pub channel_busy: Vec<f64>,
    /// Number of stage ends processed (hold and delay ends, flow completions).
    pub events: u64,
    /// Latest operation end (0 for an empty program).
    pub makespan: f64,
}

/// Why a simulation could not run to the end.
#[derive(Clone, Debug, PartialEq)]
pub enum SimError {
    /// The program itself is malformed (see [`ProgramView::check`]).
    Structure(StructureError),
    /// The stage table or the configuration does not fit the program; the message says where.
    BadStages(String),
    /// No event is left but these operations (the lowest indices, at most 8) never completed.
    Deadlock { stuck: Vec<usize> },
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Structure(e) => write!(f, "malformed program: {e}"),
            SimError::BadStages(msg) => write!(f, "bad stage table: {msg}"),
            SimError::Deadlock { stuck } => {
                write!(f, "deadlock: no event left, operations {stuck:?} (lowest) never complete")
            }
        }
    }
}

impl std::error::Error for SimError {}

impl From<StructureError> for SimError {
    fn from(e: StructureError) -> Self {
        SimError::Structure(e)
    }
}

/// Run the stages of program `p` to completion.
///
/// Checks the program ([`ProgramView::check`]) and the stage table (shapes,
/// ranges, every operation covered) before any work.
///
/// # Errors
///
/// [`SimError::Structure`] for a malformed program, [`SimError::BadStages`]
/// for a stage table or configuration that does not fit it, and
/// [`SimError::Deadlock`] when operations can never complete (for instance
/// two synchronous sends each waiting for the other's receive).
///
/// # Complexity
///
/// `O((S + R + D) log E)` for `S` stages, `R` resource uses, `D`
/// dependencies and `E` pending events, plus, per resource release, the
/// waiting stages skipped because another of their resources is busy; each
/// flow start or end costs one update of the fluid solver.
pub fn simulate(p: &ProgramView, stages: &StageTable, cfg: &SimConfig) -> Result<SimOutcome, SimError> {
    let checked = p.check()?;
    let layout = layout::Layout::new(p, &checked, stages, cfg)?;
    drop(checked);
    engine::run(layout, cfg)
}
