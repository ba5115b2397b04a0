//! The iteration matrix J = ∂F/∂y + c_j·∂F/∂ẏ by grouped difference quotients.
//!
//! IDA's own difference quotients perturb one state per residual evaluation: n evaluations per
//! Jacobian. In a scene of free bodies (a billiard table) most of J is zero: a body's equations
//! depend on its own states and on the bodies it touches or is tied to by a force element. The
//! bodies hanging from the world (each with everything below it in the tree: a *branch*) are
//! the unit here. Branches that are not coupled and have no coupled neighbour in common are
//! perturbed together (a distance-2 colouring of the coupling graph, so that no equation sees
//! two perturbations at once), and each evaluation fills the columns of every branch of the
//! colour. A scene of 16 resting balls needs 13 evaluations per Jacobian instead of 208.
//!
//! Couplings: force elements (always) and contact pairs that penetrate at the state where the
//! Jacobian is formed. A contact that starts later is an event, and the integrator is restarted
//! there with a new Jacobian. Mechanisms with cut-joints (loop closure couples branches through
//! the multipliers) are left to IDA's own difference quotients.
//!
//! **Increments that resolve the contact law.** IDA's increment of a state, about rtol·|y| +
//! atol, is 4e-4 m/s for a ball at 3 m/s and tolerance 1e-4: forty times a `v_small` of 1e-5 m/s,
//! the speed band over which friction and the normal damping switch. A quotient across the whole
//! band sees the saturated law, not its slope μ_k f_n · 2 / v_small, and Newton's iteration on a
//! ball that has just stopped slipping fails step after step. The velocity states of a branch in
//! contact are therefore perturbed by at most a tenth of the band
//! ([`Branches::increment_limits`]): translational speeds by v_small / 10, angular speeds by the
//! smaller of w_small / 10 and v_small / (10 ℓ), ℓ the farthest contact lever of the branch. The
//! same resolution bounds the integrator's absolute tolerance of those speeds
//! ([`Branches::speed_resolution`]).

use super::super::mechanism::Mechanism;
use super::super::residual::Workspace;
use crate::assembly::TreeJointKind;
use crate::ida::JacobianMatrix;
use crate::linalg::BlockMatrix;

/// The branches of a mechanism and their fixed couplings.
#[derive(Debug, Clone, PartialEq)]
pub struct Branches {
    /// The state (and equation) indices of each branch.
    states: Vec<Vec<usize>>,
    /// The branch of each body (`None` for the world).
    of_body: Vec<Option<usize>>,
    /// Branch pairs joined by a force element.
    fixed_links: Vec<(usize, usize)>,
    /// The body each branch hangs from the world by.
    roots: Vec<usize>,
    /// What each state of y is, for [`Branches::increment_limits`].
    kinds: Vec<StateKind>,
}

/// What a state of y measures, as far as the increments of its difference quotients care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StateKind {
    /// A position, an angle, a drive state: no contact band to resolve.
    Other,
    /// A translational velocity of a joint [m/s].
    Speed,
    /// An angular velocity of a joint [rad/s].
    AngularSpeed,
}

/// The fraction of a contact's speed band (`v_small`, `w_small`) that an increment may span.
const BAND_FRACTION: f64 = 0.1;

