//! One FMU instance in safe Rust. The C functions of [`super::exports`] validate their
//! arguments, turn them into Rust values and call a method here; every method returns the status
//! to report or an error message, which the boundary logs and turns into `fmi2Error`.

use super::logger::{Category, Logger};
use super::resources;
use super::state::{Mask, ModelState};
use super::types::Fmi2Status;
use crate::assembly::{Causality, VariableKind};
use crate::fmu::{self, MODEL_FILE};
use crate::model;
use crate::model::units::{self, OutOfRange};
use crate::simulation::{
    DiscreteUpdate, Simulation, SimulationError, SimulationOptions, Snapshot,
    MAX_OUTPUT_DERIVATIVE_ORDER,
};
use std::path::{Path, PathBuf};

/// What went wrong in a call, for the log: the boundary reports it as `fmi2Error`.
pub type CallError = String;

/// The experiment as `fmi2SetupExperiment` set it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Setup {
    pub tolerance: Option<f64>,
    pub start_time: f64,
    pub stop_time: Option<f64>,
}

/// An instance's state as `fmi2GetFMUstate` captures it.
#[derive(Debug, Clone, PartialEq)]
pub struct InstanceState {
    pub state: ModelState,
    pub setup: Setup,
    /// Parameter values the master set, by parameter index.
    pub parameters: Vec<Option<f64>>,
    pub last_successful_time: f64,
    /// The simulation at that instant (none before initialization).
    pub simulation: Option<Snapshot>,
}

/// The FMI interface an instance was made for (`fmuType` of `fmi2Instantiate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interface {
    /// The importer integrates: it sets time and states and reads derivatives.
    ModelExchange,
    /// The FMU integrates between communication points (`fmi2DoStep`).
    CoSimulation,
}

impl Interface {
    /// The interface that is not this one.
    pub const fn other(self) -> Interface {
        match self {
            Interface::ModelExchange => Interface::CoSimulation,
            Interface::CoSimulation => Interface::ModelExchange,
        }
    }

    /// The interface's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Interface::ModelExchange => "Model Exchange",
            Interface::CoSimulation => "Co-Simulation",
        }
    }
}

pub struct Instance {
    pub logger: Logger,
    pub state: ModelState,
    pub interface: Interface,
    /// The model file as read from the FMU, and where (for messages).
    source: String,
    model_path: PathBuf,
    guid: String,
    /// Built with every moving body's pose as an output ([`fmu::guid_with`]).
    pose_outputs: bool,
    setup: Setup,
    /// Parameters the master set; the others keep the value the model file computes.
    parameters: Vec<Option<f64>>,
    simulation: Simulation,
    /// Parameters or the experiment changed since `simulation` was built.
    stale: bool,
    last_successful_time: f64,
}

impl std::fmt::Debug for Instance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Instance")
            .field("state", &self.state)
            .field("model", &self.model_path)
            .finish()
    }
}

impl Instance {
    /// `fmi2Instantiate` after its arguments were checked: finds the model in the resources,
    /// checks the GUID and prepares the simulation with the model's own parameter values.
    pub fn new(
        logger: Logger,
        guid: &str,
        resource_location: Option<&str>,
        interface: Interface,
    ) -> Result<Instance, CallError> {
        let model_path = find_model(&logger, resource_location)?;
        let source = std::fs::read_to_string(&model_path)
            .map_err(|e| format!("cannot read the model file {}: {e}", model_path.display()))?;
        let spec = model::load_str(&source, &model_path.display().to_string())
            .map_err(|e| e.to_string())?;
        // The GUID says whether the FMU was built with every moving body's pose as an output.
        let pose_outputs = guid == fmu::guid_with(&source, &spec, true);
        let expected = fmu::guid_with(&source, &spec, pose_outputs);
        if guid != expected {
            return Err(format!(
                "the GUID {guid} does not match this FMU (its model gives {expected}): the \
                 modelDescription.xml and resources/{MODEL_FILE} (or a mesh file beside it) come \
                 from different builds; rebuild the FMU with `fmu3d build`"
            ));
        }
        let setup = Setup {
            tolerance: None,
            start_time: spec.experiment.start_time,
            stop_time: None,
        };
        let options = SimulationOptions {
            pose_outputs,
            ..SimulationOptions::default()
        };
        let mut simulation = Simulation::new(spec, options).map_err(|e| e.to_string())?;
        if interface == Interface::ModelExchange {
            simulation.enter_model_exchange();
        }
        let parameters = vec![None; simulation.scene.parameters.len()];
        Ok(Instance {
            logger,
            state: ModelState::Instantiated,
            interface,
            source,
            model_path,
            guid: expected,
            pose_outputs,
            setup,
            parameters,
            last_successful_time: setup.start_time,
            simulation,
            stale: false,
        })
    }

