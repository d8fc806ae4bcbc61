//! collsched.mpi's public calls, compiled: `csmpi.bcast`, `reduce`, `allreduce`, `scatter`, `gather`,
//! `allgather`, `alltoall` and `alltoallv` are builtin functions made here, each around its Python
//! implementation (`python/collsched/mpi/api.py`).
//!
//! A call comes in by vectorcall (`METH_FASTCALL | METH_KEYWORDS`: no tuple, no dict). Its arguments are
//! sorted into the Python signature's parameters by position and keyword name; when they fit the signature,
//! the kind's fast path (`mpi_fast.rs`, `_MpiFast`) is asked, and if it ran MPI's own collective the call
//! returns the output array, having run no Python of collsched's. Otherwise (a shape met for the first time,
//! arguments that are not plain arrays, a plan that runs, a bad argument, a signature that does not bind) the
//! Python implementation is called with the very same arguments and keywords, and its result or exception
//! is the call's: every behaviour but the time is the Python function's.
//!
//! The function's `__doc__` is the Python implementation's docstring and its `__text_signature__` the Python
//! signature (without annotations), so `help()`, `inspect.signature` and doctests read it as before. Only
//! functions of the limited API of Python 3.11 are called (`PyCMethod_New`, `PyObject_Call` on the miss path).

use std::ffi::{CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::OnceLock;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};

use crate::mpi_fast::{
    ALLGATHER, ALLREDUCE, ALLTOALL, ALLTOALLV, BCAST, GATHER, KINDS, MpiFast, REDUCE, SCATTER,
};

/// One call's parameters, in the order of its Python signature.
struct Params {
    /// The Python function's name.
    name: &'static str,
    /// Its parameters: the positional ones first, then the keyword-only ones.
    names: &'static [&'static str],
    /// How many may be given by position.
    positional: usize,
    /// How many (the first ones) have no default.
    required: usize,
    /// The parameter whose argument the call returns (the output array).
    returns: usize,
}

/// The eight calls, in the order of `mpi_fast::KINDS`.
const PARAMS: [Params; 8] = [
    Params { name: "bcast", names: &["comm", "buf", "root", "plans"], positional: 3, required: 2, returns: 1 },
    Params {
        name: "scatter",
        names: &["comm", "sendbuf", "recvbuf", "root", "plans"],
        positional: 4,
        required: 3,
        returns: 2,
    },
    Params {
        name: "gather",
        names: &["comm", "sendbuf", "recvbuf", "root", "plans"],
        positional: 4,
        required: 3,
        returns: 2,
    },
    Params { name: "allgather", names: &["comm", "sendbuf", "recvbuf", "plans"], positional: 3, required: 3, returns: 2 },
    Params { name: "alltoall", names: &["comm", "sendbuf", "recvbuf", "plans"], positional: 3, required: 3, returns: 2 },
    Params {
        name: "reduce",
        names: &["comm", "sendbuf", "recvbuf", "op", "root", "commute", "plans"],
        positional: 5,
        required: 3,
        returns: 2,
    },
    Params {
        name: "allreduce",
        names: &["comm", "sendbuf", "recvbuf", "op", "commute", "plans"],
        positional: 4,
        required: 3,
        returns: 2,
    },
    Params {
        name: "alltoallv",
        names: &["comm", "sendbuf", "sendcounts", "recvbuf", "recvcounts", "sdispls", "rdispls", "plans"],
        positional: 5,
        required: 5,
        returns: 3,
    },
];

/// The most parameters of a call (alltoallv's).
const MOST: usize = 8;

/// What a compiled call holds: its kind, the Python implementation, the fast path, its parameters' names.
#[pyclass(module = "collsched._core", name = "_MpiCall", frozen)]
pub struct MpiCall {
    kind: usize,
    params: &'static Params,
    /// The parameters' names, interned (a keyword of a call site is the same object, compared by identity first).
    names: Vec<Py<PyString>>,
    python: Py<PyAny>,
    fast: Py<MpiFast>,
    /// Each parameter's default as the fast path reads it (`root` 0, `commute` False, the others None).
    defaults: Vec<Py<PyAny>>,
}

#[pymethods]
impl MpiCall {
    /// The Python implementation this compiled call falls back to.
    #[getter]
    fn python(&self, py: Python<'_>) -> Py<PyAny> {
        self.python.clone_ref(py)
    }
}

