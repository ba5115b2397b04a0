//! The iteration matrix of a tree of revolute and prismatic joints, factored in O(n) by the
//! articulated-body algorithm ([`crate::dynamics::articulated`]).
//!
//! A tree's exact Jacobian is dense (each joint's coordinate moves every body beyond it):
//! forming it costs O(n²), factoring it O(n³). Newton's iteration does not need it exactly: IDA
//! tests the convergence rate and pays for a coarser matrix in iterations only. Of
//! J = ∂F/∂y + c_j·∂F/∂ẏ this keeps
//!
//! ```text
//!     [ c_j·I        −I     ]   f1 = q̇ − v
//!     [   K    c_j·M + D    ]   f2 = M(q)·v̇ + c(q, v)
//! ```
//!
//! with K, D the joints' own springs and dampers (diagonal), and leaves out c's other
//! dependence on q and v (gravity and velocity terms coupling the joints): of the order
//! (h·ω)² and h·ω of c_j·M for a step h and the motion's angular rates ω, small wherever the
//! steps follow the motion. Eliminating x_q = (b1 + x_v)/c_j leaves
//!
//! ```text
//!     (M + diag(d/c_j + k/c_j²))·x_v = (b2 − k·b1/c_j)/c_j
//! ```
//!
//! the mass matrix with an "armature" on each joint's row, which the articulated-body
//! factorization solves in two passes over the bodies. Forming and factoring: one forward
//! kinematics pass and O(n); each solve O(n).

use super::super::articulated::{self, ArticulatedFactors};
use super::super::mechanism::Mechanism;
use super::super::residual::Workspace;
use crate::assembly::TreeJointKind;
use crate::ida::FactoredMatrix;
use crate::model::FlangeMode;

/// A tree the articulated iteration matrix serves, with its joints' states and diagonal terms.
#[derive(Debug, Clone, PartialEq)]
pub struct ArticulatedIteration {
    joints: Vec<ScalarJoint>,
    n_q: usize,
    n_v: usize,
}

/// A revolute or prismatic joint's place in y and its own spring and damper.
#[derive(Debug, Clone, Copy, PartialEq)]
struct ScalarJoint {
    /// Index of q in y.
    q: usize,
    /// Index of v among the speeds (y[n_q + v]).
    v: usize,
    stiffness: f64,
    damping: f64,
}

impl ArticulatedIteration {
    /// The iteration for `mechanism` when it is a tree of bodies on revolute and prismatic
    /// joints whose residual is f1, f2 alone: no loops, drive trains, force elements or
    /// contact pairs (whose stiffness couples bodies across the tree), no free joints
    /// (quaternion rows).
    pub fn new(mechanism: &Mechanism) -> Option<ArticulatedIteration> {
        let alone = articulated::applies(mechanism)
            && mechanism.forces.is_empty()
            && !mechanism.collisions.has_pairs();
        if !alone {
            return None;
        }
        let n_q = mechanism.layout.n_q;
        let mut joints = Vec::new();
        for body in &mechanism.bodies {
            let Some(joint) = &body.joint else { continue };
            let Some(states) = joint.states else { continue };
            let scalar = matches!(
                joint.motion,
                TreeJointKind::Revolute { .. } | TreeJointKind::Prismatic { .. }
            );
            // A stop's stiffness changes with the coordinate: the exact Jacobian follows it.
            if !scalar || joint.flange == FlangeMode::Motion || joint.stop.is_some() {
                return None;
            }
            joints.push(ScalarJoint {
                q: states.q,
                v: states.v.checked_sub(n_q)?,
                stiffness: joint.spring.map_or(0.0, |(k, _)| k),
                damping: joint.damper.unwrap_or(0.0),
            });
        }
        let n_v = mechanism.layout.n_v;
        (!joints.is_empty() && joints.len() == n_v && mechanism.layout.len() == n_q + n_v)
            .then_some(ArticulatedIteration { joints, n_q, n_v })
    }

    /// The factors of the iteration matrix at the poses in `ws` (a forward pass at y done) for
    /// `cj`, of the integrator's `size` (states beyond the mechanism's are padding, ẋ = 0:
    /// their rows are c_j·I). `None` when an articulated inertia is singular or `cj` is not
    /// positive.
    pub fn factor(
        &self,
        mechanism: &Mechanism,
        ws: &Workspace,
        cj: f64,
        size: usize,
    ) -> Option<ArticulatedIterationFactors> {
        if !(cj > 0.0 && cj.is_finite()) || size < self.n_q + self.n_v {
            return None;
        }
        let mut armature = vec![0.0; self.n_v];
        for joint in &self.joints {
            armature[joint.v] = joint.damping / cj + joint.stiffness / (cj * cj);
        }
        Some(ArticulatedIterationFactors {
            factors: ArticulatedFactors::new(mechanism, ws, &armature)?,
            joints: self.joints.clone(),
            cj,
            n_q: self.n_q,
            size,
        })
    }
}

