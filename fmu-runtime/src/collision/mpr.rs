//! Signed distance of two convex shapes: Minkowski Portal Refinement (Snethen) with the
//! improvements needed by a variable-step integrator (distances of separated shapes, defined
//! answers in degenerate situations).
//!
//! All work happens on the Minkowski difference D = B − A = {b − a}, whose support map is
//! s_D(u) = s_B(u) − s_A(−u). The origin lies in D exactly when the shapes overlap; the signed
//! distance is the distance of the origin to D's boundary, positive outside.
//!
//! 1. **Cores apart** (the usual case, including every penetration shallower than the sum of
//!    the two margins): the portal is refined towards the point of D_core closest to the origin.
//!    Each step takes the closest point v of the current portal (a triangle, or one of its edges
//!    or vertices) to the origin, asks for the support point w = s_D(−v) and keeps the smallest
//!    sub-portal of {portal, w} that holds the new closest point. |v| is an upper and v·w/|v| a
//!    lower bound of the core distance; the loop stops when the upper bound and the best lower
//!    bound seen agree within [`DISTANCE_TOLERANCE`] (relative) or [`ABSOLUTE_TOLERANCE`] times
//!    the size of the pair, or when round-off stops the progress. The answer is the direction
//!    of the best lower bound: its two supporting planes give the normal and the distance, and
//!    the portal's closest points are moved along the normal onto them, so that the gap between
//!    the points along the normal is the distance. The margins are then subtracted. The
//!    distance is never larger than the true one and below it by at most the final gap between
//!    the bounds (docs/engine.md lists what that gap is for which shape pairs). Without any
//!    positive lower bound the separation is not certified and the cores count as overlapping.
//! 2. **Cores overlap** (a penetration deeper than the margins, or shapes without margin
//!    touching): the classic MPR on the full shapes. A portal through which the ray from an
//!    interior point of D towards the origin passes is found and refined until it lies on D's
//!    boundary; its normal is the contact normal and the distance of the origin to it the
//!    penetration depth. This depth is measured along the ray between the shapes' centres: an
//!    upper bound of the minimal penetration depth that equals it when the centre line crosses
//!    the deepest face (always true for spheres and symmetric configurations).

use nalgebra::{Isometry3, Point3, Unit, Vector3};

use super::shapes::Shape;
use super::{CollisionError, Contact};

/// Relative tolerance on distances: upper and lower bound agree to this fraction. The distance
/// is stationary in the normal, so the normal is only as good as the square root of this
/// tolerance; below round-off the loop stops when it makes no more progress.
pub const DISTANCE_TOLERANCE: f64 = 1.0e-14;
/// Absolute tolerance, as a fraction of the sum of the two bounding radii.
pub const ABSOLUTE_TOLERANCE: f64 = 1.0e-15;
/// Iteration bound of each refinement loop.
pub const MAX_ITERATIONS: usize = 256;

/// A vertex of the Minkowski difference with the two shape points it came from.
#[derive(Debug, Clone, Copy)]
struct Vertex {
    p: Vector3<f64>,
    a: Point3<f64>,
    b: Point3<f64>,
}

struct Pair<'s> {
    a: &'s Shape,
    pose_a: &'s Isometry3<f64>,
    b: &'s Shape,
    pose_b: &'s Isometry3<f64>,
    /// Use the cores (no margins) instead of the full shapes.
    core: bool,
}

impl Pair<'_> {
    /// s_D(u) = s_B(u) − s_A(−u).
    fn support(&self, u: &Vector3<f64>) -> Vertex {
        let (a, b) = if self.core {
            (
                self.a.core_support_world(self.pose_a, &-u),
                self.b.core_support_world(self.pose_b, u),
            )
        } else {
            (
                self.a.support_world(self.pose_a, &-u),
                self.b.support_world(self.pose_b, u),
            )
        };
        Vertex { p: b - a, a, b }
    }
}

/// The signed distance of `a` at `pose_a` and `b` at `pose_b` by the portal algorithms only
/// (no analytic shortcut): see the module documentation.
pub fn signed_distance(
    a: &Shape,
    pose_a: &Isometry3<f64>,
    b: &Shape,
    pose_b: &Isometry3<f64>,
) -> Result<Contact, CollisionError> {
    check_pose(pose_a)?;
    check_pose(pose_b)?;
    let scale = a.bounding_radius() + b.bounding_radius();
    let eps = ABSOLUTE_TOLERANCE * scale;
    let cores = Pair {
        a,
        pose_a,
        b,
        pose_b,
        core: true,
    };
    if let Some(c) = closest_points(&cores, eps) {
        let (ma, mb) = (a.margin(), b.margin());
        let u = c.normal.into_inner();
        return Ok(Contact {
            distance: c.distance - ma - mb,
            point_a: c.point_a + u * ma,
            point_b: c.point_b - u * mb,
            normal: c.normal,
        });
    }
    let full = Pair {
        core: false,
        ..cores
    };
    Ok(portal_penetration(&full, eps))
}

