//! The exact derivative of one contact pair's loads with respect to the motion of its two
//! bodies: the narrow phase's distance, normal and contact point (closed forms of rounded
//! points, of a sphere on a box, of two edge capsules and of a rim disc on a box's face), the
//! relative velocities and anchors at the contact point, the weights of edge–edge contacts and
//! of the faded features of cylinders and cones, and the contact law
//! ([`contact_force_derivative`]), chained by hand.
//!
//! The motion of a body is varied by a world displacement dp of its origin, a small world
//! rotation dθ, and world changes dv, dω of its velocity and angular velocity: 12 columns per
//! body, [`PAIR_COLUMNS`] for the pair (collider a's body first). A material point at x then
//! moves by dp − [x − r]× dθ.
//!
//! The narrow phase is differentiated where it is smooth: the distance's derivative is the
//! relative motion of the two witness points along the normal; the normal of two rounded
//! points turns with their relative motion across it, the normal of a sphere inside a box's
//! core with the box; a closest point on a box slides along the face or edge it lies on, a
//! closest point on an edge along the edge (the closest-point conditions differentiated); a
//! rim disc's touching point slides along its rim as the face's normal and the disc's axis turn.
//! Pairs of other shapes (capsules, whole cylinders and cones, ellipsoids, two boxes: the
//! support-map refinement; a rim disc on a box's edge or corner) are [`Unsupported`].

use super::super::contacts::{rotation_vector, slip_law, Friction, COS_FACE_ON, SIN_PARALLEL};
use super::super::kinematics::BodyMotion;
use crate::assembly::{Collider, CollisionPair, CollisionSet, Fade, Role};
use crate::collision::analytic::{closest_parameters, contact_on_box_face};
use crate::collision::response::{
    contact_force, contact_force_derivative, smoothstep, smoothstep_slope, ContactState,
    ContactStateDerivative,
};
use crate::collision::{segment_ends, Contact, Core, Shape};
use nalgebra::{Isometry3, Matrix3, Point3, SMatrix, Unit, Vector3};

/// Columns of a pair's derivatives: per body (collider a's, then b's) position, rotation,
/// velocity and angular velocity, 3 each.
pub const PAIR_COLUMNS: usize = 24;
/// Where a body's columns start within its 12: position, rotation, velocity, angular velocity.
const POSITION: usize = 0;
const ROTATION: usize = 3;
const VELOCITY: usize = 6;
const ANGULAR_VELOCITY: usize = 9;

/// The derivative of a world vector with respect to the pair's columns.
pub type Lin3 = SMatrix<f64, 3, PAIR_COLUMNS>;
/// The derivative of a scalar with respect to the pair's columns.
type Lin1 = SMatrix<f64, 1, PAIR_COLUMNS>;

/// A pair of shapes whose narrow phase has no closed-form derivative here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unsupported;

/// [x]×: the matrix of the cross product x × ·.
pub fn skew(x: &Vector3<f64>) -> Matrix3<f64> {
    Matrix3::new(0.0, -x.z, x.y, x.z, 0.0, -x.x, -x.y, x.x, 0.0)
}

/// Whether the pairs the set can form have derivatives here: spheres (and the vertex spheres
/// of boxes and mesh hulls, the rim spheres and apexes of cylinders and cones) against spheres
/// and boxes, the rim discs of cylinders and cones on the faces of boxes, edge capsules against
/// edge capsules; no ellipsoids, no capsules of their own (they meet spheres and boxes through
/// the support-map refinement), and no two boxes or hulls that may collide. A cylinder or a
/// cone meets boxes through its features; a pair with the whole shape or its side (a sphere on
/// it, its side across a box's edge), or a rim disc on a box's edge or corner, has no
/// derivative, and the mechanism goes to difference quotients once one penetrates.
pub fn supported(set: &CollisionSet) -> bool {
    let mut boxes = Vec::new();
    for (c, collider) in set.colliders.iter().enumerate() {
        match (collider.shape.core(), collider.role) {
            (Core::Segment { .. }, Role::Edge(_)) | (Core::Point, _) => {}
            (Core::Cylinder { .. } | Core::Cone { .. }, Role::Hull | Role::Edge(_)) => {}
            _ if is_rim_disc(collider) => {}
            // A mesh's hull meets other shapes through its vertex spheres and edges, whose
            // pairs have derivatives; a pair with the hull itself (a sphere on it) has none,
            // and its evaluation falls back to difference quotients while it touches.
            (Core::Box { .. } | Core::Hull(_), _) => boxes.push(c),
            _ => return false,
        }
    }
    boxes
        .iter()
        .enumerate()
        .all(|(i, &a)| boxes[i + 1..].iter().all(|&b| !set.may_collide(a, b)))
}

/// Whether `collider` is the rim disc of a cylinder or a cone (a disc core that takes the
/// contacts where the rim touches at one point).
fn is_rim_disc(collider: &Collider) -> bool {
    matches!(
        (collider.shape.core(), collider.fade),
        (Core::Cylinder { half_length, .. }, Fade::OffFace) if *half_length == 0.0
    )
}

/// Whether this pair's narrow phase has a derivative here (see [`supported`]).
fn supported_pair(set: &CollisionSet, pair: &CollisionPair) -> bool {
    let (a, b) = (&set.colliders[pair.a], &set.colliders[pair.b]);
    let edge = matches!(a.role, Role::Edge(_)) || matches!(b.role, Role::Edge(_));
    match (a.shape.core(), b.shape.core()) {
        (Core::Point, Core::Point)
        | (Core::Point, Core::Box { .. })
        | (Core::Box { .. }, Core::Point) => !edge,
        (Core::Segment { .. }, Core::Segment { .. }) => {
            matches!((a.role, b.role), (Role::Edge(_), Role::Edge(_)))
        }
        (Core::Cylinder { .. }, Core::Box { .. }) => is_rim_disc(a),
        (Core::Box { .. }, Core::Cylinder { .. }) => is_rim_disc(b),
        _ => false,
    }
}

