//! The mechanism in the form the residual evaluates: one entry per super-object with everything
//! it needs precomputed (merged mass, joint frame, state indices), and force elements resolved
//! to points on bodies.

use super::drive::Drive;
use super::kinematics::ScalarCoordinates;
use super::loops::{constraint_rows, ConstraintRow, Cut};
use crate::assembly::{
    Assembly, CollisionSet, Follower, JointStart, JointStates, StateLayout, TreeJointKind,
};
use crate::model::{EndStop, FlangeMode, ForceKind, GravitySpec, TimeFunction};
use crate::scene::Scene;
use nalgebra::{Isometry3, Matrix3, Vector3};

/// The joint that connects a body to its parent.
#[derive(Debug, Clone)]
pub struct BodyJoint {
    /// The joint's name as the user wrote it (for messages).
    pub name: String,
    pub motion: TreeJointKind,
    /// The parent-side joint frame in the parent's body frame.
    pub frame_a: Isometry3<f64>,
    /// Where its coordinates are in y; `None` when the motion is prescribed (motion-driven).
    pub states: Option<JointStates>,
    pub flange: FlangeMode,
    /// Stiffness and unstretched coordinate of a joint spring.
    pub spring: Option<(f64, f64)>,
    pub damper: Option<f64>,
    /// End stops ([`super::end_stops`]).
    pub stop: Option<EndStop>,
    /// The joint this one follows: then it has no states, and its coordinates are the
    /// leader's times the ratio ([`Mechanism::follower_coordinates`]).
    pub follows: Option<Follower>,
    pub start: JointStart,
    /// The coordinate as a function of time (`motion = ...`), instead of flange inputs.
    pub prescribed: Option<TimeFunction>,
}

/// A rigid body: one super-object.
#[derive(Debug, Clone)]
pub struct Body {
    pub name: String,
    pub parent: usize,
    /// `None` only for the world (index 0).
    pub joint: Option<BodyJoint>,
    pub mass: f64,
    /// Center of mass in the body frame.
    pub center: Vector3<f64>,
    /// Inertia about the center of mass, body axes.
    pub inertia: Matrix3<f64>,
}

/// A force element acting between two points on two bodies.
#[derive(Debug, Clone)]
pub struct ForceLink {
    pub name: String,
    pub body_a: usize,
    pub point_a: Vector3<f64>,
    pub body_b: usize,
    pub point_b: Vector3<f64>,
    pub kind: ForceKind,
}

/// The body every tree hangs from: the world, at rest, the first of [`Mechanism::bodies`] (the
/// scene's `ObjectHandle::WORLD`). Its colliders (a table, a floor, walls) never move.
pub const WORLD_BODY: usize = 0;

/// Everything the residual needs, immutable during a simulation.
#[derive(Debug, Clone)]
pub struct Mechanism {
    pub bodies: Vec<Body>,
    pub forces: Vec<ForceLink>,
    pub gravity: GravitySpec,
    pub layout: StateLayout,
    /// Cut-joints of kinematic loops.
    pub cuts: Vec<Cut>,
    /// The constraint rows in the DAE (λ_int, μ_int and f3, f4 have one entry per row). All
    /// candidate rows until [`super::assemble`] keeps an independent subset.
    pub rows: Vec<ConstraintRow>,
    /// Rows found dependent on the kept ones at the start and left out.
    pub dropped: Vec<ConstraintRow>,
    /// Colliding shapes and the pairs that may touch (empty until the simulation sets it).
    pub collisions: CollisionSet,
    /// Drive trains on joint flanges, in the scene's order.
    pub drives: Vec<Drive>,
}

impl Mechanism {
    /// Whether a joint follows another. The coupling reaches across branches (a finger that
    /// follows the other), which the branch-wise and articulated solvers and the tangent-mode
    /// Jacobian do not know: such a mechanism takes the general paths.
    pub fn has_followers(&self) -> bool {
        self.bodies
            .iter()
            .any(|b| b.joint.as_ref().is_some_and(|j| j.follows.is_some()))
    }

    /// The coordinate, speed and acceleration of a follower's joint, from its leader's states
    /// in (y, ẏ): ratio times the leader's, plus the offset for the coordinate.
    pub fn follower_coordinates(
        &self,
        follower: &Follower,
        y: &[f64],
        yp: &[f64],
    ) -> ScalarCoordinates {
        match self.bodies[follower.leader]
            .joint
            .as_ref()
            .and_then(|j| j.states)
        {
            Some(s) => ScalarCoordinates {
                q: follower.ratio * y[s.q] + follower.offset,
                qd: follower.ratio * y[s.v],
                qdd: follower.ratio * yp[s.v],
            },
            // The assembly links followers to tree joints with states only.
            None => ScalarCoordinates {
                q: f64::NAN,
                qd: f64::NAN,
                qdd: f64::NAN,
            },
        }
    }

    /// The bodies whose joint has end stops, with the stops: each has a zero-crossing function
    /// after the colliders' ([`EndStop::crossing`]).
    pub fn end_stops(&self) -> impl Iterator<Item = (usize, &EndStop)> {
        self.bodies
            .iter()
            .enumerate()
            .filter_map(|(k, body)| Some((k, body.joint.as_ref()?.stop.as_ref()?)))
    }

