//! The FMI 2.0 state machines of Co-Simulation (specification §4.2.4) and Model Exchange
//! (§3.2.3) as bit masks: each function declares the states it may be called in, checked before
//! it does any work. The two share the states up to initialization and after termination; a
//! Co-Simulation instance then steps (step complete, in progress, failed, canceled), a Model
//! Exchange instance alternates between event mode and continuous-time mode, so a function of
//! one interface is refused by its mask in every state of the other.

use super::instance::Interface;

/// One state of an instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum ModelState {
    Instantiated = 1 << 0,
    InitializationMode = 1 << 1,
    StepComplete = 1 << 2,
    StepInProgress = 1 << 3,
    StepFailed = 1 << 4,
    StepCanceled = 1 << 5,
    Terminated = 1 << 6,
    Error = 1 << 7,
    Fatal = 1 << 8,
    EventMode = 1 << 9,
    ContinuousTimeMode = 1 << 10,
}

impl ModelState {
    pub fn name(self) -> &'static str {
        match self {
            ModelState::Instantiated => "instantiated",
            ModelState::InitializationMode => "initialization mode",
            ModelState::StepComplete => "step complete",
            ModelState::StepInProgress => "step in progress",
            ModelState::StepFailed => "step failed",
            ModelState::StepCanceled => "step canceled",
            ModelState::Terminated => "terminated",
            ModelState::Error => "error",
            ModelState::Fatal => "fatal",
            ModelState::EventMode => "event mode",
            ModelState::ContinuousTimeMode => "continuous-time mode",
        }
    }

    pub const ALL: [ModelState; 11] = [
        ModelState::Instantiated,
        ModelState::InitializationMode,
        ModelState::StepComplete,
        ModelState::StepInProgress,
        ModelState::StepFailed,
        ModelState::StepCanceled,
        ModelState::Terminated,
        ModelState::Error,
        ModelState::Fatal,
        ModelState::EventMode,
        ModelState::ContinuousTimeMode,
    ];
}

/// A set of states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mask(pub u32);

impl Mask {
    pub const fn of(states: &[ModelState]) -> Mask {
        let mut bits = 0;
        let mut i = 0;
        while i < states.len() {
            bits |= states[i] as u32;
            i += 1;
        }
        Mask(bits)
    }

    /// The states only an instance of `interface` can be in: stepping for Co-Simulation, the
    /// event and continuous-time modes for Model Exchange.
    pub const fn only(interface: Interface) -> Mask {
        match interface {
            Interface::CoSimulation => {
                Mask::of(&[StepComplete, StepInProgress, StepFailed, StepCanceled])
            }
            Interface::ModelExchange => Mask::of(&[EventMode, ContinuousTimeMode]),
        }
    }

    pub fn contains(self, state: ModelState) -> bool {
        self.0 & state as u32 != 0
    }

    /// Why a function of one interface is refused in every state of an instance of the other,
    /// for the message: empty when the mask has states of the instance's interface.
    pub fn interface_hint(self, interface: Interface) -> &'static str {
        let (own, other) = (Mask::only(interface), Mask::only(interface.other()));
        if self.0 & own.0 != 0 || self.0 & other.0 == 0 {
            return "";
        }
        match interface {
            Interface::CoSimulation => {
                " (a Model Exchange function: this instance was made for Co-Simulation, fmuType \
                 fmi2CoSimulation; instantiate with fmi2ModelExchange to use it, or advance with \
                 fmi2DoStep)"
            }
            Interface::ModelExchange => {
                " (a Co-Simulation function: this instance was made for Model Exchange, fmuType \
                 fmi2ModelExchange; instantiate with fmi2CoSimulation to use it, or integrate \
                 with fmi2SetTime, fmi2SetContinuousStates and fmi2GetDerivatives)"
            }
        }
    }

    /// The states of the mask, for messages.
    pub fn describe(self) -> String {
        let names: Vec<&str> = ModelState::ALL
            .iter()
            .filter(|s| self.contains(**s))
            .map(|s| s.name())
            .collect();
        if names.is_empty() {
            "no state".to_string()
        } else {
            names.join(", ")
        }
    }
}

use ModelState::*;

/// Every state but fatal: functions that only manage the instance.
pub const ANY: Mask = Mask::of(&[
    Instantiated,
    InitializationMode,
    StepComplete,
    StepInProgress,
    StepFailed,
    StepCanceled,
    Terminated,
    Error,
    EventMode,
    ContinuousTimeMode,
]);
pub const SET_DEBUG_LOGGING: Mask = ANY;
pub const SETUP_EXPERIMENT: Mask = Mask::of(&[Instantiated]);
pub const ENTER_INITIALIZATION_MODE: Mask = Mask::of(&[Instantiated]);
pub const EXIT_INITIALIZATION_MODE: Mask = Mask::of(&[InitializationMode]);
pub const TERMINATE: Mask = Mask::of(&[
    StepComplete,
    StepFailed,
    StepCanceled,
    EventMode,
    ContinuousTimeMode,
]);
pub const RESET: Mask = ANY;
/// Readable after an error too, for diagnostics (FMI 2.0.4's state table); the values are
/// those of the last instant the simulation reached.
pub const GET_VALUES: Mask = Mask::of(&[
    InitializationMode,
    StepComplete,
    StepFailed,
    StepCanceled,
    Terminated,
    Error,
    EventMode,
    ContinuousTimeMode,
]);
pub const SET_REAL: Mask = Mask::of(&[
    Instantiated,
    InitializationMode,
    StepComplete,
    EventMode,
    ContinuousTimeMode,
]);
pub const SET_OTHER: Mask = SET_REAL;
pub const GET_FMU_STATE: Mask = ANY;
pub const SET_FMU_STATE: Mask = ANY;
pub const FREE_FMU_STATE: Mask = ANY;
pub const SERIALIZATION: Mask = ANY;
pub const GET_DIRECTIONAL_DERIVATIVE: Mask = GET_VALUES;
pub const SET_REAL_INPUT_DERIVATIVES: Mask =
    Mask::of(&[Instantiated, InitializationMode, StepComplete]);
pub const GET_REAL_OUTPUT_DERIVATIVES: Mask =
    Mask::of(&[StepComplete, StepFailed, StepCanceled, Terminated, Error]);
pub const DO_STEP: Mask = Mask::of(&[StepComplete]);
pub const CANCEL_STEP: Mask = Mask::of(&[StepInProgress]);
pub const GET_STATUS: Mask = Mask::of(&[StepComplete, StepInProgress, StepFailed, Terminated]);
// Model Exchange (FMI 2.0.4 §3.2.3).
pub const SET_TIME: Mask = Mask::of(&[EventMode, ContinuousTimeMode]);
pub const SET_CONTINUOUS_STATES: Mask = Mask::of(&[ContinuousTimeMode]);
pub const ENTER_EVENT_MODE: Mask = Mask::of(&[EventMode, ContinuousTimeMode]);
pub const NEW_DISCRETE_STATES: Mask = Mask::of(&[EventMode]);
pub const ENTER_CONTINUOUS_TIME_MODE: Mask = Mask::of(&[EventMode]);
pub const COMPLETED_INTEGRATOR_STEP: Mask = Mask::of(&[ContinuousTimeMode]);
/// The derivatives, event indicators and states: readable in both modes and, for diagnostics,
/// after termination or an error.
pub const GET_CONTINUOUS: Mask = Mask::of(&[EventMode, ContinuousTimeMode, Terminated, Error]);
pub const GET_NOMINALS: Mask = Mask::of(&[
    Instantiated,
    EventMode,
    ContinuousTimeMode,
    Terminated,
    Error,
]);
