//! Collision super-objects ([NO19] §4.1.2): the shapes that collide, fixed on their bodies, and
//! the pairs of them that may touch. The two pair-removal rules apply here, once: shapes on one
//! rigid body never collide, and bodies connected by a joint do not collide unless the joint
//! says `can_collide = true`.
//!
//! Vertex spheres (Modia3D's remedy for a box resting on a face): every box collider gets eight
//! extra sphere colliders on the same body, centred at the vertices of its core box (the centres
//! of the rounded box's corner spheres) with the box's margin as radius, so a box lying on
//! another box touches it with up to four point contacts instead of one contact that jumps
//! between corners. To count no contact twice, a pair is kept by [`Role::collides`]:
//!
//! - box–box: only through vertex spheres (each box's vertex spheres against the other box);
//!   the box–box pair itself and vertex-sphere–vertex-sphere pairs are dropped;
//! - box–any other shape (sphere, capsule, cylinder, cone, ellipsoid): the box pair alone;
//!   the vertex-sphere pairs with that shape are dropped (the shape may hit the box's face,
//!   which the vertex spheres would miss).
//!
//! Edge capsules: every box collider also gets twelve capsules along the edges of its core box
//! (radius: the margin), which collide only with the edge capsules of other boxes. Two boxes
//! whose edges cross without a vertex touching the other box touch through them. Their force is
//! faded out where the vertex spheres or a face contact take over (see
//! [`crate::dynamics::contacts`]): near the ends of either edge, and for nearly parallel edges.

use super::super_objects::Assembly;
use crate::collision::response::{ContactGeometry, ContactLaw};
use crate::collision::{ContactMaterials, ContactPairMaterial, Core, Shape};
use crate::model::materials::{self, SolidMaterial};
use crate::model::ShapeSpec;
use crate::scene::{ObjectHandle, Scene, SceneError};
use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};

/// A colliding shape on a body.
#[derive(Debug, Clone)]
pub struct Collider {
    pub object: ObjectHandle,
    /// Index of the body (super-object) it is fixed on.
    pub body: usize,
    /// The shape's pose in the body frame.
    pub pose: Isometry3<f64>,
    pub shape: Shape,
    pub solid: &'static SolidMaterial,
    /// What the collider is for the pair rules.
    pub role: Role,
}

/// The kind of a collider, for the rules that keep a contact from being counted twice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A box: it has vertex spheres.
    Box,
    /// A vertex sphere of the box collider with this index.
    Vertex(usize),
    /// An edge capsule of the box collider with this index.
    Edge(usize),
    /// Any other shape.
    Other,
}

impl Role {
    /// Whether a pair of colliders with these roles collides (see the module documentation).
    pub fn collides(self, other: Role) -> bool {
        use Role::*;
        match (self, other) {
            (Edge(_), Edge(_)) => true,
            (Edge(_), _) | (_, Edge(_)) => false,
            (Box, Box) | (Vertex(_), Vertex(_)) => false,
            (Vertex(_), Box) | (Box, Vertex(_)) => true,
            (Vertex(_), Other) | (Other, Vertex(_)) => false,
            (Box, Other) | (Other, Box) | (Other, Other) => true,
        }
    }
}

/// Two colliders that may touch, with what their contact law needs.
#[derive(Debug, Clone)]
pub struct CollisionPair {
    /// Indices into [`CollisionSet::colliders`], `a < b`.
    pub a: usize,
    pub b: usize,
    /// The pair's contact law (materials and geometry, checked when the set is built).
    pub law: ContactLaw,
    /// Whether the pair sticks below the stick speed (`dynamics::contacts`): pairs of the
    /// colliders of boxes (vertex spheres, faces, edges) with static friction, and pairs with a
    /// sphere, cylinder or other rounded shape with static friction and rolling resistance.
    pub sticks: bool,
    /// Whether a stuck pair also holds its turn ([`CollisionPair::sticks`] pairs with a rounded
    /// shape): a rounded shape rolls, and a stuck material point would leave the contact as it
    /// rolls, so such a pair sticks only while it neither slips nor turns, held by an angular
    /// spring up to its rolling resistance. A rounded pair without rolling resistance cannot
    /// hold a turn and keeps the regularized sliding law.
    pub holds_turn: bool,
}

/// A contact the model reports as outputs: every collision pair between its two objects.
#[derive(Debug, Clone)]
pub struct ContactReport {
    pub name: String,
    pub pairs: Vec<usize>,
}

/// The most collision pairs a model may have (each about 130 bytes, and one zero-crossing
/// function): 2 000 colliding spheres make 2 million.
pub const MAX_COLLISION_PAIRS: usize = 2_500_000;

