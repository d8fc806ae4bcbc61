//! Binding of `collsched_core::matching`: rounds of maximum-weight matchings (seed 004, Bhat et al.).

use collsched_core::matching::{matching_rounds as core, Error};
use numpy::{PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Rounds of maximum-weight matchings of an S x R exchange: per round, its (sender, receiver) pairs in sender order.
///
/// Raises ValueError on bad shapes or a weight that is not finite.
#[pyfunction]
pub fn matching_rounds(
    py: Python<'_>,
    cost: PyReadonlyArray2<f64>,
    mask: PyReadonlyArray2<bool>,
) -> PyResult<Vec<Vec<(usize, usize)>>> {
    let shape = cost.shape();
    let (s, r) = (shape[0], shape[1]);
    let cost = cost.as_slice()?.to_vec();
    let mask = mask.as_slice()?.to_vec();
    py.detach(|| core(s, r, &cost, &mask)).map_err(|e| match e {
        Error::Shape(what) => PyValueError::new_err(what),
        Error::Stalled => pyo3::exceptions::PyRuntimeError::new_err(
            "matching_rounds: a round sent no message although some were left (a bug: please report it)",
        ),
        Error::NotFinite => PyValueError::new_err("matching costs must be finite (no NaN or infinity)"),
    })
}
