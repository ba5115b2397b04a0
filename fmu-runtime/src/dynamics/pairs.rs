//! The collision pairs of a simulation: the ones met so far ([`PairTable`], with their discrete
//! state) and the ones near enough to touch now ([`NearPairs`]).
//!
//! Every two colliders of separate bodies may collide, so the pairs are not listed in advance
//! (their number grows with the square of the bodies): a pair enters the table the first time
//! the broad phase finds its bounding spheres within the near list's margin, and keeps its
//! index from then on. The table only grows; its size follows the pairs that ever came near,
//! about a dozen per ball of a heap.

use super::contacts::Friction;
use super::mechanism::WORLD_BODY;
use crate::assembly::{CollisionPair, CollisionSet};
use crate::collision::broad_phase::IndexMap;
use crate::collision::{distance, sphere_pairs, Shape};
use crate::model::ShapeSpec;
use nalgebra::{Isometry3, Vector3};

/// The sign a pair's signed distance (`distance`) and stick–slip switching function (`switch`)
/// had when the integrator last restarted: +1 or −1. The zero-crossing functions are these
/// values times the present ones, so that every change since the restart is a fall through
/// zero ([`super::contacts::crossing_functions`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sides {
    pub distance: i8,
    pub switch: i8,
}

impl Default for Sides {
    /// Apart, and not slow enough to stick: what a pair is when it first comes near.
    fn default() -> Self {
        Sides {
            distance: 1,
            switch: 1,
        }
    }
}

/// The collision pairs met so far, by index, with their discrete state.
#[derive(Debug, Clone, Default)]
pub struct PairTable {
    pairs: Vec<CollisionPair>,
    index: IndexMap<(usize, usize), usize>,
    /// Per pair: whether it sticks and where, changed only at events.
    pub frictions: Vec<Friction>,
    /// Per pair: the signs at the last restart.
    pub sides: Vec<Sides>,
    /// The pairs with a side −1 (in contact, or slow enough to stick, at the last restart):
    /// their crossings are watched even when they have left the near list.
    pub marked: Vec<usize>,
    /// Per pair: the smaller bounding radius of its two colliders [m], the length its hold gap
    /// scales with ([`PairTable::hold_gap`]).
    sizes: Vec<f64>,
    /// The integrator's relative tolerance: a contact ends when its shapes part by this
    /// fraction of the pair's size ([`PairTable::hold_gap`]); 0 ends it at zero distance.
    pub hold_scale: f64,
}

impl PairTable {
    /// A table holding the pairs of the set's contact reports, in their order.
    pub fn new(set: &CollisionSet) -> PairTable {
        let mut table = PairTable::default();
        for report in &set.reports {
            for &(a, b) in &report.pairs {
                table.register(set, a, b);
            }
        }
        table
    }

    /// The index of the pair of colliders `a < b`, entering it on first use; `None` when they
    /// do not collide.
    pub fn register(&mut self, set: &CollisionSet, a: usize, b: usize) -> Option<usize> {
        if let Some(&id) = self.index.get(&(a, b)) {
            return Some(id);
        }
        let pair = set.pair(a, b)?;
        let id = self.pairs.len();
        self.pairs.push(pair);
        self.frictions.push(Friction::default());
        self.sides.push(Sides::default());
        let radius = |c: usize| set.colliders[c].shape.bounding_radius();
        self.sizes.push(radius(a).min(radius(b)));
        self.index.insert((a, b), id);
        Some(id)
    }

    /// The index of the pair of colliders `a < b`, if it has been met.
    pub fn find(&self, a: usize, b: usize) -> Option<usize> {
        self.index.get(&(a, b)).copied()
    }

    /// The pair with index `id`.
    pub fn get(&self, id: usize) -> &CollisionPair {
        &self.pairs[id]
    }

    /// How many pairs have been met.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// True when no pair has been met.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// How far the shapes of pair `id` must part before a contact between them ends [m]: the
    /// integrator's relative tolerance times the smaller of their bounding radii. A contact
    /// whose shapes part by less (a resting neighbour's micro-gap in a heap, opened and closed
    /// again at the scale of the integrator's error) goes on without an event: its force is
    /// zero in the gap and continuous at zero distance, and its friction state is kept.
    pub fn hold_gap(&self, id: usize) -> f64 {
        self.hold_scale * self.sizes[id]
    }

    /// The pairs in contact at the last restart (side −1: penetrating, or held across a gap
    /// smaller than [`PairTable::hold_gap`]), as collider indices in ascending order (for saved
    /// states).
    pub fn in_contact(&self) -> Vec<(usize, usize)> {
        let mut pairs: Vec<_> = self
            .marked
            .iter()
            .filter(|&&id| self.sides[id].distance < 0)
            .map(|&id| (self.pairs[id].a, self.pairs[id].b))
            .collect();
        pairs.sort_unstable();
        pairs
    }

