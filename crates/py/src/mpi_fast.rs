//! collsched.mpi's fast path, compiled: a call on plain arrays whose route is known runs MPI's own collective
//! from here, with no Python of collsched's per call.
//!
//! `python/collsched/mpi/calls.py` decides every route in Python (`own`: no `plans=`, or no plan fits, or the
//! plan says MPI's own is as fast; the `FallbackWarning` said once) and tells this module what it found
//! (`_MpiRoutes.learn`). A later call of the same shape (the same communicator, `plans=` object, kind, root,
//! size and, for a reduction with `plans=`, whether the operator commutes) is answered here: each method of
//! `_MpiFast` checks the arguments exactly as `python/collsched/mpi/api.py`'s fast path does (exact numpy
//! arrays, C-contiguous, no object dtype, sizes and dtypes that fit, an `int` root in range, an `MPI.Op`), sets
//! `last_run()`'s answer and calls mpi4py's method on the private communicator with the arguments
//! that path gives it, and returns `true`. In every other case it does nothing and returns `false`: the compiled
//! call (`mpi_calls.rs`) then calls the Python one, which raises, warns, adapts or runs the plan. Nothing here decides a route, and
//! nothing links MPI: the collective is mpi4py's own method, called back.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::cell::{RefCell, RefMut};

use numpy::npyffi::array::PyArray_CheckExact;
use numpy::{PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::ffi;
use pyo3::types::{PyInt, PyList, PyTuple};

/// `method(comm, *args)` (two to four arguments after the communicator), its result dropped; `method` is
/// mpi4py's function of the communicator's class (`type(comm).Bcast`): called with the communicator first, it
/// runs as the bound method `comm.Bcast` does, without the bound method's own call layer (about 90 instructions).
///
/// By `PyObject_CallFunctionObjArgs`, of the limited API of every Python this abi3 extension loads in (3.11 and
/// later), which passes the arguments on the C stack (CPython calls the function by vectorcall, with no tuple);
/// `PyObject_Vectorcall` is in the limited API only from 3.12.
fn run(method: &Bound<'_, PyAny>, comm: &Py<PyAny>, args: &[&Bound<'_, PyAny>]) -> PyResult<()> {
    let py = method.py();
    let (m, c, a) = (method.as_ptr(), comm.as_ptr(), |k: usize| args[k].as_ptr());
    let end = std::ptr::null_mut::<ffi::PyObject>();
    // SAFETY: live objects borrowed for the call, the list of arguments ended by NULL as the function requires.
    let result = unsafe {
        match args.len() {
            2 => ffi::PyObject_CallFunctionObjArgs(m, c, a(0), a(1), end),
            3 => ffi::PyObject_CallFunctionObjArgs(m, c, a(0), a(1), a(2), end),
            4 => ffi::PyObject_CallFunctionObjArgs(m, c, a(0), a(1), a(2), a(3), end),
            n => unreachable!("no collective takes {n} arguments"),
        }
    };
    if result.is_null() {
        return Err(PyErr::fetch(py));
    }
    // SAFETY: a new reference, owned here.
    drop(unsafe { Bound::from_owned_ptr(py, result) });
    Ok(())
}

/// A value read and written only while attached to the Python interpreter (the `py` token proves it), so with no
/// atomic operation: an uncontended `Mutex` costs two, about as much as the rest of a fast call's checks. Sound
/// because this extension is built for the limited API (abi3), which free-threaded Pythons do not load: one
/// thread at a time is attached, and no borrow is held across a call into Python (each ends before it).
struct Attached<T>(RefCell<T>);

// SAFETY: see above: every access holds the interpreter, which one thread at a time can.
unsafe impl<T: Send> Sync for Attached<T> {}

impl<T> Attached<T> {
    fn new(value: T) -> Self {
        Attached(RefCell::new(value))
    }
    fn get<'a>(&'a self, _py: Python<'_>) -> RefMut<'a, T> {
        self.0.borrow_mut()
    }
}

/// A tuple of arguments for mpi4py (`(buf, MPI.BYTE)`; alltoallv's `(buf, counts, displs, datatype)`), taken
/// from its communicator's spare ones when one is there and given back when dropped, its items but the last (a
/// datatype of collsched's) reset to None: no tuple is made or freed per call (about 100 instructions each), and
/// none keeps a user's object alive after the call. A tuple someone else still holds is let go instead.
struct Spare<'a, 'py> {
    tuple: Bound<'py, PyAny>,
    spares: &'a Attached<Vec<Py<PyAny>>>,
}

