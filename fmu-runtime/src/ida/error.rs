//! Errors of the IDA wrapper and the single place where SUNDIALS return flags become [`IdaError`].

use std::ffi::{c_char, c_int, c_long, CStr};
use std::fmt;

use sundials_sys as sys;

/// An error reported by a [`DaeSystem`](super::DaeSystem) callback.
///
/// The variant tells IDA how to react: a recoverable error makes it retry with a smaller step,
/// a fatal one stops the integration and reaches the caller as [`IdaError::Callback`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallbackError {
    /// A problem that a smaller step may cure (a NaN, a too large contact penetration, ...).
    /// IDA cuts the step and tries again.
    Recoverable(String),
    /// A problem that no step size cures; the integration stops.
    Fatal(String),
}

impl CallbackError {
    /// The message given by the model.
    pub fn message(&self) -> &str {
        match self {
            CallbackError::Recoverable(m) | CallbackError::Fatal(m) => m,
        }
    }

    /// Whether IDA may retry with a smaller step.
    pub fn is_recoverable(&self) -> bool {
        matches!(self, CallbackError::Recoverable(_))
    }
}

impl fmt::Display for CallbackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallbackError::Recoverable(m) => write!(f, "recoverable: {m}"),
            CallbackError::Fatal(m) => write!(f, "fatal: {m}"),
        }
    }
}

impl std::error::Error for CallbackError {}

/// Which user callback failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallbackKind {
    /// [`DaeSystem::residual`](super::DaeSystem::residual).
    Residual,
    /// [`DaeSystem::roots`](super::DaeSystem::roots).
    Roots,
    /// [`DaeSystem::jacobian`](super::DaeSystem::jacobian).
    Jacobian,
}

impl fmt::Display for CallbackKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CallbackKind::Residual => "residual",
            CallbackKind::Roots => "root function",
            CallbackKind::Jacobian => "Jacobian",
        })
    }
}

/// The last failure of a user callback, kept until the SUNDIALS call that triggered it returns.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CallbackFailure {
    pub kind: CallbackKind,
    pub time: f64,
    pub error: CallbackError,
}

/// Everything that can go wrong in [`Ida`](super::Ida).
#[derive(Debug, Clone, PartialEq)]
pub enum IdaError {
    /// An argument was rejected before any SUNDIALS call (wrong length, bad option, ...).
    InvalidInput {
        /// The function that rejected the input.
        call: &'static str,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// A SUNDIALS constructor returned a null pointer (out of memory or invalid size).
    Allocation {
        /// The SUNDIALS constructor.
        call: &'static str,
    },
    /// A SUNDIALS call failed for a reason of its own.
    Solver {
        /// The SUNDIALS function that returned the flag.
        call: &'static str,
        /// The raw return flag.
        flag: i32,
        /// The flag's name (e.g. `IDA_TOO_MUCH_WORK`).
        name: String,
        /// The integrator's time when the failure was reported.
        time: f64,
        /// The message SUNDIALS itself produced, when there was one.
        detail: Option<String>,
        /// A recoverable error a callback reported during the failed call, if any (it may
        /// explain the failure, e.g. step sizes shrinking towards an invalid state).
        last_callback_error: Option<String>,
    },
    /// A SUNDIALS call failed because a user callback reported an error or panicked.
    Callback {
        /// The SUNDIALS function that returned the flag.
        call: &'static str,
        /// The raw return flag (e.g. `IDA_RES_FAIL`).
        flag: i32,
        /// The flag's name.
        name: String,
        /// The callback that failed.
        callback: CallbackKind,
        /// The time at which the callback failed.
        time: f64,
        /// Whether the last callback error was recoverable (IDA gave up after repeated
        /// recoverable errors) or fatal.
        recoverable: bool,
        /// The callback's own message (or the panic message).
        message: String,
    },
}

impl IdaError {
    /// The raw SUNDIALS flag, if the error came from SUNDIALS.
    pub fn flag(&self) -> Option<i32> {
        match self {
            IdaError::Solver { flag, .. } | IdaError::Callback { flag, .. } => Some(*flag),
            _ => None,
        }
    }

    /// The callback's message, if the error came from a user callback.
    pub fn callback_message(&self) -> Option<&str> {
        match self {
            IdaError::Callback { message, .. } => Some(message),
            _ => None,
        }
    }