/// The derivatives of one penetrating pair's loads: the force on b's body and its torque
/// about b's origin, the opposite force on a's body and its torque about a's origin.
#[derive(Debug, Clone, PartialEq)]
pub struct PairLoads {
    pub force_a: Lin3,
    pub torque_a: Lin3,
    pub force_b: Lin3,
    pub torque_b: Lin3,
}

/// One body of the pair: its motion and the first of its 12 columns.
struct Side<'a> {
    motion: &'a BodyMotion,
    column: usize,
}

impl Side<'_> {
    /// The columns `offset..offset + 3` of this body set to `block`.
    fn block(&self, offset: usize, block: &Matrix3<f64>) -> Lin3 {
        let mut d = Lin3::zeros();
        d.fixed_view_mut::<3, 3>(0, self.column + offset)
            .copy_from(block);
        d
    }

    /// The motion of the material point at world `x`: dp − [x − r]× dθ.
    fn material(&self, x: &Vector3<f64>) -> Lin3 {
        self.block(POSITION, &Matrix3::identity())
            + self.block(ROTATION, &-skew(&(x - self.motion.r)))
    }

    /// dθ.
    fn rotation(&self) -> Lin3 {
        self.block(ROTATION, &Matrix3::identity())
    }

    /// dω.
    fn angular_velocity(&self) -> Lin3 {
        self.block(ANGULAR_VELOCITY, &Matrix3::identity())
    }

    /// The velocity of this body's material point at world `x`, v + ω × (x − r), and its
    /// derivative when x itself moves by `dx`.
    fn point_velocity(&self, x: &Vector3<f64>, dx: &Lin3) -> (Vector3<f64>, Lin3) {
        let m = self.motion;
        let arm = x - m.r;
        let velocity = m.v + m.w.cross(&arm);
        let d = self.block(VELOCITY, &Matrix3::identity())
            + self.block(ANGULAR_VELOCITY, &-skew(&arm))
            + skew(&m.w) * (dx - self.block(POSITION, &Matrix3::identity()));
        (velocity, d)
    }
}

/// A contact and the derivatives of its distance, normal and contact point.
struct Geometry {
    contact: Contact,
    distance: Lin1,
    normal: Lin3,
    point: Lin3,
}

/// Two balls of radii `ra`, `rb` around the core points `a`, `b` moving by `da`, `db` (as
/// `contact_of_rounded_points`). Coincident points keep their normal (+x), which does not turn.
fn rounded_points(
    a: &Vector3<f64>,
    da: &Lin3,
    ra: f64,
    b: &Vector3<f64>,
    db: &Lin3,
    rb: f64,
) -> Geometry {
    let gap = b - a;
    let length = gap.norm();
    let d_gap = db - da;
    let (n, d_normal) = if length > 0.0 {
        let n = gap / length;
        (
            n,
            (Matrix3::identity() - n * n.transpose()) * d_gap / length,
        )
    } else {
        (Vector3::x(), Lin3::zeros())
    };
    let contact = Contact {
        distance: length - ra - rb,
        point_a: Point3::from(a + n * ra),
        point_b: Point3::from(b - n * rb),
        normal: Unit::new_unchecked(n),
    };
    Geometry {
        contact,
        distance: n.transpose() * d_gap,
        normal: d_normal,
        point: (da + db + d_normal * (ra - rb)) * 0.5,
    }
}

/// A sphere (centre `centre` on `sphere`, radius `radius`) and a box (`pose`, core half
/// extents `h`, rounded by `margin`, on `boxed`), as `distance_sphere_box`: normal from the
/// sphere to the box.
fn sphere_box(
    sphere: &Side,
    centre: &Vector3<f64>,
    radius: f64,
    boxed: &Side,
    pose: &Isometry3<f64>,
    h: &Vector3<f64>,
    margin: f64,
) -> Geometry {
    let rotation = pose.rotation.to_rotation_matrix().into_inner();
    let c = pose.inverse_transform_point(&Point3::from(*centre));
    let q = Point3::new(
        c.x.clamp(-h.x, h.x),
        c.y.clamp(-h.y, h.y),
        c.z.clamp(-h.z, h.z),
    );
    // The centre's motion relative to the box, in world axes.
    let d_centre = sphere.material(centre);
    let relative = d_centre - boxed.material(centre);
    if (c - q).norm() > 0.0 {
        // The closest core point slides along the face or edge it lies on (the coordinates
        // that are not clamped follow the centre).
        let free =
            Matrix3::from_diagonal(&Vector3::from_fn(
                |i, _| {
                    if c[i].abs() < h[i] {
                        1.0
                    } else {
                        0.0
                    }
                },
            ));
        let on_core = pose * q;
        let d_core =
            boxed.material(&on_core.coords) + rotation * free * rotation.transpose() * relative;
        return rounded_points(centre, &d_centre, radius, &on_core.coords, &d_core, margin);
    }
    // The centre inside the core: the nearest face, whose normal turns with the box.
    let slack = Vector3::new(h.x - c.x.abs(), h.y - c.y.abs(), h.z - c.z.abs());
    let k = slack.imin();
    let sign = if c[k] < 0.0 { -1.0 } else { 1.0 };
    let mut outward = Vector3::zeros();
    outward[k] = sign;
    let mut on_face = c;
    on_face[k] = sign * (h[k] + margin);
    let n = rotation * -outward;
    let d_normal = -skew(&n) * boxed.rotation();
    let d_local = rotation.transpose() * relative;
    let distance = Lin1::from_fn(|_, j| sign * d_local[(k, j)]);
    let point_b = pose * on_face;
    let mut across = Matrix3::identity();
    across[(k, k)] = 0.0;
    let d_point_b =
        boxed.material(&point_b.coords) + rotation * across * rotation.transpose() * relative;
    let d_point_a = d_centre + d_normal * radius;
    Geometry {
        contact: Contact {
            distance: -(slack[k] + radius + margin),
            point_a: Point3::from(centre + n * radius),
            point_b,
            normal: Unit::new_unchecked(n),
        },
        distance,
        normal: d_normal,
        point: (d_point_a + d_point_b) * 0.5,
    }
}

