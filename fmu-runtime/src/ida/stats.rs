//! Integrator statistics, cumulative over the life of an [`Ida`](super::Ida).

/// Counters of an [`Ida`](super::Ida), cumulative since [`Ida::new`](super::Ida::new).
///
/// SUNDIALS resets its own counters in `IDAReInit`, `IDARootInit` and (for the linear-solver
/// counters) at the first step after a (re)initialisation or in `IDACalcIC`; the wrapper folds
/// them into running totals before each such reset, so these numbers never decrease.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SolverStats {
    /// Internal steps taken.
    pub steps: u64,
    /// Residual evaluations by the integrator itself (Newton iterations, initial conditions),
    /// excluding those for the difference-quotient Jacobian.
    pub residual_evals: u64,
    /// Residual evaluations spent on the difference-quotient Jacobian (`IDAGetNumLinResEvals`).
    pub jacobian_residual_evals: u64,
    /// Jacobian evaluations (difference-quotient or user-supplied).
    pub jacobian_evals: u64,
    /// Linear-solver setups (factorizations of the iteration matrix).
    pub linear_setups: u64,
    /// Local error test failures.
    pub error_test_failures: u64,
    /// Nonlinear (Newton) iterations.
    pub nonlinear_iterations: u64,
    /// Nonlinear convergence failures.
    pub nonlinear_conv_failures: u64,
    /// Root-function evaluations.
    pub root_evals: u64,
    /// Calls of [`Ida::reinit`](super::Ida::reinit).
    pub reinits: u64,
    /// The size of the last successful step (of the latest integration segment that took a
    /// step; 0 before the first step).
    pub last_step: f64,
    /// The order of the last successful step (0 before the first step).
    pub last_order: i32,
    /// The step size IDA will try next.
    pub current_step: f64,
}

impl SolverStats {
    /// All residual evaluations: the integrator's plus those for the Jacobian.
    pub fn total_residual_evals(&self) -> u64 {
        self.residual_evals + self.jacobian_residual_evals
    }
}

/// One line, for logs and the end of a run.
impl std::fmt::Display for SolverStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} steps, {} residual evaluations (+{} for Jacobians), {} Jacobians, \
             {} error-test failures, {} nonlinear iterations, {} convergence failures, \
             {} root evaluations",
            self.steps,
            self.residual_evals,
            self.jacobian_residual_evals,
            self.jacobian_evals,
            self.error_test_failures,
            self.nonlinear_iterations,
            self.nonlinear_conv_failures,
            self.root_evals
        )
    }
}

/// Indices into [`RawCounters`].
pub(crate) mod idx {
    pub const STEPS: usize = 0;
    pub const RES: usize = 1;
    pub const LIN_SETUPS: usize = 2;
    pub const ERR_FAILS: usize = 3;
    pub const NL_ITERS: usize = 4;
    pub const NL_FAILS: usize = 5;
    pub const ROOT_EVALS: usize = 6;
    pub const JAC: usize = 7;
    pub const RES_DQ: usize = 8;
    pub const COUNT: usize = 9;
}

/// The counters as SUNDIALS reports them now (reset from time to time).
pub(crate) type RawCounters = [u64; idx::COUNT];

/// Which counters a SUNDIALS call is about to reset.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Resets {
    pub mask: [bool; idx::COUNT],
}

impl Resets {
    /// `IDAReInit`: the integrator counters and the root counter.
    pub(crate) fn reinit() -> Self {
        let mut mask = [false; idx::COUNT];
        for i in [
            idx::STEPS,
            idx::RES,
            idx::LIN_SETUPS,
            idx::ERR_FAILS,
            idx::NL_ITERS,
            idx::NL_FAILS,
            idx::ROOT_EVALS,
        ] {
            mask[i] = true;
        }
        Resets { mask }
    }

    /// The linear-solver initialisation (first step after (re)init, `IDACalcIC`).
    pub(crate) fn linear_solver() -> Self {
        let mut mask = [false; idx::COUNT];
        mask[idx::JAC] = true;
        mask[idx::RES_DQ] = true;
        Resets { mask }
    }

    /// `IDARootInit`.
    pub(crate) fn roots() -> Self {
        let mut mask = [false; idx::COUNT];
        mask[idx::ROOT_EVALS] = true;
        Resets { mask }
    }
}

/// Running totals: `total = folded + (raw - seen)` per counter.
#[derive(Debug, Clone, Default)]
pub(crate) struct Accumulator {
    folded: RawCounters,
    seen: RawCounters,
    pub reinits: u64,
    pub last_step: f64,
    pub last_order: i32,
}

impl Accumulator {
    /// Folds the counts since the last look into the totals; the counters in `resets` restart
    /// from zero afterwards.
    pub(crate) fn fold(&mut self, raw: &RawCounters, resets: Resets) {
        let columns = self.folded.iter_mut().zip(self.seen.iter_mut());
        for (((folded, seen), &raw), &reset) in columns.zip(raw).zip(&resets.mask) {
            *folded += raw.saturating_sub(*seen);
            *seen = if reset { 0 } else { raw };
        }
    }

    pub(crate) fn totals(&self, raw: &RawCounters) -> RawCounters {
        let mut out = [0; idx::COUNT];
        for (i, o) in out.iter_mut().enumerate() {
            *o = self.folded[i] + raw[i].saturating_sub(self.seen[i]);
        }
        out
    }
}
