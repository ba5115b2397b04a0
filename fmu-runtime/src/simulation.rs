//! (6) The whole chain: model → scene → super-objects → DAE → IDA, and stepping it in time.
//!
//! A [`Simulation`] owns the integrator and the variable table. It is what `fmu3d simulate` runs
//! and what an FMU instance wraps.

use crate::assembly::{
    Assembly, Causality, CollisionSet, ContactQuantity, CutJoint, CutJointKind, DriveQuantity,
    FrameQuantity, TreeJointKind, Variable, VariableKind, VariableTable,
};
use crate::dynamics::contacts::Friction;
use crate::dynamics::BodyMotion;
use crate::dynamics::{
    assemble, consistent_derivatives, contacts, kinematics, residual, AssemblyError, Branches,
    FlangeInputs, Mechanism, Motion, SingularMassMatrix, Workspace,
};
use crate::ida::{
    CallbackError, DaeSystem, DenseMatrixView, Ida, IdaError, IdaOptions, SolverStats, StepKind,
};
use crate::model::{self, ModelError, ModelSpec};
use crate::scene::{Scene, SceneError};
use nalgebra::{Rotation3, UnitQuaternion, Vector3};
use std::f64::consts::PI;
use std::path::Path;

/// Anything that stops a simulation from being built or advanced.
#[derive(Debug)]
pub enum SimulationError {
    Model(ModelError),
    Scene(SceneError),
    Start(SingularMassMatrix),
    /// The kinematic loops cannot be closed at the start.
    Assembly(AssemblyError),
    /// The integrator gave up.
    Solver(Box<SolverFailure>),
    /// A request the simulation cannot serve (a time in the past, an unknown variable).
    Usage(String),
}

/// What the integrator reported, and where.
#[derive(Debug)]
pub struct SolverFailure {
    pub error: IdaError,
    /// The instant and the objects in contact then, with the settings that govern them (empty
    /// when nothing touched).
    pub context: String,
}

impl std::fmt::Display for SimulationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimulationError::Model(e) => write!(f, "{e}"),
            SimulationError::Scene(e) => write!(f, "{e}"),
            SimulationError::Start(e) => write!(f, "{e}"),
            SimulationError::Assembly(e) => write!(f, "{e}"),
            SimulationError::Solver(failure) if failure.context.is_empty() => {
                write!(f, "the integrator failed: {}", failure.error)
            }
            SimulationError::Solver(failure) => write!(
                f,
                "the integrator failed {}: {}",
                failure.context, failure.error
            ),
            SimulationError::Usage(message) => write!(f, "{message}"),
        }
    }
}

impl std::error::Error for SimulationError {}

impl From<ModelError> for SimulationError {
    fn from(e: ModelError) -> Self {
        SimulationError::Model(e)
    }
}
impl From<SceneError> for SimulationError {
    fn from(e: SceneError) -> Self {
        SimulationError::Scene(e)
    }
}
impl From<IdaError> for SimulationError {
    fn from(e: IdaError) -> Self {
        SimulationError::Solver(Box::new(SolverFailure {
            error: e,
            context: String::new(),
        }))
    }
}

/// Settings that override the model's default experiment.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SimulationOptions {
    /// Relative tolerance (the absolute tolerance is the same number, for variables of order 1).
    pub tolerance: Option<f64>,
    /// Largest integrator step [s].
    pub max_step: Option<f64>,
}

/// Highest input derivative order the simulation interpolates with (FMI
/// `fmi2SetRealInputDerivatives`).
pub const MAX_INPUT_DERIVATIVE_ORDER: usize = 3;

/// Highest order of output derivatives the simulation provides (FMI
/// `fmi2GetRealOutputDerivatives`): the first time derivative, exact for every kinematic output
/// and a difference along the solution for the others (see [`Simulation::output_derivatives_into`]).
pub const MAX_OUTPUT_DERIVATIVE_ORDER: usize = 1;

/// The difference step of the output derivatives that are not exact, as a fraction of the
/// integrator's last step: small against the time scale the integrator resolves, large enough
/// that rounding stays far below the truncation error.
const DERIVATIVE_STEP_FRACTION: f64 = 1e-3;

/// One flange input as a function of time: a Taylor polynomial about `t0`, so that a master
/// that provides input derivatives gets them interpolated inside its communication step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InputSignal {
    /// Index of the input variable in the variable table.
    pub variable: usize,
    pub value: f64,
    /// First, second and third derivative at `t0`.
    pub derivatives: [f64; MAX_INPUT_DERIVATIVE_ORDER],
    pub t0: f64,
    /// The value was set to something other than what the previous polynomial gave.
    pub jumped: bool,
}

impl InputSignal {
    pub fn at(&self, t: f64) -> f64 {
        self.derivative_at(t, 0)
    }

    /// The `order`-th time derivative at `t` (0: the value) of the Taylor polynomial.
    fn derivative_at(&self, t: f64, order: usize) -> f64 {
        let dt = t - self.t0;
        let coefficients = std::iter::once(self.value).chain(self.derivatives);
        let mut term = 1.0;
        let mut sum = 0.0;
        for (k, c) in coefficients.skip(order).enumerate() {
            if k > 0 {
                term *= dt / k as f64;
            }
            sum += c * term;
        }
        sum
    }

    /// Whether this signal is, from `t` on, the same function of time as `other` (the same
    /// value and derivatives at `t`, bit for bit).
    fn same_function_from(&self, other: &InputSignal, t: f64) -> bool {
        (0..=MAX_INPUT_DERIVATIVE_ORDER)
            .all(|order| self.derivative_at(t, order) == other.derivative_at(t, order))
    }
}

/// The DAE as IDA sees it.
struct MechanismDae {
    mechanism: Mechanism,
    inputs: FlangeInputs,
    /// Where each input signal goes in `inputs`.
    signals: Vec<(InputSignal, VariableKind)>,
    workspace: Workspace,
    /// Residual output when the model is evaluated for its outputs.
    scratch: Vec<f64>,
    /// The branches whose Jacobian columns are formed together (a scene of several bodies in
    /// contact, without cut-joints); `None`: IDA's own difference quotients.
    branches: Option<Branches>,
    /// The integrator's tolerance (sizes the difference-quotient increments).
    tolerance: f64,
    /// Signed distances of the pairs, scratch of the grouped Jacobian.
    distances: Vec<f64>,
    /// Residual evaluations spent on grouped Jacobians (IDA does not count them).
    jacobian_residuals: u64,
}

impl MechanismDae {
    /// Writes the input signals' values at `t` into the flange inputs.
    fn apply_inputs(&mut self, t: f64) {
        self.inputs.prescribe(&self.mechanism, t);
        for (signal, kind) in &self.signals {
            let value = signal.at(t);
            match *kind {
                VariableKind::JointForce(body) => self.inputs.force[body] = value,
                VariableKind::JointPosition(body) => self.inputs.motion[body].q = value,
                VariableKind::JointSpeed(body) => self.inputs.motion[body].qd = value,
                VariableKind::JointAcceleration(body) => self.inputs.motion[body].qdd = value,
                VariableKind::DriveInput(drive) => self.inputs.drive[drive] = value,
                VariableKind::Drive { .. }
                | VariableKind::Parameter(_)
                | VariableKind::Frame { .. }
                | VariableKind::JointReaction { .. }
                | VariableKind::Contact { .. }
                | VariableKind::CutJointPosition(_)
                | VariableKind::CutJointSpeed(_) => {}
            }
        }
    }

