//! Pure-Rust core of collsched.
//!
//! This crate knows nothing of Python: it works on plain slices and returns
//! plain Rust values and errors. The `collsched-py` crate converts types and
//! maps each error of this crate to one Python exception class.
//!
//! What is here so far:
//! - [`program`]: the column-wise program representation shared by every
//!   executor, with its structural checks;
//! - [`validate`]: symbolic execution of a program, which proves that it
//!   implements its collective (every value delivered once, reductions in
//!   operand order, nothing used before it arrived) or says precisely why not;
//! - [`compile`]: a program's Fluid stage table for [`sim`], from the routes
//!   of every host pair.

pub mod arborescence;
pub mod coloring;
pub mod compile;
pub mod fluid;
pub mod holdings;
pub mod liquid;
pub mod matching;
pub mod maxflow;
pub mod orderings;
pub mod permutations;
pub mod program;
pub mod routing;
pub mod sim;
pub mod validate;

pub use program::{Kind, ProgramView, StructureError};
pub use validate::{validate, Invalid, Options, ValueKey};
