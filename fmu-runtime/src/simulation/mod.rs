//! (6) The whole chain: model → scene → super-objects → DAE → IDA, and stepping it in time.
//!
//! A [`Simulation`] owns the integrator and the variable table. It is what `fmu3d simulate` runs
//! and what an FMU instance wraps. Its rooms:
//!
//! - [`dae`]: the DAE as IDA sees it (residual, Jacobian, root functions, inputs applied);
//! - [`stepping`]: advancing in time, events, restarts, snapshots;
//! - [`outputs`]: the variables' values and output derivatives;
//! - [`inputs`]: input signals set by the importer;
//! - [`model_exchange`]: the explicit form for FMI Model Exchange (the importer integrates);
//! - [`overlaps`]: shapes that start inside each other, for the error message.

use crate::assembly::{
    Assembly, Causality, CollisionSet, ContactQuantity, CutJoint, DriveQuantity, FrameQuantity,
    TreeJointKind, Variable, VariableKind, VariableTable,
};
use crate::dynamics::contacts::Friction;
use crate::dynamics::BodyMotion;
use crate::dynamics::{
    assemble, consistent_derivatives, contacts, kinematics, residual, ArticulatedIteration,
    AssemblyError, Branches, ExactJacobian, FlangeInputs, Mechanism, Penetrating,
    SingularMassMatrix, Workspace,
};
use crate::ida::{
    AbsTolerance, CallbackError, DaeSystem, FactoredMatrix, Ida, IdaError, IdaOptions,
    JacobianMatrix, LinearSolverKind, SolverStats, StepKind,
};
use crate::model::{self, AxisMotion, ModelError, ModelSpec};
use crate::scene::{Scene, SceneError};
use nalgebra::{Rotation3, UnitQuaternion, Vector3};
use std::f64::consts::PI;
use std::path::Path;

mod dae;
mod inputs;
mod model_exchange;
mod outputs;
mod overlaps;
mod stepping;

use dae::MechanismDae;
pub use inputs::InputSignal;
pub use model_exchange::{DiscreteUpdate, LOOP_STABILISATION_RATE};
pub use outputs::{cut_joint_coordinates, modelica_quaternion, modelica_quaternion_derivative};
use overlaps::{overlaps, start_overlap_message, Overlap};

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
    /// The integrator's linear algebra; by default the block-sparse LU for scenes of separate
    /// bodies from [`BLOCK_SOLVER_STATES`] states on, the dense LU otherwise.
    pub linear_solver: Option<LinearSolverKind>,
    /// Every moving body's pose is an output: the frame of each body's root object (the object
    /// a joint reaches) reports `r`, `v`, `Q` and `w` as if the model marked it `output = true`
    /// (what an animation of the results needs, see [`crate::assembly::VisualScene`]).
    pub pose_outputs: bool,
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

/// The integrator's internal steps allowed per output interval of the model's experiment
/// (SUNDIALS' default per call): a communication step of any length gets the same steps per
/// simulated second.
const STEPS_PER_INTERVAL: u64 = 500;

/// The largest number of states a model may have: the integrator's dense Jacobian and its LU
/// factors take 2 × 8 × n² bytes, 400 MB at this size.
pub const MAX_STATES: usize = 5_000;

/// The largest number of states of a scene of separate bodies (no loops), solved with the
/// block LU, whose memory grows with the bodies (a 13 × 13 block per free body): 20 000 free
/// bodies, as many as a model may declare objects ([`model::MAX_OBJECTS`]).
pub const MAX_BLOCK_STATES: usize = 260_000;

/// From how many moving bodies on a tree of revolute and prismatic joints alone is solved with
/// its articulated iteration matrix ([`LinearSolverKind::Factored`],
/// `dynamics::ArticulatedIteration`) instead of the exact dense Jacobian: from where it is as
/// fast (docs/benchmarks.md, "Chain of N links"); smaller trees keep their step sequences.
pub const ARTICULATED_ITERATION_BODIES: usize = 8;

/// A mechanism whose every joint is prescribed has no states, but the integrator needs at
/// least one: such a simulation integrates one constant (ẋ = 0) beside it.
const PADDING: usize = 1;

/// From how many states on a scene of separate bodies is solved with the block-sparse LU
/// ([`LinearSolverKind::Blocks`]) instead of the dense one: below it the dense LU is as fast
/// (docs/benchmarks.md, "Many bodies"), and the smaller models keep their step sequences.
pub const BLOCK_SOLVER_STATES: usize = 300;

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
    /// Instants a joint reached or left an end stop (Co-Simulation).
    stop_events: u64,
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
    /// Built with [`SimulationOptions::pose_outputs`].
    pose_outputs: bool,
    /// Serving Model Exchange ([`Simulation::enter_model_exchange`]).
    model_exchange: bool,
    /// Model Exchange: the time, states or inputs were set since ẋ was computed.
    derivatives_stale: bool,
}

