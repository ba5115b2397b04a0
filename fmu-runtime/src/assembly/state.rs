//! Where each joint's coordinates live in the DAE vector y = [q; v] ([NO19] eq. 6, tree part).

use super::super_objects::{Assembly, TreeJointKind};
use crate::model::{FlangeMode, JointKind};
use crate::scene::Scene;

/// Indices of one tree joint's states in y. `None` for a motion-driven joint, whose coordinates
/// are inputs, not states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JointStates {
    /// First position coordinate (1 for revolute/prismatic; 7 for free: r[3], Q[4]).
    pub q: usize,
    /// First velocity coordinate (1 for revolute/prismatic; 6 for free: v[3], w[3]).
    pub v: usize,
}

/// The layout of y: all position coordinates first, then all velocities, in super-object order.
#[derive(Debug, Clone)]
pub struct StateLayout {
    /// Per super-object (index 0, the world, has none).
    pub joints: Vec<Option<JointStates>>,
    pub n_q: usize,
    pub n_v: usize,
}

impl StateLayout {
    pub fn new(scene: &Scene, assembly: &Assembly) -> StateLayout {
        let mut sizes = Vec::with_capacity(assembly.super_objects.len());
        for body in &assembly.super_objects {
            let size = body.joint.as_ref().and_then(|tree_joint| {
                let spec = &scene.joints[tree_joint.joint.0].spec;
                match (&tree_joint.kind, &spec.kind) {
                    (TreeJointKind::Free, _) => Some((7, 6)),
                    (
                        _,
                        JointKind::Revolute {
                            flange: FlangeMode::Motion,
                            ..
                        },
                    )
                    | (
                        _,
                        JointKind::Prismatic {
                            flange: FlangeMode::Motion,
                            ..
                        },
                    ) => None,
                    _ => Some((1, 1)),
                }
            });
            sizes.push(size);
        }
        let n_q: usize = sizes.iter().flatten().map(|s| s.0).sum();
        let n_v: usize = sizes.iter().flatten().map(|s| s.1).sum();
        let (mut q, mut v) = (0, n_q);
        let joints = sizes
            .into_iter()
            .map(|size| {
                size.map(|(dq, dv)| {
                    let states = JointStates { q, v };
                    q += dq;
                    v += dv;
                    states
                })
            })
            .collect();
        StateLayout { joints, n_q, n_v }
    }

    /// Length of y (and of the residual).
    pub fn len(&self) -> usize {
        self.n_q + self.n_v
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