/// The factored iteration matrix of [`ArticulatedIteration`] at one state and c_j.
#[derive(Debug)]
pub struct ArticulatedIterationFactors {
    factors: ArticulatedFactors,
    joints: Vec<ScalarJoint>,
    cj: f64,
    n_q: usize,
    size: usize,
}

impl FactoredMatrix for ArticulatedIterationFactors {
    fn size(&self) -> usize {
        self.size
    }

    fn solve_in_place(&self, x: &mut [f64]) -> bool {
        if x.len() != self.size {
            return false;
        }
        let cj = self.cj;
        let n_v = self.factors.speeds();
        let mut forces = vec![0.0; n_v];
        for joint in &self.joints {
            let (b1, b2) = (x[joint.q], x[self.n_q + joint.v]);
            forces[joint.v] = (b2 - joint.stiffness * b1 / cj) / cj;
        }
        let mut speeds = vec![0.0; n_v];
        if !self.factors.solve_into(&forces, &mut speeds) {
            return false;
        }
        for joint in &self.joints {
            x[joint.q] = (x[joint.q] + speeds[joint.v]) / cj;
        }
        x[self.n_q..self.n_q + n_v].copy_from_slice(&speeds);
        for padding in &mut x[self.n_q + n_v..] {
            *padding /= cj;
        }
        x.iter().all(|x| x.is_finite())
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::pseudo_random;
    use super::*;
    use crate::dynamics::{residual, FlangeInputs};
    use crate::ida::LinearSolverKind;
    use crate::simulation::{Simulation, SimulationOptions};

    /// A branching tree: revolute joints about skew axes and a prismatic one, springs and
    /// dampers on some joints, bodies with offset centres of mass.
    const BRANCHING: &str = r#"
model branching "A branching tree of revolute and prismatic joints with springs and dampers"
gravity uniform { g = [0, -9.81, 0] m/s2 }
object a { mass { m = 1 kg; center = [0.3, 0, 0] m; inertia = diag(0.01, 0.02, 0.03) kg.m2 } }
object a_end { parent = a; position = [0.6, 0, 0] m }
object b { mass { m = 0.5 kg; center = [0.2, 0.1, 0] m; inertia = diag(0.004, 0.002, 0.003) kg.m2 } }
object b_end { parent = b; position = [0.4, 0, 0.1] m }
object c { mass { m = 0.3 kg; center = [0, 0.1, 0.05] m; inertia = diag(0.001, 0.002, 0.0015) kg.m2 } }
object e { mass { m = 0.7 kg; center = [0.1, 0, 0.2] m; inertia = diag(0.003, 0.004, 0.005) kg.m2 } }
object f { mass { m = 0.2 kg; center = [0.05, 0.05, 0] m; inertia = diag(0.0005, 0.0007, 0.0006) kg.m2 } }
joint ja revolute { from = world; to = a; axis = z; phi = 0.3; damper = 0.5 N.m.s/rad }
joint jb revolute { from = a_end; to = b; axis = [0, 1, 1]; phi = -0.2; spring = 40 N.m/rad; damper = 0.2 N.m.s/rad }
joint jc prismatic { from = b_end; to = c; axis = [1, 0, 1]; s = 0.05 m; spring = 300 N/m; damper = 3 N.s/m }
joint je revolute { from = a_end; to = e; axis = x; phi = 0.4 }
joint jf revolute { from = e; to = f; axis = y; phi = 0.1; spring = 5 N.m/rad }
"#;

    /// The factors solve A·x = b for the matrix they stand for, A = [c_j·I, −I; K, c_j·M + D],
    /// with M formed independently (the residual's f2 at v̇ = e_i less at v̇ = 0, f2 being
    /// linear in v̇) and K, D the joints' springs and dampers: at 30 random states, c_j and b,
    /// |A·x − b| within 2e-14 of |A|·|x| (measured 3.2e-15).
    #[test]
    fn factors_solve_the_mass_matrix_with_the_joints_springs_and_dampers() {
        let spec = crate::model::load_str(BRANCHING, "branching.m3d").expect("loads");
        let sim = Simulation::new(spec, SimulationOptions::default()).expect("starts");
        let mechanism = sim.mechanism();
        let iteration = ArticulatedIteration::new(mechanism).expect("a tree of scalar joints");
        let inputs = FlangeInputs::new(mechanism);
        let mut ws = Workspace::new(mechanism);
        let (n_q, n_v, n) = (mechanism.layout.n_q, mechanism.layout.n_v, mechanism.len());
        assert_eq!((n_q, n_v), (5, 5));
        let mut seed = 11;
        let mut worst = 0.0f64;
        for _ in 0..30 {
            let mut y = sim.continuous_states().to_vec();
            y.resize(n, 0.0);
            for x in &mut y {
                *x += pseudo_random(&mut seed);
            }
            let cj = 10f64.powf(1.0 + 3.0 * (pseudo_random(&mut seed) + 1.0));
            let mut f0 = vec![0.0; n];
            let at_rest = vec![0.0; n];
            residual(mechanism, &inputs, &mut ws, &y, &at_rest, &mut f0);
            let factors = iteration.factor(mechanism, &ws, cj, n).expect("regular");
            let mut a = vec![vec![0.0; n]; n];
            let mut f1 = vec![0.0; n];
            for j in 0..n_v {
                let mut unit = at_rest.clone();
                unit[n_q + j] = 1.0;
                residual(mechanism, &inputs, &mut ws, &y, &unit, &mut f1);
                for i in 0..n_v {
                    a[n_q + i][n_q + j] = cj * (f1[n_q + i] - f0[n_q + i]);
                }
            }
            for joint in &iteration.joints {
                a[joint.q][joint.q] = cj;
                a[joint.q][n_q + joint.v] = -1.0;
                a[n_q + joint.v][joint.q] = joint.stiffness;
                a[n_q + joint.v][n_q + joint.v] += joint.damping;
            }
            let b: Vec<f64> = (0..n).map(|_| pseudo_random(&mut seed)).collect();
            let mut x = b.clone();
            assert!(factors.solve_in_place(&mut x));
            let size_x = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let size_a = a.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs()));
            for (row, bi) in a.iter().zip(&b) {
                let ax: f64 = row.iter().zip(&x).map(|(aij, xj)| aij * xj).sum();
                worst = worst.max((ax - bi).abs() / (size_a * size_x));
            }
        }
        eprintln!("largest |A·x − b| / (|A|·|x|): {worst:.1e}");
        assert!(worst < 2e-14, "{worst:e}");
    }

    /// The chain of 12 links under the articulated iteration against the same chain under the
    /// exact dense Jacobian (another linear algebra for the same equations): the links' poses
    /// agree to the tolerance's reach over the first second (measured 1.1e-5 m at the tolerance 1e-6), and the
    /// articulated run forms its matrices without a residual evaluation.
    #[test]
    fn a_chain_moves_as_with_the_exact_jacobian() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/chain.m3d");
        let run = |solver: LinearSolverKind| {
            let source = std::fs::read_to_string(&path).expect("readable");
            let overrides = [("N".to_string(), 12.0)];
            let spec =
                crate::model::load_str_with(&source, "chain.m3d", &overrides).expect("loads");
            let options = SimulationOptions {
                linear_solver: Some(solver),
                ..SimulationOptions::default()
            };
            let mut sim = Simulation::new(spec, options).expect("starts");
            let mut poses = Vec::new();
            for k in 1..=10 {
                sim.advance_to(0.1 * f64::from(k)).expect("advances");
                poses.push(sim.body_poses());
            }
            (poses, sim.stats())
        };
        let (exact, _) = run(LinearSolverKind::Dense);
        let (articulated, stats) = run(LinearSolverKind::Factored);
        let mut worst = 0.0f64;
        for (a, b) in exact.iter().zip(&articulated) {
            for (pa, pb) in a.iter().zip(b) {
                worst = worst.max((pa.translation.vector - pb.translation.vector).norm());
            }
        }
        eprintln!(
            "chain of 12: poses within {worst:.1e} m of the exact Jacobian's; {} Jacobians, \
             {} residual evaluations for them",
            stats.jacobian_evals, stats.jacobian_residual_evals
        );
        assert!(worst < 5e-5, "{worst:e}");
        assert!(stats.jacobian_evals > 0);
        assert_eq!(stats.jacobian_residual_evals, 0);
    }
}