impl Branches {
    /// The branches of `mechanism`, or `None` when grouping does not apply (cut-joints, a
    /// joint that follows another, possibly in another branch, or no states at all).
    pub fn new(mechanism: &Mechanism) -> Option<Branches> {
        if !mechanism.rows.is_empty() || mechanism.is_empty() || mechanism.has_followers() {
            return None;
        }
        let mut of_body: Vec<Option<usize>> = vec![None; mechanism.bodies.len()];
        let mut states: Vec<Vec<usize>> = Vec::new();
        let mut roots: Vec<usize> = Vec::new();
        let mut kinds = vec![StateKind::Other; mechanism.len()];
        // Parents come before their children in the body order (otherwise: no grouping).
        for (k, body) in mechanism.bodies.iter().enumerate().skip(1) {
            if body.parent >= k {
                return None;
            }
            let branch = match of_body[body.parent] {
                Some(branch) => branch,
                None => {
                    states.push(Vec::new());
                    roots.push(k);
                    states.len() - 1
                }
            };
            of_body[k] = Some(branch);
            if let Some(joint) = body.joint.as_ref() {
                if let Some(s) = joint.states {
                    let (n_q, n_v) = joint_size(mechanism, k);
                    states[branch].extend((0..n_q).map(|i| s.q + i));
                    states[branch].extend((0..n_v).map(|i| s.v + i));
                    let velocity_kinds: &[StateKind] = match joint.motion {
                        TreeJointKind::Free => &[
                            StateKind::Speed,
                            StateKind::Speed,
                            StateKind::Speed,
                            StateKind::AngularSpeed,
                            StateKind::AngularSpeed,
                            StateKind::AngularSpeed,
                        ],
                        TreeJointKind::Revolute { .. } => &[StateKind::AngularSpeed],
                        TreeJointKind::Prismatic { .. } => &[StateKind::Speed],
                    };
                    for (i, kind) in velocity_kinds.iter().enumerate() {
                        *kinds.get_mut(s.v + i)? = *kind;
                    }
                }
            }
        }
        // A drive's states (parts behind compliances, motor current, controller) are tied to
        // the body its joint moves.
        for drive in &mechanism.drives {
            let branch = of_body[drive.body]?;
            let states_of_drive = &drive.states;
            for part in &states_of_drive.parts {
                states[branch].extend([part.q, part.v]);
            }
            states[branch].extend(states_of_drive.current);
            states[branch].extend(states_of_drive.controller);
        }
        // Every state in exactly one branch, or the grouping would leave columns out.
        let mut covered = vec![false; mechanism.len()];
        for &j in states.iter().flatten() {
            if std::mem::replace(covered.get_mut(j)?, true) {
                return None;
            }
        }
        if covered.contains(&false) {
            return None;
        }
        let fixed_links = mechanism
            .forces
            .iter()
            .filter_map(|f| Some((of_body[f.body_a]?, of_body[f.body_b]?)))
            .filter(|(a, b)| a != b)
            .collect();
        Some(Branches {
            states,
            of_body,
            fixed_links,
            roots,
            kinds,
        })
    }

    /// The branch of body `k`.
    pub fn of_body(&self, k: usize) -> Option<usize> {
        self.of_body[k]
    }

    /// The state (and equation) indices of each branch.
    pub fn states(&self) -> &[Vec<usize>] {
        &self.states
    }

    /// How many branches there are.
    pub fn len(&self) -> usize {
        self.states.len()
    }

    /// True when there is no branch.
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// The branch pairs coupled by contact: the collision pairs whose signed distance
    /// (`distances`, (pair, distance) from [`super::contacts::near_distances`]) is negative,
    /// between two bodies of different branches.
    pub fn contact_links(
        &self,
        mechanism: &Mechanism,
        ws: &Workspace,
        distances: &[(usize, f64)],
    ) -> Vec<(usize, usize)> {
        let set = &mechanism.collisions;
        distances
            .iter()
            .filter(|(_, d)| *d < 0.0)
            .filter_map(|&(id, _)| {
                let pair = ws.pairs.get(id);
                let branch = |c: usize| self.of_body[set.colliders[c].body];
                Some((branch(pair.a)?, branch(pair.b)?))
            })
            .filter(|(a, b)| a != b)
            .collect()
    }

