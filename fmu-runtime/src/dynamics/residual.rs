//! The DAE residual of a tree mechanism ([NO19] eq. 7, first two rows):
//!
//! ```text
//! f1 = q̇ − v                              (kinematic differential equations)
//! f2 = M(q) v̇ − h(q, v, t)                 (equations of motion)
//! ```
//!
//! `f2` is never formed with a mass matrix. With ẏ given by the integrator, a forward pass
//! computes every body's acceleration ([`super::kinematics`]); a backward pass sums inertial,
//! gravity and applied forces from the leaves to the root and projects them onto each joint's
//! free directions (recursive Newton-Euler). The projection minus the joint's applied force is
//! the residual, which is zero exactly when ẏ satisfies the equations of motion. O(n) per call.
//!
//! With kinematic loops the constraint equations and reactions of cut-joints are added by
//! [`super::loops`] (f3, f4 and the Gᵀλ̇, Gᵀμ̇ terms), still O(n).
//!
//! Free joints use a quaternion Q (4 states) with Q̇ = ½ Q ⊗ (0, ω_body). |Q| is an invariant of
//! that equation; the rotation is always computed from Q/|Q| and a term k·(1 − |Q|²)·Q pulls the
//! norm back to 1, so that the integrator's rounding cannot make it drift.

use super::exact_sum::ExactSum;
use super::kinematics::{
    forward_pass, BodyMotion, FreeCoordinates, JointCoordinates, ScalarCoordinates,
};
use super::loops::{apply_wrench, constraint_offset, evaluate_row, RowValue};
use super::mechanism::Mechanism;
use crate::assembly::TreeJointKind;
use crate::model::{
    DcMotorSpec, DriveSource, FlangeMode, ForceKind, MotorVoltage, SpeedControlSpec,
};
use nalgebra::{Isometry3, Quaternion, Vector3};

/// Rate [1/s] at which the quaternion norm is pulled back to 1.
pub(super) const QUATERNION_NORM_RATE: f64 = 1.0;

/// What the environment imposes on the joints' flanges (FMU inputs), per body.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FlangeInputs {
    /// Drive torque (force) of force-driven joints.
    pub force: Vec<f64>,
    /// Prescribed coordinate, speed and acceleration of motion-driven joints.
    pub motion: Vec<ScalarCoordinates>,
    /// Per drive: the source's input, a torque (force) or a motor voltage.
    pub drive: Vec<f64>,
}

impl FlangeInputs {
    /// Inputs at their start values: zero torque, the joints' start coordinates.
    pub fn new(mechanism: &Mechanism) -> FlangeInputs {
        let n = mechanism.bodies.len();
        let mut motion = vec![ScalarCoordinates::default(); n];
        for (k, body) in mechanism.bodies.iter().enumerate() {
            if let Some(super::mechanism::BodyJoint {
                start: crate::assembly::JointStart::Scalar { q, qd, .. },
                ..
            }) = &body.joint
            {
                motion[k] = ScalarCoordinates {
                    q: *q,
                    qd: *qd,
                    qdd: 0.0,
                };
            }
        }
        FlangeInputs {
            force: vec![0.0; n],
            motion,
            drive: vec![0.0; mechanism.drives.len()],
        }
    }

    /// Writes the coordinates of joints moved by an expression of time (`motion = ...`) at `t`.
    /// The first prescribed value (a joint's motion, a drive's voltage or reference speed) that
    /// is not finite at the last [`FlangeInputs::prescribe`]: a description naming its joint or
    /// drive, for the error that refuses it.
    pub fn non_finite_prescription(&self, mechanism: &Mechanism) -> Option<String> {
        for (k, body) in mechanism.bodies.iter().enumerate() {
            let Some(joint) = body.joint.as_ref().filter(|j| j.prescribed.is_some()) else {
                continue;
            };
            let c = &self.motion[k];
            if ![c.q, c.qd, c.qdd].iter().all(|x| x.is_finite()) {
                return Some(format!(
                    "the motion of joint `{}` (position {:e}, speed {:e}, acceleration {:e})",
                    joint.name, c.q, c.qd, c.qdd
                ));
            }
        }
        mechanism
            .drives
            .iter()
            .zip(&self.drive)
            .find(|(_, v)| !v.is_finite())
            .map(|(drive, v)| {
                format!(
                    "the voltage or reference speed of drive `{}` ({v:e})",
                    drive.name
                )
            })
    }

