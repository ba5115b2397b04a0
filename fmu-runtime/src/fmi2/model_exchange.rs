//! The ten Model Exchange functions of FMI 2.0 (specification §3.2): the importer's integrator
//! sets the time and the continuous states, reads the derivatives and the event indicators,
//! and calls the event update where an indicator changed sign or a completed step asked for it.
//! What the functions compute is [`crate::simulation::Simulation`]'s explicit form (see
//! `simulation/model_exchange.rs`); here the arguments are checked and the state machine moved.
//!
//! Each function goes through [`super::boundary::call`] like those of [`super::exports`]: a
//! pointer that is not a live instance gets `fmi2Error`; the function's state mask
//! ([`super::state`]) refuses a call in another state (every call of a Co-Simulation instance:
//! its states are not those of Model Exchange) before any argument is read; arrays are checked
//! (null, alignment, length against the model's counts) before anything is written.

use super::boundary::{call, slice, slice_mut};
use super::exports::log_call;
use super::instance::{Instance, Interface};
use super::state;
use super::types::*;

/// Says which interface the instance has when a Model Exchange function meets a Co-Simulation
/// instance; the state mask has refused it already, this names the cause.
fn model_exchange_only(instance: &Instance, function: &str) -> Result<(), String> {
    match instance.interface {
        Interface::ModelExchange => Ok(()),
        Interface::CoSimulation => Err(format!(
            "{function} is a Model Exchange function, and this instance was made for \
             Co-Simulation (fmuType fmi2CoSimulation); instantiate with fmi2ModelExchange, or \
             use fmi2DoStep"
        )),
    }
}

/// # Safety
/// `c` must be null or an instance from `fmi2Instantiate`.
#[no_mangle]
pub unsafe extern "C" fn fmi2EnterEventMode(c: Fmi2Component) -> Fmi2Status {
    // SAFETY: by the host's contract.
    unsafe {
        call(
            c,
            "fmi2EnterEventMode",
            state::ENTER_EVENT_MODE,
            |instance| {
                log_call(instance, || "fmi2EnterEventMode".into());
                instance.enter_event_mode()
            },
        )
    }
}

/// # Safety
/// `c` must be null or an instance from `fmi2Instantiate`; `event_info` must be null or point
/// to an `fmi2EventInfo`.
#[no_mangle]
pub unsafe extern "C" fn fmi2NewDiscreteStates(
    c: Fmi2Component,
    event_info: *mut Fmi2EventInfo,
) -> Fmi2Status {
    // SAFETY: by the host's contract; the pointer checked in the body.
    unsafe {
        call(
            c,
            "fmi2NewDiscreteStates",
            state::NEW_DISCRETE_STATES,
            |instance| {
                let [info] = slice_mut(event_info, 1, "fmi2EventInfo")? else {
                    return Err("fmi2EventInfo is not one element".into());
                };
                let update = instance.new_discrete_states()?;
                log_call(instance, || {
                    format!(
                        "fmi2NewDiscreteStates: states changed: {}",
                        update.states_changed
                    )
                });
                *info = Fmi2EventInfo {
                    new_discrete_states_needed: FMI2_FALSE,
                    terminate_simulation: FMI2_FALSE,
                    nominals_of_continuous_states_changed: FMI2_FALSE,
                    values_of_continuous_states_changed: Fmi2Boolean::from(update.states_changed),
                    next_event_time_defined: FMI2_FALSE,
                    next_event_time: 0.0,
                };
                Ok(Fmi2Status::Ok)
            },
        )
    }
}

/// # Safety
/// `c` must be null or an instance from `fmi2Instantiate`.
#[no_mangle]
pub unsafe extern "C" fn fmi2EnterContinuousTimeMode(c: Fmi2Component) -> Fmi2Status {
    // SAFETY: by the host's contract.
    unsafe {
        call(
            c,
            "fmi2EnterContinuousTimeMode",
            state::ENTER_CONTINUOUS_TIME_MODE,
            |instance| {
                log_call(instance, || "fmi2EnterContinuousTimeMode".into());
                instance.enter_continuous_time_mode()
            },
        )
    }
}