    /// The largest difference-quotient increment of each state (module docs): a tenth of the
    /// speed bands of the contacts its branch is in (signed distance in `distances` negative).
    /// `ws` holds the kinematics (collider poses) of the state the Jacobian is formed at.
    pub fn increment_limits(
        &self,
        mechanism: &Mechanism,
        ws: &Workspace,
        distances: &[(usize, f64)],
    ) -> Vec<f64> {
        let in_contact = distances
            .iter()
            .filter(|(_, d)| *d < 0.0)
            .flat_map(|&(id, _)| {
                let pair = ws.pairs.get(id);
                let bands = (pair.law.v_small, pair.law.w_small);
                [(pair.a, bands), (pair.b, bands)]
            });
        self.speed_resolution(mechanism, ws, in_contact)
    }

    /// The speed each state must be resolved to for the contact laws of `colliders` to be
    /// seen, given as (collider, (v_small, w_small)) of the laws it is in: a tenth of the speed
    /// bands (module docs) for the velocities of the branches they are on, infinite for every
    /// other state. Also the integrator's absolute tolerance of those
    /// velocities (`simulation`): an error as wide as the band is a friction force anywhere
    /// between −μ_k f_n and μ_k f_n. Levers from the collider poses in `ws`.
    pub fn speed_resolution(
        &self,
        mechanism: &Mechanism,
        ws: &Workspace,
        colliders: impl Iterator<Item = (usize, (f64, f64))>,
    ) -> Vec<f64> {
        let set = &mechanism.collisions;
        // Per branch: the smallest v_small and w_small of its pairs, and the farthest lever
        // (a collider's centre from the branch's root origin, plus its bounding radius).
        let mut bands = vec![(f64::INFINITY, f64::INFINITY, 0.0_f64); self.states.len()];
        for (c, (v_small, w_small)) in colliders {
            {
                let collider = &set.colliders[c];
                let Some(branch) = self.of_body[collider.body] else {
                    continue;
                };
                let (Some(pose), Some(root)) =
                    (ws.collider_poses.get(c), ws.motion.get(self.roots[branch]))
                else {
                    continue;
                };
                let lever =
                    (pose.translation.vector - root.r).norm() + collider.shape.bounding_radius();
                let band = &mut bands[branch];
                band.0 = band.0.min(v_small);
                band.1 = band.1.min(w_small);
                band.2 = band.2.max(lever);
            }
        }
        let mut resolution = vec![f64::INFINITY; self.kinds.len()];
        for (members, &(v_small, w_small, lever)) in self.states.iter().zip(&bands) {
            if v_small.is_infinite() {
                continue;
            }
            for &j in members {
                resolution[j] = BAND_FRACTION
                    * match self.kinds[j] {
                        StateKind::Other => f64::INFINITY,
                        StateKind::Speed => v_small,
                        StateKind::AngularSpeed if lever > 0.0 => w_small.min(v_small / lever),
                        StateKind::AngularSpeed => w_small,
                    };
            }
        }
        resolution
    }

