//! Mass properties of homogeneous shapes (closed forms) and checks of user-given inertia.

use super::spec::{MassSpec, ShapeSpec};
use nalgebra::{Matrix3, Vector3};
use std::f64::consts::PI;

/// Volume [m3], center of volume in the shape's frame [m] and inertia tensor per unit density
/// about that center [m5].
pub fn unit_density_properties(shape: &ShapeSpec) -> (f64, Vector3<f64>, Matrix3<f64>) {
    let diag = |x: f64, y: f64, z: f64| Matrix3::from_diagonal(&Vector3::new(x, y, z));
    match shape {
        ShapeSpec::Sphere { diameter } => {
            let r = diameter / 2.0;
            let v = 4.0 / 3.0 * PI * r.powi(3);
            let i = 0.4 * v * r * r;
            (v, Vector3::zeros(), diag(i, i, i))
        }
        ShapeSpec::Box { lengths } => {
            let (a, b, c) = (lengths.x, lengths.y, lengths.z);
            let v = a * b * c;
            (
                v,
                Vector3::zeros(),
                diag(
                    v * (b * b + c * c) / 12.0,
                    v * (a * a + c * c) / 12.0,
                    v * (a * a + b * b) / 12.0,
                ),
            )
        }
        ShapeSpec::Cylinder { diameter, length } => {
            let (r, h) = (diameter / 2.0, *length);
            let v = PI * r * r * h;
            let ixx = v * (3.0 * r * r + h * h) / 12.0;
            (v, Vector3::zeros(), diag(ixx, ixx, v * r * r / 2.0))
        }
        ShapeSpec::Capsule { diameter, length } => {
            let (r, h) = (diameter / 2.0, *length);
            let vc = PI * r * r * h;
            let vs = 4.0 / 3.0 * PI * r.powi(3);
            // Each hemisphere about the capsule's center: its own inertia about its flat face's
            // diameter (2/5 m r²) moved by the parallel-axis theorem through its centroid (3r/8
            // from the face) out to h/2 + 3r/8.
            let ixx = vc * (3.0 * r * r + h * h) / 12.0
                + vs * (0.4 * r * r + h * h / 4.0 + 3.0 * h * r / 8.0);
            let izz = vc * r * r / 2.0 + 0.4 * vs * r * r;
            (vc + vs, Vector3::zeros(), diag(ixx, ixx, izz))
        }
        ShapeSpec::Cone { diameter, length } => {
            let (r, h) = (diameter / 2.0, *length);
            let v = PI * r * r * h / 3.0;
            let ixx = v * (3.0 * r * r / 20.0 + 3.0 * h * h / 80.0);
            (
                v,
                Vector3::new(0.0, 0.0, h / 4.0),
                diag(ixx, ixx, 0.3 * v * r * r),
            )
        }
        ShapeSpec::Mesh(mesh) => crate::mesh::mass::unit_density_properties(
            &crate::mesh::TriangleMesh::joined(&mesh.pieces),
        ),
        ShapeSpec::Ellipsoid { lengths } => {
            let (a, b, c) = (lengths.x / 2.0, lengths.y / 2.0, lengths.z / 2.0);
            let v = 4.0 / 3.0 * PI * a * b * c;
            (
                v,
                Vector3::zeros(),
                diag(
                    v * (b * b + c * c) / 5.0,
                    v * (a * a + c * c) / 5.0,
                    v * (a * a + b * b) / 5.0,
                ),
            )
        }
    }
}

/// Mass properties of a homogeneous body of the shape and density [kg/m3].
pub fn from_density(shape: &ShapeSpec, density: f64) -> MassSpec {
    let (v, c, i) = unit_density_properties(shape);
    MassSpec {
        mass: density * v,
        center_of_mass: c,
        inertia: i * density,
    }
}

/// Why mass properties computed from a shape are beyond what the engine can compute with, or
/// `None`: the mass and every inertia entry finite (a sphere of 2e99 m has a finite mass, but its
/// inertia overflows), and the mass above zero (a shape so thin that its volume rounds to zero).
pub fn out_of_range(properties: &MassSpec) -> Option<String> {
    let MassSpec { mass, inertia, .. } = properties;
    if !(mass.is_finite() && inertia.iter().all(|v| v.is_finite())) {
        return Some(format!(
            "its mass ({mass:e} kg) or inertia (largest entry {:e} kg.m2) is not finite",
            inertia.iter().fold(0.0_f64, |a, v| a.max(v.abs()))
        ));
    }
    if *mass <= 0.0 {
        return Some(format!("its mass is {mass:e} kg, not above zero"));
    }
    None
}