fn check_pose(pose: &Isometry3<f64>) -> Result<(), CollisionError> {
    let finite = pose.translation.vector.iter().all(|x| x.is_finite())
        && pose.rotation.coords.iter().all(|x| x.is_finite());
    if finite {
        Ok(())
    } else {
        Err(CollisionError::NonFinitePose)
    }
}

/// The closest points of the two (core) shapes when they are apart by more than `eps`, each on
/// its core's supporting plane of the returned normal. `None` when they touch or overlap.
///
/// The answer is the best *separating plane pair* seen: the direction u with the largest lower
/// bound −h_D(−u) of the distance, its value as the distance, and the portal's closest points
/// moved along u onto the two supporting planes. The gap between the points along the normal is
/// then the distance by construction, and the distance never exceeds the true one. The last
/// direction is not used: where D has a flat patch (the side of a cone or cylinder, a box face)
/// the lower bound drops to first order in the direction's error (the support jumps to the far
/// end of the patch), while the upper bound |v| moves only to second order, so a refinement that
/// stops on round-off (no more progress) may end on a direction whose lower bound is worse than
/// an earlier one.
fn closest_points(pair: &Pair, eps: f64) -> Option<ClosestPoints> {
    let centre = (pair.pose_b * pair.b.inner_point()) - (pair.pose_a * pair.a.inner_point());
    let start = if centre.norm_squared() > 0.0 {
        centre
    } else {
        Vector3::x()
    };
    // The portal: up to three vertices with barycentric weights of the closest point.
    let mut simplex: Vec<Vertex> = Vec::with_capacity(4);
    let first = pair.support(&-start);
    simplex.push(first);
    let mut weights = vec![1.0];
    let mut v = first.p;
    // The best lower bound: (its value, its unit direction, the support vertex giving it).
    let mut best: Option<(f64, Vector3<f64>, Vertex)> = None;
    for _ in 0..MAX_ITERATIONS {
        let vv = v.norm_squared();
        let upper = vv.sqrt();
        if upper <= eps {
            return None;
        }
        let w = pair.support(&-v);
        // |v| ≥ distance ≥ v·w / |v|.
        let lower = v.dot(&w.p) / upper;
        if best.as_ref().is_none_or(|(b, ..)| lower > *b) {
            best = Some((lower, v / upper, w));
        }
        let best_lower = best.as_ref().map_or(lower, |(b, ..)| *b);
        let gap = upper - best_lower;
        if gap <= DISTANCE_TOLERANCE * upper || gap <= eps {
            break;
        }
        if simplex
            .iter()
            .any(|s| (s.p - w.p).norm_squared() <= eps * eps)
        {
            break;
        }
        simplex.push(w);
        match closest_on_simplex(&simplex) {
            // A positive lower bound is a separating plane pair: the origin cannot be inside
            // D, and a tetrahedron that seems to hold it is flat to round-off (a support point
            // in the plane of the portal). The refinement has converged as far as it can.
            Closest::Inside if best_lower > 0.0 => {
                simplex.pop();
                break;
            }
            Closest::Inside => return None,
            Closest::Point(kept, kept_weights, point) => {
                if point.norm_squared() >= vv {
                    // No progress: the previous answer is as good as it gets.
                    simplex.pop();
                    break;
                }
                simplex = kept.iter().map(|&i| simplex[i]).collect();
                weights = kept_weights;
                v = point;
            }
        }
    }
    if v.norm() <= eps {
        return None;
    }
    let (distance, u, support) = best?;
    if distance <= 0.0 {
        // Separation not certified: round-off stopped the refinement with the origin on the
        // portal (|v| at round-off level, no direction with a positive lower bound). The cores
        // touch or overlap as far as the arithmetic can tell.
        return None;
    }
    let mut pa = Vector3::zeros();
    let mut pb = Vector3::zeros();
    for (s, w) in simplex.iter().zip(&weights) {
        pa += s.a.coords * *w;
        pb += s.b.coords * *w;
    }
    // support = s_D(−u): support.a is a's support point along u, support.b is b's along −u. On
    // curved cores the portal's points are chord points inside the cores; the moves are at most
    // the gap between the bounds in total.
    let point_a = pa + u * (support.a.coords - pa).dot(&u);
    let point_b = pb + u * (support.b.coords - pb).dot(&u);
    Some(ClosestPoints {
        distance,
        point_a: Point3::from(point_a),
        point_b: Point3::from(point_b),
        normal: Unit::new_unchecked(u),
    })
}

