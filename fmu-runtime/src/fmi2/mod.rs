//! (6) The FMI 2.0 Co-Simulation C API over a [`crate::simulation::Simulation`].
//!
//! - [`exports`]: every `fmi2*` function of Co-Simulation, each a thin shell around [`boundary`].
//! - [`model_exchange`]: the ten Model Exchange functions, exported so that the library has every
//!   function of `fmi2Functions.h`; each refuses with a message (this FMU is Co-Simulation only).
//! - [`boundary`]: the one place where C meets Rust: null and magic checks of the instance, the
//!   allowed-state mask of the function, `catch_unwind`, status escalation into the state
//!   machine.
//! - [`state`]: the states of the FMI 2.0 state machine and each function's mask.
//! - [`instance`]: an FMU instance in safe Rust: parameters, inputs, stepping, errors.
//! - [`fmu_state`]: `fmi2GetFMUstate` and its serialized form.
//! - [`logger`], [`resources`], [`types`]: the host's callbacks, the resource folder, C types.

#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::todo,
    clippy::unreachable,
    clippy::unimplemented,
    clippy::undocumented_unsafe_blocks
)]

pub mod boundary;
pub mod exports;
pub mod fmu_state;
pub mod instance;
pub mod logger;
pub mod model_exchange;
pub mod resources;
pub mod state;
pub mod types;
