//! [`Ida`]: the safe integrator, its options, and the C trampolines.

use std::any::Any;
use std::ffi::{c_char, c_int, c_long, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

use sundials_sys as sys;

use super::custom_solver::{custom_matrix, CustomKind, CustomLinearAlgebra};
use super::error::{
    check_flag, CallbackError, CallbackFailure, CallbackKind, FailureContext, FlagKind, IdaError,
};
use super::handles::{
    BorrowedNVector, Context, DenseMatrix, IdaMem, LinearSolver, NVector, UserData,
};
use super::stats::{idx, Accumulator, RawCounters, Resets, SolverStats};
use super::system::{DaeSystem, DenseMatrixView, JacobianMatrix};

/// Absolute tolerance: one value for all components or one per component.
#[derive(Debug, Clone, PartialEq)]
pub enum AbsTolerance {
    /// The same absolute tolerance for every component.
    Scalar(f64),
    /// One absolute tolerance per component (length = system size).
    Vector(Vec<f64>),
}

impl From<f64> for AbsTolerance {
    fn from(v: f64) -> Self {
        AbsTolerance::Scalar(v)
    }
}

impl From<Vec<f64>> for AbsTolerance {
    fn from(v: Vec<f64>) -> Self {
        AbsTolerance::Vector(v)
    }
}

/// Integrator settings. `None` keeps the SUNDIALS default.
#[derive(Debug, Clone, PartialEq)]
pub struct IdaOptions {
    /// Relative tolerance (default 1e-6).
    pub rtol: f64,
    /// Absolute tolerance (default 1e-8 for every component).
    pub atol: AbsTolerance,
    /// Largest step size (`IDASetMaxStep`).
    pub max_step: Option<f64>,
    /// Largest number of internal steps per [`Ida::solve_to`] (`IDASetMaxNumSteps`, SUNDIALS
    /// default 500).
    pub max_num_steps: Option<i64>,
    /// Largest BDF order, 1..=5 (`IDASetMaxOrd`).
    pub max_order: Option<i32>,
    /// First step size to try (`IDASetInitStep`).
    pub init_step: Option<f64>,
    /// Which components are differential (`true`) or algebraic (`false`), length = system size.
    /// Needed by [`InitialCondition::AlgebraicAndDerivatives`] and by `suppress_algebraic`.
    pub differential: Option<Vec<bool>>,
    /// Leave the algebraic components out of the local error test (`IDASetSuppressAlg`);
    /// requires `differential`.
    pub suppress_algebraic: bool,
    /// Largest number of error test failures per step (`IDASetMaxErrTestFails`).
    pub max_err_test_fails: Option<i32>,
    /// Largest number of nonlinear convergence failures per step (`IDASetMaxConvFails`).
    pub max_conv_fails: Option<i32>,
    /// Largest number of Newton iterations per step (`IDASetMaxNonlinIters`).
    pub max_nonlin_iters: Option<i32>,
    /// Direction of the zero crossings to report, one per root function: `1` rising only,
    /// `-1` falling only, `0` both (the default for all).
    pub root_directions: Option<Vec<i32>>,
    /// Use [`DaeSystem::jacobian`] instead of difference quotients.
    pub user_jacobian: bool,
    /// How the Newton iteration's linear systems are solved.
    pub linear_solver: LinearSolverKind,
}

/// The linear algebra of the Newton iteration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LinearSolverKind {
    /// SUNDIALS' dense matrix and LU: n² memory, O(n³) per factorization.
    #[default]
    Dense,
    /// [`crate::linalg::BlockMatrix`] and its block LU: memory and work in proportion to the
    /// coupled blocks. The system provides the Jacobian ([`IdaOptions::user_jacobian`] must be
    /// set) as [`JacobianMatrix::Blocks`].
    Blocks,
    /// Factors the system forms by its own structure, in O(n) for a tree by the
    /// articulated-body algorithm ([`JacobianMatrix::Factored`]; [`IdaOptions::user_jacobian`]
    /// must be set).
    Factored,
}

impl Default for IdaOptions {
    fn default() -> Self {
        IdaOptions {
            rtol: 1e-6,
            atol: AbsTolerance::Scalar(1e-8),
            max_step: None,
            max_num_steps: None,
            max_order: None,
            init_step: None,
            differential: None,
            suppress_algebraic: false,
            max_err_test_fails: None,
            max_conv_fails: None,
            max_nonlin_iters: None,
            root_directions: None,
            user_jacobian: false,
            linear_solver: LinearSolverKind::Dense,
        }
    }
}

/// How [`Ida::calc_ic`] makes the initial conditions consistent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InitialCondition {
    /// `IDA_YA_YDP_INIT`: given the differential components of `y`, compute the algebraic
    /// components of `y` and all of `y'`. Requires [`IdaOptions::differential`].
    AlgebraicAndDerivatives,
    /// `IDA_Y_INIT`: given `y'`, compute all of `y`.
    AllY,
}

/// Why [`Ida::solve_to`] returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StepKind {
    /// The requested time was reached exactly (a solution there, interpolated where the last
    /// internal step passed it).
    Reached,
    /// The stop time, before the requested time, was reached exactly ([`Ida::solve_toward`]).
    Stopped,
    /// One or more root functions crossed zero; per root function, `1` for a rising crossing,
    /// `-1` for a falling one, `0` for none (`IDAGetRootInfo`).
    Root(Vec<i32>),
}

/// The outcome of [`Ida::solve_to`].
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The time of the returned solution ([`Ida::y`], [`Ida::yp`]).
    pub t: f64,
    /// Why the integration stopped there.
    pub kind: StepKind,
}

/// The data behind IDA's `user_data` pointer.
struct CallbackData<S> {
    system: S,
    n: usize,
    n_roots: usize,
    failure: Option<CallbackFailure>,
    solver_message: Option<String>,
}

impl<S> CallbackData<S> {
    fn record(&mut self, kind: CallbackKind, time: f64, error: CallbackError) -> c_int {
        let code = if error.is_recoverable() { 1 } else { -1 };
        self.failure = Some(CallbackFailure { kind, time, error });
        code
    }

    fn finish(
        &mut self,
        kind: CallbackKind,
        time: f64,
        outcome: std::thread::Result<Result<(), CallbackError>>,
    ) -> c_int {
        match outcome {
            Ok(Ok(())) => 0,
            Ok(Err(e)) => self.record(kind, time, e),
            Err(payload) => {
                let msg = format!("panicked: {}", panic_message(payload.as_ref()));
                self.record(kind, time, CallbackError::Fatal(msg))
            }
        }
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_owned()
    }
}