/// Every collider and every pair that may collide.
#[derive(Debug, Clone, Default)]
pub struct CollisionSet {
    pub colliders: Vec<Collider>,
    pub pairs: Vec<CollisionPair>,
    pub reports: Vec<ContactReport>,
    /// The indices of the pairs that stick ([`CollisionPair::sticks`]), in order: each has a
    /// stick–slip switching function after the signed distances.
    pub sticking: Vec<usize>,
}

impl CollisionSet {
    pub fn build(scene: &Scene, assembly: &Assembly) -> Result<CollisionSet, SceneError> {
        let mut table = ContactMaterials::shipped();
        for pair in &scene.contact_pairs {
            let defaults = ContactPairMaterial::new(pair.cor, pair.mu_k, pair.mu_r);
            let material = ContactPairMaterial {
                mu_s: pair.mu_s.unwrap_or(defaults.mu_s),
                v_small: pair.v_small.unwrap_or(defaults.v_small),
                w_small: pair.w_small.unwrap_or(defaults.w_small),
                ..defaults
            };
            table
                .insert(&pair.materials[0], &pair.materials[1], material)
                .map_err(|e| SceneError::new(&pair.location, e.to_string()))?;
        }
        let mut colliders = Vec::new();
        for (index, object) in scene.objects.iter().enumerate() {
            let (Some(contact), Some(shape)) = (&object.contact, &object.shape) else {
                continue;
            };
            let shape = match contact.smoothing {
                Some(radius) => Shape::with_smoothing_radius(shape, radius),
                None => Shape::new(shape),
            }
            .map_err(|e| SceneError::new(&object.location, e.to_string()))?;
            let solid = materials::lookup(&contact.material).ok_or_else(|| {
                SceneError::new(
                    &object.location,
                    format!("unknown solid material `{}`", contact.material),
                )
            })?;
            let (body, pose) = assembly.placement[index];
            let vertices = match *shape.core() {
                Core::Box { half_extents } => Some((half_extents, shape.margin())),
                _ => None,
            };
            let owner = colliders.len();
            colliders.push(Collider {
                object: ObjectHandle(index),
                body,
                pose,
                shape,
                solid,
                role: if vertices.is_some() {
                    Role::Box
                } else {
                    Role::Other
                },
            });
            if let Some((half, margin)) = vertices {
                let sphere = Shape::new(&ShapeSpec::Sphere {
                    diameter: 2.0 * margin,
                })
                .map_err(|e| SceneError::new(&object.location, e.to_string()))?;
                for k in 0..8 {
                    let sign = |bit: usize| if k & bit == 0 { -1.0 } else { 1.0 };
                    let corner = Vector3::new(sign(1) * half.x, sign(2) * half.y, sign(4) * half.z);
                    colliders.push(Collider {
                        object: ObjectHandle(index),
                        body,
                        pose: pose * Translation3::from(corner),
                        shape: sphere.clone(),
                        solid,
                        role: Role::Vertex(owner),
                    });
                }
                for (axis, placement) in edge_placements(&half) {
                    let capsule = Shape::new(&ShapeSpec::Capsule {
                        diameter: 2.0 * margin,
                        length: 2.0 * half[axis],
                    })
                    .map_err(|e| SceneError::new(&object.location, e.to_string()))?;
                    colliders.push(Collider {
                        object: ObjectHandle(index),
                        body,
                        pose: pose * placement,
                        shape: capsule,
                        solid,
                        role: Role::Edge(owner),
                    });
                }
            }
        }
        // Every two colliders may collide: refuse before allocating what grows with the square
        // of their number.
        let potential = colliders.len() * colliders.len().saturating_sub(1) / 2;
        if potential > MAX_COLLISION_PAIRS {
            let location = colliders
                .last()
                .map(|c| scene.object(c.object).location.clone())
                .unwrap_or_default();
            return Err(SceneError::new(
                &location,
                format!(
                    "{} colliding shapes (a box counts as 21: its faces, 8 corners and 12 edges) \
                     make {potential} collision pairs, more than the {MAX_COLLISION_PAIRS} this \
                     engine supports; make the model smaller (fewer colliding bodies)",
                    colliders.len()
                ),
            ));
        }
        let excluded = |i: usize, j: usize| {
            let so = &assembly.super_objects;
            i == j || so[i].no_collision_pairs.contains(&j) || so[j].no_collision_pairs.contains(&i)
        };
        let mut pairs = Vec::new();
        for a in 0..colliders.len() {
            for b in a + 1..colliders.len() {
                let (ca, cb) = (&colliders[a], &colliders[b]);
                if excluded(ca.body, cb.body) || !ca.role.collides(cb.role) {
                    continue;
                }
                let material = *table.get(ca.solid.name, cb.solid.name).map_err(|_| {
                    let object = scene.object(cb.object);
                    SceneError::new(
                        &object.location,
                        format!(
                            "no contact-pair material for `{}` and `{}` (objects `{}` and `{}`): \
                             add `contact_pair {} {} {{ cor = ...; mu_k = ...; mu_r = ... }}`",
                            ca.solid.name,
                            cb.solid.name,
                            scene.object(ca.object).name,
                            object.name,
                            ca.solid.name,
                            cb.solid.name
                        ),
                    )
                })?;
                let geometry = ContactGeometry::from_shapes(&ca.shape, &cb.shape);
                let law =
                    ContactLaw::new(ca.solid, cb.solid, &material, geometry).map_err(|e| {
                        let object = scene.object(cb.object);
                        SceneError::new(
                            &object.location,
                            format!(
                                "the contact of objects `{}` and `{}`: {e}",
                                scene.object(ca.object).name,
                                object.name
                            ),
                        )
                    })?;
                let rounded = ca.role == Role::Other || cb.role == Role::Other;
                let rolling_resistance = law.mu_r * law.geometry.mu_geo > 0.0;
                let sticks = law.mu_s > 0.0 && (!rounded || rolling_resistance);
                pairs.push(CollisionPair {
                    a,
                    b,
                    law,
                    sticks,
                    holds_turn: sticks && rounded,
                });
            }
        }
        let mut reports = Vec::new();
        for (spec, from, to) in &scene.contact_outputs {
            let between: Vec<usize> = pairs
                .iter()
                .enumerate()
                .filter(|(_, p)| {
                    let (a, b) = (colliders[p.a].object, colliders[p.b].object);
                    (a, b) == (*from, *to) || (b, a) == (*from, *to)
                })
                .map(|(i, _)| i)
                .collect();
            if between.is_empty() {
                return Err(SceneError::new(
                    &spec.location,
                    format!(
                        "contact output `{}`: `{}` and `{}` cannot touch (each needs a `shape` \
                         and a `contact`, they must not be one rigid body, and a joint between \
                         them needs `can_collide = true`)",
                        spec.name, spec.from, spec.to
                    ),
                ));
            }
            reports.push(ContactReport {
                name: spec.name.clone(),
                pairs: between,
            });
        }
        let sticking = (0..pairs.len()).filter(|&i| pairs[i].sticks).collect();
        Ok(CollisionSet {
            colliders,
            pairs,
            reports,
            sticking,
        })
    }
}

