//! The FMI 2.0 Co-Simulation state machine (specification §4.2.4) as bit masks: each function
//! declares the states it may be called in, checked before it does any work.

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
        }
    }

    pub const ALL: [ModelState; 9] = [
        ModelState::Instantiated,
        ModelState::InitializationMode,
        ModelState::StepComplete,
        ModelState::StepInProgress,
        ModelState::StepFailed,
        ModelState::StepCanceled,
        ModelState::Terminated,
        ModelState::Error,
        ModelState::Fatal,
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

    pub fn contains(self, state: ModelState) -> bool {
        self.0 & state as u32 != 0
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
]);
pub const SET_DEBUG_LOGGING: Mask = ANY;
pub const SETUP_EXPERIMENT: Mask = Mask::of(&[Instantiated]);
pub const ENTER_INITIALIZATION_MODE: Mask = Mask::of(&[Instantiated]);
pub const EXIT_INITIALIZATION_MODE: Mask = Mask::of(&[InitializationMode]);
pub const TERMINATE: Mask = Mask::of(&[StepComplete, StepFailed, StepCanceled]);
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
]);
pub const SET_REAL: Mask = Mask::of(&[Instantiated, InitializationMode, StepComplete]);
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
/// The Model Exchange functions reach their body in every state but fatal, so that each call
/// is answered with why it cannot work here (model_exchange.rs), not with a state table.
pub const MODEL_EXCHANGE: Mask = ANY;
