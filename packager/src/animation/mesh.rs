//! Triangle meshes of the shapes, in the shape's own frame (metres): positions, unit normals
//! and counter-clockwise triangles seen from outside. The round shapes are surfaces of
//! revolution about z (a profile turned in [`SEGMENTS`] steps); the box is a cube whose faces
//! are grids, rounded at edges and vertices by the contact smoothing radius.

use fmu_runtime::mesh::TriangleMesh;
use fmu_runtime::model::ShapeSpec;
use nalgebra::Vector3;
use std::f64::consts::PI;

/// Steps around the axis of a surface of revolution.
pub const SEGMENTS: usize = 32;
/// Steps over a half circle of a profile (a sphere's meridian).
pub const MERIDIAN_STEPS: usize = 16;
/// Steps over a quarter circle that rounds an edge.
const EDGE_STEPS: usize = 4;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Mesh {
    pub positions: Vec<Vector3<f64>>,
    pub normals: Vec<Vector3<f64>>,
    pub indices: Vec<u32>,
}

impl Mesh {
    fn push(&mut self, position: Vector3<f64>, normal: Vector3<f64>) -> u32 {
        self.positions.push(position);
        self.normals.push(normal);
        (self.positions.len() - 1) as u32
    }

    /// Componentwise minimum and maximum of the positions.
    #[cfg(test)]
    pub fn bounds(&self) -> (Vector3<f64>, Vector3<f64>) {
        let mut min = Vector3::repeat(f64::INFINITY);
        let mut max = Vector3::repeat(f64::NEG_INFINITY);
        for p in &self.positions {
            min = min.inf(p);
            max = max.sup(p);
        }
        (min, max)
    }
}

/// A point of a profile in the (radius, z) half plane with its outward normal.
#[derive(Debug, Clone, Copy)]
struct ProfilePoint {
    radius: f64,
    z: f64,
    normal: (f64, f64),
}

fn point(radius: f64, z: f64, normal: (f64, f64)) -> ProfilePoint {
    ProfilePoint { radius, z, normal }
}

/// The arc of `radius` about (`center_r`, `center_z`) from angle `from` to `to` (measured from
/// the +r direction towards +z), in `steps` steps.
fn arc(
    center_r: f64,
    center_z: f64,
    radius: f64,
    from: f64,
    to: f64,
    steps: usize,
) -> Vec<ProfilePoint> {
    (0..=steps)
        .map(|k| {
            let angle = from + (to - from) * k as f64 / steps as f64;
            let (s, c) = angle.sin_cos();
            point(center_r + radius * c, center_z + radius * s, (c, s))
        })
        .collect()
}

/// Turns each profile (a polyline from bottom to top, its normals pointing outwards) about z.
/// Sharp corners are separate polylines, so that each side keeps its own normals.
fn revolve(profiles: &[Vec<ProfilePoint>]) -> Mesh {
    let mut mesh = Mesh::default();
    for profile in profiles {
        // A point whose radius is rounding error off zero is on the axis (a sphere's poles).
        let scale = profile
            .iter()
            .map(|p| p.radius.abs().max(p.z.abs()))
            .fold(0.0, f64::max);
        let profile: Vec<ProfilePoint> = profile
            .iter()
            .map(|p| ProfilePoint {
                radius: if p.radius.abs() <= 1e-12 * scale {
                    0.0
                } else {
                    p.radius
                },
                ..*p
            })
            .collect();
        let base = mesh.positions.len() as u32;
        for p in &profile {
            for j in 0..SEGMENTS {
                let angle = 2.0 * PI * j as f64 / SEGMENTS as f64;
                let (s, c) = angle.sin_cos();
                mesh.push(
                    Vector3::new(p.radius * c, p.radius * s, p.z),
                    Vector3::new(p.normal.0 * c, p.normal.0 * s, p.normal.1).normalize(),
                );
            }
        }
        let at = |i: usize, j: usize| base + (i * SEGMENTS + j % SEGMENTS) as u32;
        for i in 0..profile.len().saturating_sub(1) {
            for j in 0..SEGMENTS {
                let (a, b, c, d) = (at(i, j), at(i, j + 1), at(i + 1, j), at(i + 1, j + 1));
                // With `around` the direction of growing angle and `along` that of the profile,
                // around × along points outwards: triangles a-b-d and a-d-c face outwards. A
                // ring on the axis makes one of them a point: left out.
                if profile[i].radius > 0.0 {
                    mesh.indices.extend([a, b, d]);
                }
                if profile[i + 1].radius > 0.0 {
                    mesh.indices.extend([a, d, c]);
                }
            }
        }
    }
    mesh
}

