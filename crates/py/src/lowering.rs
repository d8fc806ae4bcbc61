//! Conversion for the column-wise lowering: symbolic pieces (Python tuples) and a periodic pattern's transfers and
//! tasks read into int64 and float64 arrays, one pass, no Python object made per item; the pattern's values numbered
//! by first appearance; a hierarchical broadcast's message list (the builder's order and dependencies) from its
//! tree's arrays. The last two are loops over integers that numpy can only do in several passes (sorts), kept
//! here beside the readers they serve; `schedules/` keeps the numpy versions, which the tests compare them with.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::{PyKeyError, PyTypeError, PyValueError};
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

type TreeMessages<'py> = (
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    usize,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
);

/// CSR of `items` grouped by `key[item]` (keys `0 .. n_keys`), each group in increasing item order.
fn grouped(n_keys: usize, items: impl Iterator<Item = (usize, usize)> + Clone) -> (Vec<usize>, Vec<usize>) {
    let mut first = vec![0usize; n_keys + 1];
    for (key, _) in items.clone() {
        first[key + 1] += 1;
    }
    for k in 0..n_keys {
        first[k + 1] += first[k];
    }
    let mut at = first.clone();
    let mut out = vec![0usize; first[n_keys]];
    for (key, item) in items {
        out[at[key]] = item;
        at[key] += 1;
    }
    (first, out)
}

/// The messages of one hierarchical broadcast (seed 003) in the order ``schedules/trees.py``'s builder lowering
/// makes them, with each send's dependencies: what ``schedules/tree_columns.hierarchical_messages`` computes with
/// numpy, in one pass.
///
/// Nodes are numbered in preorder (the root 0, a node's children served by increasing number): per node its
/// ``parent`` (-1 for the root), ``cluster`` (>= 0), whether it is its cluster's ``coordinator`` and, for
/// coordinators, its cluster's ``segments``. Step 1: every coordinator, in order, sends the whole message
/// ``[0, denominator)`` to its children in other clusters; step 2: per coordinator, per segment, the cluster's
/// hosts in order forward the segment to their children in the cluster. A send waits for its rank's previous
/// send, the receive that brought it the whole message and the one that brought the piece it forwards (those
/// that exist). Returns ``(src, dst, start, end, n_whole, dep_ptr, dep_idx)``: per message its nodes and piece,
/// the number of step-1 messages, and the dependencies of the program's operations (message ``i`` is the send
/// ``2i`` and its receive ``2i + 1``, which waits for nothing) as CSR. Raises ValueError if the arrays' lengths
/// differ, a parent is not an earlier node, a cluster is negative or ``denominator`` is not positive.
#[pyfunction]
pub fn tree_messages<'py>(
    py: Python<'py>,
    parent: PyReadonlyArray1<'py, i64>,
    cluster: PyReadonlyArray1<'py, i64>,
    coordinator: PyReadonlyArray1<'py, bool>,
    segments: PyReadonlyArray1<'py, i64>,
    denominator: i64,
) -> PyResult<TreeMessages<'py>> {
    let (parent, cluster) = (parent.as_slice()?, cluster.as_slice()?);
    let (coordinator, segments) = (coordinator.as_slice()?, segments.as_slice()?);
    let n = parent.len();
    if cluster.len() != n || coordinator.len() != n || segments.len() != n {
        return Err(PyValueError::new_err("tree_messages: parent, cluster, coordinator and segments differ in length"));
    }
    if denominator < 1 {
        return Err(PyValueError::new_err(format!("tree_messages: denominator {denominator} is not positive")));
    }
    for (i, &p) in parent.iter().enumerate() {
        if (i == 0 && p != -1) || (i > 0 && (p < 0 || p as usize >= i)) {
            return Err(PyValueError::new_err(format!("tree_messages: node {i}'s parent {p} is not an earlier node")));
        }
    }
    if cluster.iter().any(|&c| c < 0) {
        return Err(PyValueError::new_err("tree_messages: a negative cluster number"));
    }
    let n_clusters = cluster.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
    let (kid_first, kids) = grouped(n, (1..n).map(|i| (parent[i] as usize, i)));
    let (member_first, members) = grouped(n_clusters, (0..n).map(|i| (cluster[i] as usize, i)));
    let d = denominator;
    let (mut src, mut dst, mut start, mut end) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut dep_ptr, mut dep_idx) = (vec![0i64], Vec::new());
    let mut last_send = vec![-1i64; n];
    let mut made: HashMap<(usize, i64, i64), i64> = HashMap::new(); // (node, start, end) -> the receive bringing it
    let mut send = |x: usize, c: usize, a: i64, e: i64| {
        let op = 2 * src.len() as i64;
        let mut before = [last_send[x], *made.get(&(x, 0, d)).unwrap_or(&-1), *made.get(&(x, a, e)).unwrap_or(&-1)];
        before.sort_unstable();
        let mut previous = -1;
        for id in before {
            if id > previous {
                dep_idx.push(id);
                previous = id;
            }
        }
        dep_ptr.push(dep_idx.len() as i64);
        dep_ptr.push(dep_idx.len() as i64);
        src.push(x as i64);
        dst.push(c as i64);
        start.push(a);
        end.push(e);
        last_send[x] = op;
        made.insert((c, a, e), op + 1);
    };
    // step 1: the inter-cluster tree, whole messages, each coordinator serving its children in order
    let mut n_whole = 0;
    for u in (0..n).filter(|&u| coordinator[u]) {
        for &c in &kids[kid_first[u]..kid_first[u + 1]] {
            if cluster[c] != cluster[u] {
                send(u, c, 0, d);
                n_whole += 1;
            }
        }
    }
    // step 2: inside each cluster (its hosts in preorder), segment after segment
    for u in (0..n).filter(|&u| coordinator[u]) {
        let k = segments[u];
        let g = cluster[u] as usize;
        for seg in 0..k.max(0) {
            let (a, e) = (d * seg / k, d * (seg + 1) / k);
            for &x in &members[member_first[g]..member_first[g + 1]] {
                for &c in &kids[kid_first[x]..kid_first[x + 1]] {
                    if cluster[c] == cluster[x] {
                        send(x, c, a, e);
                    }
                }
            }
        }
    }
    drop(send);
    Ok((
        PyArray1::from_vec(py, src),
        PyArray1::from_vec(py, dst),
        PyArray1::from_vec(py, start),
        PyArray1::from_vec(py, end),
        n_whole,
        PyArray1::from_vec(py, dep_ptr),
        PyArray1::from_vec(py, dep_idx),
    ))
}

