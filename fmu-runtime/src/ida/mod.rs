//! (5) The only module that touches `sundials_sys`: a safe IDA integrator.
//!
//! [`Ida`] integrates an implicit DAE `F(t, y, y') = 0` given by a [`DaeSystem`] with SUNDIALS
//! IDA (variable-order, variable-step BDF), a direct linear solver (SUNDIALS' dense one, the
//! block-sparse one of module `custom_solver` for scenes of many bodies, or factors the system
//! forms itself, there too) and, by default, IDA's difference-quotient Jacobian.
//!
//! * Every SUNDIALS handle has its own RAII owner (module `handles`); nothing leaks on any error path.
//! * Callbacks never unwind into C: errors and panics of the model are caught, IDA is told to
//!   retry (recoverable) or stop (fatal), and the message reaches the caller in an [`IdaError`].
//! * SUNDIALS' own error messages are captured (not printed) and attached to the errors.
//! * Statistics are cumulative over [`Ida::reinit`] calls ([`SolverStats`]).
//!
//! ```no_run
//! use fmu_runtime::ida::{CallbackError, DaeSystem, Ida, IdaOptions};
//!
//! struct Decay(f64);
//! impl DaeSystem for Decay {
//!     fn residual(&mut self, _t: f64, y: &[f64], yp: &[f64], r: &mut [f64])
//!         -> Result<(), CallbackError> {
//!         r[0] = yp[0] + self.0 * y[0];
//!         Ok(())
//!     }
//! }
//! # fn main() -> Result<(), fmu_runtime::ida::IdaError> {
//! let mut ida = Ida::new(Decay(2.0), 0.0, &[1.0], &[-2.0], &IdaOptions::default())?;
//! ida.solve_to(1.0)?;
//! println!("y(1) = {}", ida.y()[0]);
//! # Ok(())
//! # }
//! ```

#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::todo,
    clippy::unreachable,
    clippy::unimplemented,
    clippy::undocumented_unsafe_blocks
)]

mod custom_solver;
mod error;
mod handles;
mod solver;
mod stats;
mod system;
#[cfg(test)]
mod tests;

pub use error::{CallbackError, CallbackKind, IdaError};
pub use solver::{
    AbsTolerance, Ida, IdaOptions, InitialCondition, LinearSolverKind, Step, StepKind,
};
pub use stats::SolverStats;
pub use system::{DaeSystem, DenseMatrixView, FactoredMatrix, JacobianMatrix};

/// The version of the SUNDIALS library linked in (e.g. `"7.1.1"`).
pub fn sundials_version() -> &'static str {
    let v = sundials_sys::SUNDIALS_VERSION;
    let bytes = v.strip_suffix(&[0]).unwrap_or(v);
    std::str::from_utf8(bytes).unwrap_or("unknown")
}
