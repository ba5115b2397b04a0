//! Every function of the FMI 2.0 Co-Simulation API. Each one validates its arguments, then hands
//! the work to [`Instance`] through [`boundary::call`]; none contains model logic.

use super::boundary::{self, call, slice, slice_mut, string, Component};
use super::fmu_state::{self, FmuState};
use super::instance::{Instance, Interface};
use super::logger::{Category, Logger};
use super::state;
use super::types::*;
use crate::fmu::FMI_VERSION_C;
use std::ffi::c_char;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Logs an fmi2 call with its arguments under `logCalls`.
pub(super) fn log_call(instance: &Instance, text: impl FnOnce() -> String) {
    if instance.logger.is_enabled(Category::Calls) {
        instance
            .logger
            .log(Fmi2Status::Ok, Category::Calls, &text());
    }
}

#[no_mangle]
pub extern "C" fn fmi2GetTypesPlatform() -> *const c_char {
    c"default".as_ptr()
}

#[no_mangle]
pub extern "C" fn fmi2GetVersion() -> *const c_char {
    FMI_VERSION_C.as_ptr()
}

/// # Safety
/// `categories` must point to `n_categories` C strings (or `n_categories` be 0).
#[no_mangle]
pub unsafe extern "C" fn fmi2SetDebugLogging(
    c: Fmi2Component,
    logging_on: Fmi2Boolean,
    n_categories: usize,
    categories: *const Fmi2String,
) -> Fmi2Status {
    // SAFETY: the host's pointers, checked in the body.
    unsafe {
        call(
            c,
            "fmi2SetDebugLogging",
            state::SET_DEBUG_LOGGING,
            |instance| {
                let pointers = slice(categories, n_categories, "categories[]")?;
                let names = pointers
                    .iter()
                    .map(|&p| string(p, "a category name").map(str::to_string))
                    .collect::<Result<Vec<_>, _>>()?;
                instance
                    .logger
                    .set_debug_logging(logging_on != FMI2_FALSE, &names)?;
                Ok(Fmi2Status::Ok)
            },
        )
    }
}

/// # Safety
/// The arguments must follow the FMI 2.0 contract for `fmi2Instantiate`; null pointers are
/// reported, not dereferenced.
#[no_mangle]
pub unsafe extern "C" fn fmi2Instantiate(
    instance_name: Fmi2String,
    fmu_type: Fmi2Type,
    fmu_guid: Fmi2String,
    fmu_resource_location: Fmi2String,
    functions: *const Fmi2CallbackFunctions,
    _visible: Fmi2Boolean,
    logging_on: Fmi2Boolean,
) -> Fmi2Component {
    // Without callbacks and a logger there is no way to tell the host what is wrong: refuse,
    // saying why on standard error, the one channel left.
    if functions.is_null() || !functions.is_aligned() {
        eprintln!(
            "fmi2Instantiate: refused: the functions argument is NULL or misaligned; pass an \
             fmi2CallbackFunctions with a logger and allocateMemory/freeMemory"
        );
        return std::ptr::null_mut();
    }
    // SAFETY: non-null and aligned; the host passes a valid fmi2CallbackFunctions.
    let functions = unsafe { *functions };
    let Some(callback) = functions.logger else {
        eprintln!(
            "fmi2Instantiate: refused: the callback functions have no logger (NULL); FMI 2.0 \
             requires one, through which the FMU reports every error"
        );
        return std::ptr::null_mut();
    };
    let result = catch_unwind(AssertUnwindSafe(|| {
        super::resources::pin_loaded_library();
        // SAFETY: null-checked inside; NUL-terminated by the host's contract.
        let name = unsafe { string(instance_name, "instanceName") }.unwrap_or("(no name)");
        let logger = Logger::new(
            callback,
            functions.component_environment,
            name,
            logging_on != FMI2_FALSE,
        );
        let made = (|| {
            let logger = logger.clone();
            // SAFETY: as above.
            let name = unsafe { string(instance_name, "instanceName") }?;
            if name.is_empty() {
                return Err("instanceName is empty".to_string());
            }
            let interface = match fmu_type {
                FMI2_MODEL_EXCHANGE => Interface::ModelExchange,
                FMI2_CO_SIMULATION => Interface::CoSimulation,
                _ => {
                    return Err(format!(
                        "fmuType {fmu_type} is not an FMI 2.0 interface type: this FMU \
                         implements Model Exchange (fmi2ModelExchange = {FMI2_MODEL_EXCHANGE}) \
                         and Co-Simulation (fmi2CoSimulation = {FMI2_CO_SIMULATION})"
                    ))
                }
            };
            // SAFETY: as above.
            let guid = unsafe { string(fmu_guid, "fmuGUID") }?;
            // SAFETY: as above; a null location is allowed (the library finds its own folder).
            let location = unsafe { string(fmu_resource_location, "fmuResourceLocation") }.ok();
            Instance::new(logger, guid, location, interface)
        })();
        match made {
            Ok(instance) => {
                log_call(&instance, || {
                    format!("fmi2Instantiate: GUID {}", instance.guid())
                });
                Box::into_raw(Box::new(Component::new(instance))).cast()
            }
            Err(message) => {
                logger.error(&format!("fmi2Instantiate: {message}"));
                std::ptr::null_mut()
            }
        }
    }));
    result.unwrap_or(std::ptr::null_mut())
}