impl<'a, 'py> Spare<'a, 'py> {
    /// At most this many spare tuples kept per communicator and size of tuple.
    const KEPT: usize = 4;

    fn new(spares: &'a Attached<Vec<Py<PyAny>>>, items: &[&Bound<'py, PyAny>]) -> PyResult<Self> {
        let py = items[0].py();
        let kept = spares.get(py).pop();
        let tuple = match kept {
            Some(tuple) => tuple.into_bound(py),
            None => PyTuple::new(py, items.iter().map(|_| py.None()))?.into_any(),
        };
        for (k, item) in items.iter().enumerate() {
            // SAFETY: the tuple is held here alone (made here, or a spare no one else holds: refcount 1), as
            // `PyTuple_SetItem` requires; it takes the new reference and releases the item it replaces.
            if unsafe { ffi::PyTuple_SetItem(tuple.as_ptr(), k as ffi::Py_ssize_t, Bound::clone(item).into_ptr()) } != 0 {
                return Err(PyErr::fetch(py));
            }
        }
        Ok(Spare { tuple, spares })
    }
}

impl<'py> std::ops::Deref for Spare<'_, 'py> {
    type Target = Bound<'py, PyAny>;
    fn deref(&self) -> &Bound<'py, PyAny> {
        &self.tuple
    }
}

impl Drop for Spare<'_, '_> {
    fn drop(&mut self) {
        let (py, t) = (self.tuple.py(), self.tuple.as_ptr());
        // SAFETY: a live tuple; reset only while held here alone, as `PyTuple_SetItem` requires.
        unsafe {
            if ffi::Py_REFCNT(t) != 1 {
                return;
            }
            for k in 0..ffi::PyTuple_Size(t) - 1 {
                ffi::PyTuple_SetItem(t, k, py.None().into_ptr());
            }
        }
        let mut spares = self.spares.get(py);
        if spares.len() < Self::KEPT {
            spares.push(self.tuple.clone().unbind());
        }
    }
}

/// collsched's names of the kinds, in the order of [`METHODS`].
pub(crate) const KINDS: [&str; 8] =
    ["broadcast", "scatter", "gather", "allgather", "alltoall", "reduce", "allreduce", "alltoallv"];
/// mpi4py's method of each kind.
const METHODS: [&str; 8] = ["Bcast", "Scatter", "Gather", "Allgather", "Alltoall", "Reduce", "Allreduce", "Alltoallv"];
pub(crate) const BCAST: usize = 0;
pub(crate) const SCATTER: usize = 1;
pub(crate) const GATHER: usize = 2;
pub(crate) const ALLGATHER: usize = 3;
pub(crate) const ALLTOALL: usize = 4;
pub(crate) const REDUCE: usize = 5;
pub(crate) const ALLREDUCE: usize = 6;
pub(crate) const ALLTOALLV: usize = 7;
/// MPI's predefined reduction operators, by their names in mpi4py.
const PREDEFINED: [&str; 12] =
    ["SUM", "PROD", "MAX", "MIN", "LAND", "BAND", "LOR", "BOR", "LXOR", "BXOR", "MAXLOC", "MINLOC"];
/// At most this many routes kept per communicator (then forgotten, and learned again), as `calls._ROUTES`.
const ROUTES: usize = 4096;

/// A multiplicative hash for the few integers of a [`Key`] (SipHash's resistance is not needed here).
#[derive(Default)]
struct Mix(u64);

impl Hasher for Mix {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
}

/// A call's shape: the `plans=` object (by identity: the route keeps it alive), kind, root (-1: none), size.
#[derive(Hash, PartialEq, Eq, Clone, Copy)]
struct Key {
    plans: usize,
    kind: usize,
    root: i64,
    size: u64,
    commutes: bool,
}

impl Key {
    fn of(plans: &Bound<'_, PyAny>, kind: usize, root: i64, size: u64, commutes: bool) -> Key {
        Key { plans: plans.as_ptr() as usize, kind, root, size, commutes }
    }
}

