//! Meshes from CAD files (`shape mesh`): reading STL and OBJ files into triangle meshes
//! ([`read`]), the exact mass properties of a closed polyhedron ([`mass`]) and the convex hulls
//! that collide ([`hull`]).

pub mod hull;
pub mod mass;
pub mod read;

pub use hull::ConvexHull;
pub use read::{read_pieces, MeshError};

use nalgebra::{Point3, Vector3};
use std::collections::HashMap;

/// Triangles over shared vertices, in the frame of the object that carries them [m].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TriangleMesh {
    pub vertices: Vec<Point3<f64>>,
    /// Counter-clockwise seen from outside, for a closed mesh consistently oriented.
    pub triangles: Vec<[u32; 3]>,
}

impl TriangleMesh {
    /// The mesh of triangles given by their corners: corners at the same position become one
    /// vertex (STL repeats them; an OBJ may too), and triangles with two corners at one
    /// position are dropped (they enclose nothing and have no normal).
    pub fn from_corners(corners: impl IntoIterator<Item = [Point3<f64>; 3]>) -> TriangleMesh {
        let mut mesh = TriangleMesh::default();
        let mut index: HashMap<[u64; 3], u32> = HashMap::new();
        for triangle in corners {
            let ids = triangle.map(|p| {
                let key = [p.x, p.y, p.z].map(|c| (c + 0.0).to_bits());
                *index.entry(key).or_insert_with(|| {
                    mesh.vertices.push(p);
                    (mesh.vertices.len() - 1) as u32
                })
            });
            if ids[0] != ids[1] && ids[1] != ids[2] && ids[0] != ids[2] {
                mesh.triangles.push(ids);
            }
        }
        mesh
    }

