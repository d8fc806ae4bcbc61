//! Thin PyO3 layer: converts types and maps each core error to one Python exception.
//!
//! Python sees `collsched._core`; nothing here decides anything.

mod permutations;
mod pairs;
mod orderings;
mod matching;
mod liquid;
mod coloring;
mod maxflow;
mod mpi_fast;
mod mpi_calls;
mod lowering;

use collsched_core::compile::{compile_fluid, HostPairs, Ops};
use collsched_core::program::{OperandSets, ProgramView, StructureError};
use collsched_core::routing;
use collsched_core::sim::{self, SimConfig, SimError, StageTable, Tie};
use collsched_core::validate::{validate, Invalid, Options};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

create_exception!(_core, ProgramInvalid, PyValueError, "A program does not implement its collective; args = (code, details).");
create_exception!(_core, SimulationFailed, PyValueError, "A simulation cannot run to the end; args = (code, details).");

fn invalid(py: Python<'_>, err: Invalid) -> PyErr {
    let d = PyDict::new(py);
    let code = match err {
        Invalid::Structure(e) => return structure(py, e),
        Invalid::Deadlock { stuck } => {
            let _ = d.set_item("stuck", stuck);
            "deadlock"
        }
        Invalid::NotHeld { op, piece } => {
            let _ = (d.set_item("op", op), d.set_item("piece", piece));
            "not_held"
        }
        Invalid::NotWaited { op, piece, producer } => {
            let _ = (d.set_item("op", op), d.set_item("piece", piece), d.set_item("producer", producer));
            "not_waited"
        }
        Invalid::Duplicate { op, piece, earlier } => {
            let _ = (d.set_item("op", op), d.set_item("piece", piece), d.set_item("earlier", earlier));
            "duplicate"
        }
        Invalid::BadCombine { op, reason } => {
            let _ = (d.set_item("op", op), d.set_item("reason", reason));
            "bad_combine"
        }
        Invalid::Missing { rank, value, start, end, held } => {
            let _ = (d.set_item("rank", rank), d.set_item("value", value.to_vec()), d.set_item("held", held));
            let _ = (d.set_item("start", start), d.set_item("end", end));
            "missing"
        }
    };
    ProgramInvalid::new_err((code, d.unbind()))
}

fn structure(py: Python<'_>, err: StructureError) -> PyErr {
    let (code, d) = structure_parts(py, err);
    ProgramInvalid::new_err((code, d.unbind()))
}

/// The `(code, details)` of a structural error, shared by the validator's and the simulator's exceptions.
fn structure_parts(py: Python<'_>, err: StructureError) -> (&'static str, Bound<'_, PyDict>) {
    let d = PyDict::new(py);
    let code = match err {
        StructureError::Shape(what) => {
            let _ = d.set_item("reason", what);
            "shape"
        }
        StructureError::BadOp { op } => {
            let _ = d.set_item("op", op);
            "bad_op"
        }
        StructureError::BadDependency { op, dep } => {
            let _ = (d.set_item("op", op), d.set_item("dep", dep));
            "bad_dependency"
        }
        StructureError::UnmatchedMessage { msg, op } => {
            let _ = (d.set_item("msg", msg), d.set_item("op", op));
            "unmatched_message"
        }
        StructureError::MismatchedMessage { msg, send, recv } => {
            let _ = (d.set_item("msg", msg), d.set_item("send", send), d.set_item("recv", recv));
            "mismatched_message"
        }
        StructureError::BadPiece { op, piece } => {
            let _ = (d.set_item("op", op), d.set_item("piece", piece));
            "bad_piece"
        }
        StructureError::PiecesOnRecv { op } => {
            let _ = d.set_item("op", op);
            "pieces_on_recv"
        }
        StructureError::BadMessageId { op, msg } => {
            let _ = (d.set_item("op", op), d.set_item("msg", msg));
            "bad_message_id"
        }
    };
    (code, d)
}

