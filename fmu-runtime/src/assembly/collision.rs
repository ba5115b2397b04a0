//! Collision super-objects ([NO19] §4.1.2): the shapes that collide, fixed on their bodies, and
//! the pairs of them that may touch. The two pair-removal rules apply here, once: shapes on one
//! rigid body never collide, and bodies connected by a joint do not collide unless the joint
//! says `can_collide = true`.
//!
//! Vertex spheres (Modia3D's remedy for a box resting on a face): every hull collider (a box,
//! or a capsule) gets extra sphere colliders on the same body, centred at the vertices of its
//! core (the eight corners of a box's core box, the two ends of a capsule's segment) with the
//! shape's margin as radius: the shape is the convex hull of its vertex spheres. A box lying on
//! another box touches it with up to four point contacts instead of one contact that jumps
//! between corners, and a capsule lying on a face with two, one under each end, where the one
//! contact of the whole capsule would slide along its length. To count no contact twice, a pair
//! is kept by [`Role::collides`]:
//!
//! - hull–hull (box–box, box–capsule, capsule–capsule): only through vertex spheres (each
//!   hull's vertex spheres against the other hull) and edges; the hull–hull pair itself and
//!   vertex-sphere–vertex-sphere pairs are dropped;
//! - hull–any other shape (sphere, cylinder, cone, ellipsoid): the hull pair alone; the
//!   vertex-sphere pairs with that shape are dropped (the shape may hit the hull's face or
//!   side, which the vertex spheres would miss).
//!
//! Edge capsules: every box collider also gets twelve capsules along the edges of its core box
//! (radius: the margin), and a capsule one along its own segment, which collide only with the
//! edges of other hulls. Two hulls whose edges cross without a vertex touching the other hull
//! (a box across another's edge, a rod across a table's edge) touch through them. Their force is
//! faded out where the vertex spheres or a face contact take over (see
//! [`crate::dynamics::contacts`]): near the ends of either edge, and for nearly parallel edges.

use super::super_objects::Assembly;
use crate::collision::response::{ContactGeometry, ContactLaw};
use crate::collision::{
    CollisionError, ContactMaterials, ContactPairMaterial, Core, Shape, DEFAULT_SMOOTHING_RADIUS,
};
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
    /// Whether the shape is round where it touches (every shape but a box and a box's vertex
    /// spheres and edges): a pair with a rounded collider rolls rather than sticks
    /// ([`CollisionPair::rolls`]).
    pub rounded: bool,
    /// How much of its contact acts, by where it touches.
    pub fade: Fade,
}

/// How much of a feature collider's contact acts, by where it touches
/// (`dynamics::contacts::feature_weight`): the features of a cylinder or a cone share its
/// surface, and each takes the contacts the others cannot make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fade {
    /// All of it: a whole shape, a vertex sphere of a box, a capsule or a cone's apex, and the
    /// edges of boxes and capsules (whose weight depends on the other edge alone).
    None,
    /// A rim sphere: only where its contact normal lies within about 10° of the axis (z of its
    /// pose), where the base lies flat on a face and its rim disc's contact would wander.
    FaceOn,
    /// A rim disc: all of it where the normal is more than about 10° from the axis (a rim that
    /// touches at one point: a cylinder lying on its side, a coin rolling on its edge), none
    /// face-on.
    OffFace,
    /// The side of a cylinder or a cone, an edge: not along the other edge (lying along each
    /// other, where the rim discs hold it), not within one margin of a rim or the apex (their
    /// features take over), not face-on.
    Side,
}

