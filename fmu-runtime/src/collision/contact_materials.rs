//! Contact-pair materials: what happens when two solid materials touch.
//!
//! The solid materials themselves (density, E, ν) are in [`crate::model::materials`]; this table
//! holds, per *unordered* pair of solid-material names, the coefficient of restitution `cor`, the
//! sliding friction coefficient `mu_k`, the static friction coefficient `mu_s` and the
//! rotational (rolling) resistance coefficient `mu_r` of the contact law ([`super::response`]).
//!
//! Shipped data: steel on dry wood (the bouncing ball, cor = 0.7), the billiard pairs of Modia3D's
//! billiard example (ball–ball, ball–table, ball–cushion), and handbook-style values for every
//! pair among steel, aluminium, dry wood, rubber and plastic. Friction coefficients of dry
//! contacts vary with surface finish; the model file may override any pair.

use std::collections::BTreeMap;

use super::CollisionError;

/// Default velocity below which friction, restitution and the sliding direction are
/// regularized [m/s].
pub const DEFAULT_V_SMALL: f64 = 0.01;
/// Default angular velocity below which the rolling-resistance direction is regularized
/// [rad/s].
pub const DEFAULT_W_SMALL: f64 = 0.01;

/// The coefficients of one unordered pair of solid materials.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactPairMaterial {
    /// Coefficient of restitution, 0 ≤ cor ≤ 1.
    pub cor: f64,
    /// Sliding (kinetic) friction coefficient ≥ 0.
    pub mu_k: f64,
    /// Static friction coefficient ≥ `mu_k`: the friction force a sticking contact can hold,
    /// per newton of normal force.
    pub mu_s: f64,
    /// Rotational resistance coefficient ≥ 0 (rolling resistance for a ball).
    pub mu_r: f64,
    /// Regularization velocity of restitution and sliding friction [m/s] (> 0).
    pub v_small: f64,
    /// Regularization angular velocity of the rotational resistance [rad/s] (> 0).
    pub w_small: f64,
}

impl ContactPairMaterial {
    /// A pair with the default regularization velocities and static friction equal to the
    /// sliding friction.
    pub const fn new(cor: f64, mu_k: f64, mu_r: f64) -> ContactPairMaterial {
        ContactPairMaterial {
            cor,
            mu_k,
            mu_s: mu_k,
            mu_r,
            v_small: DEFAULT_V_SMALL,
            w_small: DEFAULT_W_SMALL,
        }
    }

    /// Checks every coefficient's range.
    pub fn validate(&self) -> Result<(), CollisionError> {
        let bad = |what, value| Err(CollisionError::InvalidCoefficient { what, value });
        if !(0.0..=1.0).contains(&self.cor) {
            return bad("coefficient of restitution (0 ≤ cor ≤ 1)", self.cor);
        }
        if !(self.mu_k.is_finite() && self.mu_k >= 0.0) {
            return bad("sliding friction coefficient (≥ 0)", self.mu_k);
        }
        if !(self.mu_s.is_finite() && self.mu_s >= self.mu_k) {
            return bad(
                "static friction coefficient (≥ the sliding friction coefficient)",
                self.mu_s,
            );
        }
        if !(self.mu_r.is_finite() && self.mu_r >= 0.0) {
            return bad("rotational resistance coefficient (≥ 0)", self.mu_r);
        }
        if !(self.v_small.is_finite() && self.v_small > 0.0) {
            return bad("regularization velocity v_small (> 0)", self.v_small);
        }
        if !(self.w_small.is_finite() && self.w_small > 0.0) {
            return bad(
                "regularization angular velocity w_small (> 0)",
                self.w_small,
            );
        }
        Ok(())
    }
}

/// The shipped pairs: (material, material, cor, mu_k, mu_s, mu_r).
///
/// Static friction: handbook values for dry, clean surfaces, scaled to the sliding coefficients
/// here by the handbooks' ratio of static to sliding friction (about 1.3 for metal on metal,
/// 1.15–1.25 for the others); the billiard pairs have the paper's single coefficient.
const SHIPPED: &[(&str, &str, f64, f64, f64, f64)] = &[
    // Bouncing steel ball on a wooden table (Modia3D paper, Fig. 5: cor = 0.7).
    ("steel", "dry_wood", 0.7, 0.5, 0.6, 0.001),
    // Billiard (Modia3D paper, Table 1).
    ("billiard_ball", "billiard_table", 0.0, 0.6, 0.6, 0.02),
    ("billiard_ball", "billiard_ball", 1.0, 0.0, 0.0, 0.0),
    ("billiard_ball", "cushion", 0.8, 0.0, 0.0, 0.0),
    // Handbook-style defaults.
    ("steel", "steel", 0.7, 0.4, 0.5, 0.001),
    ("steel", "aluminium", 0.6, 0.45, 0.6, 0.001),
    ("steel", "rubber", 0.6, 0.8, 1.0, 0.01),
    ("steel", "plastic", 0.6, 0.3, 0.35, 0.005),
    ("aluminium", "aluminium", 0.6, 0.8, 1.0, 0.001),
    ("aluminium", "dry_wood", 0.5, 0.4, 0.5, 0.002),
    ("aluminium", "rubber", 0.6, 0.8, 1.0, 0.01),
    ("aluminium", "plastic", 0.6, 0.3, 0.35, 0.005),
    ("dry_wood", "dry_wood", 0.5, 0.4, 0.5, 0.005),
    ("dry_wood", "rubber", 0.6, 0.7, 0.9, 0.01),
    ("dry_wood", "plastic", 0.5, 0.35, 0.4, 0.005),
    ("rubber", "rubber", 0.6, 1.0, 1.15, 0.02),
    ("rubber", "plastic", 0.6, 0.8, 1.0, 0.01),
    ("plastic", "plastic", 0.6, 0.35, 0.4, 0.005),
];

