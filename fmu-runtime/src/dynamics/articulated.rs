//! The accelerations of a tree in O(n): the articulated-body algorithm (R. Featherstone, Rigid
//! Body Dynamics Algorithms, Springer 2008, ch. 7) for the mass-matrix solve
//! M·v̇ = −f2(v̇ = 0).
//!
//! The residual's f2 is linear in v̇, f2 = M·v̇ + c, with c (gravity, velocity terms, springs,
//! dampers, contacts, flange inputs, the prescribed accelerations of motion-driven joints) from
//! one evaluation at v̇ = 0. What remains is M⁻¹·b for b = −c: the accelerations of the tree at
//! rest, without gravity, under the joint forces b, which the articulated-body algorithm finds
//! with one pass from the leaves (articulated inertias) and one from the root (accelerations).
//! Spatial vectors are in world coordinates about the world origin (ω, v_O) and (n_O, F), so no
//! transforms are needed between bodies. A joint's motion subspace S has the columns the
//! residual's f2 rows are projected on: a revolute joint's axis u through the body origin p,
//! (u, p × u); a prismatic joint's (0, u); a free joint's translation in its `from` frame
//! (0, R_a·e_i) and turn in body axes (R_b·e_i, r_b × R_b·e_i). A motion-driven joint is locked
//! (its acceleration is prescribed and is part of c).
//!
//! It applies to trees of rigid bodies: without loops (their multipliers couple the
//! accelerations through G) and without drive trains (whose rigid parts add reflected inertia to
//! a joint's row, whose compliant parts and currents have equations of their own): [`applies`].

use super::mechanism::Mechanism;
use super::residual::Workspace;
use crate::assembly::TreeJointKind;
use nalgebra::{Matrix3, Matrix6, Vector3, Vector6};

/// Whether [`solve`] serves this mechanism: a tree (no loop rows) of bodies alone, without
/// drive trains (a drive's rigid parts add their reflected inertia to its joint's row of f2, and
/// its compliant parts and currents have equations of their own, none of which the bodies'
/// articulated inertias know), and without joints that follow others (a coupling the
/// articulated inertias do not know either).
pub fn applies(mechanism: &Mechanism) -> bool {
    mechanism.rows.is_empty() && mechanism.drives.is_empty() && !mechanism.has_followers()
}

fn cross(v: &Vector3<f64>) -> Matrix3<f64> {
    v.cross_matrix()
}

/// The spatial inertia of a body about the world origin, world axes: mass m, centre of mass c
/// (world), inertia I_c about it (world axes).
fn spatial_inertia(mass: f64, c: &Vector3<f64>, inertia: &Matrix3<f64>) -> Matrix6<f64> {
    let cx = cross(c);
    let mut out = Matrix6::zeros();
    out.fixed_view_mut::<3, 3>(0, 0)
        .copy_from(&(inertia + mass * cx * cx.transpose()));
    out.fixed_view_mut::<3, 3>(0, 3).copy_from(&(mass * cx));
    out.fixed_view_mut::<3, 3>(3, 0)
        .copy_from(&(mass * cx.transpose()));
    out.fixed_view_mut::<3, 3>(3, 3)
        .copy_from(&(mass * Matrix3::identity()));
    out
}

/// A joint's motion subspace S (6 × dof, world axes about the origin): one column for a
/// revolute or prismatic joint, six for a free joint. (Unboxed: boxing the larger variant would
/// allocate per free body and evaluation.)
#[allow(clippy::large_enum_variant)]
enum Subspace {
    One(Vector6<f64>),
    Six(Matrix6<f64>),
}

/// The motion subspace of body k's joint and the index of its first speed in v; `None` for a
/// locked (motion-driven) joint or the world.
fn motion_subspace(mechanism: &Mechanism, ws: &Workspace, k: usize) -> Option<(Subspace, usize)> {
    let body = &mechanism.bodies[k];
    let joint = body.joint.as_ref()?;
    let states = joint.states?;
    let v = states.v - mechanism.layout.n_q;
    let motion = &ws.motion[k];
    let axis = ws.axes[k];
    let s = match joint.motion {
        TreeJointKind::Revolute { .. } => {
            let moment = motion.r.cross(&axis);
            Subspace::One(Vector6::new(
                axis.x, axis.y, axis.z, moment.x, moment.y, moment.z,
            ))
        }
        TreeJointKind::Prismatic { .. } => {
            Subspace::One(Vector6::new(0.0, 0.0, 0.0, axis.x, axis.y, axis.z))
        }
        TreeJointKind::Free => {
            let parent = &ws.motion[body.parent];
            let rotation_a = parent.rotation * joint.frame_a.rotation.to_rotation_matrix().matrix();
            let mut s = Matrix6::zeros();
            for i in 0..3 {
                let turn = motion.rotation.column(i).into_owned();
                s.fixed_view_mut::<3, 1>(3, i)
                    .copy_from(&rotation_a.column(i));
                s.fixed_view_mut::<3, 1>(0, 3 + i).copy_from(&turn);
                s.fixed_view_mut::<3, 1>(3, 3 + i)
                    .copy_from(&motion.r.cross(&turn));
            }
            Subspace::Six(s)
        }
    };
    Some((s, v))
}

