//! Bindings of the host-pair routes and their Fluid table (`collsched_core::routing::tree_routes`,
//! `collsched_core::routing::dmodk_routes`, `collsched_core::compile::pair_table`).

use collsched_core::compile;
use collsched_core::routing;
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;

type I64s<'py> = Bound<'py, PyArray1<i64>>;

/// The routes of every ordered pair of `nodes` read off their trees (`parent`, `arc_in`: `len(nodes) x n_nodes`,
/// row-major): `(hop_ptr, arcs)` over pairs `a * len(nodes) + b`, or None if a pair has no route. The GIL is released.
#[pyfunction]
#[pyo3(signature = (parent, arc_in, n_nodes, nodes))]
pub fn tree_routes<'py>(
    py: Python<'py>,
    parent: PyReadonlyArray1<i64>,
    arc_in: PyReadonlyArray1<i64>,
    n_nodes: usize,
    nodes: PyReadonlyArray1<i64>,
) -> PyResult<Option<(I64s<'py>, I64s<'py>)>> {
    let (parent, arc_in, nodes) = (parent.as_slice()?, arc_in.as_slice()?, nodes.as_slice()?);
    let found = py.detach(|| routing::tree_routes(parent, arc_in, n_nodes, nodes));
    Ok(found.map(|(ptr, arcs)| (PyArray1::from_vec(py, ptr), PyArray1::from_vec(py, arcs))))
}

/// The d-mod-k routes of every ordered pair of hosts (see `collsched_core::routing::dmodk_routes`):
/// `(hop_ptr, arcs)` over pairs `a * len(up) + b`, or None if the arrays do not fit. The GIL is released.
#[pyfunction]
#[pyo3(signature = (up, down, leaf, spine, to_spine, from_spine, n_spines))]
#[allow(clippy::too_many_arguments)]
pub fn dmodk_routes<'py>(
    py: Python<'py>,
    up: PyReadonlyArray1<i64>,
    down: PyReadonlyArray1<i64>,
    leaf: PyReadonlyArray1<i64>,
    spine: PyReadonlyArray1<i64>,
    to_spine: PyReadonlyArray1<i64>,
    from_spine: PyReadonlyArray1<i64>,
    n_spines: usize,
) -> PyResult<Option<(I64s<'py>, I64s<'py>)>> {
    let (up, down, leaf, spine) = (up.as_slice()?, down.as_slice()?, leaf.as_slice()?, spine.as_slice()?);
    let (to_spine, from_spine) = (to_spine.as_slice()?, from_spine.as_slice()?);
    let found = py.detach(|| routing::dmodk_routes(up, down, leaf, spine, to_spine, from_spine, n_spines));
    Ok(found.map(|(ptr, arcs)| (PyArray1::from_vec(py, ptr), PyArray1::from_vec(py, arcs))))
}

/// The Fluid table of pairs from their routes (`hop_ptr`, `arcs`) and the links' `sharing` codes, latencies and
/// bandwidths: `(ptr, chan, latency, cap, busy_chan)`. Raises ValueError if the arrays do not fit. The GIL is released.
#[pyfunction]
#[pyo3(signature = (hop_ptr, arcs, sharing, latency, bandwidth))]
#[allow(clippy::type_complexity)]
pub fn fluid_pair_table<'py>(
    py: Python<'py>,
    hop_ptr: PyReadonlyArray1<i64>,
    arcs: PyReadonlyArray1<i64>,
    sharing: PyReadonlyArray1<i64>,
    latency: PyReadonlyArray1<f64>,
    bandwidth: PyReadonlyArray1<f64>,
) -> PyResult<(I64s<'py>, I64s<'py>, Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<f64>>, I64s<'py>)> {
    let (hop_ptr, arcs, sharing) = (hop_ptr.as_slice()?, arcs.as_slice()?, sharing.as_slice()?);
    let (latency, bandwidth) = (latency.as_slice()?, bandwidth.as_slice()?);
    let t = py
        .detach(|| compile::pair_table(hop_ptr, arcs, sharing, latency, bandwidth))
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    Ok((PyArray1::from_vec(py, t.ptr), PyArray1::from_vec(py, t.chan), PyArray1::from_vec(py, t.latency),
        PyArray1::from_vec(py, t.cap), PyArray1::from_vec(py, t.busy_chan)))
}