/// The kind of a collider, for the rules that keep a contact from being counted twice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A box, a capsule, a cylinder, a cone or a mesh's hull with faces to rest on: the hull of
    /// its vertex spheres, which it has, with its edges.
    Hull,
    /// A vertex sphere of the hull collider with this index.
    Vertex(usize),
    /// An edge capsule of the hull collider with this index.
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
            (Hull, Hull) | (Vertex(_), Vertex(_)) => false,
            (Vertex(_), Hull) | (Hull, Vertex(_)) => true,
            (Vertex(_), Other) | (Other, Vertex(_)) => false,
            (Hull, Other) | (Other, Hull) | (Other, Other) => true,
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
    /// Whether the pair stops slipping below the stick speed (`dynamics::contacts`): every pair
    /// with static friction (μ_s > 0).
    pub sticks: bool,
    /// Whether a pair that stops slipping rolls ([`CollisionPair::sticks`] pairs with a
    /// sphere, cylinder or other rounded shape): a rounded shape turns on the other, and a
    /// material point held at the contact would leave it, so such a pair holds its slip by a
    /// stiff viscous law instead of anchors while it turns.
    pub rolls: bool,
    /// Whether a rolling pair that also stops turning sticks with its turn held
    /// ([`CollisionPair::rolls`] pairs with rolling resistance): anchored, and held by an
    /// angular spring up to its rolling resistance. A rounded pair without rolling resistance
    /// has nothing that holds a turn: it keeps rolling.
    pub holds_turn: bool,
}

/// A contact the model reports as outputs: every collision pair between its two objects, as
/// collider indices `(a, b)`, `a < b`.
#[derive(Debug, Clone)]
pub struct ContactReport {
    pub name: String,
    pub pairs: Vec<(usize, usize)>,
}