/// What the pass from the leaves keeps of a joint for the passes that solve: S, U = I^A·S and
/// D⁻¹ = (Sᵀ·U + diag(a))⁻¹, with the joint's index in v. (Unboxed, as [`Subspace`].)
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
enum JointFactor {
    One {
        s: Vector6<f64>,
        u_matrix: Vector6<f64>,
        d_inverse: f64,
        v: usize,
    },
    Six {
        s: Matrix6<f64>,
        u_matrix: Matrix6<f64>,
        d_inverse: Matrix6<f64>,
        v: usize,
    },
}

/// The articulated-body factorization of M + diag(a) at one pose: the articulated inertias'
/// joint terms, after which each solve is two passes of a few 6-vector operations per body.
///
/// `a` (an "armature", one entry per speed) adds to the joints' own rows what the joint-space
/// diagonal carries besides the bodies' inertia: the integrator's iteration matrix divides a
/// joint's damper and spring by c_j and c_j² ([`crate::dynamics::ArticulatedIteration`]).
#[derive(Debug, Clone)]
pub struct ArticulatedFactors {
    parents: Vec<usize>,
    joints: Vec<Option<JointFactor>>,
    n_v: usize,
}

impl ArticulatedFactors {
    /// Factors M + diag(`armature`) with the bodies at the poses in `ws` (a forward pass done);
    /// `armature` is empty (none) or has one entry per speed. `None` when an articulated inertia
    /// is singular (a joint moves nothing with mass or inertia).
    pub fn new(mechanism: &Mechanism, ws: &Workspace, armature: &[f64]) -> Option<Self> {
        let n = mechanism.bodies.len();
        let added = |v: usize| armature.get(v).copied().unwrap_or(0.0);
        let mut inertia: Vec<Matrix6<f64>> = vec![Matrix6::zeros(); n];
        for (k, body) in mechanism.bodies.iter().enumerate().skip(1) {
            if body.mass > 0.0 {
                let m = &ws.motion[k];
                let c = m.r + m.rotation * body.center;
                let i_c = m.rotation * body.inertia * m.rotation.transpose();
                inertia[k] = spatial_inertia(body.mass, &c, &i_c);
            }
        }
        let mut joints: Vec<Option<JointFactor>> = (0..n).map(|_| None).collect();
        for k in (1..n).rev() {
            let passed = match motion_subspace(mechanism, ws, k) {
                Some((Subspace::One(s), v)) => {
                    let u_matrix = inertia[k] * s;
                    let d = s.dot(&u_matrix) + added(v);
                    if d == 0.0 || !d.is_finite() {
                        return None;
                    }
                    let d_inverse = 1.0 / d;
                    let passed = inertia[k] - u_matrix * u_matrix.transpose() * d_inverse;
                    joints[k] = Some(JointFactor::One {
                        s,
                        u_matrix,
                        d_inverse,
                        v,
                    });
                    passed
                }
                Some((Subspace::Six(s), v)) => {
                    let u_matrix = inertia[k] * s;
                    let mut d = s.transpose() * u_matrix;
                    for i in 0..6 {
                        d[(i, i)] += added(v + i);
                    }
                    let d_inverse = d.try_inverse()?;
                    let passed = inertia[k] - u_matrix * d_inverse * u_matrix.transpose();
                    joints[k] = Some(JointFactor::Six {
                        s,
                        u_matrix,
                        d_inverse,
                        v,
                    });
                    passed
                }
                None => inertia[k],
            };
            let parent = mechanism.bodies[k].parent;
            if parent != 0 {
                inertia[parent] += passed;
            }
        }
        Some(ArticulatedFactors {
            parents: mechanism.bodies.iter().map(|b| b.parent).collect(),
            joints,
            n_v: mechanism.layout.n_v,
        })
    }