/// # Safety
/// `c` must be null or an instance from `fmi2Instantiate`, not used after this call.
#[no_mangle]
pub unsafe extern "C" fn fmi2FreeInstance(c: Fmi2Component) {
    let _ = catch_unwind(|| {
        // SAFETY: by the host's contract.
        unsafe { boundary::free(c) }
    });
}

/// # Safety
/// `c` must be an instance from `fmi2Instantiate`.
#[no_mangle]
pub unsafe extern "C" fn fmi2SetupExperiment(
    c: Fmi2Component,
    tolerance_defined: Fmi2Boolean,
    tolerance: Fmi2Real,
    start_time: Fmi2Real,
    stop_time_defined: Fmi2Boolean,
    stop_time: Fmi2Real,
) -> Fmi2Status {
    // SAFETY: by the host's contract.
    unsafe {
        call(
            c,
            "fmi2SetupExperiment",
            state::SETUP_EXPERIMENT,
            |instance| {
                log_call(instance, || {
                    format!("fmi2SetupExperiment: tolerance {tolerance} ({tolerance_defined}), start {start_time}, stop {stop_time} ({stop_time_defined})")
                });
                instance.setup_experiment(
                    (tolerance_defined != FMI2_FALSE).then_some(tolerance),
                    start_time,
                    (stop_time_defined != FMI2_FALSE).then_some(stop_time),
                )
            },
        )
    }
}

/// A call with no arguments but the instance.
///
/// # Safety
/// `c` must be an instance from `fmi2Instantiate`.
unsafe fn simple(
    c: Fmi2Component,
    name: &'static str,
    mask: state::Mask,
    method: fn(&mut Instance) -> Result<Fmi2Status, String>,
) -> Fmi2Status {
    // SAFETY: forwarded contract.
    unsafe {
        call(c, name, mask, |instance| {
            log_call(instance, || name.to_string());
            method(instance)
        })
    }
}

/// # Safety
/// `c` must be an instance from `fmi2Instantiate`.
#[no_mangle]
pub unsafe extern "C" fn fmi2EnterInitializationMode(c: Fmi2Component) -> Fmi2Status {
    // SAFETY: by the host's contract.
    unsafe {
        simple(
            c,
            "fmi2EnterInitializationMode",
            state::ENTER_INITIALIZATION_MODE,
            Instance::enter_initialization_mode,
        )
    }
}

/// # Safety
/// `c` must be an instance from `fmi2Instantiate`.
#[no_mangle]
pub unsafe extern "C" fn fmi2ExitInitializationMode(c: Fmi2Component) -> Fmi2Status {
    // SAFETY: by the host's contract.
    unsafe {
        simple(
            c,
            "fmi2ExitInitializationMode",
            state::EXIT_INITIALIZATION_MODE,
            Instance::exit_initialization_mode,
        )
    }
}

/// # Safety
/// `c` must be an instance from `fmi2Instantiate`.
#[no_mangle]
pub unsafe extern "C" fn fmi2Terminate(c: Fmi2Component) -> Fmi2Status {
    // SAFETY: by the host's contract.
    unsafe { simple(c, "fmi2Terminate", state::TERMINATE, Instance::terminate) }
}

