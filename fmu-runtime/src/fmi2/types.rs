//! The C types of `fmi2TypesPlatform.h` and `fmi2FunctionTypes.h` ("default" platform).

use std::ffi::{c_char, c_int, c_uint, c_void};

pub type Fmi2Component = *mut c_void;
pub type Fmi2ComponentEnvironment = *mut c_void;
pub type Fmi2FmuState = *mut c_void;
pub type Fmi2ValueReference = c_uint;
pub type Fmi2Real = f64;
pub type Fmi2Integer = c_int;
pub type Fmi2Boolean = c_int;
pub type Fmi2String = *const c_char;
pub type Fmi2Byte = c_char;

pub const FMI2_TRUE: Fmi2Boolean = 1;
pub const FMI2_FALSE: Fmi2Boolean = 0;

/// `fmi2Status`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fmi2Status {
    Ok = 0,
    Warning = 1,
    Discard = 2,
    Error = 3,
    Fatal = 4,
    Pending = 5,
}

impl Fmi2Status {
    pub fn name(self) -> &'static str {
        match self {
            Fmi2Status::Ok => "fmi2OK",
            Fmi2Status::Warning => "fmi2Warning",
            Fmi2Status::Discard => "fmi2Discard",
            Fmi2Status::Error => "fmi2Error",
            Fmi2Status::Fatal => "fmi2Fatal",
            Fmi2Status::Pending => "fmi2Pending",
        }
    }
}

/// `fmi2Type`, a C enum (passed as an int).
pub type Fmi2Type = c_int;
pub const FMI2_MODEL_EXCHANGE: Fmi2Type = 0;
pub const FMI2_CO_SIMULATION: Fmi2Type = 1;

/// `fmi2StatusKind`, a C enum (passed as an int).
pub type Fmi2StatusKind = c_int;
pub const FMI2_DO_STEP_STATUS: Fmi2StatusKind = 0;
pub const FMI2_PENDING_STATUS: Fmi2StatusKind = 1;
pub const FMI2_LAST_SUCCESSFUL_TIME: Fmi2StatusKind = 2;
pub const FMI2_TERMINATED: Fmi2StatusKind = 3;

/// `fmi2EventInfo`, filled by `fmi2NewDiscreteStates` in Model Exchange
/// ([`super::model_exchange`]).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Fmi2EventInfo {
    pub new_discrete_states_needed: Fmi2Boolean,
    pub terminate_simulation: Fmi2Boolean,
    pub nominals_of_continuous_states_changed: Fmi2Boolean,
    pub values_of_continuous_states_changed: Fmi2Boolean,
    pub next_event_time_defined: Fmi2Boolean,
    pub next_event_time: Fmi2Real,
}

/// `fmi2CallbackLogger`: variadic, called here with the format "%s" and the message.
pub type Fmi2CallbackLogger = unsafe extern "C" fn(
    Fmi2ComponentEnvironment,
    Fmi2String,
    Fmi2Status,
    Fmi2String,
    Fmi2String,
    ...
);

/// `fmi2CallbackFunctions`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Fmi2CallbackFunctions {
    pub logger: Option<Fmi2CallbackLogger>,
    pub allocate_memory: Option<unsafe extern "C" fn(usize, usize) -> *mut c_void>,
    pub free_memory: Option<unsafe extern "C" fn(*mut c_void)>,
    pub step_finished: Option<unsafe extern "C" fn(Fmi2ComponentEnvironment, Fmi2Status)>,
    pub component_environment: Fmi2ComponentEnvironment,
}
