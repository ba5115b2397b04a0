//! Sphere–(rounded) box signed distance.

use nalgebra::{Isometry3, Point3, Unit, Vector3};

use crate::collision::Contact;

/// Signed distance of a sphere (a: centre `center`, radius `radius`, world) and a box
/// (b: placed at `box_pose`, core half extents `core_half_extents`, rounded by `box_margin`,
/// so its outer half extents are core + margin). The normal points from the sphere to the box.
pub fn distance_sphere_box(
    center: &Point3<f64>,
    radius: f64,
    box_pose: &Isometry3<f64>,
    core_half_extents: &Vector3<f64>,
    box_margin: f64,
) -> Contact {
    let c = box_pose.inverse_transform_point(center);
    let h = core_half_extents;
    let q = Point3::new(
        c.x.clamp(-h.x, h.x),
        c.y.clamp(-h.y, h.y),
        c.z.clamp(-h.z, h.z),
    );
    let diff = c - q;
    let length = diff.norm();
    // Outward normal of the box at its closest point (box frame), the distance, and the box's
    // surface point (box frame).
    let (outward, distance, on_box) = if length > 0.0 {
        let n = diff / length;
        (n, length - radius - box_margin, q + n * box_margin)
    } else {
        // The centre is inside the core: the nearest face.
        let slack = Vector3::new(h.x - c.x.abs(), h.y - c.y.abs(), h.z - c.z.abs());
        let k = slack.imin();
        let mut n = Vector3::zeros();
        n[k] = if c[k] < 0.0 { -1.0 } else { 1.0 };
        let mut on_face = c;
        on_face[k] = n[k] * (h[k] + box_margin);
        (n, -(slack[k] + radius + box_margin), on_face)
    };
    let normal = Unit::new_unchecked(box_pose.rotation * -outward);
    Contact {
        distance,
        point_a: center + normal.into_inner() * radius,
        point_b: box_pose * on_box,
        normal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_values() {
        let pose = Isometry3::translation(1.0, 0.0, 0.0);
        let h = Vector3::new(0.5, 0.5, 0.5);
        // Above a face.
        let c = distance_sphere_box(&Point3::new(1.0, 2.0, 0.0), 0.5, &pose, &h, 0.0);
        assert!((c.distance - 1.0).abs() < 1e-15);
        assert_eq!(c.normal.into_inner(), -Vector3::y());
        assert_eq!(c.point_b, Point3::new(1.0, 0.5, 0.0));
        // Off a vertex.
        let c = distance_sphere_box(&Point3::new(2.5, 1.5, 1.5), 0.1, &pose, &h, 0.0);
        assert!((c.distance - (3f64.sqrt() - 0.1)).abs() < 1e-14);
        // Centre inside: nearest face is +x at 0.1 from the centre.
        let c = distance_sphere_box(&Point3::new(1.4, 0.0, 0.1), 0.2, &pose, &h, 0.0);
        assert!((c.distance + 0.3).abs() < 1e-14);
        assert_eq!(c.normal.into_inner(), -Vector3::x());
    }
}