/// The answer of [`closest_points`] for the cores: distance along `normal` (from a to b) between
/// the two supporting planes, and a point of each core on its plane.
struct ClosestPoints {
    distance: f64,
    point_a: Point3<f64>,
    point_b: Point3<f64>,
    normal: Unit<Vector3<f64>>,
}

/// (squared distance, face, weights, point).
type FaceCandidate = (f64, [usize; 3], [f64; 3], Vector3<f64>);

enum Closest {
    /// The origin is inside the tetrahedron.
    Inside,
    /// Indices of the vertices kept, their weights and the closest point.
    Point(Vec<usize>, Vec<f64>, Vector3<f64>),
}

fn closest_on_simplex(s: &[Vertex]) -> Closest {
    match s.len() {
        1 => Closest::Point(vec![0], vec![1.0], s[0].p),
        2 => {
            let (w, p) = closest_on_segment(&s[0].p, &s[1].p);
            reduce(&[0, 1], &w, p)
        }
        3 => {
            let (w, p) = closest_on_triangle(&s[0].p, &s[1].p, &s[2].p);
            reduce(&[0, 1, 2], &w, p)
        }
        _ => closest_on_tetrahedron(s),
    }
}

fn reduce(indices: &[usize], weights: &[f64], p: Vector3<f64>) -> Closest {
    let mut kept = Vec::with_capacity(3);
    let mut kw = Vec::with_capacity(3);
    for (i, w) in indices.iter().zip(weights) {
        if *w > 0.0 {
            kept.push(*i);
            kw.push(*w);
        }
    }
    if kept.is_empty() {
        kept.push(indices[0]);
        kw.push(1.0);
    }
    Closest::Point(kept, kw, p)
}

fn closest_on_tetrahedron(s: &[Vertex]) -> Closest {
    const FACES: [([usize; 3], usize); 4] = [
        ([0, 1, 2], 3),
        ([0, 1, 3], 2),
        ([0, 2, 3], 1),
        ([1, 2, 3], 0),
    ];
    // A flat tetrahedron (the new vertex in the plane of the portal, as on flat faces) holds
    // no volume: its face tests are round-off, and the origin is not inside.
    let (e1, e2, e3) = (s[1].p - s[0].p, s[2].p - s[0].p, s[3].p - s[0].p);
    let volume = e1.cross(&e2).dot(&e3);
    let mut inside = volume.abs() > 1e-10 * e1.norm() * e2.norm() * e3.norm();
    let mut best: Option<FaceCandidate> = None;
    for (face, opposite) in FACES {
        let [i, j, k] = face;
        let (a, b, c) = (&s[i].p, &s[j].p, &s[k].p);
        let n = (b - a).cross(&(c - a));
        let side_origin = n.dot(&-a);
        let side_opposite = n.dot(&(s[opposite].p - a));
        // The origin is inside when it is on the opposite vertex's side of every face.
        if side_origin * side_opposite <= 0.0 || side_origin.is_nan() {
            inside = false;
        }
        let (w, p) = closest_on_triangle(a, b, c);
        let d = p.norm_squared();
        if best.as_ref().is_none_or(|(bd, ..)| d < *bd) {
            best = Some((d, face, w, p));
        }
    }
    if inside {
        return Closest::Inside;
    }
    match best {
        Some((_, face, w, p)) => reduce(&face, &w, p),
        None => Closest::Inside,
    }
}

/// Closest point of segment [a, b] to the origin: barycentric weights and the point.
fn closest_on_segment(a: &Vector3<f64>, b: &Vector3<f64>) -> ([f64; 2], Vector3<f64>) {
    let ab = b - a;
    let den = ab.norm_squared();
    let t = if den > 0.0 {
        (-a.dot(&ab) / den).clamp(0.0, 1.0)
    } else {
        0.0
    };
    ([1.0 - t, t], a + ab * t)
}