struct Route {
    run: Py<PyAny>,
    _plans: Py<PyAny>,
}

/// One private communicator's collectives (mpi4py's bound methods) and the routes learned on it.
#[pyclass(module = "collsched._core", name = "_MpiRoutes", frozen)]
pub struct MpiRoutes {
    rank: i64,
    size: i64,
    byte: Py<PyAny>,
    op_type: Py<PyAny>,
    sum: Py<PyAny>,
    /// mpi4py's predefined operators and whether each commutes (asked once: they cannot be freed).
    predefined: Vec<(Py<PyAny>, bool)>,
    /// The private communicator, and mpi4py's functions of its class (`type(comm).Bcast`, ...), by kind.
    comm: Py<PyAny>,
    methods: Vec<Py<PyAny>>,
    routes: Attached<HashMap<Key, Route, BuildHasherDefault<Mix>>>,
    /// The route of the latest call answered here (its key and `last_run()`), looked up again without a hash.
    latest: Attached<Option<(Key, Py<PyAny>)>>,
    /// Spare argument tuples of two and of four items ([`Spare`]).
    pairs: Attached<Vec<Py<PyAny>>>,
    quads: Attached<Vec<Py<PyAny>>>,
    /// itemsize -> a committed contiguous datatype of that many bytes (alltoallv counts in elements).
    elements: Attached<HashMap<usize, Py<PyAny>>>,
}

#[pymethods]
impl MpiRoutes {
    /// The routes of the private communicator `comm`; `mpi` is mpi4py's `MPI` module.
    #[new]
    fn new(comm: &Bound<'_, PyAny>, mpi: &Bound<'_, PyAny>) -> PyResult<Self> {
        let class = comm.get_type();
        let methods = METHODS.iter().map(|name| class.getattr(*name).map(Bound::unbind)).collect::<PyResult<_>>()?;
        Ok(MpiRoutes {
            rank: comm.call_method0("Get_rank")?.extract()?,
            size: comm.call_method0("Get_size")?.extract()?,
            byte: mpi.getattr("BYTE")?.unbind(),
            op_type: mpi.getattr("Op")?.unbind(),
            sum: mpi.getattr("SUM")?.unbind(),
            predefined: PREDEFINED
                .iter()
                .map(|name| {
                    let op = mpi.getattr(*name)?;
                    let commutes = op.call_method0("Is_commutative")?.is_truthy()?;
                    Ok((op.unbind(), commutes))
                })
                .collect::<PyResult<_>>()?,
            comm: comm.clone().unbind(),
            methods,
            routes: Attached::new(HashMap::default()),
            latest: Attached::new(None),
            pairs: Attached::new(Vec::new()),
            quads: Attached::new(Vec::new()),
            elements: Attached::new(HashMap::new()),
        })
    }

    /// Keep a route found by `calls.own`: a call of this shape runs MPI's own at once, `run` its `last_run()`.
    #[pyo3(signature = (plans, kind, root, size, commutes, run))]
    fn learn(&self, plans: &Bound<'_, PyAny>, kind: &str, root: Option<i64>, size: u64, commutes: bool,
             run: &Bound<'_, PyAny>) -> PyResult<()> {
        let Some(kind) = KINDS.iter().position(|k| *k == kind) else {
            return Err(pyo3::exceptions::PyValueError::new_err(format!("no fast path for a {kind}")));
        };
        let key = Key::of(plans, kind, root.unwrap_or(-1), size, commutes);
        let route = Route { run: run.clone().unbind(), _plans: plans.clone().unbind() };
        let stale = self.latest.get(run.py()).take();
        let mut routes = self.routes.get(run.py());
        let forgotten = if routes.len() >= ROUTES { std::mem::take(&mut *routes) } else { HashMap::default() };
        let replaced = routes.insert(key, route);
        drop(routes); // before the forgotten objects are released (which may run Python)
        drop((forgotten, replaced, stale));
        Ok(())
    }

    /// Keep the datatype of one element of `itemsize` bytes (committed; freed by the caller with the communicator).
    fn learn_element(&self, itemsize: usize, datatype: &Bound<'_, PyAny>) {
        let replaced = self.elements.get(datatype.py()).insert(itemsize, datatype.clone().unbind());
        drop(replaced); // after the borrow
    }

