//! Contacts in the DAE ([NO19b] §3): signed distances of the collision pairs as zero-crossing
//! functions, and the elastic response of every penetrating pair as loads in the backward pass.
//!
//! The normal response depends on the present state of the pair alone (its law,
//! [`crate::collision::response`], stores no speed from the contact's start), so a contact that
//! exists at the start time behaves as one that began at an event.
//!
//! **Stick and slip.** The friction of a pair that can stick (`CollisionPair::sticks`) has a
//! discrete state, [`Friction`], changed only at events that the integrator locates: a pair
//! slipping slower than the stick speed (half of `v_small`) sticks, anchoring the material points
//! of both shapes at the contact point; a stuck pair whose friction force reaches μ_s f_n slips.
//! Each such pair has one switching function after the signed distances: μ_s f_n − |f_t| while
//! it sticks, |v_t| − v_stick while it slips ([`friction_switches`]).
//!
//! **Rolling and spinning.** A pair with a rounded shape (sphere, capsule, cylinder, …) that can
//! stick (`CollisionPair::holds_turn`) sticks only when it neither slips nor turns: slower than
//! the stick speed and turning relative to the other shape slower than half of `w_small`. It
//! then anchors the relative orientation of the two bodies too, and the law holds the turn with
//! an angular spring up to the rolling resistance τ_max = μ_r μ_geo f_n. It slips when either
//! limit is reached; its switching function is the smaller margin, min(μ_s f_n − |f_t|,
//! (τ_max − |τ|) / μ_geo), while it sticks, and the larger excess, max(|v_t| − v_stick,
//! (|ω| / ω_stick − 1) v_stick), while it slips. A ball that rolls is thus never held at a
//! material point that leaves the contact.

use super::exact_sum::ExactSum;
use super::kinematics::BodyMotion;
use super::mechanism::Mechanism;
use super::residual::Workspace;
use crate::assembly::{CollisionPair, CollisionSet, Role};
use crate::collision::analytic::closest_parameters;
use crate::collision::response::STICK_SPEED_FRACTION;
use crate::collision::response::{contact_force, smoothstep, ContactResponse, ContactState};
use crate::collision::{distance, segment_ends, Contact, Core};
use nalgebra::{Isometry3, Matrix3, Rotation3, Translation3, UnitQuaternion, Vector3};

/// A body's pose as an isometry (body frame → world).
fn body_pose(motion: &BodyMotion) -> Isometry3<f64> {
    let rotation =
        UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(motion.rotation));
    Isometry3::from_parts(Translation3::from(motion.r), rotation)
}

/// Writes the world pose of every collider at the workspace's kinematics into
/// [`Workspace::collider_poses`]: one rotation-matrix-to-quaternion conversion per body, once
/// per evaluation, instead of two per pair. Called after every forward pass.
pub(super) fn update_collider_poses(mechanism: &Mechanism, ws: &mut Workspace) {
    let set = &mechanism.collisions;
    ws.collider_poses.clear();
    let mut body = usize::MAX;
    let mut pose = Isometry3::identity();
    for collider in &set.colliders {
        // A body's colliders mostly follow each other (an object's vertex spheres follow its
        // box): its pose is converted again only when the body changes.
        if collider.body != body {
            body = collider.body;
            pose = body_pose(&ws.motion[body]);
        }
        ws.collider_poses.push(pose * collider.pose);
    }
}

/// The narrow-phase result of one pair at the colliders' `poses`.
fn pair_contact(
    set: &CollisionSet,
    pair: &CollisionPair,
    poses: &[Isometry3<f64>],
) -> Option<Contact> {
    let (a, b) = (&set.colliders[pair.a], &set.colliders[pair.b]);
    distance(&a.shape, &poses[pair.a], &b.shape, &poses[pair.b]).ok()
}

