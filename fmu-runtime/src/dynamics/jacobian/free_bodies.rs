//! The exact iteration matrix J = ∂F/∂y + c_j·∂F/∂ẏ of a scene of free bodies: every moving
//! body on a free joint from the world, no joints between bodies, force elements, drives or
//! loops, and contact pairs whose narrow phase has a derivative ([`super::contact`]). This is
//! the scene of the billiard table, the pour and the bouncing balls, where difference
//! quotients cost 13 residual evaluations per colour of bodies in contact; here the matrix
//! costs one residual evaluation (for the loads and kinematics it is formed at) and a few
//! hundred operations per body and per penetrating pair.
//!
//! Per body (13 states: r, Q = (x, y, z, w), v, ω; ω in body axes):
//!
//! ```text
//! f1 = ṙ − v,   Q̇ − ½ Q ⊗ (0, ω) − k (1 − |Q|²) Q
//! f2 = R_aᵀ (f − F_c),   f = m (a + α × c + ω × (ω × c) − g(p + c))        (world a, α, ω, c = R ĉ)
//!      Rᵀ (I_w α + ω × I_w ω + c × f − τ_c)                                (I_w = R I_b Rᵀ)
//! ```
//!
//! with F_c, τ_c the contact loads. f2 is differentiated with respect to the body's world
//! motion W = (p, θ, v, ω, a, α) (θ a small world rotation) and W with respect to the states:
//! p = r_a + R_a r, dθ = R Φ dQ with Φ = (2/|Q|) [w I − [u]×, −u] (Q̂ = (u, w), the rotation is
//! that of Q/|Q|), v = R_a v, ω_w = R ω, a = R_a v̇, α = R ω̇ (so dω_w = R dω − [ω_w]× R Φ dQ,
//! and likewise α). The torque row is rotated into body axes, which adds Rᵀ [t]× dθ.

use super::super::kinematics::BodyMotion;
use super::super::mechanism::{Body, Mechanism, WORLD_BODY};
use super::super::residual::{Penetrating, Workspace, QUATERNION_NORM_RATE};
use super::contact::{pair_loads, skew, supported, Unsupported};
use crate::assembly::TreeJointKind;
use crate::collision::broad_phase::IndexMap;
use crate::ida::JacobianMatrix;
use crate::linalg::BlockMatrix;
use nalgebra::{Matrix3, SMatrix, Vector3};

/// States per free body: r (3), Q (4), v (3), ω (3).
pub(super) const STATES: usize = 13;
/// Where the groups of a body's states start: r, Q, v, ω.
const R: usize = 0;
const Q: usize = 3;
const V: usize = 7;
const W: usize = 10;

/// One body's block of J: its equations' rows, another body's (or its own) states' columns.
type Block = SMatrix<f64, STATES, STATES>;

/// One free body: the mechanism body and the first of its position and velocity states.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct FreeBody {
    pub(super) body: usize,
    pub(super) q: usize,
    pub(super) v: usize,
}

/// A mechanism of free bodies, for which the exact J is formed.
#[derive(Debug, Clone, PartialEq)]
pub struct FreeBodies {
    bodies: Vec<FreeBody>,
    /// The free body (index into `bodies`) of each mechanism body; `None`: fixed to the world.
    of_body: Vec<Option<usize>>,
    /// The states of each body, in the order of its block: r, Q, v, ω.
    groups: Vec<Vec<usize>>,
}

impl FreeBodies {
    /// The free bodies of `mechanism`, or `None` when the mechanism is not a scene of free
    /// bodies with supported contact pairs (module documentation).
    pub fn new(mechanism: &Mechanism) -> Option<FreeBodies> {
        if !mechanism.rows.is_empty()
            || !mechanism.drives.is_empty()
            || !mechanism.forces.is_empty()
            || mechanism.is_empty()
        {
            return None;
        }
        let mut of_body = vec![None; mechanism.bodies.len()];
        let mut fixed = vec![true; mechanism.bodies.len()];
        let mut bodies = Vec::new();
        for (k, body) in mechanism.bodies.iter().enumerate().skip(1) {
            match &body.joint {
                None if body.parent < k && fixed[body.parent] => {}
                Some(joint) if body.parent == WORLD_BODY && joint.motion == TreeJointKind::Free => {
                    let states = joint.states?;
                    fixed[k] = false;
                    of_body[k] = Some(bodies.len());
                    bodies.push(FreeBody {
                        body: k,
                        q: states.q,
                        v: states.v,
                    });
                }
                _ => return None,
            }
        }
        if bodies.len() * STATES != mechanism.len() {
            return None;
        }
        if !supported(&mechanism.collisions) {
            return None;
        }
        let groups = bodies
            .iter()
            .map(|b| (b.q..b.q + 7).chain(b.v..b.v + 6).collect())
            .collect();
        Some(FreeBodies {
            bodies,
            of_body,
            groups,
        })
    }