    /// The number of routes kept.
    fn __len__(&self, py: Python<'_>) -> usize {
        self.routes.get(py).len()
    }
}

/// The communicator of the latest collsched.mpi call and its routes; one per process (`calls._FAST`).
#[pyclass(module = "collsched._core", name = "_MpiFast", frozen)]
pub struct MpiFast {
    last: Py<PyList>,
    recent: Attached<Option<(Py<PyAny>, Py<MpiRoutes>)>>,
}

/// `a` if it is an exact numpy array, C-contiguous.
fn plain<'a, 'py>(a: &'a Bound<'py, PyAny>) -> Option<&'a Bound<'py, PyUntypedArray>> {
    // SAFETY: the pointer is a live object; the check reads its type only.
    if unsafe { PyArray_CheckExact(a.py(), a.as_ptr()) } == 0 {
        return None;
    }
    // SAFETY: an exact numpy array, checked above.
    let a = unsafe { a.cast_unchecked::<PyUntypedArray>() };
    a.is_c_contiguous().then_some(a)
}

/// `a` if MPI can move it as bytes: [`plain`], of values, not of references.
fn bytes<'a, 'py>(a: &'a Bound<'py, PyAny>) -> Option<&'a Bound<'py, PyUntypedArray>> {
    plain(a).filter(|a| !a.dtype().has_object())
}

/// `a` and `b` have the same dtype object (`a.dtype is b.dtype`), read without a new reference to either.
fn same_dtype(a: &Bound<'_, PyUntypedArray>, b: &Bound<'_, PyUntypedArray>) -> bool {
    // SAFETY: both are live numpy arrays; their `descr` fields are read only.
    unsafe { (*a.as_array_ptr()).fields.descr == (*b.as_array_ptr()).fields.descr }
}

fn nbytes(a: &Bound<'_, PyUntypedArray>) -> u64 {
    (a.len() * a.dtype().itemsize()) as u64
}

/// `whole` is a plain array of `n` blocks like `block` (`api._blocks_of`).
fn blocks_of(whole: &Bound<'_, PyAny>, block: &Bound<'_, PyUntypedArray>, n: i64) -> bool {
    plain(whole).is_some_and(|w| same_dtype(w, block) && nbytes(w) == n as u64 * nbytes(block))
}

/// `recv` is a plain array shaped like `send`, of its dtype (`api._like`).
fn like(recv: &Bound<'_, PyAny>, send: &Bound<'_, PyUntypedArray>) -> bool {
    plain(recv).is_some_and(|r| same_dtype(r, send) && r.shape() == send.shape())
}

/// `root` if it is an `int` (not a bool) and a rank of a communicator of `n`.
fn rank_of(root: &Bound<'_, PyAny>, n: i64) -> Option<i64> {
    if !root.is_exact_instance_of::<PyInt>() {
        return None;
    }
    root.extract::<i64>().ok().filter(|r| (0..n).contains(r))
}

/// The length of `seq` if it is a list or a tuple.
fn length(seq: &Bound<'_, PyAny>) -> Option<usize> {
    match seq.cast::<PyList>() {
        Ok(list) => Some(list.len()),
        Err(_) => seq.cast::<PyTuple>().ok().map(|t| t.len()),
    }
}

/// Item `k` of the list or tuple `seq` if it is an `int` (not a bool) that fits an `i64`.
fn int_at(seq: &Bound<'_, PyAny>, k: usize) -> Option<i64> {
    let item = match seq.cast::<PyList>() {
        Ok(list) => list.get_item(k).ok()?,
        Err(_) => seq.cast::<PyTuple>().ok()?.get_item(k).ok()?,
    };
    if item.is_exact_instance_of::<PyInt>() { item.extract::<i64>().ok() } else { None }
}

/// Counts and displacements of one side of an alltoallv, in elements, checked as `api._layout` checks them;
/// the number of elements they cover. None where anything differs from plain lists or tuples of `n` ints that
/// fit (`displs` None: each block right after the one before). One pass, nothing allocated.
fn layout(counts: &Bound<'_, PyAny>, displs: &Bound<'_, PyAny>, n: i64, elements: usize) -> Option<u64> {
    let n = usize::try_from(n).ok()?;
    let packed = displs.is_none();
    if length(counts)? != n || !packed && length(displs)? != n {
        return None;
    }
    let (mut total, mut end) = (0i64, 0i64);
    for k in 0..n {
        let count = int_at(counts, k)?;
        let displ = if packed { total } else { int_at(displs, k)? };
        if count < 0 || displ < 0 {
            return None;
        }
        if count > 0 {
            end = end.max(count.checked_add(displ)?);
        }
        total = total.checked_add(count)?;
    }
    (end as u64 <= elements as u64).then_some(total as u64)
}