/// Faces that meet at less than this angle are drawn as one smooth surface; at more, with a
/// crease (the usual crease angle of CAD viewers).
const CREASE_ANGLE: f64 = 30.0 * PI / 180.0;

/// A part's own triangles with normals as a CAD export expects: each corner's normal is the
/// area-weighted mean of the faces at that vertex that meet its own face at less than
/// [`CREASE_ANGLE`], so that a tessellated round surface looks round and an edge stays sharp.
fn creased(part: &TriangleMesh) -> Mesh {
    let face_normals: Vec<Vector3<f64>> = part
        .corners()
        .map(|[a, b, c]| (b - a).cross(&(c - a)))
        .collect();
    let mut faces_at = vec![Vec::new(); part.vertices.len()];
    for (f, t) in part.triangles.iter().enumerate() {
        for &v in t {
            faces_at[v as usize].push(f);
        }
    }
    let cos_crease = CREASE_ANGLE.cos();
    let mut mesh = Mesh::default();
    for (f, t) in part.triangles.iter().enumerate() {
        let own = face_normals[f].try_normalize(0.0).unwrap_or(Vector3::z());
        for &v in t {
            let smooth: Vector3<f64> = faces_at[v as usize]
                .iter()
                .map(|&g| face_normals[g])
                .filter(|n| {
                    n.try_normalize(0.0)
                        .is_some_and(|n| n.dot(&own) >= cos_crease)
                })
                .sum();
            let normal = smooth.try_normalize(0.0).unwrap_or(own);
            let index = mesh.push(part.vertices[v as usize].coords, normal);
            mesh.indices.push(index);
        }
    }
    mesh
}

