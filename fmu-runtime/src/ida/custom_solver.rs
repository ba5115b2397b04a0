//! The custom linear solvers handed to IDA: a custom `SUNMatrix` whose content is ours and a
//! custom direct `SUNLinearSolver` that solves with it, for
//!
//! - a [`BlockMatrix`] the Jacobian callback fills, factored with [`BlockLu`]
//!   ([`LinearSolverKind::Blocks`](super::LinearSolverKind::Blocks));
//! - factors the Jacobian callback forms itself ([`FactoredMatrix`],
//!   [`LinearSolverKind::Factored`](super::LinearSolverKind::Factored)).
//!
//! IDA keeps its own logic of when to form a new Jacobian (`lsetup`) and scales the solution
//! for a changed c_j, as with its dense solver: both treat a matrix-based direct solver alike.
//! Of the matrix IDA only calls `getid` and `zero` (the Jacobian itself comes from the user
//! callback, which finds the content through [`custom_matrix`]); of the solver `gettype`,
//! `getid`, `setup` and `solve`. The Rust side ([`CustomSystem`]) is owned by
//! [`CustomLinearAlgebra`] and outlives both SUNDIALS objects; their `content` points to it.

use super::error::IdaError;
use super::handles::Context;
use super::system::{FactoredMatrix, JacobianMatrix};
use crate::linalg::{BlockLu, BlockMatrix};
use std::os::raw::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;
use sundials_sys as sys;

/// The content of the custom matrix: what IDA's Jacobian callback fills and the solver's
/// setup and solve use.
#[derive(Debug)]
#[repr(C)]
pub(crate) struct CustomSystem {
    /// [`MAGIC`]: tells this content from any other custom matrix's.
    magic: u64,
    content: Content,
}

#[derive(Debug)]
enum Content {
    /// The matrix the callback fills and its latest factors (kept, with their storage, from
    /// one factorization to the next: [`BlockLu::refactor`]).
    Blocks {
        matrix: BlockMatrix,
        factors: Box<BlockLu>,
    },
    /// The factors the callback forms.
    Factored(Option<Box<dyn FactoredMatrix>>),
}

const MAGIC: u64 = 0x626c_6f63_6b5f_6c75; // "block_lu"

/// Which content a [`CustomLinearAlgebra`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CustomKind {
    Blocks,
    Factored,
}

/// Owns the Rust side and the two SUNDIALS shells. Drop after the IDA memory.
#[derive(Debug)]
pub(crate) struct CustomLinearAlgebra {
    solver: sys::SUNLinearSolver,
    matrix: sys::SUNMatrix,
    system: *mut CustomSystem,
}

impl CustomLinearAlgebra {
    pub(crate) fn new(ctx: &Context, kind: CustomKind) -> Result<Self, IdaError> {
        let content = match kind {
            CustomKind::Blocks => Content::Blocks {
                matrix: BlockMatrix::default(),
                factors: Box::default(),
            },
            CustomKind::Factored => Content::Factored(None),
        };
        let system = Box::into_raw(Box::new(CustomSystem {
            magic: MAGIC,
            content,
        }));
        // SAFETY: a valid context; the shells are filled in below before any use.
        let (matrix, solver) = unsafe {
            (
                sys::SUNMatNewEmpty(ctx.as_raw()),
                sys::SUNLinSolNewEmpty(ctx.as_raw()),
            )
        };
        let owner = CustomLinearAlgebra {
            solver,
            matrix,
            system,
        };
        if matrix.is_null() {
            return Err(IdaError::Allocation {
                call: "SUNMatNewEmpty",
            });
        }
        if solver.is_null() {
            return Err(IdaError::Allocation {
                call: "SUNLinSolNewEmpty",
            });
        }
        // SAFETY: both shells were just allocated with their ops tables (all entries null).
        unsafe {
            (*matrix).content = system.cast();
            let ops = &mut *(*matrix).ops;
            ops.getid = Some(matrix_id);
            ops.zero = Some(matrix_zero);
            (*solver).content = system.cast();
            let ops = &mut *(*solver).ops;
            ops.gettype = Some(solver_type);
            ops.getid = Some(solver_id);
            ops.setup = Some(solver_setup);
            ops.solve = Some(solver_solve);
        }
        Ok(owner)
    }

    pub(crate) fn solver(&self) -> sys::SUNLinearSolver {
        self.solver
    }

    pub(crate) fn matrix(&self) -> sys::SUNMatrix {
        self.matrix
    }
}

impl Drop for CustomLinearAlgebra {
    fn drop(&mut self) {
        // SAFETY: the shells were made by SUN*NewEmpty and are freed once, after the IDA memory
        // that used them; their content is ours (cleared first so SUNDIALS frees only the
        // shells). The system was made by Box::into_raw and is freed once, last.
        unsafe {
            if !self.matrix.is_null() {
                (*self.matrix).content = ptr::null_mut();
                sys::SUNMatFreeEmpty(self.matrix);
            }
            if !self.solver.is_null() {
                (*self.solver).content = ptr::null_mut();
                sys::SUNLinSolFreeEmpty(self.solver);
            }
            drop(Box::from_raw(self.system));
        }
    }
}

/// Where the Jacobian callback writes when `matrix` is one of ours (`None` for any other
/// matrix).
///
/// # Safety
/// `matrix` is null or a valid `SUNMatrix`; the returned borrow must end before any other
/// access to the same matrix (IDA calls its callbacks one at a time).
pub(crate) unsafe fn custom_matrix<'a>(matrix: sys::SUNMatrix) -> Option<JacobianMatrix<'a>> {
    // SAFETY: per the contract; a matrix whose `getid` is ours was made by
    // CustomLinearAlgebra::new, whose content is a live CustomSystem.
    unsafe { system_of_matrix(matrix) }.map(|s| match &mut s.content {
        Content::Blocks { matrix, .. } => JacobianMatrix::Blocks(matrix),
        Content::Factored(factors) => JacobianMatrix::Factored(factors),
    })
}

