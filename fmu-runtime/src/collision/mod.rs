//! Collision handling: convex shapes, signed distances, broad phase and the elastic contact law.
//!
//! - [`shapes`]: [`Shape`], a convex support map (core + smoothing sphere) built from a
//!   [`ShapeSpec`](crate::model::ShapeSpec), with its world AABB.
//! - [`broad_phase`]: [`Aabb`] and sweep-and-prune [`candidate_pairs`]; the grid of bounding
//!   spheres [`sphere_pairs`]; [`broad_phase::IndexMap`], the map of indices and grid cells.
//! - [`distance`] (narrow phase): the signed distance, the closest (or deepest) points and the
//!   contact normal of two shapes, by closed forms where they exist ([`analytic`]) and by the
//!   Minkowski portal refinement otherwise ([`mpr`]). The distance is continuous in the poses
//!   and serves as a zero-crossing function: positive apart, negative penetrating.
//! - [`response`]: the contact force and torque of a penetrating pair (Hertz or linear spring,
//!   restitution-based damping, regularized friction and rolling resistance).
//! - [`contact_materials`]: coefficient of restitution and friction coefficients per pair of
//!   solid materials.
//!
//! A residual evaluation calls, per candidate pair, [`distance`] and, when the distance is
//! negative, [`response::contact_force`] with the contact's data.

pub mod analytic;
pub mod broad_phase;
pub mod contact_materials;
pub mod mpr;
pub mod response;
pub mod shapes;

#[cfg(test)]
mod tests;

use nalgebra::{Isometry3, Point3, Unit, Vector3};

pub use broad_phase::{candidate_pairs, sphere_pairs, Aabb};
pub use contact_materials::{ContactMaterials, ContactPairMaterial};
pub use shapes::{Core, Shape, DEFAULT_SMOOTHING_RADIUS, MAX_SMOOTHING_FRACTION};

/// The result of the narrow phase for one pair of shapes (a, b), in world coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Contact {
    /// Signed distance [m]: > 0 apart (the gap), < 0 penetrating (minus the penetration depth).
    pub distance: f64,
    /// On a's surface: the point of a closest to b, or a's deepest point inside b.
    pub point_a: Point3<f64>,
    /// On b's surface: the point of b closest to a, or b's deepest point inside a.
    pub point_b: Point3<f64>,
    /// Unit contact normal from a to b: moving b along it separates the shapes.
    /// `point_b - point_a ≈ distance * normal`.
    pub normal: Unit<Vector3<f64>>,
}

impl Contact {
    /// The same contact seen from b: points swapped, normal negated.
    pub fn swapped(&self) -> Contact {
        Contact {
            distance: self.distance,
            point_a: self.point_b,
            point_b: self.point_a,
            normal: -self.normal,
        }
    }

    /// Penetration depth δ = max(0, −distance) [m].
    pub fn penetration(&self) -> f64 {
        (-self.distance).max(0.0)
    }

    /// The point where the contact forces act: midway between the two surface points.
    pub fn point(&self) -> Point3<f64> {
        Point3::from((self.point_a.coords + self.point_b.coords) * 0.5)
    }
}

/// What collision handling cannot do.
#[derive(Debug, Clone, PartialEq)]
pub enum CollisionError {
    /// A shape dimension or smoothing radius that is not a finite positive number.
    InvalidShape { what: &'static str, value: f64 },
    /// A pose with a NaN or infinite component.
    NonFinitePose,
    /// No contact-pair material for these two solid materials.
    UnknownMaterialPair { a: String, b: String },
    /// A solid material name the material table does not know.
    UnknownSolidMaterial(String),
    /// A contact-pair coefficient out of its range.
    InvalidCoefficient { what: &'static str, value: f64 },
    /// A mesh whose convex hull cannot collide, with the reason.
    InvalidMesh(String),
}

impl std::fmt::Display for CollisionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CollisionError::InvalidShape { what, value } => {
                write!(f, "invalid {what} {value} for collision handling")
            }
            CollisionError::NonFinitePose => write!(f, "shape pose is not finite"),
            CollisionError::UnknownMaterialPair { a, b } => {
                write!(f, "no contact-pair material for `{a}` and `{b}`")
            }
            CollisionError::UnknownSolidMaterial(name) => {
                write!(f, "unknown solid material `{name}`")
            }
            CollisionError::InvalidCoefficient { what, value } => {
                write!(f, "invalid {what} {value}")
            }
            CollisionError::InvalidMesh(reason) => {
                write!(f, "the mesh cannot collide: {reason}")
            }
        }
    }
}

