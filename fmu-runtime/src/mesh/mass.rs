//! Mass properties of a closed polyhedron, exact up to rounding: the divergence theorem turns
//! the volume integrals of 1, x and x xᵀ into sums over the surface's triangles, each the cone
//! of one triangle over a reference point (Mirtich's and Eberly's formulas, in covariance form:
//! for the tetrahedron of the reference point and corners a, b, c, with 6V = a·(b × c),
//! ∫x dV = V (a + b + c)/4 and ∫x xᵀ dV = V/20 (a aᵀ + b bᵀ + c cᵀ + s sᵀ), s = a + b + c).

use super::TriangleMesh;
use nalgebra::{Matrix3, Vector3};

/// Volume [m3], centre of volume [m] and inertia tensor per unit density about that centre
/// [m5] of the solid a closed, outward-oriented mesh bounds (the same triple as
/// [`crate::model::mass::unit_density_properties`] gives for the primitive shapes). An open
/// mesh gives numbers that mean nothing: check [`TriangleMesh::open_edges`] first.
pub fn unit_density_properties(mesh: &TriangleMesh) -> (f64, Vector3<f64>, Matrix3<f64>) {
    // Sums relative to a point amid the vertices, so that a part far from its frame's origin
    // does not lose digits to cancellation.
    let origin = if mesh.vertices.is_empty() {
        Vector3::zeros()
    } else {
        mesh.vertices.iter().map(|p| p.coords).sum::<Vector3<f64>>() / mesh.vertices.len() as f64
    };
    let mut six_volume = 0.0;
    let mut first = Vector3::zeros();
    let mut second = Matrix3::zeros();
    for [a, b, c] in mesh.corners() {
        let (a, b, c) = (a.coords - origin, b.coords - origin, c.coords - origin);
        let det = a.dot(&b.cross(&c));
        let s = a + b + c;
        six_volume += det;
        first += s * det;
        second +=
            (a * a.transpose() + b * b.transpose() + c * c.transpose() + s * s.transpose()) * det;
    }
    let volume = six_volume / 6.0;
    // ∫x dV = Σ det/24 · s; ∫x xᵀ dV = Σ det/120 · (…).
    let centre = if volume != 0.0 {
        first / (24.0 * volume)
    } else {
        Vector3::zeros()
    };
    let covariance = second / 120.0 - centre * centre.transpose() * volume;
    let inertia = Matrix3::identity() * covariance.trace() - covariance;
    (volume, centre + origin, inertia)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Point3;

    fn relative(a: f64, b: f64) -> f64 {
        (a - b).abs() / b.abs()
    }

    /// A box a × b × c: V = abc, I = V/12 diag(b² + c², a² + c², a² + b²) about its centre.
    #[test]
    fn a_mesh_box_has_the_closed_form_of_a_box() {
        let (a, b, c) = (0.3, 0.7, 1.9);
        let shift = Vector3::new(5.0, -3.0, 2.0);
        let mut mesh = TriangleMesh::unit_cube().scaled(&Vector3::new(a, b, c));
        for p in &mut mesh.vertices {
            *p += shift;
        }
        let (v, centre, i) = unit_density_properties(&mesh);
        let expected_v = a * b * c;
        let expected =
            Vector3::new(b * b + c * c, a * a + c * c, a * a + b * b) * expected_v / 12.0;
        let mut worst = relative(v, expected_v);
        worst = worst.max((centre - shift - Vector3::new(a, b, c) / 2.0).norm() / c);
        for k in 0..3 {
            worst = worst.max(relative(i[(k, k)], expected[k]));
        }
        let off = i.abs().sum() - i.diagonal().abs().sum();
        worst = worst.max(off / expected.max());
        println!("mesh box: worst relative error {worst:.1e}");
        assert!(worst < 1e-14, "{worst}");
    }

    /// The tetrahedron of the origin and the unit points: V = 1/6, centre (1/4, 1/4, 1/4),
    /// about the origin ∫x² dV = 1/60 and ∫xy dV = 1/120, so about the centre
    /// I_xx = 2 (1/60) − 2 V/16 = 1/80 and I_xy = −(1/120 − V/16) = 1/480.
    #[test]
    fn a_tetrahedron_has_its_closed_form() {
        let o = Point3::origin();
        let (x, y, z) = (
            Point3::new(1.0, 0.0, 0.0),
            Point3::new(0.0, 1.0, 0.0),
            Point3::new(0.0, 0.0, 1.0),
        );
        let mesh = TriangleMesh::from_corners([[o, y, x], [o, x, z], [o, z, y], [x, y, z]]);
        assert_eq!(mesh.open_edges(), 0);
        let (v, centre, i) = unit_density_properties(&mesh);
        let mut worst = relative(v, 1.0 / 6.0);
        worst = worst.max((centre - Vector3::repeat(0.25)).norm() / 0.25);
        for r in 0..3 {
            for c in 0..3 {
                let expected = if r == c { 1.0 / 80.0 } else { 1.0 / 480.0 };
                worst = worst.max(relative(i[(r, c)], expected));
            }
        }
        println!("tetrahedron: worst relative error {worst:.1e}");
        assert!(worst < 1e-13, "{worst}");
    }

    /// An icosahedron subdivided four times onto the unit sphere (5120 triangles) lies between
    /// the sphere and the sphere of its smallest face distance ρ: its volume and its moment of
    /// inertia per unit density lie between the sphere's closed forms 4/3 π r³ and 8/15 π r⁵
    /// at ρ and at 1 (the polyhedral error is all they may differ by), and its tensor is
    /// isotropic (icosahedral symmetry) with its centre at the origin.
    #[test]
    fn a_fine_icosphere_lies_between_the_spheres_that_bound_it() {
        let mesh = TriangleMesh::icosphere(4);
        assert_eq!(mesh.triangles.len(), 5120);
        assert_eq!(mesh.open_edges(), 0);
        let rho = mesh
            .corners()
            .map(|[a, b, c]| (b - a).cross(&(c - a)).normalize().dot(&a.coords))
            .fold(f64::INFINITY, f64::min);
        let (v, centre, i) = unit_density_properties(&mesh);
        let pi = std::f64::consts::PI;
        let (v_in, v_out) = (4.0 / 3.0 * pi * rho.powi(3), 4.0 / 3.0 * pi);
        let (i_in, i_out) = (8.0 / 15.0 * pi * rho.powi(5), 8.0 / 15.0 * pi);
        println!(
            "icosphere: ρ = {rho:.6}, volume {v:.6} in [{v_in:.6}, {v_out:.6}], I_xx {:.6} in \
             [{i_in:.6}, {i_out:.6}], off the sphere's volume by {:.1e}",
            i[(0, 0)],
            (v_out - v) / v_out
        );
        assert!(v_in < v && v < v_out, "{v}");
        for k in 0..3 {
            assert!(i_in < i[(k, k)] && i[(k, k)] < i_out, "{}", i[(k, k)]);
            assert!((i[(k, k)] - i[(0, 0)]).abs() < 1e-13, "{i}");
        }
        assert!(centre.norm() < 1e-15, "{centre}");
        assert!(i.abs().sum() - i.diagonal().abs().sum() < 1e-13, "{i}");
    }
}
