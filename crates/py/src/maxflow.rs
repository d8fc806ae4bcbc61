//! Binding of `collsched_core::maxflow` (a flow network kept between maximum-flow questions) and of
//! `collsched_core::arborescence` (spanning out-trees packed with it).

use collsched_core::arborescence::{self, PackError};
use collsched_core::maxflow::{FlowError, FlowNetwork as Core, INF};
use pyo3::exceptions::{PyIndexError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

fn err(e: FlowError) -> PyErr {
    match e {
        FlowError::BadNode(_) | FlowError::BadArc(_) => PyIndexError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// A digraph with integer capacities (Dinic's maximum flow, i128); `INFINITE` marks an unbounded arc.
#[pyclass(module = "collsched._core")]
pub struct FlowNetwork {
    inner: Core,
}

#[pymethods]
impl FlowNetwork {
    #[classattr]
    const INFINITE: i128 = INF;

    #[new]
    fn new(n: usize) -> Self {
        FlowNetwork { inner: Core::new(n) }
    }

    #[getter]
    fn n_nodes(&self) -> usize {
        self.inner.n_nodes()
    }

    #[getter]
    fn n_arcs(&self) -> usize {
        self.inner.n_arcs()
    }

    fn add_node(&mut self) -> usize {
        self.inner.add_node()
    }

    fn add_arc(&mut self, u: usize, v: usize, cap: i128) -> PyResult<usize> {
        self.inner.add_arc(u, v, cap).map_err(err)
    }

    fn set_capacity(&mut self, arc: usize, cap: i128) -> PyResult<()> {
        self.inner.set_capacity(arc, cap).map_err(err)
    }

    fn capacity(&self, arc: usize) -> PyResult<i128> {
        self.inner.capacity(arc).map_err(err)
    }

    /// Maximum flow from the node set `sources` to the node set `sinks`, stopped at `limit` if given.
    #[pyo3(signature = (sources, sinks, limit=None))]
    fn max_flow(&mut self, py: Python<'_>, sources: Vec<usize>, sinks: Vec<usize>, limit: Option<i128>) -> PyResult<i128> {
        py.detach(|| self.inner.max_flow(&sources, &sinks, limit)).map_err(err)
    }

    /// The smallest of the maximum flows of `queries` [(sources, sinks), ...] and the first index attaining it.
    #[pyo3(signature = (queries, limit=None))]
    fn min_max_flow(&mut self, py: Python<'_>, queries: Vec<(Vec<usize>, Vec<usize>)>, limit: Option<i128>) -> PyResult<(i128, usize)> {
        py.detach(|| self.inner.min_max_flow(&queries, limit)).map_err(err)
    }

    /// The flow on every arc after the last max_flow.
    fn arc_flows(&self) -> Vec<i128> {
        self.inner.arc_flows()
    }

    /// Nodes reachable from the sources in the residual network of the last flow.
    fn source_side(&self) -> Vec<usize> {
        self.inner.source_side().iter().enumerate().filter(|(_, &x)| x).map(|(v, _)| v).collect()
    }
}

fn pack_err(e: PackError) -> PyErr {
    match e {
        PackError::Flow(e) => err(e),
        PackError::Duplicate(..) => PyValueError::new_err(e.to_string()),
        PackError::Stuck { .. } => PyRuntimeError::new_err(e.to_string()),
    }
}

/// Spanning out-trees on nodes 0..n, of total weight `rate` per root, within `capacity` [((u, v), c), ...].
///
/// Returns [(root, weight, [(parent, child), ...]), ...]; RuntimeError with the core's line when no packing
/// exists (Edmonds' condition fails), IndexError for a node >= n, ValueError for a capacity or rate out of range
/// or an arc given twice.
#[pyfunction]
pub fn pack_spanning_trees(py: Python<'_>, n: usize, capacity: Vec<((usize, usize), i128)>, rate: i128)
                           -> PyResult<Vec<(usize, i128, Vec<(usize, usize)>)>> {
    let trees = py.detach(|| arborescence::pack_spanning_trees(n, &capacity, rate)).map_err(pack_err)?;
    Ok(trees.into_iter().map(|t| (t.root, t.weight, t.arcs)).collect())
}
