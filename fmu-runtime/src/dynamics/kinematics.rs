//! Forward pass: absolute position, orientation, velocity and acceleration of every body from
//! its parent's and its joint's coordinates, all resolved in world coordinates.

use super::mechanism::{Mechanism, WORLD_BODY};
use crate::assembly::TreeJointKind;
use nalgebra::{Matrix3, Quaternion, Rotation3, Unit, UnitQuaternion, Vector3};

/// Absolute motion of one body frame, world coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BodyMotion {
    /// Origin position.
    pub r: Vector3<f64>,
    /// Orientation: maps body coordinates to world coordinates.
    pub rotation: Matrix3<f64>,
    /// Origin velocity.
    pub v: Vector3<f64>,
    /// Angular velocity.
    pub w: Vector3<f64>,
    /// Origin acceleration.
    pub a: Vector3<f64>,
    /// Angular acceleration.
    pub alpha: Vector3<f64>,
}

impl Default for BodyMotion {
    fn default() -> Self {
        BodyMotion {
            r: Vector3::zeros(),
            rotation: Matrix3::identity(),
            v: Vector3::zeros(),
            w: Vector3::zeros(),
            a: Vector3::zeros(),
            alpha: Vector3::zeros(),
        }
    }
}

impl BodyMotion {
    /// World position and velocity of a point fixed in the body (given in body coordinates).
    pub fn point(&self, local: &Vector3<f64>) -> (Vector3<f64>, Vector3<f64>) {
        let arm = self.rotation * local;
        (self.r + arm, self.v + self.w.cross(&arm))
    }
}

/// Coordinates of a one-degree-of-freedom joint: position, speed, acceleration.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ScalarCoordinates {
    pub q: f64,
    pub qd: f64,
    pub qdd: f64,
}

/// Coordinates of a free joint, read from y and ẏ.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FreeCoordinates {
    /// Position of the body origin in the joint frame.
    pub r: Vector3<f64>,
    /// Orientation relative to the joint frame (normalized from the state quaternion).
    pub rotation: UnitQuaternion<f64>,
    /// Velocity in the joint frame and its derivative.
    pub v: Vector3<f64>,
    pub vd: Vector3<f64>,
    /// Angular velocity in body coordinates and its derivative.
    pub w: Vector3<f64>,
    pub wd: Vector3<f64>,
}

impl FreeCoordinates {
    /// Reads the 7 position and 6 velocity states (and the velocity derivatives).
    pub fn read(y: &[f64], yp: &[f64], q: usize, v: usize) -> FreeCoordinates {
        let quaternion = Quaternion::new(y[q + 6], y[q + 3], y[q + 4], y[q + 5]);
        FreeCoordinates {
            r: Vector3::new(y[q], y[q + 1], y[q + 2]),
            rotation: UnitQuaternion::new_normalize(quaternion),
            v: Vector3::new(y[v], y[v + 1], y[v + 2]),
            vd: Vector3::new(yp[v], yp[v + 1], yp[v + 2]),
            w: Vector3::new(y[v + 3], y[v + 4], y[v + 5]),
            wd: Vector3::new(yp[v + 3], yp[v + 4], yp[v + 5]),
        }
    }
}

/// The coordinates of one body's joint during one evaluation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum JointCoordinates {
    Scalar(ScalarCoordinates),
    Free(FreeCoordinates),
}