impl MpiFast {
    /// The routes of `comm` if it is the communicator of the latest call and not freed (as `calls.private`).
    fn routes_of<'py>(&self, comm: &Bound<'py, PyAny>) -> Option<Bound<'py, MpiRoutes>> {
        let found = match &*self.recent.get(comm.py()) {
            Some((c, r)) if c.as_ptr() == comm.as_ptr() => r.bind(comm.py()).clone(),
            _ => return None,
        };
        comm.is_truthy().ok()?.then_some(found)
    }

    /// Whether a call of this shape runs MPI's own at once (learned); if so, `last_run()` now says what it ran.
    fn known(&self, py: Python<'_>, r: &MpiRoutes, key: Key) -> bool {
        let run = match &*r.latest.get(py) {
            Some((latest, run)) if *latest == key => Some(run.bind(py).clone()),
            _ => None,
        };
        let run = match run {
            Some(run) => run,
            None => {
                let Some(run) = r.routes.get(py).get(&key).map(|route| route.run.bind(py).clone()) else {
                    return false;
                };
                let stale = r.latest.get(py).replace((key, run.clone().unbind()));
                drop(stale); // after the borrow
                run
            }
        };
        let last = self.last.bind(py);
        // SAFETY: a live list; its item 0 (borrowed, or null with an IndexError set) is only compared.
        let said = unsafe { ffi::PyList_GetItem(last.as_ptr(), 0) };
        if said == run.as_ptr() {
            return true; // `last_run()` says so already
        }
        if said.is_null() {
            drop(PyErr::take(py)); // `calls._LAST` emptied: `set_item` fails below, and the Python path runs
        }
        last.set_item(0, run).is_ok()
    }

    /// `(a, MPI.BYTE)`, as mpi4py takes a buffer of bytes.
    fn spec<'a, 'py>(r: &'a MpiRoutes, a: &Bound<'py, PyAny>) -> PyResult<Spare<'a, 'py>> {
        Spare::new(&r.pairs, &[a, r.byte.bind(a.py())])
    }

    /// A reduction's fast path (`api.reduce`, `api.allreduce`); `root` None for allreduce.
    #[allow(clippy::too_many_arguments)]
    fn reduction(&self, kind: usize, comm: &Bound<'_, PyAny>, sendbuf: &Bound<'_, PyAny>, recvbuf: &Bound<'_, PyAny>,
                 op: &Bound<'_, PyAny>, root: Option<&Bound<'_, PyAny>>, plans: &Bound<'_, PyAny>) -> PyResult<bool> {
        let py = comm.py();
        let Some(routes) = self.routes_of(comm) else { return Ok(false) };
        let r = routes.get();
        let op = if op.is_none() { r.sum.bind(py).clone() } else { op.clone() };
        if !op.get_type().is(r.op_type.bind(py)) {
            return Ok(false);
        }
        let Some(send) = plain(sendbuf) else { return Ok(false) };
        let at = match root {
            Some(root) => match rank_of(root, r.size) {
                Some(at) => at,
                None => return Ok(false),
            },
            None => -1,
        };
        let gets = root.is_none() || at == r.rank;
        if gets && !like(recvbuf, send) {
            return Ok(false);
        }
        let commutes = plans.is_none()
            || match r.predefined.iter().find(|(known, _)| known.as_ptr() == op.as_ptr()) {
                Some((_, commutes)) => *commutes,
                None => op.call_method0("Is_commutative").and_then(|c| c.is_truthy()).unwrap_or(false),
            };
        if !self.known(py, r, Key::of(plans, kind, at, nbytes(send), commutes)) {
            return Ok(false);
        }
        let method = r.methods[kind].bind(py);
        match root {
            Some(root) => {
                let recv = if gets { recvbuf.clone() } else { py.None().into_bound(py) };
                run(method, &r.comm, &[sendbuf, &recv, &op, root])?
            }
            None => run(method, &r.comm, &[sendbuf, recvbuf, &op])?,
        };
        Ok(true)
    }

    /// A rooted copy (`api.scatter`, `api.gather`): `whole` is the root's `n` blocks of `block`.
    fn rooted(&self, kind: usize, comm: &Bound<'_, PyAny>, whole: &Bound<'_, PyAny>, block: &Bound<'_, PyAny>,
              root: &Bound<'_, PyAny>, plans: &Bound<'_, PyAny>) -> PyResult<bool> {
        let py = comm.py();
        let Some(routes) = self.routes_of(comm) else { return Ok(false) };
        let r = routes.get();
        let (Some(b), Some(at)) = (bytes(block), rank_of(root, r.size)) else { return Ok(false) };
        let at_root = at == r.rank;
        if at_root && !blocks_of(whole, b, r.size) || !self.known(py, r, Key::of(plans, kind, at, nbytes(b), true)) {
            return Ok(false);
        }
        let whole = if at_root { Some(Self::spec(r, whole)?) } else { None };
        let none = py.None().into_bound(py);
        let whole: &Bound<'_, PyAny> = whole.as_deref().unwrap_or(&none);
        let block = Self::spec(r, block)?;
        let (send, recv) = if kind == SCATTER { (whole, &*block) } else { (&*block, whole) };
        run(r.methods[kind].bind(py), &r.comm, &[send, recv, root])?;
        Ok(true)
    }
}