/// The twelve edges of a box with half extents `half`: per edge, the axis it runs along and
/// the placement of a capsule (axis z, centred) on it, in box coordinates.
fn edge_placements(half: &Vector3<f64>) -> Vec<(usize, Isometry3<f64>)> {
    // Turns the capsule's z axis onto x, y and z.
    let onto = [
        UnitQuaternion::from_axis_angle(&Vector3::y_axis(), std::f64::consts::FRAC_PI_2),
        UnitQuaternion::from_axis_angle(&Vector3::x_axis(), -std::f64::consts::FRAC_PI_2),
        UnitQuaternion::identity(),
    ];
    let mut edges = Vec::with_capacity(12);
    for (axis, rotation) in onto.iter().enumerate() {
        let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
        for k in 0..4 {
            let mut centre = Vector3::zeros();
            centre[u] = if k & 1 == 0 { -half[u] } else { half[u] };
            centre[v] = if k & 2 == 0 { -half[v] } else { half[v] };
            edges.push((
                axis,
                Isometry3::from_parts(Translation3::from(centre), *rotation),
            ));
        }
    }
    edges
}

#[cfg(test)]
mod tests {
    use super::Role::{self, *};

    #[test]
    fn vertex_spheres_replace_box_box_pairs_only() {
        let roles = [Box, Vertex(0), Other, Edge(0)];
        let expected = [
            // Box with: box, vertex sphere, other shape, edge capsule.
            [false, true, true, false],
            // Vertex sphere with: box, vertex sphere, other shape, edge capsule.
            [true, false, false, false],
            // Other shape with: box, vertex sphere, other shape, edge capsule.
            [true, false, true, false],
            // Edge capsule with: box, vertex sphere, other shape, edge capsule.
            [false, false, false, true],
        ];
        for (i, a) in roles.iter().enumerate() {
            for (j, b) in roles.iter().enumerate() {
                assert_eq!(a.collides(*b), expected[i][j], "{a:?} with {b:?}");
            }
        }
        assert!(Role::Vertex(3).collides(Role::Box));
    }
}
