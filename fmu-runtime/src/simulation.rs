//! (6) The whole chain: model → scene → super-objects → DAE → IDA, and stepping it in time.
//!
//! A [`Simulation`] owns the integrator and the variable table. It is what `fmu3d simulate` runs
//! and what an FMU instance wraps.

use crate::assembly::{Assembly, Causality, FrameQuantity, VariableKind, VariableTable};
use crate::dynamics::{
    consistent_derivatives, residual, FlangeInputs, Mechanism, Motion, SingularMassMatrix,
    Workspace,
};
use crate::ida::{CallbackError, DaeSystem, Ida, IdaError, IdaOptions, SolverStats};
use crate::model::{self, ModelError, ModelSpec};
use crate::scene::{Scene, SceneError};
use nalgebra::{Rotation3, UnitQuaternion};
use std::path::Path;

/// Anything that stops a simulation from being built or advanced.
#[derive(Debug)]
pub enum SimulationError {
    Model(ModelError),
    Scene(SceneError),
    Start(SingularMassMatrix),
    Solver(IdaError),
    /// A request the simulation cannot serve (a time in the past, an unknown variable).
    Usage(String),
}

impl std::fmt::Display for SimulationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimulationError::Model(e) => write!(f, "{e}"),
            SimulationError::Scene(e) => write!(f, "{e}"),
            SimulationError::Start(e) => write!(f, "{e}"),
            SimulationError::Solver(e) => write!(f, "the integrator failed: {e}"),
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
        SimulationError::Solver(e)
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

/// The DAE as IDA sees it.
struct MechanismDae {
    mechanism: Mechanism,
    inputs: FlangeInputs,
    workspace: Workspace,
}

impl DaeSystem for MechanismDae {
    fn residual(
        &mut self,
        _t: f64,
        y: &[f64],
        yp: &[f64],
        res: &mut [f64],
    ) -> Result<(), CallbackError> {
        residual(
            &self.mechanism,
            &self.inputs,
            &mut self.workspace,
            y,
            yp,
            res,
        );
        if res.iter().all(|r| r.is_finite()) {
            Ok(())
        } else {
            Err(CallbackError::Recoverable(
                "the residual is not finite".into(),
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
        let variables = VariableTable::new(&scene, &assembly);
        let mechanism = Mechanism::new(&scene, &assembly);
        let inputs = FlangeInputs::new(&mechanism);
        let mut workspace = Workspace::new(&mechanism);
        let y0 = mechanism.initial_state();
        let yp0 = consistent_derivatives(&mechanism, &inputs, &mut workspace, &y0)
            .map_err(SimulationError::Start)?;
        let tolerance = options.tolerance.unwrap_or(spec.experiment.tolerance);
        let ida_options = IdaOptions {
            rtol: tolerance,
            atol: tolerance.into(),
            max_step: options.max_step,
            ..IdaOptions::default()
        };
        let dae = MechanismDae {
            mechanism,
            inputs,
            workspace,
        };
        let ida = Ida::new(dae, spec.experiment.start_time, &y0, &yp0, &ida_options)?;
        Ok(Simulation {
            spec,
            scene,
            assembly,
            variables,
            ida,
        })
    }

    pub fn time(&self) -> f64 {
        self.ida.t()
    }

    /// Integrates to `t` (not before the current time).
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
        self.ida.solve_to(t)?;
        Ok(())
    }

    pub fn stats(&self) -> SolverStats {
        self.ida.stats()
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

    /// Values of the output variables at the current time, in table order.
    pub fn output_values(&mut self) -> Vec<f64> {
        self.refresh_workspace();
        let outputs: Vec<usize> = self.variables.outputs().map(|(i, _)| i).collect();
        outputs.into_iter().map(|i| self.evaluate(i)).collect()
    }

    /// Evaluates the residual at the integrator's current y, ẏ so that the workspace holds the
    /// kinematics and drive forces of this instant.
    fn refresh_workspace(&mut self) {
        let y = self.ida.y().to_vec();
        let yp = self.ida.yp().to_vec();
        let dae = self.ida.system_mut();
        let mut res = vec![0.0; y.len()];
        residual(
            &dae.mechanism,
            &dae.inputs,
            &mut dae.workspace,
            &y,
            &yp,
            &mut res,
        );
    }

    fn evaluate(&self, index: usize) -> f64 {
        let dae = self.ida.system();
        let (y, yp) = (self.ida.y(), self.ida.yp());
        let variable = &self.variables.variables[index];
        let scalar_states = |body: usize| {
            dae.mechanism.bodies[body]
                .joint
                .as_ref()
                .and_then(|j| match j.motion {
                    Motion::Free => None,
                    _ => j.states,
                })
        };
        match variable.kind {
            VariableKind::Parameter(i) => self.scene.parameters[i].value,
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

    /// Sets an input variable (a joint's drive torque or prescribed motion) by its index.
    pub fn set_input(&mut self, index: usize, value: f64) -> Result<(), SimulationError> {
        let variable = self.variables.variables.get(index).ok_or_else(|| {
            SimulationError::Usage(format!("there is no variable with index {index}"))
        })?;
        if variable.causality != Causality::Input {
            return Err(SimulationError::Usage(format!(
                "`{}` is not an input",
                variable.name
            )));
        }
        let kind = variable.kind;
        let inputs = &mut self.ida.system_mut().inputs;
        match kind {
            VariableKind::JointForce(body) => inputs.force[body] = value,
            VariableKind::JointPosition(body) => inputs.motion[body].q = value,
            VariableKind::JointSpeed(body) => inputs.motion[body].qd = value,
            VariableKind::JointAcceleration(body) => inputs.motion[body].qdd = value,
            _ => {}
        }
        Ok(())
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