/// The data pointer of a serial vector of length `n`, or `None` if `v` is null, of another
/// length, or without data.
///
/// # Safety
/// `v` must be null or a valid serial `N_Vector`.
unsafe fn vector_data(v: sys::N_Vector, n: usize) -> Option<*mut f64> {
    if v.is_null() {
        return None;
    }
    // SAFETY: `v` is a valid vector (caller contract).
    let len = unsafe { sys::N_VGetLength(v) };
    if usize::try_from(len).ok() != Some(n) {
        return None;
    }
    // SAFETY: as above.
    let data = unsafe { sys::N_VGetArrayPointer(v) };
    (!data.is_null()).then_some(data)
}

/// IDA's residual callback.
///
/// # Safety
/// Called by IDA with valid vectors of the system size and the `user_data` registered in
/// [`Ida::new`] (a live `CallbackData<S>`).
unsafe extern "C" fn residual_trampoline<S: DaeSystem>(
    t: f64,
    yy: sys::N_Vector,
    yp: sys::N_Vector,
    rr: sys::N_Vector,
    user_data: *mut c_void,
) -> c_int {
    if user_data.is_null() {
        return -1;
    }
    // SAFETY: `user_data` is the CallbackData<S> registered with IDASetUserData; no Rust
    // reference to it exists while IDA runs (all SUNDIALS calls happen under `&mut Ida`).
    let data = unsafe { &mut *user_data.cast::<CallbackData<S>>() };
    let n = data.n;
    // SAFETY: IDA passes valid serial vectors (or null, rejected by `vector_data`).
    let ptrs = unsafe { (vector_data(yy, n), vector_data(yp, n), vector_data(rr, n)) };
    let (Some(y), Some(ypd), Some(r)) = ptrs else {
        let e = CallbackError::Fatal("IDA passed an invalid vector to the residual".into());
        return data.record(CallbackKind::Residual, t, e);
    };
    if r == y || r == ypd {
        let e = CallbackError::Fatal("IDA passed aliased vectors to the residual".into());
        return data.record(CallbackKind::Residual, t, e);
    }
    // SAFETY: three distinct vectors (checked) of n values each; `rr` is IDA's output vector and
    // not read by IDA during the call; y and yp are only read here.
    let (y, ypd, r) = unsafe {
        (
            std::slice::from_raw_parts(y, n),
            std::slice::from_raw_parts(ypd, n),
            std::slice::from_raw_parts_mut(r, n),
        )
    };
    let system = &mut data.system;
    let outcome = catch_unwind(AssertUnwindSafe(|| system.residual(t, y, ypd, r)));
    data.finish(CallbackKind::Residual, t, outcome)
}

/// IDA's root callback.
///
/// # Safety
/// As for [`residual_trampoline`]; `gout` points to `n_roots` values.
unsafe extern "C" fn roots_trampoline<S: DaeSystem>(
    t: f64,
    yy: sys::N_Vector,
    yp: sys::N_Vector,
    gout: *mut f64,
    user_data: *mut c_void,
) -> c_int {
    if user_data.is_null() {
        return -1;
    }
    // SAFETY: see `residual_trampoline`.
    let data = unsafe { &mut *user_data.cast::<CallbackData<S>>() };
    let n = data.n;
    // SAFETY: IDA passes valid serial vectors (or null, rejected by `vector_data`).
    let ptrs = unsafe { (vector_data(yy, n), vector_data(yp, n)) };
    let (Some(y), Some(ypd)) = ptrs else {
        let e = CallbackError::Fatal("IDA passed an invalid vector to the root function".into());
        return data.record(CallbackKind::Roots, t, e);
    };
    if gout.is_null() || data.n_roots == 0 {
        let e = CallbackError::Fatal("IDA passed no root output array".into());
        return data.record(CallbackKind::Roots, t, e);
    }
    // SAFETY: y, yp hold n values each and are only read; `gout` is IDA's array of nrtfn
    // (= n_roots) values, distinct from the vectors' data.
    let (y, ypd, g) = unsafe {
        (
            std::slice::from_raw_parts(y, n),
            std::slice::from_raw_parts(ypd, n),
            std::slice::from_raw_parts_mut(gout, data.n_roots),
        )
    };
    let system = &mut data.system;
    let outcome = catch_unwind(AssertUnwindSafe(|| system.roots(t, y, ypd, g)));
    data.finish(CallbackKind::Roots, t, outcome)
}

/// IDA's Jacobian callback: the dense matrix or the block matrix given to IDA.
///
/// # Safety
/// As for [`residual_trampoline`]; `jac` is the matrix given to IDA with the linear solver.
unsafe extern "C" fn jacobian_trampoline<S: DaeSystem>(
    t: f64,
    cj: f64,
    yy: sys::N_Vector,
    yp: sys::N_Vector,
    rr: sys::N_Vector,
    jac: sys::SUNMatrix,
    user_data: *mut c_void,
    _tmp1: sys::N_Vector,
    _tmp2: sys::N_Vector,
    _tmp3: sys::N_Vector,
) -> c_int {
    if user_data.is_null() {
        return -1;
    }
    // SAFETY: see `residual_trampoline`.
    let data = unsafe { &mut *user_data.cast::<CallbackData<S>>() };
    let n = data.n;
    // SAFETY: IDA passes valid serial vectors (or null, rejected by `vector_data`).
    let ptrs = unsafe { (vector_data(yy, n), vector_data(yp, n), vector_data(rr, n)) };
    let (Some(y), Some(ypd), Some(r)) = ptrs else {
        let e = CallbackError::Fatal("IDA passed an invalid vector to the Jacobian".into());
        return data.record(CallbackKind::Jacobian, t, e);
    };
    // SAFETY: y, yp, rr hold n values each and are only read.
    let (y, ypd, r) = unsafe {
        (
            std::slice::from_raw_parts(y, n),
            std::slice::from_raw_parts(ypd, n),
            std::slice::from_raw_parts(r, n),
        )
    };
    // SAFETY: `jac` is the matrix registered with IDASetLinearSolver (or null).
    let matrix = match unsafe { custom_matrix(jac) } {
        Some(custom) => Some(custom),
        // SAFETY: as above: not ours, so the dense matrix.
        None => unsafe { dense_matrix(jac, n) }.map(JacobianMatrix::Dense),
    };
    let Some(mut matrix) = matrix else {
        let e = CallbackError::Fatal("IDA passed an invalid Jacobian matrix".into());
        return data.record(CallbackKind::Jacobian, t, e);
    };
    let system = &mut data.system;
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        system
            .jacobian(t, cj, y, ypd, r, &mut matrix)
            .unwrap_or_else(|| {
                Err(CallbackError::Fatal(
                    "IdaOptions::user_jacobian is set but DaeSystem::jacobian returned None".into(),
                ))
            })
    }));
    data.finish(CallbackKind::Jacobian, t, outcome)
}