    pub fn prescribe(&mut self, mechanism: &Mechanism, t: f64) {
        for (k, body) in mechanism.bodies.iter().enumerate() {
            if let Some(function) = body.joint.as_ref().and_then(|j| j.prescribed.as_ref()) {
                let jet = function.jet(t);
                self.motion[k] = ScalarCoordinates {
                    q: jet.v,
                    qd: jet.d,
                    qdd: jet.dd,
                };
            }
        }
        for (d, drive) in mechanism.drives.iter().enumerate() {
            // A voltage given as a function of time, or the reference speed of a controller.
            if let DriveSource::Motor(DcMotorSpec {
                voltage:
                    MotorVoltage::Function(function)
                    | MotorVoltage::SpeedControl(SpeedControlSpec {
                        w_ref: function, ..
                    }),
                ..
            }) = &drive.source
            {
                self.drive[d] = function.jet(t).v;
            }
        }
    }
}

/// A pair that penetrates at the last evaluation of the contact loads
/// ([`Workspace::penetrating`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Penetrating {
    /// Its index in [`Workspace::pairs`].
    pub pair: usize,
    /// The speed bands of its law it lies inside ([`crate::collision::response::speed_bands`]).
    pub bands: u8,
}

/// Scratch space of one evaluation, reused between calls; after an evaluation it also holds
/// the results that outputs are read from.
#[derive(Debug, Clone)]
pub struct Workspace {
    pub coordinates: Vec<Option<JointCoordinates>>,
    pub motion: Vec<BodyMotion>,
    /// World direction of each 1-dof joint's axis.
    pub axes: Vec<Vector3<f64>>,
    /// Force and torque (about the body origin) that the parent transmits to each body.
    pub force: Vec<Vector3<f64>>,
    pub torque: Vec<Vector3<f64>>,
    /// The torque (force) each 1-dof joint's drive supplies: the input of a force-driven joint,
    /// the result of the equations of motion for a motion-driven one.
    pub drive: Vec<f64>,
    /// The torque (force) a drive train exerts on each body's joint flange.
    pub flange: Vec<f64>,
    /// The constraint rows of cut-joints at this evaluation (g, ġ, g̈ and wrench).
    pub rows: Vec<RowValue>,
    /// Loads of the wrench-only backward pass that forms Gᵀμ̇.
    pub mu_force: Vec<Vector3<f64>>,
    pub mu_torque: Vec<Vector3<f64>>,
    /// Per body, the exact sums of its contact forces (x, y, z) and torques (x, y, z)
    /// ([`super::contacts::sum_contact_loads`]).
    pub contact_loads: Vec<[ExactSum; 6]>,
    /// Reuse `contact_loads` as they are instead of evaluating every pair: for residuals that
    /// differ from the last one in ẏ only, which contact loads do not depend on (the start
    /// derivatives' mass-matrix columns).
    pub contact_loads_frozen: bool,
    /// World pose of every collider ([`super::contacts`]), refreshed by every forward pass.
    pub collider_poses: Vec<Isometry3<f64>>,
    /// The pairs whose contact loads are evaluated ([`super::contacts::NearPairs`]).
    pub near_pairs: super::contacts::NearPairs,
    /// The collision pairs met so far with their discrete state: per pair, whether it sticks
    /// and where ([`super::contacts::Friction`]) and its signs at the last restart, changed
    /// only at restarts ([`super::contacts::PairTable`]).
    pub pairs: super::contacts::PairTable,
    /// The pairs that penetrate at the last evaluation of the contact loads, in the order of
    /// the near list: no other pair has loads. The exact Jacobian visits these alone; the
    /// friction-band check compares their bands with those the iteration matrix was formed in.
    pub penetrating: Vec<Penetrating>,
    /// How many states were read into this workspace (every kinematics and residual): a caller
    /// that notes the count after its own evaluation can tell whether the workspace still
    /// holds that evaluation.
    pub reads: u64,
}

