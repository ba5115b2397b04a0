//! Contacts in the DAE ([NO19b] §3): signed distances of the collision pairs as zero-crossing
//! functions, and the elastic response of every penetrating pair as loads in the backward pass.
//!
//! **Zero-crossing functions, one per collider.** The pairs near enough to touch come from the
//! near list ([`NearPairs`]); each pair's signed distance and stick–slip switch, times the sign
//! it had at the integrator's last restart ([`Sides`]), is positive until the pair changes, and
//! collider a's function is the least of these over its pairs (a, b). A contact starting or
//! ending, or a pair sticking or slipping, is thus a fall through zero of a continuous function,
//! located by the integrator's root finding; at the event every near pair is compared with its
//! recorded sign ([`process_crossings`]). The number of functions and the work per evaluation
//! follow the colliders and the near pairs, not the square of the colliders.
//!
//! The normal response depends on the present state of the pair alone (its law,
//! [`crate::collision::response`], stores no speed from the contact's start), so a contact that
//! exists at the start time behaves as one that began at an event.
//!
//! **Stick and slip.** The friction of a pair that can stick (`CollisionPair::sticks`) has a
//! discrete state, [`Friction`], changed only at events that the integrator locates. A sliding
//! pair slides by Coulomb's law (μ_k f_n, whatever its speed) and sticks when its slip has come
//! down to the stick speed ([`STICK_SPEED`]): its switching function is the slip along the
//! direction it had at the last restart, v⃗_t · e⃗₀ − v_stick, which falls through zero also
//! where the slip would overshoot zero within a step (an event at which the slip is still fast,
//! its direction having turned, only renews e⃗₀). Sticking anchors the material points of both
//! shapes at the contact point, placed so that the spring starts with the friction force that
//! acted before. A stuck pair slips when its friction force reaches μ_s f_n (switching function
//! μ_s f_n − |f_t|); a pair that has just broken away keeps the regularized law until it slips
//! faster than the stick speed (|v_t| − v_stick rising through zero), and slides from then on.
//!
//! **Rolling and spinning.** A pair with a rounded shape (sphere, capsule, cylinder, …) that can
//! stick (`CollisionPair::rolls`) rolls when it stops slipping: the stiff viscous law of
//! [`SlipLaw::Rolling`] holds its slip below [`ROLLING_SLIP`] while the traction stays below
//! μ_s f_n, and the regularized rolling resistance acts against its turn. Its switching function
//! is μ_s f_n − |f_t|, and for a pair with rolling resistance (`CollisionPair::holds_turn`) the
//! smaller of that and (|ω| / ω_stick − 1) μ_s f_n, ω_stick = half of `w_small`: a rolling ball
//! that slows to rest sticks, anchoring the relative orientation of the two bodies too, and the
//! law holds the turn with an angular spring up to the rolling resistance τ_max = μ_r μ_geo f_n.
//! A stuck rounded pair rolls again when its torque reaches τ_max, and slips when its friction
//! force reaches μ_s f_n; its switching function is the smaller margin, min(μ_s f_n − |f_t|,
//! (τ_max − |τ|) / μ_geo). A ball that rolls is thus never held at a material point that leaves
//! the contact.

use super::exact_sum::ExactSum;
use super::kinematics::BodyMotion;
use super::mechanism::{Mechanism, WORLD_BODY};
use super::pairs::near_margin;
pub use super::pairs::{NearPairs, PairTable, Sides};
use super::residual::{Penetrating, Workspace};
use crate::assembly::{Collider, CollisionPair, CollisionSet, Fade, Role};
use crate::collision::analytic::closest_parameters;
#[cfg(doc)]
use crate::collision::response::ROLLING_SLIP;
use crate::collision::response::{
    contact_force, smoothstep, speed_bands, sticking_damping, ContactResponse, ContactState,
    SlipLaw, LANDING_STICK_FRACTION, PRESLIDING_DISPLACEMENT, STICK_PRELOAD_MARGIN, STICK_SPEED,
    STICK_TURN_FRACTION,
};
use crate::collision::{distance, segment_ends, Contact, Core};
use nalgebra::{Isometry3, Matrix3, Point3, Rotation3, Translation3, UnitQuaternion, Vector3};

/// A body's pose as an isometry (body frame → world).
fn body_pose(motion: &BodyMotion) -> Isometry3<f64> {
    let rotation =
        UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(motion.rotation));
    Isometry3::from_parts(Translation3::from(motion.r), rotation)
}

