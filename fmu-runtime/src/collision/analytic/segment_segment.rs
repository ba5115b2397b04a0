//! Segment–segment signed distance: two capsules (the edge capsules of boxes).

use nalgebra::{Point3, Unit, Vector3};

use super::sphere_sphere::contact_of_rounded_points;
use crate::collision::Contact;

/// The parameters (s, t) in [0, 1]² of the closest points p0 + s·(p1 − p0) and
/// q0 + t·(q1 − q0) of two segments (Ericson, *Real-Time Collision Detection*, §5.1.9).
pub fn closest_parameters(
    p0: &Point3<f64>,
    p1: &Point3<f64>,
    q0: &Point3<f64>,
    q1: &Point3<f64>,
) -> (f64, f64) {
    let (d1, d2, r) = (p1 - p0, q1 - q0, p0 - q0);
    let (a, e, f) = (d1.norm_squared(), d2.norm_squared(), d2.dot(&r));
    if a <= f64::MIN_POSITIVE && e <= f64::MIN_POSITIVE {
        return (0.0, 0.0);
    }
    if a <= f64::MIN_POSITIVE {
        return (0.0, (f / e).clamp(0.0, 1.0));
    }
    let c = d1.dot(&r);
    if e <= f64::MIN_POSITIVE {
        return ((-c / a).clamp(0.0, 1.0), 0.0);
    }
    let b = d1.dot(&d2);
    let denominator = a * e - b * b;
    let s = if denominator > 0.0 {
        ((b * f - c * e) / denominator).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let t = (b * s + f) / e;
    if t < 0.0 {
        ((-c / a).clamp(0.0, 1.0), 0.0)
    } else if t > 1.0 {
        (((b - c) / a).clamp(0.0, 1.0), 1.0)
    } else {
        (s, t)
    }
}

/// Signed distance of a capsule around the segment p0–p1 (radius `radius_a`) and a capsule
/// around q0–q1 (`radius_b`), world coordinates. Intersecting core segments take the normal
/// along the cross product of their directions (+x if they are also parallel).
pub fn distance_segment_segment(
    p0: &Point3<f64>,
    p1: &Point3<f64>,
    radius_a: f64,
    q0: &Point3<f64>,
    q1: &Point3<f64>,
    radius_b: f64,
) -> Contact {
    let (s, t) = closest_parameters(p0, p1, q0, q1);
    let a = p0 + (p1 - p0) * s;
    let b = q0 + (q1 - q0) * t;
    contact_of_rounded_points(&a, radius_a, &b, radius_b, || {
        Unit::try_new((p1 - p0).cross(&(q1 - q0)), f64::MIN_POSITIVE).unwrap_or(Vector3::x_axis())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crossing_parallel_and_end_to_end_segments() {
        // Crossing at right angles, 0.3 apart in y: closest at the middles.
        let c = distance_segment_segment(
            &Point3::new(-1.0, 0.0, 0.0),
            &Point3::new(1.0, 0.0, 0.0),
            0.1,
            &Point3::new(0.0, 0.3, -1.0),
            &Point3::new(0.0, 0.3, 1.0),
            0.05,
        );
        assert!((c.distance - 0.15).abs() < 1e-15);
        assert_eq!(c.normal.into_inner(), Vector3::y());
        assert_eq!(c.point_a, Point3::new(0.0, 0.1, 0.0));
        assert!((c.point_b - Point3::new(0.0, 0.25, 0.0)).norm() < 1e-15);
        // Past the end of the first: the closest point is its end.
        let (s, t) = closest_parameters(
            &Point3::new(0.0, 0.0, 0.0),
            &Point3::new(1.0, 0.0, 0.0),
            &Point3::new(2.0, 1.0, -1.0),
            &Point3::new(2.0, 1.0, 1.0),
        );
        assert_eq!((s, t), (1.0, 0.5));
        // Parallel, overlapping: some closest pair at distance 1.
        let c = distance_segment_segment(
            &Point3::new(0.0, 0.0, 0.0),
            &Point3::new(2.0, 0.0, 0.0),
            0.0,
            &Point3::new(1.0, 1.0, 0.0),
            &Point3::new(3.0, 1.0, 0.0),
            0.0,
        );
        assert!((c.distance - 1.0).abs() < 1e-15);
        // Intersecting cores: the depth of both radii, a finite normal.
        let c = distance_segment_segment(
            &Point3::new(-1.0, 0.0, 0.0),
            &Point3::new(1.0, 0.0, 0.0),
            0.1,
            &Point3::new(0.0, 0.0, -1.0),
            &Point3::new(0.0, 0.0, 1.0),
            0.1,
        );
        assert_eq!(c.distance, -0.2);
        assert!(c.normal.iter().all(|x| x.is_finite()));
    }

    /// A zero-length segment (a point) against a segment: the point's parameter is 0 and the
    /// other's is the clamped projection of the point, by hand: (0.5, 1, 0) onto the segment
    /// from (−1, 0, 0) to (1, 0, 0) is at t = 0.75, (3, 0, 0) at t = 1.
    #[test]
    fn a_point_against_a_segment() {
        let point = Point3::new(0.5, 1.0, 0.0);
        let (q0, q1) = (Point3::new(-1.0, 0.0, 0.0), Point3::new(1.0, 0.0, 0.0));
        assert_eq!(closest_parameters(&point, &point, &q0, &q1), (0.0, 0.75));
        assert_eq!(closest_parameters(&q0, &q1, &point, &point), (0.75, 0.0));
        let far = Point3::new(3.0, 0.0, 0.0);
        assert_eq!(closest_parameters(&far, &far, &q0, &q1), (0.0, 1.0));
        assert_eq!(closest_parameters(&point, &point, &far, &far), (0.0, 0.0));
    }
}