impl Workspace {
    pub fn new(mechanism: &Mechanism) -> Workspace {
        let n = mechanism.bodies.len();
        Workspace {
            coordinates: vec![None; n],
            motion: vec![BodyMotion::default(); n],
            axes: vec![Vector3::zeros(); n],
            force: vec![Vector3::zeros(); n],
            torque: vec![Vector3::zeros(); n],
            drive: vec![0.0; n],
            flange: vec![0.0; n],
            rows: vec![RowValue::default(); mechanism.rows.len()],
            mu_force: vec![Vector3::zeros(); n],
            mu_torque: vec![Vector3::zeros(); n],
            contact_loads: vec![Default::default(); n],
            contact_loads_frozen: false,
            collider_poses: Vec::with_capacity(mechanism.collisions.colliders.len()),
            near_pairs: Default::default(),
            pairs: super::contacts::PairTable::new(&mechanism.collisions),
            penetrating: Vec::new(),
            reads: 0,
        }
    }
}

/// Positions, velocities and accelerations of every body (the forward pass alone), for
/// zero-crossing functions and outputs.
pub fn kinematics(
    mechanism: &Mechanism,
    inputs: &FlangeInputs,
    ws: &mut Workspace,
    y: &[f64],
    yp: &[f64],
) {
    read_coordinates(mechanism, inputs, ws, y, yp);
    forward_pass(mechanism, &ws.coordinates, &mut ws.motion, &mut ws.axes);
    super::contacts::update_collider_poses(mechanism, ws);
}

/// Evaluates f(t, y, ẏ) into `res` (all slices of length `mechanism.len()`).
pub fn residual(
    mechanism: &Mechanism,
    inputs: &FlangeInputs,
    ws: &mut Workspace,
    y: &[f64],
    yp: &[f64],
    res: &mut [f64],
) {
    read_coordinates(mechanism, inputs, ws, y, yp);
    kinematic_equations(mechanism, y, yp, res);
    forward_pass(mechanism, &ws.coordinates, &mut ws.motion, &mut ws.axes);
    super::contacts::update_collider_poses(mechanism, ws);
    backward_pass(mechanism, ws, yp, res);
    drive_equations(mechanism, inputs, ws, y, yp, res);
    equations_of_motion(mechanism, inputs, ws, res);
}

/// The drives' own equations, and the torque each exerts on its joint's flange.
fn drive_equations(
    mechanism: &Mechanism,
    inputs: &FlangeInputs,
    ws: &mut Workspace,
    y: &[f64],
    yp: &[f64],
    res: &mut [f64],
) {
    for (drive, input) in mechanism.drives.iter().zip(&inputs.drive) {
        let Some(JointCoordinates::Scalar(joint)) = ws.coordinates[drive.body] else {
            continue;
        };
        ws.flange[drive.body] = drive.residual(*input, &joint, y, yp, res);
        drive.motor_residual(*input, &joint, y, yp, res);
    }
}

fn read_coordinates(
    mechanism: &Mechanism,
    inputs: &FlangeInputs,
    ws: &mut Workspace,
    y: &[f64],
    yp: &[f64],
) {
    ws.reads = ws.reads.wrapping_add(1);
    for (k, body) in mechanism.bodies.iter().enumerate() {
        ws.coordinates[k] = body
            .joint
            .as_ref()
            .map(|joint| match (&joint.motion, joint.states) {
                (TreeJointKind::Free, Some(s)) => {
                    JointCoordinates::Free(FreeCoordinates::read(y, yp, s.q, s.v))
                }
                (_, Some(s)) => JointCoordinates::Scalar(ScalarCoordinates {
                    q: y[s.q],
                    qd: y[s.v],
                    qdd: yp[s.v],
                }),
                (_, None) => JointCoordinates::Scalar(match &joint.follows {
                    Some(follower) => mechanism.follower_coordinates(follower, y, yp),
                    None => inputs.motion[k],
                }),
            });
    }
}

/// f1: q̇ − v, and the quaternion equation of free joints.
fn kinematic_equations(mechanism: &Mechanism, y: &[f64], yp: &[f64], res: &mut [f64]) {
    for body in &mechanism.bodies {
        let Some(joint) = &body.joint else { continue };
        let Some(s) = joint.states else { continue };
        match joint.motion {
            TreeJointKind::Revolute { .. } | TreeJointKind::Prismatic { .. } => {
                res[s.q] = yp[s.q] - y[s.v]
            }
            TreeJointKind::Free => {
                for i in 0..3 {
                    res[s.q + i] = yp[s.q + i] - y[s.v + i];
                }
                let q = Quaternion::new(y[s.q + 6], y[s.q + 3], y[s.q + 4], y[s.q + 5]);
                let rate = quaternion_rate(&q, &Vector3::new(y[s.v + 3], y[s.v + 4], y[s.v + 5]));
                for i in 0..4 {
                    res[s.q + 3 + i] = yp[s.q + 3 + i] - rate.coords[i];
                }
            }
        }
    }
}

