//! The visual description as JSON: `resources/visual.json` of an FMU, read back by
//! `fmu3d animate` and `fmu3d simulate MODEL.fmu --animation`. The layout is documented in
//! `docs/animation.md`.

use fmu_runtime::assembly::{VisualBody, VisualScene, VisualShape};
use fmu_runtime::mesh::TriangleMesh;
use fmu_runtime::model::{MeshCollision, MeshSpec, ShapeSpec};
use nalgebra::{Isometry3, Point3, Quaternion, Translation3, UnitQuaternion, Vector3};
use serde_json::{json, Value};
use std::sync::Arc;

/// The `format` field of the file.
const FORMAT: &str = "fmu3d-visual";
const VERSION: u64 = 1;

fn shape_json(shape: &VisualShape) -> Value {
    let (kind, mut dimensions) = match shape.shape {
        ShapeSpec::Sphere { diameter } => ("sphere", json!({ "diameter": diameter })),
        ShapeSpec::Box { lengths } => (
            "box",
            json!({ "lengths": [lengths.x, lengths.y, lengths.z] }),
        ),
        ShapeSpec::Cylinder { diameter, length } => (
            "cylinder",
            json!({ "diameter": diameter, "length": length }),
        ),
        ShapeSpec::Capsule { diameter, length } => {
            ("capsule", json!({ "diameter": diameter, "length": length }))
        }
        ShapeSpec::Cone { diameter, length } => {
            ("cone", json!({ "diameter": diameter, "length": length }))
        }
        ShapeSpec::Ellipsoid { lengths } => (
            "ellipsoid",
            json!({ "lengths": [lengths.x, lengths.y, lengths.z] }),
        ),
        // The triangles themselves (scaled, in metres, in the shape's frame), so that an
        // importer draws the part without reading mesh files; `files` names them in resources/.
        ShapeSpec::Mesh(ref mesh) => {
            let joined = TriangleMesh::joined(&mesh.pieces);
            (
                "mesh",
                json!({
                    "files": mesh.files,
                    "scale": [mesh.scale.x, mesh.scale.y, mesh.scale.z],
                    "vertices": joined.vertices.iter().flat_map(|p| [p.x, p.y, p.z]).collect::<Vec<_>>(),
                    "triangles": joined.triangles.iter().flatten().collect::<Vec<_>>(),
                }),
            )
        }
    };
    let t = shape.pose.translation.vector;
    let q = shape.pose.rotation.coords;
    let fields = json!({
        "object": shape.object,
        "kind": kind,
        "position": [t.x, t.y, t.z],
        "rotation": [q.x, q.y, q.z, q.w],
        "color": shape.color,
        "transparency": shape.transparency,
        "rounding": shape.rounding,
    });
    if let (Some(d), Some(f)) = (dimensions.as_object_mut(), fields.as_object()) {
        for (k, v) in f {
            d.insert(k.clone(), v.clone());
        }
    }
    dimensions
}

/// The JSON text of a visual scene.
pub fn to_json(visual: &VisualScene) -> String {
    let bodies: Vec<Value> = visual
        .bodies
        .iter()
        .map(|body| {
            let mut value = json!({
                "name": body.name,
                "moving": body.moving,
                "shapes": body.shapes.iter().map(shape_json).collect::<Vec<_>>(),
            });
            if body.moving {
                value["pose"] = json!(super::pose_variables(&body.name));
            }
            value
        })
        .collect();
    let value = json!({
        "format": FORMAT,
        "version": VERSION,
        "model": visual.model,
        "up": [visual.up.x, visual.up.y, visual.up.z],
        "bodies": bodies,
    });
    serde_json::to_string_pretty(&value).unwrap_or_default() + "\n"
}

fn number(value: &Value, field: &str) -> Result<f64, String> {
    value[field]
        .as_f64()
        .ok_or_else(|| format!("`{field}` must be a number"))
}

