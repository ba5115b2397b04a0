//! Convex collision shapes as support maps.
//!
//! Every shape is a *core* (a point, a segment, a box, a cylinder, a cone or an ellipsoid) swept
//! by a sphere whose radius is the shape's *margin*: the shape is the Minkowski sum of the core
//! and that sphere. A sphere is a point core with its radius as margin, a capsule a segment core
//! with its radius as margin; the other shapes are shrunk by the smoothing radius and rounded by
//! it again, so that their outer dimensions stay the nominal ones while edges and vertices become
//! round: a box standing on a table touches it with four vertex spheres, i.e. with point
//! contacts that move smoothly.
//!
//! The narrow phase uses the core and the margin separately (see [`super::mpr`]): as long as the
//! two cores are apart, the signed distance is exact.

use nalgebra::{Isometry3, Point3, Vector3};

use super::broad_phase::Aabb;
use super::CollisionError;
use crate::mesh::ConvexHull;
use crate::model::{MeshCollision, ShapeSpec};
use std::sync::Arc;

/// The smoothing radius used when a model does not give one [m].
pub const DEFAULT_SMOOTHING_RADIUS: f64 = 1.0e-3;

/// The smoothing radius is clamped to at most this fraction of the shape's smallest dimension
/// (diameter, edge length or axis length), so that a small shape keeps its proportions (a 5 mm
/// cube gets a 0.5 mm radius, not 1 mm).
pub const MAX_SMOOTHING_FRACTION: f64 = 0.1;

/// The core of a shape, in the shape's own frame.
#[derive(Debug, Clone, PartialEq)]
pub enum Core {
    /// The origin.
    Point,
    /// The segment from (0, 0, -half_length) to (0, 0, half_length).
    Segment { half_length: f64 },
    /// A box centred at the origin.
    Box { half_extents: Vector3<f64> },
    /// A cylinder with axis z, centred at the origin.
    Cylinder { radius: f64, half_length: f64 },
    /// A cone with axis z: base disc of `radius` at z = `base`, apex at z = `apex`.
    Cone { radius: f64, base: f64, apex: f64 },
    /// An ellipsoid centred at the origin.
    Ellipsoid { semi_axes: Vector3<f64> },
    /// A convex polytope: a mesh's convex hull shrunk by the margin.
    Hull(Arc<ConvexHull>),
}

/// A convex shape ready for collision handling: a core plus a margin (sphere radius).
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    core: Core,
    margin: f64,
    /// The shape as the model gave it.
    spec: ShapeSpec,
    /// Radius of the smallest origin-centred sphere that holds the shape.
    bounding_radius: f64,
}

fn check_positive(what: &'static str, value: f64) -> Result<f64, CollisionError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(CollisionError::InvalidShape { what, value })
    }
}

impl Shape {
    /// The shape of `spec` with the [`DEFAULT_SMOOTHING_RADIUS`].
    pub fn new(spec: &ShapeSpec) -> Result<Shape, CollisionError> {
        Shape::with_smoothing_radius(spec, DEFAULT_SMOOTHING_RADIUS)
    }