/// Velocity of b's material point at `point` minus a's, and b's angular velocity minus a's.
fn relative_velocity(
    set: &CollisionSet,
    pair: &CollisionPair,
    motion: &[BodyMotion],
    point: &Vector3<f64>,
) -> (Vector3<f64>, Vector3<f64>) {
    let (ma, mb) = (
        &motion[set.colliders[pair.a].body],
        &motion[set.colliders[pair.b].body],
    );
    let va = ma.v + ma.w.cross(&(point - ma.r));
    let vb = mb.v + mb.w.cross(&(point - mb.r));
    (vb - va, mb.w - ma.w)
}

/// The narrow-phase result of pair `index` at the workspace's kinematics (for outputs).
pub fn pair_contact_at(mechanism: &Mechanism, ws: &Workspace, index: usize) -> Option<Contact> {
    let set = &mechanism.collisions;
    pair_contact(set, &set.pairs[index], &ws.collider_poses)
}

/// The signed distance of every pair (zero-crossing functions). Shapes whose bounding spheres
/// are far apart get the distance of those spheres instead of the narrow phase: positive,
/// continuous enough for root finding, and cheap.
pub fn distances(mechanism: &Mechanism, ws: &Workspace, out: &mut [f64]) {
    let set = &mechanism.collisions;
    let motion = &ws.motion;
    for (value, pair) in out.iter_mut().zip(&set.pairs) {
        let (a, b) = (&set.colliders[pair.a], &set.colliders[pair.b]);
        let ca = motion[a.body].r + motion[a.body].rotation * a.pose.translation.vector;
        let cb = motion[b.body].r + motion[b.body].rotation * b.pose.translation.vector;
        let gap = (cb - ca).norm() - a.shape.bounding_radius() - b.shape.bounding_radius();
        *value = if gap > 0.1 * (a.shape.bounding_radius() + b.shape.bounding_radius()) {
            gap
        } else {
            pair_contact(set, pair, &ws.collider_poses)
                .map_or(gap.max(f64::MIN_POSITIVE), |c| c.distance)
        };
    }
}

/// What part of a pair's pass-through width (the least width of the two shapes together, at
/// least twice the sum of their inradii) a step may carry the pair beyond first touch: a
/// quarter, so that a pair that touched during the step still overlaps at its end, where the
/// signed distance is negative and the integrator's root finding locates the touch.
const PASS_FRACTION: f64 = 0.25;

/// The bound below is computed with the speeds and accelerations at its start; halving it
/// leaves room for accelerations that grow during the step (springs, drives, a contact that
/// starts elsewhere on the body).
const BOUND_SAFETY: f64 = 0.5;

/// A time over which no pair that is separated now can pass through the other shape
/// (conservative advancement): the integrator is not let past it, so every touch is seen as a
/// sign change of a signed distance at the end of a step, however smooth the free flight
/// before it (in free flight IDA's error estimate vanishes and its step would grow to the whole
/// communication interval). `distances` are the pairs' signed distances at the workspace's
/// kinematics (from [`distances`]).
///
/// The distance of two shapes changes no faster than the relative speed of their material
/// points, V = |v_b − v_a| + |ω_a|·ρ_a + |ω_b|·ρ_b at the colliders' origins with the sweep
/// radii ρ, and V grows at most by A = |a_b − a_a| + (|α_a| + |ω_a|²)·ρ_a + (…)_b. A pair at
/// gap d may travel d plus [`PASS_FRACTION`] of its pass-through width w: the bound is the τ
/// with V·τ + ½·A·τ² = d + w/4, times [`BOUND_SAFETY`]. Pairs far apart give long bounds, so a
/// scene with nothing near pays one pass over its pairs per bound; pairs already in contact
/// give none (their separation is a sign change too).
pub fn separation_time_bound(mechanism: &Mechanism, ws: &Workspace, distances: &[f64]) -> f64 {
    let set = &mechanism.collisions;
    let point = |collider: usize| {
        let collider = &set.colliders[collider];
        let m = &ws.motion[collider.body];
        let arm = m.rotation * collider.pose.translation.vector;
        let velocity = m.v + m.w.cross(&arm);
        let acceleration = m.a + m.alpha.cross(&arm) + m.w.cross(&m.w.cross(&arm));
        let sweep = collider.shape.sweep_radius();
        let turning_speed = m.w.norm() * sweep;
        let turning_acceleration = (m.alpha.norm() + m.w.norm_squared()) * sweep;
        (velocity, acceleration, turning_speed, turning_acceleration)
    };
    let mut bound = f64::INFINITY;
    for (pair, &d) in set.pairs.iter().zip(distances) {
        if d.is_nan() || d <= 0.0 {
            continue;
        }
        let (va, aa, sa, ta) = point(pair.a);
        let (vb, ab, sb, tb) = point(pair.b);
        let speed = (vb - va).norm() + sa + sb;
        let acceleration = (ab - aa).norm() + ta + tb;
        let width =
            2.0 * (set.colliders[pair.a].shape.inradius() + set.colliders[pair.b].shape.inradius());
        let budget = d + PASS_FRACTION * width;
        // The positive root of ½·A·τ² + V·τ − budget, in the form that stays exact for A → 0.
        let tau = 2.0 * budget / (speed + (speed * speed + 2.0 * acceleration * budget).sqrt());
        bound = bound.min(tau);
    }
    BOUND_SAFETY * bound
}

