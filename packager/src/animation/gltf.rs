//! A glTF 2.0 binary (`.glb`) of a visual scene and its motion: one node per body named after
//! it, a child node per shape with its mesh and material, the world frame as three axes, and
//! one animation whose channels move every moving body (translation and rotation, LINEAR, at
//! the output instants).
//!
//! glTF's y axis is up; the model's world may have another up direction (against gravity): the
//! root node, named after the model, turns the world's up direction onto +y, and everything
//! else (bodies, poses) is in the model's world coordinates below it. Lengths are metres.

use super::mesh::{shape_mesh, Mesh};
use super::Track;
use fmu_runtime::assembly::VisualScene;
use fmu_runtime::model::ShapeSpec;
use nalgebra::{Isometry3, UnitQuaternion, Vector3};
use serde_json::{json, Value};

const GLB_MAGIC: u32 = 0x4654_6C67; // "glTF"
const CHUNK_JSON: u32 = 0x4E4F_534A; // "JSON"
const CHUNK_BIN: u32 = 0x004E_4942; // "BIN\0"
const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;
const FLOAT: u32 = 5126;
const UNSIGNED_INT: u32 = 5125;

/// The binary buffer with its views and accessors.
#[derive(Default)]
struct Buffer {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Buffer {
    fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let mut view = json!({
            "buffer": 0,
            "byteOffset": self.bin.len(),
            "byteLength": bytes.len(),
        });
        if let Some(target) = target {
            view["target"] = json!(target);
        }
        self.bin.extend_from_slice(bytes);
        self.views.push(view);
        self.views.len() - 1
    }

    /// An accessor of `width` floats per element (1: SCALAR, 3: VEC3, 4: VEC4), with min/max.
    fn floats(&mut self, data: &[f32], width: usize, target: Option<u32>) -> usize {
        let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
        let view = self.view(&bytes, target);
        let mut min = vec![f32::INFINITY; width];
        let mut max = vec![f32::NEG_INFINITY; width];
        for element in data.chunks(width) {
            for (k, &x) in element.iter().enumerate() {
                min[k] = min[k].min(x);
                max[k] = max[k].max(x);
            }
        }
        let kind = match width {
            1 => "SCALAR",
            3 => "VEC3",
            _ => "VEC4",
        };
        self.accessors.push(json!({
            "bufferView": view,
            "componentType": FLOAT,
            "count": data.len() / width,
            "type": kind,
            "min": min,
            "max": max,
        }));
        self.accessors.len() - 1
    }

    fn indices(&mut self, data: &[u32]) -> usize {
        let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
        let view = self.view(&bytes, Some(ELEMENT_ARRAY_BUFFER));
        self.accessors.push(json!({
            "bufferView": view,
            "componentType": UNSIGNED_INT,
            "count": data.len(),
            "type": "SCALAR",
        }));
        self.accessors.len() - 1
    }
}

fn vec3(v: &Vector3<f64>) -> [f32; 3] {
    [v.x as f32, v.y as f32, v.z as f32]
}

/// glTF's (x, y, z, w), normalized after rounding to f32.
fn quat(q: &UnitQuaternion<f64>) -> [f32; 4] {
    let c = q.coords;
    [c.x as f32, c.y as f32, c.z as f32, c.w as f32]
}