    pub fn guid(&self) -> &str {
        &self.guid
    }

    pub fn variable_count(&self) -> usize {
        self.simulation.variables.variables.len()
    }

    pub fn setup_experiment(
        &mut self,
        tolerance: Option<f64>,
        start_time: f64,
        stop_time: Option<f64>,
    ) -> Result<Fmi2Status, CallError> {
        if !start_time.is_finite() {
            return Err(format!(
                "the start time must be a finite number, not {start_time}"
            ));
        }
        if let Some(tolerance) = tolerance {
            if !(tolerance > 0.0 && tolerance < 1.0) {
                return Err(format!(
                    "the tolerance must be between 0 and 1, not {tolerance}"
                ));
            }
        }
        if let Some(stop) = stop_time {
            if stop.is_nan() || stop < start_time {
                return Err(format!(
                    "the stop time {stop} s is before the start time {start_time} s"
                ));
            }
        }
        self.setup = Setup {
            tolerance,
            start_time,
            stop_time,
        };
        self.last_successful_time = start_time;
        self.stale = true;
        Ok(Fmi2Status::Ok)
    }

    /// Rebuilds the simulation if parameters or the experiment changed, keeping the inputs.
    fn ensure_current(&mut self) -> Result<(), CallError> {
        if !self.stale {
            return Ok(());
        }
        let overrides: Vec<(String, f64)> = self
            .parameters
            .iter()
            .enumerate()
            .filter_map(|(i, value)| {
                value.map(|v| (self.simulation.scene.parameters[i].name.clone(), v))
            })
            .collect();
        let mut spec = model::load_str_with(
            &self.source,
            &self.model_path.display().to_string(),
            &overrides,
        )
        .map_err(|e| format!("the model cannot be evaluated with the parameters set: {e}"))?;
        spec.experiment.start_time = self.setup.start_time;
        let options = SimulationOptions {
            tolerance: self.setup.tolerance,
            pose_outputs: self.pose_outputs,
            ..SimulationOptions::default()
        };
        let mut simulation = Simulation::new(spec, options)
            .map_err(|e| format!("the model cannot start with the parameters set: {e}"))?;
        if simulation.variables.variables.len() != self.simulation.variables.variables.len() {
            return Err(
                "the parameters set change the model's structure; this FMU cannot follow".into(),
            );
        }
        let inputs: Vec<usize> = simulation
            .variables
            .variables
            .iter()
            .enumerate()
            .filter(|(_, v)| v.causality == Causality::Input)
            .map(|(i, _)| i)
            .collect();
        for index in inputs {
            let value = self.simulation.input(index).map_err(|e| e.to_string())?;
            simulation
                .set_input(index, value)
                .map_err(|e| e.to_string())?;
        }
        if self.interface == Interface::ModelExchange {
            simulation.enter_model_exchange();
        }
        self.simulation = simulation;
        self.stale = false;
        Ok(())
    }

    pub fn enter_initialization_mode(&mut self) -> Result<Fmi2Status, CallError> {
        self.ensure_current()?;
        self.state = ModelState::InitializationMode;
        Ok(Fmi2Status::Ok)
    }

    pub fn exit_initialization_mode(&mut self) -> Result<Fmi2Status, CallError> {
        self.ensure_current()?;
        self.last_successful_time = self.simulation.time();
        self.state = match self.interface {
            Interface::CoSimulation => ModelState::StepComplete,
            // FMI 2.0.4 §3.2.3: initialization ends in event mode.
            Interface::ModelExchange => ModelState::EventMode,
        };
        Ok(Fmi2Status::Ok)
    }

    pub fn terminate(&mut self) -> Result<Fmi2Status, CallError> {
        self.state = ModelState::Terminated;
        Ok(Fmi2Status::Ok)
    }