/// The deepest penetration two shapes may start with: `MAX_START_PENETRATION` [m], and at most
/// [`MAX_START_PENETRATION_FRACTION`] of the smaller inradius of the two. Enough for positions
/// rounded in a model file, or a part placed at its resting depth; a deeper start stores an
/// elastic energy that would fling the parts apart (a Hertz steel ball of 5 cm pressed 4 mm into
/// wood holds 1.5 kJ), or lets the shapes' cores overlap, where the contact geometry no longer
/// holds.
pub const MAX_START_PENETRATION: f64 = 1e-4;
/// See [`MAX_START_PENETRATION`].
pub const MAX_START_PENETRATION_FRACTION: f64 = 0.1;

/// The deepest penetration pair `pair` may start with (see [`MAX_START_PENETRATION`]).
pub fn start_penetration_limit(mechanism: &Mechanism, pair: usize) -> f64 {
    let set = &mechanism.collisions;
    let pair = &set.pairs[pair];
    let smaller = set.colliders[pair.a]
        .shape
        .inradius()
        .min(set.colliders[pair.b].shape.inradius());
    MAX_START_PENETRATION.min(MAX_START_PENETRATION_FRACTION * smaller)
}

/// The pairs that penetrate at the workspace's kinematics, with their narrow-phase result;
/// `distances` from [`distances`] at the same kinematics.
pub fn penetrating_pairs(
    mechanism: &Mechanism,
    ws: &Workspace,
    distances: &[f64],
) -> Vec<(usize, Contact)> {
    let set = &mechanism.collisions;
    distances
        .iter()
        .enumerate()
        .filter(|(_, d)| **d < 0.0)
        .filter_map(|(index, _)| {
            let contact = pair_contact(set, &set.pairs[index], &ws.collider_poses)?;
            (contact.distance < 0.0).then_some((index, contact))
        })
        .collect()
}

/// The friction state of a collision pair that can stick.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Friction {
    /// Sliding, or apart. `armed`: the pair has slipped faster than the stick speed since it
    /// last broke away (or never stuck), so slowing below the stick speed makes it stick.
    Slipping { armed: bool },
    /// Stuck: the anchored material points, in the frames of the bodies of collider a and b,
    /// and the orientation of b's body in a's body frame when the pair stuck (held by pairs that
    /// hold their turn, `CollisionPair::holds_turn`).
    Stuck {
        on_a: Vector3<f64>,
        on_b: Vector3<f64>,
        turn: UnitQuaternion<f64>,
    },
}