fn sim_failed(py: Python<'_>, err: SimError) -> PyErr {
    let (code, d) = match err {
        SimError::Structure(e) => structure_parts(py, e),
        SimError::BadStages(reason) => {
            let d = PyDict::new(py);
            let _ = d.set_item("reason", reason);
            ("bad_stages", d)
        }
        SimError::Deadlock { stuck } => {
            let d = PyDict::new(py);
            let _ = d.set_item("stuck", stuck);
            ("deadlock", d)
        }
    };
    SimulationFailed::new_err((code, d.unbind()))
}

/// Symbolically execute a column-wise program; return the order in which operations ran.
///
/// initial: rows (rank, kind, inst, a, b); finals: rows (rank, kind, inst, a, b, start, end).
/// set_ptr, set_words: the operand sets of reductions (kind 2 rows name one by index), CSR of u64 words.
/// Raises ProgramInvalid(code, details) when it does not implement its collective.
#[pyfunction]
#[pyo3(signature = (n_ranks, op_rank, op_kind, op_peer, op_msg, dep_ptr, dep_idx, piece_ptr, pieces, denominator, initial, finals, *, rendezvous=false, set_ptr=None, set_words=None))]
#[allow(clippy::too_many_arguments)]
fn validate_program(
    py: Python<'_>,
    n_ranks: usize,
    op_rank: PyReadonlyArray1<i64>,
    op_kind: PyReadonlyArray1<i64>,
    op_peer: PyReadonlyArray1<i64>,
    op_msg: PyReadonlyArray1<i64>,
    dep_ptr: PyReadonlyArray1<i64>,
    dep_idx: PyReadonlyArray1<i64>,
    piece_ptr: PyReadonlyArray1<i64>,
    pieces: PyReadonlyArray1<i64>,
    denominator: i64,
    initial: PyReadonlyArray1<i64>,
    finals: PyReadonlyArray1<i64>,
    rendezvous: bool,
    set_ptr: Option<PyReadonlyArray1<i64>>,
    set_words: Option<PyReadonlyArray1<u64>>,
) -> PyResult<Vec<usize>> {
    let view = ProgramView {
        n_ranks,
        op_rank: op_rank.as_slice()?,
        op_kind: op_kind.as_slice()?,
        op_peer: op_peer.as_slice()?,
        op_msg: op_msg.as_slice()?,
        dep_ptr: dep_ptr.as_slice()?,
        dep_idx: dep_idx.as_slice()?,
        piece_ptr: piece_ptr.as_slice()?,
        pieces: pieces.as_slice()?,
        denominator,
    };
    let (initial, finals) = (initial.as_slice()?, finals.as_slice()?);
    let ptr = match &set_ptr { Some(a) => a.as_slice()?, None => &[] };
    let words = match &set_words { Some(a) => a.as_slice()?, None => &[] };
    let sets = OperandSets::new(ptr, words)
        .ok_or_else(|| structure(py, StructureError::Shape("set_ptr is not a CSR pointer over set_words")))?;
    let result = py.detach(|| validate(&view, &sets, initial, finals, Options { rendezvous }));
    result.map_err(|e| invalid(py, e))
}

/// A program's operations and dependencies without pieces (`no_pieces`: one 0 offset per operation and one more),
/// as the simulator and its structure check read them; `arrays` are op_rank, op_kind, op_peer, op_msg, dep_ptr, dep_idx.
fn structure_view<'a>(
    n_ranks: usize,
    arrays: [&'a PyReadonlyArray1<i64>; 6],
    no_pieces: &'a [i64],
) -> PyResult<ProgramView<'a>> {
    let [op_rank, op_kind, op_peer, op_msg, dep_ptr, dep_idx] = arrays;
    Ok(ProgramView {
        n_ranks,
        op_rank: op_rank.as_slice()?,
        op_kind: op_kind.as_slice()?,
        op_peer: op_peer.as_slice()?,
        op_msg: op_msg.as_slice()?,
        dep_ptr: dep_ptr.as_slice()?,
        dep_idx: dep_idx.as_slice()?,
        piece_ptr: no_pieces,
        pieces: &[],
        denominator: 1,
    })
}

