//! Collision super-objects ([NO19] §4.1.2): the shapes that collide, fixed on their bodies, and
//! the pairs of them that may touch. The two pair-removal rules apply here, once: shapes on one
//! rigid body never collide, and bodies connected by a joint do not collide unless the joint
//! says `can_collide = true`.

use super::super_objects::Assembly;
use crate::collision::response::ContactGeometry;
use crate::collision::{ContactMaterials, ContactPairMaterial, Shape};
use crate::model::materials::{self, SolidMaterial};
use crate::scene::{ObjectHandle, Scene, SceneError};
use nalgebra::Isometry3;

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
}

/// Two colliders that may touch, with what their contact law needs.
#[derive(Debug, Clone)]
pub struct CollisionPair {
    /// Indices into [`CollisionSet::colliders`], `a < b`.
    pub a: usize,
    pub b: usize,
    pub material: ContactPairMaterial,
    pub geometry: ContactGeometry,
}

/// A contact the model reports as outputs: every collision pair between its two objects.
#[derive(Debug, Clone)]
pub struct ContactReport {
    pub name: String,
    pub pairs: Vec<usize>,
}

/// Every collider and every pair that may collide.
#[derive(Debug, Clone, Default)]
pub struct CollisionSet {
    pub colliders: Vec<Collider>,
    pub pairs: Vec<CollisionPair>,
    pub reports: Vec<ContactReport>,
}

impl CollisionSet {
    pub fn build(scene: &Scene, assembly: &Assembly) -> Result<CollisionSet, SceneError> {
        let mut table = ContactMaterials::shipped();
        for pair in &scene.contact_pairs {
            let material = ContactPairMaterial::new(pair.cor, pair.mu_k, pair.mu_r);
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
            colliders.push(Collider {
                object: ObjectHandle(index),
                body,
                pose,
                shape,
                solid,
            });
        }
        let excluded = |i: usize, j: usize| {
            let so = &assembly.super_objects;
            i == j || so[i].no_collision_pairs.contains(&j) || so[j].no_collision_pairs.contains(&i)
        };
        let mut pairs = Vec::new();
        for a in 0..colliders.len() {
            for b in a + 1..colliders.len() {
                let (ca, cb) = (&colliders[a], &colliders[b]);
                if excluded(ca.body, cb.body) {
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
                pairs.push(CollisionPair {
                    a,
                    b,
                    material,
                    geometry: ContactGeometry::from_shapes(&ca.shape, &cb.shape),
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
        Ok(CollisionSet {
            colliders,
            pairs,
            reports,
        })
    }
}