/// The rotation vector (axis times angle, |angle| ≤ π) of the rotation matrix `m`, accurate
/// for small angles too (the angle from atan2 of the skew and symmetric parts, not from an
/// arccosine).
fn rotation_vector(m: &Matrix3<f64>) -> Vector3<f64> {
    let skew = 0.5
        * Vector3::new(
            m[(2, 1)] - m[(1, 2)],
            m[(0, 2)] - m[(2, 0)],
            m[(1, 0)] - m[(0, 1)],
        );
    let sine = skew.norm();
    let cosine = 0.5 * (m.trace() - 1.0);
    let angle = sine.atan2(cosine);
    if sine > 0.0 {
        skew * (angle / sine)
    } else {
        Vector3::zeros()
    }
}

impl Default for Friction {
    fn default() -> Self {
        Friction::Slipping { armed: true }
    }
}

/// A penetrating pair at the workspace's kinematics: its contact, state and response.
struct PairEvaluation {
    contact: Contact,
    state: ContactState,
    response: ContactResponse,
}

/// The evaluation of pair `index`, if it penetrates.
fn evaluate_pair(mechanism: &Mechanism, ws: &Workspace, index: usize) -> Option<PairEvaluation> {
    let set = &mechanism.collisions;
    let pair = &set.pairs[index];
    // Shapes whose bounding spheres are apart cannot penetrate: most pairs of a scene of many
    // bodies end here, without the narrow phase.
    let (a, b) = (&set.colliders[pair.a], &set.colliders[pair.b]);
    let (pa, pb) = (&ws.collider_poses[pair.a], &ws.collider_poses[pair.b]);
    let reach = a.shape.bounding_radius() + b.shape.bounding_radius();
    if (pb.translation.vector - pa.translation.vector).norm_squared() > reach * reach {
        return None;
    }
    let contact = pair_contact(set, pair, &ws.collider_poses)?;
    if contact.distance >= 0.0 {
        return None;
    }
    let point = contact.point().coords;
    let (v, w) = relative_velocity(set, pair, &ws.motion, &point);
    let mut state = ContactState::new(&contact, v, w);
    if let Friction::Stuck { on_a, on_b, turn } = ws.frictions[index] {
        let (ma, mb) = (&ws.motion[a.body], &ws.motion[b.body]);
        state.anchor_offset = Some((mb.r + mb.rotation * on_b) - (ma.r + ma.rotation * on_a));
        if pair.holds_turn {
            // b's orientation now against where a's would have carried it since the stick.
            let held = ma.rotation * turn.to_rotation_matrix().into_inner();
            state.anchor_turn = Some(rotation_vector(&(mb.rotation * held.transpose())));
        }
    }
    let mut response = contact_force(&pair.law, &state);
    if let (Role::Edge(_), Role::Edge(_)) = (a.role, b.role) {
        let weight = edge_weight(set, pair, &ws.collider_poses);
        response.force *= weight;
        response.torque *= weight;
        response.normal_force *= weight;
        response.friction_force *= weight;
    }
    Some(PairEvaluation {
        contact,
        state,
        response,
    })
}

/// The response of one pair at the workspace's kinematics, if it penetrates.
pub fn pair_response(
    mechanism: &Mechanism,
    ws: &Workspace,
    index: usize,
) -> Option<(Contact, ContactResponse)> {
    evaluate_pair(mechanism, ws, index).map(|e| (e.contact, e.response))
}

/// The slip speed below which a slipping pair sticks [m/s].
fn stick_speed(mechanism: &Mechanism, index: usize) -> f64 {
    STICK_SPEED_FRACTION * mechanism.collisions.pairs[index].law.v_small
}

/// The tangential slip speed of an evaluated pair [m/s].
fn slip_speed(evaluation: &PairEvaluation) -> f64 {
    let n = evaluation.state.normal.into_inner();
    let v = evaluation.state.relative_velocity;
    (v - n * v.dot(&n)).norm()
}

