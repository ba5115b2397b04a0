//! The convex hull of a mesh as a collision core: parry's hull of its vertices, shrunk by the
//! smoothing radius (the inner parallel body), with the vertex adjacency that lets the support
//! point be found by hill climbing instead of a visit of every vertex.
//!
//! Shrinking: every face plane n·x = d of the hull moves inwards to n·x = d − r, and the core is
//! the intersection of those half-spaces, found as the polar dual of the hull of the points
//! n / (d − r) (each facet of that dual hull is a vertex of the core). The core swept by a
//! sphere of radius r is the hull again, its faces exactly where they were, its edges and
//! corners rounded by r, as a primitive box is.

use super::MeshError;
use nalgebra::{Matrix3, Point3, Vector3};
use parry3d_f64::transformation::convex_hull;

/// Hulls with at most this many vertices find their support point by visiting every vertex;
/// larger ones climb.
const VISIT_ALL_BELOW: usize = 24;

/// A face (coplanar triangles together) of at least this fraction of the hull's surface is one
/// a part can rest on: its corners get vertex spheres and its edges capsules, so that it stands
/// on them as a box stands on its corners. The facets of a finely tessellated round surface (a
/// sphere of 1 280 triangles: each 0.08 % of it) get none: such a part touches as one shape, as
/// an ellipsoid does, and a hull of a thousand vertices does not become thousands of colliders.
pub const RESTING_FACE_FRACTION: f64 = 0.005;

/// A hull's vertices and its triangles (indices into them).
type VerticesAndTriangles = (Vec<Point3<f64>>, Vec<[u32; 3]>);

/// parry's convex hull of `points`, with a panic of it (on input it finds degenerate) turned
/// into an error: a mesh file must not bring down the importer that loads the FMU.
fn hull_of(points: &[Point3<f64>]) -> Result<VerticesAndTriangles, MeshError> {
    std::panic::catch_unwind(|| convex_hull(points)).map_err(|_| {
        MeshError(
            "its convex hull cannot be computed (the vertices are degenerate: all nearly on one \
             plane or line)"
                .into(),
        )
    })
}

/// A convex polytope with its adjacency, in the shape's frame.
#[derive(Debug, Clone, PartialEq)]
pub struct ConvexHull {
    vertices: Vec<Point3<f64>>,
    /// The hull's triangles (indices into `vertices`).
    triangles: Vec<[u32; 3]>,
    /// The vertices joined to each vertex by an edge of a hull triangle.
    neighbours: Vec<Vec<u32>>,
    /// The extreme vertices along ±x, ±y, ±z: climbing starts from the best of them.
    seeds: [u32; 6],
    /// The corners of the faces a part can rest on (see [`RESTING_FACE_FRACTION`]).
    feature_vertices: Vec<u32>,
    /// The edges of those faces where they meet a face that is not coplanar.
    feature_edges: Vec<[u32; 2]>,
    /// A point inside, the mean of the vertices.
    centre: Point3<f64>,
    /// The smallest distance from the centre to a face plane.
    inradius: f64,
    /// The smallest extent across the hull along one of its face normals.
    smallest_width: f64,
}

impl ConvexHull {
    /// The convex hull of `points`, shrunk by `margin`, and the margin: at most `margin`, and at
    /// most `max_fraction` of the hull's smallest width and half its inradius, so that the core
    /// keeps every face.
    pub fn shrunk(
        points: &[Point3<f64>],
        margin: f64,
        max_fraction: f64,
    ) -> Result<(ConvexHull, f64), MeshError> {
        let outer = ConvexHull::of_points(points)?;
        let r = margin
            .min(max_fraction * outer.smallest_width)
            .min(0.5 * outer.inradius)
            .max(0.0);
        if r == 0.0 {
            return Ok((outer, 0.0));
        }
        let planes = outer.face_planes();
        let c = outer.centre.coords;
        let dual: Vec<Point3<f64>> = planes
            .iter()
            .map(|(n, d)| Point3::from(n / (d - r)))
            .collect();
        let (dual_vertices, dual_triangles) = hull_of(&dual)?;
        let mut core = Vec::with_capacity(dual_triangles.len());
        for t in &dual_triangles {
            let m = Matrix3::from_rows(&[
                dual_vertices[t[0] as usize].coords.transpose(),
                dual_vertices[t[1] as usize].coords.transpose(),
                dual_vertices[t[2] as usize].coords.transpose(),
            ]);
            if let Some(x) = m.lu().solve(&Vector3::repeat(1.0)) {
                if x.iter().all(|v| v.is_finite()) {
                    core.push(Point3::from(x + c));
                }
            }
        }
        Ok((ConvexHull::of_points(&core)?, r))
    }