    /// Fills `jac` with J = ∂F/∂y + c_j·∂F/∂ẏ at (y, ẏ), where `f0` = F(y, ẏ), by grouped
    /// forward differences; `contact_links` are the branch pairs in contact now. A dense `jac`
    /// comes zeroed; a block one is replaced by one whose groups are the branches, coupled as
    /// the force elements and `contact_links` couple them. `residual(y, ẏ, f)` evaluates F.
    /// Returns how many residual evaluations it took.
    ///
    /// Increments: [`increment`], each at most its state's entry of `limits`
    /// ([`Branches::increment_limits`]).
    #[allow(clippy::too_many_arguments)]
    pub fn difference_quotients<E>(
        &self,
        contact_links: &[(usize, usize)],
        limits: &[f64],
        cj: f64,
        tolerance: f64,
        y: &[f64],
        yp: &[f64],
        f0: &[f64],
        jac: &mut JacobianMatrix<'_>,
        mut residual: impl FnMut(&[f64], &[f64], &mut [f64]) -> Result<(), E>,
    ) -> Result<usize, E> {
        let n = self.states.len();
        if let JacobianMatrix::Blocks(matrix) = jac {
            let links: Vec<(usize, usize)> = self
                .fixed_links
                .iter()
                .chain(contact_links)
                .copied()
                .collect();
            // The branches partition the states (checked in `new`), so this cannot fail.
            if let Some(blocks) = BlockMatrix::new(self.states.clone(), &links) {
                **matrix = blocks;
            }
        }
        let mut neighbours: Vec<Vec<usize>> = vec![Vec::new(); n];
        for &(a, b) in self.fixed_links.iter().chain(contact_links) {
            if a != b {
                neighbours[a].push(b);
                neighbours[b].push(a);
            }
        }
        for list in &mut neighbours {
            list.sort_unstable();
            list.dedup();
        }
        let colours = distance_two_colouring(&neighbours);
        let (mut y1, mut yp1, mut f1) = (y.to_vec(), yp.to_vec(), vec![0.0; f0.len()]);
        let mut evaluations = 0;
        for members in &colours {
            let width = members
                .iter()
                .map(|&b| self.states[b].len())
                .max()
                .unwrap_or(0);
            for local in 0..width {
                let mut increments = Vec::with_capacity(members.len());
                for &branch in members {
                    let Some(&j) = self.states[branch].get(local) else {
                        continue;
                    };
                    let limit = limits.get(j).copied().unwrap_or(f64::INFINITY);
                    let inc = increment(y[j], yp[j], cj, tolerance, limit);
                    y1[j] = y[j] + inc;
                    yp1[j] = yp[j] + cj * inc;
                    increments.push((branch, j, inc));
                }
                residual(&y1, &yp1, &mut f1)?;
                evaluations += 1;
                for &(branch, j, inc) in &increments {
                    let quotient = |r: usize| (f1[r] - f0[r]) / inc;
                    match jac {
                        JacobianMatrix::Dense(view) => {
                            let Some(column) = view.column_mut(j) else {
                                continue;
                            };
                            let rows =
                                std::iter::once(branch).chain(neighbours[branch].iter().copied());
                            for row_branch in rows {
                                for &r in &self.states[row_branch] {
                                    column[r] = quotient(r);
                                }
                            }
                        }
                        // The block pattern is the branch and its neighbours.
                        JacobianMatrix::Blocks(matrix) => {
                            matrix.set_column(j, quotient);
                        }
                        // Quotients are entries, not factors: left empty, the solver's setup
                        // fails (the simulation hands factors to the articulated iteration only).
                        JacobianMatrix::Factored(_) => {}
                    }
                    y1[j] = y[j];
                    yp1[j] = yp[j];
                }
            }
        }
        Ok(evaluations)
    }
}

/// The difference-quotient increment of a state with value `y`, derivative `yp`, as IDA's own:
/// max(√ε·max(|y|, |ẏ|/c_j), rtol·|y| + atol) with rtol = atol = `tolerance`, the second term
/// at most `limit`, with the sign of ẏ, and rounded so that y + increment − y is exactly the
/// increment.
pub fn increment(y: f64, yp: f64, cj: f64, tolerance: f64, limit: f64) -> f64 {
    let scale = y.abs().max(yp.abs() / cj);
    let mut inc = (f64::EPSILON.sqrt() * scale).max((tolerance * y.abs() + tolerance).min(limit));
    if yp < 0.0 {
        inc = -inc;
    }
    (y + inc) - y
}

/// Number of position and velocity coordinates of body `k`'s joint.
fn joint_size(mechanism: &Mechanism, k: usize) -> (usize, usize) {
    match mechanism.bodies[k].joint.as_ref().map(|j| &j.motion) {
        Some(TreeJointKind::Free) => (7, 6),
        Some(_) => (1, 1),
        None => (0, 0),
    }
}

