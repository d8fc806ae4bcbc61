//! Binding of `collsched_core::maxflow`: a flow network kept between maximum-flow questions.

use collsched_core::maxflow::{FlowError, FlowNetwork as Core, INF};
use pyo3::exceptions::{PyIndexError, PyValueError};
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