/// A rim disc (`shape`: centre and axis z of `pose`, on `disc`, core radius `radius`, rounded by
/// its margin) on the face of a box (`box_pose`, core half extents `h`, rounded by `box_margin`,
/// on `boxed`) that `contact` (the narrow phase's, normal from the disc to the box) touches, as
/// `contact_on_box_face`; [`Unsupported`] where the contact is not a face contact (an edge or
/// a corner of the box). The normal is the face's and turns with the box; the disc touches at
/// its rim point s = c + r·u farthest along the normal, u the unit projection of the normal
/// onto the disc's plane, which slides along the rim as the normal and the axis turn:
/// du = (I − uuᵀ)·d(Pn)/|Pn|, P = I − zzᵀ.
#[allow(clippy::too_many_arguments)]
fn disc_on_box_face(
    disc: &Side,
    shape: &Shape,
    pose: &Isometry3<f64>,
    radius: f64,
    boxed: &Side,
    box_pose: &Isometry3<f64>,
    h: &Vector3<f64>,
    box_margin: f64,
    contact: &Contact,
) -> Result<Geometry, Unsupported> {
    let margin = shape.margin();
    let exact = contact_on_box_face(shape, pose, box_pose, h, box_margin, &contact.normal)
        .ok_or(Unsupported)?;
    let n = exact.normal.into_inner();
    let centre = pose.translation.vector;
    let z = pose.rotation * Vector3::z();
    let d_normal = -skew(&n) * boxed.rotation();
    let d_axis = -skew(&z) * disc.rotation();
    let along = n - z * z.dot(&n);
    let length = along.norm();
    if length <= 0.0 {
        // Face-on: the rim has no single point nearest the face (and the disc's weight is 0).
        return Err(Unsupported);
    }
    let u = along / length;
    let d_along = d_normal
        - z * (z.transpose() * d_normal)
        - z * (n.transpose() * d_axis)
        - d_axis * z.dot(&n);
    let d_u = (Matrix3::identity() - u * u.transpose()) * d_along / length;
    let rim = centre + u * radius;
    let d_rim = disc.material(&centre) + d_u * radius;
    // The rim point's projection onto the box core's face, q = s + n·height, moves with the
    // box; the height of s above that face is −n·(s − q).
    let height = exact.distance + margin + box_margin;
    let on_face = rim + n * height;
    let distance = n.transpose() * (boxed.material(&on_face) - d_rim);
    let d_on_face = d_rim + d_normal * height + n * distance;
    Ok(Geometry {
        contact: exact,
        distance,
        normal: d_normal,
        point: (d_rim + d_on_face) * 0.5 + d_normal * (0.5 * (margin - box_margin)),
    })
}

/// The narrow phase of the pair's colliders and its derivatives.
fn geometry(
    set: &CollisionSet,
    pair: &CollisionPair,
    poses: &[Isometry3<f64>],
    a: &Side,
    b: &Side,
    contact: &Contact,
) -> Result<Geometry, Unsupported> {
    let (ca, cb) = (&set.colliders[pair.a], &set.colliders[pair.b]);
    let (pa, pb) = (&poses[pair.a], &poses[pair.b]);
    let supported_pair = supported_pair(set, pair);
    match (ca.shape.core(), cb.shape.core()) {
        (Core::Point, Core::Point) if supported_pair => {
            let (xa, xb) = (pa.translation.vector, pb.translation.vector);
            Ok(rounded_points(
                &xa,
                &a.material(&xa),
                ca.shape.margin(),
                &xb,
                &b.material(&xb),
                cb.shape.margin(),
            ))
        }
        (Core::Point, Core::Box { half_extents }) if supported_pair => Ok(sphere_box(
            a,
            &pa.translation.vector,
            ca.shape.margin(),
            b,
            pb,
            half_extents,
            cb.shape.margin(),
        )),
        (Core::Box { half_extents }, Core::Point) if supported_pair => {
            let g = sphere_box(
                b,
                &pb.translation.vector,
                cb.shape.margin(),
                a,
                pa,
                half_extents,
                ca.shape.margin(),
            );
            Ok(Geometry {
                contact: g.contact.swapped(),
                distance: g.distance,
                normal: -g.normal,
                point: g.point,
            })
        }
        (
            Core::Cylinder {
                radius,
                half_length: 0.0,
            },
            Core::Box { half_extents },
        ) if supported_pair => disc_on_box_face(
            a,
            &ca.shape,
            pa,
            *radius,
            b,
            pb,
            half_extents,
            cb.shape.margin(),
            contact,
        ),
        (
            Core::Box { half_extents },
            Core::Cylinder {
                radius,
                half_length: 0.0,
            },
        ) if supported_pair => {
            let g = disc_on_box_face(
                b,
                &cb.shape,
                pb,
                *radius,
                a,
                pa,
                half_extents,
                ca.shape.margin(),
                &contact.swapped(),
            )?;
            Ok(Geometry {
                contact: g.contact.swapped(),
                distance: g.distance,
                normal: -g.normal,
                point: g.point,
            })
        }
        (Core::Segment { half_length: ha }, Core::Segment { half_length: hb })
            if supported_pair =>
        {
            let (p0, p1) = segment_ends(pa, *ha);
            let (q0, q1) = segment_ends(pb, *hb);
            let (s, t) = closest_parameters(&p0, &p1, &q0, &q1);
            let (d1, d2) = (p1 - p0, q1 - q0);
            let (core_a, core_b) = ((p0 + d1 * s).coords, (q0 + d2 * t).coords);
            let (ds, dt) =
                closest_parameter_derivatives(a, b, &p0.coords, &d1, s, &q0.coords, &d2, t);
            Ok(rounded_points(
                &core_a,
                &(a.material(&core_a) + d1 * ds),
                ca.shape.margin(),
                &core_b,
                &(b.material(&core_b) + d2 * dt),
                cb.shape.margin(),
            ))
        }
        _ => Err(Unsupported),
    }
}