#[pymethods]
impl MpiFast {
    /// `last` is `calls._LAST` (its item 0 is what `last_run()` says).
    #[new]
    fn new(last: Bound<'_, PyList>) -> Self {
        MpiFast { last: last.unbind(), recent: Attached::new(None) }
    }

    /// The communicator of the latest call and its routes (`calls.private`); `None, None` forgets it.
    fn bind(&self, py: Python<'_>, comm: Option<Bound<'_, PyAny>>, routes: Option<Py<MpiRoutes>>) {
        let new = comm.zip(routes).map(|(c, r)| (c.unbind(), r));
        let old = std::mem::replace(&mut *self.recent.get(py), new);
        drop(old); // after the borrow: releasing a communicator may run Python
    }
}

/// The eight calls' fast paths, asked by `mpi_calls.rs`'s compiled calls (`csmpi.bcast` and the others) first.
impl MpiFast {

    /// `api.bcast`'s fast path: True if it ran `Bcast([buf, MPI.BYTE], root)` on the private communicator.
    pub(crate) fn bcast(&self, comm: &Bound<'_, PyAny>, buf: &Bound<'_, PyAny>, root: &Bound<'_, PyAny>,
             plans: &Bound<'_, PyAny>) -> PyResult<bool> {
        let py = comm.py();
        let Some(routes) = self.routes_of(comm) else { return Ok(false) };
        let r = routes.get();
        let (Some(a), Some(at)) = (bytes(buf), rank_of(root, r.size)) else { return Ok(false) };
        if !self.known(py, r, Key::of(plans, BCAST, at, nbytes(a), true)) {
            return Ok(false);
        }
        run(r.methods[BCAST].bind(py), &r.comm, &[&*Self::spec(r, buf)?, root])?;
        Ok(true)
    }

    /// `api.scatter`'s fast path.
    pub(crate) fn scatter(&self, comm: &Bound<'_, PyAny>, sendbuf: &Bound<'_, PyAny>, recvbuf: &Bound<'_, PyAny>,
               root: &Bound<'_, PyAny>, plans: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.rooted(SCATTER, comm, sendbuf, recvbuf, root, plans)
    }

    /// `api.gather`'s fast path.
    pub(crate) fn gather(&self, comm: &Bound<'_, PyAny>, sendbuf: &Bound<'_, PyAny>, recvbuf: &Bound<'_, PyAny>,
              root: &Bound<'_, PyAny>, plans: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.rooted(GATHER, comm, recvbuf, sendbuf, root, plans)
    }