/// Whether a column-wise program (without pieces) is well formed with dense message ids `0 .. M-1`.
///
/// True when the core's structure check passes and every id below the largest has its send and its
/// receive; False otherwise (the caller then finds the fault itself). The GIL is released.
#[pyfunction]
#[pyo3(signature = (n_ranks, op_rank, op_kind, op_peer, op_msg, dep_ptr, dep_idx))]
#[allow(clippy::too_many_arguments)]
fn program_well_formed(
    py: Python<'_>,
    n_ranks: usize,
    op_rank: PyReadonlyArray1<i64>,
    op_kind: PyReadonlyArray1<i64>,
    op_peer: PyReadonlyArray1<i64>,
    op_msg: PyReadonlyArray1<i64>,
    dep_ptr: PyReadonlyArray1<i64>,
    dep_idx: PyReadonlyArray1<i64>,
) -> PyResult<bool> {
    let no_pieces = vec![0i64; op_rank.len()? + 1];
    let view = structure_view(n_ranks, [&op_rank, &op_kind, &op_peer, &op_msg, &dep_ptr, &dep_idx], &no_pieces)?;
    Ok(py.detach(|| view.check().is_ok_and(|c| c.send_of_msg.iter().all(|&s| s != usize::MAX))))
}

type SimArrays<'py> = (
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
    u64,
    f64,
);

/// Run the stage table of a program (docs/engine.md) to completion.
///
/// tie is "fixed" (activity order) or a seed (an int >= 0: a random priority per activity).
/// Returns (op_start, op_end, resource_busy, channel_busy, events, makespan).
/// Raises SimulationFailed(code, details): a structure code of the validator, "bad_stages"
/// {"reason"} or "deadlock" {"stuck": [op, ...]}.
#[pyfunction]
#[pyo3(signature = (n_ranks, op_rank, op_kind, op_peer, op_msg, dep_ptr, dep_idx, act_ptr, kind, amount, res_ptr, res, chan_ptr, chan, cap, needs_recv, sender_done, recv_begins, n_resources, capacities, *, tie=None))]
#[allow(clippy::too_many_arguments)]
fn simulate<'py>(
    py: Python<'py>,
    n_ranks: usize,
    op_rank: PyReadonlyArray1<i64>,
    op_kind: PyReadonlyArray1<i64>,
    op_peer: PyReadonlyArray1<i64>,
    op_msg: PyReadonlyArray1<i64>,
    dep_ptr: PyReadonlyArray1<i64>,
    dep_idx: PyReadonlyArray1<i64>,
    act_ptr: PyReadonlyArray1<i64>,
    kind: PyReadonlyArray1<i64>,
    amount: PyReadonlyArray1<f64>,
    res_ptr: PyReadonlyArray1<i64>,
    res: PyReadonlyArray1<i64>,
    chan_ptr: PyReadonlyArray1<i64>,
    chan: PyReadonlyArray1<i64>,
    cap: PyReadonlyArray1<f64>,
    needs_recv: PyReadonlyArray1<u8>,
    sender_done: PyReadonlyArray1<i64>,
    recv_begins: PyReadonlyArray1<i64>,
    n_resources: usize,
    capacities: PyReadonlyArray1<f64>,
    tie: Option<&Bound<'py, PyAny>>,
) -> PyResult<SimArrays<'py>> {
    let tie = match tie {
        None => Tie::Fixed,
        Some(t) if t.extract::<String>().is_ok_and(|s| s == "fixed") => Tie::Fixed,
        Some(t) => match t.extract::<u64>() {
            Ok(seed) => Tie::Random(seed),
            Err(_) => return Err(PyValueError::new_err(format!("tie must be 'fixed' or a seed >= 0, not {t}"))),
        },
    };
    let no_pieces = vec![0i64; op_rank.len()? + 1];
    let view = structure_view(n_ranks, [&op_rank, &op_kind, &op_peer, &op_msg, &dep_ptr, &dep_idx], &no_pieces)?;
    let stages = StageTable {
        act_ptr: act_ptr.as_slice()?,
        kind: kind.as_slice()?,
        amount: amount.as_slice()?,
        res_ptr: res_ptr.as_slice()?,
        res: res.as_slice()?,
        chan_ptr: chan_ptr.as_slice()?,
        chan: chan.as_slice()?,
        cap: cap.as_slice()?,
        needs_recv: needs_recv.as_slice()?,
        sender_done: sender_done.as_slice()?,
        recv_begins: recv_begins.as_slice()?,
    };
    let cfg = SimConfig { n_resources, capacities: capacities.as_slice()?, tie };
    let out = py.detach(|| sim::simulate(&view, &stages, &cfg)).map_err(|e| sim_failed(py, e))?;
    Ok((
        PyArray1::from_vec(py, out.op_start),
        PyArray1::from_vec(py, out.op_end),
        PyArray1::from_vec(py, out.resource_busy),
        PyArray1::from_vec(py, out.channel_busy),
        out.events,
        out.makespan,
    ))
}

