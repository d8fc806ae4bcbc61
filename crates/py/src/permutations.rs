//! Binding of `collsched_core::permutations`: the partial-permutation decompositions (seed 002).

use collsched_core::permutations::{decompose, Error, Options};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

fn usizes(a: &PyReadonlyArray1<i64>, what: &str) -> PyResult<Vec<usize>> {
    a.as_slice()?
        .iter()
        .map(|&v| usize::try_from(v).map_err(|_| PyValueError::new_err(format!("{what} has a negative entry"))))
        .collect()
}

/// Decompose a row-wise COM matrix into partial permutations.
///
/// Returns (msg, phase, start, end): piece p sends units start..end (of the denominator)
/// of message msg[p] in phase phase[p]. Raises ValueError on inconsistent arrays.
#[pyfunction]
#[pyo3(signature = (n, row_ptr, dst, size, path_ptr, path, n_resources, *, pairs, links, heap_k=None, denominator=1, seed=0))]
#[allow(clippy::too_many_arguments)]
pub fn decompose_permutations<'py>(
    py: Python<'py>,
    n: usize,
    row_ptr: PyReadonlyArray1<i64>,
    dst: PyReadonlyArray1<i64>,
    size: PyReadonlyArray1<f64>,
    path_ptr: PyReadonlyArray1<i64>,
    path: PyReadonlyArray1<i64>,
    n_resources: usize,
    pairs: bool,
    links: bool,
    heap_k: Option<usize>,
    denominator: u64,
    seed: u64,
) -> PyResult<(Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>)> {
    let (row_ptr, dst, path_ptr, path) =
        (usizes(&row_ptr, "row_ptr")?, usizes(&dst, "dst")?, usizes(&path_ptr, "path_ptr")?, usizes(&path, "path")?);
    let size = size.as_slice()?.to_vec();
    let opts = Options { pairs, links, heap_k, denominator, seed };
    let out = py
        .detach(|| decompose(n, &row_ptr, &dst, &size, &path_ptr, &path, n_resources, &opts))
        .map_err(|e| match e {
            Error::Shape(what) => PyValueError::new_err(what),
            Error::Stuck { phase } => PyValueError::new_err(format!("phase {phase} placed no message")),
        })?;
    let ints = |v: Vec<usize>| PyArray1::from_vec(py, v.into_iter().map(|x| x as i64).collect());
    let units = |v: Vec<u64>| PyArray1::from_vec(py, v.into_iter().map(|x| x as i64).collect());
    Ok((ints(out.msg), ints(out.phase), units(out.start), units(out.end)))
}
