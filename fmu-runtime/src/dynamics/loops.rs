//! Kinematic loops: the constraint equations of cut-joints and their reactions ([NO19] §5).
//!
//! With m independent constraint rows the DAE is ([NO19] eqs. 3, 6, 7):
//!
//! ```text
//! y  = [q; v; λ_int; μ_int]
//! f1 = q̇ − v + Gᵀ μ̇_int
//! f2 = M v̇ − h + Gᵀ λ̇_int
//! f3 = g(q, t)
//! f4 = ġ(q, v, t) = G v + g⁽¹⁾
//! ```
//!
//! Gᵀ is never formed. Each constraint row has a *wrench*: forces and torques on the two bodies
//! of its cut-joint whose virtual power is ġ. Applying λ̇_i times that wrench as a load in the
//! backward Newton–Euler pass adds exactly the row's column of Gᵀλ̇ to every joint's
//! generalized force (principle of virtual work); a second, wrench-only backward pass does the
//! same for Gᵀμ̇. ġ and g̈ are computed analytically from the forward pass' world velocities and
//! accelerations, so prescribed (motion-driven) joints contribute g⁽¹⁾ without extra terms.
//!
//! Only joints with axes may lie on a loop (checked when the assembly is built), so q and v have
//! the same dimension there and ∂g/∂q = ∂ġ/∂v.
//!
//! A cut-joint's rows are the complement of the motion its axes allow, in the `from` frame (a)
//! and the `to` frame (b). Every turning axis passes through the joint's origin, so:
//! * position: the origin of b along the directions of a that no sliding axis spans (three
//!   without slides: e1, e2, n of a revolute joint's axis n; two beside one slide; one, the
//!   normal, beside a planar joint's two);
//! * orientation, by the number of turning axes: none (prismatic) — the three components of the
//!   relative rotation's vector part ½(a_j·b_k − a_k·b_j); one axis n (revolute, cylindrical,
//!   planar) — (e1 of a)·(n of b), (e2 of a)·(n of b); two (universal: n_a in a, n_b in b) —
//!   (n_a of a)·(n_b of b), zero while the axes stay perpendicular; a spherical joint, none.
//!
//! e1, e2 complete n to a right-handed frame. In a planar loop the rows along the common axis
//! direction are dependent on the others; [`super::initial`] finds and drops them.

use super::kinematics::BodyMotion;
use super::mechanism::Mechanism;
use crate::assembly::{CutJoint, CutJointKind};
use crate::model::AxisMotion;
use crate::model::Location;
use nalgebra::Vector3;

/// A cut-joint, resolved to points and directions in body coordinates.
#[derive(Debug, Clone)]
pub struct Cut {
    /// The joint's name as the user wrote it, and where.
    pub name: String,
    /// Index of the joint in the scene.
    pub joint: usize,
    pub location: Location,
    pub body_a: usize,
    /// Origin of the `from` frame in body a's frame.
    pub point_a: Vector3<f64>,
    pub body_b: usize,
    /// Origin of the `to` frame in body b's frame.
    pub point_b: Vector3<f64>,
}

/// What one constraint row measures.
#[derive(Debug, Clone, PartialEq)]
pub enum RowKind {
    /// (p_b − p_a)·u with u fixed in body a (body-a coordinates).
    Position { u: Vector3<f64> },
    /// Σ c·(x·y) with x fixed in body a and y fixed in body b (body coordinates); unused terms
    /// have c = 0.
    Orientation {
        terms: [(Vector3<f64>, Vector3<f64>, f64); 2],
    },
}

/// One scalar constraint equation of a cut-joint.
#[derive(Debug, Clone, PartialEq)]
pub struct ConstraintRow {
    /// Index into [`Mechanism::cuts`].
    pub cut: usize,
    pub kind: RowKind,
    /// What the row constrains, for reports (`position along [0, 0, 1]`).
    pub description: String,
}

/// A row evaluated at one instant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowValue {
    /// g, ġ and g̈.
    pub g: f64,
    pub gd: f64,
    pub gdd: f64,
    /// The row's wrench: force on b at p_b (and its opposite on a at p_a), torques on a and b.
    pub force_b: Vector3<f64>,
    pub torque_a: Vector3<f64>,
    pub torque_b: Vector3<f64>,
}

impl Default for RowValue {
    fn default() -> Self {
        RowValue {
            g: 0.0,
            gd: 0.0,
            gdd: 0.0,
            force_b: Vector3::zeros(),
            torque_a: Vector3::zeros(),
            torque_b: Vector3::zeros(),
        }
    }
}

/// An orthonormal basis of the directions perpendicular to the orthonormal vectors `spanned`
/// (zero to three of them); with none, the frame that `around` completes (a revolute joint's
/// rows along e1, e2 and its axis), or x, y, z.
fn complement(spanned: &[Vector3<f64>], around: Option<&Vector3<f64>>) -> Vec<Vector3<f64>> {
    match spanned {
        [] => match around {
            Some(n) => {
                let (e1, e2) = complete(n);
                vec![e1, e2, *n]
            }
            None => vec![Vector3::x(), Vector3::y(), Vector3::z()],
        },
        [n] => {
            let (e1, e2) = complete(n);
            vec![e1, e2]
        }
        [a, b] => vec![a.cross(b).normalize()],
        _ => Vec::new(),
    }
}