/// # Safety
/// `c` must be null or an instance from `fmi2Instantiate`; the two flags must be null or point
/// to an `fmi2Boolean` each.
#[no_mangle]
pub unsafe extern "C" fn fmi2CompletedIntegratorStep(
    c: Fmi2Component,
    _no_set_fmu_state_prior_to_current_point: Fmi2Boolean,
    enter_event_mode: *mut Fmi2Boolean,
    terminate_simulation: *mut Fmi2Boolean,
) -> Fmi2Status {
    // SAFETY: by the host's contract; the pointers checked in the body.
    unsafe {
        call(
            c,
            "fmi2CompletedIntegratorStep",
            state::COMPLETED_INTEGRATOR_STEP,
            |instance| {
                let [enter] = slice_mut(enter_event_mode, 1, "enterEventMode")? else {
                    return Err("enterEventMode is not one element".into());
                };
                let [terminate] = slice_mut(terminate_simulation, 1, "terminateSimulation")? else {
                    return Err("terminateSimulation is not one element".into());
                };
                let event = instance.completed_integrator_step();
                log_call(instance, || {
                    format!("fmi2CompletedIntegratorStep: enter event mode: {event}")
                });
                *enter = Fmi2Boolean::from(event);
                *terminate = FMI2_FALSE;
                Ok(Fmi2Status::Ok)
            },
        )
    }
}

/// # Safety
/// `c` must be null or an instance from `fmi2Instantiate`.
#[no_mangle]
pub unsafe extern "C" fn fmi2SetTime(c: Fmi2Component, time: Fmi2Real) -> Fmi2Status {
    // SAFETY: by the host's contract.
    unsafe {
        call(c, "fmi2SetTime", state::SET_TIME, |instance| {
            log_call(instance, || format!("fmi2SetTime: {time}"));
            instance.set_time(time)
        })
    }
}

/// # Safety
/// `c` must be null or an instance from `fmi2Instantiate`; `x` must point to `nx` elements.
#[no_mangle]
pub unsafe extern "C" fn fmi2SetContinuousStates(
    c: Fmi2Component,
    x: *const Fmi2Real,
    nx: usize,
) -> Fmi2Status {
    // SAFETY: by the host's contract; the array checked in the body.
    unsafe {
        call(
            c,
            "fmi2SetContinuousStates",
            state::SET_CONTINUOUS_STATES,
            |instance| {
                let x = slice(x, nx, "x[]")?;
                instance.set_continuous_states(x)
            },
        )
    }
}

/// # Safety
/// `c` must be null or an instance from `fmi2Instantiate`; `derivatives` must point to `nx`
/// elements.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetDerivatives(
    c: Fmi2Component,
    derivatives: *mut Fmi2Real,
    nx: usize,
) -> Fmi2Status {
    // SAFETY: by the host's contract; the array checked in the body.
    unsafe {
        call(c, "fmi2GetDerivatives", state::GET_CONTINUOUS, |instance| {
            model_exchange_only(instance, "fmi2GetDerivatives")?;
            let derivatives = slice_mut(derivatives, nx, "derivatives[]")?;
            instance.get_derivatives(derivatives)
        })
    }
}

/// # Safety
/// `c` must be null or an instance from `fmi2Instantiate`; `event_indicators` must point to
/// `ni` elements.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetEventIndicators(
    c: Fmi2Component,
    event_indicators: *mut Fmi2Real,
    ni: usize,
) -> Fmi2Status {
    // SAFETY: by the host's contract; the array checked in the body.
    unsafe {
        call(
            c,
            "fmi2GetEventIndicators",
            state::GET_CONTINUOUS,
            |instance| {
                model_exchange_only(instance, "fmi2GetEventIndicators")?;
                let indicators = slice_mut(event_indicators, ni, "eventIndicators[]")?;
                instance.get_event_indicators(indicators)
            },
        )
    }
}

/// # Safety
/// `c` must be null or an instance from `fmi2Instantiate`; `x` must point to `nx` elements.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetContinuousStates(
    c: Fmi2Component,
    x: *mut Fmi2Real,
    nx: usize,
) -> Fmi2Status {
    // SAFETY: by the host's contract; the array checked in the body.
    unsafe {
        call(
            c,
            "fmi2GetContinuousStates",
            state::GET_CONTINUOUS,
            |instance| {
                model_exchange_only(instance, "fmi2GetContinuousStates")?;
                let x = slice_mut(x, nx, "x[]")?;
                instance.get_continuous_states(x)
            },
        )
    }
}

/// # Safety
/// `c` must be null or an instance from `fmi2Instantiate`; `x_nominal` must point to `nx`
/// elements.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetNominalsOfContinuousStates(
    c: Fmi2Component,
    x_nominal: *mut Fmi2Real,
    nx: usize,
) -> Fmi2Status {
    // SAFETY: by the host's contract; the array checked in the body.
    unsafe {
        call(
            c,
            "fmi2GetNominalsOfContinuousStates",
            state::GET_NOMINALS,
            |instance| {
                model_exchange_only(instance, "fmi2GetNominalsOfContinuousStates")?;
                let nominals = slice_mut(x_nominal, nx, "x_nominal[]")?;
                instance.get_nominals(nominals)
            },
        )
    }
}