/// # Safety
/// As for [`custom_matrix`].
unsafe fn system_of_matrix<'a>(matrix: sys::SUNMatrix) -> Option<&'a mut CustomSystem> {
    if matrix.is_null() {
        return None;
    }
    // SAFETY: a valid matrix has a valid ops table and content.
    unsafe {
        let custom = sys::SUNMatGetID(matrix) == sys::SUNMatrix_ID_SUNMATRIX_CUSTOM;
        let content = (*matrix).content.cast::<CustomSystem>();
        if !custom || content.is_null() || (*content).magic != MAGIC {
            return None;
        }
        Some(&mut *content)
    }
}

/// # Safety
/// `solver` is a valid `SUNLinearSolver` made by [`CustomLinearAlgebra::new`].
unsafe fn system_of_solver<'a>(solver: sys::SUNLinearSolver) -> Option<&'a mut CustomSystem> {
    // SAFETY: per the contract.
    unsafe {
        (!solver.is_null() && !(*solver).content.is_null()).then(|| &mut *(*solver).content.cast())
    }
}

unsafe extern "C" fn matrix_id(_: sys::SUNMatrix) -> sys::SUNMatrix_ID {
    sys::SUNMatrix_ID_SUNMATRIX_CUSTOM
}

/// A recoverable failure of the linear solver: IDA retries with a smaller step.
const RECOVERABLE: c_int = sys::SUNLS_PACKAGE_FAIL_REC as c_int;
/// An unrecoverable one (bad arguments).
const UNRECOVERABLE: c_int = -1;

unsafe extern "C" fn matrix_zero(matrix: sys::SUNMatrix) -> sys::SUNErrCode {
    // SAFETY: IDA passes the matrix it was given.
    match unsafe { system_of_matrix(matrix) } {
        Some(system) => match &mut system.content {
            Content::Blocks { matrix, .. } => {
                match catch_unwind(AssertUnwindSafe(|| matrix.fill_zero())) {
                    Ok(()) => sys::SUN_SUCCESS,
                    Err(_) => UNRECOVERABLE,
                }
            }
            // The callback replaces the factors whole.
            Content::Factored(_) => sys::SUN_SUCCESS,
        },
        None => UNRECOVERABLE,
    }
}

unsafe extern "C" fn solver_type(_: sys::SUNLinearSolver) -> sys::SUNLinearSolver_Type {
    sys::SUNLinearSolver_Type_SUNLINEARSOLVER_DIRECT
}

unsafe extern "C" fn solver_id(_: sys::SUNLinearSolver) -> sys::SUNLinearSolver_ID {
    sys::SUNLinearSolver_ID_SUNLINEARSOLVER_CUSTOM
}

/// Factors the matrix the Jacobian callback filled (or checks that it formed factors). A
/// singular block is recoverable: IDA forms a new Jacobian with a smaller step.
unsafe extern "C" fn solver_setup(solver: sys::SUNLinearSolver, _: sys::SUNMatrix) -> c_int {
    // SAFETY: IDA passes the solver it was given.
    let Some(system) = (unsafe { system_of_solver(solver) }) else {
        return UNRECOVERABLE;
    };
    let (matrix, factors) = match &mut system.content {
        Content::Blocks { matrix, factors } => (matrix, factors),
        Content::Factored(factors) => return if factors.is_some() { 0 } else { RECOVERABLE },
    };
    match catch_unwind(AssertUnwindSafe(|| factors.refactor(matrix))) {
        Ok(Ok(())) => 0,
        Ok(Err(_)) => RECOVERABLE,
        Err(_) => UNRECOVERABLE,
    }
}

/// x = A⁻¹·b with the latest factors.
unsafe extern "C" fn solver_solve(
    solver: sys::SUNLinearSolver,
    _: sys::SUNMatrix,
    x: sys::N_Vector,
    b: sys::N_Vector,
    _tol: sys::sunrealtype,
) -> c_int {
    // SAFETY: IDA passes the solver it was given.
    let Some(system) = (unsafe { system_of_solver(solver) }) else {
        return UNRECOVERABLE;
    };
    let n = match &system.content {
        Content::Blocks { factors, matrix } if factors.is_factored() => matrix.size(),
        Content::Factored(Some(factors)) => factors.size(),
        _ => return RECOVERABLE,
    };
    // SAFETY: IDA passes serial vectors of the system's size (checked against the matrix's).
    let (x, b) = unsafe {
        let (xn, bn) = (sys::N_VGetLength(x), sys::N_VGetLength(b));
        if usize::try_from(xn).ok() != Some(n) || usize::try_from(bn).ok() != Some(n) {
            return UNRECOVERABLE;
        }
        let (xd, bd) = (sys::N_VGetArrayPointer(x), sys::N_VGetArrayPointer(b));
        if xd.is_null() || bd.is_null() {
            return UNRECOVERABLE;
        }
        (
            std::slice::from_raw_parts_mut(xd, n),
            std::slice::from_raw_parts(bd, n),
        )
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        x.copy_from_slice(b);
        match &system.content {
            Content::Blocks { factors, .. } => factors.solve_in_place(x),
            Content::Factored(Some(factors)) => factors.solve_in_place(x),
            _ => false,
        }
    }));
    match outcome {
        Ok(true) => 0,
        Ok(false) => RECOVERABLE,
        Err(_) => UNRECOVERABLE,
    }
}