    /// The corners of every triangle.
    pub fn corners(&self) -> impl Iterator<Item = [Point3<f64>; 3]> + '_ {
        self.triangles
            .iter()
            .map(|t| t.map(|i| self.vertices[i as usize]))
    }

    /// The mesh with every coordinate multiplied by `scale` (a mirror, with an odd number of
    /// negative factors, also turns every triangle round so that it still faces outwards).
    pub fn scaled(&self, scale: &Vector3<f64>) -> TriangleMesh {
        let mirrored = scale.x * scale.y * scale.z < 0.0;
        TriangleMesh {
            vertices: self
                .vertices
                .iter()
                .map(|p| Point3::from(p.coords.component_mul(scale)))
                .collect(),
            triangles: self
                .triangles
                .iter()
                .map(|&[a, b, c]| if mirrored { [a, c, b] } else { [a, b, c] })
                .collect(),
        }
    }

    /// How many edges keep the mesh from being a closed, consistently oriented surface: every
    /// directed edge a→b must be met by exactly one b→a of a neighbouring triangle. Counts the
    /// undirected edges where that fails (a hole's rim, a flipped triangle's three edges, an
    /// edge shared by three triangles). Zero for a closed, oriented mesh.
    pub fn open_edges(&self) -> usize {
        let mut directed: HashMap<(u32, u32), i32> = HashMap::new();
        for t in &self.triangles {
            for k in 0..3 {
                *directed.entry((t[k], t[(k + 1) % 3])).or_default() += 1;
            }
        }
        let mut open = 0;
        let mut seen = std::collections::HashSet::new();
        for (&(a, b), &forward) in &directed {
            let key = (a.min(b), a.max(b));
            if !seen.insert(key) {
                continue;
            }
            let backward = directed.get(&(b, a)).copied().unwrap_or(0);
            if !(forward == 1 && backward == 1) {
                open += 1;
            }
        }
        open
    }

    /// The unit sphere tessellated as an icosahedron whose triangles are split in four
    /// `subdivisions` times, the new vertices pushed onto the sphere (20·4ⁿ triangles): the
    /// round part of tests and benchmarks.
    pub fn icosphere(subdivisions: usize) -> TriangleMesh {
        let t = (1.0 + 5f64.sqrt()) / 2.0;
        let mut vertices: Vec<Vector3<f64>> = [
            [-1.0, t, 0.0],
            [1.0, t, 0.0],
            [-1.0, -t, 0.0],
            [1.0, -t, 0.0],
            [0.0, -1.0, t],
            [0.0, 1.0, t],
            [0.0, -1.0, -t],
            [0.0, 1.0, -t],
            [t, 0.0, -1.0],
            [t, 0.0, 1.0],
            [-t, 0.0, -1.0],
            [-t, 0.0, 1.0],
        ]
        .iter()
        .map(|v| Vector3::from(*v).normalize())
        .collect();
        let mut faces: Vec<[usize; 3]> = vec![
            [0, 11, 5],
            [0, 5, 1],
            [0, 1, 7],
            [0, 7, 10],
            [0, 10, 11],
            [1, 5, 9],
            [5, 11, 4],
            [11, 10, 2],
            [10, 7, 6],
            [7, 1, 8],
            [3, 9, 4],
            [3, 4, 2],
            [3, 2, 6],
            [3, 6, 8],
            [3, 8, 9],
            [4, 9, 5],
            [2, 4, 11],
            [6, 2, 10],
            [8, 6, 7],
            [9, 8, 1],
        ];
        for _ in 0..subdivisions {
            let mut midpoint = std::collections::HashMap::new();
            let mut split = |a: usize, b: usize, vertices: &mut Vec<Vector3<f64>>| {
                *midpoint.entry((a.min(b), a.max(b))).or_insert_with(|| {
                    vertices.push(((vertices[a] + vertices[b]) / 2.0).normalize());
                    vertices.len() - 1
                })
            };
            faces = faces
                .iter()
                .flat_map(|&[a, b, c]| {
                    let (ab, bc, ca) = (
                        split(a, b, &mut vertices),
                        split(b, c, &mut vertices),
                        split(c, a, &mut vertices),
                    );
                    [[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]
                })
                .collect();
        }
        TriangleMesh::from_corners(faces.iter().map(|f| f.map(|i| Point3::from(vertices[i]))))
    }

    /// The cube [0, 1]³, its faces ([`BOX_FACES`]) split into two triangles each: the flat part
    /// of tests.
    pub fn unit_cube() -> TriangleMesh {
        let corner =
            |i: u32| Point3::new((i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64);
        TriangleMesh::from_corners(BOX_FACES.iter().flat_map(|q| {
            [
                [corner(q[0]), corner(q[1]), corner(q[2])],
                [corner(q[0]), corner(q[2]), corner(q[3])],
            ]
        }))
    }

    /// The meshes' triangles joined into one mesh.
    pub fn joined<'m>(meshes: impl IntoIterator<Item = &'m TriangleMesh>) -> TriangleMesh {
        let mut joined = TriangleMesh::default();
        for mesh in meshes {
            let offset = joined.vertices.len() as u32;
            joined.vertices.extend_from_slice(&mesh.vertices);
            joined
                .triangles
                .extend(mesh.triangles.iter().map(|t| t.map(|i| i + offset)));
        }
        joined
    }
}

/// The digest of a mesh file's bytes that enters the FMU's GUID (FNV-1a, as the GUID itself).
pub fn digest(bytes: &[u8]) -> u64 {
    crate::fmu::fnv1a64(bytes, 0xcbf2_9ce4_8422_2325)
}

/// The six faces of a box whose corner `i` lies at x from bit 0 of `i`, y from bit 1 and z from
/// bit 2: each four corners counter-clockwise seen from outside.
pub const BOX_FACES: [[u32; 4]; 6] = [
    [0, 2, 3, 1],
    [4, 5, 7, 6],
    [0, 1, 5, 4],
    [2, 6, 7, 3],
    [0, 4, 6, 2],
    [1, 3, 7, 5],
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_cube_has_no_open_edge_and_a_hole_or_a_flip_shows() {
        let mesh = TriangleMesh::unit_cube();
        assert_eq!(mesh.vertices.len(), 8);
        assert_eq!(mesh.open_edges(), 0);
        let mut holed = mesh.clone();
        holed.triangles.pop();
        assert_eq!(holed.open_edges(), 3);
        let mut flipped = mesh.clone();
        flipped.triangles[0].swap(1, 2);
        assert_eq!(flipped.open_edges(), 3);
    }

    #[test]
    fn a_mirror_keeps_the_mesh_closed_and_outward() {
        let mirrored = TriangleMesh::unit_cube().scaled(&Vector3::new(-1.0, 2.0, 1.0));
        assert_eq!(mirrored.open_edges(), 0);
        let (volume, _, _) = mass::unit_density_properties(&mirrored);
        assert!((volume - 2.0).abs() < 1e-15, "{volume}");
    }
}
