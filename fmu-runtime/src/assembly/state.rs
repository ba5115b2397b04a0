//! Where each joint's coordinates live in the DAE vector y = [q; v] ([NO19] eq. 6, tree part),
//! and the states of drive trains: the angle and speed of every drive part that a spring or
//! damper separates from its joint (with the joints' q and v), and the motor currents (after all
//! speeds: like a speed, a current enters the residual through its derivative times a constant).

use super::joint_model::TreeJointKind;
use super::super_objects::Assembly;
use crate::model::{DcMotorSpec, DriveElement, DriveSource, FlangeMode, MotorVoltage};
use crate::scene::Scene;

/// Indices of one tree joint's states in y. `None` for a motion-driven joint, whose coordinates
/// are inputs, not states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JointStates {
    /// First position coordinate (1 for revolute/prismatic; 7 for free: r[3], Q[4]).
    pub q: usize,
    /// First velocity coordinate (1 for revolute/prismatic; 6 for free: v[3], w[3]).
    pub v: usize,
    /// Number of position coordinates.
    pub n_q: usize,
    /// Number of velocity coordinates.
    pub n_v: usize,
}

impl JointStates {
    /// The indices of the position coordinates in y.
    pub fn positions(&self) -> std::ops::Range<usize> {
        self.q..self.q + self.n_q
    }

    /// The indices of the velocity coordinates in y.
    pub fn speeds(&self) -> std::ops::Range<usize> {
        self.v..self.v + self.n_v
    }
}

/// The states of one drive train.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DriveStates {
    /// Angle (position) and speed of each part before a compliant element, source side first.
    pub parts: Vec<JointStates>,
    /// The motor current.
    pub current: Option<usize>,
    /// The integrator of the motor's speed controller.
    pub controller: Option<usize>,
}

/// The layout of y: all position coordinates first (joints in super-object order, then drive
/// parts), then all velocities (joints, drive parts), then motor currents.
#[derive(Debug, Clone)]
pub struct StateLayout {
    /// Per super-object (index 0, the world, has none).
    pub joints: Vec<Option<JointStates>>,
    /// Per drive of the scene, in its order.
    pub drives: Vec<DriveStates>,
    /// Number of position coordinates: joints and drive parts.
    pub n_q: usize,
    /// Number of velocity-level states: joints, drive parts and motor currents.
    pub n_v: usize,
}

impl StateLayout {
    pub fn new(scene: &Scene, assembly: &Assembly) -> StateLayout {
        let mut sizes = Vec::with_capacity(assembly.super_objects.len());
        for body in &assembly.super_objects {
            // A motion-driven axis has no states: its coordinates are inputs (a follower's,
            // its leader's).
            let size = body
                .joint
                .as_ref()
                .and_then(|tree_joint| match tree_joint.kind {
                    TreeJointKind::Free => Some((7, 6)),
                    _ if tree_joint.flange == FlangeMode::Motion => None,
                    // A follower's coordinates are its leader's times a ratio.
                    _ if tree_joint.follows.is_some() => None,
                    _ => Some((1, 1)),
                });
            sizes.push(size);
        }
        let parts: Vec<usize> = scene
            .drives
            .iter()
            .map(|(drive, _)| {
                drive
                    .elements
                    .iter()
                    .filter(|e| matches!(e, DriveElement::Compliance { .. }))
                    .count()
            })
            .collect();
        let currents = scene
            .drives
            .iter()
            .filter(|(drive, _)| matches!(drive.source, DriveSource::Motor(_)))
            .count();
        let controlled = |drive: &crate::model::DriveSpec| {
            matches!(
                drive.source,
                DriveSource::Motor(DcMotorSpec {
                    voltage: MotorVoltage::SpeedControl(_),
                    ..
                })
            )
        };
        let controllers = scene.drives.iter().filter(|(d, _)| controlled(d)).count();
        let joint_q: usize = sizes.iter().flatten().map(|s| s.0).sum();
        let joint_v: usize = sizes.iter().flatten().map(|s| s.1).sum();
        let drive_parts: usize = parts.iter().sum();
        let n_q = joint_q + drive_parts;
        let n_v = joint_v + drive_parts + currents + controllers;
        let (mut q, mut v) = (0, n_q);
        let joints = sizes
            .into_iter()
            .map(|size| {
                size.map(|(dq, dv)| {
                    let states = JointStates {
                        q,
                        v,
                        n_q: dq,
                        n_v: dv,
                    };
                    q += dq;
                    v += dv;
                    states
                })
            })
            .collect();
        let mut current = n_q + joint_v + drive_parts;
        let mut controller = current + currents;
        let drives = scene
            .drives
            .iter()
            .zip(parts)
            .map(|((drive, _), count)| {
                let parts = (0..count)
                    .map(|_| {
                        let states = JointStates {
                            q,
                            v,
                            n_q: 1,
                            n_v: 1,
                        };
                        q += 1;
                        v += 1;
                        states
                    })
                    .collect();
                let current = matches!(drive.source, DriveSource::Motor(_)).then(|| {
                    current += 1;
                    current - 1
                });
                let controller = controlled(drive).then(|| {
                    controller += 1;
                    controller - 1
                });
                DriveStates {
                    parts,
                    current,
                    controller,
                }
            })
            .collect();
        StateLayout {
            joints,
            drives,
            n_q,
            n_v,
        }
    }

    /// Length of y (and of the residual).
    pub fn len(&self) -> usize {
        self.n_q + self.n_v
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