/// Every collider, and the rules that say which two of them collide and by which law.
///
/// The pairs themselves are not listed here: every two colliders of separate bodies may
/// collide, so a list would grow with the square of their number (50 million pairs for 10 000
/// balls). The pairs come from the broad phase as the colliders come near each other
/// ([`crate::dynamics::contacts::PairTable`]), and [`CollisionSet::pair`] makes each one from
/// the rules: the body exclusions, the roles, and the contact law of the two materials, all
/// checked when the set is built (a missing contact-pair material is an error of the model, not
/// of the instant two shapes first meet).
#[derive(Debug, Clone, Default)]
pub struct CollisionSet {
    pub colliders: Vec<Collider>,
    pub reports: Vec<ContactReport>,
    /// Per body: bodies it must not collide with (joint neighbours; each relation stored once).
    excluded: Vec<Vec<usize>>,
    /// Per collider: the index of its solid material in `laws`.
    material: Vec<usize>,
    /// Per collider: its collision group (`contact { group = NAME }`, numbered), whose members
    /// never collide with each other.
    group: Vec<Option<usize>>,
    /// Per two materials (row-major, materials × materials): the law between them, with the
    /// geometry of each pair filled in by [`CollisionSet::pair`]; `None` where no two colliders
    /// of these materials collide.
    laws: Vec<Option<ContactLaw>>,
    materials: usize,
    /// Per collider: how many colliders it collides with.
    partners: Vec<usize>,
    /// Whether any two colliders collide.
    any: bool,
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
        let colliders = colliders(scene, assembly)?;
        let mut solids: Vec<&'static SolidMaterial> = Vec::new();
        let material = colliders
            .iter()
            .map(
                |c| match solids.iter().position(|s| s.name == c.solid.name) {
                    Some(k) => k,
                    None => {
                        solids.push(c.solid);
                        solids.len() - 1
                    }
                },
            )
            .collect();
        let mut groups: Vec<&str> = Vec::new();
        let group = colliders
            .iter()
            .map(|c| {
                let name = scene.objects[c.object.0]
                    .contact
                    .as_ref()?
                    .group
                    .as_deref()?;
                Some(match groups.iter().position(|g| *g == name) {
                    Some(k) => k,
                    None => {
                        groups.push(name);
                        groups.len() - 1
                    }
                })
            })
            .collect();
        let mut set = CollisionSet {
            colliders,
            reports: Vec::new(),
            excluded: assembly
                .super_objects
                .iter()
                .map(|so| so.no_collision_pairs.clone())
                .collect(),
            material,
            group,
            laws: vec![None; solids.len() * solids.len()],
            materials: solids.len(),
            partners: Vec::new(),
            any: false,
        };
        // The law of every two materials that meet in some pair, checked now: the first pair
        // of colliders of those materials names the objects in an error.
        let mut members = vec![Vec::new(); solids.len()];
        for (k, &m) in set.material.iter().enumerate() {
            members[m].push(k);
        }
        for m1 in 0..solids.len() {
            for m2 in m1..solids.len() {
                let Some((a, b)) = set.first_pair_between(&members[m1], &members[m2]) else {
                    continue;
                };
                let (ca, cb) = (&set.colliders[a], &set.colliders[b]);
                let name = |c: &Collider| scene.object(c.object).name.clone();
                let location = scene.object(cb.object).location.clone();
                let material = *table.get(ca.solid.name, cb.solid.name).map_err(|_| {
                    SceneError::new(
                        &location,
                        format!(
                            "no contact-pair material for `{}` and `{}` (objects `{}` and `{}`): \
                             add `contact_pair {} {} {{ cor = ...; mu_k = ...; mu_r = ... }}`",
                            ca.solid.name,
                            cb.solid.name,
                            name(ca),
                            name(cb),
                            ca.solid.name,
                            cb.solid.name
                        ),
                    )
                })?;
                let geometry = ContactGeometry::from_shapes(&ca.shape, &cb.shape);
                let law =
                    ContactLaw::new(ca.solid, cb.solid, &material, geometry).map_err(|e| {
                        SceneError::new(
                            &location,
                            format!(
                                "the contact of objects `{}` and `{}`: {e}",
                                name(ca),
                                name(cb)
                            ),
                        )
                    })?;
                set.laws[m1 * set.materials + m2] = Some(law);
                set.laws[m2 * set.materials + m1] = Some(law);
                set.any = true;
            }
        }
        set.partners = set.count_partners();
        for (spec, from, to) in &scene.contact_outputs {
            let of = |object: ObjectHandle| -> Vec<usize> {
                (0..set.colliders.len())
                    .filter(|&k| set.colliders[k].object == object)
                    .collect()
            };
            let (on_from, on_to) = (of(*from), of(*to));
            let mut between = Vec::new();
            for &i in &on_from {
                for &j in &on_to {
                    let (a, b) = (i.min(j), i.max(j));
                    if set.may_collide(a, b) {
                        between.push((a, b));
                    }
                }
            }
            between.sort_unstable();
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
            set.reports.push(ContactReport {
                name: spec.name.clone(),
                pairs: between,
            });
        }
        Ok(set)
    }

    /// How many colliders collider `c` collides with.
    pub fn partners(&self, c: usize) -> usize {
        self.partners.get(c).copied().unwrap_or(0)
    }

    /// Per collider, how many colliders it collides with, from counts of the colliders by role
    /// and material, overall and per body: O(colliders) instead of visiting every pair.
    fn count_partners(&self) -> Vec<usize> {
        const KINDS: usize = 4;
        let kind = |role: Role| match role {
            Role::Hull => 0,
            Role::Vertex(_) => 1,
            Role::Other => 2,
            Role::Edge(_) => 3,
        };
        let representative = [Role::Hull, Role::Vertex(0), Role::Other, Role::Edge(0)];
        let classes = KINDS * self.materials;
        let class = |c: usize| kind(self.colliders[c].role) * self.materials + self.material[c];
        let bodies = self.excluded.len();
        let mut total = vec![0usize; classes];
        let mut per_body: Vec<Vec<(usize, usize)>> = vec![Vec::new(); bodies];
        for c in 0..self.colliders.len() {
            total[class(c)] += 1;
            let counts = &mut per_body[self.colliders[c].body];
            match counts.iter_mut().find(|(k, _)| *k == class(c)) {
                Some((_, n)) => *n += 1,
                None => counts.push((class(c), 1)),
            }
        }
        // Joint neighbours, both ways, without duplicates.
        let mut neighbours: Vec<Vec<usize>> = self.excluded.clone();
        for (body, excluded) in self.excluded.iter().enumerate() {
            for &other in excluded {
                if other < bodies {
                    neighbours[other].push(body);
                }
            }
        }
        for (body, list) in neighbours.iter_mut().enumerate() {
            list.retain(|&other| other != body);
            list.sort_unstable();
            list.dedup();
        }
        // Collision groups: per group the colliders of each class, and per body those of each
        // group and class.
        let groups = self.group.iter().flatten().max().map_or(0, |g| g + 1);
        let mut group_total = vec![vec![0usize; classes]; groups];
        let mut group_per_body: Vec<Vec<(usize, usize, usize)>> = vec![Vec::new(); bodies];
        for c in 0..self.colliders.len() {
            let Some(g) = self.group[c] else { continue };
            group_total[g][class(c)] += 1;
            let counts = &mut group_per_body[self.colliders[c].body];
            match counts
                .iter_mut()
                .find(|(h, k, _)| *h == g && *k == class(c))
            {
                Some((_, _, n)) => *n += 1,
                None => counts.push((g, class(c), 1)),
            }
        }
        (0..self.colliders.len())
            .map(|c| {
                let collider = &self.colliders[c];
                let mut count = vec![0usize; classes];
                count.clone_from(&total);
                let near = std::iter::once(&collider.body).chain(&neighbours[collider.body]);
                for &body in near.clone() {
                    for &(k, n) in &per_body[body] {
                        count[k] -= n;
                    }
                }
                if let Some(g) = self.group[c] {
                    // The group's members, less those on these bodies (taken off already).
                    for (k, n) in group_total[g].iter().enumerate() {
                        count[k] -= n;
                    }
                    for &body in near {
                        for &(h, k, n) in &group_per_body[body] {
                            if h == g {
                                count[k] += n;
                            }
                        }
                    }
                }
                (0..classes)
                    .filter(|&k| {
                        let (role, material) =
                            (representative[k / self.materials], k % self.materials);
                        collider.role.collides(role)
                            && self.laws[self.material[c] * self.materials + material].is_some()
                    })
                    .map(|k| count[k])
                    .sum()
            })
            .collect()
    }

    /// Whether any two colliders collide.
    pub fn has_pairs(&self) -> bool {
        self.any
    }

    /// The smallest speed bands (v_small [m/s], w_small [rad/s]) of the laws collider `c` may
    /// meet another collider by; `None` when it collides with nothing.
    pub fn bands(&self, c: usize) -> Option<(f64, f64)> {
        let row = self.material.get(c)? * self.materials;
        self.laws[row..row + self.materials]
            .iter()
            .flatten()
            .map(|law| (law.v_small, law.w_small))
            .reduce(|x, y| (x.0.min(y.0), x.1.min(y.1)))
    }

    /// The same colliders without any pair (for comparisons).
    pub fn without_pairs(&self) -> CollisionSet {
        CollisionSet {
            any: false,
            laws: vec![None; self.laws.len()],
            ..self.clone()
        }
    }

    /// Whether colliders `a` and `b` collide: on different bodies not joined by a joint that
    /// forbids it, not of one collision group, with roles that collide (module documentation).
    pub fn may_collide(&self, a: usize, b: usize) -> bool {
        let (ca, cb) = (&self.colliders[a], &self.colliders[b]);
        a != b
            && ca.body != cb.body
            && !self.excluded[ca.body].contains(&cb.body)
            && !self.excluded[cb.body].contains(&ca.body)
            && (self.group[a].is_none() || self.group[a] != self.group[b])
            && ca.role.collides(cb.role)
    }

    /// The pair of colliders `a < b`, if they collide.
    pub fn pair(&self, a: usize, b: usize) -> Option<CollisionPair> {
        if a >= b || b >= self.colliders.len() || !self.may_collide(a, b) {
            return None;
        }
        let (ca, cb) = (&self.colliders[a], &self.colliders[b]);
        let base = self.laws[self.material[a] * self.materials + self.material[b]]?;
        let mut geometry = ContactGeometry::from_shapes(&ca.shape, &cb.shape);
        // A rim disc rolls like a wheel: its rolling resistance acts with the rim's radius as
        // lever, as a ball's with its radius.
        for c in [ca, cb] {
            if let (Fade::OffFace, Core::Cylinder { radius, .. }) = (c.fade, c.shape.core()) {
                geometry.mu_geo = radius + c.shape.margin();
            }
        }
        let law = ContactLaw { geometry, ..base };
        let rounded = ca.rounded || cb.rounded;
        let rolling_resistance = law.mu_r * law.geometry.mu_geo > 0.0;
        let sticks = law.mu_s > 0.0;
        Some(CollisionPair {
            a,
            b,
            law,
            sticks,
            rolls: sticks && rounded,
            holds_turn: sticks && rounded && rolling_resistance,
        })
    }

    /// The first two colliders, one from `first` and one from `second` (ascending indices),
    /// that collide, as `(a, b)` with `a < b`. Stops at the first: scenes of many bodies find
    /// one at once (every body collides with all but its few joint neighbours).
    fn first_pair_between(&self, first: &[usize], second: &[usize]) -> Option<(usize, usize)> {
        let mut best: Option<(usize, usize)> = None;
        for &i in first {
            if best.is_some_and(|(a, _)| a < i) {
                break;
            }
            for &j in second {
                let pair = (i.min(j), i.max(j));
                if best.is_some_and(|b| b <= pair) {
                    continue;
                }
                if self.may_collide(pair.0, pair.1) {
                    best = Some(pair);
                    break;
                }
            }
        }
        best
    }
}