/// The zeroed storage of a dense n × n `SUNMatrix`; `None` for null or another size.
///
/// # Safety
/// `jac` is null or a valid dense `SUNMatrix` whose data is not otherwise borrowed.
unsafe fn dense_matrix<'a>(jac: sys::SUNMatrix, n: usize) -> Option<DenseMatrixView<'a>> {
    if jac.is_null() {
        return None;
    }
    // SAFETY: per the contract.
    let (rows, cols) = unsafe {
        (
            sys::SUNDenseMatrix_Rows(jac),
            sys::SUNDenseMatrix_Columns(jac),
        )
    };
    if usize::try_from(rows).ok() != Some(n) || usize::try_from(cols).ok() != Some(n) {
        return None;
    }
    // SAFETY: per the contract: n*n contiguous column-major values owned by the matrix.
    let data = unsafe { sys::SUNDenseMatrix_Data(jac) };
    if data.is_null() {
        return None;
    }
    // SAFETY: as above.
    let m = unsafe { std::slice::from_raw_parts_mut(data, n * n) };
    m.fill(0.0);
    DenseMatrixView::new(m, n)
}

/// SUNDIALS error handler: keeps the last message instead of printing it.
///
/// # Safety
/// `err_user_data` is the `CallbackData<S>` registered with `SUNContext_PushErrHandler`.
unsafe extern "C" fn error_handler<S>(
    _line: c_int,
    func: *const c_char,
    _file: *const c_char,
    msg: *const c_char,
    _err_code: sys::SUNErrCode,
    err_user_data: *mut c_void,
    _sunctx: sys::SUNContext,
) {
    if err_user_data.is_null() || msg.is_null() {
        return;
    }
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: `msg` is a NUL-terminated message composed by SUNDIALS for this call.
        let text = unsafe { CStr::from_ptr(msg) }.to_string_lossy();
        let text = if func.is_null() {
            text.into_owned()
        } else {
            // SAFETY: `func` is `__func__` of the reporting SUNDIALS function.
            let f = unsafe { CStr::from_ptr(func) }.to_string_lossy();
            format!("{f}: {text}")
        };
        // SAFETY: the handler runs inside a SUNDIALS call made under `&mut Ida`, never inside a
        // user callback, so no other reference to the data is live.
        let data = unsafe { &mut *err_user_data.cast::<CallbackData<S>>() };
        data.solver_message = Some(text);
    }));
}

fn check_len(call: &'static str, what: &str, len: usize, n: usize) -> Result<(), IdaError> {
    if len == n {
        Ok(())
    } else {
        Err(IdaError::invalid(
            call,
            format!("{what} has length {len}, but the system has size {n}"),
        ))
    }
}

fn check_finite(call: &'static str, what: &str, v: f64) -> Result<(), IdaError> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(IdaError::invalid(
            call,
            format!("{what} = {v} is not finite"),
        ))
    }
}

/// The matrix and direct solver given to IDA (dropped after the IDA memory).
#[derive(Debug)]
enum LinearAlgebra {
    Dense {
        solver: LinearSolver,
        matrix: DenseMatrix,
    },
    Custom(CustomLinearAlgebra),
}

impl LinearAlgebra {
    fn handles(&self) -> (sys::SUNLinearSolver, sys::SUNMatrix) {
        match self {
            LinearAlgebra::Dense { solver, matrix } => (solver.as_raw(), matrix.as_raw()),
            LinearAlgebra::Custom(custom) => (custom.solver(), custom.matrix()),
        }
    }
}

/// SUNDIALS IDA (variable-order BDF for `F(t, y, y') = 0`) with a direct linear solver, dense
/// or block-sparse ([`LinearSolverKind`]).
///
/// Owns every SUNDIALS object it uses; the fields drop in the order SUNDIALS needs.
pub struct Ida<S: DaeSystem> {
    // Field order is drop order: the IDA memory references the linear solver, the matrix and
    // (through the context's error handler and user_data) the callback data.
    mem: IdaMem,
    linear_algebra: LinearAlgebra,
    y: NVector,
    yp: NVector,
    ctx: Context,
    data: UserData<CallbackData<S>>,
    n: usize,
    t: f64,
    root_directions: Vec<i32>,
    roots_active: bool,
    stats: Accumulator,
    /// A root found in a step that passed the requested time ([`Ida::solve_toward`]).
    pending_root: Option<PendingRoot>,
    /// The internal steps allowed per [`Ida::solve_toward`] (`IDASetMaxNumSteps`).
    max_num_steps: u64,
    /// [`Ida::set_start_span`].
    start_span: Option<f64>,
}

/// SUNDIALS' default of `IDASetMaxNumSteps`.
const DEFAULT_MAX_NUM_STEPS: u64 = 500;

/// The fraction of the last step [`Ida::continuation_step`] starts with: IDA restarts at order
/// one, whose error grows faster with the step than that of the order before. A tenth is
/// measured: half or a quarter made the ten stacked boxes' settling contacts chatter (128 and
/// 114 contact events instead of 50).
pub(crate) const RESTART_STEP_FRACTION: f64 = 0.1;

/// A root IDA returned beyond the requested time, with the solution there.
#[derive(Debug, Clone)]
struct PendingRoot {
    t: f64,
    info: Vec<c_int>,
    y: Vec<f64>,
    yp: Vec<f64>,
}

// SAFETY: every SUNDIALS object owned by `Ida` (context, vectors, matrix, linear solver, IDA
// memory) is reachable only through this value and uses no thread-local state; the serial
// build of SUNDIALS has no thread affinity. Moving the whole value to another thread moves
// exclusive ownership of all of them together, so `Ida<S>` is `Send` exactly when `S` is.
// It is not `Sync`: `&Ida` methods read SUNDIALS memory without synchronisation.
unsafe impl<S: DaeSystem + Send> Send for Ida<S> {}

impl<S: DaeSystem> std::fmt::Debug for Ida<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ida")
            .field("n", &self.n)
            .field("t", &self.t)
            .field("roots", &self.data.get().n_roots)
            .finish_non_exhaustive()
    }
}

