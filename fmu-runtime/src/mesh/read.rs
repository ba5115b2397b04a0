//! STL (binary and ASCII, by `stl_io`) and Wavefront OBJ (by `tobj`: polygons triangulated,
//! every `o`/`g` object a piece) files into triangle meshes.

use super::TriangleMesh;
use nalgebra::Point3;
use std::path::Path;

/// A mesh file that cannot be used, with the reason.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshError(pub String);

impl std::fmt::Display for MeshError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MeshError {}

/// The pieces of the mesh file at `path` from its bytes: an STL file is one piece, an OBJ file
/// one per object or group it holds (its triangles in the order of the file). The format
/// follows the file's extension (`.stl`, `.obj`, in any case).
pub fn read_pieces(path: &Path, bytes: &[u8]) -> Result<Vec<TriangleMesh>, MeshError> {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let pieces = match extension.as_deref() {
        Some("stl") => vec![read_stl(bytes)?],
        Some("obj") => read_obj(bytes)?,
        _ => {
            return Err(MeshError(format!(
                "`{}` is neither an STL (.stl) nor a Wavefront OBJ (.obj) file",
                path.display()
            )))
        }
    };
    if let Some(bad) = pieces
        .iter()
        .flat_map(|p| p.iter().flatten())
        .find(|v| !v.coords.iter().all(|c| c.is_finite()))
    {
        return Err(MeshError(format!(
            "`{}` has a vertex that is not a finite number: {bad}",
            path.display()
        )));
    }
    let pieces: Vec<TriangleMesh> = pieces
        .into_iter()
        .map(TriangleMesh::from_corners)
        .filter(|p| !p.triangles.is_empty())
        .collect();
    if pieces.is_empty() {
        return Err(MeshError(format!("`{}` holds no triangle", path.display())));
    }
    Ok(pieces)
}

/// The corners of a piece's triangles, as the file gives them.
type Corners = Vec<[Point3<f64>; 3]>;

fn read_stl(bytes: &[u8]) -> Result<Corners, MeshError> {
    let mesh = stl_io::read_stl(&mut std::io::Cursor::new(bytes))
        .map_err(|e| MeshError(format!("not a readable STL file: {e}")))?;
    let point = |i: usize| -> Result<Point3<f64>, MeshError> {
        let v = mesh
            .vertices
            .get(i)
            .ok_or_else(|| MeshError(format!("a triangle names vertex {i}, which is not there")))?;
        Ok(Point3::new(v[0].into(), v[1].into(), v[2].into()))
    };
    let corners = mesh
        .faces
        .iter()
        .map(|f| {
            Ok([
                point(f.vertices[0])?,
                point(f.vertices[1])?,
                point(f.vertices[2])?,
            ])
        })
        .collect::<Result<Vec<_>, MeshError>>()?;
    Ok(corners)
}

fn read_obj(bytes: &[u8]) -> Result<Vec<Corners>, MeshError> {
    let options = tobj::LoadOptions {
        triangulate: true,
        single_index: false,
        ignore_points: true,
        ignore_lines: true,
    };
    // Materials (`mtllib`) colour a picture; they are not read.
    let (models, _) = tobj::load_obj_buf(&mut std::io::Cursor::new(bytes), &options, |_| {
        Err(tobj::LoadError::OpenFileFailed)
    })
    .map_err(|e| MeshError(format!("not a readable OBJ file: {e}")))?;
    models
        .iter()
        .map(|model| {
            let m = &model.mesh;
            let point = |i: u32| -> Result<Point3<f64>, MeshError> {
                let k = 3 * i as usize;
                match m.positions.get(k..k + 3) {
                    Some(p) => Ok(Point3::new(p[0], p[1], p[2])),
                    None => Err(MeshError(format!(
                        "object `{}` names vertex {i}, which is not there",
                        model.name
                    ))),
                }
            };
            m.indices
                .chunks_exact(3)
                .map(|t| Ok([point(t[0])?, point(t[1])?, point(t[2])?]))
                .collect::<Result<Vec<_>, MeshError>>()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SQUARE_PYRAMID_OBJ: &str = "\
# a pyramid over the unit square, apex at height 1; the base is one quad
o pyramid
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0.5 0.5 1
f 1 4 3 2
f 1 2 5
f 2 3 5
f 3 4 5
f 4 1 5
o cube_corner
v 5 5 5
v 6 5 5
v 5 6 5
v 5 5 6
f 6 8 7
f 6 7 9
f 6 9 8
f 7 8 9
";

    #[test]
    fn obj_objects_become_pieces_and_quads_are_triangulated() {
        let pieces = read_pieces(Path::new("p.OBJ"), SQUARE_PYRAMID_OBJ.as_bytes()).unwrap();
        assert_eq!(pieces.len(), 2);
        assert_eq!(pieces[0].triangles.len(), 6);
        assert_eq!(pieces[0].open_edges(), 0);
        assert_eq!(pieces[1].triangles.len(), 4);
        assert_eq!(pieces[1].open_edges(), 0);
        let (v, _, _) = crate::mesh::mass::unit_density_properties(&pieces[0]);
        assert!((v - 1.0 / 3.0).abs() < 1e-15, "{v}");
    }

    #[test]
    fn ascii_and_binary_stl_read_alike() {
        let ascii = "solid t\n\
            facet normal 0 0 0\n outer loop\n vertex 0 0 0\n vertex 1 0 0\n vertex 0 1 0\n endloop\n endfacet\n\
            endsolid t\n";
        let mut binary = vec![0u8; 80];
        binary.extend_from_slice(&1u32.to_le_bytes());
        for value in [
            0.0f32, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0,
        ] {
            binary.extend_from_slice(&value.to_le_bytes());
        }
        binary.extend_from_slice(&[0, 0]);
        let a = read_pieces(Path::new("t.stl"), ascii.as_bytes()).unwrap();
        let b = read_pieces(Path::new("t.stl"), &binary).unwrap();
        assert_eq!(a, b);
        assert_eq!(a[0].vertices.len(), 3);
    }

    /// Regression: a file of NaN vertices was welded into one vertex and its triangles dropped
    /// before the check, so it was refused as holding no triangle.
    #[test]
    fn a_vertex_that_is_not_a_number_is_named() {
        let obj = "v nan nan nan\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
        let e = read_pieces(Path::new("n.obj"), obj.as_bytes()).unwrap_err();
        assert!(e.0.contains("not a finite number"), "{e}");
    }

    #[test]
    fn other_files_are_refused_with_the_reason() {
        let e = read_pieces(Path::new("part.step"), b"ISO-10303-21;").unwrap_err();
        assert!(e.0.contains("neither an STL"), "{e}");
        let e = read_pieces(Path::new("part.obj"), b"# nothing\n").unwrap_err();
        assert!(e.0.contains("no triangle"), "{e}");
    }
}