/// Closest point of triangle (a, b, c) to the origin (Ericson, Real-Time Collision Detection,
/// 5.1.5): barycentric weights and the point. Degenerate triangles fall back to their edges.
fn closest_on_triangle(
    a: &Vector3<f64>,
    b: &Vector3<f64>,
    c: &Vector3<f64>,
) -> ([f64; 3], Vector3<f64>) {
    let ab = b - a;
    let ac = c - a;
    let ap = -a;
    let d1 = ab.dot(&ap);
    let d2 = ac.dot(&ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return ([1.0, 0.0, 0.0], *a);
    }
    let bp = -b;
    let d3 = ab.dot(&bp);
    let d4 = ac.dot(&bp);
    if d3 >= 0.0 && d4 <= d3 {
        return ([0.0, 1.0, 0.0], *b);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let den = d1 - d3;
        let t = if den > 0.0 { d1 / den } else { 0.0 };
        return ([1.0 - t, t, 0.0], a + ab * t);
    }
    let cp = -c;
    let d5 = ab.dot(&cp);
    let d6 = ac.dot(&cp);
    if d6 >= 0.0 && d5 <= d6 {
        return ([0.0, 0.0, 1.0], *c);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let den = d2 - d6;
        let t = if den > 0.0 { d2 / den } else { 0.0 };
        return ([1.0 - t, 0.0, t], a + ac * t);
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let den = (d4 - d3) + (d5 - d6);
        let t = if den > 0.0 { (d4 - d3) / den } else { 0.0 };
        return ([0.0, 1.0 - t, t], b + (c - b) * t);
    }
    let den = va + vb + vc;
    if den == 0.0 || !den.is_finite() {
        // Degenerate (collinear) triangle: the best of its edges.
        let candidates = [
            ([0usize, 1usize], closest_on_segment(a, b)),
            ([1, 2], closest_on_segment(b, c)),
            ([0, 2], closest_on_segment(a, c)),
        ];
        let mut best = ([1.0, 0.0, 0.0], *a);
        let mut best_d = a.norm_squared();
        for (idx, (w, p)) in candidates {
            if p.norm_squared() < best_d {
                best_d = p.norm_squared();
                let mut full = [0.0; 3];
                full[idx[0]] = w[0];
                full[idx[1]] = w[1];
                best = (full, p);
            }
        }
        return best;
    }
    let v = vb / den;
    let w = vc / den;
    ([1.0 - v - w, v, w], a + ab * v + ac * w)
}

/// Classic MPR on the full shapes, for overlapping cores: the contact along the ray from an
/// interior point of D through the origin. Always returns a finite answer.
fn portal_penetration(pair: &Pair, eps: f64) -> Contact {
    // Interior point of D (the centre ray starts here).
    let mut v0 = (pair.pose_b * pair.b.inner_point()) - (pair.pose_a * pair.a.inner_point());
    if v0.norm() <= eps {
        // Coincident centres: any direction is as good as any other; take a fixed one.
        v0 = Vector3::x() * eps.max(f64::MIN_POSITIVE);
    }
    let ray = -v0;
    let v1 = pair.support(&ray);
    if v1.p.dot(&ray) <= 0.0 {
        return from_plane(&ray, &v1);
    }
    let mut n = v1.p.cross(&v0);
    if n.norm() <= eps * ray.norm() {
        // The origin lies on the segment v0–v1: the boundary point is v1 itself.
        return from_plane(&ray, &v1);
    }
    let mut v2 = pair.support(&n);
    if v2.p.dot(&n) <= 0.0 {
        return from_plane(&n, &v2);
    }
    let mut v1 = v1;
    n = (v1.p - v0).cross(&(v2.p - v0));
    if n.dot(&v0) > 0.0 {
        std::mem::swap(&mut v1, &mut v2);
        n = -n;
    }
    if n.norm() <= eps * eps {
        // v0, v1, v2 collinear (flat difference seen edge-on): the best plane so far.
        return from_plane(&ray, &v1);
    }
    // Phase 2: find a portal (v1, v2, v3) through which the ray passes.
    let mut v3 = pair.support(&n);
    for _ in 0..MAX_ITERATIONS {
        if v3.p.dot(&n) <= 0.0 {
            return from_plane(&n, &v3);
        }
        if v1.p.cross(&v3.p).dot(&v0) < 0.0 {
            v2 = v3;
            n = (v1.p - v0).cross(&(v3.p - v0));
        } else if v3.p.cross(&v2.p).dot(&v0) < 0.0 {
            v1 = v3;
            n = (v3.p - v0).cross(&(v2.p - v0));
        } else {
            break;
        }
        v3 = pair.support(&n);
    }
    // Phase 3: move the portal onto the boundary of D.
    let mut normal = portal_normal(&v1, &v2, &v3).unwrap_or_else(|| Unit::new_normalize(ray));
    for _ in 0..MAX_ITERATIONS {
        let Some(nn) = portal_normal(&v1, &v2, &v3) else {
            break;
        };
        normal = if nn.dot(&ray) < 0.0 { -nn } else { nn };
        let v4 = pair.support(&normal);
        if v4.p.dot(&normal) < 0.0 {
            // D lies behind a plane in front of the origin: the shapes are apart.
            return from_plane(&normal, &v4);
        }
        if (v4.p - v3.p).dot(&normal) <= eps
            || (v4.p - v1.p).dot(&normal) <= eps
            || (v4.p - v2.p).dot(&normal) <= eps
        {
            break;
        }
        let t = v4.p.cross(&v0);
        if v1.p.dot(&t) > 0.0 {
            if v2.p.dot(&t) > 0.0 {
                v1 = v4;
            } else {
                v3 = v4;
            }
        } else if v3.p.dot(&t) > 0.0 {
            v2 = v4;
        } else {
            v1 = v4;
        }
    }
    // The contact: the origin's projection onto the portal plane, interpolated on A and B.
    let depth = normal.dot(&v1.p);
    let q = normal.into_inner() * depth;
    let (w, _) = closest_on_triangle(&(v1.p - q), &(v2.p - q), &(v3.p - q));
    let pa = v1.a.coords * w[0] + v2.a.coords * w[1] + v3.a.coords * w[2];
    let pb = v1.b.coords * w[0] + v2.b.coords * w[1] + v3.b.coords * w[2];
    Contact {
        distance: -depth,
        point_a: Point3::from(pa),
        point_b: Point3::from(pb),
        normal: -normal,
    }
}

