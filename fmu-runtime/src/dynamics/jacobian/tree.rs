//! The exact iteration matrix J = ∂F/∂y + c_j·∂F/∂ẏ of a tree mechanism (revolute, prismatic
//! and free joints, force elements, drive trains, contact pairs: a pendulum, a chain, a cradle
//! of pendulums with contacts, a crank driven by a motor), column by column in tangent mode: a
//! state's change is carried down the subtree it moves (each body's world motion: origin, small
//! rotation, velocity, angular velocity, accelerations), through the rigid bodies' loads, the
//! force elements' and the contact pairs' loads ([`super::contact`]), then up the tree as the
//! backward pass sums loads, and projected onto the joints as f2 does. One column costs
//! O(bodies + force elements + penetrating pairs), the matrix O(states × bodies) (what the
//! difference quotients cost too, but exact, and with no narrow phase per column). The drive
//! trains' equations are linear in their states and their joint's coordinates:
//! [`crate::dynamics::Drive::jacobian_entries`] adds them.
//!
//! Mechanisms with loops, or pairs without a derivative, are left to the difference quotients.

use super::super::kinematics::{BodyMotion, JointCoordinates};
use super::super::mechanism::Mechanism;
use super::super::residual::FlangeInputs;
use super::super::residual::Workspace;
use super::contact::{pair_loads, supported, PairLoads, Unsupported};
use super::free_bodies::{
    frame_rotation, full_motion_map, quaternion_rows, rigid_load_derivative, FreeBody, STATES,
};
use crate::assembly::TreeJointKind;
use crate::ida::JacobianMatrix;
use crate::model::FlangeMode;
use crate::model::ForceKind;
use nalgebra::{SVector, Vector3};

/// The change of a body's world motion along one column of J.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Tangent {
    r: Vector3<f64>,
    theta: Vector3<f64>,
    v: Vector3<f64>,
    w: Vector3<f64>,
    a: Vector3<f64>,
    alpha: Vector3<f64>,
}

impl Tangent {
    /// (p, θ, v, ω, a, α), as [`rigid_load_derivative`] takes it.
    fn motion(&self) -> SVector<f64, 18> {
        let mut x = SVector::<f64, 18>::zeros();
        for (k, part) in [self.r, self.theta, self.v, self.w, self.a, self.alpha]
            .iter()
            .enumerate()
        {
            x.fixed_rows_mut::<3>(3 * k).copy_from(part);
        }
        x
    }
}

/// A tree of revolute and prismatic joints, for which the exact J is formed.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeJacobian;

impl TreeJacobian {
    /// `Some` when `mechanism` is a tree (no loops) whose contact pairs have a derivative.
    pub fn new(mechanism: &Mechanism) -> Option<TreeJacobian> {
        if !mechanism.rows.is_empty() || mechanism.is_empty() || !supported(&mechanism.collisions) {
            return None;
        }
        for (k, body) in mechanism.bodies.iter().enumerate().skip(1) {
            if body.parent >= k {
                return None;
            }
            if let Some(joint) = &body.joint {
                // A free joint hangs from the world (the assembly checks it).
                if joint.motion == TreeJointKind::Free && body.parent != 0 {
                    return None;
                }
            }
        }
        Some(TreeJacobian)
    }

