//! Contacts in the DAE ([NO19b] §3): signed distances of the collision pairs as zero-crossing
//! functions, and the elastic response of every penetrating pair as loads in the backward pass.
//!
//! The response depends on the present state of the pair alone (its law,
//! [`crate::collision::response`], stores no speed from the contact's start), so a contact that
//! exists at the start time behaves as one that began at an event.

use super::exact_sum::ExactSum;
use super::kinematics::BodyMotion;
use super::mechanism::Mechanism;
use super::residual::Workspace;
use crate::assembly::{CollisionPair, CollisionSet, Role};
use crate::collision::analytic::closest_parameters;
use crate::collision::response::{contact_force, smoothstep, ContactResponse, ContactState};
use crate::collision::{distance, segment_ends, Contact, Core};
use nalgebra::{Isometry3, Rotation3, Translation3, UnitQuaternion, Vector3};

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

/// The response of one pair at the workspace's kinematics, if it penetrates.
pub fn pair_response(
    mechanism: &Mechanism,
    ws: &Workspace,
    index: usize,
) -> Option<(Contact, ContactResponse)> {
    let set = &mechanism.collisions;
    let pair = &set.pairs[index];
    let contact = pair_contact(set, pair, &ws.collider_poses)?;
    if contact.distance >= 0.0 {
        return None;
    }
    let point = contact.point().coords;
    let (v, w) = relative_velocity(set, pair, &ws.motion, &point);
    let state = ContactState::new(&contact, v, w);
    let (a, b) = (&set.colliders[pair.a], &set.colliders[pair.b]);
    let mut response = contact_force(&pair.law, &state);
    if let (Role::Edge(_), Role::Edge(_)) = (a.role, b.role) {
        let weight = edge_weight(set, pair, &ws.collider_poses);
        response.force *= weight;
        response.torque *= weight;
        response.normal_force *= weight;
        response.friction_force *= weight;
    }
    Some((contact, response))
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
pub fn sum_contact_loads(mechanism: &Mechanism, ws: &mut Workspace) {
    ws.contact_loads
        .iter_mut()
        .flatten()
        .for_each(ExactSum::clear);
    for index in 0..mechanism.collisions.pairs.len() {
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
}

/// Adds the summed contact loads to the bodies' loads (inertial-minus-applied convention: the
/// force on b is subtracted from b's load, added to a's).
pub fn apply_contact_loads(ws: &mut Workspace) {
    for (body, sums) in ws.contact_loads.iter().enumerate() {
        ws.force[body] -= Vector3::from_fn(|i, _| sums[i].value());
        ws.torque[body] -= Vector3::from_fn(|i, _| sums[3 + i].value());
    }
}