/// Computes `motion[k]` for every body from `motion[parent]`; `motion[WORLD_BODY]` is at rest.
/// The joint frame's world axis is returned per body for the backward pass (zero for free
/// joints and the world).
pub fn forward_pass(
    mechanism: &Mechanism,
    coordinates: &[Option<JointCoordinates>],
    motion: &mut [BodyMotion],
    axes: &mut [Vector3<f64>],
) {
    motion[WORLD_BODY] = BodyMotion::default();
    axes[WORLD_BODY] = Vector3::zeros();
    for (k, body) in mechanism.bodies.iter().enumerate().skip(WORLD_BODY + 1) {
        let (Some(joint), Some(coords)) = (&body.joint, coordinates[k]) else {
            motion[k] = motion[body.parent];
            continue;
        };
        let p = motion[body.parent];
        let rotation_a = p.rotation * joint.frame_a.rotation.to_rotation_matrix().matrix();
        let r_a = p.r + p.rotation * joint.frame_a.translation.vector;
        motion[k] = match (&joint.motion, coords) {
            (TreeJointKind::Revolute { axis }, JointCoordinates::Scalar(c)) => {
                let n = rotation_a * axis;
                let turn = Rotation3::from_axis_angle(&Unit::new_unchecked(*axis), c.q);
                let d = r_a - p.r;
                axes[k] = n;
                BodyMotion {
                    r: r_a,
                    rotation: rotation_a * turn.matrix(),
                    v: p.v + p.w.cross(&d),
                    w: p.w + n * c.qd,
                    a: p.a + p.alpha.cross(&d) + p.w.cross(&p.w.cross(&d)),
                    alpha: p.alpha + n * c.qdd + p.w.cross(&(n * c.qd)),
                }
            }
            (TreeJointKind::Prismatic { axis }, JointCoordinates::Scalar(c)) => {
                let n = rotation_a * axis;
                let r = r_a + n * c.q;
                let d = r - p.r;
                let relative_velocity = n * c.qd;
                axes[k] = n;
                BodyMotion {
                    r,
                    rotation: rotation_a,
                    v: p.v + p.w.cross(&d) + relative_velocity,
                    w: p.w,
                    a: p.a
                        + p.alpha.cross(&d)
                        + p.w.cross(&p.w.cross(&d))
                        + 2.0 * p.w.cross(&relative_velocity)
                        + n * c.qdd,
                    alpha: p.alpha,
                }
            }
            (TreeJointKind::Free, JointCoordinates::Free(c)) => {
                // The parent frame is world-fixed (checked when the assembly is built).
                let rotation = rotation_a * c.rotation.to_rotation_matrix().matrix();
                axes[k] = Vector3::zeros();
                BodyMotion {
                    r: r_a + rotation_a * c.r,
                    rotation,
                    v: rotation_a * c.v,
                    w: rotation * c.w,
                    a: rotation_a * c.vd,
                    alpha: rotation * c.wd,
                }
            }
            // A joint's coordinates always match its motion (both come from the same layout).
            _ => p,
        };
    }
}

/// Test support: the motion of two bodies at time `t`, each along a path of constant
/// acceleration and turning about a fixed world axis with constant angular acceleration (so ω
/// and α are exactly axis·θ̇ and axis·θ̈): smooth motions whose derivatives are known, for
/// checking formulas against central differences.
#[cfg(test)]
pub(crate) fn test_motions(t: f64) -> Vec<BodyMotion> {
    use nalgebra::{Rotation3, Unit};
    let motion_at = |r0: Vector3<f64>,
                     v0: Vector3<f64>,
                     a0: Vector3<f64>,
                     axis: Vector3<f64>,
                     w0: f64,
                     alpha0: f64| {
        let axis = Unit::new_normalize(axis);
        let theta = 0.3 + w0 * t + 0.5 * alpha0 * t * t;
        let base = Rotation3::from_euler_angles(0.2, -0.4, 0.7);
        BodyMotion {
            r: r0 + v0 * t + 0.5 * a0 * t * t,
            rotation: (Rotation3::from_axis_angle(&axis, theta) * base).into_inner(),
            v: v0 + a0 * t,
            w: axis.into_inner() * (w0 + alpha0 * t),
            a: a0,
            alpha: axis.into_inner() * alpha0,
        }
    };
    vec![
        motion_at(
            Vector3::new(0.1, -0.2, 0.3),
            Vector3::new(0.5, 0.1, -0.3),
            Vector3::new(-1.0, 2.0, 0.5),
            Vector3::new(1.0, 2.0, -0.5),
            1.3,
            -2.1,
        ),
        motion_at(
            Vector3::new(-0.4, 0.2, 0.1),
            Vector3::new(-0.2, 0.7, 0.4),
            Vector3::new(0.3, -0.8, 1.1),
            Vector3::new(-0.3, 0.4, 1.0),
            -0.7,
            1.7,
        ),
    ]
}