/// The derivatives of the closest parameters (s, t) of two segments p0 + s·d1 (on body `a`)
/// and q0 + t·d2 (on `b`): a parameter inside (0, 1) keeps its segment's point the closest to
/// the other's, (P − Q)·d = 0, differentiated; one at an end stays there.
#[allow(clippy::too_many_arguments)]
fn closest_parameter_derivatives(
    a: &Side,
    b: &Side,
    p0: &Vector3<f64>,
    d1: &Vector3<f64>,
    s: f64,
    q0: &Vector3<f64>,
    d2: &Vector3<f64>,
    t: f64,
) -> (Lin1, Lin1) {
    let free_s = s > 0.0 && s < 1.0;
    let free_t = t > 0.0 && t < 1.0;
    let (dd1, dd2) = (-skew(d1) * a.rotation(), -skew(d2) * b.rotation());
    let w = (p0 + d1 * s) - (q0 + d2 * t);
    // The change of P − Q with s and t fixed.
    let moved = a.material(p0) - b.material(q0) + dd1 * s - dd2 * t;
    let g1 = d1.transpose() * moved + w.transpose() * dd1;
    let g2 = d2.transpose() * moved + w.transpose() * dd2;
    let (aa, bb, ee) = (d1.norm_squared(), d1.dot(d2), d2.norm_squared());
    match (free_s, free_t) {
        (true, true) => {
            // a ds − b dt = −g1, b ds − e dt = −g2.
            let det = -aa * ee + bb * bb;
            if det == 0.0 {
                return (Lin1::zeros(), Lin1::zeros());
            }
            ((g1 * ee - g2 * bb) / det, (g1 * bb - g2 * aa) / det)
        }
        (true, false) => (-g1 / aa, Lin1::zeros()),
        (false, true) => (Lin1::zeros(), g2 / ee),
        (false, false) => (Lin1::zeros(), Lin1::zeros()),
    }
}

/// The weight of an edge–edge contact (`contacts::edge_weight`) and its derivative.
fn edge_weight_derivative(
    set: &CollisionSet,
    pair: &CollisionPair,
    poses: &[Isometry3<f64>],
    a: &Side,
    b: &Side,
) -> (f64, Lin1) {
    let (ca, cb) = (&set.colliders[pair.a], &set.colliders[pair.b]);
    let (Core::Segment { half_length: ha }, Core::Segment { half_length: hb }) =
        (ca.shape.core(), cb.shape.core())
    else {
        return (1.0, Lin1::zeros());
    };
    let (p0, p1) = segment_ends(&poses[pair.a], *ha);
    let (q0, q1) = segment_ends(&poses[pair.b], *hb);
    let (s, t) = closest_parameters(&p0, &p1, &q0, &q1);
    let (d1, d2) = (p1 - p0, q1 - q0);
    let (ds, dt) = closest_parameter_derivatives(a, b, &p0.coords, &d1, s, &q0.coords, &d2, t);
    let cross = d1.cross(&d2);
    let lengths = (d1.norm() * d2.norm()).max(f64::MIN_POSITIVE);
    let sine = cross.norm() / lengths;
    // d1 and d2 turn with their bodies (their lengths stay).
    let d_cross =
        -skew(&d2) * (-skew(&d1) * a.rotation()) + skew(&d1) * (-skew(&d2) * b.rotation());
    let d_sine = if cross.norm() > 0.0 {
        (cross.transpose() * d_cross) / (cross.norm() * lengths)
    } else {
        Lin1::zeros()
    };
    // inside(u) = smoothstep(min(u, 1 − u)·L/m) and its derivative.
    let inside = |u: f64, du: &Lin1, length: f64, margin: f64| {
        let (near, d_near) = if u <= 0.5 { (u, *du) } else { (1.0 - u, -du) };
        let x = near * length / margin;
        (
            smoothstep(x),
            d_near * (smoothstep_slope(x) * length / margin),
        )
    };
    let (wa, dwa) = inside(s, &ds, 2.0 * ha, ca.shape.margin());
    let (wb, dwb) = inside(t, &dt, 2.0 * hb, cb.shape.margin());
    let x = sine / SIN_PARALLEL;
    let (wp, dwp) = (smoothstep(x), d_sine * (smoothstep_slope(x) / SIN_PARALLEL));
    (
        wp * wa * wb,
        dwp * (wa * wb) + dwa * (wp * wb) + dwb * (wp * wa),
    )
}