/// Why an inertia tensor cannot belong to a rigid body, or `None` when it can: it must be
/// symmetric, positive semi-definite, and its principal moments must satisfy the triangle
/// inequality (each at most the sum of the other two).
pub fn inertia_problem(i: &Matrix3<f64>) -> Option<String> {
    let scale = i
        .iter()
        .fold(0.0f64, |a, v| a.max(v.abs()))
        .max(f64::MIN_POSITIVE);
    let tol = 1e-9 * scale;
    if (i - i.transpose()).iter().any(|v| v.abs() > tol) {
        return Some("the inertia tensor is not symmetric".into());
    }
    let eig = i.symmetric_eigen().eigenvalues;
    let mut p = [eig[0], eig[1], eig[2]];
    p.sort_by(|a, b| a.total_cmp(b));
    if p[0] < -tol {
        return Some(format!(
            "the inertia tensor is not positive semi-definite (a principal moment is {:e} kg.m2)",
            p[0]
        ));
    }
    if p[2] > p[0] + p[1] + tol {
        return Some(format!(
            "the principal moments of inertia {:e}, {:e}, {:e} kg.m2 violate the triangle \
             inequality: the largest must not exceed the sum of the other two",
            p[0], p[1], p[2]
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift64*) for sampling, uniform in [0, 1).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> f64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545F4914F6CDD1D) >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// Volume, centroid and inertia per unit density by sampling the bounding box.
    fn sampled(
        inside: &dyn Fn(Vector3<f64>) -> bool,
        lo: Vector3<f64>,
        hi: Vector3<f64>,
    ) -> (f64, Vector3<f64>, Matrix3<f64>) {
        let n = 400_000;
        let mut rng = Rng(0x9E3779B97F4A7C15);
        let box_volume = (hi - lo).product();
        let mut count = 0usize;
        let mut sum = Vector3::zeros();
        let mut second = Matrix3::zeros();
        for _ in 0..n {
            let p = Vector3::new(
                lo.x + (hi.x - lo.x) * rng.next(),
                lo.y + (hi.y - lo.y) * rng.next(),
                lo.z + (hi.z - lo.z) * rng.next(),
            );
            if inside(p) {
                count += 1;
                sum += p;
                second += p * p.transpose();
            }
        }
        let dv = box_volume / n as f64;
        let v = count as f64 * dv;
        let c = sum / count as f64;
        // Inertia about the centroid: trace(S) I - S with S the second moment about the centroid.
        let s = second * dv - c * c.transpose() * v;
        (v, c, Matrix3::identity() * s.trace() - s)
    }

    fn compare(
        shape: ShapeSpec,
        inside: &dyn Fn(Vector3<f64>) -> bool,
        lo: Vector3<f64>,
        hi: Vector3<f64>,
    ) {
        let (v, c, i) = unit_density_properties(&shape);
        let (vs, cs, is) = sampled(inside, lo, hi);
        let size = (hi - lo).norm();
        assert!(
            (v - vs).abs() < 0.01 * v,
            "{shape:?}: volume {v} vs sampled {vs}"
        );
        assert!(
            (c - cs).norm() < 0.01 * size,
            "{shape:?}: center {c} vs sampled {cs}"
        );
        let scale = i.abs().max();
        assert!(
            (i - is).abs().max() < 0.02 * scale,
            "{shape:?}: inertia {i} vs sampled {is}"
        );
    }

    #[test]
    fn closed_forms_match_sampling() {
        let v = Vector3::new;
        compare(
            ShapeSpec::Sphere { diameter: 0.2 },
            &|p| p.norm() <= 0.1,
            v(-0.1, -0.1, -0.1),
            v(0.1, 0.1, 0.1),
        );
        compare(
            ShapeSpec::Box {
                lengths: v(0.3, 0.2, 0.1),
            },
            &|_| true,
            v(-0.15, -0.1, -0.05),
            v(0.15, 0.1, 0.05),
        );
        compare(
            ShapeSpec::Cylinder {
                diameter: 0.2,
                length: 0.5,
            },
            &|p| p.x * p.x + p.y * p.y <= 0.01,
            v(-0.1, -0.1, -0.25),
            v(0.1, 0.1, 0.25),
        );
        compare(
            ShapeSpec::Capsule {
                diameter: 0.2,
                length: 0.3,
            },
            &|p| {
                let z = p.z.clamp(-0.15, 0.15);
                (p - v(0.0, 0.0, z)).norm() <= 0.1
            },
            v(-0.1, -0.1, -0.25),
            v(0.1, 0.1, 0.25),
        );
        compare(
            ShapeSpec::Cone {
                diameter: 0.4,
                length: 0.6,
            },
            &|p| p.z >= 0.0 && (p.x * p.x + p.y * p.y).sqrt() <= 0.2 * (1.0 - p.z / 0.6),
            v(-0.2, -0.2, 0.0),
            v(0.2, 0.2, 0.6),
        );
        compare(
            ShapeSpec::Ellipsoid {
                lengths: v(0.6, 0.4, 0.2),
            },
            &|p| (p.x / 0.3).powi(2) + (p.y / 0.2).powi(2) + (p.z / 0.1).powi(2) <= 1.0,
            v(-0.3, -0.2, -0.1),
            v(0.3, 0.2, 0.1),
        );
    }

    #[test]
    fn known_table_values() {
        // Solid steel sphere of 0.1 m diameter: m = 7850 * pi/6 * 0.1^3 = 4.1102 kg and
        // I = 2/5 m r^2 with r = 0.05 m.
        let m = from_density(&ShapeSpec::Sphere { diameter: 0.1 }, 7850.0);
        assert!((m.mass - 4.1102).abs() < 1e-3);
        assert!((m.inertia[(0, 0)] - 0.4 * m.mass * 0.0025).abs() < 1e-12);
        // Cone: centroid a quarter of the height above the base.
        let c = from_density(
            &ShapeSpec::Cone {
                diameter: 1.0,
                length: 2.0,
            },
            1.0,
        );
        assert!((c.center_of_mass.z - 0.5).abs() < 1e-12);
    }

    #[test]
    fn inertia_checks() {
        let d = |x, y, z| Matrix3::from_diagonal(&Vector3::new(x, y, z));
        assert!(inertia_problem(&d(1.0, 2.0, 3.0)).is_none());
        assert!(inertia_problem(&d(0.0, 0.0, 0.0)).is_none());
        assert!(inertia_problem(&d(1.0, 1.0, 3.0))
            .unwrap()
            .contains("triangle"));
        assert!(inertia_problem(&d(-1.0, 2.0, 2.0))
            .unwrap()
            .contains("positive"));
        let mut a = d(1.0, 1.0, 1.0);
        a[(0, 1)] = 0.1;
        assert!(inertia_problem(&a).unwrap().contains("symmetric"));
    }
}