    pub(crate) fn invalid(call: &'static str, message: impl Into<String>) -> Self {
        IdaError::InvalidInput {
            call,
            message: message.into(),
        }
    }
}

/// What the caller can do about an IDA flag.
fn advice(flag: c_int) -> &'static str {
    match flag {
        sys::IDA_TOO_MUCH_WORK => {
            "the integrator used up its step budget (500 internal steps per output interval of \
             the model's experiment): check the model for a stiff spring or a chattering \
             contact, loosen the tolerance, or give a model that needs more steps (a heap of \
             elastic bodies, say) a shorter `interval`"
        }
        sys::IDA_TOO_MUCH_ACC => {
            "loosen rtol/atol: the requested accuracy is below machine precision"
        }
        sys::IDA_ERR_FAIL => {
            "the error test failed repeatedly or at the minimum step: check for discontinuities \
             not handled by events, or loosen the tolerances"
        }
        sys::IDA_CONV_FAIL => {
            "the Newton iteration did not converge: check the residual and its consistency with \
             the Jacobian, the initial conditions, or a singular (index > 1) DAE"
        }
        sys::IDA_LINIT_FAIL | sys::IDA_LSETUP_FAIL | sys::IDA_LSOLVE_FAIL => {
            "the linear solver failed: the iteration matrix is probably singular (a redundant \
             constraint, a zero mass or inertia, or an index > 1 DAE)"
        }
        sys::IDA_RES_FAIL => "the residual reported a fatal error",
        sys::IDA_REP_RES_ERR => {
            "the residual reported recoverable errors repeatedly: the model is invalid near this \
             state (NaN, excessive penetration)"
        }
        sys::IDA_FIRST_RES_FAIL => "the residual failed at the first call: check the initial state",
        sys::IDA_RTFUNC_FAIL => "the root function reported an error",
        sys::IDA_CONSTR_FAIL => "the inequality constraints could not be met",
        sys::IDA_LINESEARCH_FAIL => {
            "the initial-condition line search failed: supply a closer initial guess or use \
             a different initial-condition mode"
        }
        sys::IDA_NO_RECOVERY => {
            "a recoverable callback error could not be recovered during the initial-condition \
             calculation: check the initial state"
        }
        sys::IDA_ILL_INPUT => "an input was invalid: check the options and the requested times",
        sys::IDA_BAD_EWT => "an error weight became non-positive: use atol > 0 for every component",
        sys::IDA_BAD_T => "the requested time lies outside the last step",
        sys::IDA_BAD_K => "the requested derivative order is outside 0..=last order",
        sys::IDA_MEM_FAIL => "SUNDIALS ran out of memory",
        _ => "see the SUNDIALS IDA user guide for this flag",
    }
}

impl fmt::Display for IdaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IdaError::InvalidInput { call, message } => write!(f, "{call}: {message}"),
            IdaError::Allocation { call } => {
                write!(
                    f,
                    "{call} returned no object: out of memory or invalid size"
                )
            }
            IdaError::Solver {
                call,
                flag,
                name,
                time,
                detail,
                last_callback_error,
            } => {
                write!(f, "{call} failed at t = {time} with {name} ({flag})")?;
                if let Some(d) = detail {
                    write!(f, ": {d}")?;
                }
                if *flag < 0 {
                    write!(f, "; {}", advice(*flag))?;
                }
                if let Some(m) = last_callback_error {
                    write!(f, " (the model last reported: {m})")?;
                }
                Ok(())
            }
            IdaError::Callback {
                call,
                flag,
                name,
                callback,
                time,
                recoverable,
                message,
            } => {
                let kind = if *recoverable { "recoverable" } else { "fatal" };
                write!(
                    f,
                    "{call} failed with {name} ({flag}): the {callback} reported a {kind} error \
                     at t = {time}: {message}"
                )
            }
        }
    }
}

impl std::error::Error for IdaError {}

/// The family a SUNDIALS return flag belongs to (they overlap numerically).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FlagKind {
    /// `IDA_*` flags of the integrator proper.
    Ida,
    /// `IDALS_*` flags of the linear-solver interface.
    Linear,
    /// `SUNErrCode`s of the shared SUNDIALS infrastructure.
    Sun,
}

/// The state the mapping needs besides the flag: when and why the call failed.
#[derive(Debug, Default)]
pub(crate) struct FailureContext {
    /// The integrator time (NaN when unknown).
    pub time: f64,
    /// The failure recorded by a user callback during the call.
    pub callback: Option<CallbackFailure>,
    /// The last message SUNDIALS passed to its error handler during the call.
    pub detail: Option<String>,
}

impl FailureContext {
    /// A context with an unknown time and no messages.
    pub(crate) fn nan() -> Self {
        FailureContext {
            time: f64::NAN,
            callback: None,
            detail: None,
        }
    }
}