    /// Back to the state right after instantiation, with the model's own parameter values.
    pub fn reset(&mut self) -> Result<Fmi2Status, CallError> {
        let spec = model::load_str(&self.source, &self.model_path.display().to_string())
            .map_err(|e| e.to_string())?;
        self.setup = Setup {
            tolerance: None,
            start_time: spec.experiment.start_time,
            stop_time: None,
        };
        let options = SimulationOptions {
            pose_outputs: self.pose_outputs,
            ..SimulationOptions::default()
        };
        self.simulation = Simulation::new(spec, options).map_err(|e| e.to_string())?;
        if self.interface == Interface::ModelExchange {
            self.simulation.enter_model_exchange();
        }
        self.parameters = vec![None; self.parameters.len()];
        self.last_successful_time = self.setup.start_time;
        self.stale = false;
        self.state = ModelState::Instantiated;
        Ok(Fmi2Status::Ok)
    }

    fn check_reference(&self, vr: u32) -> Result<usize, CallError> {
        let count = self.variable_count();
        let index = vr as usize;
        if index < count {
            Ok(index)
        } else {
            Err(format!(
                "value reference {vr} does not exist: this FMU's Real variables have value \
                 references 0 to {}",
                count.saturating_sub(1)
            ))
        }
    }

    pub fn get_real(
        &mut self,
        references: &[u32],
        values: &mut [f64],
    ) -> Result<Fmi2Status, CallError> {
        for &vr in references {
            self.check_reference(vr)?;
        }
        self.ensure_current()?;
        self.simulation
            .values_into(references.iter().map(|&vr| vr as usize), values);
        Ok(Fmi2Status::Ok)
    }

    pub fn set_real(
        &mut self,
        references: &[u32],
        values: &[f64],
    ) -> Result<Fmi2Status, CallError> {
        // Check everything before changing anything: a refused call leaves no half-done work.
        for (&vr, &value) in references.iter().zip(values) {
            let index = self.check_reference(vr)?;
            let variable = &self.simulation.variables.variables[index];
            if let Some(problem) = OutOfRange::check(&[value], variable.unit) {
                let name = &variable.name;
                return Err(match problem {
                    OutOfRange::NotFinite => {
                        format!("`{name}` cannot be set to {value}: {}", problem.limit())
                    }
                    OutOfRange::TooLarge => {
                        format!("`{name}` cannot be set to {value:e}: {}", problem.limit())
                    }
                    OutOfRange::FasterThanLight => format!(
                        "`{name}` cannot be set to {value:e} {}, faster than light: {}",
                        units::name(variable.unit),
                        problem.limit()
                    ),
                });
            }
            match (variable.causality, variable.kind) {
                (Causality::Input, _) => {}
                (Causality::Parameter, VariableKind::Parameter(p)) => {
                    if self.simulation.scene.parameters[p].structural {
                        return Err(format!(
                            "parameter `{}` decides the model's structure and cannot be changed in \
                             the FMU; change it in the model file and rebuild the FMU",
                            variable.name
                        ));
                    }
                    if !matches!(
                        self.state,
                        ModelState::Instantiated | ModelState::InitializationMode
                    ) {
                        return Err(format!(
                            "parameter `{}` is fixed: it can only be set before \
                             fmi2ExitInitializationMode (use fmi2Reset to start again)",
                            variable.name
                        ));
                    }
                }
                (Causality::Local, _) => {
                    return Err(format!(
                        "`{}` (value reference {vr}) is a continuous state or a state \
                         derivative, computed by the FMU, and cannot be set; in Model Exchange \
                         set the states with fmi2SetContinuousStates",
                        variable.name
                    ))
                }
                _ => {
                    return Err(format!(
                        "`{}` is an output (value reference {vr}) and cannot be set",
                        variable.name
                    ))
                }
            }
        }
        for (&vr, &value) in references.iter().zip(values) {
            let index = vr as usize;
            match self.simulation.variables.variables[index].kind {
                VariableKind::Parameter(p) => {
                    if self.parameters[p] != Some(value) {
                        self.parameters[p] = Some(value);
                        self.stale = true;
                    }
                }
                _ => self
                    .simulation
                    .set_input(index, value)
                    .map_err(|e| e.to_string())?,
            }
        }
        Ok(Fmi2Status::Ok)
    }

