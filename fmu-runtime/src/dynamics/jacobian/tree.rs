//! The exact iteration matrix J = ∂F/∂y + c_j·∂F/∂ẏ of a tree of revolute and prismatic
//! joints (a pendulum, a chain, a cradle of pendulums with contacts), column by column in
//! tangent mode: a state's change is carried down the subtree it moves (each body's world
//! motion: origin, small rotation, velocity, angular velocity, accelerations), through the
//! rigid bodies' loads and the contact pairs' loads ([`super::contact`]), then up the tree as
//! the backward pass sums loads, and projected onto the joints' axes as f2 does. One column
//! costs O(bodies + penetrating pairs), the matrix O(states × bodies) (what the difference
//! quotients cost too, but exact, and with no narrow phase per column).
//!
//! Trees with free joints, force elements, drives or loops, or pairs without a derivative, are
//! left to the difference quotients.

use super::super::kinematics::{BodyMotion, JointCoordinates};
use super::super::mechanism::Mechanism;
use super::super::residual::Workspace;
use super::contact::{pair_loads, supported, PairLoads, Unsupported};
use super::free_bodies::rigid_load_derivative;
use crate::assembly::TreeJointKind;
use crate::ida::JacobianMatrix;
use crate::model::FlangeMode;
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
    /// `Some` when `mechanism` is a tree of revolute and prismatic joints without force
    /// elements, drives or loops whose contact pairs have a derivative.
    pub fn new(mechanism: &Mechanism) -> Option<TreeJacobian> {
        if !mechanism.rows.is_empty()
            || !mechanism.drives.is_empty()
            || !mechanism.forces.is_empty()
            || mechanism.is_empty()
            || !supported(&mechanism.collisions)
        {
            return None;
        }
        for (k, body) in mechanism.bodies.iter().enumerate().skip(1) {
            if body.parent >= k {
                return None;
            }
            if let Some(joint) = &body.joint {
                if joint.motion == TreeJointKind::Free {
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
        ws: &Workspace,
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
            let Some(states) = body.joint.as_ref().and_then(|j| j.states) else {
                continue;
            };
            for (column, speed) in [(states.q, false), (states.v, true)] {
                tangents.fill(None);
                tangents[k] = Some(seed(mechanism, ws, k, speed, cj));
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
        Ok(())
    }
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

    /// For every shipped tree of revolute and prismatic joints, at 12 states near its start
    /// (angles moved by up to 0.05 rad, so that the cradle's balls press into each other, and
    /// speeds of up to 3 rad/s or m/s): the exact J equals fourth-order central differences of
    /// the residual, column by column, within their own error.
    #[test]
    fn exact_jacobian_of_trees_equals_difference_quotients() {
        let mut checked = Vec::new();
        let mut coupled = 0;
        for path in shipped_models() {
            let sim = Simulation::from_file(&path, SimulationOptions::default()).expect("model");
            let mechanism = sim.mechanism();
            if TreeJacobian::new(mechanism).is_none() || mechanism.len() > 400 {
                continue;
            }
            let n = mechanism.len();
            let (n_q, n_v) = (mechanism.layout.n_q, mechanism.layout.n_v);
            let mut inputs = FlangeInputs::new(mechanism);
            inputs.prescribe(mechanism, 0.1);
            let mut ws = Workspace::new(mechanism);
            let mut seed = 17;
            let (mut worst, mut worst_own) = (0.0f64, 0.0f64);
            for sample in 0..12 {
                let mut y = sim.continuous_states()[..n].to_vec();
                let mut yp = vec![0.0; n];
                for (i, x) in y.iter_mut().enumerate() {
                    if i < n_q {
                        *x += 0.05 * pseudo_random(&mut seed);
                    } else if i < n_q + n_v {
                        *x = 3.0 * pseudo_random(&mut seed);
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
                        &ws,
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
                        |j| k * if j < n_q { 1e-7 } else { 1e-5 },
                    )
                };
                let (coarse, fine) = (quotients(1.0), quotients(0.25));
                let label = format!("{}, sample {sample}", path.display());
                let (error, own) = compare_with_quotients(&exact, &coarse, &fine, &label);
                worst = worst.max(error);
                worst_own = worst_own.max(own);
                coupled += usize::from(ws.near_pairs.pairs.iter().any(|&i| {
                    crate::dynamics::contacts::pair_response(mechanism, &ws, i).is_some()
                }));
            }
            eprintln!(
                "{}: exact J against central differences within {worst:.1e} (relative to each \
                 column's largest entry; the quotients' own error up to {worst_own:.1e})",
                path.display()
            );
            checked.push(path);
        }
        assert!(checked.len() >= 5, "{checked:?}");
        assert!(coupled >= 3, "{coupled} samples with contacts");
    }
}