/// How far a slipping pair is from sticking [m/s]: |v_t| − v_stick, and for a pair that holds
/// its turn the larger of that and (|ω| / ω_stick − 1) v_stick, ω_stick = half of `w_small`.
/// Negative when the pair is slow enough to stick.
fn stick_excess(mechanism: &Mechanism, index: usize, evaluation: &PairEvaluation) -> f64 {
    let pair = &mechanism.collisions.pairs[index];
    let v_stick = stick_speed(mechanism, index);
    let sliding = slip_speed(evaluation) - v_stick;
    if !pair.holds_turn {
        return sliding;
    }
    let w_stick = STICK_SPEED_FRACTION * pair.law.w_small;
    let turning = evaluation.state.relative_angular_velocity.norm() / w_stick - 1.0;
    sliding.max(turning * v_stick)
}

/// How far a stuck pair is from slipping [N]: μ_s f_n − |f_t|, and for a pair that holds its
/// turn the smaller of that and (μ_r μ_geo f_n − |τ|) / μ_geo.
fn slip_margin(mechanism: &Mechanism, index: usize, evaluation: &PairEvaluation) -> f64 {
    let pair = &mechanism.collisions.pairs[index];
    let (law, response) = (&pair.law, &evaluation.response);
    let sliding = law.mu_s * response.normal_force - response.friction_force;
    if !pair.holds_turn {
        return sliding;
    }
    let lever = law.geometry.mu_geo;
    let turning = law.mu_r * response.normal_force - response.torque.norm() / lever;
    sliding.min(turning)
}

/// The stick–slip switching function of every pair that can stick
/// (`CollisionSet::sticking`, in order) at the workspace's kinematics: μ_s f_n − |f_t| while it
/// sticks, |v_t| − v_stick while it slips (with the turn's margins for pairs that hold their
/// turn, see the module documentation), 1 while apart. `distances` from [`distances`].
pub fn friction_switches(
    mechanism: &Mechanism,
    ws: &Workspace,
    distances: &[f64],
    out: &mut [f64],
) {
    let set = &mechanism.collisions;
    for (value, &index) in out.iter_mut().zip(&set.sticking) {
        let evaluation = (distances[index] < 0.0)
            .then(|| evaluate_pair(mechanism, ws, index))
            .flatten();
        *value = match (evaluation, ws.frictions[index]) {
            (None, _) => 1.0,
            (Some(e), Friction::Stuck { .. }) => slip_margin(mechanism, index, &e),
            (Some(e), Friction::Slipping { .. }) => stick_excess(mechanism, index, &e),
        };
    }
}

/// Updates the friction states at an event: `contact_directions` are the crossing directions
/// of the signed distances (per pair; −1: a contact starts, +1: it ends, 0: neither) and
/// `switch_directions` those of [`friction_switches`] (per sticking pair). A stuck pair whose
/// switch fell through zero slips; a slipping pair whose switch fell through zero sticks if
/// armed, and one whose switch rose through zero is armed; a contact that starts slower than
/// the stick speed sticks; a contact that ends is cleared. At the start time, pass −1 for every
/// pair in contact.
pub fn update_frictions(
    mechanism: &Mechanism,
    ws: &mut Workspace,
    contact_directions: &[i32],
    switch_directions: &[i32],
) {
    let set = &mechanism.collisions;
    for (k, &index) in set.sticking.iter().enumerate() {
        let switched = switch_directions.get(k).copied().unwrap_or(0);
        let started = contact_directions.get(index).copied().unwrap_or(0) < 0;
        let Some(evaluation) = evaluate_pair(mechanism, ws, index) else {
            ws.frictions[index] = Friction::default();
            continue;
        };
        let slow = stick_excess(mechanism, index, &evaluation) <= 0.0;
        let stick = match ws.frictions[index] {
            Friction::Stuck { .. } if switched < 0 => Some(false),
            Friction::Stuck { .. } => None,
            Friction::Slipping { armed } if (started || (armed && switched < 0)) && slow => {
                Some(true)
            }
            Friction::Slipping { .. } if switched > 0 => {
                ws.frictions[index] = Friction::Slipping { armed: true };
                None
            }
            Friction::Slipping { .. } => None,
        };
        match stick {
            Some(true) => {
                let pair = &set.pairs[index];
                let point = evaluation.contact.point().coords;
                let (ma, mb) = (
                    &ws.motion[set.colliders[pair.a].body],
                    &ws.motion[set.colliders[pair.b].body],
                );
                let turn = ma.rotation.transpose() * mb.rotation;
                ws.frictions[index] = Friction::Stuck {
                    on_a: ma.rotation.transpose() * (point - ma.r),
                    on_b: mb.rotation.transpose() * (point - mb.r),
                    turn: UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(
                        turn,
                    )),
                };
            }
            Some(false) => ws.frictions[index] = Friction::Slipping { armed: false },
            None => {}
        }
    }
}

