//! Sphere–sphere signed distance.

use nalgebra::{Point3, Unit, Vector3};

use crate::collision::Contact;

/// Signed distance of a sphere (centre `center_a`, radius `radius_a`) and a sphere
/// (`center_b`, `radius_b`), world coordinates. Coincident centres give the normal +x.
pub fn distance_sphere_sphere(
    center_a: &Point3<f64>,
    radius_a: f64,
    center_b: &Point3<f64>,
    radius_b: f64,
) -> Contact {
    contact_of_rounded_points(center_a, radius_a, center_b, radius_b, Vector3::x_axis)
}

/// The contact of two balls around the core points `a` and `b` (each the closest point of its
/// core to the other): normal from a to b, points on the balls' surfaces. `coincident` gives
/// the normal when the two points coincide.
pub(super) fn contact_of_rounded_points(
    a: &Point3<f64>,
    radius_a: f64,
    b: &Point3<f64>,
    radius_b: f64,
    coincident: impl FnOnce() -> Unit<Vector3<f64>>,
) -> Contact {
    let d = b - a;
    let length = d.norm();
    let normal = if length > 0.0 {
        Unit::new_unchecked(d / length)
    } else {
        coincident()
    };
    Contact {
        distance: length - radius_a - radius_b,
        point_a: a + normal.into_inner() * radius_a,
        point_b: b - normal.into_inner() * radius_b,
        normal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_values() {
        let c = distance_sphere_sphere(&Point3::origin(), 1.0, &Point3::new(0.0, 3.0, 0.0), 0.5);
        assert_eq!(c.distance, 1.5);
        assert_eq!(c.normal.into_inner(), Vector3::y());
        assert_eq!(c.point_a, Point3::new(0.0, 1.0, 0.0));
        assert_eq!(c.point_b, Point3::new(0.0, 2.5, 0.0));
        let same = distance_sphere_sphere(&Point3::origin(), 1.0, &Point3::origin(), 1.0);
        assert_eq!(same.distance, -2.0);
        assert!(same.normal.iter().all(|x| x.is_finite()));
    }
}