    /// The shape of `spec`, smoothed with `smoothing_radius` (≥ 0; clamped to
    /// [`MAX_SMOOTHING_FRACTION`] of the smallest dimension). Spheres and capsules are round
    /// already and ignore it.
    pub fn with_smoothing_radius(
        spec: &ShapeSpec,
        smoothing_radius: f64,
    ) -> Result<Shape, CollisionError> {
        if !(smoothing_radius.is_finite() && smoothing_radius >= 0.0) {
            return Err(CollisionError::InvalidShape {
                what: "smoothing radius",
                value: smoothing_radius,
            });
        }
        let clamp = |smallest: f64| smoothing_radius.min(MAX_SMOOTHING_FRACTION * smallest);
        let (core, margin) = match *spec {
            ShapeSpec::Mesh(ref mesh) => {
                let vertices: Vec<Point3<f64>> = mesh
                    .pieces
                    .iter()
                    .flat_map(|p| p.vertices.iter().copied())
                    .collect();
                return Shape::of_hull(&vertices, smoothing_radius, spec);
            }
            ShapeSpec::Sphere { diameter } => {
                let d = check_positive("sphere diameter", diameter)?;
                (Core::Point, 0.5 * d)
            }
            ShapeSpec::Capsule { diameter, length } => {
                let d = check_positive("capsule diameter", diameter)?;
                if !(length.is_finite() && length >= 0.0) {
                    return Err(CollisionError::InvalidShape {
                        what: "capsule length",
                        value: length,
                    });
                }
                (
                    Core::Segment {
                        half_length: 0.5 * length,
                    },
                    0.5 * d,
                )
            }
            ShapeSpec::Box { lengths } => {
                for l in lengths.iter() {
                    check_positive("box edge length", *l)?;
                }
                let r = clamp(lengths.min());
                (
                    Core::Box {
                        half_extents: lengths.map(|l| 0.5 * l - r),
                    },
                    r,
                )
            }
            ShapeSpec::Cylinder { diameter, length } => {
                let d = check_positive("cylinder diameter", diameter)?;
                let l = check_positive("cylinder length", length)?;
                let r = clamp(d.min(l));
                (
                    Core::Cylinder {
                        radius: 0.5 * d - r,
                        half_length: 0.5 * l - r,
                    },
                    r,
                )
            }
            ShapeSpec::Cone { diameter, length } => {
                let d = check_positive("cone diameter", diameter)?;
                let l = check_positive("cone length", length)?;
                let r = clamp(d.min(l));
                // The inner parallel body of a cone at distance r is a similar cone: the base
                // moves up by r, the apex down by r / sin(half angle).
                let radius = 0.5 * d;
                let sin_half_angle = radius / norm2(radius, l);
                let base = r;
                let apex = l - r / sin_half_angle;
                let core_radius = (apex - base) * radius / l;
                (
                    Core::Cone {
                        radius: core_radius,
                        base,
                        apex,
                    },
                    r,
                )
            }
            ShapeSpec::Ellipsoid { lengths } => {
                for l in lengths.iter() {
                    check_positive("ellipsoid axis length", *l)?;
                }
                // The rounded ellipsoid with semi-axes a - r is exact on the axes and differs
                // elsewhere by a small fraction of r from the nominal one.
                let r = clamp(lengths.min());
                (
                    Core::Ellipsoid {
                        semi_axes: lengths.map(|l| 0.5 * l - r),
                    },
                    r,
                )
            }
        };
        Ok(Shape::of_core(core, margin, spec.clone()))
    }

    /// The convex pieces that collide for `spec`: the shape itself, or for a mesh with
    /// `collision = pieces` each piece's hull.
    pub fn pieces(spec: &ShapeSpec, smoothing_radius: f64) -> Result<Vec<Shape>, CollisionError> {
        match spec {
            ShapeSpec::Mesh(mesh) if mesh.collision == MeshCollision::Pieces => mesh
                .pieces
                .iter()
                .map(|piece| Shape::of_hull(&piece.vertices, smoothing_radius, spec))
                .collect(),
            _ => Ok(vec![Shape::with_smoothing_radius(spec, smoothing_radius)?]),
        }
    }

    /// The convex hull of `vertices` rounded by the smoothing radius (clamped as a box's is).
    fn of_hull(
        vertices: &[Point3<f64>],
        smoothing_radius: f64,
        spec: &ShapeSpec,
    ) -> Result<Shape, CollisionError> {
        let (core, margin) = ConvexHull::shrunk(vertices, smoothing_radius, MAX_SMOOTHING_FRACTION)
            .map_err(|e| CollisionError::InvalidMesh(e.0))?;
        Ok(Shape::of_core(
            Core::Hull(Arc::new(core)),
            margin,
            spec.clone(),
        ))
    }

    /// A flat disc of `radius` about the z axis swept by a sphere of `margin`: the rim of a
    /// cylinder or a cone, which collides as a feature of it (`assembly::collision`).
    pub fn rim_disc(radius: f64, margin: f64) -> Shape {
        Shape::of_core(
            Core::Cylinder {
                radius,
                half_length: 0.0,
            },
            margin,
            ShapeSpec::Cylinder {
                diameter: 2.0 * (radius + margin),
                length: 2.0 * margin,
            },
        )
    }

    fn of_core(core: Core, margin: f64, spec: ShapeSpec) -> Shape {
        let core_radius = match core {
            Core::Hull(ref hull) => hull.bounding_radius(),
            Core::Point => 0.0,
            Core::Segment { half_length } => half_length,
            Core::Box { half_extents } => half_extents.norm(),
            Core::Cylinder {
                radius,
                half_length,
            } => norm2(radius, half_length),
            Core::Cone { radius, base, apex } => norm2(radius, base).max(apex.abs()),
            Core::Ellipsoid { semi_axes } => semi_axes.max(),
        };
        Shape {
            core,
            margin,
            spec,
            bounding_radius: core_radius + margin,
        }
    }