fn numbers<const N: usize>(value: &Value, field: &str) -> Result<[f64; N], String> {
    let items = value[field]
        .as_array()
        .filter(|a| a.len() == N)
        .ok_or_else(|| format!("`{field}` must be a list of {N} numbers"))?;
    let mut out = [0.0; N];
    for (o, item) in out.iter_mut().zip(items) {
        *o = item
            .as_f64()
            .ok_or_else(|| format!("`{field}` must be a list of {N} numbers"))?;
    }
    Ok(out)
}

fn shape_from_json(value: &Value) -> Result<VisualShape, String> {
    let kind = value["kind"].as_str().unwrap_or_default();
    let shape = match kind {
        "sphere" => ShapeSpec::Sphere {
            diameter: number(value, "diameter")?,
        },
        "box" => ShapeSpec::Box {
            lengths: Vector3::from(numbers::<3>(value, "lengths")?),
        },
        "cylinder" => ShapeSpec::Cylinder {
            diameter: number(value, "diameter")?,
            length: number(value, "length")?,
        },
        "capsule" => ShapeSpec::Capsule {
            diameter: number(value, "diameter")?,
            length: number(value, "length")?,
        },
        "cone" => ShapeSpec::Cone {
            diameter: number(value, "diameter")?,
            length: number(value, "length")?,
        },
        "ellipsoid" => ShapeSpec::Ellipsoid {
            lengths: Vector3::from(numbers::<3>(value, "lengths")?),
        },
        "mesh" => mesh_from_json(value)?,
        other => return Err(format!("unknown shape kind `{other}`")),
    };
    let [x, y, z] = numbers::<3>(value, "position")?;
    let [qx, qy, qz, qw] = numbers::<4>(value, "rotation")?;
    let color = numbers::<3>(value, "color")?.map(|c| c.clamp(0.0, 255.0).round() as u8);
    Ok(VisualShape {
        object: value["object"].as_str().unwrap_or_default().to_string(),
        pose: Isometry3::from_parts(
            Translation3::new(x, y, z),
            UnitQuaternion::from_quaternion(Quaternion::new(qw, qx, qy, qz)),
        ),
        shape,
        color,
        transparency: number(value, "transparency")?,
        rounding: value["rounding"].as_f64().unwrap_or(0.0),
    })
}

