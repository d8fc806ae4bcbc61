//! Conversion for the column-wise lowering: symbolic pieces (Python tuples) and a periodic pattern's transfers and
//! tasks read into int64 and float64 arrays, one pass, no Python object made per item.

use numpy::PyArray1;
use pyo3::exceptions::{PyKeyError, PyTypeError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

fn ints(t: &Bound<'_, PyTuple>, out: &mut Vec<i64>) -> PyResult<()> {
    for x in t.iter() {
        out.push(x.extract::<i64>()?);
    }
    Ok(())
}

/// Appends the row ``(kind, inst, a, b, start, end)`` of a Piece ``(value, start, end)`` or a whole Value.
fn push_row(item: &Bound<'_, PyAny>, denominator: i64, out: &mut Vec<i64>) -> PyResult<()> {
    let t = item.cast::<PyTuple>().map_err(|_| PyTypeError::new_err("a piece row: neither a Piece nor a Value"))?;
    match t.len() {
        3 => {
            let value = t.get_item(0)?;
            let v = value.cast::<PyTuple>().map_err(|_| PyTypeError::new_err("a piece whose value is not a tuple"))?;
            if v.len() != 4 {
                return Err(PyTypeError::new_err("a piece whose value has not 4 fields"));
            }
            ints(v, out)?;
            out.push(t.get_item(1)?.extract::<i64>()?);
            out.push(t.get_item(2)?.extract::<i64>()?);
        }
        4 => {
            ints(t, out)?;
            out.push(0);
            out.push(denominator);
        }
        _ => return Err(PyTypeError::new_err("a piece row: neither a Piece nor a Value")),
    }
    Ok(())
}

fn rank_of(index: &Bound<'_, PyDict>, node: &Bound<'_, PyAny>) -> PyResult<i64> {
    match index.get_item(node)? {
        Some(i) => i.extract::<i64>(),
        None => Err(PyKeyError::new_err(node.clone().unbind())),
    }
}

type Columns<'py> = (
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<i64>>,
);

/// A periodic pattern's transfers and tasks as columns.
///
/// Returns ``(tr_src, tr_dst, tr_count, tk_node, tk_count, tk_cost, rows)``: per transfer (``src``, ``dst``,
/// ``pieces``) its ranks (``index[name]``) and number of pieces; per task (``node``, ``inputs``, ``output``,
/// ``cost``) its rank, number of pieces (inputs and output) and ``float(cost)``; ``rows`` the pieces'
/// rows ``(kind, inst, a, b, start, end)`` (a whole Value: ``start = 0``, ``end = denominator``), every transfer's then every task's (inputs, then output).
/// Raises KeyError for a node not in ``index``, OverflowError when an integer does not fit 64 bits (a mask of
/// more than 63 operands) and TypeError for a piece of another shape.
#[pyfunction]
pub fn pattern_columns<'py>(
    py: Python<'py>,
    transfers: &Bound<'py, PyList>,
    tasks: &Bound<'py, PyList>,
    index: &Bound<'py, PyDict>,
    denominator: i64,
) -> PyResult<Columns<'py>> {
    let (n_tr, n_tk) = (transfers.len(), tasks.len());
    let (mut src, mut dst, mut count) = (Vec::with_capacity(n_tr), Vec::with_capacity(n_tr), Vec::with_capacity(n_tr));
    let (mut node, mut tk_count, mut cost) = (Vec::with_capacity(n_tk), Vec::with_capacity(n_tk), Vec::with_capacity(n_tk));
    let mut rows: Vec<i64> = Vec::with_capacity(6 * (2 * n_tr + 3 * n_tk));
    for t in transfers.iter() {
        src.push(rank_of(index, &t.getattr(intern!(py, "src"))?)?);
        dst.push(rank_of(index, &t.getattr(intern!(py, "dst"))?)?);
        let pieces = t.getattr(intern!(py, "pieces"))?;
        let pieces = pieces.cast::<PyTuple>().map_err(|_| PyTypeError::new_err("a transfer's pieces: not a tuple"))?;
        count.push(pieces.len() as i64);
        for p in pieces.iter() {
            push_row(&p, denominator, &mut rows)?;
        }
    }
    for t in tasks.iter() {
        node.push(rank_of(index, &t.getattr(intern!(py, "node"))?)?);
        cost.push(t.getattr(intern!(py, "cost"))?.extract::<f64>()?);
        let inputs = t.getattr(intern!(py, "inputs"))?;
        let inputs = inputs.cast::<PyTuple>().map_err(|_| PyTypeError::new_err("a task's inputs: not a tuple"))?;
        tk_count.push(inputs.len() as i64 + 1);
        for p in inputs.iter() {
            push_row(&p, denominator, &mut rows)?;
        }
        push_row(&t.getattr(intern!(py, "output"))?, denominator, &mut rows)?;
    }
    Ok((
        PyArray1::from_vec(py, src),
        PyArray1::from_vec(py, dst),
        PyArray1::from_vec(py, count),
        PyArray1::from_vec(py, node),
        PyArray1::from_vec(py, tk_count),
        PyArray1::from_vec(py, cost),
        PyArray1::from_vec(py, rows),
    ))
}