    /// The states of each body, in the order of its block: r, Q, v, ω.
    pub fn groups(&self) -> &[Vec<usize>] {
        &self.groups
    }

    /// Fills `jac` with J at (y, ẏ); `ws` holds the residual's evaluation there (kinematics,
    /// loads and the near pairs). A block `jac` is replaced by one whose groups are the bodies,
    /// coupled by the penetrating pairs. [`Unsupported`] when a pair has no derivative (not
    /// expected after [`FreeBodies::new`]); `jac` is then left as it was.
    pub fn jacobian(
        &self,
        mechanism: &Mechanism,
        ws: &Workspace,
        y: &[f64],
        cj: f64,
        jac: &mut JacobianMatrix<'_>,
    ) -> Result<(), Unsupported> {
        // Each body's motion by its states, once: its own block and its pairs' blocks read it.
        let maps: Vec<MotionMap> = self
            .bodies
            .iter()
            .map(|b| MotionMap::new(mechanism, ws, y, cj, b))
            .collect();
        let mut blocks = Blocks {
            own: (self.bodies.iter().zip(&maps))
                .map(|(b, map)| own_block(mechanism, ws, y, cj, b, map))
                .collect(),
            ..Blocks::default()
        };
        if mechanism.collisions.has_pairs() && !ws.contact_loads_frozen {
            let set = &mechanism.collisions;
            // The pairs that penetrate at the workspace's evaluation, as the residual met them:
            // the others have no loads, and the near list of a heap is mostly pairs apart (700
            // near pairs, 17 penetrating per matrix in 100 poured balls).
            for &Penetrating { pair: index, .. } in &ws.penetrating {
                let pair = ws.pairs.get(index);
                let friction = &ws.pairs.frictions[index];
                let Some(loads) = pair_loads(set, pair, friction, &ws.collider_poses, &ws.motion)?
                else {
                    continue;
                };
                let a = self.of_body[set.colliders[pair.a].body];
                let b = self.of_body[set.colliders[pair.b].body];
                for (row, force, torque) in [
                    (a, &loads.force_a, &loads.torque_a),
                    (b, &loads.force_b, &loads.torque_b),
                ] {
                    let Some(row) = row else { continue };
                    let body = &mechanism.bodies[self.bodies[row].body];
                    let frame = frame_rotation(body);
                    let rotation = ws.motion[self.bodies[row].body].rotation;
                    for (column, offset) in [(a, 0), (b, 12)] {
                        let Some(column) = column else { continue };
                        let map = &maps[column];
                        let f = map.by_states(&force.fixed_view::<3, 12>(0, offset).into_owned());
                        let t = map.by_states(&torque.fixed_view::<3, 12>(0, offset).into_owned());
                        let block = blocks.get_mut(row, column);
                        let mut rows = block.fixed_view_mut::<3, STATES>(V, 0);
                        rows -= frame.transpose() * f;
                        let mut rows = block.fixed_view_mut::<3, STATES>(W, 0);
                        rows -= rotation.transpose() * t;
                    }
                }
            }
        }
        match jac {
            JacobianMatrix::Blocks(matrix) => {
                let links: Vec<(usize, usize)> = blocks.coupled.iter().map(|(at, _)| *at).collect();
                // The same bodies in contact as last time: the matrix's blocks are those of
                // `blocks` (every one is written below). Otherwise a new pattern; the groups
                // partition the states (checked in `new`), so `BlockMatrix::new` cannot fail.
                if !matrix.has_pattern(&self.groups, &links) {
                    if let Some(fresh) = BlockMatrix::new(self.groups.clone(), &links) {
                        **matrix = fresh;
                    }
                }
                for ((row, column), block) in blocks.iter() {
                    if let Some(stored) = matrix.block_mut(row, column) {
                        stored.copy_from(block);
                    }
                }
            }
            // Not a matrix of entries: the difference quotients' business.
            JacobianMatrix::Factored(_) => return Err(Unsupported),
            JacobianMatrix::Dense(view) => {
                for ((row, column), block) in blocks.iter() {
                    for (r, &i) in self.groups[row].iter().enumerate() {
                        for (c, &j) in self.groups[column].iter().enumerate() {
                            view.set(i, j, block[(r, c)]);
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// The blocks of J a Jacobian fills: each body's own, in a vector by body, and those that
/// couple two bodies in contact, found by their (row, column) body pair. (An ordered map of
/// all blocks moved the 1.4 kB blocks as its nodes filled: 1.6 % of the samples in a time
/// profile of a thousand poured balls.)
#[derive(Default)]
struct Blocks {
    own: Vec<Block>,
    coupled: Vec<((usize, usize), Block)>,
    index: IndexMap<(usize, usize), usize>,
}

impl Blocks {
    /// The block of body `row`'s equations and body `column`'s states, zero where new.
    fn get_mut(&mut self, row: usize, column: usize) -> &mut Block {
        if row == column {
            return &mut self.own[row];
        }
        let next = self.coupled.len();
        let at = *self.index.entry((row, column)).or_insert(next);
        if at == next {
            self.coupled.push(((row, column), Block::zeros()));
        }
        &mut self.coupled[at].1
    }

    /// Every block with its (row, column) body pair.
    fn iter(&self) -> impl Iterator<Item = ((usize, usize), &Block)> {
        let own = self
            .own
            .iter()
            .enumerate()
            .map(|(i, block)| ((i, i), block));
        own.chain(self.coupled.iter().map(|(at, block)| (*at, block)))
    }
}

/// The columns of the quaternion rows Q̇ − ½ Q ⊗ (0, ω) − k (1 − |Q|²) Q (order x, y, z, w):
/// by Q (with c_j from Q̇) and by ω.
pub(super) fn quaternion_rows(
    y: &[f64],
    b: &FreeBody,
    cj: f64,
) -> (SMatrix<f64, 4, 4>, SMatrix<f64, 4, 3>) {
    let u = Vector3::new(y[b.q + 3], y[b.q + 4], y[b.q + 5]);
    let w = y[b.q + 6];
    let omega = Vector3::new(y[b.v + 3], y[b.v + 4], y[b.v + 5]);
    let quaternion = nalgebra::Vector4::new(u.x, u.y, u.z, w);
    let mut by_q = SMatrix::<f64, 4, 4>::zeros();
    by_q.fixed_view_mut::<3, 3>(0, 0)
        .copy_from(&(-skew(&omega) * 0.5));
    by_q.fixed_view_mut::<3, 1>(0, 3).copy_from(&(omega * 0.5));
    by_q.fixed_view_mut::<1, 3>(3, 0)
        .copy_from(&(-omega.transpose() * 0.5));
    let k = QUATERNION_NORM_RATE;
    by_q += SMatrix::<f64, 4, 4>::identity() * (k * (1.0 - quaternion.norm_squared()))
        - quaternion * quaternion.transpose() * (2.0 * k);
    let mut by_w = SMatrix::<f64, 4, 3>::zeros();
    by_w.fixed_view_mut::<3, 3>(0, 0)
        .copy_from(&((Matrix3::identity() * w + skew(&u)) * 0.5));
    by_w.fixed_view_mut::<1, 3>(3, 0)
        .copy_from(&(-u.transpose() * 0.5));
    (SMatrix::<f64, 4, 4>::identity() * cj - by_q, -by_w)
}

/// d(p, θ, v, ω, a, α) of a free body by its states (a and α with c_j from ẏ), kept as the
/// few blocks that are not zero: p = F r, dθ = T dQ, v = F v, ω_w = R ω, a = F v̇, α = R ω̇
/// with T = R Φ (F the joint frame's rotation, R the body's; module documentation), so that
/// dω_w = R dω − [ω_w]× T dQ and dα = R dω̇ − [α]× T dQ. A load's derivative by the motion
/// times the map is 6 small products ([`MotionMap::by_states`]) instead of a 3 × 18 by 18 × 13
/// product that is mostly zeros.
#[derive(Debug, Clone, Copy)]
pub(super) struct MotionMap {
    frame: Matrix3<f64>,
    rotation: Matrix3<f64>,
    turn: SMatrix<f64, 3, 4>,
    w: Vector3<f64>,
    alpha: Vector3<f64>,
    cj: f64,
}

impl MotionMap {
    /// The map of body `b` at the workspace's motion and the states `y`.
    pub(super) fn new(
        mechanism: &Mechanism,
        ws: &Workspace,
        y: &[f64],
        cj: f64,
        b: &FreeBody,
    ) -> MotionMap {
        let m = &ws.motion[b.body];
        MotionMap {
            frame: frame_rotation(&mechanism.bodies[b.body]),
            rotation: m.rotation,
            turn: m.rotation * rotation_by_quaternion(y, b),
            w: m.w,
            alpha: m.alpha,
            cj,
        }
    }

    /// dθ by Q: R Φ.
    fn turn(&self) -> &SMatrix<f64, 3, 4> {
        &self.turn
    }

    /// `d` times the map: the derivative by the body's states of a quantity whose derivative
    /// by its world motion is `d`, columns in groups of 3 for p, θ, v, ω and, where `K` is 18,
    /// a, α (`K` = 12: a quantity of the motion alone, no accelerations).
    pub(super) fn by_states<const K: usize>(
        &self,
        d: &SMatrix<f64, 3, K>,
    ) -> SMatrix<f64, 3, STATES> {
        let group = |i: usize| -> Matrix3<f64> {
            if 3 * i + 3 <= K {
                d.fixed_view::<3, 3>(0, 3 * i).into_owned()
            } else {
                Matrix3::zeros()
            }
        };
        let (by_p, by_theta, by_v, by_w, by_a, by_alpha) =
            (group(0), group(1), group(2), group(3), group(4), group(5));
        let mut out = SMatrix::<f64, 3, STATES>::zeros();
        out.fixed_view_mut::<3, 3>(0, R)
            .copy_from(&(by_p * self.frame));
        out.fixed_view_mut::<3, 4>(0, Q).copy_from(
            &((by_theta - by_w * skew(&self.w) - by_alpha * skew(&self.alpha)) * self.turn),
        );
        out.fixed_view_mut::<3, 3>(0, V)
            .copy_from(&((by_v + by_a * self.cj) * self.frame));
        out.fixed_view_mut::<3, 3>(0, W)
            .copy_from(&((by_w + by_alpha * self.cj) * self.rotation));
        out
    }

    /// The whole 18 × 13 matrix (rows p, θ, v, ω, a, α), for the columns of a tree's J.
    pub(super) fn dense(&self) -> SMatrix<f64, 18, STATES> {
        let mut map = SMatrix::<f64, 18, STATES>::zeros();
        map.fixed_view_mut::<3, 3>(0, R).copy_from(&self.frame);
        map.fixed_view_mut::<3, 4>(3, Q).copy_from(&self.turn);
        map.fixed_view_mut::<3, 3>(6, V).copy_from(&self.frame);
        map.fixed_view_mut::<3, 3>(9, W).copy_from(&self.rotation);
        map.fixed_view_mut::<3, 4>(9, Q)
            .copy_from(&(-skew(&self.w) * self.turn));
        map.fixed_view_mut::<3, 3>(12, V)
            .copy_from(&(self.frame * self.cj));
        map.fixed_view_mut::<3, 3>(15, W)
            .copy_from(&(self.rotation * self.cj));
        map.fixed_view_mut::<3, 4>(15, Q)
            .copy_from(&(-skew(&self.alpha) * self.turn));
        map
    }
}

/// The rotation of a free joint's frame on the world (its parent).
pub(super) fn frame_rotation(body: &Body) -> Matrix3<f64> {
    body.joint.as_ref().map_or(Matrix3::identity(), |joint| {
        *joint.frame_a.rotation.to_rotation_matrix().matrix()
    })
}

/// Φ: dθ_body = Φ dQ for the rotation of Q/|Q| (module documentation).
pub(super) fn rotation_by_quaternion(y: &[f64], b: &FreeBody) -> SMatrix<f64, 3, 4> {
    let q = Vector3::new(y[b.q + 3], y[b.q + 4], y[b.q + 5]);
    let w = y[b.q + 6];
    let norm = (q.norm_squared() + w * w).sqrt();
    let (u, w) = (q / norm, w / norm);
    let mut phi = SMatrix::<f64, 3, 4>::zeros();
    phi.fixed_view_mut::<3, 3>(0, 0)
        .copy_from(&(Matrix3::identity() * w - skew(&u)));
    phi.fixed_view_mut::<3, 1>(0, 3).copy_from(&-u);
    phi * (2.0 / norm)
}

/// Body `b`'s own block without its contacts: the kinematic rows and the rigid body's
/// equations of motion, with the rotation of the whole torque row (contacts included).
/// `map` is the body's [`MotionMap`].
fn own_block(
    mechanism: &Mechanism,
    ws: &Workspace,
    y: &[f64],
    cj: f64,
    b: &FreeBody,
    map: &MotionMap,
) -> Block {
    let body = &mechanism.bodies[b.body];
    let frame = frame_rotation(body);
    let m = &ws.motion[b.body];
    let rotation = m.rotation;
    let mut block = Block::zeros();
    // ṙ − v.
    block
        .fixed_view_mut::<3, 3>(R, R)
        .copy_from(&(Matrix3::identity() * cj));
    block
        .fixed_view_mut::<3, 3>(R, V)
        .copy_from(&-Matrix3::identity());
    let (by_q, by_w) = quaternion_rows(y, b, cj);
    block.fixed_view_mut::<4, 4>(Q, Q).copy_from(&by_q);
    block.fixed_view_mut::<4, 3>(Q, W).copy_from(&by_w);

    let (df, dt) = rigid_load_derivative(mechanism, body, m);
    block
        .fixed_view_mut::<3, STATES>(V, 0)
        .copy_from(&(frame.transpose() * map.by_states(&df)));
    // Rᵀ t: the torque of the whole body (ws.torque, contacts included) turns with it.
    let total = ws.torque[b.body];
    let mut rotated = rotation.transpose() * map.by_states(&dt);
    let mut by_turn = rotated.fixed_view_mut::<3, 4>(0, Q);
    by_turn += rotation.transpose() * skew(&total) * map.turn();
    block.fixed_view_mut::<3, STATES>(W, 0).copy_from(&rotated);
    block
}

/// The derivatives of a rigid body's inertial-minus-gravity force f = m (a_c − g) and torque
/// t = I_w α + ω × I_w ω + c × f (world, about its origin) with respect to its world motion
/// W = (p, θ, v, ω, a, α) (module documentation).
pub(super) fn rigid_load_derivative(
    mechanism: &Mechanism,
    body: &Body,
    m: &BodyMotion,
) -> (SMatrix<f64, 3, 18>, SMatrix<f64, 3, 18>) {
    let rotation = m.rotation;
    let mut df = SMatrix::<f64, 3, 18>::zeros();
    let mut dt = SMatrix::<f64, 3, 18>::zeros();
    if body.mass > 0.0 {
        let mass = body.mass;
        let c = rotation * body.center;
        let inertia = rotation * body.inertia * rotation.transpose();
        let (w, alpha) = (m.w, m.alpha);
        let gravity = mechanism.gravity_gradient(&(m.r + c));
        let f = mass
            * (m.a + alpha.cross(&c) + w.cross(&w.cross(&c)) - mechanism.gravity_at(&(m.r + c)));
        let (sc, sw, sa) = (skew(&c), skew(&w), skew(&alpha));
        let f_p = -gravity * mass;
        let f_theta = -(sa + sw * sw - gravity) * sc * mass;
        let f_w = -(skew(&w.cross(&c)) + sw * sc) * mass;
        let f_alpha = -sc * mass;
        df.fixed_view_mut::<3, 3>(0, 0).copy_from(&f_p);
        df.fixed_view_mut::<3, 3>(0, 3).copy_from(&f_theta);
        df.fixed_view_mut::<3, 3>(0, 9).copy_from(&f_w);
        df.fixed_view_mut::<3, 3>(0, 12)
            .copy_from(&(Matrix3::identity() * mass));
        df.fixed_view_mut::<3, 3>(0, 15).copy_from(&f_alpha);
        let t_theta = (inertia * sa - skew(&(inertia * alpha)))
            + sw * (inertia * sw - skew(&(inertia * w)))
            + skew(&f) * sc
            + sc * f_theta;
        dt.fixed_view_mut::<3, 3>(0, 0).copy_from(&(sc * f_p));
        dt.fixed_view_mut::<3, 3>(0, 3).copy_from(&t_theta);
        dt.fixed_view_mut::<3, 3>(0, 9)
            .copy_from(&(sw * inertia - skew(&(inertia * w)) + sc * f_w));
        dt.fixed_view_mut::<3, 3>(0, 12).copy_from(&(sc * mass));
        dt.fixed_view_mut::<3, 3>(0, 15)
            .copy_from(&(inertia + sc * f_alpha));
    }
    (df, dt)
}

#[cfg(test)]
mod tests {
    use super::super::super::contacts::Friction;
    use super::super::test_support::{check_against_quotients, pseudo_random, shipped_models};
    use super::*;
    use crate::dynamics::{residual, FlangeInputs};
    use crate::ida::DenseMatrixView;
    use crate::simulation::{Simulation, SimulationOptions};
    use nalgebra::UnitQuaternion;

    /// For every shipped scene of free bodies, at 12 states near its start (positions moved by
    /// up to 0.1 mm, so that bodies press into each other and into the table by up to that,
    /// speeds of m/s and of the contact law's band, pairs stuck and slipping): the exact J
    /// equals central difference quotients of the residual, column by column, to the
    /// quotients' own error (relative to the column's largest entry).
    #[test]
    fn exact_jacobian_equals_difference_quotients() {
        let paths = shipped_models();
        let mut checked = Vec::new();
        let mut pressed = 0;
        for path in paths {
            let sim = Simulation::from_file(&path, SimulationOptions::default()).expect("model");
            let mechanism = sim.mechanism();
            let Some(free) = FreeBodies::new(mechanism) else {
                continue;
            };
            if mechanism.len() > 400 {
                continue;
            }
            let n = mechanism.len();
            let inputs = FlangeInputs::new(mechanism);
            let mut ws = Workspace::new(mechanism);
            let mut seed = 11;
            let (mut worst, mut worst_own) = (0.0f64, 0.0f64);
            for sample in 0..12 {
                let mut y = sim.continuous_states()[..n].to_vec();
                let mut yp = vec![0.0; n];
                // Speeds either of m/s or inside the band of the contact law (v_small 1 cm/s).
                let speed = if sample % 2 == 0 { 2.0 } else { 0.004 };
                for b in &free.bodies {
                    for i in 0..3 {
                        y[b.q + i] += 1e-4 * pseudo_random(&mut seed);
                    }
                    for i in 3..7 {
                        y[b.q + i] += 0.05 * pseudo_random(&mut seed);
                    }
                    for i in 0..6 {
                        y[b.v + i] = speed * pseudo_random(&mut seed);
                        yp[b.v + i] = 10.0 * pseudo_random(&mut seed);
                    }
                }
                let mut f = vec![0.0; n];
                residual(mechanism, &inputs, &mut ws, &y, &yp, &mut f);
                // Every other sample, the penetrating pairs stick near their contact points.
                if sample % 4 >= 2 {
                    for &index in &ws.near_pairs.pairs.clone() {
                        let pair = ws.pairs.get(index).clone();
                        let set = &mechanism.collisions;
                        let (ma, mb) = (
                            ws.motion[set.colliders[pair.a].body],
                            ws.motion[set.colliders[pair.b].body],
                        );
                        let mut wiggle = || {
                            Vector3::new(
                                pseudo_random(&mut seed),
                                pseudo_random(&mut seed),
                                pseudo_random(&mut seed),
                            ) * 1e-6
                        };
                        let point = ws.collider_poses[pair.a].translation.vector;
                        let turn = ma.rotation.transpose() * mb.rotation;
                        let offset = UnitQuaternion::from_scaled_axis(wiggle() * 1e3);
                        ws.pairs.frictions[index] = Friction::Stuck {
                            on_a: ma.rotation.transpose() * (point - ma.r + wiggle()),
                            on_b: mb.rotation.transpose() * (point - mb.r + wiggle()),
                            turn: UnitQuaternion::from_matrix(&turn) * offset,
                        };
                    }
                }
                residual(mechanism, &inputs, &mut ws, &y, &yp, &mut f);
                let cj = 1e3 * (1.5 + pseudo_random(&mut seed));
                let mut exact = vec![0.0; n * n];
                free.jacobian(
                    mechanism,
                    &ws,
                    &y,
                    cj,
                    &mut JacobianMatrix::Dense(DenseMatrixView::new(&mut exact, n).unwrap()),
                )
                .expect("supported pairs");
                let contacts = (0..n * n)
                    .filter(|&e| {
                        let (c, r) = (e / n, e % n);
                        exact[e] != 0.0 && groups_of(&free, r) != groups_of(&free, c)
                    })
                    .count();
                pressed += usize::from(contacts > 0);
                let label = format!("{}, sample {sample}", path.display());
                let (error, own) = check_against_quotients(
                    mechanism,
                    &inputs,
                    &ws,
                    (&y, &yp, &f),
                    cj,
                    &exact,
                    |j| free.increment(j),
                    &label,
                );
                worst = worst.max(error);
                worst_own = worst_own.max(own);
            }
            eprintln!(
                "{}: exact J against central differences within {worst:.1e} (relative to each \
                 column's largest entry; the quotients' own error up to {worst_own:.1e})",
                path.display()
            );
            checked.push(path);
        }
        assert!(checked.len() >= 4, "{checked:?}");
        assert!(
            pressed >= 10,
            "{pressed} samples with bodies pressed together"
        );
    }

    /// The map's products that skip its zero blocks equal the product with the whole 18 × 13
    /// matrix, for a load of the whole motion (18 columns) and one of p, θ, v, ω alone (12).
    #[test]
    fn motion_map_by_states_equals_the_dense_product() {
        let mut seed = 5;
        let mut random = || pseudo_random(&mut seed);
        let mut worst = 0.0f64;
        for _ in 0..50 {
            let map = MotionMap {
                frame: Matrix3::from_fn(|_, _| random()),
                rotation: Matrix3::from_fn(|_, _| random()),
                turn: SMatrix::<f64, 3, 4>::from_fn(|_, _| random()),
                w: Vector3::from_fn(|_, _| 10.0 * random()),
                alpha: Vector3::from_fn(|_, _| 100.0 * random()),
                cj: 1e3 * (1.5 + random()),
            };
            let dense = map.dense();
            let whole = SMatrix::<f64, 3, 18>::from_fn(|_, _| random());
            let motion = SMatrix::<f64, 3, 12>::from_fn(|_, _| random());
            for (sparse, reference) in [
                (map.by_states(&whole), whole * dense),
                (map.by_states(&motion), motion * dense.fixed_rows::<12>(0)),
            ] {
                let scale = reference.amax();
                worst = worst.max((sparse - reference).amax() / scale);
            }
        }
        eprintln!("by_states against the dense product: within {worst:.1e} of the largest entry");
        assert!(worst < 1e-15, "{worst:e}");
    }

    fn groups_of(free: &FreeBodies, state: usize) -> usize {
        free.bodies
            .iter()
            .position(|b| (b.q..b.q + 7).contains(&state) || (b.v..b.v + 6).contains(&state))
            .unwrap_or(usize::MAX)
    }

    impl FreeBodies {
        /// Difference increments: 10 nm of position (pressed contacts are 0–0.1 mm deep), 1e-6
        /// of a quaternion component (2 µrad), 1e-5 m/s or rad/s; smaller ones lose digits to
        /// the round-off of forces of kN and of the rotation's conversions.
        fn increment(&self, state: usize) -> f64 {
            let Some(b) = self
                .bodies
                .iter()
                .find(|b| (b.q..b.q + 7).contains(&state) || (b.v..b.v + 6).contains(&state))
            else {
                return 1e-6;
            };
            match state {
                s if s < b.q + 3 => 1e-8,
                s if s < b.q + 7 => 1e-6,
                _ => 1e-5,
            }
        }
    }
}