    pub fn core(&self) -> &Core {
        &self.core
    }

    /// The radius of the sphere swept over the core [m]: the smoothing radius actually used,
    /// or the radius of a sphere or capsule.
    pub fn margin(&self) -> f64 {
        self.margin
    }

    pub fn spec(&self) -> &ShapeSpec {
        &self.spec
    }

    /// Radius of a sphere about the shape's origin that holds the whole shape [m].
    pub fn bounding_radius(&self) -> f64 {
        self.bounding_radius
    }

    /// Radius of the largest sphere inside the shape [m]: the shape is at least twice this wide
    /// in every direction, so two shapes cannot pass through each other while their relative
    /// travel since first touch stays below twice the sum of their inradii.
    pub fn inradius(&self) -> f64 {
        if let Core::Hull(hull) = &self.core {
            return hull.inradius() + self.margin;
        }
        match self.spec {
            ShapeSpec::Mesh(_) => unreachable!("a mesh's core is a hull"),
            ShapeSpec::Sphere { diameter } | ShapeSpec::Capsule { diameter, .. } => 0.5 * diameter,
            ShapeSpec::Box { lengths } | ShapeSpec::Ellipsoid { lengths } => 0.5 * lengths.min(),
            ShapeSpec::Cylinder { diameter, length } => 0.5 * diameter.min(length),
            // The circle inscribed in the cone's axial section (a triangle).
            ShapeSpec::Cone { diameter, length } => {
                let radius = 0.5 * diameter;
                radius * length / (radius + norm2(radius, length))
            }
        }
    }

    /// Radius over which turning about the shape's origin moves its surface [m]: zero for a
    /// sphere (it turns into itself), the bounding radius otherwise.
    pub fn sweep_radius(&self) -> f64 {
        if matches!(self.core, Core::Point) {
            0.0
        } else {
            self.bounding_radius
        }
    }

    /// True for a sphere (the Hertz law applies to its contacts).
    pub fn is_sphere(&self) -> bool {
        matches!(self.spec, ShapeSpec::Sphere { .. })
    }

    /// A point inside the shape, in its own frame (the centre of its volume for all shapes but
    /// the cone, for which it is the centre of its core's axis).
    pub fn inner_point(&self) -> Point3<f64> {
        match self.core {
            Core::Cone { base, apex, .. } => Point3::new(0.0, 0.0, 0.5 * (base + apex)),
            Core::Hull(ref hull) => hull.centre(),
            _ => Point3::origin(),
        }
    }

    /// The point of the core farthest along `direction` (own frame). A zero direction gives a
    /// defined point of the core.
    pub fn core_support(&self, direction: &Vector3<f64>) -> Point3<f64> {
        let d = direction;
        match self.core {
            Core::Hull(ref hull) => hull.support(d),
            Core::Point => Point3::origin(),
            Core::Segment { half_length } => Point3::new(0.0, 0.0, sign(d.z) * half_length),
            Core::Box { half_extents } => Point3::new(
                sign(d.x) * half_extents.x,
                sign(d.y) * half_extents.y,
                sign(d.z) * half_extents.z,
            ),
            Core::Cylinder {
                radius,
                half_length,
            } => {
                let (x, y) = disc_support(d, radius);
                Point3::new(x, y, sign(d.z) * half_length)
            }
            Core::Cone { radius, base, apex } => {
                let (x, y) = disc_support(d, radius);
                let rim = Vector3::new(x, y, base);
                let tip = Vector3::new(0.0, 0.0, apex);
                if d.dot(&tip) > d.dot(&rim) {
                    Point3::from(tip)
                } else {
                    Point3::from(rim)
                }
            }
            Core::Ellipsoid { semi_axes } => {
                let a2d = semi_axes.component_mul(&semi_axes).component_mul(d);
                let n = semi_axes.component_mul(d).norm();
                if n > 0.0 {
                    Point3::from(a2d / n)
                } else {
                    Point3::new(semi_axes.x, 0.0, 0.0)
                }
            }
        }
    }