/// The colliders of the scene: every object with a shape and a contact, and the features of
/// its hulls (vertex spheres, rim discs and edges).
fn colliders(scene: &Scene, assembly: &Assembly) -> Result<Vec<Collider>, SceneError> {
    let mut colliders = Vec::new();
    for (index, object) in scene.objects.iter().enumerate() {
        let (Some(contact), Some(shape)) = (&object.contact, &object.shape) else {
            continue;
        };
        let shapes = Shape::pieces(shape, contact.smoothing.unwrap_or(DEFAULT_SMOOTHING_RADIUS))
            .map_err(|e| SceneError::new(&object.location, e.to_string()))?;
        let solid = materials::lookup(&contact.material).ok_or_else(|| {
            SceneError::new(
                &object.location,
                format!("unknown solid material `{}`", contact.material),
            )
        })?;
        let (body, pose) = assembly.placement[index];
        for shape in shapes {
            let features = hull_features(&shape)
                .map_err(|e| SceneError::new(&object.location, e.to_string()))?;
            let owner = colliders.len();
            colliders.push(Collider {
                object: ObjectHandle(index),
                body,
                pose,
                role: if features.is_empty() {
                    Role::Other
                } else {
                    Role::Hull
                },
                // A box and a mesh's hull stick: flat faces, or facets (a tessellated round
                // part's contact jumps from vertex to vertex; under the stiff rolling law that
                // exhausts the step budget).
                rounded: !matches!(shape.core(), Core::Box { .. } | Core::Hull(_)),
                fade: Fade::None,
                shape,
                solid,
            });
            for feature in features {
                colliders.push(Collider {
                    object: ObjectHandle(index),
                    body,
                    pose: pose * feature.placement,
                    shape: feature.shape,
                    solid,
                    role: if feature.edge {
                        Role::Edge(owner)
                    } else {
                        Role::Vertex(owner)
                    },
                    rounded: feature.rounded,
                    fade: feature.fade,
                });
            }
        }
    }
    Ok(colliders)
}

