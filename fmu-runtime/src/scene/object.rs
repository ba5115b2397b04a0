//! The entities of a scene and their handles.

use crate::model::{
    ContactSpec, ForceSpec, JointSpec, Location, MassSpec, ObjectSpec, ShapeSpec, VisualSpec, WORLD,
};
use nalgebra::Isometry3;

/// Index of an object in [`super::Scene::objects`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectHandle(pub usize);

/// Index of a joint in [`super::Scene::joints`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JointHandle(pub usize);

/// A frame with optional components ([NO19] §2).
#[derive(Debug, Clone)]
pub struct Object3D {
    pub name: String,
    /// Rigid attachment: the parent and this frame's placement in the parent frame.
    pub parent: Option<(ObjectHandle, Isometry3<f64>)>,
    pub shape: Option<ShapeSpec>,
    pub visual: Option<VisualSpec>,
    pub mass: Option<MassSpec>,
    /// The shape collides, with this solid material.
    pub contact: Option<ContactSpec>,
    pub output: bool,
    pub location: Location,
}

impl Object3D {
    pub(super) fn world() -> Object3D {
        Object3D {
            name: WORLD.to_string(),
            parent: None,
            shape: None,
            visual: None,
            mass: None,
            contact: None,
            output: false,
            location: Location::default(),
        }
    }

    pub(super) fn from_spec(spec: &ObjectSpec) -> Object3D {
        Object3D {
            name: spec.name.clone(),
            parent: None,
            shape: spec.shape.clone(),
            visual: spec.visual.clone(),
            mass: spec.mass.clone(),
            contact: spec.contact.clone(),
            output: spec.output,
            location: spec.location.clone(),
        }
    }

    /// Carries mass that the dynamics must see.
    pub fn has_mass(&self) -> bool {
        self.mass.as_ref().is_some_and(|m| m.mass > 0.0)
    }

    /// Only visual: evaluated at communication points, never in the residual ([NO19] §4.1.5).
    pub fn is_visual_only(&self) -> bool {
        !self.has_mass() && !self.output && self.contact.is_none() && self.visual.is_some()
    }
}

/// A joint between two objects, as the user wrote it.
#[derive(Debug, Clone)]
pub struct Joint {
    pub spec: JointSpec,
    pub from: ObjectHandle,
    pub to: ObjectHandle,
}

/// A point-to-point force element between the origins of two objects.
#[derive(Debug, Clone)]
pub struct ForceElement {
    pub spec: ForceSpec,
    pub from: ObjectHandle,
    pub to: ObjectHandle,
}