/// Groups of vertices no two of which are adjacent or share a neighbour (greedy, in vertex
/// order).
fn distance_two_colouring(neighbours: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut colour: Vec<Option<usize>> = vec![None; neighbours.len()];
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for v in 0..neighbours.len() {
        let mut taken: Vec<usize> = Vec::new();
        for &u in &neighbours[v] {
            taken.extend(colour[u]);
            for &w in &neighbours[u] {
                taken.extend(colour[w]);
            }
        }
        let c = (0..).find(|c| !taken.contains(c)).expect("a free colour");
        colour[v] = Some(c);
        if c == groups.len() {
            groups.push(Vec::new());
        }
        groups[c].push(v);
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assembly::{Assembly, CollisionSet};
    use crate::dynamics::{assemble, contacts, kinematics, residual, FlangeInputs, Workspace};
    use crate::ida::{DenseMatrixView, JacobianMatrix};
    use crate::scene::Scene;

    #[test]
    fn colouring_keeps_neighbours_and_their_neighbours_apart() {
        // A chain 0-1-2-3-4 and an isolated vertex 5.
        let neighbours = vec![vec![1], vec![0, 2], vec![1, 3], vec![2, 4], vec![3], vec![]];
        let groups = distance_two_colouring(&neighbours);
        assert_eq!(groups, vec![vec![0, 3, 5], vec![1, 4], vec![2]]);
        // Without couplings, one group.
        assert_eq!(
            distance_two_colouring(&[vec![], vec![], vec![]]),
            vec![vec![0, 1, 2]]
        );
    }

    /// Five balls on a table: a and b pressed into each other, c and d tied by a spring, e
    /// alone, all moving. The grouped difference quotients equal the column-by-column ones
    /// with the same increments, entry for entry: a perturbation of one branch changes no
    /// equation of a branch it is not coupled to, not even in the last bit.
    #[test]
    fn grouped_columns_equal_one_column_at_a_time() {
        let source = r#"
            object table { parent = world; position = [0, -0.05, 0]; shape box { lengths = [4, 0.1, 4] }; contact { material = billiard_table } }
            object a { shape sphere { diameter = 0.06 }; mass { material = billiard_ball }; contact { material = billiard_ball } }
            object b { shape sphere { diameter = 0.06 }; mass { material = billiard_ball }; contact { material = billiard_ball } }
            object c { shape sphere { diameter = 0.06 }; mass { material = billiard_ball }; contact { material = billiard_ball } }
            object d { shape sphere { diameter = 0.06 }; mass { material = billiard_ball }; contact { material = billiard_ball } }
            object e { shape sphere { diameter = 0.06 }; mass { material = billiard_ball }; contact { material = billiard_ball } }
            joint ja free { from = world; to = a; position = [0, 0.02999, 0]; v = [1, 0, 0.2]; w = [0, 3, 1] }
            joint jb free { from = world; to = b; position = [0.0599, 0.03, 0.001]; v = [-0.5, 0, 0] }
            joint jc free { from = world; to = c; position = [1, 0.03, 0]; v = [0, 0, 1] }
            joint jd free { from = world; to = d; position = [1.2, 0.03, 0.3]; w = [2, 0, 0] }
            joint je free { from = world; to = e; position = [-1, 0.0299, -1]; v = [0.3, 0, 0.1] }
            force tie spring { from = c; to = d; c = 100 }
            object arm { mass { m = 0.5; center = [0.1, 0, 0]; inertia = diag(1e-4, 1e-3, 1e-3) } }
            object pivot { parent = world; position = [0, 1, 3] }
            joint swing revolute { from = pivot; to = arm; axis = z; phi = 0.3 }
            drive wrist {
              joint = swing
              motor { R = 1; L = 1e-3; k = 0.05; J = 1e-5; v = 2 }
              gear { ratio = 5 }
              spring { c = 20; d = 0.05 }
            }
        "#;
        let spec = crate::model::load_str_with(source, "five_balls_and_an_arm.m3d", &[]).unwrap();
        let scene = Scene::from_spec(&spec).unwrap();
        let assembly = Assembly::build(&scene).unwrap();
        let mut mechanism = Mechanism::new(&scene, &assembly);
        mechanism.collisions = CollisionSet::build(&scene, &assembly).unwrap();
        let inputs = FlangeInputs::new(&mechanism);
        let y = assemble(&mut mechanism, &inputs).unwrap();
        let n = y.len();
        let yp: Vec<f64> = (0..n)
            .map(|i| ((i * 7919) % 13) as f64 * 0.37 - 2.0)
            .collect();
        let mut ws = Workspace::new(&mechanism);
        let mut evaluate = |y: &[f64], yp: &[f64], f: &mut [f64]| -> Result<(), ()> {
            residual(&mechanism, &inputs, &mut ws, y, yp, f);
            Ok(())
        };
        let mut f0 = vec![0.0; n];
        evaluate(&y, &yp, &mut f0).unwrap();
        let (cj, tolerance) = (2.5e3, 1e-6);

        let branches = Branches::new(&mechanism).unwrap();
        // Five balls and the arm, whose branch holds its drive's states too.
        assert_eq!(branches.len(), 6);
        let mut probe = Workspace::new(&mechanism);
        kinematics(&mechanism, &inputs, &mut probe, &y, &yp);
        let distances = contacts::near_distances(&mechanism, &mut probe, false);
        let links = branches.contact_links(&mechanism, &probe, &distances);
        let limits = branches.increment_limits(&mechanism, &probe, &distances);
        let branch = |name: &str| {
            let body = mechanism
                .bodies
                .iter()
                .position(|b| b.name == name)
                .unwrap();
            branches.of_body(body).unwrap()
        };
        assert_eq!(links, vec![(branch("a"), branch("b"))]);

        let mut grouped = vec![0.0; n * n];
        let evaluations = branches
            .difference_quotients(
                &links,
                &limits,
                cj,
                tolerance,
                &y,
                &yp,
                &f0,
                &mut JacobianMatrix::Dense(DenseMatrixView::new(&mut grouped, n).unwrap()),
                &mut evaluate,
            )
            .unwrap();
        // a–b and c–d are coupled pairs, e and the arm are alone: two colours ({a, c, e, arm},
        // {b, d}) of 13 columns each, instead of 5 × 13 + 5.
        assert_eq!(evaluations, 2 * 13);

        let mut dense = vec![0.0; n * n];
        let (mut y1, mut yp1, mut f1) = (y.clone(), yp.clone(), vec![0.0; n]);
        for j in 0..n {
            let inc = increment(y[j], yp[j], cj, tolerance, limits[j]);
            y1[j] = y[j] + inc;
            yp1[j] = yp[j] + cj * inc;
            evaluate(&y1, &yp1, &mut f1).unwrap();
            for r in 0..n {
                dense[j * n + r] = (f1[r] - f0[r]) / inc;
            }
            (y1[j], yp1[j]) = (y[j], yp[j]);
        }
        assert_eq!(grouped, dense);
        // The couplings are there: b's equations depend on a's position, d's on c's.
        assert!(dense.iter().filter(|x| **x != 0.0).count() > 5 * 13);

        // The same columns as blocks: every entry equal, and none outside the pattern lost.
        let mut blocks = BlockMatrix::default();
        let block_evaluations = branches
            .difference_quotients(
                &links,
                &limits,
                cj,
                tolerance,
                &y,
                &yp,
                &f0,
                &mut JacobianMatrix::Blocks(&mut blocks),
                &mut evaluate,
            )
            .unwrap();
        assert_eq!(block_evaluations, evaluations);
        assert_eq!(blocks.size(), n);
        for r in 0..n {
            for c in 0..n {
                assert_eq!(blocks.get(r, c), Some(dense[c * n + r]), "entry ({r}, {c})");
            }
        }
        assert!(blocks.stored_entries() < n * n / 2);
    }
}