/// Contact-pair materials by unordered pair of solid-material names.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ContactMaterials {
    pairs: BTreeMap<(String, String), ContactPairMaterial>,
}

fn key(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_owned(), b.to_owned())
    } else {
        (b.to_owned(), a.to_owned())
    }
}

impl ContactMaterials {
    /// An empty table.
    pub fn new() -> ContactMaterials {
        ContactMaterials::default()
    }

    /// The table with the shipped pairs.
    pub fn shipped() -> ContactMaterials {
        let mut table = ContactMaterials::new();
        for &(a, b, cor, mu_k, mu_s, mu_r) in SHIPPED {
            let material = ContactPairMaterial {
                mu_s,
                ..ContactPairMaterial::new(cor, mu_k, mu_r)
            };
            table.pairs.insert(key(a, b), material);
        }
        table
    }

    /// The pair (a, b), in either order. An unknown pair is an error naming both materials.
    pub fn get(&self, a: &str, b: &str) -> Result<&ContactPairMaterial, CollisionError> {
        self.pairs
            .get(&key(a, b))
            .ok_or_else(|| CollisionError::UnknownMaterialPair {
                a: a.to_owned(),
                b: b.to_owned(),
            })
    }

    /// Adds or overrides the pair (a, b); returns the previous entry, if any.
    pub fn insert(
        &mut self,
        a: &str,
        b: &str,
        material: ContactPairMaterial,
    ) -> Result<Option<ContactPairMaterial>, CollisionError> {
        material.validate()?;
        Ok(self.pairs.insert(key(a, b), material))
    }

    /// Every pair, names in sorted order within a pair.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str, &ContactPairMaterial)> {
        self.pairs
            .iter()
            .map(|((a, b), m)| (a.as_str(), b.as_str(), m))
    }

    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::materials;

    #[test]
    fn shipped_pairs_carry_the_papers_data() {
        let t = ContactMaterials::shipped();
        assert_eq!(t.get("dry_wood", "steel").unwrap().cor, 0.7);
        let bt = t.get("billiard_table", "billiard_ball").unwrap();
        assert_eq!((bt.cor, bt.mu_k, bt.mu_r), (0.0, 0.6, 0.02));
        let bb = t.get("billiard_ball", "billiard_ball").unwrap();
        assert_eq!((bb.cor, bb.mu_k, bb.mu_r), (1.0, 0.0, 0.0));
        let bc = t.get("cushion", "billiard_ball").unwrap();
        assert_eq!((bc.cor, bc.mu_k, bc.mu_r), (0.8, 0.0, 0.0));
    }

    #[test]
    fn every_shipped_name_is_a_solid_material_and_every_entry_is_valid() {
        let t = ContactMaterials::shipped();
        assert_eq!(t.len(), SHIPPED.len());
        for (a, b, m) in t.iter() {
            assert!(materials::lookup(a).is_some(), "{a}");
            assert!(materials::lookup(b).is_some(), "{b}");
            m.validate().unwrap();
        }
        // Every pair among the general-purpose solids is present.
        let general = ["steel", "aluminium", "dry_wood", "rubber", "plastic"];
        for a in general {
            for b in general {
                assert!(t.get(a, b).is_ok(), "{a}-{b}");
            }
        }
    }

    #[test]
    fn unknown_pair_names_both_materials() {
        let err = ContactMaterials::shipped()
            .get("steel", "cushion")
            .unwrap_err();
        let text = err.to_string();
        assert!(text.contains("steel") && text.contains("cushion"), "{text}");
    }

    #[test]
    fn pairs_can_be_added_and_overridden() {
        let mut t = ContactMaterials::shipped();
        let new = ContactPairMaterial::new(0.9, 0.1, 0.0);
        assert_eq!(t.insert("cushion", "steel", new).unwrap(), None);
        assert_eq!(*t.get("steel", "cushion").unwrap(), new);
        let old = t.insert("dry_wood", "steel", new).unwrap().unwrap();
        assert_eq!(old.cor, 0.7);
        assert!(t
            .insert("a", "b", ContactPairMaterial::new(1.5, 0.0, 0.0))
            .is_err());
        assert!(t
            .insert("a", "b", ContactPairMaterial::new(0.5, -1.0, 0.0))
            .is_err());
        // Every coefficient's range, NaN included.
        for bad in [
            ContactPairMaterial::new(0.5, 0.0, -1.0),
            ContactPairMaterial::new(0.5, 0.0, f64::NAN),
            ContactPairMaterial::new(0.5, f64::INFINITY, 0.0),
            ContactPairMaterial {
                v_small: 0.0,
                ..ContactPairMaterial::new(0.5, 0.0, 0.0)
            },
            ContactPairMaterial {
                w_small: f64::NAN,
                ..ContactPairMaterial::new(0.5, 0.0, 0.0)
            },
        ] {
            assert!(t.insert("a", "b", bad).is_err(), "{bad:?}");
        }
        let weaker_static = ContactPairMaterial {
            mu_s: 0.3,
            ..ContactPairMaterial::new(0.5, 0.4, 0.0)
        };
        let error = t.insert("a", "b", weaker_static).unwrap_err().to_string();
        assert!(error.contains("static friction"), "{error}");
    }
}