/// # Safety
/// `c` must be an instance from `fmi2Instantiate`.
#[no_mangle]
pub unsafe extern "C" fn fmi2Reset(c: Fmi2Component) -> Fmi2Status {
    // SAFETY: by the host's contract.
    unsafe { simple(c, "fmi2Reset", state::RESET, Instance::reset) }
}

/// # Safety
/// `vr` and `value` must point to `nvr` elements.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetReal(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    value: *mut Fmi2Real,
) -> Fmi2Status {
    // SAFETY: by the host's contract; arrays checked in the body.
    unsafe {
        call(c, "fmi2GetReal", state::GET_VALUES, |instance| {
            let references = slice(vr, nvr, "vr[]")?;
            let values = slice_mut(value, nvr, "value[]")?;
            instance.get_real(references, values)
        })
    }
}

/// # Safety
/// `vr` and `value` must point to `nvr` elements.
#[no_mangle]
pub unsafe extern "C" fn fmi2SetReal(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    value: *const Fmi2Real,
) -> Fmi2Status {
    // SAFETY: by the host's contract; arrays checked in the body.
    unsafe {
        call(c, "fmi2SetReal", state::SET_REAL, |instance| {
            let references = slice(vr, nvr, "vr[]")?;
            let values = slice(value, nvr, "value[]")?;
            log_call(instance, || {
                format!("fmi2SetReal: {references:?} = {values:?}")
            });
            instance.set_real(references, values)
        })
    }
}

/// This FMU has Real variables only: any other type's value reference does not exist.
fn no_variables_of(
    type_name: &str,
    references: &[Fmi2ValueReference],
) -> Result<Fmi2Status, String> {
    match references.first() {
        None => Ok(Fmi2Status::Ok),
        Some(vr) => Err(format!(
            "value reference {vr} does not exist: this FMU has no {type_name} variables"
        )),
    }
}

/// Get or set of a type this FMU has no variables of.
///
/// # Safety
/// `c` must be an instance from `fmi2Instantiate`; `vr` must point to `nvr` elements.
unsafe fn no_variables(
    c: Fmi2Component,
    name: &'static str,
    mask: state::Mask,
    type_name: &str,
    vr: *const Fmi2ValueReference,
    nvr: usize,
) -> Fmi2Status {
    // SAFETY: forwarded contract; the array is checked in the body.
    unsafe {
        call(c, name, mask, |_| {
            no_variables_of(type_name, slice(vr, nvr, "vr[]")?)
        })
    }
}

/// # Safety
/// `vr` must point to `nvr` elements.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetInteger(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    _value: *mut Fmi2Integer,
) -> Fmi2Status {
    // SAFETY: by the host's contract.
    unsafe { no_variables(c, "fmi2GetInteger", state::GET_VALUES, "Integer", vr, nvr) }
}

/// # Safety
/// `vr` must point to `nvr` elements.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetBoolean(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    _value: *mut Fmi2Boolean,
) -> Fmi2Status {
    // SAFETY: by the host's contract.
    unsafe { no_variables(c, "fmi2GetBoolean", state::GET_VALUES, "Boolean", vr, nvr) }
}

/// # Safety
/// `vr` must point to `nvr` elements.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetString(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    _value: *mut Fmi2String,
) -> Fmi2Status {
    // SAFETY: by the host's contract.
    unsafe { no_variables(c, "fmi2GetString", state::GET_VALUES, "String", vr, nvr) }
}

/// # Safety
/// `vr` must point to `nvr` elements.
#[no_mangle]
pub unsafe extern "C" fn fmi2SetInteger(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    _value: *const Fmi2Integer,
) -> Fmi2Status {
    // SAFETY: by the host's contract.
    unsafe { no_variables(c, "fmi2SetInteger", state::SET_OTHER, "Integer", vr, nvr) }
}

/// # Safety
/// `vr` must point to `nvr` elements.
#[no_mangle]
pub unsafe extern "C" fn fmi2SetBoolean(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    _value: *const Fmi2Boolean,
) -> Fmi2Status {
    // SAFETY: by the host's contract.
    unsafe { no_variables(c, "fmi2SetBoolean", state::SET_OTHER, "Boolean", vr, nvr) }
}