    pub fn set_real_input_derivatives(
        &mut self,
        references: &[u32],
        orders: &[i32],
        values: &[f64],
    ) -> Result<Fmi2Status, CallError> {
        for ((&vr, &order), &value) in references.iter().zip(orders).zip(values) {
            let index = self.check_reference(vr)?;
            let name = self.simulation.variables.variables[index].name.clone();
            if !value.is_finite() {
                return Err(format!("the derivative of `{name}` cannot be {value}"));
            }
            let order = usize::try_from(order)
                .map_err(|_| format!("derivative order {order} of `{name}` is negative"))?;
            self.simulation
                .set_input_derivative(index, order, value)
                .map_err(|e| format!("`{name}`: {e}"))?;
        }
        Ok(Fmi2Status::Ok)
    }

    /// `fmi2GetRealOutputDerivatives`: every reference an output, every order between 1 and
    /// the FMU's `maxOutputDerivativeOrder`; checked before anything is computed.
    pub fn get_real_output_derivatives(
        &mut self,
        references: &[u32],
        orders: &[i32],
        values: &mut [f64],
    ) -> Result<Fmi2Status, CallError> {
        let mut indices = Vec::with_capacity(references.len());
        for (&vr, &order) in references.iter().zip(orders) {
            let index = self.check_reference(vr)?;
            let variable = &self.simulation.variables.variables[index];
            if variable.causality != Causality::Output {
                return Err(format!(
                    "`{}` (value reference {vr}) is not an output: derivatives are provided for                      outputs only",
                    variable.name
                ));
            }
            if !(1..=MAX_OUTPUT_DERIVATIVE_ORDER).contains(&usize::try_from(order).unwrap_or(0)) {
                return Err(format!(
                    "derivative order {order} of `{}` is not provided: this FMU's                      maxOutputDerivativeOrder is {MAX_OUTPUT_DERIVATIVE_ORDER}",
                    variable.name
                ));
            }
            indices.push(index);
        }
        self.ensure_current()?;
        self.simulation.output_derivatives_into(&indices, values);
        Ok(Fmi2Status::Ok)
    }

    pub fn do_step(&mut self, current: f64, step: f64) -> Result<Fmi2Status, CallError> {
        let now = self.simulation.time();
        if !(step > 0.0 && step.is_finite()) {
            return Err(format!(
                "communicationStepSize must be a positive number of seconds, not {step}"
            ));
        }
        if !current.is_finite() || (current - now).abs() > 1e-9 * now.abs().max(1.0) {
            return Err(format!(
                "currentCommunicationPoint = {current} s does not continue from the last \
                 communication point {now} s; each step must start where the previous one ended \
                 (use fmi2SetFMUstate to go back)"
            ));
        }
        let target = current + step;
        // Below a few units in the last place of t (of 1 s near t = 0), t + h rounds back to t
        // or leaves the integrator no room: the step would report success without advancing.
        let resolution = 4.0 * f64::EPSILON * now.abs().max(1.0);
        if step < resolution {
            return Err(format!(
                "communicationStepSize = {step:e} s is below the resolution of the time at t = \
                 {now} s ({resolution:e} s): the step would not advance the time; take steps of \
                 at least {resolution:e} s"
            ));
        }
        if let Some(stop) = self.setup.stop_time {
            if target > stop + 1e-9 * stop.abs().max(1.0) {
                return Err(format!(
                    "the step to {target} s goes past the stop time {stop} s set by fmi2SetupExperiment"
                ));
            }
        }
        let logging_stats = self.logger.is_enabled(Category::SolverStats);
        let before = logging_stats.then(|| self.simulation.stats());
        if let Err(failure) = self.simulation.advance_to(target.max(now)) {
            return self.discard_or_fail(now, target, &failure);
        }
        self.last_successful_time = self.simulation.time();
        if let Some(before) = before {
            let after = self.simulation.stats();
            self.logger.log(
                Fmi2Status::Ok,
                Category::SolverStats,
                &format!(
                    "step {now} → {target} s: {} IDA steps, {} residual evaluations, {} Jacobians, \
                     {} error-test failures; so far: {} restarts, {} outputs interpolated, {} \
                     contact events",
                    after.steps - before.steps,
                    after.total_residual_evals() - before.total_residual_evals(),
                    after.jacobian_evals - before.jacobian_evals,
                    after.error_test_failures - before.error_test_failures,
                    self.simulation.restarts(),
                    self.simulation.interpolated_outputs(),
                    self.simulation.events()
                ),
            );
        }
        Ok(Fmi2Status::Ok)
    }