impl<S: DaeSystem> Ida<S> {
    /// Creates the integrator for `system` at `t0` with `y(t0) = y0`, `y'(t0) = yp0`.
    ///
    /// The system size is `y0.len()`; `yp0`, per-component tolerances, `differential` and
    /// `root_directions` must match it (checked, an [`IdaError::InvalidInput`] otherwise).
    /// `y0`/`yp0` need not be consistent if [`Ida::calc_ic`] is called before integrating.
    pub fn new(
        system: S,
        t0: f64,
        y0: &[f64],
        yp0: &[f64],
        options: &IdaOptions,
    ) -> Result<Self, IdaError> {
        const CALL: &str = "Ida::new";
        let n = y0.len();
        if n == 0 {
            return Err(IdaError::invalid(
                CALL,
                "the system has no state (y0 is empty)",
            ));
        }
        check_len(CALL, "yp0", yp0.len(), n)?;
        check_finite(CALL, "t0", t0)?;
        if !(options.rtol.is_finite() && options.rtol >= 0.0) {
            return Err(IdaError::invalid(CALL, "rtol must be finite and >= 0"));
        }
        match &options.atol {
            AbsTolerance::Scalar(a) if !(a.is_finite() && *a >= 0.0) => {
                return Err(IdaError::invalid(CALL, "atol must be finite and >= 0"));
            }
            AbsTolerance::Vector(v) => {
                check_len(CALL, "atol", v.len(), n)?;
                if v.iter().any(|a| !(a.is_finite() && *a >= 0.0)) {
                    return Err(IdaError::invalid(
                        CALL,
                        "every atol must be finite and >= 0",
                    ));
                }
            }
            AbsTolerance::Scalar(_) => {}
        }
        if let Some(d) = &options.differential {
            check_len(CALL, "differential", d.len(), n)?;
        } else if options.suppress_algebraic {
            return Err(IdaError::invalid(
                CALL,
                "suppress_algebraic needs `differential` to know the algebraic components",
            ));
        }
        let n_roots = system.root_count();
        let c_roots = c_int::try_from(n_roots)
            .map_err(|_| IdaError::invalid(CALL, "too many root functions"))?;
        let root_directions = match &options.root_directions {
            Some(d) => {
                check_len(CALL, "root_directions", d.len(), n_roots)?;
                d.iter().map(|x| x.signum()).collect()
            }
            None => vec![0; n_roots],
        };

        let data = UserData::new(CallbackData {
            system,
            n,
            n_roots,
            failure: None,
            solver_message: None,
        });
        let ctx = Context::new()?;
        // SAFETY: valid context; the handler's user data (the callback data) outlives the
        // context (it is the last field to drop).
        let flag = unsafe { sys::SUNContext_ClearErrHandlers(ctx.as_raw()) };
        check_flag(
            FlagKind::Sun,
            "SUNContext_ClearErrHandlers",
            flag,
            FailureContext::nan,
        )?;
        // SAFETY: as above.
        let flag = unsafe {
            sys::SUNContext_PushErrHandler(
                ctx.as_raw(),
                Some(error_handler::<S>),
                data.as_ptr().cast(),
            )
        };
        check_flag(
            FlagKind::Sun,
            "SUNContext_PushErrHandler",
            flag,
            FailureContext::nan,
        )?;

        let y = NVector::from_slice(y0, &ctx)?;
        let yp = NVector::from_slice(yp0, &ctx)?;
        let linear_algebra = match options.linear_solver {
            LinearSolverKind::Dense => {
                let matrix = DenseMatrix::new(n, &ctx)?;
                let solver = LinearSolver::dense(&y, &matrix, &ctx)?;
                LinearAlgebra::Dense { solver, matrix }
            }
            kind @ (LinearSolverKind::Blocks | LinearSolverKind::Factored) => {
                if !options.user_jacobian {
                    return Err(IdaError::invalid(
                        "IDASetLinearSolver",
                        format!("the {kind:?} solver needs the system's Jacobian (user_jacobian)"),
                    ));
                }
                let custom = match kind {
                    LinearSolverKind::Blocks => CustomKind::Blocks,
                    _ => CustomKind::Factored,
                };
                LinearAlgebra::Custom(CustomLinearAlgebra::new(&ctx, custom)?)
            }
        };
        let mem = IdaMem::new(&ctx)?;

        let mut ida = Ida {
            mem,
            linear_algebra,
            y,
            yp,
            ctx,
            data,
            n,
            t: t0,
            root_directions,
            roots_active: n_roots > 0,
            stats: Accumulator::default(),
            pending_root: None,
            max_num_steps: DEFAULT_MAX_NUM_STEPS,
            start_span: None,
        };
        let m = ida.mem.as_raw();
        // SAFETY: `m` is a fresh IDA memory; the vectors have size n (IDA clones them).
        let flag = unsafe {
            sys::IDAInit(
                m,
                Some(residual_trampoline::<S>),
                t0,
                ida.y.as_raw(),
                ida.yp.as_raw(),
            )
        };
        ida.check(FlagKind::Ida, "IDAInit", flag)?;
        // SAFETY: the callback data lives at a fixed address until after IDAFree.
        let flag = unsafe { sys::IDASetUserData(m, ida.data.as_ptr().cast()) };
        ida.check(FlagKind::Ida, "IDASetUserData", flag)?;
        match &options.atol {
            AbsTolerance::Scalar(a) => {
                // SAFETY: initialised IDA memory.
                let flag = unsafe { sys::IDASStolerances(m, options.rtol, *a) };
                ida.check(FlagKind::Ida, "IDASStolerances", flag)?;
            }
            AbsTolerance::Vector(v) => {
                let atol = NVector::from_slice(v, &ida.ctx)?;
                // SAFETY: initialised IDA memory; IDA copies the tolerance vector.
                let flag = unsafe { sys::IDASVtolerances(m, options.rtol, atol.as_raw()) };
                ida.check(FlagKind::Ida, "IDASVtolerances", flag)?;
            }
        }
        let (solver, matrix) = ida.linear_algebra.handles();
        // SAFETY: the solver and matrix outlive the IDA memory (field order).
        let flag = unsafe { sys::IDASetLinearSolver(m, solver, matrix) };
        ida.check(FlagKind::Linear, "IDASetLinearSolver", flag)?;
        if options.user_jacobian {
            // SAFETY: linear solver attached; the trampoline matches IDALsJacFn.
            let flag = unsafe { sys::IDASetJacFn(m, Some(jacobian_trampoline::<S>)) };
            ida.check(FlagKind::Linear, "IDASetJacFn", flag)?;
        }
        if let Some(d) = &options.differential {
            let ids: Vec<f64> = d.iter().map(|&b| if b { 1.0 } else { 0.0 }).collect();
            let id = NVector::from_slice(&ids, &ida.ctx)?;
            // SAFETY: initialised IDA memory; IDA copies the id vector.
            let flag = unsafe { sys::IDASetId(m, id.as_raw()) };
            ida.check(FlagKind::Ida, "IDASetId", flag)?;
        }
        if options.suppress_algebraic {
            // SAFETY: initialised IDA memory, id vector set above.
            let flag = unsafe { sys::IDASetSuppressAlg(m, 1) };
            ida.check(FlagKind::Ida, "IDASetSuppressAlg", flag)?;
        }
        if let Some(h) = options.max_step {
            ida.set_max_step(h)?;
        }
        let max_num_steps = options
            .max_num_steps
            .map(c_long::try_from)
            .transpose()
            .map_err(|_| IdaError::invalid(CALL, "max_num_steps out of range"))?;
        ida.set_option("IDASetMaxNumSteps", max_num_steps, sys::IDASetMaxNumSteps)?;
        ida.max_num_steps = match options.max_num_steps {
            // As IDASetMaxNumSteps: 0 is the default, a negative number no limit.
            None | Some(0) => DEFAULT_MAX_NUM_STEPS,
            Some(steps) => u64::try_from(steps).unwrap_or(u64::MAX),
        };
        ida.set_option("IDASetMaxOrd", options.max_order, sys::IDASetMaxOrd)?;
        ida.set_option("IDASetInitStep", options.init_step, sys::IDASetInitStep)?;
        ida.set_option(
            "IDASetMaxErrTestFails",
            options.max_err_test_fails,
            sys::IDASetMaxErrTestFails,
        )?;
        ida.set_option(
            "IDASetMaxConvFails",
            options.max_conv_fails,
            sys::IDASetMaxConvFails,
        )?;
        ida.set_option(
            "IDASetMaxNonlinIters",
            options.max_nonlin_iters,
            sys::IDASetMaxNonlinIters,
        )?;
        if n_roots > 0 {
            // SAFETY: initialised IDA memory; the trampoline matches IDARootFn.
            let flag = unsafe { sys::IDARootInit(m, c_roots, Some(roots_trampoline::<S>)) };
            ida.check(FlagKind::Ida, "IDARootInit", flag)?;
            ida.apply_root_directions()?;
            // SAFETY: initialised IDA memory with root functions.
            let flag = unsafe { sys::IDASetNoInactiveRootWarn(m) };
            ida.check(FlagKind::Ida, "IDASetNoInactiveRootWarn", flag)?;
        }
        Ok(ida)
    }