/// A drawn mesh: its triangles, as one piece.
fn mesh_from_json(value: &Value) -> Result<ShapeSpec, String> {
    let list = |field: &str| {
        value[field]
            .as_array()
            .ok_or_else(|| format!("`{field}` of a mesh must be a list of numbers"))
    };
    let coordinates = list("vertices")?
        .iter()
        .map(|c| c.as_f64().ok_or("`vertices` must hold numbers"))
        .collect::<Result<Vec<f64>, _>>()?;
    let vertices: Vec<Point3<f64>> = coordinates
        .chunks_exact(3)
        .map(|c| Point3::new(c[0], c[1], c[2]))
        .collect();
    let triangles = list("triangles")?
        .iter()
        .map(|i| {
            i.as_u64()
                .filter(|&i| (i as usize) < vertices.len())
                .map(|i| i as u32)
                .ok_or("`triangles` must hold indices of `vertices`")
        })
        .collect::<Result<Vec<u32>, _>>()?;
    let files = value["files"]
        .as_array()
        .map(|f| {
            f.iter()
                .filter_map(|f| f.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    Ok(ShapeSpec::Mesh(Arc::new(MeshSpec {
        files,
        digests: Vec::new(),
        scale: numbers::<3>(value, "scale")
            .map(Vector3::from)
            .unwrap_or(Vector3::repeat(1.0)),
        collision: MeshCollision::Hull,
        pieces: vec![TriangleMesh {
            vertices,
            triangles: triangles
                .chunks_exact(3)
                .map(|t| [t[0], t[1], t[2]])
                .collect(),
        }],
        open_edges: 0,
    })))
}

/// Reads the JSON text of a visual scene; errors say what is wrong (the caller names the file).
pub fn from_json(text: &str) -> Result<VisualScene, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    if value["format"] != FORMAT {
        return Err(format!(
            "not an fmu3d visual description (`format` is not `{FORMAT}`)"
        ));
    }
    if value["version"].as_u64() != Some(VERSION) {
        return Err(format!(
            "version {} of the visual description is not known to this fmu3d (it reads version {VERSION})",
            value["version"]
        ));
    }
    let bodies = value["bodies"]
        .as_array()
        .ok_or("`bodies` must be a list")?
        .iter()
        .map(|body| {
            let name = body["name"]
                .as_str()
                .ok_or("a body has no `name`")?
                .to_string();
            let shapes = body["shapes"]
                .as_array()
                .map(|s| s.iter().map(shape_from_json).collect::<Result<Vec<_>, _>>())
                .transpose()
                .map_err(|e| format!("body `{name}`: {e}"))?
                .unwrap_or_default();
            Ok(VisualBody {
                moving: body["moving"].as_bool().unwrap_or(true),
                name,
                shapes,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(VisualScene {
        model: value["model"].as_str().unwrap_or_default().to_string(),
        up: Vector3::from(numbers::<3>(&value, "up")?),
        bodies,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_visual_scene_survives_its_json() {
        let shape = |shape| VisualShape {
            object: "o".into(),
            pose: Isometry3::from_parts(
                Translation3::new(0.1, 0.2, 0.3),
                UnitQuaternion::from_axis_angle(&Vector3::y_axis(), 0.3),
            ),
            shape,
            color: [1, 2, 3],
            transparency: 0.5,
            rounding: 0.001,
        };
        let l = Vector3::new(0.1, 0.2, 0.3);
        let visual = VisualScene {
            model: "m".into(),
            up: Vector3::z(),
            bodies: vec![VisualBody {
                name: "b".into(),
                moving: true,
                shapes: vec![
                    shape(ShapeSpec::Sphere { diameter: 1.0 }),
                    shape(ShapeSpec::Box { lengths: l }),
                    shape(ShapeSpec::Cylinder {
                        diameter: 1.0,
                        length: 2.0,
                    }),
                    shape(ShapeSpec::Capsule {
                        diameter: 1.0,
                        length: 2.0,
                    }),
                    shape(ShapeSpec::Cone {
                        diameter: 1.0,
                        length: 2.0,
                    }),
                    shape(ShapeSpec::Ellipsoid { lengths: l }),
                    // A mesh as the file carries it: its triangles joined, scaled.
                    shape(ShapeSpec::Mesh(Arc::new(MeshSpec {
                        files: vec!["meshes/part.stl".into()],
                        digests: Vec::new(),
                        scale: Vector3::repeat(0.001),
                        collision: MeshCollision::Hull,
                        pieces: vec![TriangleMesh {
                            vertices: vec![
                                Point3::origin(),
                                Point3::new(0.1, 0.0, 0.0),
                                Point3::new(0.0, 0.1, 0.0),
                                Point3::new(0.0, 0.0, 0.1),
                            ],
                            triangles: vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
                        }],
                        open_edges: 0,
                    }))),
                ],
            }],
        };
        let text = to_json(&visual);
        assert!(text.contains("\"b.Q[4]\""));
        let mut back = from_json(&text).expect("it reads back");
        // The rotations come back normalized again: equal to the last bits.
        for (a, b) in visual.bodies[0]
            .shapes
            .iter()
            .zip(&mut back.bodies[0].shapes)
        {
            let angle = a.pose.rotation.angle_to(&b.pose.rotation);
            assert!(angle < 1e-15, "{angle}");
            b.pose.rotation = a.pose.rotation;
        }
        assert_eq!(back, visual);
        assert!(from_json("{}")
            .unwrap_err()
            .contains("not an fmu3d visual description"));
    }
}