/// sRGB 0..=255 to glTF's linear colour factor.
fn linear(channel: u8) -> f64 {
    let c = f64::from(channel) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// A node's transform properties.
fn transform(node: &mut Value, pose: &Isometry3<f64>) {
    node["translation"] = json!(vec3(&pose.translation.vector));
    node["rotation"] = json!(quat(&pose.rotation));
}

/// What the scene is made of while the JSON is built.
#[derive(Default)]
struct Document {
    buffer: Buffer,
    nodes: Vec<Value>,
    meshes: Vec<Value>,
    materials: Vec<Value>,
}

impl Document {
    fn node(&mut self, node: Value) -> usize {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    /// A mesh of one primitive with a material of `color` (sRGB) and `alpha`.
    fn mesh(&mut self, name: &str, mesh: &Mesh, color: [u8; 3], alpha: f64) -> usize {
        let positions: Vec<f32> = mesh.positions.iter().flat_map(vec3).collect();
        let normals: Vec<f32> = mesh
            .normals
            .iter()
            .flat_map(|n| {
                let n = vec3(n);
                let length = n.iter().map(|x| x * x).sum::<f32>().sqrt();
                n.map(|x| x / length)
            })
            .collect();
        let position = self.buffer.floats(&positions, 3, Some(ARRAY_BUFFER));
        let normal = self.buffer.floats(&normals, 3, Some(ARRAY_BUFFER));
        let indices = self.buffer.indices(&mesh.indices);
        let mut material = json!({
            "name": name,
            "pbrMetallicRoughness": {
                "baseColorFactor": [linear(color[0]), linear(color[1]), linear(color[2]), alpha],
                "metallicFactor": 0.0,
                "roughnessFactor": 0.6,
            },
        });
        if alpha < 1.0 {
            material["alphaMode"] = json!("BLEND");
        }
        self.materials.push(material);
        self.meshes.push(json!({
            "name": name,
            "primitives": [{
                "attributes": { "POSITION": position, "NORMAL": normal },
                "indices": indices,
                "material": self.materials.len() - 1,
                "mode": 4,
            }],
        }));
        self.meshes.len() - 1
    }
}

/// The size of a shape: the radius of a sphere about its frame's origin that holds it.
fn reach(shape: &ShapeSpec) -> f64 {
    match *shape {
        ShapeSpec::Sphere { diameter } => 0.5 * diameter,
        ShapeSpec::Box { lengths } | ShapeSpec::Ellipsoid { lengths } => 0.5 * lengths.norm(),
        ShapeSpec::Cylinder { diameter, length } => 0.5 * diameter.hypot(length),
        ShapeSpec::Capsule { diameter, length } => 0.5 * (diameter + length),
        ShapeSpec::Cone { diameter, length } => (0.5 * diameter).hypot(length),
        ShapeSpec::Mesh(ref mesh) => mesh
            .pieces
            .iter()
            .flat_map(|p| &p.vertices)
            .map(|p| p.coords.norm())
            .fold(0.0, f64::max),
    }
}

/// The GLB of `visual` moving as `track` says (no animation when the track is empty).
pub fn write(visual: &VisualScene, track: &Track) -> Vec<u8> {
    let mut doc = Document::default();
    let first = track.poses.first();
    let mut children = Vec::new();
    let mut extent: f64 = 0.0;
    let mut moving = 0;
    let mut animated = Vec::new();
    for body in &visual.bodies {
        let mut shape_nodes = Vec::new();
        let pose = if body.moving {
            let pose = first.and_then(|p| p.get(moving)).copied();
            moving += 1;
            pose.unwrap_or_else(Isometry3::identity)
        } else {
            Isometry3::identity()
        };
        for shape in &body.shapes {
            extent =
                extent.max((pose * shape.pose).translation.vector.norm() + reach(&shape.shape));
            let alpha = 1.0 - shape.transparency.clamp(0.0, 1.0);
            if alpha <= 0.0 {
                continue; // invisible
            }
            let name = format!("{}.shape", shape.object);
            let mesh = doc.mesh(
                &name,
                &shape_mesh(&shape.shape, shape.rounding),
                shape.color,
                alpha,
            );
            let mut node = json!({ "name": name, "mesh": mesh });
            transform(&mut node, &shape.pose);
            shape_nodes.push(doc.node(node));
        }
        let mut node = json!({ "name": body.name });
        if !shape_nodes.is_empty() {
            node["children"] = json!(shape_nodes);
        }
        if body.moving {
            transform(&mut node, &pose);
        }
        let index = doc.node(node);
        if body.moving {
            animated.push(index);
        }
        children.push(index);
    }
    // The world frame: red x, green y, blue z axes from the origin.
    let length = (0.25 * extent).max(0.05);
    let axes = [
        ("x", Vector3::x(), [230, 40, 40]),
        ("y", Vector3::y(), [40, 200, 40]),
        ("z", Vector3::z(), [40, 80, 230]),
    ];
    let mut axis_nodes = Vec::new();
    for (name, axis, color) in axes {
        let name = format!("world.frame.{name}");
        let shape = ShapeSpec::Cylinder {
            diameter: length / 25.0,
            length,
        };
        let mesh = doc.mesh(&name, &shape_mesh(&shape, 0.0), color, 1.0);
        let rotation = UnitQuaternion::rotation_between(&Vector3::z(), &axis)
            .unwrap_or_else(UnitQuaternion::identity);
        let mut node = json!({ "name": name, "mesh": mesh });
        transform(
            &mut node,
            &Isometry3::from_parts((0.5 * length * axis).into(), rotation),
        );
        axis_nodes.push(doc.node(node));
    }
    let frame = doc.node(json!({ "name": "world.frame", "children": axis_nodes }));
    children.push(frame);
    // z-up (or any up) to glTF's y-up.
    let up = UnitQuaternion::rotation_between(&visual.up, &Vector3::y()).unwrap_or_else(|| {
        // Up is −y: half a turn about x.
        UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI)
    });
    // Named after the model, unless a body has that name (node names address the bodies).
    let root_name = if visual.bodies.iter().any(|b| b.name == visual.model) {
        format!("{}.root", visual.model)
    } else {
        visual.model.clone()
    };
    let mut root = json!({ "name": root_name, "children": children });
    if up.angle() > 0.0 {
        root["rotation"] = json!(quat(&up));
    }
    let root = doc.node(root);

    let mut animations = Vec::new();
    if !track.times.is_empty() && !animated.is_empty() {
        let times: Vec<f32> = track.times.iter().map(|&t| t as f32).collect();
        let input = doc.buffer.floats(&times, 1, None);
        let (mut samplers, mut channels) = (Vec::new(), Vec::new());
        for (b, &node) in animated.iter().enumerate() {
            let translations: Vec<f32> = track
                .poses
                .iter()
                .flat_map(|p| vec3(&p[b].translation.vector))
                .collect();
            // Each quaternion on the side of the previous one: the interpolation takes the
            // short way.
            let mut previous = nalgebra::Vector4::new(0.0, 0.0, 0.0, 1.0);
            let rotations: Vec<f32> = track
                .poses
                .iter()
                .flat_map(|p| {
                    let mut q = p[b].rotation.coords;
                    if q.dot(&previous) < 0.0 {
                        q = -q;
                    }
                    previous = q;
                    [q.x as f32, q.y as f32, q.z as f32, q.w as f32]
                })
                .collect();
            for (path, data, width) in
                [("translation", translations, 3), ("rotation", rotations, 4)]
            {
                let output = doc.buffer.floats(&data, width, None);
                samplers
                    .push(json!({ "input": input, "output": output, "interpolation": "LINEAR" }));
                channels.push(json!({
                    "sampler": samplers.len() - 1,
                    "target": { "node": node, "path": path },
                }));
            }
        }
        animations
            .push(json!({ "name": "simulation", "samplers": samplers, "channels": channels }));
    }

    let Document {
        mut buffer,
        nodes,
        meshes,
        materials,
    } = doc;
    while !buffer.bin.len().is_multiple_of(4) {
        buffer.bin.push(0);
    }
    let mut gltf = json!({
        "asset": { "version": "2.0", "generator": fmu_runtime::fmu::GENERATION_TOOL },
        "scene": 0,
        "scenes": [{ "name": visual.model, "nodes": [root] }],
        "nodes": nodes,
        "meshes": meshes,
        "materials": materials,
        "accessors": buffer.accessors,
        "bufferViews": buffer.views,
        "buffers": [{ "byteLength": buffer.bin.len() }],
    });
    if !animations.is_empty() {
        gltf["animations"] = json!(animations);
    }
    glb(gltf.to_string().as_bytes(), &buffer.bin)
}

/// The GLB container: a 12-byte header, the JSON chunk padded with spaces and the BIN chunk
/// padded with zeros, both to 4 bytes.
fn glb(json: &[u8], bin: &[u8]) -> Vec<u8> {
    let pad = |n: usize| (4 - n % 4) % 4;
    let json_length = json.len() + pad(json.len());
    let bin_length = bin.len() + pad(bin.len());
    let total = 12 + 8 + json_length + 8 + bin_length;
    let mut out = Vec::with_capacity(total);
    for word in [GLB_MAGIC, 2, total as u32, json_length as u32, CHUNK_JSON] {
        out.extend(word.to_le_bytes());
    }
    out.extend(json);
    out.extend(std::iter::repeat_n(b' ', pad(json.len())));
    for word in [bin_length as u32, CHUNK_BIN] {
        out.extend(word.to_le_bytes());
    }
    out.extend(bin);
    out.extend(std::iter::repeat_n(0u8, pad(bin.len())));
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use fmu_runtime::assembly::{VisualBody, VisualShape};

    /// The JSON and BIN chunks of a GLB, after checking its header and chunk layout.
    pub fn parse(glb: &[u8]) -> (Value, Vec<u8>) {
        let word = |at: usize| u32::from_le_bytes([glb[at], glb[at + 1], glb[at + 2], glb[at + 3]]);
        assert_eq!(&glb[0..4], b"glTF");
        assert_eq!(word(4), 2, "version");
        assert_eq!(word(8) as usize, glb.len(), "total length");
        let json_length = word(12) as usize;
        assert_eq!(word(16), CHUNK_JSON);
        assert_eq!(json_length % 4, 0, "JSON chunk alignment");
        let json: Value = serde_json::from_slice(&glb[20..20 + json_length]).expect("JSON");
        let at = 20 + json_length;
        let bin_length = word(at) as usize;
        assert_eq!(word(at + 4), CHUNK_BIN);
        assert_eq!(bin_length % 4, 0, "BIN chunk alignment");
        assert_eq!(at + 8 + bin_length, glb.len());
        (json, glb[at + 8..].to_vec())
    }

    /// The floats of accessor `index`.
    pub fn floats(json: &Value, bin: &[u8], index: usize) -> Vec<f32> {
        let accessor = &json["accessors"][index];
        let view = &json["bufferViews"][accessor["bufferView"].as_u64().unwrap() as usize];
        let offset = view["byteOffset"].as_u64().unwrap() as usize;
        let length = view["byteLength"].as_u64().unwrap() as usize;
        assert_eq!(offset % 4, 0);
        bin[offset..offset + length]
            .chunks(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect()
    }

    fn scene() -> VisualScene {
        let shape = |object: &str, shape| VisualShape {
            object: object.into(),
            pose: Isometry3::translation(0.0, 0.1, 0.0),
            shape,
            color: [255, 0, 0],
            transparency: 0.25,
            rounding: 0.0,
        };
        VisualScene {
            model: "two".into(),
            up: Vector3::z(),
            bodies: vec![
                VisualBody {
                    name: "world".into(),
                    moving: false,
                    shapes: vec![shape(
                        "floor",
                        ShapeSpec::Box {
                            lengths: Vector3::new(1.0, 2.0, 0.5),
                        },
                    )],
                },
                VisualBody {
                    name: "ball".into(),
                    moving: true,
                    shapes: vec![shape("ball", ShapeSpec::Sphere { diameter: 0.2 })],
                },
            ],
        }
    }

    #[test]
    fn a_glb_parses_back_with_its_nodes_meshes_and_animation() {
        let visual = scene();
        let turn = UnitQuaternion::from_axis_angle(&Vector3::x_axis(), 0.5);
        let track = Track {
            times: vec![0.0, 0.5, 1.0],
            poses: vec![
                vec![Isometry3::translation(0.0, 0.0, 1.0)],
                vec![Isometry3::from_parts(
                    Vector3::new(0.0, 0.0, 0.5).into(),
                    turn,
                )],
                vec![Isometry3::translation(0.0, 0.0, 0.0)],
            ],
        };
        let glb = write(&visual, &track);
        let (json, bin) = parse(&glb);
        let names: Vec<&str> = json["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["name"].as_str().unwrap())
            .collect();
        for name in [
            "two",
            "world",
            "ball",
            "floor.shape",
            "ball.shape",
            "world.frame.x",
        ] {
            assert!(names.contains(&name), "{name} in {names:?}");
        }
        // The root turns z up into y up.
        let root = json["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["name"] == "two")
            .unwrap();
        let q: Vec<f64> = root["rotation"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        let q = UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(q[3], q[0], q[1], q[2]));
        assert!((q * Vector3::z() - Vector3::y()).norm() < 1e-6);
        // Every accessor's view lies in the buffer, 4-byte aligned.
        assert_eq!(
            json["buffers"][0]["byteLength"].as_u64().unwrap() as usize,
            bin.len()
        );
        // The floor box's POSITION min/max are its half lengths.
        let floor = json["meshes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == "floor.shape")
            .unwrap();
        let position = &json["accessors"][floor["primitives"][0]["attributes"]["POSITION"]
            .as_u64()
            .unwrap() as usize];
        assert_eq!(position["max"], json!([0.5, 1.0, 0.25]));
        assert_eq!(position["min"], json!([-0.5, -1.0, -0.25]));
        let material =
            &json["materials"][floor["primitives"][0]["material"].as_u64().unwrap() as usize];
        assert_eq!(material["alphaMode"], "BLEND");
        assert_eq!(material["pbrMetallicRoughness"]["baseColorFactor"][3], 0.75);
        // The animation: times, then the ball's translation and rotation at them.
        let animation = &json["animations"][0];
        let sampler = |path: &str| {
            let channel = animation["channels"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["target"]["path"] == path)
                .unwrap();
            &animation["samplers"][channel["sampler"].as_u64().unwrap() as usize]
        };
        let input = sampler("translation")["input"].as_u64().unwrap() as usize;
        assert_eq!(floats(&json, &bin, input), [0.0, 0.5, 1.0]);
        assert_eq!(json["accessors"][input]["max"], json!([1.0]));
        let translation = floats(
            &json,
            &bin,
            sampler("translation")["output"].as_u64().unwrap() as usize,
        );
        assert_eq!(translation, [0.0, 0.0, 1.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0]);
        let rotation = floats(
            &json,
            &bin,
            sampler("rotation")["output"].as_u64().unwrap() as usize,
        );
        // (x, y, z, w) order: half the angle's sine in x, its cosine in w.
        assert!(
            (rotation[4] - (0.25f32).sin()).abs() < 1e-7
                && (rotation[7] - (0.25f32).cos()).abs() < 1e-7
        );
        assert_eq!(&rotation[0..4], &[0.0, 0.0, 0.0, 1.0]);
    }

    #[test]
    fn the_root_node_does_not_take_a_bodys_name() {
        let mut visual = scene();
        visual.model = "ball".into();
        let (json, _) = parse(&write(&visual, &Track::default()));
        let names: Vec<&str> = json["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|n| n["name"].as_str())
            .collect();
        assert_eq!(names.iter().filter(|&&n| n == "ball").count(), 1);
        assert!(names.contains(&"ball.root"));
    }

    #[test]
    fn an_invisible_shape_has_no_mesh_and_an_empty_track_no_animation() {
        let mut visual = scene();
        visual.bodies[0].shapes[0].transparency = 1.0;
        let (json, _) = parse(&write(&visual, &Track::default()));
        assert!(json["meshes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["name"] != "floor.shape"));
        assert!(json.get("animations").is_none());
    }
}