    /// Maps a flag through [`check_flag`] with this solver's time and recorded messages.
    /// Passes an optional setting to its `IDASet*` function when it is given; one path for the
    /// flag check of every such option.
    fn set_option<T>(
        &mut self,
        call: &'static str,
        value: Option<T>,
        set: unsafe extern "C" fn(*mut c_void, T) -> c_int,
    ) -> Result<(), IdaError> {
        if let Some(value) = value {
            // SAFETY: initialised IDA memory; `set` is an IDASet* function that copies `value`.
            let flag = unsafe { set(self.mem.as_raw(), value) };
            self.check(FlagKind::Ida, call, flag)?;
        }
        Ok(())
    }

    fn check(
        &mut self,
        kind: FlagKind,
        call: &'static str,
        flag: c_int,
    ) -> Result<c_int, IdaError> {
        let m = self.mem.as_raw();
        let fallback_t = self.t;
        let data = self.data.get_mut();
        check_flag(kind, call, flag, || {
            let mut time = fallback_t;
            // SAFETY: valid IDA memory; a failure just leaves the fallback time.
            let _ = unsafe { sys::IDAGetCurrentTime(m, &mut time) };
            FailureContext {
                time,
                callback: data.failure.take(),
                detail: data.solver_message.take(),
            }
        })
    }

    /// Clears the messages of earlier calls.
    fn begin_call(&mut self) {
        let data = self.data.get_mut();
        data.failure = None;
        data.solver_message = None;
    }

    fn raw_counters(&self) -> (RawCounters, f64, i32, f64) {
        let m = self.mem.as_raw();
        let mut c = [0u64; idx::COUNT];
        let (mut nst, mut nre, mut nsetups, mut netf) = (0, 0, 0, 0);
        let (mut qlast, mut qcur) = (0, 0);
        let (mut h0, mut hlast, mut hcur, mut tcur) = (0.0, 0.0, 0.0, 0.0);
        let (mut nni, mut nncf, mut nge, mut nje, mut nredq): (
            c_long,
            c_long,
            c_long,
            c_long,
            c_long,
        ) = (0, 0, 0, 0, 0);
        // SAFETY: valid, initialised IDA memory with a linear solver; all out-pointers are
        // valid locals. A failing getter leaves its zero.
        let flags = unsafe {
            [
                sys::IDAGetIntegratorStats(
                    m,
                    &mut nst,
                    &mut nre,
                    &mut nsetups,
                    &mut netf,
                    &mut qlast,
                    &mut qcur,
                    &mut h0,
                    &mut hlast,
                    &mut hcur,
                    &mut tcur,
                ),
                sys::IDAGetNumNonlinSolvIters(m, &mut nni),
                sys::IDAGetNumNonlinSolvConvFails(m, &mut nncf),
                sys::IDAGetNumGEvals(m, &mut nge),
                sys::IDAGetNumJacEvals(m, &mut nje),
                sys::IDAGetNumLinResEvals(m, &mut nredq),
            ]
        };
        // Getters only fail on a null memory, impossible here; map any failure anyway so that
        // every flag passes through `check_flag`, and report zeros for that counter set.
        for f in flags {
            let _ = check_flag(FlagKind::Ida, "IDAGet*", f, FailureContext::nan);
        }
        let u = |x: c_long| u64::try_from(x).unwrap_or(0);
        c[idx::STEPS] = u(nst);
        c[idx::RES] = u(nre);
        c[idx::LIN_SETUPS] = u(nsetups);
        c[idx::ERR_FAILS] = u(netf);
        c[idx::NL_ITERS] = u(nni);
        c[idx::NL_FAILS] = u(nncf);
        c[idx::ROOT_EVALS] = u(nge);
        c[idx::JAC] = u(nje);
        c[idx::RES_DQ] = u(nredq);
        (c, hlast, qlast, hcur)
    }

    /// Folds SUNDIALS' counters into the totals before a call that resets some of them.
    fn fold_stats(&mut self, resets: Resets) {
        let (raw, hlast, qlast, _) = self.raw_counters();
        if raw[idx::STEPS] > 0 {
            self.stats.last_step = hlast;
            self.stats.last_order = qlast;
        }
        self.stats.fold(&raw, resets);
    }

    /// Integrates to exactly `tout` (IDA's stop time), or stops earlier at a root.
    ///
    /// After a root, [`Ida::y`]/[`Ida::yp`] hold the solution at the root; call `solve_to`
    /// again to continue (or [`Ida::reinit`] after changing the state). If `tout` equals the
    /// current time, returns at once with [`StepKind::Reached`].
    pub fn solve_to(&mut self, tout: f64) -> Result<Step, IdaError> {
        self.solve_toward(tout, tout)
    }