/// Two unit vectors completing the unit vector `n` to a right-handed frame (e1, e2, n).
fn complete(n: &Vector3<f64>) -> (Vector3<f64>, Vector3<f64>) {
    let helper = if n.x.abs() < 0.9 {
        Vector3::x()
    } else {
        Vector3::y()
    };
    let e1 = (helper - n * n.dot(&helper)).normalize();
    let e2 = n.cross(&e1);
    (e1, e2)
}

fn describe(v: &Vector3<f64>) -> String {
    let clean = |x: f64| {
        let r = (x * 1e6).round() / 1e6;
        if r == 0.0 {
            0.0
        } else {
            r
        }
    };
    format!("[{}, {}, {}]", clean(v.x), clean(v.y), clean(v.z))
}

/// The cuts and all candidate constraint rows of an assembly's cut-joints.
pub fn constraint_rows(cut_joints: &[CutJoint]) -> (Vec<Cut>, Vec<ConstraintRow>) {
    let mut cuts = Vec::new();
    let mut rows = Vec::new();
    for (index, cut) in cut_joints.iter().enumerate() {
        cuts.push(Cut {
            name: cut.name.clone(),
            joint: cut.joint.0,
            location: cut.location.clone(),
            body_a: cut.body_a,
            point_a: cut.frame_a.translation.vector,
            body_b: cut.body_b,
            point_b: cut.frame_b.translation.vector,
        });
        let ra = cut.frame_a.rotation;
        let rb = cut.frame_b.rotation;
        let position = |u: Vector3<f64>| ConstraintRow {
            cut: index,
            kind: RowKind::Position { u: ra * u },
            description: format!("position along {} of the `from` frame", describe(&u)),
        };
        let axes = cut.kind.axes();
        let along = |motion: AxisMotion| {
            axes.iter()
                .filter(move |a| a.motion == motion)
                .map(|a| a.direction)
        };
        // Position: the directions no slide spans (every turning axis passes through the
        // joint's origin). A spherical joint has no axes and keeps all three.
        let slides: Vec<Vector3<f64>> = along(AxisMotion::Slide).collect();
        let turns: Vec<Vector3<f64>> = along(AxisMotion::Turn).collect();
        let single_turn = match turns.as_slice() {
            [n] => Some(n),
            _ => None,
        };
        for u in complement(&slides, single_turn) {
            rows.push(position(u));
        }
        if cut.kind == CutJointKind::Spherical {
            continue;
        }
        // Orientation: the rotations no turning axis allows.
        match turns.as_slice() {
            [] => {
                let basis = [Vector3::x(), Vector3::y(), Vector3::z()];
                for i in 0..3 {
                    let (j, k) = ((i + 1) % 3, (i + 2) % 3);
                    rows.push(ConstraintRow {
                        cut: index,
                        kind: RowKind::Orientation {
                            terms: [
                                (ra * basis[j], rb * basis[k], 0.5),
                                (ra * basis[k], rb * basis[j], -0.5),
                            ],
                        },
                        description: format!("rotation about {}", describe(&basis[i])),
                    });
                }
            }
            [axis] => {
                let (e1, e2) = complete(axis);
                for e in [e1, e2] {
                    rows.push(ConstraintRow {
                        cut: index,
                        kind: RowKind::Orientation {
                            terms: [
                                (ra * e, rb * axis, 1.0),
                                (Vector3::zeros(), Vector3::zeros(), 0.0),
                            ],
                        },
                        description: format!("tilt of the axis towards {}", describe(&e)),
                    });
                }
            }
            // A universal joint: its first axis (in a) stays perpendicular to its second (in b).
            [axis_a, axis_b, ..] => rows.push(ConstraintRow {
                cut: index,
                kind: RowKind::Orientation {
                    terms: [
                        (ra * axis_a, rb * axis_b, 1.0),
                        (Vector3::zeros(), Vector3::zeros(), 0.0),
                    ],
                },
                description: format!(
                    "angle between the axes {} and {}",
                    describe(axis_a),
                    describe(axis_b)
                ),
            }),
        }
    }
    (cuts, rows)
}

