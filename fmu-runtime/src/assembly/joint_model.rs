//! The joint model: what the stages below `assembly/` know of a joint, compiled once from the
//! model's words. A joint with coordinates is a list of axes ([`JointKind::axes`]); in the
//! spanning tree every axis is one [`TreeJoint`] (a joint of several axes is a chain of them
//! through massless connectors, see [`super::super_objects`]) carrying its motion, start values,
//! flange, spring, damper, end stops and prescribed motion; a joint that closes a loop is a [`CutJoint`]
//! whose [`CutJointKind`] lists the same axes, its constraint rows their complement.
//!
//! [`CutJoint`]: super::CutJoint

use crate::model::{
    AxisMotion, AxisSpec, EndStop, FlangeMode, JointKind, JointSpec, StartFixed, TimeFunction,
};
use crate::scene::JointHandle;
use nalgebra::{Isometry3, UnitQuaternion, Vector3};

/// How a super-object moves relative to its parent.
#[derive(Debug, Clone, PartialEq)]
pub enum TreeJointKind {
    /// Rotation about `axis` (unit vector in the joint's parent-side frame; the sign is flipped
    /// when the joint is traversed from its `to` end to its `from` end).
    Revolute { axis: Vector3<f64> },
    /// Translation along `axis` (same convention).
    Prismatic { axis: Vector3<f64> },
    /// Six degrees of freedom relative to a world-fixed frame.
    Free,
}

/// A tree joint that moves as a gear of another (`follows`): q = ratio·q_leader + offset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Follower {
    /// The super-object the leading joint moves.
    pub leader: usize,
    pub ratio: f64,
    pub offset: f64,
}

/// Start values of a tree joint's coordinates, as the user gave them.
#[derive(Debug, Clone, PartialEq)]
pub enum JointStart {
    Scalar {
        q: f64,
        qd: f64,
        /// Which of q, qd the user fixed (the others are guesses for the loop closure).
        fixed: StartFixed,
    },
    Free {
        position: Vector3<f64>,
        rotation: UnitQuaternion<f64>,
        velocity: Vector3<f64>,
        angular_velocity: Vector3<f64>,
    },
}

/// The joint that connects a super-object to its parent in the spanning tree: one axis of a
/// user's joint (or its free motion), with everything the later stages need of it.
#[derive(Debug, Clone)]
pub struct TreeJoint {
    pub joint: JointHandle,
    /// The user's joint's full name (for messages and variable names).
    pub name: String,
    pub kind: TreeJointKind,
    /// The parent-side joint frame, in the parent super-object's root frame. The child's root
    /// frame is this frame moved by the joint's coordinates.
    pub frame_a: Isometry3<f64>,
    /// True when the search reached the joint from its `to` end: the child is the user's `from`.
    pub reversed: bool,
    /// Which of the joint's axes ([`JointKind::axes`]) this one is: 0 for one-axis joints.
    pub axis: usize,
    pub start: JointStart,
    /// Passive, driven by a torque (force) input, or moved by inputs (one-axis joints).
    pub flange: FlangeMode,
    /// Stiffness and unstretched coordinate of a joint spring, and a damper (one-axis joints).
    pub spring: Option<(f64, f64)>,
    pub damper: Option<f64>,
    /// End stops (one-axis joints).
    pub stop: Option<EndStop>,
    /// The joint this one follows (one-axis joints): it then has no states of its own. Set by
    /// [`super::Assembly::build`] once every tree joint is known.
    pub follows: Option<Follower>,
    /// The coordinate as a function of time (`motion = ...`), instead of flange inputs.
    pub prescribed: Option<TimeFunction>,
}

impl TreeJoint {
    /// The tree joints of the user's joint `handle`, from the parent to the child: one per axis,
    /// in the joint's order or, met from the joint's `to` end (`reversed`), in reverse order and
    /// each reversed; one for a free joint. The first starts at `frame_a` in the parent, the
    /// others at the connector before them.
    pub fn chain(
        handle: JointHandle,
        spec: &JointSpec,
        frame_a: Isometry3<f64>,
        reversed: bool,
    ) -> Vec<TreeJoint> {
        let drive = spec.kind.drive();
        let joint = |axis, kind, start| TreeJoint {
            joint: handle,
            name: spec.name.clone(),
            kind,
            frame_a,
            reversed,
            axis,
            start,
            flange: drive.flange,
            spring: drive.spring,
            damper: drive.damper,
            stop: drive.stop,
            follows: None,
            prescribed: drive.motion.clone(),
        };
        if let JointKind::Free {
            position,
            rotation,
            v,
            w,
        } = &spec.kind
        {
            let start = JointStart::Free {
                position: *position,
                rotation: *rotation,
                velocity: *v,
                angular_velocity: *w,
            };
            return vec![joint(0, TreeJointKind::Free, start)];
        }
        let mut chain: Vec<TreeJoint> = spec
            .kind
            .axes()
            .into_iter()
            .enumerate()
            .map(|(index, a)| {
                let unit = a.direction.normalize();
                let axis = if reversed { -unit } else { unit };
                let kind = match a.motion {
                    AxisMotion::Turn => TreeJointKind::Revolute { axis },
                    AxisMotion::Slide => TreeJointKind::Prismatic { axis },
                };
                let start = JointStart::Scalar {
                    q: a.q,
                    qd: a.qd,
                    fixed: a.fixed,
                };
                joint(index, kind, start)
            })
            .collect();
        if reversed {
            chain.reverse();
        }
        for later in chain.iter_mut().skip(1) {
            later.frame_a = Isometry3::identity();
        }
        chain
    }
}

/// One axis of a cut-joint: whether it turns or slides, and its unit direction at zero
/// coordinates (in the `from` frame; the second axis of a universal joint in the `to` frame).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CutAxis {
    pub motion: AxisMotion,
    pub direction: Vector3<f64>,
    /// The coordinate's start value, fixed or guessed (the turn a reported angle starts in).
    pub start: f64,
}

/// How a cut-joint constrains the motion of its `to` frame relative to its `from` frame: its
/// constraint rows are the complement of the motion its axes allow ([`crate::dynamics::loops`]).
#[derive(Debug, Clone, PartialEq)]
pub enum CutJointKind {
    /// Revolute, prismatic, universal, cylindrical or planar: the joint's axes.
    Axes(Vec<CutAxis>),
    /// Coincident origins, any rotation: 3 position constraints, no coordinates.
    Spherical,
}

impl CutJointKind {
    /// The axes of a joint as a cut-joint sees them.
    pub fn from_axes(axes: &[AxisSpec]) -> CutJointKind {
        CutJointKind::Axes(
            axes.iter()
                .map(|a| CutAxis {
                    motion: a.motion,
                    direction: a.direction,
                    start: a.q,
                })
                .collect(),
        )
    }

    pub fn axes(&self) -> &[CutAxis] {
        match self {
            CutJointKind::Axes(axes) => axes,
            CutJointKind::Spherical => &[],
        }
    }
}
