//! Broad phase: axis-aligned bounding boxes and sweep-and-prune, and a uniform grid of
//! bounding spheres for scenes of many bodies.
//!
//! The pairs whose boxes overlap are the candidates of the narrow phase. Because signed
//! distances serve as zero-crossing functions, a pair must become a candidate *before* it
//! touches: the caller inflates every box by a margin ([`Aabb::loosened`]) so that pairs closer
//! than twice that margin are candidates.

use nalgebra::{Point3, Vector3};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// An axis-aligned box in world coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    pub min: Point3<f64>,
    pub max: Point3<f64>,
}

impl Aabb {
    pub fn new(min: Point3<f64>, max: Point3<f64>) -> Aabb {
        Aabb { min, max }
    }

    /// The box grown by `margin` on every side.
    pub fn loosened(&self, margin: f64) -> Aabb {
        let m = Vector3::repeat(margin);
        Aabb {
            min: self.min - m,
            max: self.max + m,
        }
    }

    /// True when the two closed boxes share a point.
    pub fn intersects(&self, other: &Aabb) -> bool {
        (0..3).all(|i| self.min[i] <= other.max[i] && other.min[i] <= self.max[i])
    }

    /// A lower bound of the distance between any two points of the boxes (0 when they overlap).
    pub fn distance(&self, other: &Aabb) -> f64 {
        let gap = Vector3::from_fn(|i, _| {
            (other.min[i] - self.max[i])
                .max(self.min[i] - other.max[i])
                .max(0.0)
        });
        gap.norm()
    }
}

/// The pairs (i, j), i < j, of boxes that overlap, without the pairs for which
/// `excluded(i, j)` is true (called with i < j only). Sweep and prune along the axis with the
/// largest spread of box centres: one sort, O(n log n + k) for k overlaps along that axis.
/// The pairs come sorted.
pub fn candidate_pairs(
    aabbs: &[Aabb],
    excluded: impl Fn(usize, usize) -> bool,
) -> Vec<(usize, usize)> {
    let n = aabbs.len();
    let mut pairs = Vec::new();
    if n < 2 {
        return pairs;
    }
    let axis = sweep_axis(aabbs);
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_unstable_by(|&i, &j| aabbs[i].min[axis].total_cmp(&aabbs[j].min[axis]));
    for (k, &i) in order.iter().enumerate() {
        let a = &aabbs[i];
        for &j in &order[k + 1..] {
            let b = &aabbs[j];
            if b.min[axis] > a.max[axis] {
                break;
            }
            if a.intersects(b) {
                let pair = (i.min(j), i.max(j));
                if !excluded(pair.0, pair.1) {
                    pairs.push(pair);
                }
            }
        }
    }
    pairs.sort_unstable();
    pairs
}