/// Copies a string SUNDIALS allocated with `malloc` and frees it.
fn take_malloced(ptr: *mut c_char) -> Option<String> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: non-null and NUL-terminated by `sprintf` in the SUNDIALS name functions.
    let s = unsafe { CStr::from_ptr(ptr) }
        .to_string_lossy()
        .into_owned();
    // SAFETY: the SUNDIALS `*GetReturnFlagName` functions allocate the name with `malloc` and
    // hand ownership to the caller; it is freed exactly once here.
    unsafe { libc::free(ptr.cast()) };
    Some(s)
}

/// The symbolic name of a flag.
pub(crate) fn flag_name(kind: FlagKind, flag: c_int) -> String {
    let name = match kind {
        FlagKind::Ida => {
            // SAFETY: pure function of an integer; returns a malloc'ed string or null.
            take_malloced(unsafe { sys::IDAGetReturnFlagName(c_long::from(flag)) })
        }
        FlagKind::Linear => {
            // SAFETY: as above.
            take_malloced(unsafe { sys::IDAGetLinReturnFlagName(c_long::from(flag)) })
        }
        FlagKind::Sun => {
            // SAFETY: pure function of an integer; returns a static string or null.
            let p = unsafe { sys::SUNGetErrMsg(flag) };
            if p.is_null() {
                None
            } else {
                // SAFETY: non-null static NUL-terminated string owned by SUNDIALS.
                Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
            }
        }
    };
    name.unwrap_or_else(|| format!("flag {flag}"))
}

/// THE mapping of every SUNDIALS return flag: non-negative flags are returned unchanged,
/// negative ones become an [`IdaError`] naming the call, the flag and its name, the time, and
/// the callback's message when a user callback caused the failure.
pub(crate) fn check_flag(
    kind: FlagKind,
    call: &'static str,
    flag: c_int,
    context: impl FnOnce() -> FailureContext,
) -> Result<c_int, IdaError> {
    if flag >= 0 {
        return Ok(flag);
    }
    let FailureContext {
        time,
        callback,
        detail,
    } = context();
    let name = flag_name(kind, flag);
    // A callback failure explains the flag whenever one was recorded during this call: IDA
    // reports it as IDA_RES_FAIL, IDA_REP_RES_ERR, IDA_FIRST_RES_FAIL, IDA_RTFUNC_FAIL,
    // IDA_LSETUP_FAIL (Jacobian), IDA_NO_RECOVERY or a convergence failure.
    let mut last_callback_error = None;
    if let (FlagKind::Ida, Some(failure)) = (kind, callback) {
        let jacobian = failure.kind == CallbackKind::Jacobian;
        let caused_by_callback = !failure.error.is_recoverable()
            || matches!(
                flag,
                sys::IDA_RES_FAIL
                    | sys::IDA_REP_RES_ERR
                    | sys::IDA_FIRST_RES_FAIL
                    | sys::IDA_RTFUNC_FAIL
                    | sys::IDA_NO_RECOVERY
            )
            || (jacobian
                && matches!(
                    flag,
                    sys::IDA_LSETUP_FAIL | sys::IDA_CONV_FAIL | sys::IDA_NLS_FAIL
                ));
        if !caused_by_callback {
            last_callback_error = Some(format!("{}: {}", failure.kind, failure.error.message()));
        } else {
            return Err(IdaError::Callback {
                call,
                flag,
                name,
                callback: failure.kind,
                time: failure.time,
                recoverable: failure.error.is_recoverable(),
                message: failure.error.message().to_owned(),
            });
        }
    }
    Err(IdaError::Solver {
        call,
        flag,
        name,
        time,
        detail,
        last_callback_error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_names_come_from_sundials() {
        assert_eq!(
            flag_name(FlagKind::Ida, sys::IDA_TOO_MUCH_WORK),
            "IDA_TOO_MUCH_WORK"
        );
        assert_eq!(flag_name(FlagKind::Linear, 0), "IDALS_SUCCESS");
        let e = check_flag(FlagKind::Ida, "IDASolve", sys::IDA_TOO_MUCH_WORK, || {
            FailureContext {
                time: 1.5,
                ..Default::default()
            }
        });
        assert!(e.is_err());
        let Err(e) = e else {
            return;
        };
        let text = e.to_string();
        assert!(text.contains("IDA_TOO_MUCH_WORK"), "{text}");
        assert!(text.contains("step budget"), "{text}");
        assert_eq!(e.flag(), Some(sys::IDA_TOO_MUCH_WORK));
        assert_eq!(
            check_flag(FlagKind::Ida, "x", 2, FailureContext::default),
            Ok(2)
        );
    }
}