    /// The convex hull of `points` as it is.
    pub fn of_points(points: &[Point3<f64>]) -> Result<ConvexHull, MeshError> {
        let flat = || {
            MeshError(
                "its vertices lie in a plane or on a line: a convex hull that collides needs a \
                 volume"
                    .into(),
            )
        };
        if points.len() < 4 {
            return Err(flat());
        }
        let (vertices, triangles) = hull_of(points)?;
        if triangles.len() < 4 {
            return Err(flat());
        }
        let n = vertices.len();
        let centre =
            Point3::from(vertices.iter().map(|p| p.coords).sum::<Vector3<f64>>() / n as f64);
        let size = vertices
            .iter()
            .map(|p| (p - centre).norm())
            .fold(0.0, f64::max);
        let normal = |t: &[u32; 3]| {
            let [a, b, c] = t.map(|i| vertices[i as usize]);
            let n = (b - a).cross(&(c - a));
            let n = n.try_normalize(0.0)?;
            // Outwards, whichever way the hull turns its triangles.
            Some(if n.dot(&(a - centre)) < 0.0 { -n } else { n })
        };
        let normals: Vec<Option<Vector3<f64>>> = triangles.iter().map(normal).collect();
        let mut neighbours = vec![Vec::new(); n];
        let mut faces_of_edge: std::collections::HashMap<(u32, u32), Vec<usize>> =
            std::collections::HashMap::new();
        for (f, t) in triangles.iter().enumerate() {
            for k in 0..3 {
                let (a, b) = (t[k], t[(k + 1) % 3]);
                if !neighbours[a as usize].contains(&b) {
                    neighbours[a as usize].push(b);
                    neighbours[b as usize].push(a);
                }
                faces_of_edge
                    .entry((a.min(b), a.max(b)))
                    .or_default()
                    .push(f);
            }
        }
        // The faces: triangles joined across the edges where they are coplanar.
        let coplanar = |faces: &[usize]| match faces {
            [f, g] => match (normals[*f], normals[*g]) {
                (Some(m), Some(n)) => m.dot(&n) >= 1.0 - 1e-9,
                _ => true,
            },
            _ => false,
        };
        let mut face_of: Vec<usize> = (0..triangles.len()).collect();
        fn root(face_of: &mut [usize], mut f: usize) -> usize {
            while face_of[f] != f {
                face_of[f] = face_of[face_of[f]];
                f = face_of[f];
            }
            f
        }
        for faces in faces_of_edge.values() {
            if let ([f, g], true) = (faces.as_slice(), coplanar(faces)) {
                let (a, b) = (root(&mut face_of, *f), root(&mut face_of, *g));
                face_of[a] = b;
            }
        }
        let mut face_area = vec![0.0; triangles.len()];
        let mut total_area = 0.0;
        for (f, t) in triangles.iter().enumerate() {
            let [a, b, c] = t.map(|i| vertices[i as usize]);
            let area = 0.5 * (b - a).cross(&(c - a)).norm();
            let r = root(&mut face_of, f);
            face_area[r] += area;
            total_area += area;
        }
        let resting: Vec<bool> = (0..triangles.len())
            .map(|f| {
                let r = root(&mut face_of, f);
                face_area[r] >= RESTING_FACE_FRACTION * total_area
            })
            .collect();
        let mut feature_vertices: Vec<u32> = triangles
            .iter()
            .zip(&resting)
            .filter(|(_, resting)| **resting)
            .flat_map(|(t, _)| *t)
            .collect();
        feature_vertices.sort_unstable();
        feature_vertices.dedup();
        let mut feature_edges: Vec<[u32; 2]> = faces_of_edge
            .iter()
            .filter(|(_, faces)| !coplanar(faces) && faces.iter().any(|&f| resting[f]))
            .map(|(&(a, b), _)| [a, b])
            .collect();
        feature_edges.sort_unstable();
        let mut hull = ConvexHull {
            vertices,
            triangles,
            neighbours,
            seeds: [0; 6],
            feature_vertices,
            feature_edges,
            centre,
            inradius: 0.0,
            smallest_width: 0.0,
        };
        hull.seeds = std::array::from_fn(|k| {
            let mut axis = Vector3::zeros();
            axis[k / 2] = if k % 2 == 0 { 1.0 } else { -1.0 };
            hull.support_index_by_visit(&axis)
        });
        let planes = hull.face_planes();
        hull.inradius = planes.iter().map(|(_, d)| *d).fold(f64::INFINITY, f64::min);
        hull.smallest_width = planes
            .iter()
            .map(|(n, _)| {
                let up = hull.vertices[hull.support_index_by_visit(n) as usize]
                    .coords
                    .dot(n);
                let down = hull.vertices[hull.support_index_by_visit(&-n) as usize]
                    .coords
                    .dot(n);
                up - down
            })
            .fold(f64::INFINITY, f64::min);
        if !(hull.inradius > 1e-9 * size && hull.smallest_width > 0.0) {
            return Err(flat());
        }
        Ok(hull)
    }