/// Q̇ for angular velocity `w` in body coordinates, with the norm-restoring term.
pub fn quaternion_rate(q: &Quaternion<f64>, w: &Vector3<f64>) -> Quaternion<f64> {
    let pure = Quaternion::from_imag(*w);
    q * pure * 0.5 + q * (QUATERNION_NORM_RATE * (1.0 - q.norm_squared()))
}

/// Sums, from the leaves to the root, the force and torque each body needs from its parent.
/// With loops it also writes f3, f4 and adds Gᵀμ̇ to f1 (`res`) and Gᵀλ̇ to the loads.
fn backward_pass(mechanism: &Mechanism, ws: &mut Workspace, yp: &[f64], res: &mut [f64]) {
    for k in 0..mechanism.bodies.len() {
        let body = &mechanism.bodies[k];
        let m = &ws.motion[k];
        if body.mass > 0.0 {
            let c = m.rotation * body.center;
            let inertia = m.rotation * body.inertia * m.rotation.transpose();
            let a_cm = m.a + m.alpha.cross(&c) + m.w.cross(&m.w.cross(&c));
            let f = body.mass * (a_cm - mechanism.gravity_at(&(m.r + c)));
            ws.force[k] = f;
            ws.torque[k] = inertia * m.alpha + m.w.cross(&(inertia * m.w)) + c.cross(&f);
        } else {
            ws.force[k] = Vector3::zeros();
            ws.torque[k] = Vector3::zeros();
        }
    }
    for link in &mechanism.forces {
        let (ra, va) = ws.motion[link.body_a].point(&link.point_a);
        let (rb, vb) = ws.motion[link.body_b].point(&link.point_b);
        let d = rb - ra;
        let length = d.norm();
        if length <= f64::EPSILON {
            continue; // no direction: the line force vanishes with the distance
        }
        let e = d / length;
        let speed = (vb - va).dot(&e);
        let tension = match link.kind {
            ForceKind::Spring {
                stiffness,
                length: l0,
            } => stiffness * (length - l0),
            ForceKind::Damper { damping } => damping * speed,
            ForceKind::SpringDamper {
                stiffness,
                length: l0,
                damping,
            } => stiffness * (length - l0) + damping * speed,
        };
        // Tension pulls the two points toward each other along e (from a to b).
        apply(ws, link.body_a, &ra, &(tension * e));
        apply(ws, link.body_b, &rb, &(-tension * e));
    }
    if mechanism.collisions.has_pairs() {
        if !ws.contact_loads_frozen {
            super::contacts::sum_contact_loads(mechanism, ws);
        }
        super::contacts::apply_contact_loads(ws);
    }
    if !mechanism.rows.is_empty() {
        constraint_terms(mechanism, ws, yp, res);
    }
    accumulate(mechanism, &ws.motion, &mut ws.force, &mut ws.torque);
}

/// Adds each body's load to its parent's, from the leaves to the root (torques about the body
/// origins).
fn accumulate(
    mechanism: &Mechanism,
    motion: &[BodyMotion],
    force: &mut [Vector3<f64>],
    torque: &mut [Vector3<f64>],
) {
    for k in (1..mechanism.bodies.len()).rev() {
        let parent = mechanism.bodies[k].parent;
        let arm = motion[k].r - motion[parent].r;
        let (f, t) = (force[k], torque[k]);
        force[parent] += f;
        torque[parent] += t + arm.cross(&f);
    }
}