    pub fn new(scene: &Scene, assembly: &Assembly) -> Mechanism {
        let layout = StateLayout::new(scene, assembly);
        let bodies = assembly
            .super_objects
            .iter()
            .enumerate()
            .map(|(index, so)| {
                let joint = so.joint.as_ref().map(|tree_joint| BodyJoint {
                    name: tree_joint.name.clone(),
                    motion: tree_joint.kind.clone(),
                    frame_a: tree_joint.frame_a,
                    states: layout.joints[index],
                    flange: tree_joint.flange,
                    spring: tree_joint.spring,
                    damper: tree_joint.damper,
                    stop: tree_joint.stop,
                    follows: tree_joint.follows,
                    start: tree_joint.start.clone(),
                    prescribed: tree_joint.prescribed.clone(),
                });
                let (mass, center, inertia) = match &so.mass {
                    Some(m) => (m.mass, m.center, m.inertia),
                    None => (0.0, Vector3::zeros(), Matrix3::zeros()),
                };
                Body {
                    name: assembly.body_name(scene, index),
                    parent: so.parent.unwrap_or(0),
                    joint,
                    mass,
                    center,
                    inertia,
                }
            })
            .collect();
        let forces = scene
            .forces
            .iter()
            .map(|force| {
                let (body_a, pose_a) = assembly.placement[force.from.0];
                let (body_b, pose_b) = assembly.placement[force.to.0];
                ForceLink {
                    name: force.spec.name.clone(),
                    body_a,
                    point_a: pose_a.translation.vector,
                    body_b,
                    point_b: pose_b.translation.vector,
                    kind: force.spec.kind.clone(),
                }
            })
            .collect();
        let (cuts, rows) = constraint_rows(&assembly.cut_joints);
        // A drive on a cut-joint is refused when the assembly is built: every drive finds the
        // body its joint moves.
        let drives = scene
            .drives
            .iter()
            .enumerate()
            .filter_map(|(index, (spec, joint))| {
                let body = assembly.body_of_joint(*joint)?;
                Some(Drive::new(spec, body, &layout, index))
            })
            .collect();
        Mechanism {
            bodies,
            forces,
            gravity: scene.gravity.clone(),
            layout,
            cuts,
            rows,
            dropped: Vec::new(),
            collisions: CollisionSet::default(),
            drives,
        }
    }

    /// Number of DAE variables: q, v, and λ_int, μ_int per constraint row.
    pub fn len(&self) -> usize {
        self.layout.len() + 2 * self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.layout.is_empty()
    }

    /// The start vector y0 from the joints' start values.
    pub fn initial_state(&self) -> Vec<f64> {
        let mut y = vec![0.0; self.len()];
        for body in &self.bodies {
            let Some(joint) = &body.joint else { continue };
            let Some(states) = joint.states else { continue };
            match &joint.start {
                JointStart::Scalar { q, qd, .. } => {
                    y[states.q] = *q;
                    y[states.v] = *qd;
                }
                JointStart::Free {
                    position,
                    rotation,
                    velocity,
                    angular_velocity,
                } => {
                    y[states.q..states.q + 3].copy_from_slice(position.as_slice());
                    y[states.q + 3..states.q + 7].copy_from_slice(rotation.coords.as_slice());
                    y[states.v..states.v + 3].copy_from_slice(velocity.as_slice());
                    y[states.v + 3..states.v + 6].copy_from_slice(angular_velocity.as_slice());
                }
            }
        }
        self.start_drives(&mut y);
        y
    }

    /// Writes the drives' start states into y from their joints' coordinates in y.
    pub fn start_drives(&self, y: &mut [f64]) {
        for drive in &self.drives {
            let joint = self.bodies[drive.body].joint.as_ref();
            if let Some(s) = joint.and_then(|j| j.states) {
                let coordinates = ScalarCoordinates {
                    q: y[s.q],
                    qd: y[s.v],
                    qdd: 0.0,
                };
                drive.start(&coordinates, y);
            }
        }
    }

    /// Gravitational acceleration at a world point.
    /// ∂g/∂r of [`Mechanism::gravity_at`]: zero for uniform gravity, −μ (I/|d|³ − 3 d dᵀ/|d|⁵)
    /// about a point mass.
    pub fn gravity_gradient(&self, r: &Vector3<f64>) -> Matrix3<f64> {
        match &self.gravity {
            GravitySpec::Point { center, mu } => {
                let d = r - center;
                let distance = d.norm();
                if distance == 0.0 {
                    Matrix3::zeros()
                } else {
                    let inverse3 = distance.powi(-3);
                    -*mu * (Matrix3::identity() * inverse3
                        - d * d.transpose() * (3.0 * inverse3 / (distance * distance)))
                }
            }
            GravitySpec::None | GravitySpec::Uniform { .. } => Matrix3::zeros(),
        }
    }

    pub fn gravity_at(&self, r: &Vector3<f64>) -> Vector3<f64> {
        match &self.gravity {
            GravitySpec::None => Vector3::zeros(),
            GravitySpec::Uniform { acceleration } => *acceleration,
            GravitySpec::Point { center, mu } => {
                let d = r - center;
                let distance = d.norm();
                if distance == 0.0 {
                    Vector3::zeros()
                } else {
                    -*mu * d / distance.powi(3)
                }
            }
        }
    }
}
