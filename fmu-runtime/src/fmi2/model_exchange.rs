//! The ten Model Exchange functions of FMI 2.0. This FMU is Co-Simulation only: its
//! modelDescription.xml declares `<CoSimulation>` and no `<ModelExchange>`, and
//! `fmi2Instantiate` refuses `fmi2ModelExchange`. The functions are exported all the same so that
//! the library carries every function of `fmi2Functions.h`: an importer that binds them all from
//! one table, whatever the interface type, loads it.
//!
//! FMI 2.0.4, §2.3 (FMU Distribution): "The implementation must either implement all the
//! functions of FMI for Model Exchange or all the functions of FMI for Co-Simulation or both.
//! Specifically it is required that all functions specified for Model Exchange and/or
//! Co-Simulation are present, even if they are only needed for capabilities that the FMU does
//! not support. The behavior of those functions is unspecified, so while calling environments
//! can rely on the functions being present, they cannot rely on any particular behavior for
//! functions only needed for capabilities the FMU does not support." The letter of the rule asks
//! a Co-Simulation FMU for the common and Co-Simulation functions only; FMI 3.0.1 later required
//! every function of the header, and loaders written that way bind the Model Exchange names too.
//!
//! Each function goes through [`super::boundary::call`] like those of [`super::exports`]: a pointer that
//! is not a live instance gets `fmi2Error` and nothing else; a live instance gets `fmi2Error`,
//! a logged message that says what to do instead, and the error state (as any refused call).
//! No argument besides the instance is read.

use super::boundary::call;
use super::state;
use super::types::*;

/// Why a Model Exchange call cannot work on this FMU, and what to call instead.
pub const CO_SIMULATION_ONLY: &str = "this FMU is instantiated for Co-Simulation: its \
     modelDescription.xml declares only <CoSimulation>, no <ModelExchange>, so the Model Exchange \
     functions are not available; use the co-simulation functions (fmi2DoStep advances the time \
     and integrates the model, fmi2GetReal reads the outputs)";

/// Refuses a Model Exchange call on the instance `c`.
///
/// # Safety
/// `c` must be null or an instance from `fmi2Instantiate`.
unsafe fn co_simulation_only(c: Fmi2Component, function: &'static str) -> Fmi2Status {
    // SAFETY: forwarded contract.
    unsafe {
        call(c, function, state::MODEL_EXCHANGE, |_| {
            Err(CO_SIMULATION_ONLY.to_string())
        })
    }
}

/// # Safety
/// `c` must be null or an instance from `fmi2Instantiate`.
#[no_mangle]
pub unsafe extern "C" fn fmi2EnterEventMode(c: Fmi2Component) -> Fmi2Status {
    // SAFETY: by the host's contract.
    unsafe { co_simulation_only(c, "fmi2EnterEventMode") }
}

/// # Safety
/// `c` must be null or an instance from `fmi2Instantiate`; `event_info` is not read.
#[no_mangle]
pub unsafe extern "C" fn fmi2NewDiscreteStates(
    c: Fmi2Component,
    _event_info: *mut Fmi2EventInfo,
) -> Fmi2Status {
    // SAFETY: by the host's contract.
    unsafe { co_simulation_only(c, "fmi2NewDiscreteStates") }
}

/// # Safety
/// `c` must be null or an instance from `fmi2Instantiate`.
#[no_mangle]
pub unsafe extern "C" fn fmi2EnterContinuousTimeMode(c: Fmi2Component) -> Fmi2Status {
    // SAFETY: by the host's contract.
    unsafe { co_simulation_only(c, "fmi2EnterContinuousTimeMode") }
}

/// # Safety
/// `c` must be null or an instance from `fmi2Instantiate`; the flags are not written.
#[no_mangle]
pub unsafe extern "C" fn fmi2CompletedIntegratorStep(
    c: Fmi2Component,
    _no_set_fmu_state_prior_to_current_point: Fmi2Boolean,
    _enter_event_mode: *mut Fmi2Boolean,
    _terminate_simulation: *mut Fmi2Boolean,
) -> Fmi2Status {
    // SAFETY: by the host's contract.
    unsafe { co_simulation_only(c, "fmi2CompletedIntegratorStep") }
}

/// # Safety
/// `c` must be null or an instance from `fmi2Instantiate`.
#[no_mangle]
pub unsafe extern "C" fn fmi2SetTime(c: Fmi2Component, _time: Fmi2Real) -> Fmi2Status {
    // SAFETY: by the host's contract.
    unsafe { co_simulation_only(c, "fmi2SetTime") }
}

/// # Safety
/// `c` must be null or an instance from `fmi2Instantiate`; `x` is not read.
#[no_mangle]
pub unsafe extern "C" fn fmi2SetContinuousStates(
    c: Fmi2Component,
    _x: *const Fmi2Real,
    _nx: usize,
) -> Fmi2Status {
    // SAFETY: by the host's contract.
    unsafe { co_simulation_only(c, "fmi2SetContinuousStates") }
}

/// # Safety
/// `c` must be null or an instance from `fmi2Instantiate`; `derivatives` is not written.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetDerivatives(
    c: Fmi2Component,
    _derivatives: *mut Fmi2Real,
    _nx: usize,
) -> Fmi2Status {
    // SAFETY: by the host's contract.
    unsafe { co_simulation_only(c, "fmi2GetDerivatives") }
}

/// # Safety
/// `c` must be null or an instance from `fmi2Instantiate`; `event_indicators` is not written.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetEventIndicators(
    c: Fmi2Component,
    _event_indicators: *mut Fmi2Real,
    _ni: usize,
) -> Fmi2Status {
    // SAFETY: by the host's contract.
    unsafe { co_simulation_only(c, "fmi2GetEventIndicators") }
}

/// # Safety
/// `c` must be null or an instance from `fmi2Instantiate`; `x` is not written.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetContinuousStates(
    c: Fmi2Component,
    _x: *mut Fmi2Real,
    _nx: usize,
) -> Fmi2Status {
    // SAFETY: by the host's contract.
    unsafe { co_simulation_only(c, "fmi2GetContinuousStates") }
}

/// # Safety
/// `c` must be null or an instance from `fmi2Instantiate`; `x_nominal` is not written.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetNominalsOfContinuousStates(
    c: Fmi2Component,
    _x_nominal: *mut Fmi2Real,
    _nx: usize,
) -> Fmi2Status {
    // SAFETY: by the host's contract.
    unsafe { co_simulation_only(c, "fmi2GetNominalsOfContinuousStates") }
}