    /// Fills the dense `jac` with J at the state whose residual `ws` holds (kinematics, loads,
    /// near pairs). [`Unsupported`] for a block matrix or a pair without a derivative; `jac`
    /// is then left as it was.
    pub fn jacobian(
        &self,
        mechanism: &Mechanism,
        inputs: &FlangeInputs,
        ws: &Workspace,
        y: &[f64],
        cj: f64,
        jac: &mut JacobianMatrix<'_>,
    ) -> Result<(), Unsupported> {
        let JacobianMatrix::Dense(view) = jac else {
            return Err(Unsupported);
        };
        let set = &mechanism.collisions;
        let mut pairs: Vec<(usize, usize, PairLoads)> = Vec::new();
        if set.has_pairs() && !ws.contact_loads_frozen {
            for &index in &ws.near_pairs.pairs {
                let pair = ws.pairs.get(index);
                let friction = &ws.pairs.frictions[index];
                if let Some(loads) =
                    pair_loads(set, pair, friction, &ws.collider_poses, &ws.motion)?
                {
                    let (a, b) = (set.colliders[pair.a].body, set.colliders[pair.b].body);
                    pairs.push((a, b, loads));
                }
            }
        }
        let rigid: Vec<_> = mechanism
            .bodies
            .iter()
            .zip(&ws.motion)
            .map(|(body, motion)| rigid_load_derivative(mechanism, body, motion))
            .collect();
        let count = mechanism.bodies.len();
        let mut tangents: Vec<Option<Tangent>> = vec![None; count];
        let mut force = vec![Vector3::zeros(); count];
        let mut torque = vec![Vector3::zeros(); count];
        for (k, body) in mechanism.bodies.iter().enumerate() {
            let Some(joint) = &body.joint else { continue };
            let Some(states) = joint.states else { continue };
            // The columns of the joint's states, each with the change of the body's motion.
            let free = FreeBody {
                body: k,
                q: states.q,
                v: states.v,
            };
            let columns: Vec<(usize, Tangent, Column)> = if joint.motion == TreeJointKind::Free {
                let map = full_motion_map(mechanism, ws, y, cj, &free);
                (0..STATES)
                    .map(|c| {
                        let state = if c < 7 {
                            states.q + c
                        } else {
                            states.v + c - 7
                        };
                        let x = map.column(c);
                        let part = |i: usize| Vector3::new(x[3 * i], x[3 * i + 1], x[3 * i + 2]);
                        let t = Tangent {
                            r: part(0),
                            theta: part(1),
                            v: part(2),
                            w: part(3),
                            a: part(4),
                            alpha: part(5),
                        };
                        (state, t, Column::Free(c))
                    })
                    .collect()
            } else {
                [(states.q, false), (states.v, true)]
                    .into_iter()
                    .map(|(state, speed)| {
                        (
                            state,
                            seed(mechanism, ws, k, speed, cj),
                            Column::Scalar(speed),
                        )
                    })
                    .collect()
            };
            for (column, own, kind) in columns {
                let speed = kind == Column::Scalar(true);
                tangents.fill(None);
                tangents[k] = Some(own);
                for c in k + 1..count {
                    let parent = mechanism.bodies[c].parent;
                    if let Some(t) = tangents[parent] {
                        tangents[c] = Some(carry(mechanism, ws, c, &t));
                    }
                }
                // The loads' changes: the rigid bodies moved, and the pairs they are in.
                for b in 0..count {
                    match tangents[b] {
                        Some(t) => {
                            let x = t.motion();
                            force[b] = rigid[b].0 * x;
                            torque[b] = rigid[b].1 * x;
                        }
                        None => {
                            force[b] = Vector3::zeros();
                            torque[b] = Vector3::zeros();
                        }
                    }
                }
                for (a, b, loads) in &pairs {
                    if tangents[*a].is_none() && tangents[*b].is_none() {
                        continue;
                    }
                    let mut x = SVector::<f64, 24>::zeros();
                    for (side, body) in [(0, *a), (12, *b)] {
                        let t = tangents[body].unwrap_or_default();
                        for (k, part) in [t.r, t.theta, t.v, t.w].iter().enumerate() {
                            x.fixed_rows_mut::<3>(side + 3 * k).copy_from(part);
                        }
                    }
                    // Contact loads are subtracted from the inertial ones.
                    force[*a] -= loads.force_a * x;
                    torque[*a] -= loads.torque_a * x;
                    force[*b] -= loads.force_b * x;
                    torque[*b] -= loads.torque_b * x;
                }
                for link in &mechanism.forces {
                    let (ta, tb) = (tangents[link.body_a], tangents[link.body_b]);
                    if ta.is_none() && tb.is_none() {
                        continue;
                    }
                    line_force(
                        link,
                        ws,
                        &ta.unwrap_or_default(),
                        &tb.unwrap_or_default(),
                        &mut force,
                        &mut torque,
                    );
                }
                // The backward pass's sums: torque[p] += t + (r_c − r_p) × f.
                for c in (1..count).rev() {
                    let p = mechanism.bodies[c].parent;
                    let (tc, tp) = (
                        tangents[c].unwrap_or_default(),
                        tangents[p].unwrap_or_default(),
                    );
                    let arm = ws.motion[c].r - ws.motion[p].r;
                    let (fc, dfc, dtc) = (ws.force[c], force[c], torque[c]);
                    force[p] += dfc;
                    torque[p] += dtc + (tc.r - tp.r).cross(&fc) + arm.cross(&dfc);
                }
                for (b, body) in mechanism.bodies.iter().enumerate() {
                    let Some(joint) = &body.joint else { continue };
                    let Some(s) = joint.states else { continue };
                    if joint.motion == TreeJointKind::Free {
                        free_rows(
                            mechanism, ws, y, cj, b, s, column, kind, &tangents, &force, &torque,
                            view,
                        );
                        continue;
                    }
                    if b == k {
                        // f1 = q̇ − v.
                        if speed {
                            view.set(s.q, column, -1.0);
                        } else {
                            view.set(s.q, column, cj);
                        }
                    }
                    if joint.flange == FlangeMode::Motion {
                        continue;
                    }
                    let n = ws.axes[b];
                    let turn = tangents[body.parent].unwrap_or_default().theta;
                    let dn = turn.cross(&n);
                    let mut value = match joint.motion {
                        TreeJointKind::Revolute { .. } => dn.dot(&ws.torque[b]) + n.dot(&torque[b]),
                        _ => dn.dot(&ws.force[b]) + n.dot(&force[b]),
                    };
                    if b == k {
                        match (speed, joint.spring, joint.damper) {
                            (false, Some((stiffness, _)), _) => value += stiffness,
                            (true, _, Some(damping)) => value += damping,
                            _ => {}
                        }
                    }
                    view.set(s.v, column, value);
                }
            }
        }
        for (drive, &input) in mechanism.drives.iter().zip(&inputs.drive) {
            let body = &mechanism.bodies[drive.body];
            let (Some(states), Some(JointCoordinates::Scalar(joint))) = (
                body.joint.as_ref().and_then(|j| j.states),
                ws.coordinates[drive.body],
            ) else {
                continue;
            };
            for (row, column, value) in drive.jacobian_entries(input, &joint, states, y, cj) {
                let sum = view.get(row, column).unwrap_or(0.0) + value;
                view.set(row, column, sum);
            }
        }
        Ok(())
    }
}