    /// The pairs whose friction state is not the default, as collider indices (for saved
    /// states, which must not depend on the order in which pairs were met).
    pub fn held_frictions(&self) -> Vec<((usize, usize), Friction)> {
        let mut held: Vec<_> = self
            .pairs
            .iter()
            .zip(&self.frictions)
            .filter(|(_, f)| **f != Friction::default())
            .map(|(p, f)| ((p.a, p.b), *f))
            .collect();
        held.sort_by_key(|(pair, _)| *pair);
        held
    }
}

/// The collision pairs near enough to penetrate (a Verlet list, as molecular dynamics keeps
/// one): the pairs whose bounding spheres were less than `margin` apart when the list was
/// made, and of those with a collider fixed to the world, the ones whose moving collider's
/// bounding sphere was less than `margin` from the fixed shape itself (a floor's or a wall's
/// bounding sphere holds the whole scene: by it every ball is near every wall). As long as no
/// collider's centre has moved `margin / 4` since, a pair not on the list is still half the
/// margin apart ([`NearPairs::cap`]; a fixed shape does not move, the bounding sphere of the
/// other moves with its centre) and cannot penetrate, so the contact loads and the
/// zero-crossing functions need only the list. Checking the displacements is O(colliders) per
/// evaluation; the list is made again by the grid broad phase ([`sphere_pairs`], O(colliders))
/// only when some collider moved that far. The loads are the same to the last bit as over every
/// pair (the pairs left out contribute nothing, and the per-body sums are exact, whatever the
/// order).
#[derive(Debug, Clone, Default)]
pub struct NearPairs {
    /// Indices into the [`PairTable`], ascending by collider indices.
    pub pairs: Vec<usize>,
    /// Per pair of the table: whether it is on the list.
    pub is_near: Vec<bool>,
    /// Every collider's centre when the list was made (empty: not made yet).
    centres: Vec<Vector3<f64>>,
    margin: f64,
    /// How many times the list was made (for tests and statistics).
    pub rebuilds: u64,
}

impl NearPairs {
    /// Makes the list again when it has not been made, a collider has moved half the margin,
    /// or `force`.
    pub fn refresh(
        &mut self,
        set: &CollisionSet,
        table: &mut PairTable,
        poses: &[Isometry3<f64>],
        force: bool,
    ) {
        let centre = |k: usize| poses[k].translation.vector;
        let moved =
            self.centres.len() != poses.len()
                || self.centres.iter().enumerate().any(|(k, c)| {
                    (centre(k) - c).norm_squared() >= 0.0625 * self.margin * self.margin
                });
        if !moved && !force {
            return;
        }
        if self.centres.len() != poses.len() {
            self.margin = near_margin(set);
        }
        self.centres.clear();
        self.centres.extend((0..poses.len()).map(centre));
        let radii: Vec<f64> = set
            .colliders
            .iter()
            .map(|c| c.shape.bounding_radius() + 0.5 * self.margin)
            .collect();
        for &id in &self.pairs {
            self.is_near[id] = false;
        }
        self.pairs.clear();
        for (a, b) in sphere_pairs(&self.centres, &radii, |a, b| !set.may_collide(a, b)) {
            if apart_from_the_fixed_shape(set, poses, a, b, self.margin) {
                continue;
            }
            if let Some(id) = table.register(set, a, b) {
                self.pairs.push(id);
            }
        }
        self.is_near.resize(table.len(), false);
        for &id in &self.pairs {
            self.is_near[id] = true;
        }
        self.rebuilds += 1;
    }

    /// Half the margin: every pair off the list is at least this far apart (0 before the list
    /// is made).
    pub fn cap(&self) -> f64 {
        0.5 * self.margin
    }
}

/// Whether one of colliders `a` and `b` is fixed to the world and the other's bounding sphere
/// is at least `margin` from its shape. `false` when neither is fixed or the distance cannot be
/// computed (the pair stays on the list).
fn apart_from_the_fixed_shape(
    set: &CollisionSet,
    poses: &[Isometry3<f64>],
    a: usize,
    b: usize,
    margin: f64,
) -> bool {
    let (fixed, moving) = match (set.colliders[a].body, set.colliders[b].body) {
        (WORLD_BODY, WORLD_BODY) => return false,
        (WORLD_BODY, _) => (a, b),
        (_, WORLD_BODY) => (b, a),
        _ => return false,
    };
    let diameter = 2.0 * set.colliders[moving].shape.bounding_radius();
    let Ok(bounds) = Shape::new(&ShapeSpec::Sphere { diameter }) else {
        return false;
    };
    let moving_pose = Isometry3::from_parts(poses[moving].translation, Default::default());
    distance(
        &set.colliders[fixed].shape,
        &poses[fixed],
        &bounds,
        &moving_pose,
    )
    .is_ok_and(|contact| contact.distance >= margin)
}

/// The near list's margin: half the mean bounding radius of the colliders (a ball may travel
/// an eighth of its radius before the list is made again).
pub(super) fn near_margin(set: &CollisionSet) -> f64 {
    let count = set.colliders.len().max(1) as f64;
    let mean = set
        .colliders
        .iter()
        .map(|c| c.shape.bounding_radius())
        .sum::<f64>()
        / count;
    0.5 * mean
}