    /// Integrates until the solution at `tout` is known, the internal steps free to pass `tout`
    /// (the solution there is then interpolated) but never `tstop` (`f64::INFINITY`: no
    /// limit). Returns earlier at `tstop` when it comes before `tout` ([`StepKind::Stopped`]),
    /// or at a root. Where the last internal step already passed `tout`, nothing is integrated:
    /// the solution is interpolated. `tstop` must lie after [`Ida::internal_time`].
    ///
    /// IDA takes its steps one at a time (`IDA_ONE_STEP`): the root functions are evaluated at
    /// the ends of the steps only, not also at each requested time as `IDA_NORMAL` does. So the
    /// output times cost no root evaluations, and the roots found (and the steps after them) do
    /// not depend on where the outputs are taken. A root found in a step that passed `tout` is
    /// kept until a later call reaches it; the solution at `tout` is interpolated first.
    pub fn solve_toward(&mut self, tout: f64, tstop: f64) -> Result<Step, IdaError> {
        const CALL: &str = "Ida::solve_toward";
        check_finite(CALL, "tout", tout)?;
        if tstop.is_nan() {
            return Err(IdaError::invalid(CALL, "tstop is NaN"));
        }
        if tout == self.t {
            return Ok(Step {
                t: self.t,
                kind: StepKind::Reached,
            });
        }
        self.begin_call();
        if let Some(root) = self.pending_root.take() {
            if root.t <= tout {
                self.y.as_mut_slice()?.copy_from_slice(&root.y);
                self.yp.as_mut_slice()?.copy_from_slice(&root.yp);
                self.t = root.t;
                return Ok(Step {
                    t: root.t,
                    kind: StepKind::Root(root.info),
                });
            }
            self.pending_root = Some(root);
            return self.interpolate_to(tout);
        }
        if self.internal_time() >= tout {
            return self.interpolate_to(tout);
        }
        let m = self.mem.as_raw();
        if tstop.is_finite() {
            // SAFETY: initialised IDA memory.
            let flag = unsafe { sys::IDASetStopTime(m, tstop) };
            self.check(FlagKind::Ida, "IDASetStopTime", flag)?;
        } else {
            // SAFETY: initialised IDA memory.
            let flag = unsafe { sys::IDAClearStopTime(m) };
            self.check(FlagKind::Ida, "IDAClearStopTime", flag)?;
        }
        let (raw, ..) = self.raw_counters();
        if raw[idx::STEPS] == 0 {
            // The first step after (re)initialisation re-initialises the linear solver.
            self.fold_stats(Resets::linear_solver());
        }
        // IDA sizes its first step after a (re)start from the span to the time it is given
        // (a thousandth of it): the stop time where there is one, else the start span, so that
        // this step, too, does not depend on where the outputs are taken.
        let span_end = match (tstop.is_finite(), self.start_span) {
            (true, _) => tstop,
            (false, Some(span)) => self.t + span,
            (false, None) => tout,
        };
        let mut steps = 0u64;
        loop {
            if steps >= self.max_num_steps {
                // IDA_NORMAL's own budget per call, which single steps do not meet.
                let reached = self.internal_time();
                self.data.get_mut().solver_message = Some(format!(
                    "At t = {reached}, mxstep steps taken before reaching tout."
                ));
                self.check(FlagKind::Ida, "IDASolve", sys::IDA_TOO_MUCH_WORK)?;
            }
            let mut tret = self.t;
            // SAFETY: initialised IDA memory; the output vectors have the system size;
            // callbacks reach the callback data through user_data, no Rust reference to it is
            // live.
            let flag = unsafe {
                sys::IDASolve(
                    m,
                    span_end,
                    &mut tret,
                    self.y.as_raw(),
                    self.yp.as_raw(),
                    sys::IDA_ONE_STEP,
                )
            };
            let flag = self.check(FlagKind::Ida, "IDASolve", flag)?;
            steps += 1;
            if flag == sys::IDA_ROOT_RETURN {
                let mut info: Vec<c_int> = vec![0; self.data.get().n_roots];
                // SAFETY: `info` has nrtfn entries.
                let f = unsafe { sys::IDAGetRootInfo(m, info.as_mut_ptr()) };
                self.check(FlagKind::Ida, "IDAGetRootInfo", f)?;
                if tret > tout {
                    self.pending_root = Some(PendingRoot {
                        t: tret,
                        info,
                        y: self.y.as_slice().to_vec(),
                        yp: self.yp.as_slice().to_vec(),
                    });
                    return self.interpolate_to(tout);
                }
                self.t = tret;
                return Ok(Step {
                    t: tret,
                    kind: StepKind::Root(info),
                });
            }
            if flag == sys::IDA_TSTOP_RETURN && tstop < tout {
                // tret == tstop exactly.
                self.t = tstop;
                return Ok(Step {
                    t: tstop,
                    kind: StepKind::Stopped,
                });
            }
            if tret >= tout {
                return self.interpolate_to(tout);
            }
            if tret.is_finite() {
                self.t = tret;
            }
        }
    }

    /// The solution at `tout` within the last internal step (the interpolating polynomial and
    /// its derivative, `IDAGetDky`, as `IDA_NORMAL` interpolates), made the current one.
    fn interpolate_to(&mut self, tout: f64) -> Result<Step, IdaError> {
        let m = self.mem.as_raw();
        // SAFETY: initialised IDA memory after at least one step; the vectors have the
        // system size.
        let flags = unsafe {
            [
                sys::IDAGetDky(m, tout, 0, self.y.as_raw()),
                sys::IDAGetDky(m, tout, 1, self.yp.as_raw()),
            ]
        };
        for flag in flags {
            self.check(FlagKind::Ida, "IDAGetDky", flag)?;
        }
        self.t = tout;
        Ok(Step {
            t: tout,
            kind: StepKind::Reached,
        })
    }

    /// The time the last internal step reached (`IDAGetCurrentTime`): [`Ida::t`] or later,
    /// where [`Ida::solve_toward`] let the steps pass the requested time.
    pub fn internal_time(&self) -> f64 {
        let mut t = self.t;
        // SAFETY: initialised IDA memory; `t` is a valid out-pointer.
        let flag = unsafe { sys::IDAGetCurrentTime(self.mem.as_raw(), &mut t) };
        if flag == sys::IDA_SUCCESS && t.is_finite() && t > self.t {
            t
        } else {
            self.t
        }
    }