    /// A step the integrator could not finish: `fmi2Discard` when the simulation can be put in a
    /// consistent state at the last instant reached (the master may read it there, or restore
    /// a state saved before the step and retry with a smaller step), `fmi2Error` otherwise.
    fn discard_or_fail(
        &mut self,
        now: f64,
        target: f64,
        failure: &SimulationError,
    ) -> Result<Fmi2Status, CallError> {
        let SimulationError::Solver(_) = failure else {
            return Err(format!(
                "the step from {now} s to {target} s failed: {failure}"
            ));
        };
        match self.simulation.recover() {
            Ok(reached) if reached.is_finite() && reached >= now => {
                self.last_successful_time = reached;
                self.state = ModelState::StepFailed;
                self.logger.log(
                    Fmi2Status::Discard,
                    Category::Warning,
                    &format!(
                        "fmi2DoStep: the step from {now} s to {target} s stopped at {reached} s, \
                         where the state is consistent: {failure}. Read the results at \
                         fmi2LastSuccessfulTime = {reached} s, or restore an FMU state saved \
                         before the step (fmi2SetFMUstate) and retry with a smaller \
                         communication step"
                    ),
                );
                Ok(Fmi2Status::Discard)
            }
            Ok(reached) => Err(format!(
                "the step from {now} s to {target} s failed: {failure}; the integrator ended \
                 at {reached} s"
            )),
            Err(restart) => Err(format!(
                "the step from {now} s to {target} s failed: {failure}; no consistent state \
                 could be found where it stopped ({restart}), {}",
                self.simulation.diagnosis()
            )),
        }
    }

    /// `nx` of a Model Exchange call against the model's number of continuous states.
    fn check_state_count(&self, nx: usize, argument: &str) -> Result<(), CallError> {
        let count = self.simulation.continuous_state_count();
        if nx == count {
            Ok(())
        } else {
            Err(format!(
                "{argument} = {nx}, but this model has {count} continuous states \
                 (numberOfContinuousStates: the <Derivatives> of modelDescription.xml)"
            ))
        }
    }

    pub fn set_time(&mut self, t: f64) -> Result<Fmi2Status, CallError> {
        self.simulation.set_time(t).map_err(|e| e.to_string())?;
        Ok(Fmi2Status::Ok)
    }

    pub fn set_continuous_states(&mut self, x: &[f64]) -> Result<Fmi2Status, CallError> {
        self.check_state_count(x.len(), "nx")?;
        self.simulation
            .set_continuous_states(x)
            .map_err(|e| e.to_string())?;
        Ok(Fmi2Status::Ok)
    }

    pub fn get_continuous_states(&mut self, x: &mut [f64]) -> Result<Fmi2Status, CallError> {
        self.check_state_count(x.len(), "nx")?;
        x.copy_from_slice(self.simulation.continuous_states());
        Ok(Fmi2Status::Ok)
    }

    /// Every state's nominal value is 1: coordinates, speeds and currents of a size near 1 in
    /// SI units, the unit quaternions exactly.
    pub fn get_nominals(&mut self, nominals: &mut [f64]) -> Result<Fmi2Status, CallError> {
        self.check_state_count(nominals.len(), "nx")?;
        nominals.fill(1.0);
        Ok(Fmi2Status::Ok)
    }

    pub fn get_derivatives(&mut self, derivatives: &mut [f64]) -> Result<Fmi2Status, CallError> {
        self.check_state_count(derivatives.len(), "nx")?;
        let t = self.simulation.time();
        let values = self
            .simulation
            .derivatives()
            .map_err(|e| format!("the derivatives cannot be evaluated at t = {t} s: {e}"))?;
        derivatives.copy_from_slice(values);
        Ok(Fmi2Status::Ok)
    }

    pub fn get_event_indicators(
        &mut self,
        indicators: &mut [f64],
    ) -> Result<Fmi2Status, CallError> {
        let count = self.simulation.event_indicator_count();
        if indicators.len() != count {
            return Err(format!(
                "ni = {}, but this model has {count} event indicators \
                 (numberOfEventIndicators in modelDescription.xml)",
                indicators.len()
            ));
        }
        self.simulation
            .event_indicators(indicators)
            .map_err(|e| e.to_string())?;
        Ok(Fmi2Status::Ok)
    }