    /// Fills the workspace (kinematics, drive forces) for the instant t with y, ẏ.
    fn evaluate_at(&mut self, t: f64, y: &[f64], yp: &[f64]) {
        self.mechanism_residual(t, y, yp, None);
    }

    /// The mechanism's residual at t into `out` (`None`: into the scratch buffer), with the
    /// inputs applied for t; leaves the workspace filled for that instant. `y`, `ẏ` and `out`
    /// may be longer than the mechanism (padding): only its part is read and written.
    fn mechanism_residual(&mut self, t: f64, y: &[f64], yp: &[f64], out: Option<&mut [f64]>) {
        self.apply_inputs(t);
        let n = self.mechanism.len();
        let out = match out {
            Some(out) => &mut out[..n],
            None => &mut self.scratch[..n],
        };
        residual(
            &self.mechanism,
            &self.inputs,
            &mut self.workspace,
            &y[..n],
            &yp[..n],
            out,
        );
    }

    /// [`contacts::separation_time_bound`] at t from y, ẏ; infinite without collision pairs.
    fn separation_time_bound(&mut self, t: f64, y: &[f64], yp: &[f64]) -> f64 {
        if self.mechanism.collisions.pairs.is_empty() {
            return f64::INFINITY;
        }
        self.apply_inputs(t);
        kinematics(&self.mechanism, &self.inputs, &mut self.workspace, y, yp);
        contacts::distances(&self.mechanism, &self.workspace, &mut self.distances);
        contacts::separation_time_bound(&self.mechanism, &self.workspace, &self.distances)
    }

    /// ẏ consistent with y (of the integrator's size: padded, see [`PADDING`]).
    fn consistent_derivatives(
        &mut self,
        t: f64,
        y: &[f64],
    ) -> Result<Vec<f64>, SingularMassMatrix> {
        self.apply_inputs(t);
        let n = self.mechanism.len();
        let mut yp =
            consistent_derivatives(&self.mechanism, &self.inputs, &mut self.workspace, &y[..n])?;
        yp.resize(y.len(), 0.0);
        Ok(yp)
    }
}

/// The integrator's internal steps allowed per output interval of the model's experiment
/// (SUNDIALS' default per call): a communication step of any length gets the same steps per
/// simulated second.
const STEPS_PER_INTERVAL: u64 = 500;

/// The largest number of states a model may have: the integrator's dense Jacobian and its LU
/// factors take 2 × 8 × n² bytes, 400 MB at this size.
pub const MAX_STATES: usize = 5_000;

/// A mechanism whose every joint is prescribed has no states, but the integrator needs at
/// least one: such a simulation integrates one constant (ẋ = 0) beside it.
const PADDING: usize = 1;

impl DaeSystem for MechanismDae {
    fn residual(
        &mut self,
        t: f64,
        y: &[f64],
        yp: &[f64],
        res: &mut [f64],
    ) -> Result<(), CallbackError> {
        self.mechanism_residual(t, y, yp, Some(res));
        let n = self.mechanism.len();
        for (r, p) in res[n..].iter_mut().zip(&yp[n..]) {
            *r = *p;
        }
        if res.iter().all(|r| r.is_finite()) {
            Ok(())
        } else {
            Err(CallbackError::Recoverable(
                "the residual is not finite".into(),
            ))
        }
    }

    /// One zero-crossing function per collision pair: its signed distance.
    fn root_count(&self) -> usize {
        let set = &self.mechanism.collisions;
        set.pairs.len() + set.sticking.len()
    }

    /// Grouped difference quotients ([`Branches`]): only set up when `branches` is `Some`.
    fn jacobian(
        &mut self,
        t: f64,
        cj: f64,
        y: &[f64],
        yp: &[f64],
        res: &[f64],
        jac: &mut DenseMatrixView<'_>,
    ) -> Option<Result<(), CallbackError>> {
        let branches = self.branches.take()?;
        self.apply_inputs(t);
        kinematics(&self.mechanism, &self.inputs, &mut self.workspace, y, yp);
        contacts::distances(&self.mechanism, &self.workspace, &mut self.distances);
        let links = branches.contact_links(&self.mechanism, &self.distances);
        let tolerance = self.tolerance;
        let result =
            branches.difference_quotients(&links, cj, tolerance, y, yp, res, jac, |y1, yp1, f| {
                self.residual(t, y1, yp1, f)
            });
        self.branches = Some(branches);
        Some(result.map(|evaluations| self.jacobian_residuals += evaluations as u64))
    }

    fn roots(&mut self, t: f64, y: &[f64], yp: &[f64], g: &mut [f64]) -> Result<(), CallbackError> {
        self.apply_inputs(t);
        kinematics(&self.mechanism, &self.inputs, &mut self.workspace, y, yp);
        let (distances, switches) = g.split_at_mut(self.mechanism.collisions.pairs.len());
        contacts::distances(&self.mechanism, &self.workspace, distances);
        contacts::friction_switches(&self.mechanism, &self.workspace, distances, switches);
        if g.iter().all(|d| d.is_finite()) {
            Ok(())
        } else {
            Err(CallbackError::Recoverable(
                "a contact distance is not finite".into(),
            ))
        }
    }
}

/// A model being simulated.
pub struct Simulation {
    pub spec: ModelSpec,
    pub scene: Scene,
    pub assembly: Assembly,
    pub variables: VariableTable,
    ida: Ida<MechanismDae>,
    /// The integrator's history is no longer valid (a restored state).
    restart_pending: bool,
    /// How often the integrator was restarted after the start (input jumps, restored states).
    restarts: u64,
    /// ẏ made consistent with inputs set since the last step (see `refresh_workspace`).
    consistent_yp: Option<Vec<f64>>,
    /// Contact events located so far (instants; crossings found together count once).
    events: u64,
    /// Stick–slip events located so far (not counting those at a contact event's instant).
    friction_events: u64,
    /// Contacts started so far, counted per pair: the same count whichever crossings the
    /// integrator happens to locate together.
    contact_starts: u64,
    /// The angle of every revolute cut-joint reported last (the prismatic ones' entries are
    /// unused): the reference that keeps the angle continuous over turns.
    cut_angles: Vec<f64>,
    /// The model's output interval [s]: the unit of the integrator's step budget
    /// ([`STEPS_PER_INTERVAL`]).
    interval: f64,
    /// An input was set to another function of time since the last step: the integrator must
    /// not keep steps it took past the current instant with the old one.
    inputs_changed: bool,
    /// Communication points whose solution was interpolated in a step that passed them.
    interpolated_outputs: u64,
    /// The time before which no separated pair can touch, from the state where it was last
    /// estimated; kept over calls of [`Simulation::advance_to`] until the steps reach it (or a
    /// restart), so that where the communication points lie does not change the steps.
    horizon: Option<f64>,
}

/// Everything needed to put a simulation back to an earlier instant, bit for bit.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    pub t: f64,
    pub y: Vec<f64>,
    pub yp: Vec<f64>,
    pub signals: Vec<InputSignal>,
    /// The contacts' discrete state (stick or slip, per collision pair).
    pub frictions: Vec<Friction>,
    /// The angle of every cut-joint reported last (see [`Simulation::joint_coordinates`]).
    pub cut_angles: Vec<f64>,
}

impl std::fmt::Debug for Simulation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Simulation")
            .field("model", &self.spec.name)
            .field("time", &self.time())
            .finish()
    }
}

impl Simulation {
    /// Loads a model file and prepares its simulation at the start time.
    pub fn from_file(
        path: &Path,
        options: SimulationOptions,
    ) -> Result<Simulation, SimulationError> {
        Simulation::new(model::load_file(path)?, options)
    }

