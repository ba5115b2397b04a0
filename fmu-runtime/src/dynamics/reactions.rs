//! The force and torque a joint transmits, for the outputs `NAME.f` and `NAME.t` of joints
//! declared with `output_forces = true`.
//!
//! Both are what the `from` side exerts on the `to` side, at the origin of the `to` frame,
//! resolved in the `from` frame. They are read from a workspace in which the residual was just
//! evaluated:
//! * a tree joint transmits the load its child body needs from its parent, which the backward
//!   Newton–Euler pass has summed (inertial minus applied forces of the whole subtree, with the
//!   reactions of the cut-joints in it). It includes the joint's own spring, damper and drive
//!   along its free direction.
//! * a cut-joint transmits the sum of its constraint rows' wrenches times the rows' multipliers
//!   λ̇_int ([`super::loops`]). The rows removed as redundant carry nothing: in a planar loop the
//!   force along the common axis and the torques about the in-plane axes are statically
//!   indeterminate between the loop's joints and are carried by its tree joints.

use super::loops::constraint_offset;
use super::mechanism::Mechanism;
use super::residual::Workspace;
use crate::assembly::Assembly;
use crate::scene::Scene;
use nalgebra::Vector3;

/// Force [N] and torque [N.m] of joint `joint` (scene index): [f; t] in the `from` frame.
pub fn joint_reaction(
    mechanism: &Mechanism,
    ws: &Workspace,
    yp: &[f64],
    scene: &Scene,
    assembly: &Assembly,
    joint: usize,
) -> [f64; 6] {
    let spec = &scene.joints[joint];
    let (body_from, pose_from) = assembly.placement[spec.from.0];
    let (body_to, pose_to) = assembly.placement[spec.to.0];
    let rotation_from = ws.motion[body_from].rotation * pose_from.rotation.to_rotation_matrix();
    let motion_to = &ws.motion[body_to];
    let p_to = motion_to.r + motion_to.rotation * pose_to.translation.vector;
    let (force, torque) = if let Some(c) = mechanism.cuts.iter().position(|c| c.joint == joint) {
        let base = constraint_offset(mechanism);
        let mut force = Vector3::zeros();
        let mut torque = Vector3::zeros();
        // The residual books a row's wrench as a load (inertial minus applied): the force the
        // `to` body receives is its opposite.
        for (i, row) in mechanism.rows.iter().enumerate() {
            if row.cut == c {
                force -= ws.rows[i].force_b * yp[base + i];
                torque -= ws.rows[i].torque_b * yp[base + i];
            }
        }
        (force, torque)
    } else if let Some((k, tree)) = assembly
        .super_objects
        .iter()
        .enumerate()
        .find_map(|(k, so)| {
            so.joint
                .as_ref()
                .filter(|j| j.joint.0 == joint)
                .map(|j| (k, j))
        })
    {
        // What the parent exerts on body k, about body k's origin.
        let (f, t) = (ws.force[k], ws.torque[k]);
        let (f, t) = if tree.reversed { (-f, -t) } else { (f, t) };
        (f, t + (ws.motion[k].r - p_to).cross(&f))
    } else {
        (Vector3::zeros(), Vector3::zeros())
    };
    let f = rotation_from.transpose() * force;
    let t = rotation_from.transpose() * torque;
    [f.x, f.y, f.z, t.x, t.y, t.z]
}