/// The loop terms of [`super::loops`]: f3 = g, f4 = ġ, the wrenches of λ̇_int added to the
/// loads, and Gᵀμ̇_int added to f1 by a wrench-only backward pass.
fn constraint_terms(mechanism: &Mechanism, ws: &mut Workspace, yp: &[f64], res: &mut [f64]) {
    let m = mechanism.rows.len();
    let base = constraint_offset(mechanism);
    ws.mu_force.fill(Vector3::zeros());
    ws.mu_torque.fill(Vector3::zeros());
    for (i, row) in mechanism.rows.iter().enumerate() {
        let cut = &mechanism.cuts[row.cut];
        let value = evaluate_row(cut, row, &ws.motion);
        ws.rows[i] = value;
        res[base + i] = value.g;
        res[base + m + i] = value.gd;
        apply_wrench(
            cut,
            &value,
            yp[base + i],
            &ws.motion,
            &mut ws.force,
            &mut ws.torque,
        );
        apply_wrench(
            cut,
            &value,
            yp[base + m + i],
            &ws.motion,
            &mut ws.mu_force,
            &mut ws.mu_torque,
        );
    }
    accumulate(mechanism, &ws.motion, &mut ws.mu_force, &mut ws.mu_torque);
    for (k, body) in mechanism.bodies.iter().enumerate() {
        let Some(joint) = &body.joint else { continue };
        let Some(s) = joint.states else { continue };
        match joint.motion {
            TreeJointKind::Revolute { .. } => res[s.q] += ws.axes[k].dot(&ws.mu_torque[k]),
            TreeJointKind::Prismatic { .. } => res[s.q] += ws.axes[k].dot(&ws.mu_force[k]),
            // Not on a loop (checked by the assembly): its share of Gᵀμ̇ is zero.
            TreeJointKind::Free => {}
        }
    }
}

/// Books an applied force acting at world point `at` on body `k` (as a negative load).
fn apply(ws: &mut Workspace, k: usize, at: &Vector3<f64>, force: &Vector3<f64>) {
    let arm = at - ws.motion[k].r;
    ws.force[k] -= force;
    ws.torque[k] -= arm.cross(force);
}

/// f2: generalized inertial-minus-applied force of each joint, minus the joint's own spring,
/// damper, end stops and drive.
fn equations_of_motion(
    mechanism: &Mechanism,
    inputs: &FlangeInputs,
    ws: &mut Workspace,
    res: &mut [f64],
) {
    for (k, body) in mechanism.bodies.iter().enumerate() {
        let Some(joint) = &body.joint else { continue };
        let m = &ws.motion[k];
        match joint.motion {
            TreeJointKind::Free => {
                let Some(s) = joint.states else { continue };
                let parent = &ws.motion[body.parent];
                let rotation_a =
                    parent.rotation * joint.frame_a.rotation.to_rotation_matrix().matrix();
                let f = rotation_a.transpose() * ws.force[k];
                let t = m.rotation.transpose() * ws.torque[k];
                for i in 0..3 {
                    res[s.v + i] = f[i];
                    res[s.v + 3 + i] = t[i];
                }
            }
            TreeJointKind::Revolute { .. } | TreeJointKind::Prismatic { .. } => {
                let n = ws.axes[k];
                let generalized = match joint.motion {
                    TreeJointKind::Revolute { .. } => n.dot(&ws.torque[k]),
                    _ => n.dot(&ws.force[k]),
                };
                let Some(JointCoordinates::Scalar(c)) = ws.coordinates[k] else {
                    continue;
                };
                let mut passive = 0.0;
                if let Some((stiffness, q0)) = joint.spring {
                    passive -= stiffness * (c.q - q0);
                }
                if let Some(damping) = joint.damper {
                    passive -= damping * c.qd;
                }
                if let Some(stop) = &joint.stop {
                    passive += stop.load(c.q, c.qd).force;
                }
                match (joint.flange, joint.states) {
                    // A follower's, too: its leader takes it below.
                    (FlangeMode::Motion, _) | (_, None) => {
                        ws.drive[k] = generalized - passive;
                    }
                    (flange, Some(s)) => {
                        let drive = ws.flange[k]
                            + if flange == FlangeMode::Force {
                                inputs.force[k]
                            } else {
                                0.0
                            };
                        ws.drive[k] = drive;
                        res[s.v] = generalized - passive - drive;
                    }
                }
            }
        }
    }
    // A follower's generalized force (what moving it as its leader says takes, less its own
    // spring, damper and stops) acts on the leader through the ratio: δq_follower = ratio·δq_leader.
    for (k, body) in mechanism.bodies.iter().enumerate() {
        let Some(follower) = body.joint.as_ref().and_then(|j| j.follows) else {
            continue;
        };
        if let Some(s) = mechanism.bodies[follower.leader]
            .joint
            .as_ref()
            .and_then(|j| j.states)
        {
            res[s.v] += follower.ratio * ws.drive[k];
        }
    }
}