    pub fn new(spec: ModelSpec, options: SimulationOptions) -> Result<Simulation, SimulationError> {
        let scene = Scene::from_spec(&spec)?;
        let assembly = Assembly::build(&scene)?;
        // Only the world: an empty file, or a scene of frames and fixed parts. Nothing would
        // move, and an FMU of it would silently compute nothing.
        if assembly.super_objects.len() <= 1 {
            return Err(SimulationError::Usage(format!(
                "the model `{}` has no bodies: no object with a mass moves, so there is nothing \
                 to simulate; give an object a `mass` and connect it to the world by a joint",
                spec.name
            )));
        }
        let mut mechanism = Mechanism::new(&scene, &assembly);
        // The integrator's Jacobian and the start solve are dense: refuse before allocating
        // what would take the host down (and before the collision pairs, quadratic in number).
        if mechanism.len() > MAX_STATES {
            return Err(SimulationError::Usage(format!(
                "the model `{}` has {} states, more than the {MAX_STATES} this engine supports: \
                 its integrator works on dense matrices of states × states (8 bytes each, {:.1} GB \
                 here); make the model smaller (fewer bodies, or joints with fewer degrees of \
                 freedom)",
                spec.name,
                mechanism.len(),
                (mechanism.len() as f64).powi(2) * 8.0 / 1e9
            )));
        }
        let collisions = CollisionSet::build(&scene, &assembly)?;
        let variables = VariableTable::new(&scene, &assembly, &collisions);
        mechanism.collisions = collisions;
        let mut inputs = FlangeInputs::new(&mechanism);
        inputs.prescribe(&mechanism, spec.experiment.start_time);
        if let Some(what) = inputs.non_finite_prescription(&mechanism) {
            return Err(SimulationError::Usage(format!(
                "{what} is not finite at the start time {} s: its expression overflows with the \
                 parameters set; give them values of a size the motion can have",
                spec.experiment.start_time
            )));
        }
        let y0 = assemble(&mut mechanism, &inputs).map_err(SimulationError::Assembly)?;
        let mut workspace = Workspace::new(&mechanism);
        kinematics(
            &mechanism,
            &inputs,
            &mut workspace,
            &y0,
            &vec![0.0; y0.len()],
        );
        let deep: Vec<Overlap> = overlaps(&scene, &mechanism, &workspace)
            .into_iter()
            .filter(|o| o.depth > o.limit)
            .collect();
        if !deep.is_empty() {
            return Err(SimulationError::Usage(start_overlap_message(
                &spec.name, &deep,
            )));
        }
        // Pairs in contact at the start time start like contacts found at an event.
        let mut distances = vec![0.0; mechanism.collisions.pairs.len()];
        contacts::distances(&mechanism, &workspace, &mut distances);
        let starts: Vec<i32> = distances
            .iter()
            .map(|&d| if d < 0.0 { -1 } else { 0 })
            .collect();
        contacts::update_frictions(&mechanism, &mut workspace, &starts, &[]);
        let mut yp0 = consistent_derivatives(&mechanism, &inputs, &mut workspace, &y0)
            .map_err(SimulationError::Start)?;
        let mut y0 = y0;
        if y0.is_empty() {
            y0.resize(PADDING, 0.0);
            yp0.resize(PADDING, 0.0);
        }
        let tolerance = options.tolerance.unwrap_or(spec.experiment.tolerance);
        // Several bodies that touch only now and then: their Jacobian columns are formed
        // together.
        let branches = Branches::new(&mechanism)
            .filter(|b| b.len() > 1 && !mechanism.collisions.pairs.is_empty());
        let mut ida_options = IdaOptions {
            rtol: tolerance,
            atol: tolerance.into(),
            max_step: options.max_step,
            user_jacobian: branches.is_some(),
            ..IdaOptions::default()
        };
        if !mechanism.rows.is_empty() {
            // λ_int and μ_int (integrals of multipliers) stay out of the error test: only their
            // derivatives enter the equations, and those are fixed by q and v (index 1).
            let n = mechanism.layout.len();
            let mut differential = vec![true; mechanism.len()];
            differential[n..].fill(false);
            ida_options.differential = Some(differential);
            ida_options.suppress_algebraic = true;
        }
        let signals = variables
            .variables
            .iter()
            .enumerate()
            .filter(|(_, v)| v.causality == Causality::Input)
            .map(|(index, v)| {
                let signal = InputSignal {
                    variable: index,
                    value: v.start.unwrap_or(0.0),
                    derivatives: [0.0; MAX_INPUT_DERIVATIVE_ORDER],
                    t0: spec.experiment.start_time,
                    jumped: false,
                };
                (signal, v.kind)
            })
            .collect();
        let scratch = vec![0.0; mechanism.len()];
        let mechanism_pairs = mechanism.collisions.pairs.len();
        // A cut-joint's angle starts in the turn of its start value (fixed or guessed).
        let cut_angles = assembly
            .cut_joints
            .iter()
            .map(|cut| match &scene.joints[cut.joint.0].spec.kind {
                model::JointKind::Revolute { phi, .. } => *phi,
                _ => 0.0,
            })
            .collect();
        let dae = MechanismDae {
            mechanism,
            inputs,
            signals,
            workspace,
            scratch,
            branches,
            tolerance,
            distances: vec![0.0; mechanism_pairs],
            jacobian_residuals: 0,
        };
        let ida = Ida::new(dae, spec.experiment.start_time, &y0, &yp0, &ida_options)?;
        let interval = if spec.experiment.interval > 0.0 {
            spec.experiment.interval
        } else {
            model::ExperimentSpec::default().interval
        };
        Ok(Simulation {
            spec,
            scene,
            assembly,
            variables,
            ida,
            restart_pending: false,
            restarts: 0,
            events: 0,
            friction_events: 0,
            contact_starts: 0,
            consistent_yp: None,
            cut_angles,
            interval,
            inputs_changed: false,
            interpolated_outputs: 0,
            horizon: None,
        })
    }

    pub fn time(&self) -> f64 {
        self.ida.t()
    }