    pub fn enter_event_mode(&mut self) -> Result<Fmi2Status, CallError> {
        self.state = ModelState::EventMode;
        Ok(Fmi2Status::Ok)
    }

    /// `fmi2NewDiscreteStates`: one update settles everything (no event iteration is needed,
    /// and no time event is ever announced).
    pub fn new_discrete_states(&mut self) -> Result<DiscreteUpdate, CallError> {
        self.simulation
            .update_discrete_states()
            .map_err(|e| e.to_string())
    }

    pub fn enter_continuous_time_mode(&mut self) -> Result<Fmi2Status, CallError> {
        self.state = ModelState::ContinuousTimeMode;
        Ok(Fmi2Status::Ok)
    }

    /// `fmi2CompletedIntegratorStep`: whether the importer must enter event mode now.
    pub fn completed_integrator_step(&mut self) -> bool {
        self.last_successful_time = self.simulation.time();
        self.simulation.step_completed()
    }

    pub fn last_successful_time(&self) -> f64 {
        self.last_successful_time
    }

    /// `fmi2GetFMUstate`.
    pub fn save(&mut self) -> Result<InstanceState, CallError> {
        let simulation = if self.state == ModelState::Instantiated {
            None
        } else {
            self.ensure_current()?;
            Some(self.simulation.snapshot().map_err(|e| e.to_string())?)
        };
        Ok(InstanceState {
            state: self.state,
            setup: self.setup,
            parameters: self.parameters.clone(),
            last_successful_time: self.last_successful_time,
            simulation,
        })
    }

    /// `fmi2SetFMUstate`.
    pub fn restore(&mut self, saved: &InstanceState) -> Result<Fmi2Status, CallError> {
        // A state in a mode of the other interface would leave this instance in a state its
        // functions cannot leave (FMI 2.0: one fmuType per instance).
        let other = self.interface.other();
        if Mask::only(other).contains(saved.state) {
            return Err(format!(
                "the FMU state was taken from a {} instance (in {}); this instance was made for \
                 {}: restore it into an instance of the same fmuType",
                other.name(),
                saved.state.name(),
                self.interface.name()
            ));
        }
        if saved.parameters.len() != self.parameters.len() {
            return Err("the FMU state belongs to another model".into());
        }
        if saved.parameters != self.parameters || saved.setup != self.setup {
            self.parameters = saved.parameters.clone();
            self.setup = saved.setup;
            self.stale = true;
            self.ensure_current()?;
        }
        if let Some(snapshot) = &saved.simulation {
            self.simulation
                .restore(snapshot)
                .map_err(|e| e.to_string())?;
        }
        self.last_successful_time = saved.last_successful_time;
        self.state = saved.state;
        Ok(Fmi2Status::Ok)
    }
}

/// The model file in the FMU's resources, from the URI or, failing that, from where this
/// library was loaded (logged as a warning).
fn find_model(logger: &Logger, resource_location: Option<&str>) -> Result<PathBuf, CallError> {
    let given = resource_location.and_then(resources::path_from_uri);
    if let Some(folder) = &given {
        let path = folder.join(MODEL_FILE);
        if path.is_file() {
            return Ok(path);
        }
    }
    let why = match (resource_location, &given) {
        (None, _) => "no fmuResourceLocation was given".to_string(),
        (Some(uri), None) => format!("fmuResourceLocation `{uri}` is not a local file URI"),
        (Some(uri), Some(folder)) => format!(
            "fmuResourceLocation `{uri}` has no {MODEL_FILE} (looked in {})",
            folder.display()
        ),
    };
    let fallback = resources::resources_of_loaded_library().map(|folder| folder.join(MODEL_FILE));
    match fallback {
        Some(path) if path.is_file() => {
            logger.warning(&format!(
                "{why}; using the resources of the FMU this library was loaded from: {}",
                path.display()
            ));
            Ok(path)
        }
        _ => Err(format!(
            "{why}, and there is no {} next to this library either: pass the URI of the \
             unpacked FMU's resources folder",
            Path::new("resources").join(MODEL_FILE).display()
        )),
    }
}