    /// The number of speeds.
    pub fn speeds(&self) -> usize {
        self.n_v
    }

    /// x = (M + diag(a))⁻¹·b for generalized forces `b` (one per speed); `false` when the
    /// lengths differ or the result is not finite.
    pub fn solve_into(&self, b: &[f64], x: &mut [f64]) -> bool {
        if b.len() != self.n_v || x.len() != self.n_v {
            return false;
        }
        let n = self.joints.len();
        // From the leaves: the bias forces p^A the subtrees pass on, and u = b − Sᵀ·p^A.
        let mut bias: Vec<Vector6<f64>> = vec![Vector6::zeros(); n];
        let mut u: Vec<Vector6<f64>> = vec![Vector6::zeros(); n];
        for k in (1..n).rev() {
            let passed = match &self.joints[k] {
                Some(JointFactor::One {
                    s,
                    u_matrix,
                    d_inverse,
                    v,
                }) => {
                    let uk = b[*v] - s.dot(&bias[k]);
                    u[k][0] = uk;
                    bias[k] + u_matrix * (d_inverse * uk)
                }
                Some(JointFactor::Six {
                    s,
                    u_matrix,
                    d_inverse,
                    v,
                }) => {
                    let uk = Vector6::from_column_slice(&b[*v..*v + 6]) - s.transpose() * bias[k];
                    u[k] = uk;
                    bias[k] + u_matrix * (d_inverse * uk)
                }
                None => bias[k],
            };
            let parent = self.parents[k];
            if parent != 0 {
                bias[parent] += passed;
            }
        }
        // From the root: the bodies' accelerations and the joints' share of them.
        let mut accelerations: Vec<Vector6<f64>> = vec![Vector6::zeros(); n];
        for k in 1..n {
            let a = accelerations[self.parents[k]];
            accelerations[k] = match &self.joints[k] {
                Some(JointFactor::One {
                    s,
                    u_matrix,
                    d_inverse,
                    v,
                }) => {
                    let xk = d_inverse * (u[k][0] - u_matrix.dot(&a));
                    x[*v] = xk;
                    a + s * xk
                }
                Some(JointFactor::Six {
                    s,
                    u_matrix,
                    d_inverse,
                    v,
                }) => {
                    let xk = d_inverse * (u[k] - u_matrix.transpose() * a);
                    x[*v..*v + 6].copy_from_slice(xk.as_slice());
                    a + s * xk
                }
                None => a,
            };
        }
        x.iter().all(|x| x.is_finite())
    }
}

/// M⁻¹·b: the speeds' derivatives of the tree (indices 0..n_v of v) under the generalized
/// forces `b`, with the bodies at the poses in `ws` (a forward pass done). `None` when an
/// articulated inertia is singular (a joint moves nothing with mass or inertia).
pub fn solve(mechanism: &Mechanism, ws: &Workspace, b: &[f64]) -> Option<Vec<f64>> {
    let factors = ArticulatedFactors::new(mechanism, ws, &[])?;
    let mut vd = vec![0.0; factors.speeds()];
    factors.solve_into(b, &mut vd).then_some(vd)
}

#[cfg(test)]
mod tests {
    use super::super::jacobian::test_support::{pseudo_random, shipped_models};
    use super::super::{
        consistent_derivatives, explicit_derivatives, residual, FlangeInputs, Workspace,
    };
    use super::applies;
    use crate::simulation::{Simulation, SimulationOptions};