    /// Integrates to `t` (not before the current time).
    ///
    /// The integrator's steps do not stop at `t` when nothing forces them to: they pass it, the
    /// solution at `t` is interpolated (IDA's dense output, of the integration's own order), and
    /// the next call continues from the step that passed it. So a small output interval costs
    /// the outputs only, and the step sequence does not depend on where the outputs are taken
    /// (an `h` one ulp apart interpolates at another point of the same steps). What stops the
    /// steps: a contact event, the horizon of conservative advancement; and `t` itself when an
    /// input was set to another function of time before this call (a master that sets inputs at every point gets steps that end
    /// at each point, and none thrown away). An input set while the integrator is ahead
    /// restarts it at the current instant, as does a restored state or a snapshot.
    pub fn advance_to(&mut self, t: f64) -> Result<(), SimulationError> {
        let now = self.time();
        if t.is_nan() || t < now {
            return Err(SimulationError::Usage(format!(
                "cannot step to t = {t} s: the simulation is at t = {now} s"
            )));
        }
        if t == now {
            return Ok(());
        }
        // A piecewise-constant input that changed value is a discontinuity the integrator must
        // restart at. An input the master interpolates (derivatives given) is continuous up to
        // the interpolation error, and the integrator keeps its history, unless it has already
        // stepped past now with the input's old polynomial.
        let signals = &mut self.ida.system_mut().signals;
        let jumped = signals
            .iter()
            .any(|(s, _)| s.jumped && s.derivatives.iter().all(|d| *d == 0.0));
        signals.iter_mut().for_each(|(s, _)| s.jumped = false);
        let inputs_changed = std::mem::take(&mut self.inputs_changed);
        let ahead = self.ida.internal_time() > now;
        if self.restart_pending || jumped || (inputs_changed && ahead) {
            self.restart()?;
        }
        // Contact starts and ends are events located by the integrator's root finding; each
        // updates the contacts' discrete state and restarts the integrator at that instant.
        // The integrator is not let past the time within which a separated pair could pass
        // through each other (conservative advancement, from the state its steps reached), so
        // that no touch falls between two evaluations of the signed distances, whatever the
        // communication step.
        loop {
            let now = self.time();
            if now >= t {
                return Ok(());
            }
            let reached = self.ida.internal_time();
            let horizon = match self.horizon {
                Some(horizon) if horizon > reached => horizon,
                _ => reached + self.separation_time_bound_at_internal_time()?,
            };
            // A zero bound (cannot be estimated) leaves the root functions alone, as far as t.
            self.horizon = (horizon > reached).then_some(horizon);
            let mut tstop = self.horizon.unwrap_or(t);
            if inputs_changed {
                tstop = tstop.min(t);
            }
            // The work allowed grows with the time simulated, not with the number of calls:
            // one long communication step gets what the same time in short ones would.
            let intervals = ((tstop.min(t) - now) / self.interval).ceil().max(1.0);
            self.ida
                .set_max_num_steps(STEPS_PER_INTERVAL.saturating_mul(intervals as u64))?;
            let step = match self.ida.solve_toward(t, tstop) {
                Ok(step) => step,
                Err(error) => return Err(self.solver_failure(error)),
            };
            match step.kind {
                StepKind::Root(directions) => self.contact_event(&directions)?,
                StepKind::Reached if self.ida.internal_time() > t => {
                    self.interpolated_outputs += 1;
                }
                StepKind::Reached | StepKind::Stopped => {}
            }
        }
    }

    /// The time the integrator's steps have reached: [`Simulation::time`] or later, where the
    /// last step passed the communication point.
    pub fn integrated_to(&self) -> f64 {
        self.ida.internal_time()
    }

    /// How many communication points were served by interpolation in a step that passed them.
    pub fn interpolated_outputs(&self) -> u64 {
        self.interpolated_outputs
    }

    /// The integrator's failure, with the contacts at the instant it reached (named by their
    /// objects, with depth) and the settings that govern them.
    fn solver_failure(&mut self, error: IdaError) -> SimulationError {
        let t = self.ida.t();
        let (y, yp, dae) = self.ida.state_and_system_mut();
        dae.apply_inputs(t);
        kinematics(&dae.mechanism, &dae.inputs, &mut dae.workspace, y, yp);
        let found = overlaps(&self.scene, &dae.mechanism, &dae.workspace);
        if found.is_empty() {
            return error.into();
        }
        let listed: Vec<String> = found.iter().take(3).map(Overlap::describe).collect();
        let more = match found.len() {
            n if n > 3 => format!(" and {} more pairs of objects", n - 3),
            _ => String::new(),
        };
        let v_small = found
            .iter()
            .map(|o| o.v_small)
            .fold(f64::INFINITY, f64::min);
        let context = format!(
            "at t = {t} s with {}{more} in contact (a stiff or chattering contact: loosen the \
             tolerance, now {:e}; raise the contact pair's `v_small`, now {v_small:e} m/s; or \
             check that no shapes are stuck inside each other)",
            listed.join(", "),
            dae.tolerance
        );
        SimulationError::Solver(Box::new(SolverFailure { error, context }))
    }

    /// How long from now no separated pair can pass through the other shape
    /// ([`contacts::separation_time_bound`]); infinite without collision pairs.
    pub fn separation_time_bound(&mut self) -> f64 {
        let t = self.ida.t();
        let (y, yp, dae) = self.ida.state_and_system_mut();
        dae.separation_time_bound(t, y, yp)
    }

    /// [`Simulation::separation_time_bound`] from the instant the integrator's last step
    /// reached (its solution there, from the dense output), which may lie after now.
    fn separation_time_bound_at_internal_time(&mut self) -> Result<f64, SimulationError> {
        let reached = self.ida.internal_time();
        if reached == self.ida.t() || self.ida.system().mechanism.collisions.pairs.is_empty() {
            return Ok(self.separation_time_bound());
        }
        let mut y = vec![0.0; self.ida.size()];
        let mut yp = vec![0.0; self.ida.size()];
        self.ida.dense_output(reached, 0, &mut y)?;
        self.ida.dense_output(reached, 1, &mut yp)?;
        Ok(self
            .ida
            .system_mut()
            .separation_time_bound(reached, &y, &yp))
    }

    /// A contact starts (distance falling through zero) or ends (distance rising through zero):
    /// the integrator restarts there, where the contact force's law changes.
    fn contact_event(&mut self, directions: &[i32]) -> Result<(), SimulationError> {
        let t = self.ida.t();
        let (y, yp, dae) = self.ida.state_and_system_mut();
        let (contact, switches) = directions.split_at(dae.mechanism.collisions.pairs.len());
        if contact.iter().any(|&d| d != 0) {
            self.events += 1;
            self.contact_starts += contact.iter().filter(|&&d| d < 0).count() as u64;
        } else {
            self.friction_events += 1;
        }
        dae.apply_inputs(t);
        kinematics(&dae.mechanism, &dae.inputs, &mut dae.workspace, y, yp);
        contacts::update_frictions(&dae.mechanism, &mut dae.workspace, contact, switches);
        self.restart()
    }

    /// How many stick–slip events (a pair sticking or breaking away, alone at its instant) the
    /// integrator located.
    pub fn friction_events(&self) -> u64 {
        self.friction_events
    }

    /// How many contact events the integrator located.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// How many contacts started, counted per pair.
    pub fn contact_starts(&self) -> u64 {
        self.contact_starts
    }

    /// Restarts the integrator at the current instant with derivatives consistent with the
    /// current inputs: after an input jump, or to make the future independent of the past steps
    /// (a restored state continues exactly as the original did).
    fn restart(&mut self) -> Result<(), SimulationError> {
        let t = self.ida.t();
        let y = self.ida.y().to_vec();
        let yp = self
            .ida
            .system_mut()
            .consistent_derivatives(t, &y)
            .map_err(|_| {
                SimulationError::Usage(format!(
                    "at t = {t} s the accelerations cannot be solved for: the mass matrix is \
                     singular or not finite there (the motion may have run away to speeds or \
                     forces out of range, see the largest outputs; or a joint moves a body \
                     without mass or inertia)"
                ))
            })?;
        self.ida.reinit(t, &y, &yp)?;
        self.restart_pending = false;
        self.restarts += 1;
        self.horizon = None;
        Ok(())
    }

    /// After a failed [`Simulation::advance_to`]: restarts the integrator at the last instant
    /// it reached, with derivatives consistent there, so that the simulation can be read or
    /// saved at that instant, and continued. Returns that instant.
    pub fn recover(&mut self) -> Result<f64, SimulationError> {
        self.restart()?;
        Ok(self.ida.t())
    }

    /// How often the integrator was restarted since the start.
    pub fn restarts(&self) -> u64 {
        self.restarts
    }