    /// The point of the shape farthest along `direction` (own frame): the core's support point
    /// plus the margin along the unit direction. A zero direction gives a defined point.
    pub fn support(&self, direction: &Vector3<f64>) -> Point3<f64> {
        let p = self.core_support(direction);
        match direction.try_normalize(0.0) {
            Some(u) => p + u * self.margin,
            None => p + Vector3::x() * self.margin,
        }
    }

    /// Support point in world coordinates for a world direction, the shape placed at `pose`.
    pub fn support_world(&self, pose: &Isometry3<f64>, direction: &Vector3<f64>) -> Point3<f64> {
        let local = pose.rotation.inverse_transform_vector(direction);
        pose * self.support(&local)
    }

    /// Core support point in world coordinates for a world direction.
    pub fn core_support_world(
        &self,
        pose: &Isometry3<f64>,
        direction: &Vector3<f64>,
    ) -> Point3<f64> {
        let local = pose.rotation.inverse_transform_vector(direction);
        pose * self.core_support(&local)
    }

    /// The support value h(u) = max over the shape of u·x for a world direction `u`.
    pub fn support_value(&self, pose: &Isometry3<f64>, direction: &Vector3<f64>) -> f64 {
        self.support_world(pose, direction).coords.dot(direction)
    }

    /// The tight world axis-aligned bounding box of the shape placed at `pose`: the support
    /// points along the six world half-axes.
    pub fn aabb(&self, pose: &Isometry3<f64>) -> Aabb {
        let mut min = Point3::origin();
        let mut max = Point3::origin();
        for i in 0..3 {
            let mut e = Vector3::zeros();
            e[i] = 1.0;
            max[i] = self.support_world(pose, &e)[i];
            min[i] = self.support_world(pose, &-e)[i];
        }
        Aabb::new(min, max)
    }
}

/// Sign that maps 0 to +1, so that supports of zero directions are defined.
fn sign(x: f64) -> f64 {
    if x < 0.0 {
        -1.0
    } else {
        1.0
    }
}

/// Support of a disc of `radius` in the xy plane.
fn disc_support(d: &Vector3<f64>, radius: f64) -> (f64, f64) {
    let s = norm2(d.x, d.y);
    if s > 0.0 {
        (radius * d.x / s, radius * d.y / s)
    } else {
        (radius, 0.0)
    }
}