/// Everything needed to put a simulation back to an earlier instant, bit for bit.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    pub t: f64,
    pub y: Vec<f64>,
    pub yp: Vec<f64>,
    pub signals: Vec<InputSignal>,
    /// The contacts' discrete state: every collision pair (as its two collider indices) whose
    /// friction state is not the default (sliding or apart, armed), in ascending order.
    pub frictions: Vec<((usize, usize), Friction)>,
    /// The angle of every cut-joint reported last (see [`Simulation::joint_coordinates`]).
    pub cut_angles: Vec<f64>,
    /// The collision pairs in contact at the last restart, in ascending order: with those
    /// whose shapes have parted by less than their hold gap ([`crate::dynamics::contacts::PairTable::hold_gap`]), which
    /// the state alone does not tell.
    pub contacts: Vec<(usize, usize)>,
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
        let mut scene = Scene::from_spec(&spec)?;
        let assembly = Assembly::build(&scene)?;
        if options.pose_outputs {
            for body in assembly.super_objects.iter().skip(1) {
                scene.objects[body.root.0].output = true;
            }
        }
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
        // Refuse before allocating what would take the host down: a mechanism with loops works
        // on dense matrices of states × states; one of separate bodies on blocks.
        let separate_bodies = Branches::new(&mechanism).is_some_and(|b| b.len() > 1);
        if separate_bodies && mechanism.len() > MAX_BLOCK_STATES {
            return Err(SimulationError::Usage(format!(
                "the model `{}` has {} states, more than the {MAX_BLOCK_STATES} this engine \
                 supports for separate bodies; make the model smaller (fewer bodies)",
                spec.name,
                mechanism.len(),
            )));
        }
        if !separate_bodies && mechanism.len() > MAX_STATES {
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
        let deep: Vec<Overlap> = overlaps(&scene, &mechanism, &mut workspace)
            .into_iter()
            .filter(|o| o.depth > o.limit)
            .collect();
        if !deep.is_empty() {
            return Err(SimulationError::Usage(start_overlap_message(
                &spec.name, &deep,
            )));
        }
        if let Some(message) = faster_than_light(&mechanism, &workspace, None) {
            return Err(SimulationError::Usage(message));
        }
        // Pairs in contact at the start time start like contacts found at an event.
        contacts::process_crossings(&mechanism, &mut workspace);
        let mut yp0 = consistent_derivatives(&mechanism, &inputs, &mut workspace, &y0)
            .map_err(SimulationError::Start)?;
        let mut y0 = y0;
        if y0.is_empty() {
            y0.resize(PADDING, 0.0);
            yp0.resize(PADDING, 0.0);
        }
        let tolerance = options.tolerance.unwrap_or(spec.experiment.tolerance);
        // A contact's shapes part by a fraction `tolerance` of their size before it ends.
        workspace.pairs.hold_scale = tolerance;
        // Bodies that may touch: their Jacobian columns are formed together, with increments
        // that resolve the contact law's speed bands (`dynamics::Branches`); many bodies
        // without contacts: the same, for the block solver.
        let blocks_asked = options.linear_solver == Some(LinearSolverKind::Blocks);
        let branches = Branches::new(&mechanism).filter(|b| {
            blocks_asked
                || mechanism.collisions.has_pairs()
                || b.len() > 1 && y0.len() >= BLOCK_SOLVER_STATES
        });
        // The exact Jacobian where there is one (`dynamics::ExactJacobian`).
        let exact = ExactJacobian::new(&mechanism);
        // Many bodies, or free bodies whose exact Jacobian couples only those in contact: their
        // iteration matrix is factored block by block.
        let free_scene = exact
            .as_ref()
            .and_then(ExactJacobian::free_bodies)
            .is_some_and(|f| f.groups().len() > 1);
        let linear_solver = match (&branches, options.linear_solver) {
            (None, _) => LinearSolverKind::Dense,
            (Some(_), Some(kind)) => kind,
            (Some(_), None) if free_scene || y0.len() >= BLOCK_SOLVER_STATES => {
                LinearSolverKind::Blocks
            }
            (Some(_), None) => LinearSolverKind::Dense,
        };
        // A long tree of revolute and prismatic joints alone: its iteration matrix factored in
        // O(n) by the articulated-body algorithm (`dynamics::ArticulatedIteration`).
        let articulated_asked = options.linear_solver == Some(LinearSolverKind::Factored);
        let articulated = ArticulatedIteration::new(&mechanism).filter(|_| {
            articulated_asked
                || options.linear_solver.is_none()
                    // Not counting the world.
                    && mechanism.bodies.len() > ARTICULATED_ITERATION_BODIES
        });
        if articulated_asked && articulated.is_none() {
            return Err(SimulationError::Usage(format!(
                "model {}: the articulated linear solver serves trees of revolute and prismatic \
                 joints alone (no loops, drive trains, force elements, contact pairs or free \
                 joints); use the dense or block solver",
                spec.name
            )));
        }
        let linear_solver = if articulated.is_some() {
            LinearSolverKind::Factored
        } else {
            linear_solver
        };
        // A tree's exact Jacobian fills dense matrices only.
        let exact =
            exact.filter(|e| e.free_bodies().is_some() || linear_solver == LinearSolverKind::Dense);
        // The speeds of bodies that may touch are resolved to a tenth of their contacts' speed
        // bands (`Branches::speed_resolution`), the rest to the tolerance.
        let atol = match &branches {
            Some(b) if mechanism.collisions.has_pairs() => {
                let set = &mechanism.collisions;
                let bands = (0..set.colliders.len()).filter_map(|c| Some((c, set.bands(c)?)));
                let resolution = b.speed_resolution(&mechanism, &workspace, bands);
                let mut atol: Vec<f64> = resolution.iter().map(|r| r.min(tolerance)).collect();
                atol.resize(y0.len(), tolerance);
                AbsTolerance::Vector(atol)
            }
            _ => tolerance.into(),
        };
        let mut ida_options = IdaOptions {
            rtol: tolerance,
            atol,
            max_step: options.max_step,
            user_jacobian: branches.is_some() || exact.is_some() || articulated.is_some(),
            linear_solver,
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
        // A cut-joint's angles start in the turn of their start values (fixed or guessed); one
        // entry per axis of every cut-joint ([`CutJoint::first_axis`]).
        let cut_angles = assembly
            .cut_joints
            .iter()
            .flat_map(|cut| cut.kind.axes().iter().map(|axis| axis.start))
            .collect();
        let dae = MechanismDae {
            mechanism,
            inputs,
            signals,
            workspace,
            scratch,
            exact,
            articulated,
            branches,
            tolerance,
            jacobian_residuals: 0,
            jacobian_time: f64::NEG_INFINITY,
            jacobian_bands: Vec::new(),
            band_exits: 0,
            band_exit_refused: false,
            last_evaluation: Default::default(),
        };
        let mut ida = Ida::new(dae, spec.experiment.start_time, &y0, &yp0, &ida_options)?;
        let interval = if spec.experiment.interval > 0.0 {
            spec.experiment.interval
        } else {
            model::ExperimentSpec::default().interval
        };
        // The first step after each restart is sized from the model's output interval, not
        // from the distance to the next communication point.
        ida.set_start_span(Some(interval))?;
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
            stop_events: 0,
            contact_starts: 0,
            consistent_yp: None,
            cut_angles,
            interval,
            inputs_changed: false,
            interpolated_outputs: 0,
            horizon: None,
            pose_outputs: options.pose_outputs,
            model_exchange: false,
            derivatives_stale: false,
        })
    }

    /// Every moving body's pose is an output ([`SimulationOptions::pose_outputs`]).
    pub fn pose_outputs(&self) -> bool {
        self.pose_outputs
    }

    /// The model's visual description: the bodies with their shapes (what an animation draws).
    pub fn visual_scene(&self) -> crate::assembly::VisualScene {
        crate::assembly::VisualScene::new(&self.scene, &self.assembly)
    }

    pub fn time(&self) -> f64 {
        self.ida.t()
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

    /// What the outputs' dependencies are declared from
    /// ([`crate::assembly::declaration::dependencies`] and
    /// [`crate::assembly::declaration::output_dependencies`]).
    pub fn structure(&self) -> crate::assembly::declaration::Structure<'_> {
        let mechanism = self.mechanism();
        crate::assembly::declaration::Structure {
            table: &self.variables,
            scene: &self.scene,
            assembly: &self.assembly,
            layout: &mechanism.layout,
            collisions: &mechanism.collisions,
        }
    }

    /// Number of DAE variables.
    pub fn state_count(&self) -> usize {
        self.ida.system().mechanism.len()
    }
}