/// The share of the pair's law that acts (`contacts::feature_weight`) and its derivative: an
/// edge–edge contact's weight, a rim sphere's 1 − off-face, a rim disc's off-face share, at
/// the contact normal `n` that turns by `d_normal`.
fn feature_weight_derivative(
    set: &CollisionSet,
    pair: &CollisionPair,
    poses: &[Isometry3<f64>],
    a: &Side,
    b: &Side,
    n: &Vector3<f64>,
    d_normal: &Lin3,
) -> (f64, Lin1) {
    let (ca, cb) = (&set.colliders[pair.a], &set.colliders[pair.b]);
    let (mut weight, mut d_weight) = match (ca.role, cb.role) {
        (Role::Edge(_), Role::Edge(_)) => edge_weight_derivative(set, pair, poses, a, b),
        _ => (1.0, Lin1::zeros()),
    };
    for (collider, pose, side) in [(ca, &poses[pair.a], a), (cb, &poses[pair.b], b)] {
        let (share, d_share) = match collider.fade {
            Fade::OffFace => off_face_derivative(pose, side, n, d_normal),
            Fade::FaceOn => {
                let (off, d_off) = off_face_derivative(pose, side, n, d_normal);
                (1.0 - off, -d_off)
            }
            Fade::None | Fade::Side => continue,
        };
        d_weight = d_weight * share + d_share * weight;
        weight *= share;
    }
    (weight, d_weight)
}

/// `contacts::off_face` (0 where the normal lies along the z axis of the collider's `pose`,
/// 1 from about 10° off it) and its derivative as the axis turns with its body (`side`) and
/// the normal by `d_normal`.
fn off_face_derivative(
    pose: &Isometry3<f64>,
    side: &Side,
    n: &Vector3<f64>,
    d_normal: &Lin3,
) -> (f64, Lin1) {
    let axis = pose.rotation * Vector3::z();
    let cosine = axis.dot(n);
    let x = (1.0 - cosine.abs()) / (1.0 - COS_FACE_ON);
    let d_cosine = n.transpose() * (-skew(&axis) * side.rotation()) + axis.transpose() * d_normal;
    let sign = if cosine < 0.0 { -1.0 } else { 1.0 };
    (
        smoothstep(x),
        d_cosine * (-sign * smoothstep_slope(x) / (1.0 - COS_FACE_ON)),
    )
}

/// The derivatives of pair `pair`'s loads (with friction state `friction`) at the collider
/// `poses` and body `motion`, as `contacts::evaluate_pair` evaluates them; `None` when the
/// pair does not penetrate.
pub fn pair_loads(
    set: &CollisionSet,
    pair: &CollisionPair,
    friction: &Friction,
    poses: &[Isometry3<f64>],
    motion: &[BodyMotion],
) -> Result<Option<PairLoads>, Unsupported> {
    let (ca, cb) = (&set.colliders[pair.a], &set.colliders[pair.b]);
    let (pa, pb) = (&poses[pair.a], &poses[pair.b]);
    let reach = ca.shape.bounding_radius() + cb.shape.bounding_radius();
    if (pb.translation.vector - pa.translation.vector).norm_squared() > reach * reach {
        return Ok(None);
    }
    // Most near pairs of a scene of many bodies are apart: the narrow phase alone first.
    let contact = match crate::collision::distance(&ca.shape, pa, &cb.shape, pb) {
        Ok(contact) if contact.distance < 0.0 => contact,
        _ => return Ok(None),
    };
    let a = Side {
        motion: &motion[ca.body],
        column: 0,
    };
    let b = Side {
        motion: &motion[cb.body],
        column: 12,
    };
    let g = geometry(set, pair, poses, &a, &b, &contact)?;
    if g.contact.distance >= 0.0 {
        return Ok(None);
    }
    let point = g.contact.point().coords;
    let (va, d_va) = a.point_velocity(&point, &g.point);
    let (vb, d_vb) = b.point_velocity(&point, &g.point);
    let (v, d_v) = (vb - va, d_vb - d_va);
    let w = b.motion.w - a.motion.w;
    let n = g.contact.normal.into_inner();
    let mut state = ContactState::new(&g.contact, v, w);
    state.slip = slip_law(pair, friction);
    let mut d = ContactStateDerivative {
        penetration: -g.distance,
        penetration_rate: -(n.transpose() * d_v + v.transpose() * g.normal),
        relative_velocity: d_v,
        relative_angular_velocity: b.angular_velocity() - a.angular_velocity(),
        normal: g.normal,
        anchor_offset: Lin3::zeros(),
        anchor_turn: Lin3::zeros(),
    };
    if let Friction::Stuck { on_a, on_b, turn } = friction {
        let (ma, mb) = (a.motion, b.motion);
        let (anchor_a, anchor_b) = (ma.r + ma.rotation * on_a, mb.r + mb.rotation * on_b);
        state.anchor_offset = Some(anchor_b - anchor_a);
        d.anchor_offset = b.material(&anchor_b) - a.material(&anchor_a);
        if pair.holds_turn {
            let held = ma.rotation * turn.to_rotation_matrix().into_inner();
            let relative = mb.rotation * held.transpose();
            let phi = rotation_vector(&relative);
            state.anchor_turn = Some(phi);
            // b turned by dθ_b and a (carrying the held orientation) by dθ_a: the relative
            // rotation E turns by ψ = dθ_b − E dθ_a from the left, and log E by J_l⁻¹(φ) ψ.
            let psi = b.rotation() - relative * a.rotation();
            d.anchor_turn = inverse_left_jacobian(&phi) * psi;
        }
    }
    let response = contact_force(&pair.law, &state);
    let (mut d_force, mut d_torque) = contact_force_derivative(&pair.law, &state, &d);
    let (weight, d_weight) = feature_weight_derivative(set, pair, poses, &a, &b, &n, &g.normal);
    d_force = d_force * weight + response.force * d_weight;
    d_torque = d_torque * weight + response.torque * d_weight;
    let force = response.force * weight;
    let load = |side: &Side, sign: f64| {
        let arm = point - side.motion.r;
        let d_arm = g.point - side.block(POSITION, &Matrix3::identity());
        let torque = (-skew(&force) * d_arm + skew(&arm) * d_force + d_torque) * sign;
        (d_force * sign, torque)
    };
    let (force_a, torque_a) = load(&a, -1.0);
    let (force_b, torque_b) = load(&b, 1.0);
    Ok(Some(PairLoads {
        force_a,
        torque_a,
        force_b,
        torque_b,
    }))
}