/// What a column of J is: a scalar joint's coordinate or speed (`true`), or one of a free
/// joint's 13 states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    Scalar(bool),
    Free(usize),
}

/// The rows of free joint `b` (states `s`) in `column`: ṙ − v and the quaternion's rows for its
/// own columns, f2 = (R_aᵀ F, Rᵀ τ) from the loads' changes and the body's turn.
#[allow(clippy::too_many_arguments)]
fn free_rows(
    mechanism: &Mechanism,
    ws: &Workspace,
    y: &[f64],
    cj: f64,
    b: usize,
    s: crate::assembly::JointStates,
    column: usize,
    kind: Column,
    tangents: &[Option<Tangent>],
    force: &[Vector3<f64>],
    torque: &[Vector3<f64>],
    view: &mut crate::ida::DenseMatrixView<'_>,
) {
    let own = (s.q..s.q + 7).contains(&column) || (s.v..s.v + 6).contains(&column);
    if let (true, Column::Free(c)) = (own, kind) {
        // ṙ − v: c_j by r, −1 by v.
        match c {
            0..=2 => {
                view.set(s.q + c, column, cj);
            }
            7..=9 => {
                view.set(s.q + c - 7, column, -1.0);
            }
            _ => {}
        }
        let free = FreeBody {
            body: b,
            q: s.q,
            v: s.v,
        };
        let (by_q, by_w) = quaternion_rows(y, &free, cj);
        for i in 0..4 {
            match c {
                3..=6 => {
                    view.set(s.q + 3 + i, column, by_q[(i, c - 3)]);
                }
                10..=12 => {
                    view.set(s.q + 3 + i, column, by_w[(i, c - 10)]);
                }
                _ => {}
            }
        }
    }
    let frame = frame_rotation(&mechanism.bodies[b]);
    let rotation = ws.motion[b].rotation;
    let turn = tangents[b].unwrap_or_default().theta;
    let f = frame.transpose() * force[b];
    let t = rotation.transpose() * (torque[b] + ws.torque[b].cross(&turn));
    for i in 0..3 {
        view.set(s.v + i, column, f[i]);
        view.set(s.v + 3 + i, column, t[i]);
    }
}