/// A multiply-and-rotate hash of integers (rustc's FxHash): the default SipHash took 11 ms for the 268,800 pieces of
/// `bench_lowering.py`'s steady-state all-reduce; the keys are the program's own, not an adversary's.
#[derive(Default)]
struct Multiply(u64);

impl Hasher for Multiply {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_i64(&mut self, x: i64) {
        self.write_u64(x as u64);
    }
}

/// Values numbered in order of first appearance: per row ``i`` of the columns ``(kind[i], a[i], b[i])`` its value's
/// number, and per number the row where it first appears. What ``schedules/periodic_columns._first_of_each`` and a
/// stable sort of its first rows compute, in one pass (a hash map). Raises ValueError if the columns' lengths differ.
#[pyfunction]
pub fn number_values<'py>(
    py: Python<'py>,
    kind: PyReadonlyArray1<'py, i64>,
    a: PyReadonlyArray1<'py, i64>,
    b: PyReadonlyArray1<'py, i64>,
) -> PyResult<(Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>)> {
    let (kind, a, b) = (kind.as_slice()?, a.as_slice()?, b.as_slice()?);
    if a.len() != kind.len() || b.len() != kind.len() {
        return Err(PyValueError::new_err("number_values: kind, a and b differ in length"));
    }
    let mut number: HashMap<(i64, i64, i64), i64, BuildHasherDefault<Multiply>> =
        HashMap::with_capacity_and_hasher(kind.len() / 4 + 1, BuildHasherDefault::default());
    let (mut vid, mut first) = (Vec::with_capacity(kind.len()), Vec::new());
    for i in 0..kind.len() {
        let next = first.len() as i64;
        let id = *number.entry((kind[i], a[i], b[i])).or_insert(next);
        if id == next {
            first.push(i as i64);
        }
        vid.push(id);
    }
    Ok((PyArray1::from_vec(py, vid), PyArray1::from_vec(py, first)))
}