/// The mesh of a shape; `rounding` rounds the edges of a box, cylinder or cone (0: sharp).
pub fn shape_mesh(shape: &ShapeSpec, rounding: f64) -> Mesh {
    let r = rounding.max(0.0);
    match *shape {
        ShapeSpec::Mesh(ref mesh) => creased(&TriangleMesh::joined(&mesh.pieces)),
        ShapeSpec::Sphere { diameter } => revolve(&[arc(
            0.0,
            0.0,
            0.5 * diameter,
            -PI / 2.0,
            PI / 2.0,
            MERIDIAN_STEPS,
        )]),
        ShapeSpec::Ellipsoid { lengths } => {
            let semi = 0.5 * lengths;
            let mut mesh = revolve(&[arc(0.0, 0.0, 1.0, -PI / 2.0, PI / 2.0, MERIDIAN_STEPS)]);
            for (p, n) in mesh.positions.iter_mut().zip(&mut mesh.normals) {
                *p = p.component_mul(&semi);
                *n = p.component_div(&semi.component_mul(&semi)).normalize();
            }
            mesh
        }
        ShapeSpec::Capsule { diameter, length } => {
            let (radius, h) = (0.5 * diameter, 0.5 * length);
            let steps = MERIDIAN_STEPS / 2;
            let mut profile = arc(0.0, -h, radius, -PI / 2.0, 0.0, steps);
            profile.extend(arc(0.0, h, radius, 0.0, PI / 2.0, steps));
            revolve(&[profile])
        }
        ShapeSpec::Cylinder { diameter, length } => {
            let (radius, h) = (0.5 * diameter, 0.5 * length);
            if r > 0.0 {
                let mut profile = vec![point(0.0, -h, (0.0, -1.0))];
                profile.extend(arc(radius - r, -h + r, r, -PI / 2.0, 0.0, EDGE_STEPS));
                profile.extend(arc(radius - r, h - r, r, 0.0, PI / 2.0, EDGE_STEPS));
                profile.push(point(0.0, h, (0.0, 1.0)));
                revolve(&[profile])
            } else {
                revolve(&[
                    vec![point(0.0, -h, (0.0, -1.0)), point(radius, -h, (0.0, -1.0))],
                    vec![point(radius, -h, (1.0, 0.0)), point(radius, h, (1.0, 0.0))],
                    vec![point(radius, h, (0.0, 1.0)), point(0.0, h, (0.0, 1.0))],
                ])
            }
        }
        ShapeSpec::Cone { diameter, length } => {
            let radius = 0.5 * diameter;
            // Outward normal of the slanted side in the (r, z) plane.
            let slant = (radius * radius + length * length).sqrt();
            let side = (length / slant, radius / slant);
            if r > 0.0 {
                // The cone that the collision handling uses: a smaller similar cone (base up
                // by r, apex down by r / sin(half angle)) swept by a sphere of radius r.
                let base = r;
                let apex = length - r * slant / radius;
                let core_radius = (apex - base) * radius / length;
                let side_angle = side.1.atan2(side.0);
                let mut profile = vec![point(0.0, 0.0, (0.0, -1.0))];
                profile.extend(arc(core_radius, base, r, -PI / 2.0, side_angle, EDGE_STEPS));
                profile.extend(arc(0.0, apex, r, side_angle, PI / 2.0, EDGE_STEPS));
                revolve(&[profile])
            } else {
                revolve(&[
                    vec![
                        point(0.0, 0.0, (0.0, -1.0)),
                        point(radius, 0.0, (0.0, -1.0)),
                    ],
                    vec![point(radius, 0.0, side), point(0.0, length, side)],
                ])
            }
        }
        ShapeSpec::Box { lengths } => rounded_box(0.5 * lengths, r),
    }
}

/// Grid coordinates along one axis of a box of half extent `h` whose edges are rounded by `r`:
/// the ends, and inside the rounded bands the points at which the edge's normal turns by equal
/// angles.
fn box_axis(h: f64, r: f64) -> Vec<f64> {
    if r <= 0.0 {
        return vec![-h, h];
    }
    let inner = h - r;
    // On a face, an offset t into the band turns the normal by atan(t / r) (up to 45°, the
    // neighbouring face takes the other 45°).
    let band: Vec<f64> = (0..=EDGE_STEPS)
        .map(|k| r * (PI / 4.0 * k as f64 / EDGE_STEPS as f64).tan())
        .collect();
    let mut axis: Vec<f64> = band.iter().rev().map(|t| -inner - t).collect();
    axis.extend(band.iter().map(|t| inner + t));
    axis
}