    /// Restarts the integration at `t0` from `y0`, `yp0` (`IDAReInit`), e.g. after an event
    /// changed the state. Options, root functions and statistics are kept; IDA chooses the
    /// first step, from the derivatives.
    pub fn reinit(&mut self, t0: f64, y0: &[f64], yp0: &[f64]) -> Result<(), IdaError> {
        self.reinit_with_first_step(t0, y0, yp0, 0.0)
    }

    /// [`Ida::reinit`] with the first step given (`IDASetInitStep`; zero: IDA chooses), e.g.
    /// [`Ida::continuation_step`].
    pub fn reinit_with_first_step(
        &mut self,
        t0: f64,
        y0: &[f64],
        yp0: &[f64],
        first_step: f64,
    ) -> Result<(), IdaError> {
        const CALL: &str = "Ida::reinit";
        check_len(CALL, "y0", y0.len(), self.n)?;
        check_len(CALL, "yp0", yp0.len(), self.n)?;
        check_finite(CALL, "t0", t0)?;
        check_finite(CALL, "first_step", first_step)?;
        self.begin_call();
        self.pending_root = None;
        self.fold_stats(Resets::reinit());
        self.stats.reinits += 1;
        self.y.as_mut_slice()?.copy_from_slice(y0);
        self.yp.as_mut_slice()?.copy_from_slice(yp0);
        self.t = t0;
        let m = self.mem.as_raw();
        // SAFETY: initialised IDA memory; the vectors have the system size (IDA copies them).
        // IDA keeps the first step across restarts: it is set at each one.
        let flags = unsafe {
            [
                ("IDASetInitStep", sys::IDASetInitStep(m, first_step)),
                (
                    "IDAReInit",
                    sys::IDAReInit(m, t0, self.y.as_raw(), self.yp.as_raw()),
                ),
            ]
        };
        for (call, flag) in flags {
            self.check(FlagKind::Ida, call, flag)?;
        }
        Ok(())
    }

    /// Makes `t` the time of the solution [`Ida::t`] reports, and `head` the first entries of
    /// [`Ida::y`] (`yp`, if given, all of [`Ida::yp`]), without telling IDA: for FMI Model
    /// Exchange, where the importer's integrator moves the states and this one only holds them.
    /// Continuing with [`Ida::solve_toward`] afterwards needs [`Ida::reinit`] first.
    pub fn overwrite_solution(
        &mut self,
        t: f64,
        head: &[f64],
        yp: Option<&[f64]>,
    ) -> Result<(), IdaError> {
        const CALL: &str = "Ida::overwrite_solution";
        check_finite(CALL, "t", t)?;
        if head.len() > self.n {
            check_len(CALL, "y", head.len(), self.n)?;
        }
        if let Some(yp) = yp {
            check_len(CALL, "yp", yp.len(), self.n)?;
            self.yp.as_mut_slice()?.copy_from_slice(yp);
        }
        self.y.as_mut_slice()?[..head.len()].copy_from_slice(head);
        self.t = t;
        self.pending_root = None;
        Ok(())
    }

    /// Makes the initial conditions consistent (`IDACalcIC`); [`Ida::y`]/[`Ida::yp`] hold the
    /// corrected values afterwards. `tout1` is the first output time (only its direction and
    /// distance from the current time are used, to scale the search).
    ///
    /// [`InitialCondition::AlgebraicAndDerivatives`] needs [`IdaOptions::differential`].
    pub fn calc_ic(&mut self, mode: InitialCondition, tout1: f64) -> Result<(), IdaError> {
        check_finite("Ida::calc_ic", "tout1", tout1)?;
        self.begin_call();
        let icopt = match mode {
            InitialCondition::AlgebraicAndDerivatives => sys::IDA_YA_YDP_INIT,
            InitialCondition::AllY => sys::IDA_Y_INIT,
        };
        self.fold_stats(Resets::linear_solver());
        let m = self.mem.as_raw();
        // SAFETY: initialised IDA memory; callbacks as in `solve_to`.
        let flag = unsafe { sys::IDACalcIC(m, icopt, tout1) };
        self.check(FlagKind::Ida, "IDACalcIC", flag)?;
        // SAFETY: the vectors have the system size.
        let flag = unsafe { sys::IDAGetConsistentIC(m, self.y.as_raw(), self.yp.as_raw()) };
        self.check(FlagKind::Ida, "IDAGetConsistentIC", flag)?;
        Ok(())
    }

    /// The time of the current solution.
    pub fn t(&self) -> f64 {
        self.t
    }

    /// The solution `y` at [`Ida::t`].
    pub fn y(&self) -> &[f64] {
        self.y.as_slice()
    }

    /// The derivative `y'` at [`Ida::t`].
    pub fn yp(&self) -> &[f64] {
        self.yp.as_slice()
    }

    /// The system size.
    pub fn size(&self) -> usize {
        self.n
    }

    /// The `k`-th derivative of the interpolating polynomial at `t` (`IDAGetDky`), `t` within
    /// the last internal step and `0 <= k <=` the last order. `out.len()` must be the system size.
    pub fn dense_output(&self, t: f64, k: i32, out: &mut [f64]) -> Result<(), IdaError> {
        check_len("Ida::dense_output", "out", out.len(), self.n)?;
        let v = BorrowedNVector::new(out, &self.ctx)?;
        // SAFETY: initialised IDA memory, only read; `v` wraps `out` of the system size.
        let flag = unsafe { sys::IDAGetDky(self.mem.as_raw(), t, k, v.as_raw()) };
        let data = self.data.get();
        check_flag(FlagKind::Ida, "IDAGetDky", flag, || FailureContext {
            time: t,
            callback: None,
            detail: data.solver_message.clone(),
        })?;
        Ok(())
    }

    /// Cumulative statistics since [`Ida::new`] (kept across [`Ida::reinit`]).
    pub fn stats(&self) -> SolverStats {
        let (raw, hlast, qlast, hcur) = self.raw_counters();
        let tot = self.stats.totals(&raw);
        let (last_step, last_order) = if raw[idx::STEPS] > 0 {
            (hlast, qlast)
        } else {
            (self.stats.last_step, self.stats.last_order)
        };
        SolverStats {
            steps: tot[idx::STEPS],
            residual_evals: tot[idx::RES],
            jacobian_residual_evals: tot[idx::RES_DQ],
            jacobian_evals: tot[idx::JAC],
            linear_setups: tot[idx::LIN_SETUPS],
            error_test_failures: tot[idx::ERR_FAILS],
            nonlinear_iterations: tot[idx::NL_ITERS],
            nonlinear_conv_failures: tot[idx::NL_FAILS],
            root_evals: tot[idx::ROOT_EVALS],
            reinits: self.stats.reinits,
            last_step,
            last_order,
            current_step: hcur,
        }
    }

