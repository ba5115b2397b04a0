//! Solid materials that `mass { material = NAME }` may name: density and elastic constants.
//!
//! Steel, aluminium and dry wood are common handbook values. The billiard entries follow the
//! solid-material palette of Modia3D (`palettes/solidMaterials.json` of Modia3D.jl), whose
//! billiard table and cushion carry the values of dry wood. Rubber is a soft natural rubber and
//! plastic an ABS-like thermoplastic; both vary widely between grades.

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SolidMaterial {
    pub name: &'static str,
    /// [kg/m3]
    pub density: f64,
    /// Young's modulus [Pa].
    pub youngs_modulus: f64,
    /// Poisson's ratio [1].
    pub poissons_ratio: f64,
}

pub const MATERIALS: &[SolidMaterial] = &[
    SolidMaterial {
        name: "steel",
        density: 7850.0,
        youngs_modulus: 2.0e11,
        poissons_ratio: 0.3,
    },
    SolidMaterial {
        name: "aluminium",
        density: 2700.0,
        youngs_modulus: 6.9e10,
        poissons_ratio: 0.32,
    },
    SolidMaterial {
        name: "dry_wood",
        density: 700.0,
        youngs_modulus: 1.1e10,
        poissons_ratio: 0.4,
    },
    SolidMaterial {
        name: "billiard_ball",
        density: 1768.0,
        youngs_modulus: 5.4e9,
        poissons_ratio: 0.34,
    },
    SolidMaterial {
        name: "billiard_table",
        density: 700.0,
        youngs_modulus: 1.1e10,
        poissons_ratio: 0.4,
    },
    SolidMaterial {
        name: "cushion",
        density: 700.0,
        youngs_modulus: 1.1e10,
        poissons_ratio: 0.4,
    },
    SolidMaterial {
        name: "rubber",
        density: 920.0,
        youngs_modulus: 5.0e7,
        poissons_ratio: 0.49,
    },
    SolidMaterial {
        name: "plastic",
        density: 1050.0,
        youngs_modulus: 2.3e9,
        poissons_ratio: 0.35,
    },
];

pub fn lookup(name: &str) -> Option<&'static SolidMaterial> {
    MATERIALS.iter().find(|m| m.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn billiard_ball_density_matches_a_regulation_ball() {
        // A pool ball: 57.15 mm diameter, 156 g to 170 g.
        let r: f64 = 0.05715 / 2.0;
        let volume = 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
        let m = lookup("billiard_ball").unwrap().density * volume;
        assert!((0.156..=0.175).contains(&m), "{m}");
        assert!(lookup("unobtainium").is_none());
    }
}