/// A box of half extents `half`, its edges and vertices rounded by `r`: each point of the
/// sharp box's surface moves onto the surface at distance `r` around the box shrunk by `r`.
fn rounded_box(half: Vector3<f64>, r: f64) -> Mesh {
    let r = r.min(half.min());
    let inner = half.map(|h| h - r);
    let mut mesh = Mesh::default();
    for axis in 0..3 {
        for sign in [-1.0, 1.0] {
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            let (us, vs) = (box_axis(half[u], r), box_axis(half[v], r));
            let base = mesh.positions.len() as u32;
            for &a in &us {
                for &b in &vs {
                    let mut q = Vector3::zeros();
                    q[axis] = sign * half[axis];
                    q[u] = a;
                    q[v] = b;
                    let core = Vector3::from_fn(|i, _| q[i].clamp(-inner[i], inner[i]));
                    let offset = q - core;
                    let (position, normal) = if r > 0.0 && offset.norm() > 0.0 {
                        let n = offset.normalize();
                        (core + r * n, n)
                    } else {
                        let mut n = Vector3::zeros();
                        n[axis] = sign;
                        (q, n)
                    };
                    mesh.push(position, normal);
                }
            }
            let at = |i: usize, j: usize| base + (i * vs.len() + j) as u32;
            // e_u × e_v = e_axis: counter-clockwise in (u, v) faces +axis.
            for i in 0..us.len() - 1 {
                for j in 0..vs.len() - 1 {
                    let (a, b, c, d) = (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
                    if sign > 0.0 {
                        mesh.indices.extend([a, b, c, a, c, d]);
                    } else {
                        mesh.indices.extend([a, c, b, a, d, c]);
                    }
                }
            }
        }
    }
    mesh
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A CAD mesh keeps its creases: a cube's corners get each face's own normal (the faces
    /// meet at 90°), while a finely tessellated cylinder side is smooth (its facets meet at
    /// 360°/64): each corner's normal is the mean of its facets', nearer the radial direction
    /// than any facet's own.
    #[test]
    fn cad_meshes_are_smooth_across_shallow_edges_and_creased_at_sharp_ones() {
        use nalgebra::Point3;
        let cube = TriangleMesh::unit_cube();
        let drawn = creased(&cube);
        assert_eq!(drawn.indices.len(), 36);
        for n in &drawn.normals {
            assert!((n.abs().max() - 1.0).abs() < 1e-15, "{n}");
        }
        let steps = 64;
        let ring = |k: usize, z: f64| {
            let a = std::f64::consts::TAU * (k % steps) as f64 / steps as f64;
            Point3::new(a.cos(), a.sin(), z)
        };
        let side = TriangleMesh::from_corners((0..steps).flat_map(|k| {
            [
                [ring(k, 0.0), ring(k + 1, 0.0), ring(k + 1, 1.0)],
                [ring(k, 0.0), ring(k + 1, 1.0), ring(k, 1.0)],
            ]
        }));
        // A flat facet's normal is half a facet (π/64) off the radial direction at its
        // corners; the smoothed ones are nearer: the mean of the facets at each corner (one
        // triangle of each at the lower ring, one and two at the upper).
        let drawn = creased(&side);
        let mut worst: f64 = 0.0;
        for (p, n) in drawn.positions.iter().zip(&drawn.normals) {
            let radial = Vector3::new(p.x, p.y, 0.0).normalize();
            worst = worst.max(n.angle(&radial));
        }
        let half_facet = std::f64::consts::PI / steps as f64;
        assert!(worst < 0.4 * half_facet, "{worst} against {half_facet}");
    }

    /// Every triangle's normal (from its winding) points away from the shape's centre `c`.
    fn faces_outwards(mesh: &Mesh, c: Vector3<f64>) -> bool {
        mesh.indices.chunks(3).all(|t| {
            let [a, b, d] = [0, 1, 2].map(|k| mesh.positions[t[k] as usize]);
            let n = (b - a).cross(&(d - a));
            n.dot(&((a + b + d) / 3.0 - c)) > 0.0
        })
    }

    #[test]
    fn sphere_vertices_lie_on_the_sphere_and_triangles_within_the_chord_error() {
        let mesh = shape_mesh(&ShapeSpec::Sphere { diameter: 0.4 }, 0.0);
        let worst = mesh
            .positions
            .iter()
            .map(|p| (p.norm() - 0.2).abs())
            .fold(0.0, f64::max);
        println!("sphere: largest vertex distance from the surface {worst:e} m");
        assert!(worst < 1e-15);
        // The centroid of a triangle lies inside by at most the sagitta of its longest edge.
        let step = PI / MERIDIAN_STEPS as f64;
        let sagitta = 0.2 * (1.0 - (step).cos());
        let deepest = mesh
            .indices
            .chunks(3)
            .map(|t| {
                let c = t
                    .iter()
                    .map(|&i| mesh.positions[i as usize])
                    .sum::<Vector3<f64>>()
                    / 3.0;
                0.2 - c.norm()
            })
            .fold(0.0, f64::max);
        println!("sphere: deepest triangle centroid {deepest:e} m, bound {sagitta:e} m");
        assert!(deepest > 0.0 && deepest < sagitta);
        assert!(faces_outwards(&mesh, Vector3::zeros()));
        for (p, n) in mesh.positions.iter().zip(&mesh.normals) {
            assert!((n - p / 0.2).norm() < 1e-12);
        }
    }

    #[test]
    fn a_box_spans_its_edge_lengths_with_and_without_rounding() {
        let lengths = Vector3::new(0.3, 0.2, 0.1);
        for rounding in [0.0, 0.01] {
            let mesh = shape_mesh(&ShapeSpec::Box { lengths }, rounding);
            let (min, max) = mesh.bounds();
            println!("box rounded by {rounding}: {min:?} .. {max:?}");
            assert!((min + 0.5 * lengths).norm() < 1e-15);
            assert!((max - 0.5 * lengths).norm() < 1e-15);
            assert!(faces_outwards(&mesh, Vector3::zeros()));
            assert!(mesh.normals.iter().all(|n| (n.norm() - 1.0).abs() < 1e-12));
        }
        // Rounded, no vertex lies outside the rounded box.
        let r = 0.01;
        let mesh = shape_mesh(&ShapeSpec::Box { lengths }, r);
        let inner = 0.5 * lengths - Vector3::repeat(r);
        for p in &mesh.positions {
            let core = Vector3::from_fn(|i, _| p[i].clamp(-inner[i], inner[i]));
            assert!((p - core).norm() <= r + 1e-15);
        }
    }

    #[test]
    fn round_shapes_span_their_dimensions_and_face_outwards() {
        let cases = [
            (
                ShapeSpec::Cylinder {
                    diameter: 0.2,
                    length: 0.5,
                },
                0.0,
                [0.1, 0.1, 0.25],
                [-0.25, 0.25],
            ),
            (
                ShapeSpec::Cylinder {
                    diameter: 0.2,
                    length: 0.5,
                },
                0.02,
                [0.1, 0.1, 0.25],
                [-0.25, 0.25],
            ),
            (
                ShapeSpec::Capsule {
                    diameter: 0.2,
                    length: 0.5,
                },
                0.0,
                [0.1, 0.1, 0.35],
                [-0.35, 0.35],
            ),
            (
                ShapeSpec::Cone {
                    diameter: 0.2,
                    length: 0.5,
                },
                0.0,
                [0.1, 0.1, 0.5],
                [0.0, 0.5],
            ),
            (
                ShapeSpec::Ellipsoid {
                    lengths: Vector3::new(0.2, 0.4, 0.6),
                },
                0.0,
                [0.1, 0.2, 0.3],
                [-0.3, 0.3],
            ),
        ];
        for (shape, rounding, half, z) in cases {
            let mesh = shape_mesh(&shape, rounding);
            let (min, max) = mesh.bounds();
            assert!((max.x - half[0]).abs() < 1e-12, "{shape:?}: {max:?}");
            assert!(
                (max.y - half[1]).abs() < 1e-3 * half[1],
                "{shape:?}: {max:?}"
            );
            assert!(
                (min.z - z[0]).abs() < 1e-12 && (max.z - z[1]).abs() < 1e-12,
                "{shape:?}: {min:?} {max:?}"
            );
            let centre = Vector3::new(0.0, 0.0, 0.5 * (z[0] + z[1]));
            let centre = if matches!(shape, ShapeSpec::Cone { .. }) {
                Vector3::new(0.0, 0.0, 0.1)
            } else {
                centre
            };
            assert!(faces_outwards(&mesh, centre), "{shape:?}");
            assert!(mesh.normals.iter().all(|n| (n.norm() - 1.0).abs() < 1e-12));
        }
        // A rounded cone is lower than the sharp one (its tip is round) and as wide.
        let cone = shape_mesh(
            &ShapeSpec::Cone {
                diameter: 0.2,
                length: 0.5,
            },
            0.02,
        );
        let (min, max) = cone.bounds();
        assert!(min.z.abs() < 1e-15 && max.z < 0.5 && max.z > 0.4);
        assert!(max.x < 0.1 && max.x > 0.09);
    }
}