/// # Safety
/// `vr` must point to `nvr` elements.
#[no_mangle]
pub unsafe extern "C" fn fmi2SetString(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    _value: *const Fmi2String,
) -> Fmi2Status {
    // SAFETY: by the host's contract.
    unsafe { no_variables(c, "fmi2SetString", state::SET_OTHER, "String", vr, nvr) }
}

/// # Safety
/// `fmu_state` must point to a writable handle (null or an earlier state of this instance).
#[no_mangle]
pub unsafe extern "C" fn fmi2GetFMUstate(
    c: Fmi2Component,
    fmu_state: *mut Fmi2FmuState,
) -> Fmi2Status {
    // SAFETY: by the host's contract; the handle pointer is checked in the body.
    unsafe {
        call(c, "fmi2GetFMUstate", state::GET_FMU_STATE, |instance| {
            let handle = slice_mut(fmu_state, 1, "FMUstate")?;
            let saved = instance.save()?;
            // Reuse the host's earlier state object if it passed one.
            match fmu_state::get(handle[0]) {
                Some(existing) => existing.state = saved,
                None => handle[0] = FmuState::new(instance.guid(), saved).into_raw(),
            }
            Ok(Fmi2Status::Ok)
        })
    }
}

/// # Safety
/// `fmu_state` must be a state from `fmi2GetFMUstate` or `fmi2DeSerializeFMUstate`.
#[no_mangle]
pub unsafe extern "C" fn fmi2SetFMUstate(c: Fmi2Component, fmu_state: Fmi2FmuState) -> Fmi2Status {
    // SAFETY: by the host's contract; the handle is checked in the body.
    unsafe {
        call(c, "fmi2SetFMUstate", state::SET_FMU_STATE, |instance| {
            let saved = fmu_state::get(fmu_state)
                .ok_or("FMUstate is not a state of this FMU (null, freed or foreign)")?;
            if saved.guid != instance.guid() {
                return Err("FMUstate belongs to another FMU".to_string());
            }
            let saved = saved.state.clone();
            instance.restore(&saved)
        })
    }
}

/// # Safety
/// `fmu_state` must point to a handle from `fmi2GetFMUstate` (or null).
#[no_mangle]
pub unsafe extern "C" fn fmi2FreeFMUstate(
    c: Fmi2Component,
    fmu_state: *mut Fmi2FmuState,
) -> Fmi2Status {
    // SAFETY: by the host's contract; the handle pointer is checked in the body.
    unsafe {
        call(c, "fmi2FreeFMUstate", state::FREE_FMU_STATE, |_| {
            let handle = slice_mut(fmu_state, 1, "FMUstate")?;
            if !handle[0].is_null() && !fmu_state::free(handle[0]) {
                return Err("FMUstate is not a state of this FMU (freed or foreign)".to_string());
            }
            handle[0] = std::ptr::null_mut();
            Ok(Fmi2Status::Ok)
        })
    }
}

/// # Safety
/// `size` must point to a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn fmi2SerializedFMUstateSize(
    c: Fmi2Component,
    fmu_state: Fmi2FmuState,
    size: *mut usize,
) -> Fmi2Status {
    // SAFETY: by the host's contract; pointers checked in the body.
    unsafe {
        call(
            c,
            "fmi2SerializedFMUstateSize",
            state::SERIALIZATION,
            |_| {
                let saved =
                    fmu_state::get(fmu_state).ok_or("FMUstate is not a state of this FMU")?;
                slice_mut(size, 1, "size")?[0] = fmu_state::serialize(saved).len();
                Ok(Fmi2Status::Ok)
            },
        )
    }
}

/// # Safety
/// `serialized` must point to `size` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn fmi2SerializeFMUstate(
    c: Fmi2Component,
    fmu_state: Fmi2FmuState,
    serialized: *mut Fmi2Byte,
    size: usize,
) -> Fmi2Status {
    // SAFETY: by the host's contract; pointers checked in the body.
    unsafe {
        call(c, "fmi2SerializeFMUstate", state::SERIALIZATION, |_| {
            let saved = fmu_state::get(fmu_state).ok_or("FMUstate is not a state of this FMU")?;
            let bytes = fmu_state::serialize(saved);
            if size != bytes.len() {
                return Err(format!(
                    "size is {size} bytes, but the state needs {} (ask fmi2SerializedFMUstateSize)",
                    bytes.len()
                ));
            }
            let out = slice_mut(serialized.cast::<u8>(), size, "serializedState[]")?;
            out.copy_from_slice(&bytes);
            Ok(Fmi2Status::Ok)
        })
    }
}