/// Adds the change of force element `link`'s loads (the bodies moved by `ta` and `tb`) to
/// `force` and `torque` (inertial-minus-applied: the backward pass books the line force with
/// a negative sign).
fn line_force(
    link: &super::super::mechanism::ForceLink,
    ws: &Workspace,
    ta: &Tangent,
    tb: &Tangent,
    force: &mut [Vector3<f64>],
    torque: &mut [Vector3<f64>],
) {
    let (ma, mb) = (&ws.motion[link.body_a], &ws.motion[link.body_b]);
    let (ra, va) = ma.point(&link.point_a);
    let (rb, vb) = mb.point(&link.point_b);
    let point = |m: &BodyMotion, t: &Tangent, at: &Vector3<f64>| {
        let arm = at - m.r;
        let d_at = t.r + t.theta.cross(&arm);
        let d_velocity = t.v + t.w.cross(&arm) + m.w.cross(&(d_at - t.r));
        (arm, d_at, d_velocity)
    };
    let (arm_a, dra, dva) = point(ma, ta, &ra);
    let (arm_b, drb, dvb) = point(mb, tb, &rb);
    let d = rb - ra;
    let length = d.norm();
    if length <= f64::EPSILON {
        return;
    }
    let e = d / length;
    let dd = drb - dra;
    let d_length = e.dot(&dd);
    let de = (dd - e * d_length) / length;
    let relative = vb - va;
    let d_speed = (dvb - dva).dot(&e) + relative.dot(&de);
    let speed = relative.dot(&e);
    let (tension, d_tension) = match link.kind {
        ForceKind::Spring {
            stiffness,
            length: l0,
        } => (stiffness * (length - l0), stiffness * d_length),
        ForceKind::Damper { damping } => (damping * speed, damping * d_speed),
        ForceKind::SpringDamper {
            stiffness,
            length: l0,
            damping,
        } => (
            stiffness * (length - l0) + damping * speed,
            stiffness * d_length + damping * d_speed,
        ),
    };
    let f = e * tension;
    let df = e * d_tension + de * tension;
    // a is booked with −F (force −= F), b with +F.
    force[link.body_a] -= df;
    torque[link.body_a] -= (dra - ta.r).cross(&f) + arm_a.cross(&df);
    force[link.body_b] += df;
    torque[link.body_b] += (drb - tb.r).cross(&f) + arm_b.cross(&df);
}

/// The change of body `k`'s motion when its own coordinate (`speed`: its speed, with the
/// acceleration by c_j) changes by one.
fn seed(mechanism: &Mechanism, ws: &Workspace, k: usize, speed: bool, cj: f64) -> Tangent {
    let p: &BodyMotion = &ws.motion[mechanism.bodies[k].parent];
    let n = ws.axes[k];
    let mut t = Tangent::default();
    let revolute = matches!(
        mechanism.bodies[k].joint.as_ref().map(|j| &j.motion),
        Some(TreeJointKind::Revolute { .. })
    );
    match (revolute, speed) {
        (true, false) => t.theta = n,
        (true, true) => {
            t.w = n;
            t.alpha = n * cj + p.w.cross(&n);
        }
        (false, false) => {
            t.r = n;
            t.v = p.w.cross(&n);
            t.a = p.alpha.cross(&n) + p.w.cross(&p.w.cross(&n));
        }
        (false, true) => {
            t.v = n;
            t.a = p.w.cross(&n) * 2.0 + n * cj;
        }
    }
    t
}