type FluidArrays<'py> = (
    Vec<Bound<'py, PyArray1<i64>>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<u8>>,
    Bound<'py, PyArray1<f64>>,
);

/// A program's Fluid stage table from the routes of every host pair (`collsched_core::compile`).
///
/// Returns `(ints, amount, cap, needs_recv, channel_bytes)`, `ints` being act_ptr, kind, res_ptr, res,
/// chan_ptr, chan, sender_done, recv_begins; or None when the program or the pair table does not fit
/// (the caller then compiles it the slow way, which names the fault). The GIL is released.
#[pyfunction]
#[pyo3(signature = (n_ranks, op_rank, op_kind, op_peer, op_msg, op_size, rank_host, speed, n_hosts, pair_ptr, pair_chan, pair_latency, pair_cap, busy_ptr, busy_chan, n_channels, *, one_port))]
#[allow(clippy::too_many_arguments)]
fn fluid_stages<'py>(
    py: Python<'py>,
    n_ranks: usize,
    op_rank: PyReadonlyArray1<i64>,
    op_kind: PyReadonlyArray1<i64>,
    op_peer: PyReadonlyArray1<i64>,
    op_msg: PyReadonlyArray1<i64>,
    op_size: PyReadonlyArray1<f64>,
    rank_host: PyReadonlyArray1<i64>,
    speed: PyReadonlyArray1<f64>,
    n_hosts: usize,
    pair_ptr: PyReadonlyArray1<i64>,
    pair_chan: PyReadonlyArray1<i64>,
    pair_latency: PyReadonlyArray1<f64>,
    pair_cap: PyReadonlyArray1<f64>,
    busy_ptr: PyReadonlyArray1<i64>,
    busy_chan: PyReadonlyArray1<i64>,
    n_channels: usize,
    one_port: bool,
) -> PyResult<Option<FluidArrays<'py>>> {
    let ops = Ops {
        n_ranks,
        op_rank: op_rank.as_slice()?,
        op_kind: op_kind.as_slice()?,
        op_peer: op_peer.as_slice()?,
        op_msg: op_msg.as_slice()?,
        op_size: op_size.as_slice()?,
    };
    let pairs = HostPairs {
        n_hosts,
        ptr: pair_ptr.as_slice()?,
        chan: pair_chan.as_slice()?,
        latency: pair_latency.as_slice()?,
        cap: pair_cap.as_slice()?,
        busy_ptr: busy_ptr.as_slice()?,
        busy_chan: busy_chan.as_slice()?,
        n_channels,
    };
    let (rank_host, speed) = (rank_host.as_slice()?, speed.as_slice()?);
    let Ok(t) = py.detach(|| compile_fluid(&ops, rank_host, speed, &pairs, one_port)) else { return Ok(None) };
    let ints = [t.act_ptr, t.kind, t.res_ptr, t.res, t.chan_ptr, t.chan, t.sender_done, t.recv_begins];
    Ok(Some((
        ints.into_iter().map(|v| PyArray1::from_vec(py, v)).collect(),
        PyArray1::from_vec(py, t.amount),
        PyArray1::from_vec(py, t.cap),
        PyArray1::from_vec(py, t.needs_recv),
        PyArray1::from_vec(py, t.channel_bytes),
    )))
}