/// Below this sine of the angle between two edges they count as parallel (10°).
const SIN_PARALLEL: f64 = 0.17;

/// How much of an edge–edge contact acts: 1 where the edges cross at an angle, away from their
/// ends; fading to 0 (C¹) within one margin of either edge's end, where the vertex sphere there
/// takes over, and for edges within about 10° of parallel, which lie along each other as on a
/// face, where the vertex spheres hold the box.
fn edge_weight(set: &CollisionSet, pair: &CollisionPair, poses: &[Isometry3<f64>]) -> f64 {
    let (a, b) = (&set.colliders[pair.a], &set.colliders[pair.b]);
    let (Core::Segment { half_length: ha }, Core::Segment { half_length: hb }) =
        (a.shape.core(), b.shape.core())
    else {
        return 1.0;
    };
    let (p0, p1) = segment_ends(&poses[pair.a], *ha);
    let (q0, q1) = segment_ends(&poses[pair.b], *hb);
    let (s, t) = closest_parameters(&p0, &p1, &q0, &q1);
    let (da, db) = (p1 - p0, q1 - q0);
    let sin = da.cross(&db).norm() / (da.norm() * db.norm()).max(f64::MIN_POSITIVE);
    let inside = |u: f64, length: f64, margin: f64| smoothstep(u.min(1.0 - u) * length / margin);
    smoothstep(sin / SIN_PARALLEL)
        * inside(s, 2.0 * ha, a.shape.margin())
        * inside(t, 2.0 * hb, b.shape.margin())
}

/// Sums the contact loads of every penetrating pair per body into `ws.contact_loads`. Each
/// body's loads are summed exactly ([`ExactSum`]), so that the result does not depend on the
/// order of the pairs: in a mirror-symmetric scene a body and its mirror image get
/// mirror-image loads to the last bit.
///
/// Only the pairs of the near list ([`NearPairs`]) are evaluated: the others cannot penetrate.
pub fn sum_contact_loads(mechanism: &Mechanism, ws: &mut Workspace) {
    ws.contact_loads
        .iter_mut()
        .flatten()
        .for_each(ExactSum::clear);
    ws.near_pairs
        .refresh(&mechanism.collisions, &ws.collider_poses);
    let near = std::mem::take(&mut ws.near_pairs.pairs);
    for &index in &near {
        let Some((contact, response)) = pair_response(mechanism, ws, index) else {
            continue;
        };
        let pair = &mechanism.collisions.pairs[index];
        let point = contact.point().coords;
        for (collider, sign) in [(pair.b, 1.0), (pair.a, -1.0)] {
            let body = mechanism.collisions.colliders[collider].body;
            let arm = point - ws.motion[body].r;
            let force = response.force * sign;
            let torque = arm.cross(&force) + response.torque * sign;
            let sums = &mut ws.contact_loads[body];
            for i in 0..3 {
                sums[i].add(force[i]);
                sums[3 + i].add(torque[i]);
            }
        }
    }
    ws.near_pairs.pairs = near;
}