    /// `api.allgather`'s fast path.
    pub(crate) fn allgather(&self, comm: &Bound<'_, PyAny>, sendbuf: &Bound<'_, PyAny>, recvbuf: &Bound<'_, PyAny>,
                 plans: &Bound<'_, PyAny>) -> PyResult<bool> {
        let py = comm.py();
        let Some(routes) = self.routes_of(comm) else { return Ok(false) };
        let r = routes.get();
        let Some(s) = bytes(sendbuf) else { return Ok(false) };
        if !blocks_of(recvbuf, s, r.size) || !self.known(py, r, Key::of(plans, ALLGATHER, -1, nbytes(s), true)) {
            return Ok(false);
        }
        run(r.methods[ALLGATHER].bind(py), &r.comm, &[&*Self::spec(r, sendbuf)?, &*Self::spec(r, recvbuf)?])?;
        Ok(true)
    }

    /// `api.alltoall`'s fast path.
    pub(crate) fn alltoall(&self, comm: &Bound<'_, PyAny>, sendbuf: &Bound<'_, PyAny>, recvbuf: &Bound<'_, PyAny>,
                plans: &Bound<'_, PyAny>) -> PyResult<bool> {
        let py = comm.py();
        let Some(routes) = self.routes_of(comm) else { return Ok(false) };
        let r = routes.get();
        let Some(s) = bytes(sendbuf) else { return Ok(false) };
        let size = nbytes(s);
        if !blocks_of(recvbuf, s, 1) || !size.is_multiple_of(r.size as u64)
            || !self.known(py, r, Key::of(plans, ALLTOALL, -1, size / r.size as u64, true))
        {
            return Ok(false);
        }
        run(r.methods[ALLTOALL].bind(py), &r.comm, &[&*Self::spec(r, sendbuf)?, &*Self::spec(r, recvbuf)?])?;
        Ok(true)
    }

    /// `api.alltoallv`'s fast path: counts and displacements in elements, with a datatype of one element.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn alltoallv(&self, comm: &Bound<'_, PyAny>, sendbuf: &Bound<'_, PyAny>, sendcounts: &Bound<'_, PyAny>,
                 recvbuf: &Bound<'_, PyAny>, recvcounts: &Bound<'_, PyAny>, sdispls: &Bound<'_, PyAny>,
                 rdispls: &Bound<'_, PyAny>, plans: &Bound<'_, PyAny>) -> PyResult<bool> {
        let py = comm.py();
        let Some(routes) = self.routes_of(comm) else { return Ok(false) };
        let r = routes.get();
        let (Some(s), Some(v)) = (bytes(sendbuf), bytes(recvbuf)) else { return Ok(false) };
        if !same_dtype(s, v) {
            return Ok(false);
        }
        let item = s.dtype().itemsize();
        let sent = layout(sendcounts, sdispls, r.size, s.len());
        let (Some(sent), Some(_)) = (sent, layout(recvcounts, rdispls, r.size, v.len())) else { return Ok(false) };
        let Some(element) = r.elements.get(py).get(&item).map(|t| t.bind(py).clone()) else { return Ok(false) };
        if !self.known(py, r, Key::of(plans, ALLTOALLV, -1, sent * item as u64, true)) {
            return Ok(false);
        }
        let send = Spare::new(&r.quads, &[sendbuf, sendcounts, sdispls, &element])?;
        let recv = Spare::new(&r.quads, &[recvbuf, recvcounts, rdispls, &element])?;
        run(r.methods[ALLTOALLV].bind(py), &r.comm, &[&send, &recv])?;
        Ok(true)
    }

    /// `api.reduce`'s fast path.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn reduce(&self, comm: &Bound<'_, PyAny>, sendbuf: &Bound<'_, PyAny>, recvbuf: &Bound<'_, PyAny>,
              op: &Bound<'_, PyAny>, root: &Bound<'_, PyAny>, plans: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.reduction(REDUCE, comm, sendbuf, recvbuf, op, Some(root), plans)
    }

    /// `api.allreduce`'s fast path.
    pub(crate) fn allreduce(&self, comm: &Bound<'_, PyAny>, sendbuf: &Bound<'_, PyAny>, recvbuf: &Bound<'_, PyAny>,
                 op: &Bound<'_, PyAny>, plans: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.reduction(ALLREDUCE, comm, sendbuf, recvbuf, op, None, plans)
    }
}

/// Add `_MpiFast` and `_MpiRoutes` to the module (one line in `lib.rs`'s module init).
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<MpiFast>()?;
    m.add_class::<MpiRoutes>()
}