    /// Captures the current instant. The integrator is restarted here, so that continuing from
    /// this simulation and continuing from the snapshot restored later follow the same steps.
    pub fn snapshot(&mut self) -> Result<Snapshot, SimulationError> {
        self.restart()?;
        Ok(Snapshot {
            t: self.ida.t(),
            y: self.ida.y().to_vec(),
            yp: self.ida.yp().to_vec(),
            signals: self.ida.system().signals.iter().map(|(s, _)| *s).collect(),
            frictions: self.ida.system().workspace.frictions.clone(),
            cut_angles: self.cut_angles.clone(),
        })
    }

    /// Puts the simulation back to a snapshot taken from a simulation of the same model.
    pub fn restore(&mut self, snapshot: &Snapshot) -> Result<(), SimulationError> {
        let dae = self.ida.system_mut();
        if snapshot.y.len() != dae.mechanism.len()
            || snapshot.yp.len() != snapshot.y.len()
            || snapshot.signals.len() != dae.signals.len()
            || snapshot.frictions.len() != dae.workspace.frictions.len()
            || snapshot.cut_angles.len() != self.cut_angles.len()
            || snapshot
                .signals
                .iter()
                .zip(&dae.signals)
                .any(|(a, (b, _))| a.variable != b.variable)
        {
            return Err(SimulationError::Usage(
                "the saved state belongs to another model or another set of parameters".into(),
            ));
        }
        for ((signal, _), saved) in dae.signals.iter_mut().zip(&snapshot.signals) {
            *signal = *saved;
        }
        dae.workspace.frictions.clone_from(&snapshot.frictions);
        self.cut_angles.clone_from(&snapshot.cut_angles);
        self.ida.reinit(snapshot.t, &snapshot.y, &snapshot.yp)?;
        self.restart_pending = false;
        self.restarts += 1;
        self.horizon = None;
        Ok(())
    }

    pub fn stats(&self) -> SolverStats {
        let mut stats = self.ida.stats();
        stats.jacobian_residual_evals += self.ida.system().jacobian_residuals;
        stats
    }

    /// The mechanism the residual evaluates (bodies, cut-joints, the constraint rows kept and
    /// those removed as redundant).
    pub fn mechanism(&self) -> &Mechanism {
        &self.ida.system().mechanism
    }

    /// Number of DAE variables.
    pub fn state_count(&self) -> usize {
        self.ida.system().mechanism.len()
    }

    /// Values of all variables at the current time, in table order.
    pub fn values(&mut self) -> Vec<f64> {
        self.refresh_workspace();
        (0..self.variables.variables.len())
            .map(|i| self.evaluate(i))
            .collect()
    }

    /// What the model looks like where it failed, for an error message: every input's value,
    /// and the outputs of largest magnitude (non-finite ones first), with their units. A motion
    /// that ran away (a huge torque, a stiff spring) shows here by name.
    pub fn diagnosis(&mut self) -> String {
        let values = self.values();
        let shown = |v: &Variable, value: f64| {
            let unit = if v.unit.is_empty() {
                String::new()
            } else {
                format!(" {}", v.unit)
            };
            format!("{} = {value:e}{unit}", v.name)
        };
        let inputs: Vec<String> = self
            .variables
            .variables
            .iter()
            .zip(&values)
            .filter(|(v, _)| v.causality == Causality::Input)
            .map(|(v, value)| shown(v, *value))
            .collect();
        let mut outputs: Vec<(&Variable, f64)> = self
            .variables
            .variables
            .iter()
            .zip(values.iter().copied())
            .filter(|(v, _)| v.causality == Causality::Output)
            .collect();
        let size = |x: f64| {
            if x.is_finite() {
                x.abs()
            } else {
                f64::INFINITY
            }
        };
        outputs.sort_by(|a, b| size(b.1).total_cmp(&size(a.1)));
        let largest: Vec<String> = outputs.iter().take(3).map(|(v, x)| shown(v, *x)).collect();
        let mut text = format!("at t = {} s", self.time());
        if !inputs.is_empty() {
            text += &format!(", inputs {}", inputs.join(", "));
        }
        if !largest.is_empty() {
            text += &format!(", largest outputs {}", largest.join(", "));
        }
        text
    }

    /// Values of the variables with the given indices (valid indices of the table) at the
    /// current time.
    pub fn values_of(&mut self, indices: &[usize]) -> Vec<f64> {
        let mut out = vec![0.0; indices.len()];
        self.values_into(indices.iter().copied(), &mut out);
        out
    }

    /// Writes the values of the variables with the given indices (valid indices of the table)
    /// at the current time into `out`, without allocating.
    pub fn values_into(&mut self, indices: impl IntoIterator<Item = usize>, out: &mut [f64]) {
        self.refresh_workspace();
        for (value, index) in out.iter_mut().zip(indices) {
            *value = self.evaluate(index);
        }
    }

    /// Values of the output variables at the current time, in table order.
    pub fn output_values(&mut self) -> Vec<f64> {
        self.refresh_workspace();
        let outputs: Vec<usize> = self.variables.outputs().map(|(i, _)| i).collect();
        outputs.into_iter().map(|i| self.evaluate(i)).collect()
    }

    /// Evaluates the residual at the integrator's current y, ẏ so that the workspace holds the
    /// kinematics and drive forces of this instant.
    ///
    /// An input that changed since the integrator last moved makes its derivatives stale (a new
    /// torque changes the accelerations at once): they are then made consistent with the
    /// current inputs first, so that outputs that depend on inputs directly follow them without
    /// a step.
    fn refresh_workspace(&mut self) {
        let t = self.ida.t();
        let (y, yp, dae) = self.ida.state_and_system_mut();
        let inputs_changed = dae.signals.iter().any(|(s, _)| s.jumped);
        self.consistent_yp = if inputs_changed {
            // A singular mass matrix would have stopped the simulation at its start.
            dae.consistent_derivatives(t, y).ok()
        } else {
            None
        };
        let yp = self.consistent_yp.as_deref().unwrap_or(yp);
        dae.evaluate_at(t, y, yp);
        // Revolute cut-joints: the angle in (−π, π] continued from the last one reported, by the
        // whole turns that bring it nearest to that one. Reading again at the same instant finds
        // the same turns and gives back the same bits (continuing from the reported value itself
        // moved it by an ulp at each read).
        for (index, cut) in self.assembly.cut_joints.iter().enumerate() {
            if let CutJointKind::Revolute { .. } = cut.kind {
                let reported = self.cut_angles[index];
                let angle = cut_joint_coordinates(cut, &dae.workspace.motion)[0];
                let turns = ((reported - angle) / (2.0 * PI)).round();
                self.cut_angles[index] = angle + 2.0 * PI * turns;
            }
        }
    }

    /// Coordinate, speed and acceleration of the revolute or prismatic joint named `name`,
    /// whether it is a joint of the spanning tree or a cut-joint; `None` for other joints and
    /// unknown names.
    pub fn joint_coordinates(&mut self, name: &str) -> Option<[f64; 3]> {
        let joint = self.scene.joints.iter().position(|j| j.spec.name == name)?;
        self.refresh_workspace();
        if let Some(index) = self
            .assembly
            .cut_joints
            .iter()
            .position(|c| c.joint.0 == joint)
        {
            let cut = &self.assembly.cut_joints[index];
            let mut values = cut_joint_coordinates(cut, &self.ida.system().workspace.motion);
            match cut.kind {
                CutJointKind::Revolute { .. } => values[0] = self.cut_angles[index],
                CutJointKind::Prismatic { .. } => {}
                CutJointKind::Spherical => return None,
            }
            return Some(values);
        }
        let body = self.assembly.super_objects.iter().position(|s| {
            s.joint
                .as_ref()
                .is_some_and(|j| j.joint.0 == joint && !matches!(j.kind, TreeJointKind::Free))
        })?;
        Some(
            [
                VariableKind::JointPosition(body),
                VariableKind::JointSpeed(body),
                VariableKind::JointAcceleration(body),
            ]
            .map(|kind| self.evaluate_kind(kind)),
        )
    }