/// The first body whose origin moves faster than light at the start (from the start values and
/// prescribed motions of the joints, in `ws`), as a message; `None` when every body is slower.
/// A speed that no field states alone (a crank of 1 m turned at 1e99 rad/s) is found here,
/// before the accelerations, which would overflow into "a singular mass matrix".
fn faster_than_light(mechanism: &Mechanism, ws: &Workspace, at: Option<f64>) -> Option<String> {
    let light = crate::model::units::SPEED_OF_LIGHT;
    mechanism
        .bodies
        .iter()
        .zip(&ws.motion)
        .skip(1)
        .find(|(_, motion)| {
            motion.v.norm() > light || motion.v.norm().is_nan() || !motion.w.norm().is_finite()
        })
        .map(|(body, motion)| {
            let speed = motion.v.norm();
            if let Some(t) = at {
                format!(
                    "at t = {t} s body `{}` moves at {speed:e} m/s (turning at {:e} rad/s), \
                     faster than light: the motion has run away, driven by forces or torques \
                     far beyond what its masses can take; check the inputs and drives that act \
                     on it, and the values they had before this instant",
                    body.name,
                    motion.w.norm()
                )
            } else {
                format!(
                    "body `{}` moves at {speed:e} m/s at the start, faster than light: fmu3d \
                     simulates Newtonian mechanics, below {light} m/s; check the start values \
                     and the prescribed motions of the joints that move it",
                    body.name
                )
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assembly::CutJointKind;
    use crate::dynamics::test_motions;
    use crate::ida::{DenseMatrixView, JacobianMatrix};
    use crate::scene::JointHandle;
    use nalgebra::{Isometry3, Translation3};

    /// The iteration matrix is formed from the workspace the Newton iteration's residual left
    /// at the same point, without an evaluation of its own, and from an evaluation of its own
    /// once anything read another state into the workspace (an output, here): the same
    /// matrix, to the bit, either way. The billiard before the break: sixteen balls pressed
    /// into the table.
    #[test]
    fn the_jacobian_at_the_last_residuals_point_needs_no_evaluation_of_its_own() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../models/billiard16.m3d");
        let mut sim = Simulation::from_file(Path::new(path), SimulationOptions::default())
            .expect("the billiard starts");
        // Settled on the table (the cue ball rolling towards the rack): pressed into it.
        sim.advance_to(0.2).expect("simulates");
        let t = sim.ida.t();
        let (y, yp) = (sim.ida.y().to_vec(), sim.ida.yp().to_vec());
        let n = y.len();
        let cj = 1e4;
        let dae = sim.ida.system_mut();
        let mut res = vec![0.0; n];
        let jacobian = |dae: &mut MechanismDae, res: &[f64]| {
            let mut matrix = vec![0.0; n * n];
            let view = DenseMatrixView::new(&mut matrix, n).expect("square");
            let formed = dae.jacobian(t, cj, &y, &yp, res, &mut JacobianMatrix::Dense(view));
            formed.expect("an exact Jacobian").expect("formed");
            matrix
        };
        dae.residual(t, &y, &yp, &mut res).expect("a residual");
        let before = dae.jacobian_residuals;
        let reused = jacobian(dae, &res);
        assert_eq!(
            dae.jacobian_residuals, before,
            "the matrix evaluated the residual again"
        );
        // Another state read into the workspace, as the outputs read theirs: every state 0.1 %
        // larger (the balls higher and apart, off the table).
        let elsewhere: Vec<f64> = y.iter().map(|v| v * 1.001).collect();
        dae.evaluate_at(t, &elsewhere, &yp);
        let evaluated = jacobian(dae, &res);
        let differing = reused
            .iter()
            .zip(&evaluated)
            .filter(|(a, b)| a.to_bits() != b.to_bits())
            .count();
        assert_eq!(differing, 0, "{differing} of {} entries differ", n * n);
        assert_eq!(dae.jacobian_residuals, before + 1);
    }

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
        let slide = |direction| crate::assembly::CutAxis {
            motion: AxisMotion::Slide,
            direction,
            start: 0.0,
        };
        for kind in [
            CutJointKind::Axes(vec![slide(Vector3::new(0.6, 0.0, 0.8))]),
            CutJointKind::Axes(vec![slide(Vector3::new(0.0, -1.0, 0.0))]),
        ] {
            let cut = CutJoint {
                joint: JointHandle(0),
                body_a: 0,
                frame_a: frame(0.2, -0.1, 0.3),
                body_b: 1,
                frame_b: frame(-0.1, 0.25, 0.05),
                name: "slide".into(),
                location: Default::default(),
                kind,
                first_axis: 0,
            };
            let at = |t: f64| cut_joint_coordinates(&cut, 0, &test_motions(t));
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