    /// For every shipped model the algorithm applies to, at 20 states of random coordinates and
    /// speeds: the residual's f2 = M·v̇ + c vanishes at the accelerations found, to round-off
    /// against c (measured at most 1.1e-14; the dense solve of the Co-Simulation start, n_v + 1
    /// evaluations and an LU, leaves up to 2.8e-8 where contact forces make c large, and its
    /// accelerations differ from these by as much, relatively).
    #[test]
    fn articulated_accelerations_are_those_of_the_mass_matrix_solve() {
        let mut checked = 0;
        for path in shipped_models() {
            let sim = Simulation::from_file(&path, SimulationOptions::default()).expect("model");
            let mechanism = sim.mechanism();
            if !applies(mechanism) || mechanism.layout.n_v == 0 || mechanism.len() > 2_000 {
                continue;
            }
            let inputs = FlangeInputs::new(mechanism);
            let mut ws = Workspace::new(mechanism);
            let (n_q, n_v) = (mechanism.layout.n_q, mechanism.layout.n_v);
            let mut seed = 7;
            let (mut worst, mut imbalance, mut dense_imbalance) = (0.0f64, 0.0f64, 0.0f64);
            let mut out = vec![0.0; mechanism.len()];
            for _ in 0..20 {
                let mut y = sim.continuous_states().to_vec();
                for (i, x) in y.iter_mut().enumerate() {
                    // Small moves of the positions (quaternions stay near unit, contacts near
                    // their start), any speeds.
                    let size = if i < n_q { 0.01 } else { 2.0 };
                    *x += size * pseudo_random(&mut seed);
                }
                y.resize(mechanism.len(), 0.0);
                let fast =
                    explicit_derivatives(mechanism, &inputs, &mut ws, &y, 0.0).expect("regular");
                let dense =
                    consistent_derivatives(mechanism, &inputs, &mut ws, &y).expect("regular");
                let scale = dense[n_q..n_q + n_v]
                    .iter()
                    .fold(1.0f64, |m, a| m.max(a.abs()));
                for i in 0..n_q + n_v {
                    worst = worst.max((fast[i] - dense[i]).abs() / scale);
                }
                // f2 = M·v̇ + c at each solution, against the size of c.
                let at_rest = vec![0.0; mechanism.len()];
                residual(mechanism, &inputs, &mut ws, &y, &at_rest, &mut out);
                let c = out[n_q..n_q + n_v]
                    .iter()
                    .fold(1.0f64, |m, x| m.max(x.abs()));
                let largest = |out: &[f64]| {
                    out[n_q..n_q + n_v]
                        .iter()
                        .fold(0.0f64, |m, x| m.max(x.abs()))
                };
                residual(mechanism, &inputs, &mut ws, &y, &fast, &mut out);
                imbalance = imbalance.max(largest(&out) / c);
                residual(mechanism, &inputs, &mut ws, &y, &dense, &mut out);
                dense_imbalance = dense_imbalance.max(largest(&out) / c);
            }
            eprintln!(
                "{}: articulated against dense accelerations within {worst:.1e} (relative); \
                 |f2| / |c| {imbalance:.1e} (dense solve {dense_imbalance:.1e})",
                path.display()
            );
            assert!(imbalance < 1e-12, "{}: {imbalance:e}", path.display());
            checked += 1;
        }
        assert!(checked >= 10, "{checked} models checked");
    }

    /// Regression: a drive train without states of its own (a torque source, a gear and a rigid
    /// inertia) adds its reflected inertia J·r² to the joint's row of f2, outside the tree's
    /// bodies; the algorithm, which knows the bodies only, took the pendulum for lighter than it
    /// is and gave it twice its acceleration (measured −18.67 against −9.35 rad/s²). Such a mechanism goes to the dense solve.
    #[test]
    fn a_rigid_drive_trains_inertia_is_not_left_out() {
        const DRIVEN: &str = r#"
model driven "A pendulum behind a gear and a flywheel"
gravity uniform { g = [0, -9.81, 0] m/s2 }
object body { mass { m = 1 kg; center = [0.5, 0, 0] m; inertia = diag(0.001, 0.001, 0.001) kg.m2 } }
joint rev revolute { from = world; to = body; axis = z; phi = 0.3 }
drive train { joint = rev; torque { }; inertia { J = 0.01 kg.m2 }; gear { ratio = 5 } }
"#;
        let spec = crate::model::load_str(DRIVEN, "driven.m3d").expect("loads");
        let sim = Simulation::new(spec, SimulationOptions::default()).expect("starts");
        let mechanism = sim.mechanism();
        let inputs = FlangeInputs::new(mechanism);
        let mut ws = Workspace::new(mechanism);
        let mut y = sim.continuous_states().to_vec();
        y.resize(mechanism.len(), 0.0);
        let yp = explicit_derivatives(mechanism, &inputs, &mut ws, &y, 0.0).expect("regular");
        let n_q = mechanism.layout.n_q;
        // J φ̈ = −m g L cos φ with J = 0.001 + m L² + J_drive r² = 0.501.
        let expected = -9.81 * 0.5 * 0.3f64.cos() / (0.001 + 0.25 + 0.01 * 25.0);
        assert!(
            (yp[n_q] - expected).abs() < 1e-12 * expected.abs(),
            "{} against {expected}",
            yp[n_q]
        );
    }
}