/// Each kind's compiled call's state, set once (the function has no `__self__`, so that Python shows it as the
/// function it replaces, `<built-in function bcast>`, not as a method of some object).
static STATES: [OnceLock<Py<MpiCall>>; 8] = [const { OnceLock::new() }; 8];

/// `python`, the Python implementation of collsched.mpi's call `name`, as a compiled function of module
/// `module`, asking `fast` first; `doc` is its `__doc__` after the text signature (`name(...)\n--\n\n`).
#[pyfunction]
#[pyo3(name = "_mpi_call")]
pub fn mpi_call<'py>(py: Python<'py>, name: &str, python: Bound<'py, PyAny>, fast: Py<MpiFast>, doc: &str,
                     module: &str) -> PyResult<Bound<'py, PyAny>> {
    let Some(kind) = PARAMS.iter().position(|p| p.name == name) else {
        return Err(PyValueError::new_err(format!("no compiled collsched.mpi call {name:?}")));
    };
    let params = &PARAMS[kind];
    let names = params.names.iter().map(|n| PyString::intern(py, n).unbind()).collect();
    let defaults = params
        .names
        .iter()
        .map(|n| match *n {
            "root" => Ok(0i32.into_pyobject(py)?.into_any().unbind()),
            "commute" => Ok(false.into_pyobject(py)?.to_owned().into_any().unbind()),
            _ => Ok(py.None()),
        })
        .collect::<PyResult<_>>()?;
    let state = Py::new(py, MpiCall { kind, params, names, python: python.unbind(), fast, defaults })?;
    if STATES[kind].set(state).is_err() {
        return Err(PyValueError::new_err(format!("collsched.mpi's {name} is compiled once, at its import")));
    }
    let meth: ffi::PyCFunctionFastWithKeywords = match kind {
        0 => call::<0>,
        1 => call::<1>,
        2 => call::<2>,
        3 => call::<3>,
        4 => call::<4>,
        5 => call::<5>,
        6 => call::<6>,
        _ => call::<7>,
    };
    let text = |s: &str| CString::new(s).map_err(|_| PyValueError::new_err("a name or docstring holds a NUL"));
    // Made once per call kind at import, and alive as long as the function (the module's): leaked on purpose.
    let def = Box::leak(Box::new(ffi::PyMethodDef {
        ml_name: text(name)?.into_raw() as *const c_char,
        ml_meth: ffi::PyMethodDefPointer { PyCFunctionFastWithKeywords: meth },
        ml_flags: ffi::METH_FASTCALL | ffi::METH_KEYWORDS,
        ml_doc: text(doc)?.into_raw() as *const c_char,
    }));
    let module = PyString::new(py, module);
    // SAFETY: `def` lives forever; the module name is a live object (the function keeps it).
    let made = unsafe { ffi::PyCMethod_New(def, std::ptr::null_mut(), module.as_ptr(), std::ptr::null_mut()) };
    if made.is_null() {
        return Err(PyErr::fetch(py));
    }
    // SAFETY: a new reference, owned here.
    Ok(unsafe { Bound::from_owned_ptr(py, made) })
}

/// The C function of kind `K`'s compiled call (`METH_FASTCALL | METH_KEYWORDS`); its state is `STATES[K]`.
unsafe extern "C" fn call<const K: usize>(_slf: *mut ffi::PyObject, args: *const *mut ffi::PyObject,
                                          nargs: ffi::Py_ssize_t, kwnames: *mut ffi::PyObject) -> *mut ffi::PyObject {
    // SAFETY: CPython calls this attached (with the GIL). Nothing on the fast path drops a `Py` (only `Bound`s,
    // released at once), so pyo3 needs no account of the attachment (`Python::attach` costs a thread-local's
    // look-up and its update, as much as a tenth of the fast path).
    let py = unsafe { Python::assume_attached() };
    // SAFETY: `args` holds `nargs` arguments and then one per name of `kwnames`, all borrowed for the call.
    let result = catch_unwind(AssertUnwindSafe(|| unsafe {
        let this = STATES[K].get().expect("set before the function is made").get();
        let kwnames = (!kwnames.is_null()).then(|| Bound::ref_from_ptr(py, &kwnames).cast_unchecked::<PyTuple>());
        let given = std::slice::from_raw_parts(args, nargs as usize + kwnames.map_or(0, |k| k.len()));
        this.answer(py, nargs as usize, given, kwnames)
    }));
    match result {
        Ok(Ok(out)) => out.into_ptr(),
        Ok(Err(err)) => {
            err.restore(py);
            std::ptr::null_mut()
        }
        Err(_) => {
            PyRuntimeError::new_err("collsched.mpi's compiled call panicked").restore(py);
            std::ptr::null_mut()
        }
    }
}