/// A feature collider of a hull, in the hull's coordinates.
struct Feature {
    shape: Shape,
    placement: Isometry3<f64>,
    /// An edge (collides with edges) or else a vertex (collides with hulls).
    edge: bool,
    rounded: bool,
    fade: Fade,
}

/// How many rim spheres stand on each rim circle of a cylinder or a cone: its base rests on
/// them where it lies flat on a face.
pub const RIM_SPHERES: usize = 8;

/// The features of a hull (empty for a shape that is no hull):
/// - a box: its eight corners' vertex spheres and twelve edge capsules;
/// - a capsule: the spheres at its segment's ends and the segment as its edge (one of length
///   zero is a sphere: no features);
/// - a cylinder: on each rim circle a rim disc (the contact of a rim that touches at a point)
///   and [`RIM_SPHERES`] rim spheres (the contacts of a base that lies flat), and its side as
///   an edge;
/// - a cone: the apex's sphere, on its base rim a rim disc and rim spheres, its side an edge;
/// - a mesh's hull: a vertex sphere at each corner of the faces it can rest on and an edge
///   capsule along their edges ([`crate::mesh::hull::RESTING_FACE_FRACTION`]); none for a
///   finely tessellated round part, which collides as one shape.
fn hull_features(shape: &Shape) -> Result<Vec<Feature>, CollisionError> {
    let margin = shape.margin();
    let at =
        |x: Vector3<f64>| Isometry3::from_parts(Translation3::from(x), UnitQuaternion::identity());
    let sphere = Shape::new(&ShapeSpec::Sphere {
        diameter: 2.0 * margin,
    })?;
    let vertex = |x: Vector3<f64>, rounded: bool, fade: Fade| Feature {
        shape: sphere.clone(),
        placement: at(x),
        edge: false,
        rounded,
        fade,
    };
    // A rim circle of `radius` at height `z`: its disc and its spheres.
    let rim = |radius: f64, z: f64| {
        std::iter::once(Feature {
            shape: Shape::rim_disc(radius, margin),
            placement: at(Vector3::new(0.0, 0.0, z)),
            edge: false,
            rounded: true,
            fade: Fade::OffFace,
        })
        .chain((0..RIM_SPHERES).map(move |k| {
            let angle = std::f64::consts::TAU * k as f64 / RIM_SPHERES as f64;
            vertex(
                Vector3::new(radius * angle.cos(), radius * angle.sin(), z),
                false,
                Fade::FaceOn,
            )
        }))
        .collect::<Vec<_>>()
    };
    let side = || Feature {
        shape: shape.clone(),
        placement: Isometry3::identity(),
        edge: true,
        rounded: true,
        fade: Fade::Side,
    };
    Ok(match *shape.core() {
        Core::Hull(ref hull) => {
            let mut features: Vec<Feature> = hull
                .feature_vertices()
                .iter()
                .map(|&v| vertex(hull.vertices()[v as usize].coords, false, Fade::None))
                .collect();
            for &[a, b] in hull.feature_edges() {
                let (p, q) = (hull.vertices()[a as usize], hull.vertices()[b as usize]);
                let along = q - p;
                let rotation = UnitQuaternion::rotation_between(&Vector3::z(), &along)
                    .unwrap_or_else(|| {
                        UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI)
                    });
                features.push(Feature {
                    shape: Shape::new(&ShapeSpec::Capsule {
                        diameter: 2.0 * margin,
                        length: along.norm(),
                    })?,
                    placement: Isometry3::from_parts(
                        Translation3::from(nalgebra::center(&p, &q).coords),
                        rotation,
                    ),
                    edge: true,
                    rounded: false,
                    fade: Fade::None,
                });
            }
            features
        }
        Core::Box { half_extents: half } => {
            let mut features: Vec<Feature> = (0..8)
                .map(|k| {
                    let sign = |bit: usize| if k & bit == 0 { -1.0 } else { 1.0 };
                    let corner = Vector3::new(sign(1) * half.x, sign(2) * half.y, sign(4) * half.z);
                    vertex(corner, false, Fade::None)
                })
                .collect();
            for (axis, placement) in edge_placements(&half) {
                features.push(Feature {
                    shape: Shape::new(&ShapeSpec::Capsule {
                        diameter: 2.0 * margin,
                        length: 2.0 * half[axis],
                    })?,
                    placement,
                    edge: true,
                    rounded: false,
                    fade: Fade::None,
                });
            }
            features
        }
        Core::Segment { half_length } if half_length > 0.0 => vec![
            vertex(Vector3::new(0.0, 0.0, -half_length), true, Fade::None),
            vertex(Vector3::new(0.0, 0.0, half_length), true, Fade::None),
            Feature {
                shape: shape.clone(),
                placement: Isometry3::identity(),
                edge: true,
                rounded: true,
                fade: Fade::None,
            },
        ],
        Core::Cylinder {
            radius,
            half_length,
        } => {
            let mut features = rim(radius, -half_length);
            features.extend(rim(radius, half_length));
            features.push(side());
            features
        }
        Core::Cone { radius, base, apex } => {
            let mut features = rim(radius, base);
            features.push(vertex(Vector3::new(0.0, 0.0, apex), true, Fade::None));
            features.push(side());
            features
        }
        _ => Vec::new(),
    })
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
    use super::*;
    use crate::assembly::Assembly;

    /// Every pair the rules allow, by visiting every two colliders.
    fn brute_force_pairs(set: &CollisionSet) -> Vec<(usize, usize)> {
        let n = set.colliders.len();
        (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .filter(|&(a, b)| set.pair(a, b).is_some())
            .collect()
    }

    /// The scene and collision set of the model `source`.
    fn collision_set(source: &str) -> (Scene, CollisionSet) {
        let spec = crate::model::load_str_with(source, "collisions.m3d", &[])
            .unwrap_or_else(|e| panic!("{e:?}"));
        let scene = Scene::from_spec(&spec).expect("scene");
        let assembly = Assembly::build(&scene).expect("assembly");
        let set = CollisionSet::build(&scene, &assembly).expect("collision set");
        (scene, set)
    }

    /// Whether the (first) colliders of objects `a` and `b` collide.
    fn collide(scene: &Scene, set: &CollisionSet, a: &str, b: &str) -> bool {
        let of = |name: &str| {
            (0..set.colliders.len())
                .find(|&k| scene.object(set.colliders[k].object).name == name)
                .expect("collider")
        };
        let (i, j) = (of(a), of(b));
        set.pair(i.min(j), i.max(j)).is_some()
    }

    /// Each collider's partner count is the number of pairs it is in, visiting every pair.
    fn assert_partner_counts(set: &CollisionSet) {
        let pairs = brute_force_pairs(set);
        for c in 0..set.colliders.len() {
            let expected = pairs.iter().filter(|(a, b)| *a == c || *b == c).count();
            assert_eq!(
                set.partners(c),
                expected,
                "collider {c} ({:?})",
                set.colliders[c].role
            );
        }
    }

    /// The partner counts from role and material classes equal those of visiting every pair:
    /// boxes (with their vertex spheres and edges), balls of two materials, a joint that
    /// forbids its bodies to collide and one that allows it, two shapes on one body.
    #[test]
    fn partner_counts_are_those_of_every_pair() {
        let spec = crate::model::load_str_with(
            r#"
            object floor { parent = world; shape box { lengths = [2, 0.1, 2] m }; contact { material = steel } }
            object crate { shape box { lengths = [0.2, 0.2, 0.2] m }; mass { m = 1 kg; inertia = diag(1, 1, 1) kg.m2 }; contact { material = steel } }
            object lid { parent = crate; position = [0, 0.2, 0]; shape sphere { diameter = 0.05 m }; contact { material = dry_wood } }
            object a { shape sphere { diameter = 0.1 m }; mass { m = 1 kg; inertia = diag(1, 1, 1) kg.m2 }; contact { material = steel } }
            object b { shape sphere { diameter = 0.1 m }; mass { m = 1 kg; inertia = diag(1, 1, 1) kg.m2 }; contact { material = dry_wood } }
            object c { shape cylinder { diameter = 0.1 m; length = 0.2 m }; mass { m = 1 kg; inertia = diag(1, 1, 1) kg.m2 }; contact { material = steel } }
            joint jcrate free { from = world; to = crate; position = [0, 1, 0] }
            joint ja free { from = world; to = a; position = [1, 1, 0] }
            joint jb revolute { from = a; to = b; axis = z }
            joint jc revolute { from = b; to = c; axis = z; can_collide = true }
            "#,
            "classes.m3d",
            &[],
        )
        .expect("model");
        let scene = Scene::from_spec(&spec).expect("scene");
        let assembly = Assembly::build(&scene).expect("assembly");
        let set = CollisionSet::build(&scene, &assembly).expect("collision set");
        let pairs = brute_force_pairs(&set);
        assert!(pairs.len() > 20, "{} pairs", pairs.len());
        assert_partner_counts(&set);
        // The forbidding joint keeps a and b apart, the allowing one lets b and c touch.
        let of = |name: &str| {
            (0..set.colliders.len())
                .find(|&k| scene.object(set.colliders[k].object).name == name)
                .expect("collider")
        };
        assert!(set.pair(of("a"), of("b")).is_none());
        assert!(set.pair(of("b"), of("c")).is_some());
        assert!(set.pair(of("crate"), of("lid")).is_none(), "one rigid body");
    }

    /// `contact { group = NAME }`: shapes of one group never collide with each other (two
    /// links of a robot, not joined by one joint), with every shape outside it (the floor, a
    /// ball of another group, a ball of none) they do; partner counts stay those of every pair.
    #[test]
    fn shapes_of_one_group_do_not_collide_with_each_other() {
        let ball = |name: &str, x: f64, group: &str| {
            format!(
                "object {name} {{ shape sphere {{ diameter = 0.1 m }}; mass {{ m = 1 kg; \
                 inertia = diag(1, 1, 1) kg.m2 }}; contact {{ material = steel{group} }} }}\n\
                 joint j_{name} free {{ from = world; to = {name}; position = [{x}, 1, 0] }}\n"
            )
        };
        let source = format!(
            "object floor {{ parent = world; shape box {{ lengths = [2, 0.1, 2] m }}; contact {{ \
             material = steel; group = arm }} }}\n{}{}{}{}",
            ball("upper", 0.0, "; group = arm"),
            ball("lower", 0.2, "; group = arm"),
            ball("tool", 0.4, "; group = gripper"),
            ball("loose", 0.6, "")
        );
        let (scene, set) = collision_set(&source);
        let collide = |a: &str, b: &str| collide(&scene, &set, a, b);
        assert!(!collide("upper", "lower"), "one group");
        assert!(!collide("upper", "floor"), "the floor is in the group too");
        assert!(collide("upper", "tool") && collide("lower", "loose") && collide("tool", "floor"));
        assert!(collide("tool", "loose") && collide("loose", "floor"));
        assert_partner_counts(&set);
    }

    /// `can_collide` of every joint kind that has it: the two bodies a joint connects collide
    /// exactly when it says `can_collide = true` (docs/model-format.md, "Joints"), and the
    /// flag of one joint does not reach the bodies of another. A spherical joint, always a
    /// cut-joint, closes a loop of two revolute joints from `w`. Regression: a cut-joint did
    /// not keep its bodies apart (only the joints of the spanning tree did).
    #[test]
    fn every_joint_kind_keeps_its_bodies_apart_unless_it_can_collide() {
        let ball = |name: &str| {
            format!(
                "object {name} {{ shape sphere {{ diameter = 0.1 m }}; mass {{ m = 1 kg; \
                 inertia = diag(1, 1, 1) kg.m2 }}; contact {{ material = steel }} }}\n"
            )
        };
        for kind in [
            "revolute",
            "prismatic",
            "free",
            "spherical",
            "universal",
            "cylindrical",
            "planar",
        ] {
            for can_collide in [false, true] {
                let mut source = String::from(
                    "object w { parent = world; position = [0, 1, 0]; shape sphere { diameter = \
                     0.1 m }; contact { material = steel } }\n",
                );
                source += &ball("a");
                source += &ball("c");
                // The joint under test connects `a` to `x`; `c` hangs from `a` by a revolute joint.
                let x = if kind == "spherical" {
                    source += &ball("s");
                    source += "joint ja revolute { from = w; to = a; axis = z }\n";
                    source += "joint js revolute { from = w; to = s; axis = z }\n";
                    source += &format!(
                        "joint jx spherical {{ from = s; to = a; can_collide = {can_collide} }}\n"
                    );
                    "s"
                } else {
                    source += &format!(
                        "joint ja {kind} {{ from = w; to = a; can_collide = {can_collide} }}\n"
                    );
                    "w"
                };
                source += "joint jc revolute { from = a; to = c; axis = z }\n";
                let (scene, set) = collision_set(&source);
                let pair = |p: &str, q: &str| collide(&scene, &set, p, q);
                assert_eq!(
                    pair(x, "a"),
                    can_collide,
                    "{kind} with can_collide = {can_collide}"
                );
                assert!(
                    !pair("a", "c"),
                    "{kind}: the next joint's bodies stay apart"
                );
                assert!(
                    pair(x, "c"),
                    "{kind}: bodies not joined to each other collide"
                );
            }
        }
    }

    #[test]
    fn vertex_spheres_replace_hull_hull_pairs_only() {
        let roles = [Hull, Vertex(0), Other, Edge(0)];
        let expected = [
            // Hull with: hull, vertex sphere, other shape, edge capsule.
            [false, true, true, false],
            // Vertex sphere with: hull, vertex sphere, other shape, edge capsule.
            [true, false, false, false],
            // Other shape with: hull, vertex sphere, other shape, edge capsule.
            [true, false, true, false],
            // Edge capsule with: hull, vertex sphere, other shape, edge capsule.
            [false, false, false, true],
        ];
        for (i, a) in roles.iter().enumerate() {
            for (j, b) in roles.iter().enumerate() {
                assert_eq!(a.collides(*b), expected[i][j], "{a:?} with {b:?}");
            }
        }
        assert!(Role::Vertex(3).collides(Role::Hull));
    }
}