    fn evaluate(&self, index: usize) -> f64 {
        self.evaluate_kind(self.variables.variables[index].kind)
    }

    fn evaluate_kind(&self, kind: VariableKind) -> f64 {
        let yp = self.consistent_yp.as_deref().unwrap_or(self.ida.yp());
        self.evaluate_kind_at(kind, self.ida.y(), yp)
    }

    /// The value of a variable from y, ẏ and the workspace filled for them.
    fn evaluate_kind_at(&self, kind: VariableKind, y: &[f64], yp: &[f64]) -> f64 {
        let dae = self.ida.system();
        let scalar_states = |body: usize| {
            dae.mechanism.bodies[body]
                .joint
                .as_ref()
                .and_then(|j| match j.motion {
                    Motion::Free => None,
                    _ => j.states,
                })
        };
        match kind {
            VariableKind::Parameter(i) => self.scene.parameters[i].value,
            VariableKind::CutJointPosition(index) => {
                let cut = &self.assembly.cut_joints[index];
                match cut.kind {
                    CutJointKind::Revolute { .. } => self.cut_angles[index],
                    _ => cut_joint_coordinates(cut, &dae.workspace.motion)[0],
                }
            }
            VariableKind::CutJointSpeed(index) => {
                cut_joint_coordinates(&self.assembly.cut_joints[index], &dae.workspace.motion)[1]
            }
            VariableKind::JointPosition(body) => match scalar_states(body) {
                Some(s) => y[s.q],
                None => dae.inputs.motion[body].q,
            },
            VariableKind::JointSpeed(body) => match scalar_states(body) {
                Some(s) => y[s.v],
                None => dae.inputs.motion[body].qd,
            },
            VariableKind::JointAcceleration(body) => match scalar_states(body) {
                Some(s) => yp[s.v],
                None => dae.inputs.motion[body].qdd,
            },
            VariableKind::JointForce(body) => dae.workspace.drive[body],
            VariableKind::DriveInput(drive) => dae.inputs.drive[drive],
            VariableKind::Drive { drive, quantity } => {
                let drive_train = &dae.mechanism.drives[drive];
                let body = drive_train.body;
                let Some(crate::dynamics::JointCoordinates::Scalar(joint)) =
                    dae.workspace.coordinates[body]
                else {
                    return f64::NAN;
                };
                drive_train.quantity(
                    quantity,
                    dae.inputs.drive[drive],
                    dae.workspace.flange[body],
                    &joint,
                    y,
                    yp,
                )
            }
            VariableKind::JointReaction { joint, component } => crate::dynamics::joint_reaction(
                &dae.mechanism,
                &dae.workspace,
                yp,
                &self.scene,
                &self.assembly,
                joint,
            )[component],
            VariableKind::Contact { report, quantity } => {
                let pairs = &dae.mechanism.collisions.reports[report].pairs;
                match quantity {
                    ContactQuantity::Distance | ContactQuantity::Penetration => {
                        let distance = pairs
                            .iter()
                            .filter_map(|&pair| {
                                contacts::pair_contact_at(&dae.mechanism, &dae.workspace, pair)
                            })
                            .map(|c| c.distance)
                            .fold(f64::INFINITY, f64::min);
                        if quantity == ContactQuantity::Distance {
                            distance
                        } else {
                            (-distance).max(0.0)
                        }
                    }
                    ContactQuantity::NormalForce => pairs
                        .iter()
                        .filter_map(|&pair| {
                            contacts::pair_response(&dae.mechanism, &dae.workspace, pair)
                        })
                        .map(|(_, response)| response.normal_force)
                        .sum(),
                }
            }
            VariableKind::Frame {
                object,
                quantity,
                component,
            } => {
                let (body, pose) = self.assembly.placement[object.0];
                let motion = &dae.workspace.motion[body];
                let arm = motion.rotation * pose.translation.vector;
                match quantity {
                    FrameQuantity::Position => (motion.r + arm)[component],
                    FrameQuantity::Velocity => (motion.v + motion.w.cross(&arm))[component],
                    FrameQuantity::AngularVelocity => motion.w[component],
                    FrameQuantity::Quaternion => {
                        let rotation = Rotation3::from_matrix_unchecked(
                            motion.rotation * pose.rotation.to_rotation_matrix().matrix(),
                        );
                        modelica_quaternion(&UnitQuaternion::from_rotation_matrix(&rotation))
                            [component]
                    }
                }
            }
        }
    }

    /// Writes the first time derivative of each of the given output variables (valid indices
    /// of the table) at the current instant into `out`: the right-hand derivative, with the
    /// inputs as they are now set (held, or interpolated with their derivatives).
    ///
    /// Exact where the engine has the derivative as a variable of its own: a joint's angle or
    /// position → its speed, a speed → its acceleration, a frame's position → its velocity, its
    /// velocity → the point's acceleration, its angular velocity → its angular acceleration, its
    /// quaternion → ½·ω⊗Q, a cut-joint's coordinate → its speed → its acceleration. The others
    /// (accelerations, drive torques, reactions, contact quantities) are differentiated along
    /// the solution: the outputs at t + ε and t + 2ε on the tangent y + s·ẏ, with ẏ made
    /// consistent at each point, combined by the one-sided second-order formula
    /// (−3g₀ + 4g₁ − g₂)/(2ε), whose error is O(ε²) because the tangent and the solution differ
    /// only in the second order in s, which the formula cancels; ε is
    /// [`DERIVATIVE_STEP_FRACTION`] of the integrator's last step.
    pub fn output_derivatives_into(&mut self, indices: &[usize], out: &mut [f64]) {
        self.refresh_workspace();
        let mut differenced = Vec::new();
        for (slot, &index) in indices.iter().enumerate() {
            match self.exact_derivative(self.variables.variables[index].kind) {
                Some(value) => out[slot] = value,
                None => differenced.push(slot),
            }
        }
        if differenced.is_empty() {
            return;
        }
        let kinds: Vec<VariableKind> = differenced
            .iter()
            .map(|&slot| self.variables.variables[indices[slot]].kind)
            .collect();
        let t = self.time();
        let y = self.ida.y().to_vec();
        let yp = self
            .consistent_yp
            .clone()
            .unwrap_or_else(|| self.ida.yp().to_vec());
        let epsilon = DERIVATIVE_STEP_FRACTION * self.time_scale();
        let samples: [Vec<f64>; 3] = [0.0, 1.0, 2.0].map(|s| {
            let ts = t + s * epsilon;
            let ys: Vec<f64> = y
                .iter()
                .zip(&yp)
                .map(|(y, p)| y + s * epsilon * p)
                .collect();
            let dae = self.ida.system_mut();
            // The mass matrix was regular at the start; near a singular pose the tangent ẏ is
            // the best estimate there is.
            let yps = dae
                .consistent_derivatives(ts, &ys)
                .unwrap_or_else(|_| yp.clone());
            dae.evaluate_at(ts, &ys, &yps);
            kinds
                .iter()
                .map(|&kind| self.evaluate_kind_at(kind, &ys, &yps))
                .collect()
        });
        for (k, &slot) in differenced.iter().enumerate() {
            out[slot] =
                (-3.0 * samples[0][k] + 4.0 * samples[1][k] - samples[2][k]) / (2.0 * epsilon);
        }
        // Back to the current instant for the next fmi2GetReal.
        self.refresh_workspace();
    }

