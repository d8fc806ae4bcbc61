//! Binding of `collsched_core::coloring`: weighted bipartite edge colouring (seed 000's matchings).

use collsched_core::coloring::{weighted_edge_coloring as core, ColoringError};
use pyo3::exceptions::{PyOverflowError, PyValueError};
use pyo3::prelude::*;

/// Split a weighted bipartite multigraph into matchings: a list of (duration, edge indices).
///
/// Raises ValueError on bad shapes and OverflowError when weight sums exceed 64 bits.
#[pyfunction]
pub fn weighted_edge_coloring(
    py: Python<'_>,
    src: Vec<usize>,
    dst: Vec<usize>,
    weight: Vec<u64>,
    n_left: usize,
    n_right: usize,
) -> PyResult<Vec<(u64, Vec<usize>)>> {
    py.detach(|| core(&src, &dst, &weight, n_left, n_right)).map_err(|e| match e {
        ColoringError::Shape(what) => PyValueError::new_err(what),
        ColoringError::Overflow => PyOverflowError::new_err("colouring weights overflow 64 bits"),
    })
}
