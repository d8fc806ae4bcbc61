//! Binding of `collsched_core::orderings`: the open-shop list schedule (seed 004, Bhat et al.).

use collsched_core::orderings::{open_shop_orders as core, Error};
use numpy::{PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Open-shop list schedule of an S x R exchange: (per-sender receiver orders, planned makespan).
///
/// Ties between senders free at the same time go to the lowest `prio`. Raises ValueError on bad shapes.
#[pyfunction]
pub fn open_shop_orders(
    py: Python<'_>,
    cost: PyReadonlyArray2<f64>,
    mask: PyReadonlyArray2<bool>,
    prio: PyReadonlyArray1<i64>,
) -> PyResult<(Vec<Vec<usize>>, f64)> {
    let shape = cost.shape();
    let (s, r) = (shape[0], shape[1]);
    let cost = cost.as_slice()?.to_vec();
    let mask = mask.as_slice()?.to_vec();
    let prio: Vec<u64> = prio.as_slice()?.iter().map(|&p| p.max(0) as u64).collect();
    py.detach(|| core(s, r, &cost, &mask, &prio)).map_err(|e| match e {
        Error::Shape(what) => PyValueError::new_err(what),
    })
}