/// The collision pairs near enough to penetrate (a Verlet list, as molecular dynamics keeps
/// one): the pairs whose bounding spheres were less than `margin` apart when the list was
/// made. As long as no collider's centre has moved `margin / 2` since, a pair not on the list
/// is still apart by its bounding spheres and cannot penetrate, so the contact loads need only
/// the list. Checking the displacements is O(colliders) per evaluation; the list is made again
/// (O(pairs)) only when some collider moved that far, so a residual evaluation of a scene of
/// many bodies no longer visits every pair. The loads are the same to the last bit (the pairs
/// left out contribute nothing, and the per-body sums are exact, whatever the order).
#[derive(Debug, Clone, Default)]
pub struct NearPairs {
    /// Ascending pair indices.
    pairs: Vec<usize>,
    /// Every collider's centre when the list was made (empty: not made yet).
    centres: Vec<Vector3<f64>>,
    margin: f64,
    /// How many times the list was made (for tests and statistics).
    pub rebuilds: u64,
}

impl NearPairs {
    /// Makes the list again when it has not been made or a collider has moved half the margin.
    fn refresh(&mut self, set: &CollisionSet, poses: &[Isometry3<f64>]) {
        let centre = |k: usize| poses[k].translation.vector;
        let moved =
            self.centres.len() != poses.len()
                || self.centres.iter().enumerate().any(|(k, c)| {
                    (centre(k) - c).norm_squared() >= 0.25 * self.margin * self.margin
                });
        if !moved {
            return;
        }
        if self.centres.len() != poses.len() {
            self.margin = near_margin(set);
        }
        self.centres.clear();
        self.centres.extend((0..poses.len()).map(centre));
        self.pairs.clear();
        for (index, pair) in set.pairs.iter().enumerate() {
            let (a, b) = (&set.colliders[pair.a], &set.colliders[pair.b]);
            let reach = a.shape.bounding_radius() + b.shape.bounding_radius() + self.margin;
            if (centre(pair.b) - centre(pair.a)).norm_squared() < reach * reach {
                self.pairs.push(index);
            }
        }
        self.rebuilds += 1;
    }
}

/// The near list's margin: half the mean bounding radius of the colliders (a ball may travel
/// a quarter of its radius before the list is made again).
fn near_margin(set: &CollisionSet) -> f64 {
    let count = set.colliders.len().max(1) as f64;
    let mean = set
        .colliders
        .iter()
        .map(|c| c.shape.bounding_radius())
        .sum::<f64>()
        / count;
    0.5 * mean
}