/// The pairs (i, j), i < j, of spheres (`centres`, `radii`) closer than the sum of their
/// radii, without the pairs for which `excluded(i, j)` is true. A uniform grid with cells of
/// four times the median radius: each sphere no wider than a cell sits in the cell of its centre
/// and meets only spheres of the 27 cells around it; the few wider ones (a floor, a wall, a
/// long edge) are checked against every sphere. O(n + k) for n spheres of similar size and k
/// pairs found, instead of the n² of checking every pair. The pairs come sorted.
pub fn sphere_pairs(
    centres: &[Vector3<f64>],
    radii: &[f64],
    excluded: impl Fn(usize, usize) -> bool,
) -> Vec<(usize, usize)> {
    let n = centres.len().min(radii.len());
    let mut pairs = Vec::new();
    if n < 2 {
        return pairs;
    }
    let mut sorted: Vec<f64> = radii[..n]
        .iter()
        .copied()
        .filter(|r| r.is_finite())
        .collect();
    sorted.sort_unstable_by(f64::total_cmp);
    let cell = 4.0 * sorted.get(sorted.len() / 2).copied().unwrap_or(1.0);
    let key = |c: &Vector3<f64>| {
        // Clamped: a far-away sphere lands in an edge cell, which stays correct (its
        // neighbours are still checked by distance), only slower.
        let index = |x: f64| (x / cell).floor().clamp(-1e15, 1e15) as i64;
        (index(c.x), index(c.y), index(c.z))
    };
    let fits =
        |k: usize| centres[k].iter().all(|x| x.is_finite()) && 2.0 * radii[k] <= cell && cell > 0.0;
    let mut grid: IndexMap<(i64, i64, i64), Vec<usize>> = IndexMap::default();
    let mut wide = Vec::new();
    for (k, centre) in centres.iter().enumerate().take(n) {
        if fits(k) {
            grid.entry(key(centre)).or_default().push(k);
        } else {
            wide.push(k);
        }
    }
    let mut consider = |i: usize, j: usize| {
        let (a, b) = (i.min(j), i.max(j));
        let reach = radii[a] + radii[b];
        if (centres[b] - centres[a]).norm_squared() < reach * reach && !excluded(a, b) {
            pairs.push((a, b));
        }
    };
    for (k, centre) in centres.iter().enumerate().take(n) {
        if !fits(k) {
            continue;
        }
        let (x, y, z) = key(centre);
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let Some(members) = grid.get(&(x + dx, y + dy, z + dz)) else {
                        continue;
                    };
                    for &j in members {
                        if j > k {
                            consider(k, j);
                        }
                    }
                }
            }
        }
    }
    for &i in &wide {
        for j in 0..n {
            // Two wide spheres meet once: from the earlier of them.
            if j != i && (fits(j) || j > i) {
                consider(i, j);
            }
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

/// The axis along which the box centres spread most (so the sweep prunes most).
fn sweep_axis(aabbs: &[Aabb]) -> usize {
    let mut lo = Vector3::repeat(f64::INFINITY);
    let mut hi = Vector3::repeat(f64::NEG_INFINITY);
    for b in aabbs {
        let c = (b.min.coords + b.max.coords) * 0.5;
        lo = lo.inf(&c);
        hi = hi.sup(&c);
    }
    (hi - lo).imax()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::hash::BuildHasher;

    /// The keys the engine hashes get distinct hashes: every grid cell within 10 of the origin
    /// and every pair of the first 300 colliders (a hasher that mixed a word away would make
    /// the maps' lookups linear, unseen by any result).
    #[test]
    fn index_keys_hash_apart() {
        let build = BuildHasherDefault::<IndexHasher>::default();
        let mut cells = HashSet::new();
        for x in -10i64..=10 {
            for y in -10i64..=10 {
                for z in -10i64..=10 {
                    cells.insert(build.hash_one((x, y, z)));
                }
            }
        }
        assert_eq!(cells.len(), 21 * 21 * 21);
        let mut pairs = HashSet::new();
        for a in 0usize..300 {
            for b in a + 1..300 {
                pairs.insert(build.hash_one((a, b)));
            }
        }
        assert_eq!(pairs.len(), 300 * 299 / 2);
    }
    use proptest::prelude::*;

    fn brute_force(aabbs: &[Aabb], excluded: impl Fn(usize, usize) -> bool) -> Vec<(usize, usize)> {
        let mut pairs = Vec::new();
        for i in 0..aabbs.len() {
            for j in i + 1..aabbs.len() {
                if aabbs[i].intersects(&aabbs[j]) && !excluded(i, j) {
                    pairs.push((i, j));
                }
            }
        }
        pairs
    }

    fn arb_aabb() -> impl Strategy<Value = Aabb> {
        (
            prop::array::uniform3(-5.0..5.0f64),
            prop::array::uniform3(0.0..2.0f64),
        )
            .prop_map(|(c, h)| {
                let c = Point3::from(c);
                let h = Vector3::from(h);
                Aabb::new(c - h, c + h)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn sweep_and_prune_finds_what_brute_force_finds(
            aabbs in prop::collection::vec(arb_aabb(), 0..60),
            modulus in 2usize..7,
        ) {
            let excluded = |i: usize, j: usize| (i + j).is_multiple_of(modulus);
            let sap = candidate_pairs(&aabbs, excluded);
            prop_assert_eq!(&sap, &brute_force(&aabbs, excluded));
            prop_assert!(sap.iter().all(|&(i, j)| i < j && !excluded(i, j)));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn the_grid_finds_what_brute_force_finds(
            spheres in prop::collection::vec(
                (prop::array::uniform3(-3.0..3.0f64), prop_oneof![0.05..0.5f64, 0.5..4.0f64]),
                0..80,
            ),
            modulus in 2usize..7,
        ) {
            let centres: Vec<Vector3<f64>> = spheres.iter().map(|(c, _)| Vector3::from(*c)).collect();
            let radii: Vec<f64> = spheres.iter().map(|(_, r)| *r).collect();
            let excluded = |i: usize, j: usize| (i + j).is_multiple_of(modulus);
            let mut expected = Vec::new();
            for i in 0..centres.len() {
                for j in i + 1..centres.len() {
                    let reach = radii[i] + radii[j];
                    if (centres[j] - centres[i]).norm_squared() < reach * reach && !excluded(i, j) {
                        expected.push((i, j));
                    }
                }
            }
            prop_assert_eq!(sphere_pairs(&centres, &radii, excluded), expected);
        }
    }

    #[test]
    fn loosened_boxes_catch_approaching_pairs() {
        let a = Aabb::new(Point3::new(0.0, 0.0, 0.0), Point3::new(1.0, 1.0, 1.0));
        let b = Aabb::new(Point3::new(1.05, 0.0, 0.0), Point3::new(2.0, 1.0, 1.0));
        assert!(candidate_pairs(&[a, b], |_, _| false).is_empty());
        assert!((a.distance(&b) - 0.05).abs() < 1e-12);
        let loose = [a.loosened(0.03), b.loosened(0.03)];
        assert_eq!(candidate_pairs(&loose, |_, _| false), vec![(0, 1)]);
        assert!(candidate_pairs(&loose, |_, _| true).is_empty());
    }

    #[test]
    fn touching_boxes_are_candidates() {
        let a = Aabb::new(Point3::origin(), Point3::new(1.0, 1.0, 1.0));
        let b = Aabb::new(Point3::new(1.0, 1.0, 1.0), Point3::new(2.0, 2.0, 2.0));
        assert_eq!(candidate_pairs(&[b, a], |_, _| false), vec![(0, 1)]);
    }
}

/// A map keyed by indices or grid cells, hashed by one multiply-and-rotate per word
/// ([`IndexHasher`]) instead of the standard library's SipHash, whose resistance to chosen keys
/// the engine's own indices do not need: the pair table and the grid are looked up at every
/// residual evaluation.
pub type IndexMap<K, V> = HashMap<K, V, BuildHasherDefault<IndexHasher>>;

/// The hasher of [`IndexMap`]: the multiplicative mix of rustc's `FxHasher`, per 64-bit word.
#[derive(Debug, Clone, Copy, Default)]
pub struct IndexHasher {
    hash: u64,
}

impl Hasher for IndexHasher {
    fn finish(&self) -> u64 {
        self.hash
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, word: u64) {
        const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }

    fn write_usize(&mut self, word: usize) {
        self.write_u64(word as u64);
    }

    fn write_i64(&mut self, word: i64) {
        self.write_u64(word as u64);
    }
}