impl MpiCall {
    /// The call's result: the fast path's, or the Python implementation's.
    fn answer<'py>(&self, py: Python<'py>, nargs: usize, given: &[*mut ffi::PyObject],
                   kwnames: Option<&Bound<'py, PyTuple>>) -> PyResult<Bound<'py, PyAny>> {
        if let Some(slots) = self.bind(py, nargs, given, kwnames) {
            if let Some(out) = self.fast(py, &slots)? {
                return Ok(out.clone());
            }
        }
        // SAFETY: the arguments are live, borrowed for the call.
        let all: Vec<Bound<'py, PyAny>> = given.iter().map(|a| unsafe { Bound::from_borrowed_ptr(py, *a) }).collect();
        let args = PyTuple::new(py, &all[..nargs])?;
        let kwargs = match kwnames {
            Some(names) => {
                let kwargs = PyDict::new(py);
                for (name, value) in names.iter().zip(&all[nargs..]) {
                    kwargs.set_item(name, value)?;
                }
                Some(kwargs)
            }
            None => None,
        };
        self.python.bind(py).call(args, kwargs.as_ref())
    }

    /// The arguments by parameter (null: not given), if they bind to the signature; None otherwise (the Python
    /// implementation then raises what Python raises).
    fn bind(&self, py: Python<'_>, nargs: usize, given: &[*mut ffi::PyObject],
            kwnames: Option<&Bound<'_, PyTuple>>) -> Option<[*mut ffi::PyObject; MOST]> {
        let p = self.params;
        if nargs > p.positional {
            return None;
        }
        let mut slots = [std::ptr::null_mut(); MOST];
        slots[..nargs].copy_from_slice(&given[..nargs]);
        if let Some(names) = kwnames {
            for (name, value) in names.iter().zip(&given[nargs..]) {
                let at = self
                    .names
                    .iter()
                    .position(|n| n.as_ptr() == name.as_ptr())
                    .or_else(|| self.names.iter().position(|n| n.bind(py).as_any().eq(&name).unwrap_or(false)))?;
                if !slots[at].is_null() {
                    return None;
                }
                slots[at] = *value;
            }
        }
        slots[..p.required].iter().all(|s| !s.is_null()).then_some(slots)
    }

    /// The kind's fast path on the bound arguments: the output array if it ran MPI's own collective.
    fn fast<'a, 'py>(&'a self, py: Python<'py>, slots: &'a [*mut ffi::PyObject; MOST])
                     -> PyResult<Option<&'a Bound<'py, PyAny>>> {
        // SAFETY: every non-null slot is a live argument of the call, borrowed for it.
        let arg = |k: usize| -> &'a Bound<'py, PyAny> {
            if slots[k].is_null() { self.defaults[k].bind(py) } else { unsafe { Bound::ref_from_ptr(py, &slots[k]) } }
        };
        let plans = arg(self.params.names.len() - 1); // `plans=` is every call's last parameter
        let (comm, f) = (arg(0), self.fast.get());
        let ran = match self.kind {
            BCAST => f.bcast(comm, arg(1), arg(2), plans)?,
            SCATTER => f.scatter(comm, arg(1), arg(2), arg(3), plans)?,
            GATHER => f.gather(comm, arg(1), arg(2), arg(3), plans)?,
            ALLGATHER => f.allgather(comm, arg(1), arg(2), plans)?,
            ALLTOALL => f.alltoall(comm, arg(1), arg(2), plans)?,
            REDUCE => f.reduce(comm, arg(1), arg(2), arg(3), arg(4), plans)?,
            ALLREDUCE => f.allreduce(comm, arg(1), arg(2), arg(3), plans)?,
            ALLTOALLV => f.alltoallv(comm, arg(1), arg(2), arg(3), arg(4), arg(5), arg(6), plans)?,
            other => unreachable!("no kind {}", KINDS.get(other).unwrap_or(&"?")),
        };
        Ok(ran.then(|| arg(self.params.returns)))
    }
}

/// Add `_mpi_call` and `_MpiCall` to the module (one line in `lib.rs`'s module init).
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<MpiCall>()?;
    m.add_function(wrap_pyfunction!(mpi_call, m)?)
}