/// Evaluates a row from the bodies' world motion.
pub fn evaluate_row(cut: &Cut, row: &ConstraintRow, motion: &[BodyMotion]) -> RowValue {
    let a = &motion[cut.body_a];
    let b = &motion[cut.body_b];
    match &row.kind {
        RowKind::Position { u } => {
            let arm_a = a.rotation * cut.point_a;
            let arm_b = b.rotation * cut.point_b;
            let d = (b.r + arm_b) - (a.r + arm_a);
            let dd = (b.v + b.w.cross(&arm_b)) - (a.v + a.w.cross(&arm_a));
            let ddd = (b.a + b.alpha.cross(&arm_b) + b.w.cross(&b.w.cross(&arm_b)))
                - (a.a + a.alpha.cross(&arm_a) + a.w.cross(&a.w.cross(&arm_a)));
            let u = a.rotation * u;
            let wu = a.w.cross(&u);
            RowValue {
                g: d.dot(&u),
                gd: dd.dot(&u) + d.dot(&wu),
                gdd: ddd.dot(&u) + 2.0 * dd.dot(&wu) + d.dot(&(a.alpha.cross(&u) + a.w.cross(&wu))),
                force_b: u,
                torque_a: u.cross(&d),
                torque_b: Vector3::zeros(),
            }
        }
        RowKind::Orientation { terms } => {
            let mut value = RowValue::default();
            let dw = b.w - a.w;
            let dalpha = b.alpha - a.alpha;
            for (x, y, c) in terms {
                if *c == 0.0 {
                    continue;
                }
                let x = a.rotation * x;
                let y = b.rotation * y;
                let yx = y.cross(&x);
                value.g += c * x.dot(&y);
                value.gd += c * dw.dot(&yx);
                value.gdd += c
                    * (dalpha.dot(&yx)
                        + dw.dot(&(b.w.cross(&y).cross(&x) + y.cross(&a.w.cross(&x)))));
                value.torque_b += *c * yx;
            }
            value.torque_a = -value.torque_b;
            value
        }
    }
}

/// Adds `scale` times a row's wrench to the loads (force, torque about the body origin) that
/// the backward pass sums.
pub fn apply_wrench(
    cut: &Cut,
    value: &RowValue,
    scale: f64,
    motion: &[BodyMotion],
    force: &mut [Vector3<f64>],
    torque: &mut [Vector3<f64>],
) {
    let f = value.force_b * scale;
    let arm_a = motion[cut.body_a].rotation * cut.point_a;
    let arm_b = motion[cut.body_b].rotation * cut.point_b;
    force[cut.body_b] += f;
    torque[cut.body_b] += value.torque_b * scale + arm_b.cross(&f);
    force[cut.body_a] -= f;
    torque[cut.body_a] += value.torque_a * scale - arm_a.cross(&f);
}

/// Index of the first constraint variable (λ_int) in y.
pub fn constraint_offset(mechanism: &Mechanism) -> usize {
    mechanism.layout.n_q + mechanism.layout.n_v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamics::test_motions as motions;
    use crate::model::Location;

    /// ġ and g̈ of position and orientation rows against central differences of g and ġ along a
    /// smooth motion of both bodies (step 1e-5 s: differences accurate to ~1e-9).
    #[test]
    fn row_derivatives_are_the_derivatives_of_the_row() {
        let cut = Cut {
            name: "cut".into(),
            joint: 0,
            location: Location::default(),
            body_a: 0,
            point_a: Vector3::new(0.3, -0.1, 0.2),
            body_b: 1,
            point_b: Vector3::new(-0.2, 0.25, 0.05),
        };
        let (e1, e2) = complete(&Vector3::new(0.0, 0.6, 0.8));
        let kinds = [
            RowKind::Position {
                u: Vector3::new(0.2, -0.5, 0.9),
            },
            RowKind::Orientation {
                terms: [
                    (e1, Vector3::new(0.1, 0.9, -0.3), 1.0),
                    (e2, Vector3::new(0.7, 0.0, 0.4), -0.5),
                ],
            },
        ];
        let h = 1e-5;
        for kind in kinds {
            let row = ConstraintRow {
                cut: 0,
                kind,
                description: String::new(),
            };
            let at = |t: f64| evaluate_row(&cut, &row, &motions(t));
            let (before, now, after) = (at(0.4 - h), at(0.4), at(0.4 + h));
            let gd = (after.g - before.g) / (2.0 * h);
            let gdd = (after.gd - before.gd) / (2.0 * h);
            assert!(
                (now.gd - gd).abs() < 1e-8,
                "{:?}: ġ {} vs {gd}",
                row.kind,
                now.gd
            );
            assert!(
                (now.gdd - gdd).abs() < 1e-7,
                "{:?}: g̈ {} vs {gdd}",
                row.kind,
                now.gdd
            );
        }
    }

    /// (e1, e2, n) is a right-handed orthonormal frame, for n along any direction.
    #[test]
    fn completed_frames_are_orthonormal_and_right_handed() {
        for n in [
            Vector3::x(),
            Vector3::y(),
            Vector3::new(0.95, 0.3, 0.1),
            Vector3::new(-0.2, 0.5, -0.84),
        ] {
            let n = n.normalize();
            let (e1, e2) = complete(&n);
            assert!((e1.norm() - 1.0).abs() < 1e-15 && (e2.norm() - 1.0).abs() < 1e-15);
            assert!(
                e1.dot(&n).abs() < 1e-15 && e2.dot(&n).abs() < 1e-15 && e1.dot(&e2).abs() < 1e-15
            );
            assert!((e1.cross(&e2) - n).norm() < 1e-15);
        }
    }
}