/// The outward unit normal of portal (v1, v2, v3) (pointing away from the interior point), or
/// `None` for a degenerate portal.
fn portal_normal(v1: &Vertex, v2: &Vertex, v3: &Vertex) -> Option<Unit<Vector3<f64>>> {
    let n = (v2.p - v1.p).cross(&(v3.p - v1.p));
    Unit::try_new(n, 0.0).filter(|u| u.iter().all(|x| x.is_finite()))
}

/// The answer from one supporting plane of D: outward direction `u`, support vertex `v`.
fn from_plane(u: &Vector3<f64>, v: &Vertex) -> Contact {
    let normal = Unit::try_new(*u, 0.0).unwrap_or(Vector3::x_axis());
    Contact {
        distance: -normal.dot(&v.p),
        point_a: v.a,
        point_b: v.b,
        normal: -normal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The closest point of triangle (a, b, c) to the origin by another route than Ericson's
    /// Voronoi regions: the projection onto the plane when its barycentric coordinates (from
    /// the 2 × 2 normal equations) are all non-negative, else the nearest of the three edges'
    /// clamped projections.
    fn reference(a: &Vector3<f64>, b: &Vector3<f64>, c: &Vector3<f64>) -> Vector3<f64> {
        let (u, v) = (b - a, c - a);
        let (uu, uv, vv) = (u.dot(&u), u.dot(&v), v.dot(&v));
        let (pu, pv) = (-a.dot(&u), -a.dot(&v));
        let det = uu * vv - uv * uv;
        if det > 1e-12 * uu * vv {
            let s = (pu * vv - pv * uv) / det;
            let t = (pv * uu - pu * uv) / det;
            if s >= 0.0 && t >= 0.0 && s + t <= 1.0 {
                return a + u * s + v * t;
            }
        }
        let edge = |p: &Vector3<f64>, q: &Vector3<f64>| {
            let d = q - p;
            let t = (-p.dot(&d) / d.dot(&d)).clamp(0.0, 1.0);
            p + d * t
        };
        [edge(a, b), edge(b, c), edge(c, a)]
            .into_iter()
            .min_by(|x, y| x.norm().total_cmp(&y.norm()))
            .expect("three edges")
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

        /// Every region of the triangle (vertices, edges, face), against the reference: the same
        /// point, and weights that are barycentric and give it.
        #[test]
        fn closest_point_of_a_triangle(
            a in prop::array::uniform3(-1.0..1.0f64),
            b in prop::array::uniform3(-1.0..1.0f64),
            c in prop::array::uniform3(-1.0..1.0f64),
        ) {
            let (a, b, c) = (Vector3::from(a), Vector3::from(b), Vector3::from(c));
            prop_assume!((b - a).cross(&(c - a)).norm() > 1e-3);
            let (w, p) = closest_on_triangle(&a, &b, &c);
            let expected = reference(&a, &b, &c);
            prop_assert!((p - expected).norm() < 1e-12, "{:?} vs {:?}", p, expected);
            prop_assert!(w.iter().all(|x| *x >= -1e-15) && (w.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            prop_assert!((a * w[0] + b * w[1] + c * w[2] - p).norm() < 1e-12);
        }
    }
}