    /// The distinct face planes (unit outward normal n, distance d > 0 of the plane from the
    /// centre): the hull's triangles, coplanar ones counted once.
    fn face_planes(&self) -> Vec<(Vector3<f64>, f64)> {
        let mut planes: Vec<(Vector3<f64>, f64)> = Vec::new();
        let size = self.bounding_radius_about(&self.centre);
        for t in &self.triangles {
            let [a, b, c] = t.map(|i| self.vertices[i as usize]);
            let Some(mut n) = (b - a).cross(&(c - a)).try_normalize(0.0) else {
                continue;
            };
            if n.dot(&(a - self.centre)) < 0.0 {
                n = -n;
            }
            let d = n.dot(&(a - self.centre));
            let known = planes
                .iter()
                .any(|(m, e)| m.dot(&n) > 1.0 - 1e-10 && (e - d).abs() <= 1e-10 * size);
            if !known {
                planes.push((n, d));
            }
        }
        planes
    }

    fn bounding_radius_about(&self, point: &Point3<f64>) -> f64 {
        self.vertices
            .iter()
            .map(|p| (p - point).norm())
            .fold(0.0, f64::max)
    }

    pub fn vertices(&self) -> &[Point3<f64>] {
        &self.vertices
    }

    /// The corners of the faces a part can rest on, as vertex indices.
    pub fn feature_vertices(&self) -> &[u32] {
        &self.feature_vertices
    }

    /// The edges of the faces a part can rest on where they meet a face that is not coplanar,
    /// as vertex index pairs.
    pub fn feature_edges(&self) -> &[[u32; 2]] {
        &self.feature_edges
    }

    /// A point inside the hull.
    pub fn centre(&self) -> Point3<f64> {
        self.centre
    }

    /// The radius of a sphere about the centre that lies inside the hull.
    pub fn inradius(&self) -> f64 {
        self.inradius
    }

    /// The smallest extent of the hull across one of its face normals.
    pub fn smallest_width(&self) -> f64 {
        self.smallest_width
    }

    /// The radius of the sphere about the frame's origin that holds the hull.
    pub fn bounding_radius(&self) -> f64 {
        self.bounding_radius_about(&Point3::origin())
    }

    /// The vertex farthest along `direction`: by a visit of every vertex for a small hull, else
    /// by climbing from the best seed to a better neighbour while there is one (a linear
    /// function on a convex polytope has no local maximum that is not global, so the climb
    /// ends at the support point; a few dozen vertices are visited of a thousand).
    pub fn support(&self, direction: &Vector3<f64>) -> Point3<f64> {
        if self.vertices.len() <= VISIT_ALL_BELOW {
            return self.vertices[self.support_index_by_visit(direction) as usize];
        }
        let value = |i: u32| self.vertices[i as usize].coords.dot(direction);
        let mut best = self.seeds[0];
        let mut best_value = value(best);
        for &seed in &self.seeds[1..] {
            let v = value(seed);
            if v > best_value {
                (best, best_value) = (seed, v);
            }
        }
        loop {
            let mut improved = false;
            for &n in &self.neighbours[best as usize] {
                let v = value(n);
                if v > best_value {
                    (best, best_value, improved) = (n, v, true);
                }
            }
            if !improved {
                return self.vertices[best as usize];
            }
        }
    }

