//! The model side of the integrator: [`DaeSystem`].

use super::error::CallbackError;
use crate::linalg::BlockMatrix;

/// What the integrator asks of the model: an implicit DAE `F(t, y, y') = 0` of size
/// `n = y.len()`, optional zero-crossing (root) functions and an optional Jacobian.
///
/// Errors returned here are not panics: they travel back to the caller of
/// [`Ida`](super::Ida) as [`IdaError::Callback`](super::IdaError::Callback). A panic inside a
/// callback is caught and treated as a fatal error carrying the panic message.
pub trait DaeSystem {
    /// `res = F(t, y, yp)`.
    ///
    /// Return `Err(CallbackError::Recoverable(msg))` for a problem that a smaller step may cure
    /// (NaN, too large penetration): IDA retries with a smaller step.
    /// Return `Err(CallbackError::Fatal(msg))` otherwise: the integration stops and the message
    /// is kept for the caller.
    fn residual(
        &mut self,
        t: f64,
        y: &[f64],
        yp: &[f64],
        res: &mut [f64],
    ) -> Result<(), CallbackError>;

    /// Number of zero-crossing functions (default 0). Read once, when the solver is created.
    fn root_count(&self) -> usize {
        0
    }

    /// The zero-crossing functions `g(t, y, yp)`, `g.len() == root_count()`.
    fn roots(
        &mut self,
        _t: f64,
        _y: &[f64],
        _yp: &[f64],
        _g: &mut [f64],
    ) -> Result<(), CallbackError> {
        Ok(())
    }

    /// The iteration matrix `J = dF/dy + cj dF/dyp`, written into `jac` (a dense matrix
    /// zeroed beforehand, a block matrix whose pattern the system sets, or factors the system
    /// forms itself, as
    /// [`IdaOptions::linear_solver`](super::IdaOptions::linear_solver) chose).
    ///
    /// Only called when [`IdaOptions::user_jacobian`](super::IdaOptions::user_jacobian) is set;
    /// otherwise IDA uses difference quotients of the residual. Return `None` when no Jacobian
    /// is provided (with `user_jacobian` set, that is a fatal error).
    fn jacobian(
        &mut self,
        _t: f64,
        _cj: f64,
        _y: &[f64],
        _yp: &[f64],
        _res: &[f64],
        _jac: &mut JacobianMatrix<'_>,
    ) -> Option<Result<(), CallbackError>> {
        None
    }
}

/// Where [`DaeSystem::jacobian`] writes the iteration matrix.
#[derive(Debug)]
pub enum JacobianMatrix<'a> {
    /// Column-major dense storage borrowed from SUNDIALS ([`LinearSolverKind::Dense`]).
    ///
    /// [`LinearSolverKind::Dense`]: super::LinearSolverKind::Dense
    Dense(DenseMatrixView<'a>),
    /// Dense blocks on a sparse pattern ([`LinearSolverKind::Blocks`]): the system replaces
    /// the matrix with one of its own pattern (the couplings can change from one Jacobian to
    /// the next) and fills it.
    ///
    /// [`LinearSolverKind::Blocks`]: super::LinearSolverKind::Blocks
    Blocks(&'a mut BlockMatrix),
    /// An iteration matrix the system factors by its own structure
    /// ([`LinearSolverKind::Factored`]): the system replaces the slot's factors with those at
    /// (t, y, ẏ, c_j), which IDA's linear solves then use.
    ///
    /// [`LinearSolverKind::Factored`]: super::LinearSolverKind::Factored
    Factored(&'a mut Option<Box<dyn FactoredMatrix>>),
}

/// The factors of an iteration matrix a system forms and factors itself (a tree's by the
/// articulated-body algorithm, say): what IDA's linear solves need of it.
pub trait FactoredMatrix: std::fmt::Debug {
    /// The number of rows (= columns).
    fn size(&self) -> usize;

    /// x ← A⁻¹·x; `false` when it cannot be solved (IDA retries with a smaller step).
    fn solve_in_place(&self, x: &mut [f64]) -> bool;
}

/// A square, column-major dense matrix borrowed from SUNDIALS for one Jacobian evaluation.
#[derive(Debug)]
pub struct DenseMatrixView<'a> {
    data: &'a mut [f64],
    n: usize,
}

impl<'a> DenseMatrixView<'a> {
    /// Wraps column-major storage of an `n × n` matrix; `None` if `data.len() != n * n`.
    pub fn new(data: &'a mut [f64], n: usize) -> Option<Self> {
        (n.checked_mul(n) == Some(data.len())).then_some(DenseMatrixView { data, n })
    }

    /// The number of rows (= columns).
    pub fn size(&self) -> usize {
        self.n
    }

    /// Entry `(row, col)`; `None` when out of range.
    pub fn get(&self, row: usize, col: usize) -> Option<f64> {
        self.index(row, col).and_then(|k| self.data.get(k).copied())
    }

    /// Sets entry `(row, col)`; returns `false` (and does nothing) when out of range.
    pub fn set(&mut self, row: usize, col: usize, value: f64) -> bool {
        match self.index(row, col).and_then(|k| self.data.get_mut(k)) {
            Some(x) => {
                *x = value;
                true
            }
            None => false,
        }
    }

    /// Adds to entry `(row, col)`; returns `false` (and does nothing) when out of range.
    pub fn add(&mut self, row: usize, col: usize, value: f64) -> bool {
        match self.index(row, col).and_then(|k| self.data.get_mut(k)) {
            Some(x) => {
                *x += value;
                true
            }
            None => false,
        }
    }

    /// Column `col` as a slice; `None` when out of range.
    pub fn column_mut(&mut self, col: usize) -> Option<&mut [f64]> {
        if col >= self.n {
            return None;
        }
        self.data.get_mut(col * self.n..(col + 1) * self.n)
    }

    /// Sets every entry to zero.
    pub fn fill_zero(&mut self) {
        self.data.fill(0.0);
    }

    /// The raw column-major storage.
    pub fn as_mut_slice(&mut self) -> &mut [f64] {
        self.data
    }

    fn index(&self, row: usize, col: usize) -> Option<usize> {
        (row < self.n && col < self.n).then(|| col * self.n + row)
    }
}