/// J_l⁻¹(φ) of SO(3): the derivative of log(exp([ψ]×) exp([φ]×)) with respect to ψ at 0,
/// I − ½[φ]× + (1/θ² − (1 + cos θ) / (2 θ sin θ)) [φ]×², the last factor 1/12 + θ²/720 near 0.
fn inverse_left_jacobian(phi: &Vector3<f64>) -> Matrix3<f64> {
    let theta = phi.norm();
    let k = skew(phi);
    let factor = if theta < 1e-4 {
        1.0 / 12.0 + theta * theta / 720.0
    } else {
        1.0 / (theta * theta) - (1.0 + theta.cos()) / (2.0 * theta * theta.sin())
    };
    Matrix3::identity() - k * 0.5 + k * k * factor
}

#[cfg(test)]
mod tests {
    use super::super::super::contacts::{pair_response, sum_contact_loads, update_collider_poses};
    use super::*;
    use crate::assembly::Assembly;
    use crate::dynamics::{Mechanism, Workspace};
    use crate::scene::Scene;
    use nalgebra::{Rotation3, UnitQuaternion};

    fn pseudo_random(seed: &mut u64) -> f64 {
        *seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (*seed >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }

    /// The loads of every penetrating pair (force on b, torque about b's origin, force on a,
    /// torque about a's origin), by pair index.
    fn loads(mechanism: &Mechanism, ws: &mut Workspace) -> Vec<(usize, [Vector3<f64>; 4])> {
        // Every pose written again: the quotients move the world's body too, whose colliders'
        // poses a simulation writes once.
        ws.collider_poses.clear();
        update_collider_poses(mechanism, ws);
        sum_contact_loads(mechanism, ws);
        let set = &mechanism.collisions;
        let mut out = Vec::new();
        for &index in &ws.near_pairs.pairs {
            let Some((contact, response)) = pair_response(mechanism, ws, index) else {
                continue;
            };
            let pair = ws.pairs.get(index);
            let point = contact.point().coords;
            let (ra, rb) = (
                ws.motion[set.colliders[pair.a].body].r,
                ws.motion[set.colliders[pair.b].body].r,
            );
            let f = response.force;
            out.push((
                index,
                [
                    f,
                    (point - rb).cross(&f) + response.torque,
                    -f,
                    -((point - ra).cross(&f) + response.torque),
                ],
            ));
        }
        out
    }

    /// A body of a scene that the quotients test: where it is placed, how it is turned, how
    /// far its placement and turn are varied at random.
    struct Placed {
        name: &'static str,
        at: Vector3<f64>,
        /// `None`: turned at random (a ball).
        turned: Option<Rotation3<f64>>,
        jitter: f64,
    }

    /// Every penetrating pair's load derivatives in `source`, with its bodies `placed`, moving
    /// and turning at random (fast and slow), slipping and stuck, against fourth-order central
    /// differences of the loads over the 24 motion parameters of its two bodies. Returns the
    /// pairs checked. The turns of the quotients are `turn_steps`: small enough for the
    /// truncation at the contacts' depths, large enough for the round-off of the rotation's
    /// conversion to a quaternion (at 0.1 µrad: 5e-6).
    fn assert_pair_loads_equal_quotients(
        source: &str,
        placed: &[Placed],
        samples: usize,
        turn_steps: &[f64],
    ) -> usize {
        let spec = crate::model::load_str_with(source, "pressed.m3d", &[]).unwrap();
        let scene = Scene::from_spec(&spec).unwrap();
        let assembly = Assembly::build(&scene).unwrap();
        let mut mechanism = Mechanism::new(&scene, &assembly);
        mechanism.collisions = crate::assembly::CollisionSet::build(&scene, &assembly).unwrap();
        let mut seed = 3;
        let mut worst = 0.0f64;
        let (mut pairs_seen, mut opened) = (0, 0);
        for sample in 0..samples {
            let mut ws = Workspace::new(&mechanism);
            let speed = if sample % 2 == 0 { 2.0 } else { 0.003 };
            for body in placed {
                let k = mechanism
                    .bodies
                    .iter()
                    .position(|b| b.name == body.name)
                    .unwrap();
                let mut random3 = |s: f64| Vector3::from_fn(|_, _| s * pseudo_random(&mut seed));
                let m = &mut ws.motion[k];
                m.r = body.at + random3(body.jitter);
                m.rotation = match body.turned {
                    Some(turned) => {
                        *(Rotation3::from_scaled_axis(random3(0.1 * body.jitter.sqrt())) * turned)
                            .matrix()
                    }
                    None => *Rotation3::from_scaled_axis(random3(3.0)).matrix(),
                };
                m.v = random3(speed);
                m.w = random3(speed * 30.0);
            }
            let base = loads(&mechanism, &mut ws);
            if sample % 4 >= 2 {
                for &(index, _) in &base {
                    let pair = ws.pairs.get(index).clone();
                    let set = &mechanism.collisions;
                    let (ma, mb) = (
                        ws.motion[set.colliders[pair.a].body],
                        ws.motion[set.colliders[pair.b].body],
                    );
                    let point = ws.collider_poses[pair.b].translation.vector;
                    let tilt = UnitQuaternion::from_scaled_axis(Vector3::new(1e-3, -2e-3, 5e-4));
                    ws.pairs.frictions[index] = Friction::Stuck {
                        on_a: ma.rotation.transpose()
                            * (point - ma.r + Vector3::new(1e-6, 0.0, 0.0)),
                        on_b: mb.rotation.transpose() * (point - mb.r),
                        turn: UnitQuaternion::from_matrix(&(ma.rotation.transpose() * mb.rotation))
                            * tilt,
                    };
                }
            }
            let base = loads(&mechanism, &mut ws);
            for &(index, _) in &base {
                pairs_seen += 1;
                let pair = ws.pairs.get(index).clone();
                let set = &mechanism.collisions;
                let bodies = [set.colliders[pair.a].body, set.colliders[pair.b].body];
                let exact = pair_loads(
                    set,
                    &pair,
                    &ws.pairs.frictions[index],
                    &ws.collider_poses,
                    &ws.motion,
                )
                .unwrap()
                .unwrap();
                for column in 0..PAIR_COLUMNS {
                    let body = bodies[column / 12];
                    let (kind, axis) = ((column % 12) / 3, column % 3);
                    let derivatives = [
                        &exact.force_b,
                        &exact.torque_b,
                        &exact.force_a,
                        &exact.torque_a,
                    ];
                    // A column whose loads change by less than 1e-3 of the pair's largest
                    // change of this kind (either body's; the same units) is compared at that
                    // scale: its round-off is no error of the derivatives.
                    let kind_scale = (0..PAIR_COLUMNS)
                        .filter(|c| (c % 12) / 3 == kind)
                        .flat_map(|c| derivatives.map(|d| d.column(c).amax()))
                        .fold(1e-9f64, f64::max)
                        * 1e-3;
                    // The error of fourth-order central differences at step h against the
                    // derivatives, relative to the largest quotient; `None` when a step opens
                    // the contact (no quotient there).
                    let error_at = |h: f64| {
                        let evaluate = |step: f64| {
                            let mut probe = ws.clone();
                            let m = &mut probe.motion[body];
                            let delta = Vector3::from_fn(|i, _| if i == axis { step } else { 0.0 });
                            match kind {
                                0 => m.r += delta,
                                1 => m.rotation = Rotation3::from_scaled_axis(delta) * m.rotation,
                                2 => m.v += delta,
                                _ => m.w += delta,
                            }
                            let found = loads(&mechanism, &mut probe);
                            found.into_iter().find(|(i, _)| *i == index).map(|(_, l)| l)
                        };
                        let [Some(far), Some(plus), Some(minus), Some(back)] =
                            [2.0 * h, h, -h, -2.0 * h].map(evaluate)
                        else {
                            return None;
                        };
                        let quotients: Vec<Vector3<f64>> = (0..4)
                            .map(|k| (8.0 * (plus[k] - minus[k]) - (far[k] - back[k])) / (12.0 * h))
                            .collect();
                        let scale = quotients.iter().fold(kind_scale, |m, q| m.max(q.amax()));
                        let error = (0..4)
                            .map(|k| (quotients[k] - derivatives[k].column(column)).amax() / scale)
                            .fold(0.0, f64::max);
                        Some((error, quotients))
                    };
                    // Truncation (h/δ)⁴ at depths of µm against round-off; turns at several
                    // steps, each error source small at one of them: the derivative must match
                    // one.
                    let steps: &[f64] = match kind {
                        0 => &[1e-8],
                        1 => turn_steps,
                        2 => &[1e-5],
                        _ => &[1e-4],
                    };
                    let Some((error, quotients)) = steps
                        .iter()
                        .filter_map(|&h| error_at(h))
                        .min_by(|x, y| x.0.total_cmp(&y.0))
                    else {
                        opened += 1;
                        continue;
                    };
                    assert!(
                        error < 1e-5,
                        "sample {sample}, pair {index} ({:?} – {:?}), column {column}: {:?} \
                         against {:?}",
                        set.colliders[pair.a].shape.core(),
                        set.colliders[pair.b].shape.core(),
                        quotients
                            .iter()
                            .map(|q| q.as_slice().to_vec())
                            .collect::<Vec<_>>(),
                        derivatives.map(|d| d.column(column).iter().copied().collect::<Vec<_>>())
                    );
                    worst = worst.max(error);
                }
            }
        }
        eprintln!(
            "{pairs_seen} pair loads against central differences within {worst:.1e} ({opened} \
             columns skipped: a step opened the contact)"
        );
        assert!(
            opened * 10 < pairs_seen * PAIR_COLUMNS,
            "{opened} columns skipped"
        );
        pairs_seen
    }

    /// Two balls pressed into each other and into a box, and a ball inside the box's core.
    #[test]
    fn pair_loads_equal_difference_quotients() {
        let source = r#"
            object table { parent = world; position = [0, -0.05, 0]; shape box { lengths = [4, 0.1, 4] }; contact { material = billiard_table } }
            object a { shape sphere { diameter = 0.06 }; mass { material = billiard_ball }; contact { material = billiard_ball } }
            object b { shape sphere { diameter = 0.06 }; mass { material = billiard_ball }; contact { material = billiard_ball } }
            object c { shape sphere { diameter = 0.06 }; mass { material = billiard_ball }; contact { material = billiard_ball } }
            joint ja free { from = world; to = a; position = [0, 0.02999, 0] }
            joint jb free { from = world; to = b; position = [0.0599, 0.03, 0.001] }
            joint jc free { from = world; to = c; position = [0.3, -0.04, 0] }
        "#;
        let ball = |name, at| Placed {
            name,
            at,
            turned: None,
            jitter: 2e-5,
        };
        let placed = [
            ball("a", Vector3::new(0.0, 0.03, 0.0)),
            ball("b", Vector3::new(0.0599, 0.03, 0.001)),
            ball("c", Vector3::new(0.3, -0.04, 0.0)),
        ];
        // Turns of 3 µrad: the balls' contacts are a few µm deep, and their levers 30 mm.
        let pairs = assert_pair_loads_equal_quotients(source, &placed, 40, &[3e-6]);
        assert!(pairs >= 40, "{pairs}");
    }

    /// A cylinder lying on its rim discs, a cone lying on its rim disc and apex, and a coin
    /// tilted 6° from lying flat (its rim disc's and rim spheres' contacts each partly faded),
    /// pressed about 10 µm into a box: the rim discs' face contacts, whose point slides along the
    /// rim as the axis and the face turn, and the fades' weights.
    #[test]
    fn rim_disc_loads_equal_difference_quotients() {
        let source = r#"
            object table { parent = world; position = [0, -0.05, 0]; shape box { lengths = [4, 0.1, 4] }; contact { material = dry_wood } }
            object roller { shape cylinder { diameter = 0.04; length = 0.1 }; mass { material = steel }; contact { material = steel } }
            object cone { shape cone { diameter = 0.05; length = 0.1 }; mass { material = steel }; contact { material = steel } }
            object coin { shape cylinder { diameter = 0.1; length = 0.01 }; mass { material = steel }; contact { material = steel } }
            joint jr free { from = world; to = roller; position = [0, 0.02, 0] }
            joint jc free { from = world; to = cone; position = [0.15, 0.03, 0] }
            joint jn free { from = world; to = coin; position = [-0.15, 0.02, 0] }
        "#;
        let deg = std::f64::consts::PI / 180.0;
        let lying = Rotation3::from_euler_angles(0.0, 90.0 * deg, 0.0);
        let cone = Rotation3::from_axis_angle(
            &nalgebra::Unit::new_normalize(Vector3::new(0.12128133, 0.98518104, -0.12128133)),
            90.85538614 * deg,
        );
        let coin = Rotation3::from_euler_angles(-84.0 * deg, 0.0, 0.0);
        // Each seated a few µm deep.
        let placed = [
            Placed {
                name: "roller",
                at: Vector3::new(0.0, seat_height(source, "roller", &lying) - 1e-5, 0.0),
                turned: Some(lying),
                jitter: 3e-6,
            },
            Placed {
                name: "cone",
                at: Vector3::new(0.15, seat_height(source, "cone", &cone) - 1e-5, 0.0),
                turned: Some(cone),
                jitter: 3e-6,
            },
            Placed {
                name: "coin",
                at: Vector3::new(-0.15, seat_height(source, "coin", &coin) - 1e-5, 0.0),
                turned: Some(coin),
                jitter: 3e-6,
            },
        ];
        // Turns of 0.5 to 10 µrad: at 3 µrad the round-off reaches 1e-5 of the loads of a rim
        // disc (levers of 50 mm); a stuck rim sphere's presliding spring, µm long, 150 mm
        // from the table's origin, needs 0.5 µrad against truncation (4e-4 at 3 µrad).
        let pairs =
            assert_pair_loads_equal_quotients(source, &placed, 24, &[5e-7, 1e-6, 3e-6, 1e-5]);
        assert!(pairs >= 100, "{pairs}");
    }

    /// The height of `name`'s origin, turned by `turned`, at which its lowest point touches the
    /// plane y = 0: the narrow phase's distance of its colliders to a box below.
    fn seat_height(source: &str, name: &str, turned: &Rotation3<f64>) -> f64 {
        let spec = crate::model::load_str_with(source, "seat.m3d", &[]).unwrap();
        let scene = Scene::from_spec(&spec).unwrap();
        let assembly = Assembly::build(&scene).unwrap();
        let set = crate::assembly::CollisionSet::build(&scene, &assembly).unwrap();
        let plane = crate::collision::Shape::new(&crate::model::ShapeSpec::Box {
            lengths: Vector3::new(4.0, 0.1, 4.0),
        })
        .unwrap();
        let below = Isometry3::translation(0.0, -0.05, 0.0);
        let body = Isometry3::from_parts(
            nalgebra::Translation3::identity(),
            UnitQuaternion::from_rotation_matrix(turned),
        );
        let lowest = set
            .colliders
            .iter()
            .filter(|c| scene.object(c.object).name == name)
            .filter_map(|c| {
                crate::collision::distance(&c.shape, &(body * c.pose), &plane, &below).ok()
            })
            .map(|c| c.distance)
            .fold(f64::INFINITY, f64::min);
        -lowest
    }
}
