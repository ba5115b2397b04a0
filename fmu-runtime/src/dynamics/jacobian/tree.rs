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
//! Kinematic loops add, per constraint row, f3 = g and f4 = ġ (differentiated along the cut
//! bodies' motion changes), the row's wrench times λ̇ in the loads and times μ̇ in f1 (both
//! turning with the bodies), and the columns of the integrated multipliers λ and μ (c_j times
//! the row's wrench: their ẏ alone enters).
//!
//! Mechanisms with contact pairs without a derivative are left to the difference quotients.

use super::super::kinematics::{BodyMotion, JointCoordinates};
use super::super::loops::ConstraintRow;
use super::super::loops::{apply_wrench, constraint_offset, Cut, RowKind, RowValue};
use super::super::mechanism::Mechanism;
use super::super::residual::FlangeInputs;
use super::super::residual::Workspace;
use super::contact::{pair_loads, supported, PairLoads, Unsupported};
use super::free_bodies::{
    frame_rotation, quaternion_rows, rigid_load_derivative, FreeBody, MotionMap, STATES,
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
    /// `Some` when `mechanism`'s contact pairs have a derivative.
    pub fn new(mechanism: &Mechanism) -> Option<TreeJacobian> {
        if mechanism.is_empty() || !supported(&mechanism.collisions) || mechanism.has_followers() {
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
    #[allow(clippy::too_many_arguments)]
    pub fn jacobian(
        &self,
        mechanism: &Mechanism,
        inputs: &FlangeInputs,
        ws: &Workspace,
        y: &[f64],
        yp: &[f64],
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
        let columns = self.columns(mechanism, ws, y, cj);
        let (base, m) = (constraint_offset(mechanism), mechanism.rows.len());
        let mut tangents: Vec<Option<Tangent>> = vec![None; count];
        let mut force = vec![Vector3::zeros(); count];
        let mut torque = vec![Vector3::zeros(); count];
        let mut mu_force = vec![Vector3::zeros(); count];
        let mut mu_torque = vec![Vector3::zeros(); count];
        for (column, seed, kind) in columns {
            tangents.fill(None);
            if let Some((k, own)) = seed {
                tangents[k] = Some(own);
                for c in k + 1..count {
                    let parent = mechanism.bodies[c].parent;
                    if let Some(t) = tangents[parent] {
                        tangents[c] = Some(carry(mechanism, ws, c, &t));
                    }
                }
            }
            // The loads' changes: the rigid bodies moved, and the pairs they are in.
            for b in 0..count {
                (force[b], torque[b]) = match tangents[b] {
                    Some(t) => {
                        let x = t.motion();
                        (rigid[b].0 * x, rigid[b].1 * x)
                    }
                    None => (Vector3::zeros(), Vector3::zeros()),
                };
            }
            mu_force.fill(Vector3::zeros());
            mu_torque.fill(Vector3::zeros());
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
                if ta.is_some() || tb.is_some() {
                    let (ta, tb) = (ta.unwrap_or_default(), tb.unwrap_or_default());
                    line_force(link, ws, &ta, &tb, &mut force, &mut torque);
                }
            }
            // The loops' rows: g and ġ, and the wrenches of λ̇ and μ̇, turning with the bodies.
            for (i, row) in mechanism.rows.iter().enumerate() {
                let cut = &mechanism.cuts[row.cut];
                let value = &ws.rows[i];
                match kind {
                    Column::Lambda(j) if j == i => {
                        apply_wrench(cut, value, cj, &ws.motion, &mut force, &mut torque);
                    }
                    Column::Mu(j) if j == i => {
                        apply_wrench(cut, value, cj, &ws.motion, &mut mu_force, &mut mu_torque);
                    }
                    _ => {}
                }
                let (ta, tb) = (tangents[cut.body_a], tangents[cut.body_b]);
                if ta.is_none() && tb.is_none() {
                    continue;
                }
                let (ta, tb) = (ta.unwrap_or_default(), tb.unwrap_or_default());
                let d = row_derivative(cut, row, &ws.motion, &ta, &tb);
                view.set(base + i, column, d.g);
                view.set(base + m + i, column, d.gd);
                let (lambda_rate, mu_rate) = (yp[base + i], yp[base + m + i]);
                let moved = |scale: f64, f: &mut [Vector3<f64>], t: &mut [Vector3<f64>]| {
                    wrench_derivative(cut, value, &d, scale, &ws.motion, &ta, &tb, f, t);
                };
                moved(lambda_rate, &mut force, &mut torque);
                moved(mu_rate, &mut mu_force, &mut mu_torque);
            }
            // The backward pass's sums: torque[p] += t + (r_c − r_p) × f, for the loads and
            // for the μ̇ wrenches.
            for c in (1..count).rev() {
                let p = mechanism.bodies[c].parent;
                let turn = tangents[c].unwrap_or_default().r - tangents[p].unwrap_or_default().r;
                let arm = ws.motion[c].r - ws.motion[p].r;
                for (sums, value) in [
                    ((&mut force, &mut torque), ws.force[c]),
                    ((&mut mu_force, &mut mu_torque), ws.mu_force[c]),
                ] {
                    let (f, t) = sums;
                    let (df, dt) = (f[c], t[c]);
                    f[p] += df;
                    t[p] += dt + turn.cross(&value) + arm.cross(&df);
                }
            }
            for (b, body) in mechanism.bodies.iter().enumerate() {
                let Some(joint) = &body.joint else { continue };
                let Some(s) = joint.states else { continue };
                if joint.motion == TreeJointKind::Free {
                    free_rows(
                        mechanism, ws, y, cj, b, s, column, kind, &tangents, &force, &torque, view,
                    );
                    continue;
                }
                let own = seed.is_some_and(|(k, _)| k == b);
                let speed = kind == Column::Scalar(true);
                let n = ws.axes[b];
                let dn = tangents[body.parent].unwrap_or_default().theta.cross(&n);
                let revolute = matches!(joint.motion, TreeJointKind::Revolute { .. });
                // f1 = q̇ − v + (Gᵀμ̇ on the joint's axis).
                let mut f1 = if revolute {
                    dn.dot(&ws.mu_torque[b]) + n.dot(&mu_torque[b])
                } else {
                    dn.dot(&ws.mu_force[b]) + n.dot(&mu_force[b])
                };
                if own {
                    f1 += if speed { -1.0 } else { cj };
                }
                if f1 != 0.0 {
                    view.set(s.q, column, f1);
                }
                if joint.flange == FlangeMode::Motion {
                    continue;
                }
                let mut value = if revolute {
                    dn.dot(&ws.torque[b]) + n.dot(&torque[b])
                } else {
                    dn.dot(&ws.force[b]) + n.dot(&force[b])
                };
                if own {
                    match (speed, joint.spring, joint.damper) {
                        (false, Some((stiffness, _)), _) => value += stiffness,
                        (true, _, Some(damping)) => value += damping,
                        _ => {}
                    }
                    if let (Some(stop), Some(JointCoordinates::Scalar(c))) =
                        (&joint.stop, ws.coordinates[b])
                    {
                        let load = stop.load(c.q, c.qd);
                        value -= if speed { load.d_qd } else { load.d_q };
                    }
                }
                view.set(s.v, column, value);
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

/// What a column of J is: a scalar joint's coordinate or speed (`true`), one of a free
/// joint's 13 states, or a loop row's integrated multiplier λ or μ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    Scalar(bool),
    Free(usize),
    Lambda(usize),
    Mu(usize),
}

/// A column of J: its state, the body its change moves first and how, and what it is.
type ColumnSeed = (usize, Option<(usize, Tangent)>, Column);

impl TreeJacobian {
    /// Every column of J with the change of motion it starts.
    fn columns(
        &self,
        mechanism: &Mechanism,
        ws: &Workspace,
        y: &[f64],
        cj: f64,
    ) -> Vec<ColumnSeed> {
        let mut columns = Vec::new();
        for (k, body) in mechanism.bodies.iter().enumerate() {
            let Some(joint) = &body.joint else { continue };
            let Some(states) = joint.states else { continue };
            if joint.motion == TreeJointKind::Free {
                let free = FreeBody {
                    body: k,
                    q: states.q,
                    v: states.v,
                };
                let map = MotionMap::new(mechanism, ws, y, cj, &free).dense();
                for c in 0..STATES {
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
                    columns.push((state, Some((k, t)), Column::Free(c)));
                }
            } else {
                for (state, speed) in [(states.q, false), (states.v, true)] {
                    let t = seed(mechanism, ws, k, speed, cj);
                    columns.push((state, Some((k, t)), Column::Scalar(speed)));
                }
            }
        }
        let (base, m) = (constraint_offset(mechanism), mechanism.rows.len());
        for i in 0..m {
            columns.push((base + i, None, Column::Lambda(i)));
            columns.push((base + m + i, None, Column::Mu(i)));
        }
        columns
    }
}

/// The changes of a loop row's g, ġ and wrench (per unit multiplier) when its cut bodies'
/// motions change by `ta`, `tb` ([`crate::dynamics::loops`]'s `evaluate_row`, differentiated).
fn row_derivative(
    cut: &Cut,
    row: &ConstraintRow,
    motion: &[BodyMotion],
    ta: &Tangent,
    tb: &Tangent,
) -> RowValue {
    let (a, b) = (&motion[cut.body_a], &motion[cut.body_b]);
    match &row.kind {
        RowKind::Position { u } => {
            let arm_a = a.rotation * cut.point_a;
            let arm_b = b.rotation * cut.point_b;
            let d = (b.r + arm_b) - (a.r + arm_a);
            let velocity = (b.v + b.w.cross(&arm_b)) - (a.v + a.w.cross(&arm_a));
            let u = a.rotation * u;
            let (darm_a, darm_b) = (ta.theta.cross(&arm_a), tb.theta.cross(&arm_b));
            let dd = (tb.r + darm_b) - (ta.r + darm_a);
            let d_velocity = (tb.v + tb.w.cross(&arm_b) + b.w.cross(&darm_b))
                - (ta.v + ta.w.cross(&arm_a) + a.w.cross(&darm_a));
            let du = ta.theta.cross(&u);
            let wu = a.w.cross(&u);
            let dwu = ta.w.cross(&u) + a.w.cross(&du);
            RowValue {
                g: dd.dot(&u) + d.dot(&du),
                gd: d_velocity.dot(&u) + velocity.dot(&du) + dd.dot(&wu) + d.dot(&dwu),
                gdd: 0.0,
                force_b: du,
                torque_a: du.cross(&d) + u.cross(&dd),
                torque_b: Vector3::zeros(),
            }
        }
        RowKind::Orientation { terms } => {
            let mut value = RowValue::default();
            let dw = b.w - a.w;
            let d_dw = tb.w - ta.w;
            for (x, y, c) in terms {
                if *c == 0.0 {
                    continue;
                }
                let x = a.rotation * x;
                let y = b.rotation * y;
                let (dx, dy) = (ta.theta.cross(&x), tb.theta.cross(&y));
                let d_yx = dy.cross(&x) + y.cross(&dx);
                value.g += c * (dx.dot(&y) + x.dot(&dy));
                value.gd += c * (d_dw.dot(&y.cross(&x)) + dw.dot(&d_yx));
                value.torque_b += *c * d_yx;
            }
            value.torque_a = -value.torque_b;
            value
        }
    }
}

/// The change of `apply_wrench(cut, value, scale, …)` when the row's wrench changes by `d` and
/// the cut bodies turn by `ta`, `tb` (the arms turn with them).
#[allow(clippy::too_many_arguments)]
fn wrench_derivative(
    cut: &Cut,
    value: &RowValue,
    d: &RowValue,
    scale: f64,
    motion: &[BodyMotion],
    ta: &Tangent,
    tb: &Tangent,
    force: &mut [Vector3<f64>],
    torque: &mut [Vector3<f64>],
) {
    if scale == 0.0 {
        return;
    }
    let f = value.force_b * scale;
    let df = d.force_b * scale;
    let arm_a = motion[cut.body_a].rotation * cut.point_a;
    let arm_b = motion[cut.body_b].rotation * cut.point_b;
    let (darm_a, darm_b) = (ta.theta.cross(&arm_a), tb.theta.cross(&arm_b));
    force[cut.body_b] += df;
    torque[cut.body_b] += d.torque_b * scale + darm_b.cross(&f) + arm_b.cross(&df);
    force[cut.body_a] -= df;
    torque[cut.body_a] += d.torque_a * scale - darm_a.cross(&f) - arm_a.cross(&df);
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
    let own = s.positions().contains(&column) || s.speeds().contains(&column);
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
    use super::super::test_support::{check_against_quotients, pseudo_random, shipped_models};
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
            // The continuous states, then the loops' integrated multipliers (random below).
            let mut y = sim.continuous_states().to_vec();
            y.resize(n, 0.0);
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
                    &yp,
                    cj,
                    &mut JacobianMatrix::Dense(DenseMatrixView::new(&mut exact, n).unwrap()),
                )
                .expect("supported");
            let label = format!("{label}, sample {sample}");
            let (error, own) = check_against_quotients(
                mechanism,
                &inputs,
                &ws,
                (&y, &yp, &f),
                cj,
                &exact,
                |j| increments[j],
                &label,
            );
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

    /// Joints inside their end stops: the samples around the start put each past its stop, the
    /// stop's damper inside and beyond its limit (the random speeds).
    #[test]
    fn exact_jacobian_of_end_stops_equals_difference_quotients() {
        let source = r#"
            object upper { mass { m = 2; center = [0.2, 0, 0]; inertia = diag(1e-3, 4e-3, 4e-3) } }
            object upper_end { parent = upper; position = [0.4, 0, 0] }
            object slider { mass { m = 0.7; center = [0, 0.05, 0]; inertia = diag(1e-4, 1e-4, 1e-4) } }
            joint shoulder revolute { from = world; to = upper; axis = z; phi = 0.52; lower = -0.5; upper = 0.5; stop_stiffness = 300; stop_damping = 40 }
            joint rail prismatic { from = upper_end; to = slider; axis = x; s = -0.12; lower = -0.1; stop_stiffness = 5e3; stop_damping = 500 }
        "#;
        let file = std::env::temp_dir().join(format!("end_stops_{}.m3d", std::process::id()));
        std::fs::write(&file, source).expect("temporary model");
        let sim = Simulation::from_file(&file, SimulationOptions::default()).expect("model");
        let _ = std::fs::remove_file(&file);
        assert_eq!(sim.mechanism().end_stops().count(), 2);
        check(&sim, "end stops");
    }
}