/// # Safety
/// `serialized` must point to `size` bytes; `fmu_state` to a writable handle.
#[no_mangle]
pub unsafe extern "C" fn fmi2DeSerializeFMUstate(
    c: Fmi2Component,
    serialized: *const Fmi2Byte,
    size: usize,
    fmu_state: *mut Fmi2FmuState,
) -> Fmi2Status {
    // SAFETY: by the host's contract; pointers checked in the body.
    unsafe {
        call(
            c,
            "fmi2DeSerializeFMUstate",
            state::SERIALIZATION,
            |instance| {
                let bytes = slice(serialized.cast::<u8>(), size, "serializedState[]")?;
                let handle = slice_mut(fmu_state, 1, "FMUstate")?;
                let state = fmu_state::deserialize(bytes, instance.guid())?;
                match fmu_state::get(handle[0]) {
                    Some(existing) => *existing = state,
                    None => handle[0] = state.into_raw(),
                }
                Ok(Fmi2Status::Ok)
            },
        )
    }
}

/// # Safety
/// `c` must be an instance from `fmi2Instantiate`.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetDirectionalDerivative(
    c: Fmi2Component,
    _unknown: *const Fmi2ValueReference,
    _n_unknown: usize,
    _known: *const Fmi2ValueReference,
    _n_known: usize,
    _dv_known: *const Fmi2Real,
    _dv_unknown: *mut Fmi2Real,
) -> Fmi2Status {
    // SAFETY: by the host's contract.
    unsafe {
        call(
            c,
            "fmi2GetDirectionalDerivative",
            state::GET_DIRECTIONAL_DERIVATIVE,
            |_| {
                Err("this FMU does not provide directional derivatives \
                 (providesDirectionalDerivative=\"false\")"
                    .to_string())
            },
        )
    }
}

/// # Safety
/// `vr`, `order` and `value` must point to `nvr` elements.
#[no_mangle]
pub unsafe extern "C" fn fmi2SetRealInputDerivatives(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    order: *const Fmi2Integer,
    value: *const Fmi2Real,
) -> Fmi2Status {
    // SAFETY: by the host's contract; arrays checked in the body.
    unsafe {
        call(
            c,
            "fmi2SetRealInputDerivatives",
            state::SET_REAL_INPUT_DERIVATIVES,
            |instance| {
                let references = slice(vr, nvr, "vr[]")?;
                let orders = slice(order, nvr, "order[]")?;
                let values = slice(value, nvr, "value[]")?;
                log_call(instance, || {
                    format!(
                        "fmi2SetRealInputDerivatives: {references:?} order {orders:?} = {values:?}"
                    )
                });
                instance.set_real_input_derivatives(references, orders, values)
            },
        )
    }
}

/// # Safety
/// `vr`, `order` and `value` must point to `nvr` elements.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetRealOutputDerivatives(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    order: *const Fmi2Integer,
    value: *mut Fmi2Real,
) -> Fmi2Status {
    // SAFETY: by the host's contract; arrays checked in the body.
    unsafe {
        call(
            c,
            "fmi2GetRealOutputDerivatives",
            state::GET_REAL_OUTPUT_DERIVATIVES,
            |instance| {
                let references = slice(vr, nvr, "vr[]")?;
                let orders = slice(order, nvr, "order[]")?;
                let values = slice_mut(value, nvr, "value[]")?;
                log_call(instance, || {
                    format!("fmi2GetRealOutputDerivatives: {references:?} order {orders:?}")
                });
                instance.get_real_output_derivatives(references, orders, values)
            },
        )
    }
}

