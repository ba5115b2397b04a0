//! Mass properties of a super-object, merged once before the simulation ([NO19] §4.3.2).

use crate::model::MassSpec;
use nalgebra::{Isometry3, Matrix3, Vector3};

/// Mass, center of mass and inertia of a rigid group, in the super-object's root frame.
#[derive(Debug, Clone, PartialEq)]
pub struct MergedMass {
    pub mass: f64,
    pub center: Vector3<f64>,
    /// Inertia tensor about `center`, in root-frame axes.
    pub inertia: Matrix3<f64>,
}

impl MergedMass {
    /// Merges parts given as (mass properties in the part's frame, the part's pose in the root
    /// frame). Returns `None` when the total mass is zero.
    pub fn merge<'a>(
        parts: impl IntoIterator<Item = (&'a MassSpec, Isometry3<f64>)>,
    ) -> Option<Self> {
        let parts: Vec<(f64, Vector3<f64>, Matrix3<f64>)> = parts
            .into_iter()
            .filter(|(m, _)| m.mass > 0.0)
            .map(|(m, pose)| {
                let rotation = pose.rotation.to_rotation_matrix();
                let center = pose * nalgebra::Point3::from(m.center_of_mass);
                let inertia = rotation.matrix() * m.inertia * rotation.matrix().transpose();
                (m.mass, center.coords, inertia)
            })
            .collect();
        let mass: f64 = parts.iter().map(|p| p.0).sum();
        if mass <= 0.0 {
            return None;
        }
        let center = parts.iter().map(|p| p.0 * p.1).sum::<Vector3<f64>>() / mass;
        let inertia = parts
            .iter()
            .map(|(m, c, i)| i + steiner(*m, c - center))
            .sum::<Matrix3<f64>>();
        Some(MergedMass {
            mass,
            center,
            inertia,
        })
    }
}

/// Parallel-axis term of a point mass `m` at offset `d`: m (|d|² E − d dᵀ).
pub fn steiner(m: f64, d: Vector3<f64>) -> Matrix3<f64> {
    m * (Matrix3::identity() * d.norm_squared() - d * d.transpose())
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{UnitQuaternion, Vector3};

    /// Two equal point masses at ±a on x: total inertia about the middle is 2 m a² about y and z.
    #[test]
    fn two_point_masses_follow_the_parallel_axis_theorem() {
        let point = MassSpec {
            mass: 2.0,
            center_of_mass: Vector3::zeros(),
            inertia: Matrix3::zeros(),
        };
        let a = 0.3;
        let left = Isometry3::translation(-a, 0.0, 0.0);
        let right = Isometry3::translation(a, 0.0, 0.0);
        let merged = MergedMass::merge([(&point, left), (&point, right)]).expect("mass");
        assert_eq!(merged.mass, 4.0);
        assert!(merged.center.norm() < 1e-15);
        let expected = 2.0 * 2.0 * a * a;
        assert!((merged.inertia[(1, 1)] - expected).abs() < 1e-12);
        assert!((merged.inertia[(2, 2)] - expected).abs() < 1e-12);
        assert!(merged.inertia[(0, 0)].abs() < 1e-12);
    }

    /// A rotated part's inertia is rotated into the root frame: a rod along x turned by 90° about
    /// z is a rod along y.
    #[test]
    fn rotated_part_inertia_is_expressed_in_root_axes() {
        let rod = MassSpec {
            mass: 1.0,
            center_of_mass: Vector3::new(0.5, 0.0, 0.0),
            inertia: Matrix3::from_diagonal(&Vector3::new(0.0, 1.0 / 12.0, 1.0 / 12.0)),
        };
        let pose = Isometry3::from_parts(
            Vector3::zeros().into(),
            UnitQuaternion::from_axis_angle(&Vector3::z_axis(), std::f64::consts::FRAC_PI_2),
        );
        let merged = MergedMass::merge([(&rod, pose)]).expect("mass");
        assert!((merged.center - Vector3::new(0.0, 0.5, 0.0)).norm() < 1e-12);
        assert!((merged.inertia[(0, 0)] - 1.0 / 12.0).abs() < 1e-12);
        assert!(merged.inertia[(1, 1)].abs() < 1e-12);
    }
}