/// The change of body `c`'s motion when its parent's changes by `tp` and its own coordinates
/// stay (the forward pass's formulas, differentiated).
fn carry(mechanism: &Mechanism, ws: &Workspace, c: usize, tp: &Tangent) -> Tangent {
    let body = &mechanism.bodies[c];
    let p = &ws.motion[body.parent];
    let (Some(joint), Some(JointCoordinates::Scalar(q))) = (&body.joint, ws.coordinates[c]) else {
        // Fixed to its parent: the parent's motion.
        return *tp;
    };
    let d = ws.motion[c].r - p.r;
    let dd = tp.theta.cross(&d);
    let n = ws.axes[c];
    let dn = tp.theta.cross(&n);
    let mut t = Tangent {
        r: tp.r + dd,
        theta: tp.theta,
        v: tp.v + tp.w.cross(&d) + p.w.cross(&dd),
        w: tp.w,
        a: tp.a
            + tp.alpha.cross(&d)
            + p.alpha.cross(&dd)
            + tp.w.cross(&p.w.cross(&d))
            + p.w.cross(&(tp.w.cross(&d) + p.w.cross(&dd))),
        alpha: tp.alpha,
    };
    match joint.motion {
        TreeJointKind::Revolute { .. } => {
            t.w += dn * q.qd;
            t.alpha += dn * q.qdd + tp.w.cross(&(n * q.qd)) + p.w.cross(&(dn * q.qd));
        }
        _ => {
            let relative = n * q.qd;
            let d_relative = dn * q.qd;
            t.v += d_relative;
            t.a += (tp.w.cross(&relative) + p.w.cross(&d_relative)) * 2.0 + dn * q.qdd;
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{
        central_differences, compare_with_quotients, pseudo_random, shipped_models,
    };
    use super::*;
    use crate::dynamics::{residual, FlangeInputs};
    use crate::ida::DenseMatrixView;
    use crate::simulation::{Simulation, SimulationOptions};

    /// The exact J of `sim`'s mechanism against fourth-order central differences at 12 states
    /// near its start (joint coordinates moved by up to 0.05, so that the cradle's balls press
    /// into each other; speeds of up to 3 rad/s or m/s; drive currents and controller states
    /// of up to 2), within their own error. Returns the largest error and own error, relative
    /// to each column's largest entry, and how many samples had penetrating pairs.
    fn check(sim: &Simulation, label: &str) -> (f64, f64, usize) {
        let mechanism = sim.mechanism();
        let n = mechanism.len();
        let (n_q, n_v) = (mechanism.layout.n_q, mechanism.layout.n_v);
        let mut inputs = FlangeInputs::new(mechanism);
        inputs.prescribe(mechanism, 0.1);
        let mut ws = Workspace::new(mechanism);
        // Difference increments: 0.1 µrad or µm of a joint coordinate, 10 nm of a free
        // body's position and 1e-6 of its quaternion (its contacts are µm deep), 1e-5 of a
        // speed.
        let mut increments: Vec<f64> = (0..n).map(|j| if j < n_q { 1e-7 } else { 1e-5 }).collect();
        for body in &mechanism.bodies {
            let free = body
                .joint
                .as_ref()
                .filter(|j| j.motion == TreeJointKind::Free);
            if let Some(s) = free.and_then(|j| j.states) {
                increments[s.q..s.q + 3].fill(1e-8);
                increments[s.q + 3..s.q + 7].fill(1e-6);
            }
        }
        let mut seed = 17;
        let (mut worst, mut worst_own, mut coupled) = (0.0f64, 0.0f64, 0);
        for sample in 0..12 {
            let mut y = sim.continuous_states()[..n].to_vec();
            let mut yp = vec![0.0; n];
            for (i, x) in y.iter_mut().enumerate() {
                if i < n_q {
                    *x += 0.05 * pseudo_random(&mut seed);
                } else if i < n_q + n_v {
                    *x = 3.0 * pseudo_random(&mut seed);
                    yp[i] = 20.0 * pseudo_random(&mut seed);
                } else {
                    *x = 2.0 * pseudo_random(&mut seed);
                    yp[i] = 20.0 * pseudo_random(&mut seed);
                }
            }
            let mut f = vec![0.0; n];
            residual(mechanism, &inputs, &mut ws, &y, &yp, &mut f);
            let cj = 1e3 * (1.5 + pseudo_random(&mut seed));
            let mut exact = vec![0.0; n * n];
            TreeJacobian
                .jacobian(
                    mechanism,
                    &inputs,
                    &ws,
                    &y,
                    cj,
                    &mut JacobianMatrix::Dense(DenseMatrixView::new(&mut exact, n).unwrap()),
                )
                .expect("supported");
            let mut probe = Workspace::new(mechanism);
            probe.pairs = ws.pairs.clone();
            let mut quotients = |k: f64| {
                central_differences(
                    &mut |y, yp, f| residual(mechanism, &inputs, &mut probe, y, yp, f),
                    &y,
                    &yp,
                    cj,
                    |j| k * increments[j],
                )
            };
            let (coarse, fine) = (quotients(1.0), quotients(0.25));
            let label = format!("{label}, sample {sample}");
            let (error, own) = compare_with_quotients(&exact, &coarse, &fine, &label);
            worst = worst.max(error);
            worst_own = worst_own.max(own);
            coupled +=
                usize::from(ws.near_pairs.pairs.iter().any(|&i| {
                    crate::dynamics::contacts::pair_response(mechanism, &ws, i).is_some()
                }));
        }
        eprintln!(
            "{label}: exact J against central differences within {worst:.1e} (relative to each \
             column's largest entry; the quotients' own error up to {worst_own:.1e})"
        );
        (worst, worst_own, coupled)
    }

    /// Every shipped tree mechanism (all but the loops): pendulums, chains, the cradle with its
    /// contacts, the crank driven by a motor, the body on a spring, the scenes of free bodies.
    #[test]
    fn exact_jacobian_of_trees_equals_difference_quotients() {
        let mut checked = Vec::new();
        let mut coupled = 0;
        for path in shipped_models() {
            let sim = Simulation::from_file(&path, SimulationOptions::default()).expect("model");
            if TreeJacobian::new(sim.mechanism()).is_none() || sim.mechanism().len() > 400 {
                continue;
            }
            coupled += check(&sim, &path.display().to_string()).2;
            checked.push(path);
        }
        assert!(checked.len() >= 15, "{checked:?}");
        assert!(coupled >= 10, "{coupled} samples with contacts");
    }

    /// A drive under speed control (the PI controller's voltage inside and beyond its limit, at
    /// random currents and integrator states) and one with a compliance between two parts.
    #[test]
    fn exact_jacobian_of_drive_trains_equals_difference_quotients() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/python/models/crank_drive_pi.m3d");
        let sim = Simulation::from_file(&path, SimulationOptions::default()).expect("model");
        assert!(!sim.mechanism().drives.is_empty());
        check(&sim, &path.display().to_string());
        let source = r#"
            object arm { mass { m = 0.5; center = [0.1, 0, 0]; inertia = diag(1e-4, 1e-3, 1e-3) } }
            object pivot { parent = world; position = [0, 1, 3] }
            joint swing revolute { from = pivot; to = arm; axis = z; phi = 0.3 }
            drive wrist {
              joint = swing
              motor { R = 1; L = 1e-3; k = 0.05; J = 1e-5; v = 2 }
              gear { ratio = 5 }
              spring { c = 20; d = 0.05 }
              inertia { J = 1e-4 }
            }
        "#;
        let file = std::env::temp_dir().join(format!("compliant_drive_{}.m3d", std::process::id()));
        std::fs::write(&file, source).expect("temporary model");
        let sim = Simulation::from_file(&file, SimulationOptions::default()).expect("model");
        let _ = std::fs::remove_file(&file);
        assert!(sim.mechanism().drives[0].couplings.len() == 1);
        check(&sim, "compliant drive");
    }
}