/// Adds the summed contact loads to the bodies' loads (inertial-minus-applied convention: the
/// force on b is subtracted from b's load, added to a's).
pub fn apply_contact_loads(ws: &mut Workspace) {
    for (body, sums) in ws.contact_loads.iter().enumerate() {
        ws.force[body] -= Vector3::from_fn(|i, _| sums[i].value());
        ws.torque[body] -= Vector3::from_fn(|i, _| sums[3 + i].value());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assembly::Assembly;
    use crate::scene::Scene;
    use nalgebra::Vector3;

    /// The rotation vector of a rotation matrix: nalgebra's axis and angle, down to angles
    /// where an arccosine loses the digits (1e-9 rad), and back to the same matrix near π.
    #[test]
    fn rotation_vectors_by_hand() {
        // Near π the axis comes from a skew part of size sin(angle): fewer digits.
        for (angle, tolerance) in [
            (1e-12, 1e-26),
            (1e-9, 1e-23),
            (1e-4, 1e-18),
            (0.5, 1e-15),
            (3.0, 1e-14),
            (std::f64::consts::PI - 1e-6, 1e-9),
        ] {
            let axis = Vector3::new(0.3, -0.5, 0.8).normalize();
            let m = Rotation3::from_axis_angle(&nalgebra::Unit::new_normalize(axis), angle);
            let v = rotation_vector(m.matrix());
            let error = (v - axis * angle).norm();
            assert!(error < tolerance, "angle {angle}: off by {error:e}");
        }
        assert_eq!(rotation_vector(&Matrix3::identity()), Vector3::zeros());
    }

    /// Two boxes, for their edge capsules (smoothing radius 1 mm).
    fn two_boxes() -> CollisionSet {
        let spec = crate::model::load_str_with(
            r#"
            object a { shape box { lengths = [1, 0.1, 0.1] m }; mass { m = 1 kg; inertia = diag(1, 1, 1) kg.m2 }; contact { material = steel } }
            object b { shape box { lengths = [1, 0.1, 0.1] m }; mass { m = 1 kg; inertia = diag(1, 1, 1) kg.m2 }; contact { material = steel } }
            joint ja free { from = world; to = a }
            joint jb free { from = world; to = b; position = [0, 1, 0] }
            "#,
            "boxes.m3d",
            &[],
        )
        .expect("model");
        let scene = Scene::from_spec(&spec).expect("scene");
        let assembly = Assembly::build(&scene).expect("assembly");
        CollisionSet::build(&scene, &assembly).expect("collision set")
    }

    /// The weight of an edge–edge contact, by hand: 1 for edges crossing at a right angle away
    /// from their ends; smoothstep(d / margin) within one margin d of an end; smoothstep(sin θ /
    /// sin 10°) for edges at a small angle θ; the product of the three factors.
    #[test]
    fn edge_weight_by_hand() {
        let set = two_boxes();
        let pair = set
            .pairs
            .iter()
            .find(|p| {
                matches!(
                    (set.colliders[p.a].role, set.colliders[p.b].role),
                    (Role::Edge(_), Role::Edge(_))
                ) && matches!(set.colliders[p.a].shape.core(), Core::Segment { half_length } if *half_length > 0.4)
                    && matches!(set.colliders[p.b].shape.core(), Core::Segment { half_length } if *half_length > 0.4)
            })
            .expect("two long edges");
        let Core::Segment { half_length: ha } = *set.colliders[pair.a].shape.core() else {
            unreachable!()
        };
        let margin = set.colliders[pair.a].shape.margin();
        assert_eq!(margin, 1e-3, "the default smoothing radius");
        let mut poses = vec![Isometry3::identity(); set.colliders.len()];
        // Edge a along z from −ha to ha at the origin; edge b crossing it at a point `at` along a,
        // turned by `angle` from a's direction about y, its middle at the crossing.
        let weight = |at: f64, angle: f64, poses: &mut Vec<Isometry3<f64>>| {
            poses[pair.a] = Isometry3::identity();
            poses[pair.b] = Isometry3::new(Vector3::new(0.0, 0.002, at), Vector3::y() * angle);
            edge_weight(&set, pair, poses)
        };
        let right = std::f64::consts::FRAC_PI_2;
        assert!((weight(0.0, right, &mut poses) - 1.0).abs() < 1e-12);
        // Half a margin from a's end: smoothstep(0.5) = 0.5.
        let w = weight(ha - 0.5 * margin, right, &mut poses);
        assert!((w - 0.5).abs() < 1e-9, "{w}");
        // A quarter of a margin: smoothstep(0.25) = 0.15625.
        let w = weight(-ha + 0.25 * margin, right, &mut poses);
        assert!((w - 0.15625).abs() < 1e-9, "{w}");
        // At 5°, sin 5° / 0.17: the smoothstep of 0.5127.
        let angle = 5f64.to_radians();
        let expected = smoothstep(angle.sin() / SIN_PARALLEL);
        let w = weight(0.0, angle, &mut poses);
        assert!((w - expected).abs() < 1e-9, "{w} vs {expected}");
        // Half a margin from b's end (b turned a right angle about y runs along x).
        let Core::Segment { half_length: hb } = *set.colliders[pair.b].shape.core() else {
            unreachable!()
        };
        poses[pair.b] = Isometry3::new(
            Vector3::new(-(hb - 0.5 * margin), 0.002, 0.0),
            Vector3::y() * right,
        );
        let w = edge_weight(&set, pair, &poses);
        assert!((w - 0.5).abs() < 1e-9, "{w}");
        // Both factors at once multiply.
        let w = weight(ha - 0.5 * margin, angle, &mut poses);
        assert!(
            (w - 0.5 * expected).abs() < 1e-6,
            "{w} vs {}",
            0.5 * expected
        );
    }
}