    /// The time over which the solution changes appreciably, as the integrator sees it: its
    /// last step, or the step it will try first before it has taken one.
    fn time_scale(&self) -> f64 {
        let stats = self.ida.stats();
        [stats.last_step, stats.current_step]
            .into_iter()
            .find(|h| *h > 0.0)
            .unwrap_or(1e-6 * self.time().abs().max(1.0))
    }

    /// The time derivative of a variable that the engine has exactly (see
    /// [`Simulation::output_derivatives_into`]), from the workspace of the current instant.
    fn exact_derivative(&self, kind: VariableKind) -> Option<f64> {
        let motion = &self.ida.system().workspace.motion;
        match kind {
            VariableKind::JointPosition(body) => {
                Some(self.evaluate_kind(VariableKind::JointSpeed(body)))
            }
            VariableKind::JointSpeed(body) => {
                Some(self.evaluate_kind(VariableKind::JointAcceleration(body)))
            }
            VariableKind::CutJointPosition(index) => {
                Some(cut_joint_coordinates(&self.assembly.cut_joints[index], motion)[1])
            }
            VariableKind::CutJointSpeed(index) => {
                Some(cut_joint_coordinates(&self.assembly.cut_joints[index], motion)[2])
            }
            VariableKind::Frame {
                object,
                quantity,
                component,
            } => {
                let (body, pose) = self.assembly.placement[object.0];
                let motion = &motion[body];
                let arm = motion.rotation * pose.translation.vector;
                Some(match quantity {
                    FrameQuantity::Position => (motion.v + motion.w.cross(&arm))[component],
                    FrameQuantity::Velocity => {
                        (motion.a
                            + motion.alpha.cross(&arm)
                            + motion.w.cross(&motion.w.cross(&arm)))[component]
                    }
                    FrameQuantity::AngularVelocity => motion.alpha[component],
                    FrameQuantity::Quaternion => {
                        let rotation = Rotation3::from_matrix_unchecked(
                            motion.rotation * pose.rotation.to_rotation_matrix().matrix(),
                        );
                        modelica_quaternion_derivative(
                            &UnitQuaternion::from_rotation_matrix(&rotation),
                            &motion.w,
                        )[component]
                    }
                })
            }
            VariableKind::Drive {
                drive,
                quantity: DriveQuantity::PartPosition(part),
            } => Some(self.evaluate_kind(VariableKind::Drive {
                drive,
                quantity: DriveQuantity::PartSpeed(part),
            })),
            VariableKind::Parameter(_)
            | VariableKind::JointAcceleration(_)
            | VariableKind::JointForce(_)
            | VariableKind::JointReaction { .. }
            | VariableKind::Contact { .. }
            | VariableKind::DriveInput(_)
            | VariableKind::Drive { .. } => None,
        }
    }

    /// Sets an input variable (a joint's drive torque or prescribed motion) by its index, from
    /// now on constant until its derivatives are set.
    pub fn set_input(&mut self, index: usize, value: f64) -> Result<(), SimulationError> {
        let t = self.time();
        let signal = self.input_signal(index)?;
        let before = *signal;
        let jumped = signal.jumped || value != signal.at(t);
        *signal = InputSignal {
            value,
            derivatives: [0.0; MAX_INPUT_DERIVATIVE_ORDER],
            t0: t,
            jumped,
            ..*signal
        };
        let changed = !signal.same_function_from(&before, t);
        self.inputs_changed |= changed;
        Ok(())
    }

    /// Sets the `order`-th time derivative (1 ..= MAX_INPUT_DERIVATIVE_ORDER) of an input at the
    /// current time; the input is interpolated with it during the following steps.
    pub fn set_input_derivative(
        &mut self,
        index: usize,
        order: usize,
        value: f64,
    ) -> Result<(), SimulationError> {
        if !(1..=MAX_INPUT_DERIVATIVE_ORDER).contains(&order) {
            return Err(SimulationError::Usage(format!(
                "input derivatives of order {order} are not supported: orders 1 to {MAX_INPUT_DERIVATIVE_ORDER} are"
            )));
        }
        let t = self.time();
        let signal = self.input_signal(index)?;
        let before = *signal;
        if signal.t0 != t {
            // Re-expand about now, keeping the value the polynomial has reached.
            *signal = InputSignal {
                value: signal.at(t),
                derivatives: [0.0; MAX_INPUT_DERIVATIVE_ORDER],
                t0: t,
                ..*signal
            };
        }
        signal.derivatives[order - 1] = value;
        let changed = !signal.same_function_from(&before, t);
        self.inputs_changed |= changed;
        Ok(())
    }

    /// The current value of an input variable.
    pub fn input(&mut self, index: usize) -> Result<f64, SimulationError> {
        let t = self.time();
        Ok(self.input_signal(index)?.at(t))
    }

    fn input_signal(&mut self, index: usize) -> Result<&mut InputSignal, SimulationError> {
        let name = self.variables.variables.get(index).map(|v| v.name.clone());
        self.ida
            .system_mut()
            .signals
            .iter_mut()
            .map(|(signal, _)| signal)
            .find(|signal| signal.variable == index)
            .ok_or_else(|| match name {
                Some(name) => SimulationError::Usage(format!("`{name}` is not an input")),
                None => SimulationError::Usage(format!("there is no variable with index {index}")),
            })
    }
}

/// Coordinate, speed and acceleration of a revolute or prismatic cut-joint from the world
/// motion of its two frames: the `to` frame (b) relative to the `from` frame (a), along the axis
/// n fixed in a. Revolute: the angle of the relative rotation about n in (−π, π], and the
/// component along n of the relative angular velocity R_aᵀ(ω_b − ω_a) and of its time
/// derivative. Prismatic: (p_b − p_a)·n and its first two time derivatives. Zeros for a
/// spherical joint.
pub fn cut_joint_coordinates(cut: &CutJoint, motion: &[BodyMotion]) -> [f64; 3] {
    let (a, b) = (&motion[cut.body_a], &motion[cut.body_b]);
    let frame_rotation = |body: &BodyMotion, pose: &nalgebra::Isometry3<f64>| {
        body.rotation * pose.rotation.to_rotation_matrix().matrix()
    };
    let (rotation_a, rotation_b) = (
        frame_rotation(a, &cut.frame_a),
        frame_rotation(b, &cut.frame_b),
    );
    match &cut.kind {
        CutJointKind::Revolute { axis } => {
            let n = rotation_a * axis;
            // A unit vector normal to the axis, in a, and where b's rotation takes it.
            let helper = if axis.x.abs() < 0.9 {
                Vector3::x()
            } else {
                Vector3::y()
            };
            let e = (helper - axis * axis.dot(&helper)).normalize();
            let relative = rotation_a.transpose() * rotation_b * e;
            let angle = axis.dot(&e.cross(&relative)).atan2(e.dot(&relative));
            let w = b.w - a.w;
            let alpha = b.alpha - a.alpha - a.w.cross(&w);
            [angle, n.dot(&w), n.dot(&alpha)]
        }
        CutJointKind::Prismatic { axis } => {
            let n = rotation_a * axis;
            let nd = a.w.cross(&n);
            let ndd = a.alpha.cross(&n) + a.w.cross(&nd);
            let (arm_a, arm_b) = (
                a.rotation * cut.frame_a.translation.vector,
                b.rotation * cut.frame_b.translation.vector,
            );
            let d = b.r + arm_b - a.r - arm_a;
            let dd = b.v + b.w.cross(&arm_b) - a.v - a.w.cross(&arm_a);
            let point_acceleration = |m: &BodyMotion, arm: &Vector3<f64>| {
                m.a + m.alpha.cross(arm) + m.w.cross(&m.w.cross(arm))
            };
            let ddd = point_acceleration(b, &arm_b) - point_acceleration(a, &arm_a);
            [
                d.dot(&n),
                dd.dot(&n) + d.dot(&nd),
                ddd.dot(&n) + 2.0 * dd.dot(&nd) + d.dot(&ndd),
            ]
        }
        CutJointKind::Spherical => [0.0; 3],
    }
}

