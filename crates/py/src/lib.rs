//! Thin PyO3 layer: converts types and maps each core error to one Python exception.
//!
//! Python sees `collsched._core`; nothing here decides anything.

use collsched_core::program::{ProgramView, StructureError};
use collsched_core::validate::{validate, Invalid, Options};
use numpy::PyReadonlyArray1;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

create_exception!(_core, ProgramInvalid, PyValueError, "A program does not implement its collective; args = (code, details).");

fn invalid(py: Python<'_>, err: Invalid) -> PyErr {
    let d = PyDict::new(py);
    let code = match err {
        Invalid::Structure(e) => return structure(py, e),
        Invalid::Deadlock { stuck } => {
            let _ = d.set_item("stuck", stuck);
            "deadlock"
        }
        Invalid::NotHeld { op, piece } => {
            let _ = (d.set_item("op", op), d.set_item("piece", piece));
            "not_held"
        }
        Invalid::NotWaited { op, piece, producer } => {
            let _ = (d.set_item("op", op), d.set_item("piece", piece), d.set_item("producer", producer));
            "not_waited"
        }
        Invalid::Duplicate { op, piece, earlier } => {
            let _ = (d.set_item("op", op), d.set_item("piece", piece), d.set_item("earlier", earlier));
            "duplicate"
        }
        Invalid::BadCombine { op, reason } => {
            let _ = (d.set_item("op", op), d.set_item("reason", reason));
            "bad_combine"
        }
        Invalid::Missing { rank, value, held } => {
            let _ = (d.set_item("rank", rank), d.set_item("value", value.to_vec()), d.set_item("held", held));
            "missing"
        }
    };
    ProgramInvalid::new_err((code, d.unbind()))
}

fn structure(py: Python<'_>, err: StructureError) -> PyErr {
    let d = PyDict::new(py);
    let code = match err {
        StructureError::Shape(what) => {
            let _ = d.set_item("reason", what);
            "shape"
        }
        StructureError::BadOp { op } => {
            let _ = d.set_item("op", op);
            "bad_op"
        }
        StructureError::BadDependency { op, dep } => {
            let _ = (d.set_item("op", op), d.set_item("dep", dep));
            "bad_dependency"
        }
        StructureError::UnmatchedMessage { msg, op } => {
            let _ = (d.set_item("msg", msg), d.set_item("op", op));
            "unmatched_message"
        }
        StructureError::MismatchedMessage { msg, send, recv } => {
            let _ = (d.set_item("msg", msg), d.set_item("send", send), d.set_item("recv", recv));
            "mismatched_message"
        }
        StructureError::BadPiece { op, piece } => {
            let _ = (d.set_item("op", op), d.set_item("piece", piece));
            "bad_piece"
        }
        StructureError::PiecesOnRecv { op } => {
            let _ = d.set_item("op", op);
            "pieces_on_recv"
        }
    };
    ProgramInvalid::new_err((code, d.unbind()))
}

/// Symbolically execute a column-wise program; return the order in which operations ran.
///
/// Raises ProgramInvalid(code, details) when it does not implement its collective.
#[pyfunction]
#[pyo3(signature = (n_ranks, op_rank, op_kind, op_peer, op_msg, dep_ptr, dep_idx, piece_ptr, pieces, denominator, initial, finals, *, rendezvous=false))]
#[allow(clippy::too_many_arguments)]
fn validate_program(
    py: Python<'_>,
    n_ranks: usize,
    op_rank: PyReadonlyArray1<i64>,
    op_kind: PyReadonlyArray1<i64>,
    op_peer: PyReadonlyArray1<i64>,
    op_msg: PyReadonlyArray1<i64>,
    dep_ptr: PyReadonlyArray1<i64>,
    dep_idx: PyReadonlyArray1<i64>,
    piece_ptr: PyReadonlyArray1<i64>,
    pieces: PyReadonlyArray1<i64>,
    denominator: i64,
    initial: PyReadonlyArray1<i64>,
    finals: PyReadonlyArray1<i64>,
    rendezvous: bool,
) -> PyResult<Vec<usize>> {
    let view = ProgramView {
        n_ranks,
        op_rank: op_rank.as_slice()?,
        op_kind: op_kind.as_slice()?,
        op_peer: op_peer.as_slice()?,
        op_msg: op_msg.as_slice()?,
        dep_ptr: dep_ptr.as_slice()?,
        dep_idx: dep_idx.as_slice()?,
        piece_ptr: piece_ptr.as_slice()?,
        pieces: pieces.as_slice()?,
        denominator,
    };
    let (initial, finals) = (initial.as_slice()?, finals.as_slice()?);
    let result = py.detach(|| validate(&view, initial, finals, Options { rendezvous }));
    result.map_err(|e| invalid(py, e))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ProgramInvalid", m.py().get_type::<ProgramInvalid>())?;
    m.add_function(wrap_pyfunction!(validate_program, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