/// √(a² + b²). Not `f64::hypot`: that links glibc's `hypot@GLIBC_2.35`, which would raise the
/// oldest glibc the FMU runs on (see docs/fmi.md); the values here never overflow.
fn norm2(a: f64, b: f64) -> f64 {
    (a * a + b * b).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Translation3, UnitQuaternion};

    fn boxed(x: f64, y: f64, z: f64) -> ShapeSpec {
        ShapeSpec::Box {
            lengths: Vector3::new(x, y, z),
        }
    }

    /// The largest inscribed sphere, by hand: half the smallest width; for a cone (radius R,
    /// height H) the inradius of its axial triangle, R·H / (R + √(R² + H²)) (area over
    /// half-perimeter): 0.6·0.8 / (0.6 + 1) = 0.3 for R = 0.6, H = 0.8.
    #[test]
    fn inradius_by_hand() {
        let inradius = |spec: ShapeSpec| Shape::new(&spec).unwrap().inradius();
        assert_eq!(inradius(ShapeSpec::Sphere { diameter: 0.3 }), 0.15);
        assert_eq!(
            inradius(ShapeSpec::Capsule {
                diameter: 0.2,
                length: 1.0
            }),
            0.1
        );
        assert_eq!(inradius(boxed(0.4, 0.1, 2.0)), 0.05);
        assert_eq!(
            inradius(ShapeSpec::Ellipsoid {
                lengths: Vector3::new(1.0, 0.6, 0.8)
            }),
            0.3
        );
        assert_eq!(
            inradius(ShapeSpec::Cylinder {
                diameter: 0.5,
                length: 0.2
            }),
            0.1
        );
        assert_eq!(
            inradius(ShapeSpec::Cylinder {
                diameter: 0.2,
                length: 0.5
            }),
            0.1
        );
        let cone = inradius(ShapeSpec::Cone {
            diameter: 1.2,
            length: 0.8,
        });
        assert!((cone - 0.3).abs() < 1e-15, "{cone}");
    }

    #[test]
    fn rounded_box_keeps_its_outer_dimensions() {
        let s = Shape::new(&boxed(1.0, 2.0, 3.0)).unwrap();
        assert_eq!(s.margin(), 1e-3);
        let p = s.support(&Vector3::x());
        assert!((p.x - 0.5).abs() < 1e-15, "{p}");
        // A vertex is rounded: along the diagonal the support is inside the sharp corner.
        let d = Vector3::new(1.0, 1.0, 1.0);
        let v = s.support(&d);
        let sharp = Vector3::new(0.5, 1.0, 1.5).dot(&d.normalize());
        assert!(v.coords.dot(&d.normalize()) < sharp);
    }

    #[test]
    fn smoothing_radius_is_clamped_to_a_tenth_of_the_smallest_dimension() {
        let s = Shape::new(&boxed(0.005, 1.0, 1.0)).unwrap();
        assert!((s.margin() - 0.0005).abs() < 1e-15);
        let c = Shape::with_smoothing_radius(
            &ShapeSpec::Cylinder {
                diameter: 0.02,
                length: 1.0,
            },
            1.0,
        )
        .unwrap();
        assert!((c.margin() - 0.002).abs() < 1e-15);
        let sphere = Shape::new(&ShapeSpec::Sphere { diameter: 0.1 }).unwrap();
        assert_eq!(sphere.margin(), 0.05);
    }

    #[test]
    fn invalid_dimensions_are_errors() {
        assert!(Shape::new(&ShapeSpec::Sphere { diameter: -1.0 }).is_err());
        assert!(Shape::new(&boxed(1.0, f64::NAN, 1.0)).is_err());
        assert!(Shape::with_smoothing_radius(&boxed(1.0, 1.0, 1.0), -1.0).is_err());
    }

    #[test]
    fn cone_keeps_base_and_apex() {
        let s = Shape::new(&ShapeSpec::Cone {
            diameter: 0.2,
            length: 0.5,
        })
        .unwrap();
        // The apex is rounded: r / sin(half angle) - r below the sharp one.
        let sin = 0.1 / 0.1f64.hypot(0.5);
        let apex = 0.5 - 1e-3 / sin + 1e-3;
        assert!((s.support(&Vector3::z()).z - apex).abs() < 1e-12);
        assert!(s.support(&-Vector3::z()).z.abs() < 1e-12);
        // The rim is rounded too: slightly inside the nominal radius.
        let x = s.support(&Vector3::x()).x;
        assert!(x < 0.1 && x > 0.1 - 2e-3, "{x}");
        // The lateral surface: support along its outward normal lies on the nominal cone.
        let n = Vector3::new(0.5, 0.0, 0.1).normalize();
        let p = s.support(&n);
        let h = Vector3::new(0.0, 0.0, 0.5).dot(&n); // the apex and rim have equal support
        assert!((p.coords.dot(&n) - h).abs() < 1e-12);
    }

    #[test]
    fn ellipsoid_support_is_exact_on_the_axes() {
        let s = Shape::new(&ShapeSpec::Ellipsoid {
            lengths: Vector3::new(0.2, 0.4, 0.6),
        })
        .unwrap();
        assert!((s.support(&Vector3::y()).y - 0.2).abs() < 1e-15);
        assert!((s.support(&-Vector3::z()).z + 0.3).abs() < 1e-15);
    }

    #[test]
    fn zero_direction_gives_a_point_of_the_shape() {
        for spec in [
            ShapeSpec::Sphere { diameter: 1.0 },
            boxed(1.0, 1.0, 1.0),
            ShapeSpec::Cone {
                diameter: 1.0,
                length: 1.0,
            },
        ] {
            let p = Shape::new(&spec).unwrap().support(&Vector3::zeros());
            assert!(p.coords.iter().all(|c| c.is_finite()));
        }
    }

    #[test]
    fn aabb_of_a_rotated_box_is_tight() {
        let s = Shape::with_smoothing_radius(&boxed(2.0, 2.0, 2.0), 0.0).unwrap();
        let pose = Isometry3::from_parts(
            Translation3::new(1.0, 0.0, 0.0),
            UnitQuaternion::from_axis_angle(&Vector3::z_axis(), std::f64::consts::FRAC_PI_4),
        );
        let b = s.aabb(&pose);
        let h = 2f64.sqrt();
        assert!((b.max.x - (1.0 + h)).abs() < 1e-12 && (b.min.y + h).abs() < 1e-12);
        assert!((b.max.z - 1.0).abs() < 1e-12);
    }
}