/// Modelica's quaternion (`Frames.Quaternions.Orientation`) of a frame whose orientation maps
/// frame coordinates to world coordinates as `frame_to_world`. Modelica's `from_Q` turns it into
/// the matrix that resolves world vectors in the frame; for a frame turned by φ about n it is
/// [n·sin(φ/2), cos(φ/2)], the same four numbers as the frame-to-world unit quaternion, written
/// here with a non-negative real part.
pub fn modelica_quaternion(frame_to_world: &UnitQuaternion<f64>) -> [f64; 4] {
    let q = frame_to_world;
    let sign = if q.w < 0.0 { -1.0 } else { 1.0 };
    // `+ 0.0` turns −0 into 0 in the output.
    [
        sign * q.i + 0.0,
        sign * q.j + 0.0,
        sign * q.k + 0.0,
        sign * q.w + 0.0,
    ]
}

/// The time derivative of [`modelica_quaternion`] for a frame turning with the angular velocity
/// ω (world coordinates): q̇ = ½·(0, ω)⊗q, i.e. q̇₄ = −½·ω·q₁₋₃ and q̇₁₋₃ = ½·(q₄·ω + ω×q₁₋₃),
/// with the same sign convention (non-negative real part) as the quaternion itself.
pub fn modelica_quaternion_derivative(
    frame_to_world: &UnitQuaternion<f64>,
    angular_velocity: &Vector3<f64>,
) -> [f64; 4] {
    let q = frame_to_world;
    let sign = if q.w < 0.0 { -1.0 } else { 1.0 };
    let vector = Vector3::new(q.i, q.j, q.k);
    let vector_rate = 0.5 * (q.w * angular_velocity + angular_velocity.cross(&vector));
    let real_rate = -0.5 * angular_velocity.dot(&vector);
    [
        sign * vector_rate.x,
        sign * vector_rate.y,
        sign * vector_rate.z,
        sign * real_rate,
    ]
}

/// Two objects whose shapes penetrate: the deepest of their collision pairs.
#[derive(Debug, Clone, PartialEq)]
struct Overlap {
    a: String,
    b: String,
    /// Penetration depth [m].
    depth: f64,
    /// Unit normal from a to b: moving b along it separates them.
    normal: Vector3<f64>,
    /// The deepest penetration the pair may start with [m].
    limit: f64,
    /// The pair's regularization speed [m/s].
    v_small: f64,
}

impl Overlap {
    fn describe(&self) -> String {
        format!(
            "`{}` and `{}` ({:.4} mm deep)",
            self.a,
            self.b,
            self.depth * 1e3
        )
    }
}

/// The pairs of objects whose shapes penetrate at the workspace's kinematics, one entry per
/// pair of objects (its deepest collision pair: a box touches through several), deepest first.
fn overlaps(scene: &Scene, mechanism: &Mechanism, ws: &Workspace) -> Vec<Overlap> {
    let set = &mechanism.collisions;
    let mut distances = vec![0.0; set.pairs.len()];
    contacts::distances(mechanism, ws, &mut distances);
    let mut found: Vec<Overlap> = Vec::new();
    for (index, contact) in contacts::penetrating_pairs(mechanism, ws, &distances) {
        let pair = &set.pairs[index];
        let overlap = Overlap {
            a: scene.object(set.colliders[pair.a].object).name.clone(),
            b: scene.object(set.colliders[pair.b].object).name.clone(),
            depth: contact.penetration(),
            normal: contact.normal.into_inner(),
            limit: contacts::start_penetration_limit(mechanism, index),
            v_small: pair.law.v_small,
        };
        match found
            .iter_mut()
            .find(|o| (&o.a, &o.b) == (&overlap.a, &overlap.b))
        {
            Some(known) if known.depth >= overlap.depth => {}
            Some(known) => *known = overlap,
            None => found.push(overlap),
        }
    }
    found.sort_by(|x, y| y.depth.total_cmp(&x.depth));
    found
}

/// The error for shapes that start deeper inside each other than they may.
fn start_overlap_message(model: &str, deep: &[Overlap]) -> String {
    let each: Vec<String> = deep
        .iter()
        .map(|o| {
            // Components printed to 4 decimals, without a "-0.0000" for a rounding residue.
            let n = o.normal.map(|x| if x.abs() < 5e-5 { 0.0 } else { x });
            format!(
                "`{}` and `{}` overlap by {:.4} mm (more than the {:.4} mm a start may have; \
                 moving `{}` by {:.4} mm along [{:.4}, {:.4}, {:.4}] separates them)",
                o.a,
                o.b,
                o.depth * 1e3,
                o.limit * 1e3,
                o.b,
                o.depth * 1e3,
                n.x,
                n.y,
                n.z
            )
        })
        .collect();
    format!(
        "the model `{model}` starts with shapes inside each other: {}. Place them so that they \
         touch or are apart at the start (a resting part sinks to its resting depth by itself)",
        each.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamics::test_motions;
    use crate::scene::JointHandle;
    use nalgebra::{Isometry3, Translation3};

    /// The speed and acceleration a prismatic cut-joint reports are the time derivatives of its
    /// coordinate (b's frame origin relative to a's, along the axis turning with a) and speed,
    /// between two moving bodies (central differences over 1e-5 s of a smooth motion, accurate to
    /// ~1e-9). The projection holds for any motion of the two bodies, so any smooth motion
    /// checks it. (A revolute cut's angle has the relative angular velocity along the axis as
    /// its derivative only for motions that keep the joint's axes aligned.)
    #[test]
    fn cut_joint_derivatives_are_the_derivatives_of_its_coordinate() {
        let frame = |x, y, z| {
            Isometry3::from_parts(
                Translation3::new(x, y, z),
                UnitQuaternion::from_euler_angles(0.3, 0.1, -0.2),
            )
        };
        for kind in [
            CutJointKind::Prismatic {
                axis: Vector3::new(0.6, 0.0, 0.8),
            },
            CutJointKind::Prismatic {
                axis: Vector3::new(0.0, -1.0, 0.0),
            },
        ] {
            let cut = CutJoint {
                joint: JointHandle(0),
                body_a: 0,
                frame_a: frame(0.2, -0.1, 0.3),
                body_b: 1,
                frame_b: frame(-0.1, 0.25, 0.05),
                kind,
            };
            let at = |t: f64| cut_joint_coordinates(&cut, &test_motions(t));
            let h = 1e-5;
            let (before, now, after) = (at(0.4 - h), at(0.4), at(0.4 + h));
            let speed = (after[0] - before[0]) / (2.0 * h);
            let acceleration = (after[1] - before[1]) / (2.0 * h);
            assert!(
                (now[1] - speed).abs() < 1e-8,
                "{:?}: {} vs {speed}",
                cut.kind,
                now[1]
            );
            assert!(
                (now[2] - acceleration).abs() < 1e-7,
                "{:?}: {} vs {acceleration}",
                cut.kind,
                now[2]
            );
        }
    }
}