/// Writes the world pose of every collider at the workspace's kinematics into
/// [`Workspace::collider_poses`]: one rotation-matrix-to-quaternion conversion per body, once
/// per evaluation, instead of two per pair. Called after every forward pass. The colliders on
/// the world ([`WORLD_BODY`]: a table, a floor, walls, with their vertex spheres and edge
/// capsules) never move: their poses are written by the first call and kept (105 of the
/// billiard's 121 colliders).
pub(super) fn update_collider_poses(mechanism: &Mechanism, ws: &mut Workspace) {
    let set = &mechanism.collisions;
    let world_written = ws.collider_poses.len() == set.colliders.len();
    if !world_written {
        ws.collider_poses.clear();
        ws.collider_poses
            .resize(set.colliders.len(), Isometry3::identity());
    }
    let mut body = usize::MAX;
    let mut pose = Isometry3::identity();
    for (slot, collider) in ws.collider_poses.iter_mut().zip(&set.colliders) {
        if world_written && collider.body == WORLD_BODY {
            continue;
        }
        // A body's colliders mostly follow each other (an object's vertex spheres follow its
        // box): its pose is converted again only when the body changes.
        if collider.body != body {
            body = collider.body;
            pose = body_pose(&ws.motion[body]);
        }
        *slot = pose * collider.pose;
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
    pair_contact(
        &mechanism.collisions,
        ws.pairs.get(index),
        &ws.collider_poses,
    )
}

/// The signed distance of a pair. Shapes whose bounding spheres are far apart get the
/// distance of those spheres instead of the narrow phase: positive, continuous enough for root
/// finding, and cheap.
fn pair_distance(set: &CollisionSet, pair: &CollisionPair, ws: &Workspace) -> f64 {
    let motion = &ws.motion;
    let (a, b) = (&set.colliders[pair.a], &set.colliders[pair.b]);
    let ca = motion[a.body].r + motion[a.body].rotation * a.pose.translation.vector;
    let cb = motion[b.body].r + motion[b.body].rotation * b.pose.translation.vector;
    let gap = (cb - ca).norm() - a.shape.bounding_radius() - b.shape.bounding_radius();
    if gap > 0.1 * (a.shape.bounding_radius() + b.shape.bounding_radius()) {
        gap
    } else {
        pair_contact(set, pair, &ws.collider_poses).map_or(gap.max(f64::MIN_POSITIVE), |c| {
            event_distance(set, pair, &ws.collider_poses, &c)
        })
    }
}

/// The distance whose sign change is a pair's contact event: the signed distance, plus, for a
/// feature of a cylinder or a cone, the part of the smaller margin that its weight
/// ([`feature_weight`]) leaves out. Continuous; a feature whose contact does not act (a rim
/// sphere rolling under a cylinder that lies on its side: 25 a second at 5 m/s) makes no events,
/// one whose contact acts in full (a rim sphere of a standing cylinder) makes them at touch.
fn event_distance(
    set: &CollisionSet,
    pair: &CollisionPair,
    poses: &[Isometry3<f64>],
    contact: &Contact,
) -> f64 {
    let (a, b) = (&set.colliders[pair.a], &set.colliders[pair.b]);
    if a.fade == Fade::None && b.fade == Fade::None {
        return contact.distance;
    }
    let margin = a.shape.margin().min(b.shape.margin());
    contact.distance + (1.0 - feature_weight(set, pair, poses, contact)) * margin
}

/// The signed distance of every pair that may have changed since the last restart, at the
/// workspace's kinematics: the near list (made again if a collider moved far enough, or
/// `rebuild`) and the pairs marked at the last restart. As (pair index, distance), the near
/// pairs first.
pub fn near_distances(
    mechanism: &Mechanism,
    ws: &mut Workspace,
    rebuild: bool,
) -> Vec<(usize, f64)> {
    let set = &mechanism.collisions;
    if !set.has_pairs() {
        return Vec::new();
    }
    ws.near_pairs
        .refresh(set, &mut ws.pairs, &ws.collider_poses, rebuild);
    let near = &ws.near_pairs;
    let marked = ws.pairs.marked.iter().filter(|&&id| !near.is_near[id]);
    near.pairs
        .iter()
        .chain(marked)
        .map(|&id| (id, pair_distance(set, ws.pairs.get(id), ws)))
        .collect()
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
/// communication interval). At the workspace's kinematics.
///
/// The distance of two shapes changes no faster than the relative speed of their material
/// points, V = |v_b − v_a| + |ω_a|·ρ_a + |ω_b|·ρ_b at the colliders' origins with the sweep
/// radii ρ, and V grows at most by A = |a_b − a_a| + (|α_a| + |ω_a|²)·ρ_a + (…)_b. A pair at
/// gap d may travel d plus [`PASS_FRACTION`] of its pass-through width w: the pair's bound is
/// the τ with V·τ + ½·A·τ² = d + w/4, times [`BOUND_SAFETY`]; pairs already in contact give
/// none (their separation is a sign change too).
///
/// Only the pairs whose bounding spheres are closer than a width W are visited (the grid
/// broad phase, O(colliders)): a pair farther apart cannot touch while each of its colliders
/// moves less than W/2, so every collider that has a partner beyond W (fewer pairs within W
/// than [`CollisionSet::partners`]) also bounds the step by the time it takes to move W/2.
/// W starts at the colliders' mean bounding radius and doubles while that term is the smallest:
/// a few bodies far apart get the bound of their closest pair, as if every pair were visited.
pub fn separation_time_bound(mechanism: &Mechanism, ws: &Workspace) -> f64 {
    let set = &mechanism.collisions;
    let count = set.colliders.len();
    if !set.has_pairs() || ws.collider_poses.len() != count {
        return f64::INFINITY;
    }
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
    // The positive root of ½·A·τ² + V·τ − budget, in the form that stays exact for A → 0.
    let time = |speed: f64, acceleration: f64, budget: f64| {
        2.0 * budget / (speed + (speed * speed + 2.0 * acceleration * budget).sqrt())
    };
    let motions: Vec<_> = (0..count).map(point).collect();
    let centres: Vec<Vector3<f64>> = ws
        .collider_poses
        .iter()
        .map(|p| p.translation.vector)
        .collect();
    let extent = centres
        .iter()
        .fold(0.0_f64, |m, c| m.max(c.amax()))
        .max(f64::MIN_POSITIVE);
    let mut width = 2.0 * near_margin(set);
    for _ in 0..64 {
        let radii: Vec<f64> = set
            .colliders
            .iter()
            .map(|c| c.shape.bounding_radius() + 0.5 * width)
            .collect();
        let candidates =
            crate::collision::sphere_pairs(&centres, &radii, |a, b| !set.may_collide(a, b));
        let mut within = vec![0usize; count];
        let mut pairs_bound = f64::INFINITY;
        for &(a, b) in &candidates {
            let Some(pair) = set.pair(a, b) else {
                continue;
            };
            within[a] += 1;
            within[b] += 1;
            let d = pair_distance(set, &pair, ws);
            if d.is_nan() || d <= 0.0 {
                continue;
            }
            let (va, aa, sa, ta) = motions[a];
            let (vb, ab, sb, tb) = motions[b];
            let speed = (vb - va).norm() + sa + sb;
            let acceleration = (ab - aa).norm() + ta + tb;
            let pass =
                2.0 * (set.colliders[a].shape.inradius() + set.colliders[b].shape.inradius());
            pairs_bound = pairs_bound.min(time(speed, acceleration, d + PASS_FRACTION * pass));
        }
        let far_bound = (0..count)
            .filter(|&c| within[c] < set.partners(c))
            .map(|c| {
                let (v, a, s, t) = motions[c];
                time(v.norm() + s, a.norm() + t, 0.5 * width)
            })
            .fold(f64::INFINITY, f64::min);
        // Wider only while the far term decides, and while the pairs visited stay few.
        let widen =
            far_bound < pairs_bound && width < 4.0 * extent && candidates.len() < 16 * count;
        if !widen {
            return BOUND_SAFETY * pairs_bound.min(far_bound);
        }
        width *= 2.0;
    }
    // Unreachable for finite positions (the width passes the scene's extent first).
    0.0
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
pub fn start_penetration_limit(set: &CollisionSet, pair: &CollisionPair) -> f64 {
    let smaller = set.colliders[pair.a]
        .shape
        .inradius()
        .min(set.colliders[pair.b].shape.inradius());
    MAX_START_PENETRATION.min(MAX_START_PENETRATION_FRACTION * smaller)
}

/// The pairs that penetrate at the workspace's kinematics, with their narrow-phase result;
/// `distances` from [`near_distances`] at the same kinematics.
pub fn penetrating_pairs(
    mechanism: &Mechanism,
    ws: &Workspace,
    distances: &[(usize, f64)],
) -> Vec<(usize, Contact)> {
    let set = &mechanism.collisions;
    distances
        .iter()
        .filter(|(_, d)| *d < 0.0)
        .filter_map(|&(index, _)| {
            let contact = pair_contact(set, ws.pairs.get(index), &ws.collider_poses)?;
            (contact.distance < 0.0).then_some((index, contact))
        })
        .collect()
}

/// The friction state of a collision pair that can stick.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Friction {
    /// Sliding, or apart. `armed`: the pair has slipped faster than the stick speed since it
    /// last broke away (or never stuck), so it slides by Coulomb's law and sticks when its slip
    /// along `direction` falls to the stick speed; unarmed, it keeps the regularized law.
    /// `direction`: the unit slip direction at the last restart (world), zero where the pair
    /// did not slip then.
    Slipping {
        armed: bool,
        direction: Vector3<f64>,
        /// Broke loose from rolling between two movable bodies: arms only above half of
        /// `v_small` ([`arm_speed`]).
        rolled: bool,
    },
    /// Rolling without slip (pairs that roll, `CollisionPair::rolls`): the slip is held by a
    /// stiff viscous law ([`SlipLaw::Rolling`]). `armed`: the pair turned faster than the rest
    /// speed when its turn broke loose or at a restart since (or it started rolling by stopping
    /// a slide), so turning slower than that makes it stick; unarmed, its turn is not watched (a
    /// pair whose turn broke loose while slower would otherwise stick again at once).
    Rolling { armed: bool },
    /// Stuck: the anchored material points, in the frames of the bodies of collider a and b,
    /// and the orientation of b's body in a's body frame when the pair stuck (held by pairs that
    /// hold their turn, `CollisionPair::holds_turn`).
    Stuck {
        on_a: Vector3<f64>,
        on_b: Vector3<f64>,
        turn: UnitQuaternion<f64>,
    },
}

impl Friction {
    /// A pair that slips, armed or not, with no direction yet.
    pub fn slipping(armed: bool) -> Friction {
        Friction::Slipping {
            armed,
            direction: Vector3::zeros(),
            rolled: false,
        }
    }
}

/// The tangential law of pair `pair` in friction state `friction`, while it does not stick.
pub fn slip_law(pair: &CollisionPair, friction: &Friction) -> SlipLaw {
    match friction {
        _ if !pair.sticks => SlipLaw::Regularized,
        Friction::Slipping { armed: true, .. } => SlipLaw::Coulomb,
        Friction::Rolling { .. } => SlipLaw::Rolling,
        Friction::Slipping { armed: false, .. } | Friction::Stuck { .. } => SlipLaw::Regularized,
    }
}

/// The rotation vector (axis times angle, |angle| ≤ π) of the rotation matrix `m`, accurate
/// for small angles too (the angle from atan2 of the skew and symmetric parts, not from an
/// arccosine).
pub(super) fn rotation_vector(m: &Matrix3<f64>) -> Vector3<f64> {
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
        Friction::slipping(true)
    }
}

/// A penetrating pair at the workspace's kinematics: its contact, state and response.
struct PairEvaluation {
    contact: Contact,
    state: ContactState,
    response: ContactResponse,
    /// The share of the law's response that acts ([`feature_weight`]).
    weight: f64,
}

/// The evaluation of pair `index`, if it penetrates.
fn evaluate_pair(mechanism: &Mechanism, ws: &Workspace, index: usize) -> Option<PairEvaluation> {
    let set = &mechanism.collisions;
    let pair = ws.pairs.get(index);
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
    state.slip = slip_law(pair, &ws.pairs.frictions[index]);
    if let Friction::Stuck { on_a, on_b, turn } = ws.pairs.frictions[index] {
        let (ma, mb) = (&ws.motion[a.body], &ws.motion[b.body]);
        state.anchor_offset = Some((mb.r + mb.rotation * on_b) - (ma.r + ma.rotation * on_a));
        if pair.holds_turn {
            // b's orientation now against where a's would have carried it since the stick.
            let held = ma.rotation * turn.to_rotation_matrix().into_inner();
            state.anchor_turn = Some(rotation_vector(&(mb.rotation * held.transpose())));
        }
    }
    let mut response = contact_force(&pair.law, &state);
    let weight = feature_weight(set, pair, &ws.collider_poses, &contact);
    if weight != 1.0 {
        response.force *= weight;
        response.torque *= weight;
        response.normal_force *= weight;
        response.friction_force *= weight;
    }
    Some(PairEvaluation {
        contact,
        state,
        response,
        weight,
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

/// The tangential slip velocity of an evaluated pair [m/s].
fn slip_velocity(evaluation: &PairEvaluation) -> Vector3<f64> {
    let n = evaluation.state.normal.into_inner();
    let v = evaluation.state.relative_velocity;
    v - n * v.dot(&n)
}

/// The relative turn below which a rounded pair with rolling resistance counts as at rest
/// [rad/s].
fn stick_turn_speed(pair: &CollisionPair) -> f64 {
    STICK_TURN_FRACTION * pair.law.w_small
}

/// The slip speed above which a pair that broke away slides by Coulomb's law (and may stick
/// again when it stops) [m/s]: the stick speed, and half of `v_small` for a pair of two movable
/// bodies that broke loose from rolling. Below it the pair keeps the regularized law: a
/// rolling contact inside a heap, which its neighbours' pushes break loose, does not roll and
/// break again at every micrometre per second (a pour of 36 balls: several times the steps),
/// while a ball or wheel rolling on a fixed floor keeps sliding by Coulomb's law down to its
/// next roll.
fn arm_speed(pair: &CollisionPair, rolled_between_bodies: bool) -> f64 {
    if rolled_between_bodies {
        LANDING_STICK_FRACTION * pair.law.v_small
    } else {
        STICK_SPEED
    }
}

/// How far a slipping pair is from stopping [m/s]: its slip along `direction` (its slip speed
/// where `direction` is zero) less the stick speed. Negative when it has stopped, or where its
/// slip has turned away from `direction`.
fn stop_excess(evaluation: &PairEvaluation, direction: &Vector3<f64>) -> f64 {
    let slip = slip_velocity(evaluation);
    let along = if *direction == Vector3::zeros() {
        slip.norm()
    } else {
        slip.dot(direction)
    };
    along - STICK_SPEED
}

/// How far a stuck or rolling pair is from slipping [N]: μ_s f_n − |f_t|.
fn traction_margin(pair: &CollisionPair, evaluation: &PairEvaluation) -> f64 {
    pair.law.mu_s * evaluation.response.normal_force - evaluation.response.friction_force
}

/// How far a stuck pair that holds its turn is from rolling [N]: (τ_max − |τ|) / μ_geo
/// (infinite for a pair that holds no turn).
fn turn_margin(pair: &CollisionPair, evaluation: &PairEvaluation) -> f64 {
    if !pair.holds_turn {
        return f64::INFINITY;
    }
    let (law, response) = (&pair.law, &evaluation.response);
    law.mu_r * response.normal_force - response.torque.norm() / law.geometry.mu_geo
}

/// How far a rolling pair with rolling resistance is from coming to rest [N]:
/// (|ω| / ω_stick − 1) μ_s f_n (infinite for a pair that holds no turn).
fn rest_margin(pair: &CollisionPair, evaluation: &PairEvaluation) -> f64 {
    if !pair.holds_turn {
        return f64::INFINITY;
    }
    let turning = evaluation.state.relative_angular_velocity.norm() / stick_turn_speed(pair);
    (turning - 1.0) * pair.law.mu_s * evaluation.response.normal_force
}

/// The turn's part of a rolling pair's switching function [N]: armed, the rest margin (falls
/// through zero as the pair comes to rest); unarmed (its turn has just broken loose while it
/// turned slower than the rest speed), none: it arms at a later restart at which it turns
/// faster than the rest speed.
fn turn_switch(pair: &CollisionPair, evaluation: &PairEvaluation, armed: bool) -> f64 {
    if armed {
        rest_margin(pair, evaluation)
    } else {
        f64::INFINITY
    }
}

/// The stick–slip switching function of pair `id` at the workspace's kinematics, whose signed
/// distance is `distance` (module documentation): the traction and turn margins while it
/// sticks, the traction and rest margins while it rolls, the stop excess while it slips; 1
/// while apart or for a pair that cannot stick.
fn friction_switch(mechanism: &Mechanism, ws: &Workspace, id: usize, distance: f64) -> f64 {
    let pair = ws.pairs.get(id);
    if !pair.sticks || distance >= 0.0 {
        return 1.0;
    }
    let friction = ws.pairs.frictions[id];
    // A feature whose contact does not act (a rim sphere under a cylinder lying on its side)
    // switches nothing.
    let Some(e) = evaluate_pair(mechanism, ws, id).filter(|e| e.weight > 0.0) else {
        return 1.0;
    };
    match friction {
        Friction::Stuck { .. } => traction_margin(pair, &e).min(turn_margin(pair, &e)),
        Friction::Rolling { armed } => traction_margin(pair, &e).min(turn_switch(pair, &e, armed)),
        Friction::Slipping {
            armed: true,
            direction,
            ..
        } => stop_excess(&e, &direction),
        Friction::Slipping {
            armed: false,
            rolled,
            ..
        } => slip_velocity(&e).norm() - arm_speed(pair, rolled),
    }
}

/// The sign recorded for a value whose sign was `before` at the last restart: −1 below zero,
/// +1 above, `before` at exactly zero (a value at zero has not crossed yet, see
/// [`crossing_functions`]).
fn side(before: i8, value: f64) -> i8 {
    if value < 0.0 {
        -1
    } else if value > 0.0 {
        1
    } else {
        before
    }
}

/// The sign recorded for a pair's signed distance `d` whose sign was `before` at the last
/// restart: −1 while it penetrates, and while it was in contact and its shapes have parted by
/// less than the pair's hold gap ([`PairTable::hold_gap`]); +1 apart; `before` at exactly zero.
fn distance_side(before: i8, d: f64, hold_gap: f64) -> i8 {
    if before < 0 && d < hold_gap {
        -1
    } else {
        side(before, d)
    }
}

/// Whether a pair recorded in contact (`distance_side` −1) is held across a gap: its shapes
/// apart, its contact not ended.
fn held_apart(side: i8, d: f64) -> bool {
    side < 0 && d >= 0.0
}

/// The zero-crossing functions, one per collider (module documentation): collider a's is the
/// least of its pairs' (a, b) signed distance and (in contact since the last restart) stick–slip
/// switch, each times its sign at the last restart, and of the near list's cap
/// ([`NearPairs::cap`]), which every pair off the list exceeds: so the functions depend on the
/// state alone, not on when the list was made. The switch of a pair that was apart at the last
/// restart is left out also once it penetrates: its start is the distance's crossing, an event
/// that sets its friction state, and the switch there (−v_stick for a pair landing without
/// slip) would make the function jump at that root, where the root finding converges slowly
/// (tests/tests/landing_root_search.rs). A value of exactly zero is left out: one pair touching zero at a restart would make
/// its collider's whole function zero there, which the integrator sets aside for a step (as it
/// does any function that starts at zero), missing the other pairs' crossings in that step; left
/// out, the root finding locates a crossing where the value is past zero. `distances` from
/// [`near_distances`].
pub fn crossing_functions(
    mechanism: &Mechanism,
    ws: &Workspace,
    distances: &[(usize, f64)],
    out: &mut [f64],
) {
    out.fill(ws.near_pairs.cap());
    for &(id, d) in distances {
        let pair = ws.pairs.get(id);
        let sides = ws.pairs.sides[id];
        // In contact: the gap's rise through the hold gap (module documentation).
        let mut value = if sides.distance < 0 {
            ws.pairs.hold_gap(id) - d
        } else {
            d
        };
        if pair.sticks && sides.distance < 0 && d < 0.0 {
            let switch = f64::from(sides.switch) * friction_switch(mechanism, ws, id, d);
            if switch != 0.0 {
                value = value.min(switch);
            }
        }
        if value == 0.0 {
            continue;
        }
        if let Some(slot) = out.get_mut(pair.a) {
            // A NaN wins, so that the integrator hears of it.
            *slot = if value.is_nan() {
                value
            } else {
                slot.min(value)
            };
        }
    }
}

/// What changed at an event: how many contacts started and ended, and how many pairs stuck
/// or slipped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Crossings {
    pub starts: usize,
    pub ends: usize,
    pub switches: usize,
}

/// At a restart (an event, the start, an input jump): compares every near and marked pair with
/// its sign at the last restart, updates the friction states of the pairs that changed, and
/// records the signs now. A contact that started (distance fell through zero) and is slower
/// than the stick speed sticks; a stuck pair whose switch fell through zero slips; a slipping
/// pair whose switch fell through zero sticks if armed, and one whose switch rose through zero
/// is armed; a pair that is apart is cleared. At the start every pair in contact counts as
/// started.
pub fn process_crossings(mechanism: &Mechanism, ws: &mut Workspace) -> Crossings {
    let distances = near_distances(mechanism, ws, false);
    let mut crossings = Crossings::default();
    let mut changes = Vec::with_capacity(distances.len());
    for &(id, d) in &distances {
        let sides = ws.pairs.sides[id];
        let switch = friction_switch(mechanism, ws, id, d);
        let direction = |before: i8, now: i8| match (before, now) {
            (1, -1) => -1,
            (-1, 1) => 1,
            _ => 0,
        };
        let now = distance_side(sides.distance, d, ws.pairs.hold_gap(id));
        let contact = direction(sides.distance, now);
        let switched = direction(sides.switch, side(sides.switch, switch));
        crossings.starts += usize::from(contact < 0);
        crossings.ends += usize::from(contact > 0);
        // A contact held across a gap keeps its friction state: it has no force to judge by.
        if !held_apart(now, d) {
            changes.push((id, contact, switched));
        }
    }
    for &(id, contact, switched) in &changes {
        if update_friction(mechanism, ws, id, contact < 0, switched) {
            crossings.switches += 1;
        }
    }
    record_sides(mechanism, ws, &distances);
    crossings
}

/// Records the signs of the pairs of `distances` (from [`near_distances`]) as they are now,
/// with the present friction states; every other pair is recorded apart. Without changing any
/// friction state: for a restored state, whose friction states are saved with it.
pub fn record_sides(mechanism: &Mechanism, ws: &mut Workspace, distances: &[(usize, f64)]) {
    let before: Vec<Sides> = distances
        .iter()
        .map(|&(id, _)| ws.pairs.sides[id])
        .collect();
    for &id in &ws.pairs.marked {
        ws.pairs.sides[id] = Sides::default();
    }
    ws.pairs.marked.clear();
    for (&(id, d), old) in distances.iter().zip(before) {
        let switch = friction_switch(mechanism, ws, id, d);
        let sides = Sides {
            distance: distance_side(old.distance, d, ws.pairs.hold_gap(id)),
            switch: side(old.switch, switch),
        };
        ws.pairs.sides[id] = sides;
        if sides != Sides::default() {
            ws.pairs.marked.push(id);
        }
    }
}

/// Updates the friction state of pair `id` (see [`process_crossings`] and the module
/// documentation); true when it stuck, rolled or slipped.
fn update_friction(
    mechanism: &Mechanism,
    ws: &mut Workspace,
    id: usize,
    started: bool,
    switched: i32,
) -> bool {
    let pair = ws.pairs.get(id).clone();
    if !pair.sticks {
        return false;
    }
    let Some(evaluation) = evaluate_pair(mechanism, ws, id).filter(|e| e.weight > 0.0) else {
        ws.pairs.frictions[id] = Friction::default();
        return false;
    };
    let slip = slip_velocity(&evaluation);
    let sliding = Friction::Slipping {
        armed: true,
        direction: slip.try_normalize(0.0).unwrap_or_else(Vector3::zeros),
        rolled: false,
    };
    let before = ws.pairs.frictions[id];
    let after = match before {
        Friction::Stuck { .. } if switched < 0 => {
            if turn_margin(&pair, &evaluation) < traction_margin(&pair, &evaluation) {
                // Its turn broke loose. Turning faster than the rest speed already (its
                // damper reached the limit: a part rocking on its contacts), it rests again
                // when it slows down; turning slower (its spring reached the limit: a ball that
                // a steepening slope starts rolling), not before it has turned faster.
                Friction::Rolling {
                    armed: rest_margin(&pair, &evaluation) > 0.0,
                }
            } else {
                Friction::slipping(false)
            }
        }
        Friction::Rolling { armed } if switched < 0 => {
            let turn = turn_switch(&pair, &evaluation, armed);
            if traction_margin(&pair, &evaluation) <= turn {
                let set = &mechanism.collisions;
                let on_world = set.colliders[pair.a].body == WORLD_BODY
                    || set.colliders[pair.b].body == WORLD_BODY;
                Friction::Slipping {
                    armed: false,
                    direction: Vector3::zeros(),
                    rolled: !on_world,
                }
            } else {
                stuck(mechanism, ws, &pair, &evaluation)
            }
        }
        Friction::Rolling { armed: false } if rest_margin(&pair, &evaluation) > 0.0 => {
            Friction::Rolling { armed: true }
        }
        Friction::Stuck { .. } | Friction::Rolling { .. } => before,
        Friction::Slipping { armed, .. } if started || (armed && switched < 0) => {
            // Stopped: slower than twice the stick speed (after a fall along the old
            // direction the slip's other components have shrunk with it); a contact that
            // starts slower than the landing stick speed is caught by the sticking spring.
            // Else still sliding, in a direction that has turned.
            let speed = slip.norm();
            let stopped = speed <= 2.0 * STICK_SPEED;
            let caught = started && speed <= LANDING_STICK_FRACTION * pair.law.v_small;
            let turning = !(pair.holds_turn
                && evaluation.state.relative_angular_velocity.norm() < stick_turn_speed(&pair));
            match () {
                _ if pair.rolls && turning => {
                    if stopped {
                        Friction::Rolling { armed: true }
                    } else {
                        sliding
                    }
                }
                _ if stopped || caught => stuck(mechanism, ws, &pair, &evaluation),
                _ => sliding,
            }
        }
        Friction::Slipping { armed, .. } if armed || switched > 0 => sliding,
        Friction::Slipping { .. } => before,
    };
    // A pair that broke away slides once it slips faster than the arm speed: at this restart
    // already, or when its slip rises through it.
    let after = match after {
        Friction::Slipping {
            armed: false,
            rolled,
            ..
        } if slip.norm() > arm_speed(&pair, rolled) => sliding,
        other => other,
    };
    ws.pairs.frictions[id] = after;
    let kind = |f: &Friction| std::mem::discriminant(f);
    kind(&before) != kind(&after)
}

/// The stuck state of a pair that sticks now: its anchors at the contact point, b's ahead of a's
/// by the offset at which the sticking law gives the friction force that acts now (at most
/// μ_s f_n (1 − [`STICK_PRELOAD_MARGIN`])), and the orientation of b relative to a.
fn stuck(
    mechanism: &Mechanism,
    ws: &Workspace,
    pair: &CollisionPair,
    evaluation: &PairEvaluation,
) -> Friction {
    let set = &mechanism.collisions;
    let law = &pair.law;
    let state = &evaluation.state;
    let n = state.normal.into_inner();
    // The law's own force (an edge pair's weight scales the sticking law alike).
    let response = contact_force(law, state);
    let (force, f_n) = (response.force, response.normal_force);
    let mut friction = force - n * force.dot(&n);
    let limit = (1.0 - STICK_PRELOAD_MARGIN) * law.mu_s * f_n;
    if friction.norm() > limit {
        friction *= limit / friction.norm();
    }
    // f_t = −k Δ − c v_t with k = μ_s f_n / d and c = STICK_DAMPING μ_s f_n / v_small.
    let offset = if f_n > 0.0 {
        let stiffness = law.mu_s * f_n / PRESLIDING_DISPLACEMENT;
        let damping = sticking_damping(law) * f_n;
        -(friction + slip_velocity(evaluation) * damping) / stiffness
    } else {
        Vector3::zeros()
    };
    let point = evaluation.contact.point().coords;
    let (ma, mb) = (
        &ws.motion[set.colliders[pair.a].body],
        &ws.motion[set.colliders[pair.b].body],
    );
    let turn = ma.rotation.transpose() * mb.rotation;
    Friction::Stuck {
        on_a: ma.rotation.transpose() * (point - offset - ma.r),
        on_b: mb.rotation.transpose() * (point - mb.r),
        turn: UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(turn)),
    }
}

/// Below this sine of the angle between two edges they count as parallel (10°).
pub(super) const SIN_PARALLEL: f64 = 0.17;

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

/// Below this cosine of the angle between a rim's axis and a contact normal, a flat base
/// touches face-on (10°): its rim spheres hold it, not its rim disc.
pub(super) const COS_FACE_ON: f64 = 0.985;

/// How much of a pair's contact acts: the weight of two edges ([`edge_weight`], or
/// [`side_weight`] where one is the side of a cylinder or a cone), times each collider's
/// [`Fade`] by the contact normal (a rim sphere acts face-on, a rim disc off the face).
fn feature_weight(
    set: &CollisionSet,
    pair: &CollisionPair,
    poses: &[Isometry3<f64>],
    contact: &Contact,
) -> f64 {
    let (a, b) = (&set.colliders[pair.a], &set.colliders[pair.b]);
    let n = contact.normal.into_inner();
    let mut weight = match (a.role, b.role) {
        (Role::Edge(_), Role::Edge(_)) if a.fade == Fade::Side || b.fade == Fade::Side => {
            side_weight(set, pair, poses, contact)
        }
        (Role::Edge(_), Role::Edge(_)) => edge_weight(set, pair, poses),
        _ => 1.0,
    };
    for (collider, pose) in [(a, &poses[pair.a]), (b, &poses[pair.b])] {
        match collider.fade {
            Fade::FaceOn => weight *= 1.0 - off_face(pose, &n),
            Fade::OffFace => weight *= off_face(pose, &n),
            Fade::None | Fade::Side => {}
        }
    }
    weight
}

/// 0 where the normal `n` lies along the z axis of `pose` (within [`COS_FACE_ON`]), 1 from
/// about 10° off it, C¹ between.
fn off_face(pose: &Isometry3<f64>, n: &Vector3<f64>) -> f64 {
    let axis = pose.rotation * Vector3::z();
    smoothstep((1.0 - axis.dot(n).abs()) / (1.0 - COS_FACE_ON))
}

/// How much of an edge contact with the side of a cylinder or a cone acts: none where the
/// edges lie along each other (within about 10°; a cylinder lying along a table's edge rests
/// on its rim discs), none within one margin of a rim, an apex or an edge's end (their own
/// features touch there), none where a flat base touches face-on.
fn side_weight(
    set: &CollisionSet,
    pair: &CollisionPair,
    poses: &[Isometry3<f64>],
    contact: &Contact,
) -> f64 {
    let n = contact.normal.into_inner();
    // The core points that touch: each surface point less the margin along its outward normal
    // (n for a, −n for b).
    let (a, b) = (&set.colliders[pair.a], &set.colliders[pair.b]);
    let core_a = contact.point_a - n * a.shape.margin();
    let core_b = contact.point_b + n * b.shape.margin();
    let (da, wa) = edge_view(a, &poses[pair.a], &core_a, &n);
    let (db, wb) = edge_view(b, &poses[pair.b], &core_b, &n);
    smoothstep(da.cross(&db).norm() / SIN_PARALLEL) * wa * wb
}

/// An edge at the core point `core` that touches: its world direction there (unit: a segment's
/// or a cylinder's axis, a cone's generator) and how much of the contact its ends, rims, apex
/// and faces leave to it.
fn edge_view(
    collider: &Collider,
    pose: &Isometry3<f64>,
    core: &Point3<f64>,
    n: &Vector3<f64>,
) -> (Vector3<f64>, f64) {
    let local = pose.inverse_transform_point(core);
    let margin = collider.shape.margin();
    let axis = pose.rotation * Vector3::z();
    match *collider.shape.core() {
        Core::Segment { half_length } => (axis, smoothstep((half_length - local.z.abs()) / margin)),
        Core::Cylinder { half_length, .. } => (
            axis,
            smoothstep((half_length - local.z.abs()) / margin) * off_face(pose, n),
        ),
        Core::Cone { radius, base, apex } => {
            let radial = Vector3::new(local.x, local.y, 0.0)
                .try_normalize(0.0)
                .unwrap_or_else(Vector3::x);
            let rim = radial * radius + Vector3::z() * base;
            let generator = (Vector3::z() * apex - rim)
                .try_normalize(0.0)
                .unwrap_or_else(Vector3::z);
            let from_apex = (local.coords - Vector3::z() * apex).norm();
            (
                pose.rotation * generator,
                smoothstep((local.z - base) / margin)
                    * smoothstep(from_apex / margin)
                    * off_face(pose, n),
            )
        }
        _ => (axis, 1.0),
    }
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
    ws.near_pairs.refresh(
        &mechanism.collisions,
        &mut ws.pairs,
        &ws.collider_poses,
        false,
    );
    let near = std::mem::take(&mut ws.near_pairs.pairs);
    ws.penetrating.clear();
    for &index in &near {
        // A feature whose contact does not act loads nothing, and its speed bands do not
        // matter to the iteration matrix.
        let Some(PairEvaluation {
            contact,
            state,
            response,
            ..
        }) = evaluate_pair(mechanism, ws, index).filter(|e| e.weight > 0.0)
        else {
            continue;
        };
        let pair = ws.pairs.get(index);
        let (a, b) = (pair.a, pair.b);
        ws.penetrating.push(Penetrating {
            pair: index,
            bands: speed_bands(&pair.law, &state),
        });
        let point = contact.point().coords;
        for (collider, sign) in [(b, 1.0), (a, -1.0)] {
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
        let n = set.colliders.len();
        let pairs: Vec<CollisionPair> = (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .filter_map(|(a, b)| set.pair(a, b))
            .collect();
        let pair = pairs
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