/// Shortest-path trees of `sources` over a CSR graph: `(parent, arc_in)`, each `len(sources) x n` (row-major).
#[pyfunction]
#[pyo3(signature = (ptr, node, arc, latency, sources, *, by_latency))]
fn shortest_path_trees<'py>(
    py: Python<'py>,
    ptr: PyReadonlyArray1<i64>,
    node: PyReadonlyArray1<i64>,
    arc: PyReadonlyArray1<i64>,
    latency: PyReadonlyArray1<f64>,
    sources: PyReadonlyArray1<i64>,
    by_latency: bool,
) -> PyResult<(Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>)> {
    let g = routing::Graph { ptr: ptr.as_slice()?, node: node.as_slice()?, arc: arc.as_slice()?, latency: latency.as_slice()? };
    let n = g.ptr.len().saturating_sub(1);
    if g.node.len() != g.arc.len() || g.node.len() != g.latency.len() || g.ptr.last().map_or(true, |&e| e as usize != g.node.len())
        || g.node.iter().any(|&v| v < 0 || v as usize >= n)
    {
        return Err(PyValueError::new_err("malformed graph arrays"));
    }
    let sources = sources.as_slice()?;
    if sources.iter().any(|&s| s < 0 || s as usize >= n) {
        return Err(PyValueError::new_err("a source is not a node of the graph"));
    }
    let (parent, arc_in) = py.detach(|| routing::shortest_path_trees(&g, by_latency, sources));
    Ok((PyArray1::from_vec(py, parent), PyArray1::from_vec(py, arc_in)))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ProgramInvalid", m.py().get_type::<ProgramInvalid>())?;
    m.add("SimulationFailed", m.py().get_type::<SimulationFailed>())?;
    m.add_function(wrap_pyfunction!(validate_program, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(program_well_formed, m)?)?;
    m.add_function(wrap_pyfunction!(fluid_stages, m)?)?;
    m.add_function(wrap_pyfunction!(shortest_path_trees, m)?)?;
    m.add_function(wrap_pyfunction!(pairs::tree_routes, m)?)?;
    m.add_function(wrap_pyfunction!(pairs::dmodk_routes, m)?)?;
    m.add_function(wrap_pyfunction!(pairs::fluid_pair_table, m)?)?;
    m.add_function(wrap_pyfunction!(permutations::decompose_permutations, m)?)?;
    m.add_function(wrap_pyfunction!(orderings::open_shop_orders, m)?)?;
    m.add_function(wrap_pyfunction!(matching::matching_rounds, m)?)?;
    m.add_function(wrap_pyfunction!(liquid::liquid_search, m)?)?;
    m.add_function(wrap_pyfunction!(liquid::liquid_greedy, m)?)?;
    m.add_function(wrap_pyfunction!(liquid::liquid_first_fit, m)?)?;
    m.add_function(wrap_pyfunction!(coloring::weighted_edge_coloring, m)?)?;
    m.add_class::<maxflow::FlowNetwork>()?;
    m.add_function(wrap_pyfunction!(maxflow::pack_spanning_trees, m)?)?;
    m.add_function(wrap_pyfunction!(lowering::pattern_columns, m)?)?;
    m.add_function(wrap_pyfunction!(lowering::tree_messages, m)?)?;
    m.add_function(wrap_pyfunction!(lowering::number_values, m)?)?;
    mpi_fast::register(m)?;
    mpi_calls::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