impl std::error::Error for CollisionError {}

/// Signed distance, contact points and normal of shape `a` at `pose_a` and shape `b` at
/// `pose_b` (poses map shape coordinates to world coordinates). Sphere–sphere, sphere–box and
/// capsule–capsule use closed forms; every other pair the portal algorithm of [`mpr`], made
/// exact where a shape touches a box's face ([`analytic::contact_on_box_face`]).
pub fn distance(
    a: &Shape,
    pose_a: &Isometry3<f64>,
    b: &Shape,
    pose_b: &Isometry3<f64>,
) -> Result<Contact, CollisionError> {
    match (a.core(), b.core()) {
        (Core::Point, Core::Point) => {
            let (ca, cb) = (centre(pose_a)?, centre(pose_b)?);
            Ok(analytic::distance_sphere_sphere(
                &ca,
                a.margin(),
                &cb,
                b.margin(),
            ))
        }
        (Core::Point, Core::Box { half_extents }) => {
            let ca = centre(pose_a)?;
            centre(pose_b)?;
            Ok(analytic::distance_sphere_box(
                &ca,
                a.margin(),
                pose_b,
                half_extents,
                b.margin(),
            ))
        }
        (Core::Box { half_extents }, Core::Point) => {
            let cb = centre(pose_b)?;
            centre(pose_a)?;
            Ok(
                analytic::distance_sphere_box(&cb, b.margin(), pose_a, half_extents, a.margin())
                    .swapped(),
            )
        }
        (Core::Segment { half_length: ha }, Core::Segment { half_length: hb }) => {
            centre(pose_a)?;
            centre(pose_b)?;
            let (p0, p1) = segment_ends(pose_a, *ha);
            let (q0, q1) = segment_ends(pose_b, *hb);
            Ok(analytic::distance_segment_segment(
                &p0,
                &p1,
                a.margin(),
                &q0,
                &q1,
                b.margin(),
            ))
        }
        (_, Core::Box { half_extents }) => {
            let contact = mpr::signed_distance(a, pose_a, b, pose_b)?;
            Ok(analytic::contact_on_box_face(
                a,
                pose_a,
                pose_b,
                half_extents,
                b.margin(),
                &contact.normal,
            )
            .unwrap_or(contact))
        }
        (Core::Box { half_extents }, _) => {
            let contact = mpr::signed_distance(b, pose_b, a, pose_a)?;
            Ok(analytic::contact_on_box_face(
                b,
                pose_b,
                pose_a,
                half_extents,
                a.margin(),
                &contact.normal,
            )
            .unwrap_or(contact)
            .swapped())
        }
        _ => mpr::signed_distance(a, pose_a, b, pose_b),
    }
}

/// The world ends of a segment core (along its z axis, `half_length` either side of the
/// origin) at `pose`.
pub fn segment_ends(pose: &Isometry3<f64>, half_length: f64) -> (Point3<f64>, Point3<f64>) {
    (
        pose * Point3::new(0.0, 0.0, -half_length),
        pose * Point3::new(0.0, 0.0, half_length),
    )
}

fn centre(pose: &Isometry3<f64>) -> Result<Point3<f64>, CollisionError> {
    let finite = pose.translation.vector.iter().all(|x| x.is_finite())
        && pose.rotation.coords.iter().all(|x| x.is_finite());
    if finite {
        Ok(Point3::from(pose.translation.vector))
    } else {
        Err(CollisionError::NonFinitePose)
    }
}