    fn support_index_by_visit(&self, direction: &Vector3<f64>) -> u32 {
        let mut best = 0;
        let mut best_value = f64::NEG_INFINITY;
        for (i, p) in self.vertices.iter().enumerate() {
            let v = p.coords.dot(direction);
            if v > best_value {
                (best, best_value) = (i as u32, v);
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube_points(half: f64) -> Vec<Point3<f64>> {
        (0..8)
            .map(|i| {
                let s = |bit: usize| if i & bit == 0 { -half } else { half };
                Point3::new(s(1), s(2), s(4))
            })
            .chain([Point3::origin()])
            .collect()
    }

    #[test]
    fn a_cube_shrinks_to_the_cube_of_the_primitive_box() {
        let (core, r) = ConvexHull::shrunk(&cube_points(0.5), 0.01, 0.1).unwrap();
        assert_eq!(r, 0.01);
        assert_eq!(core.vertices().len(), 8);
        for p in core.vertices() {
            for c in p.coords.iter() {
                assert!((c.abs() - 0.49).abs() < 1e-14, "{p}");
            }
        }
        assert_eq!(core.feature_edges().len(), 12);
        assert!((core.inradius() - 0.49).abs() < 1e-14);
        assert!((core.smallest_width() - 0.98).abs() < 1e-14);
    }

    /// A cube's six faces are each a sixth of its surface: all eight corners and twelve edges are
    /// features. An icosphere's facets are each under 0.1 %: none.
    #[test]
    fn only_the_faces_a_part_can_rest_on_have_features() {
        let (cube, _) = ConvexHull::shrunk(&cube_points(0.5), 0.01, 0.1).unwrap();
        assert_eq!(
            (cube.feature_vertices().len(), cube.feature_edges().len()),
            (8, 12)
        );
        let ball = crate::mesh::TriangleMesh::icosphere(3);
        let (round, _) = ConvexHull::shrunk(&ball.vertices, 0.01, 0.1).unwrap();
        assert!(round.vertices().len() > 600);
        assert_eq!(
            (round.feature_vertices().len(), round.feature_edges().len()),
            (0, 0)
        );
    }

    #[test]
    fn the_margin_is_clamped_by_the_smallest_width() {
        let flat: Vec<Point3<f64>> = cube_points(0.5)
            .into_iter()
            .map(|p| Point3::new(p.x, p.y, 0.02 * p.z))
            .collect();
        let (_, r) = ConvexHull::shrunk(&flat, 0.01, 0.1).unwrap();
        assert!((r - 0.002).abs() < 1e-15, "{r}");
    }

    #[test]
    fn points_in_a_plane_are_refused() {
        let points: Vec<Point3<f64>> = (0..10)
            .map(|i| Point3::new(i as f64, (i * i % 7) as f64, 0.0))
            .collect();
        assert!(ConvexHull::of_points(&points).is_err());
    }

    /// Climbing agrees with visiting every vertex on a hull of many vertices (points on a
    /// sphere), in every direction tried.
    #[test]
    fn climbing_finds_the_support_of_every_direction() {
        let n = 2000;
        let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
        let points: Vec<Point3<f64>> = (0..n)
            .map(|i| {
                let z = 1.0 - 2.0 * (i as f64 + 0.5) / n as f64;
                let r = (1.0 - z * z).sqrt();
                let phi = golden * i as f64;
                Point3::new(r * phi.cos(), 0.5 * r * phi.sin(), 2.0 * z)
            })
            .collect();
        let hull = ConvexHull::of_points(&points).unwrap();
        assert!(hull.vertices().len() > 1000);
        for k in 0..500 {
            let t = k as f64 * 0.7;
            let d = Vector3::new(t.sin() * (3.0 * t).cos(), (2.0 * t).cos(), t.cos() * 0.3);
            let climbed = hull.support(&d).coords.dot(&d);
            let visited = hull.vertices()[hull.support_index_by_visit(&d) as usize]
                .coords
                .dot(&d);
            assert_eq!(climbed, visited, "direction {d}");
        }
    }
}