    /// The model.
    pub fn system(&self) -> &S {
        &self.data.get().system
    }

    /// The model, mutably (e.g. to change a parameter between steps; call [`Ida::reinit`]
    /// if that makes the solution discontinuous).
    pub fn system_mut(&mut self) -> &mut S {
        &mut self.data.get_mut().system
    }

    /// `y`, `y'` and the system at once, for evaluating the model at the current point without
    /// copying the state.
    pub fn state_and_system_mut(&mut self) -> (&[f64], &[f64], &mut S) {
        (
            self.y.as_slice(),
            self.yp.as_slice(),
            &mut self.data.get_mut().system,
        )
    }

    /// The span IDA sizes its first step after a (re)start from (a thousandth of it, or less
    /// where y' is large) when [`Ida::solve_toward`] has no stop time: by default the span to
    /// the requested time, which makes that step depend on where the outputs are taken. `None`
    /// restores the default; a span that is not positive and finite is refused.
    pub fn set_start_span(&mut self, span: Option<f64>) -> Result<(), IdaError> {
        if span.is_some_and(|s| !(s > 0.0 && s.is_finite())) {
            return Err(IdaError::invalid(
                "Ida::set_start_span",
                "the span must be positive and finite",
            ));
        }
        self.start_span = span;
        Ok(())
    }

    /// Sets the largest step size (`IDASetMaxStep`); `f64::INFINITY` or 0 removes the limit.
    pub fn set_max_step(&mut self, h: f64) -> Result<(), IdaError> {
        if h.is_nan() || h < 0.0 {
            return Err(IdaError::invalid("Ida::set_max_step", "h must be >= 0"));
        }
        let h = if h.is_infinite() { 0.0 } else { h };
        self.begin_call();
        // SAFETY: initialised IDA memory.
        let flag = unsafe { sys::IDASetMaxStep(self.mem.as_raw(), h) };
        self.check(FlagKind::Ida, "IDASetMaxStep", flag)?;
        Ok(())
    }

    /// Sets the largest number of internal steps of one [`Ida::solve_to`]
    /// (`IDASetMaxNumSteps`; at least 1).
    pub fn set_max_num_steps(&mut self, steps: u64) -> Result<(), IdaError> {
        self.max_num_steps = steps.max(1);
        let steps = c_long::try_from(steps.max(1)).unwrap_or(c_long::MAX);
        self.begin_call();
        // SAFETY: initialised IDA memory.
        let flag = unsafe { sys::IDASetMaxNumSteps(self.mem.as_raw(), steps) };
        self.check(FlagKind::Ida, "IDASetMaxNumSteps", flag)?;
        Ok(())
    }

    /// A first step for a restart at [`Ida::t`] where the solution goes on smoothly (the
    /// derivatives `yp` there continue those before): a part of the last step taken
    /// ([`RESTART_STEP_FRACTION`]), as IDA restarts at order one. Zero (IDA chooses, as after
    /// any restart) where that would be no larger than IDA's own choice `0.5 / |yp|` (weighted
    /// as IDA's error test weighs), so that a run of events close together cannot shrink the
    /// steps from one restart to the next.
    pub fn continuation_step(&self, yp: &[f64]) -> Result<f64, IdaError> {
        const CALL: &str = "Ida::continuation_step";
        check_len(CALL, "yp", yp.len(), self.n)?;
        let step = RESTART_STEP_FRACTION * self.stats().last_step;
        if step.is_nan() || step <= 0.0 {
            return Ok(0.0);
        }
        let mut weights = vec![0.0; self.n];
        {
            let v = BorrowedNVector::new(&mut weights, &self.ctx)?;
            // SAFETY: initialised IDA memory after a step; `v` wraps a vector of system size.
            let flag = unsafe { sys::IDAGetErrWeights(self.mem.as_raw(), v.as_raw()) };
            check_flag(FlagKind::Ida, "IDAGetErrWeights", flag, || FailureContext {
                time: self.t,
                ..FailureContext::default()
            })?;
        }
        let norm = (yp
            .iter()
            .zip(&weights)
            .map(|(d, w)| (d * w).powi(2))
            .sum::<f64>()
            / self.n as f64)
            .sqrt();
        Ok(if step * norm > 0.5 { step } else { 0.0 })
    }

    /// Sets which crossings each root function reports: `1` rising, `-1` falling, `0` both.
    pub fn set_root_directions(&mut self, directions: &[i32]) -> Result<(), IdaError> {
        let n_roots = self.data.get().n_roots;
        check_len(
            "Ida::set_root_directions",
            "directions",
            directions.len(),
            n_roots,
        )?;
        self.root_directions = directions.iter().map(|d| d.signum()).collect();
        if self.roots_active {
            self.begin_call();
            self.apply_root_directions()?;
        }
        Ok(())
    }

    /// Switches root finding off (`false`) or back on (`true`, with the directions set before).
    pub fn set_roots_active(&mut self, active: bool) -> Result<(), IdaError> {
        let n_roots = self.data.get().n_roots;
        if active == self.roots_active || n_roots == 0 {
            return Ok(());
        }
        self.begin_call();
        self.fold_stats(Resets::roots());
        // A root of the functions being switched is no longer one to report.
        self.pending_root = None;
        let m = self.mem.as_raw();
        let flag = if active {
            let c = c_int::try_from(n_roots)
                .map_err(|_| IdaError::invalid("Ida::set_roots_active", "too many roots"))?;
            // SAFETY: initialised IDA memory; the trampoline matches IDARootFn.
            unsafe { sys::IDARootInit(m, c, Some(roots_trampoline::<S>)) }
        } else {
            // SAFETY: initialised IDA memory; 0 root functions frees IDA's root memory.
            unsafe { sys::IDARootInit(m, 0, None) }
        };
        self.check(FlagKind::Ida, "IDARootInit", flag)?;
        self.roots_active = active;
        if active {
            self.apply_root_directions()?;
        }
        Ok(())
    }

    /// Whether root finding is on.
    pub fn roots_active(&self) -> bool {
        self.roots_active
    }

    fn apply_root_directions(&mut self) -> Result<(), IdaError> {
        let mut dirs: Vec<c_int> = self.root_directions.clone();
        // SAFETY: initialised IDA memory with nrtfn = dirs.len() root functions; IDA copies.
        let flag = unsafe { sys::IDASetRootDirection(self.mem.as_raw(), dirs.as_mut_ptr()) };
        self.check(FlagKind::Ida, "IDASetRootDirection", flag)?;
        Ok(())
    }
}
