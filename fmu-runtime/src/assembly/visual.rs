//! The visual description of a model: what an animation draws. Per body (super-object) its name
//! (the name of its root object, the frame a joint moves), and each shape of its objects with
//! the shape's pose in the body frame, its kind and dimensions, colour and transparency. The
//! world's shapes are fixed; every other body moves, and its pose over time is the pose of its
//! root object's frame (the FMU outputs `NAME.r[1..3]` and `NAME.Q[1..4]`).

use super::super_objects::Assembly;
use crate::collision::{DEFAULT_SMOOTHING_RADIUS, MAX_SMOOTHING_FRACTION};
use crate::model::{GravitySpec, ShapeSpec};
use crate::scene::Scene;
use nalgebra::{Isometry3, Vector3};

/// The colour of a shape whose object has no `visual` block: the `visual` block's default.
pub const DEFAULT_COLOR: [u8; 3] = [128, 128, 128];

/// One shape as it is drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct VisualShape {
    /// The object that carries the shape.
    pub object: String,
    /// The object's frame in the body frame.
    pub pose: Isometry3<f64>,
    pub shape: ShapeSpec,
    /// RGB, each 0..=255 (sRGB).
    pub color: [u8; 3],
    /// 0 = opaque, 1 = invisible.
    pub transparency: f64,
    /// The radius that rounds the edges and vertices of a colliding box, cylinder or cone [m]
    /// (the smoothing radius as the collision handling uses it, clamped); 0 for shapes that do
    /// not collide and for those that are round already.
    pub rounding: f64,
}

/// One rigid body with its shapes.
#[derive(Debug, Clone, PartialEq)]
pub struct VisualBody {
    /// The body's root object: the world, or the object a joint reached.
    pub name: String,
    /// False only for the world.
    pub moving: bool,
    pub shapes: Vec<VisualShape>,
}

/// The model's scene without motion.
#[derive(Debug, Clone, PartialEq)]
pub struct VisualScene {
    /// The model's name.
    pub model: String,
    /// The world's up direction (unit vector, against uniform gravity; +y without it).
    pub up: Vector3<f64>,
    /// The world first, then every moving body in the assembly's order.
    pub bodies: Vec<VisualBody>,
}

impl VisualScene {
    pub fn new(scene: &Scene, assembly: &Assembly) -> VisualScene {
        let up = match &scene.gravity {
            GravitySpec::Uniform { acceleration } if acceleration.norm() > 0.0 => {
                -acceleration.normalize()
            }
            _ => Vector3::y(),
        };
        let bodies = assembly
            .super_objects
            .iter()
            .enumerate()
            .map(|(index, body)| VisualBody {
                name: assembly.body_name(scene, index),
                moving: index > 0,
                shapes: body
                    .members
                    .iter()
                    .filter_map(|member| {
                        let object = scene.object(member.object);
                        let shape = object.shape.clone()?;
                        let (color, transparency) = object
                            .visual
                            .as_ref()
                            .map_or((DEFAULT_COLOR, 0.0), |v| (v.color, v.transparency));
                        let rounding = object.contact.as_ref().map_or(0.0, |contact| {
                            rounding(
                                &shape,
                                contact.smoothing.unwrap_or(DEFAULT_SMOOTHING_RADIUS),
                            )
                        });
                        Some(VisualShape {
                            object: object.name.clone(),
                            pose: member.pose,
                            shape,
                            color,
                            transparency,
                            rounding,
                        })
                    })
                    .collect(),
            })
            .collect();
        VisualScene {
            model: scene.name.clone(),
            up,
            bodies,
        }
    }
}

/// The rounding radius of a colliding shape with the given smoothing radius, clamped as the
/// collision handling clamps it (`collision::Shape::with_smoothing_radius`).
fn rounding(shape: &ShapeSpec, smoothing: f64) -> f64 {
    let smallest = match *shape {
        // A mesh is drawn as its own triangles.
        ShapeSpec::Sphere { .. }
        | ShapeSpec::Capsule { .. }
        | ShapeSpec::Ellipsoid { .. }
        | ShapeSpec::Mesh(_) => return 0.0,
        ShapeSpec::Box { lengths } => lengths.min(),
        ShapeSpec::Cylinder { diameter, length } | ShapeSpec::Cone { diameter, length } => {
            diameter.min(length)
        }
    };
    smoothing.max(0.0).min(MAX_SMOOTHING_FRACTION * smallest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model;

    #[test]
    fn bodies_carry_their_shapes_colors_and_names() {
        let source = "model m\n\
            object base { parent = world; shape box { lengths = [1, 0.1, 1] m } }\n\
            object ball { shape sphere { diameter = 0.2 m }\n\
              visual { color = [255, 0, 0]; transparency = 0.5 }\n\
              mass { m = 1 kg; inertia = diag(1, 1, 1) kg.m2 } }\n\
            object cap { parent = ball; position = [0, 0.1, 0] m; shape box { lengths = [0.1, 0.1, 0.1] m }\n\
              contact { material = steel; smoothing = 0.05 m } }\n\
            joint j prismatic { from = world; to = ball; axis = y }\n";
        let spec = model::load_str(source, "m.m3d").expect("the model loads");
        let scene = Scene::from_spec(&spec).expect("scene");
        let assembly = Assembly::build(&scene).expect("assembly");
        let visual = VisualScene::new(&scene, &assembly);
        assert_eq!(visual.up, Vector3::y());
        assert_eq!(visual.bodies.len(), 2);
        assert_eq!(visual.bodies[0].name, "world");
        assert!(!visual.bodies[0].moving);
        assert_eq!(visual.bodies[0].shapes[0].color, DEFAULT_COLOR);
        let ball = &visual.bodies[1];
        assert_eq!((ball.name.as_str(), ball.moving), ("ball", true));
        assert_eq!(ball.shapes.len(), 2);
        assert_eq!(ball.shapes[0].color, [255, 0, 0]);
        assert_eq!(ball.shapes[0].transparency, 0.5);
        assert_eq!(ball.shapes[1].object, "cap");
        assert!(
            (ball.shapes[1].pose.translation.vector - Vector3::new(0.0, 0.1, 0.0)).norm() < 1e-15
        );
        // Smoothing 0.05 m is clamped to a tenth of the 0.1 m edge.
        assert!((ball.shapes[1].rounding - 0.01).abs() < 1e-15);
    }
}