/// # Safety
/// `c` must be an instance from `fmi2Instantiate`.
#[no_mangle]
pub unsafe extern "C" fn fmi2DoStep(
    c: Fmi2Component,
    current_communication_point: Fmi2Real,
    communication_step_size: Fmi2Real,
    _no_set_fmu_state_prior_to_current_point: Fmi2Boolean,
) -> Fmi2Status {
    // SAFETY: by the host's contract.
    unsafe {
        call(c, "fmi2DoStep", state::DO_STEP, |instance| {
            log_call(instance, || {
                format!(
                    "fmi2DoStep: t = {current_communication_point}, h = {communication_step_size}"
                )
            });
            instance.do_step(current_communication_point, communication_step_size)
        })
    }
}

/// # Safety
/// `c` must be an instance from `fmi2Instantiate`.
#[no_mangle]
pub unsafe extern "C" fn fmi2CancelStep(c: Fmi2Component) -> Fmi2Status {
    // SAFETY: by the host's contract. fmi2DoStep never returns fmi2Pending, so the state
    // "step in progress" in which this is allowed is never reached: the mask refuses the call.
    unsafe {
        call(c, "fmi2CancelStep", state::CANCEL_STEP, |_| {
            Err("fmi2DoStep never runs asynchronously: there is no step to cancel".to_string())
        })
    }
}

/// Answers a status query: `Some(value)` for the kinds this type can report, `None` for the
/// others (fmi2Discard, the specification's answer to a status a slave cannot report).
///
/// # Safety
/// `c` must be an instance from `fmi2Instantiate`; `value` a writable `T`.
unsafe fn status_query<T>(
    c: Fmi2Component,
    name: &'static str,
    value: *mut T,
    answer: impl FnOnce(&Instance) -> Option<T>,
) -> Fmi2Status {
    // SAFETY: forwarded contract; the pointer is checked in the body.
    unsafe {
        call(c, name, state::GET_STATUS, |instance| {
            let out = slice_mut(value, 1, "value")?;
            match answer(instance) {
                Some(v) => {
                    out[0] = v;
                    Ok(Fmi2Status::Ok)
                }
                None => Ok(Fmi2Status::Discard),
            }
        })
    }
}

/// # Safety
/// `value` must point to a writable `fmi2Status`.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetStatus(
    c: Fmi2Component,
    s: Fmi2StatusKind,
    value: *mut Fmi2Status,
) -> Fmi2Status {
    // SAFETY: by the host's contract. fmi2DoStep never pends: its status is always fmi2OK.
    unsafe {
        status_query(c, "fmi2GetStatus", value, |_| {
            (s == FMI2_DO_STEP_STATUS).then_some(Fmi2Status::Ok)
        })
    }
}

/// # Safety
/// `value` must point to a writable `fmi2Real`.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetRealStatus(
    c: Fmi2Component,
    s: Fmi2StatusKind,
    value: *mut Fmi2Real,
) -> Fmi2Status {
    // SAFETY: by the host's contract.
    unsafe {
        status_query(c, "fmi2GetRealStatus", value, |instance| {
            (s == FMI2_LAST_SUCCESSFUL_TIME).then(|| instance.last_successful_time())
        })
    }
}

/// # Safety
/// `value` must point to a writable `fmi2Integer`.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetIntegerStatus(
    c: Fmi2Component,
    _s: Fmi2StatusKind,
    value: *mut Fmi2Integer,
) -> Fmi2Status {
    // SAFETY: by the host's contract. No integer status kind exists in FMI 2.0.
    unsafe { status_query(c, "fmi2GetIntegerStatus", value, |_| None) }
}

/// # Safety
/// `value` must point to a writable `fmi2Boolean`.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetBooleanStatus(
    c: Fmi2Component,
    s: Fmi2StatusKind,
    value: *mut Fmi2Boolean,
) -> Fmi2Status {
    // SAFETY: by the host's contract. The slave never asks to end the simulation.
    unsafe {
        status_query(c, "fmi2GetBooleanStatus", value, |_| {
            (s == FMI2_TERMINATED).then_some(FMI2_FALSE)
        })
    }
}

/// # Safety
/// `value` must point to a writable `fmi2String`.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetStringStatus(
    c: Fmi2Component,
    _s: Fmi2StatusKind,
    value: *mut Fmi2String,
) -> Fmi2Status {
    // SAFETY: by the host's contract. The pending status has no description: nothing pends.
    unsafe { status_query(c, "fmi2GetStringStatus", value, |_| None) }
}
