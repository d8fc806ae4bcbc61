//! Binding of `collsched_core::liquid`: the liquid-schedule search and the greedy heuristic (seed 001).

use collsched_core::liquid::{first_fit, greedy, search, Outcome};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

fn check(routes: &[Vec<usize>], n_resources: usize) -> PyResult<()> {
    match routes.iter().flatten().find(|&&r| r >= n_resources) {
        Some(r) => Err(PyValueError::new_err(format!("route resource {r} is not below n_resources = {n_resources}"))),
        None => Ok(()),
    }
}

/// Search a schedule of exactly `length` steps; returns (code, steps, nodes),
/// code 0 found, 1 infeasible (proved), 2 budget exhausted.
#[pyfunction]
#[pyo3(signature = (routes, n_resources, length, budget, symmetry=true))]
pub fn liquid_search(
    py: Python<'_>,
    routes: Vec<Vec<usize>>,
    n_resources: usize,
    length: usize,
    budget: u64,
    symmetry: bool,
) -> PyResult<(u8, Vec<Vec<usize>>, u64)> {
    check(&routes, n_resources)?;
    let (out, nodes) = py.detach(|| search(&routes, n_resources, length, budget, symmetry));
    Ok(match out {
        Outcome::Found(steps) => (0, steps, nodes),
        Outcome::Infeasible => (1, vec![], nodes),
        Outcome::Limit => (2, vec![], nodes),
    })
}

/// Greedy steps, most loaded resources first.
#[pyfunction]
pub fn liquid_greedy(py: Python<'_>, routes: Vec<Vec<usize>>, n_resources: usize) -> PyResult<Vec<Vec<usize>>> {
    check(&routes, n_resources)?;
    Ok(py.detach(|| greedy(&routes, n_resources)))
}

/// First-fit steps: transfers in `order`, each in its `home` step if free, else the first step with room.
#[pyfunction]
pub fn liquid_first_fit(
    py: Python<'_>,
    routes: Vec<Vec<usize>>,
    n_resources: usize,
    order: Vec<usize>,
    home: Vec<usize>,
) -> PyResult<Vec<Vec<usize>>> {
    check(&routes, n_resources)?;
    let n = routes.len();
    let mut seen = vec![false; n];
    if order.len() != n || home.len() != n || order.iter().any(|&i| i >= n || std::mem::replace(&mut seen[i], true)) {
        return Err(PyValueError::new_err(format!("order must be a permutation of 0..{n} and home have {n} entries")));
    }
    Ok(py.detach(|| first_fit(&routes, n_resources, &order, &home)))
}
