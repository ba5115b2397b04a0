//! (2) The scene: an arena of Object3Ds, the joints between them and the force elements, built
//! from a [`ModelSpec`] with every reference resolved to a handle.
//!
//! Rigid attachments (`parent`) are kept as directed edges here, but the engine treats them as
//! symmetric: [`crate::assembly`] merges each group of rigidly attached objects into one body,
//! whichever of its objects a joint reaches.

mod error;
mod object;

pub use error::SceneError;
pub use object::{ForceElement, Joint, JointHandle, Object3D, ObjectHandle};

use crate::model::{
    ContactOutputSpec, ContactPairSpec, DriveSpec, ExperimentSpec, GravitySpec, ModelSpec,
    ParameterSpec, WORLD,
};
use nalgebra::Isometry3;
use std::collections::HashMap;

/// All objects, joints and force elements of one model, with resolved references.
#[derive(Debug, Clone)]
pub struct Scene {
    pub name: String,
    pub description: Option<String>,
    pub parameters: Vec<ParameterSpec>,
    pub gravity: GravitySpec,
    pub experiment: ExperimentSpec,
    /// `objects[0]` is the world.
    pub objects: Vec<Object3D>,
    pub joints: Vec<Joint>,
    pub forces: Vec<ForceElement>,
    /// Contact-pair materials the model file gives (they override the shipped table).
    pub contact_pairs: Vec<ContactPairSpec>,
    /// Contacts reported as outputs, with both objects resolved.
    pub contact_outputs: Vec<(ContactOutputSpec, ObjectHandle, ObjectHandle)>,
    /// Drive trains with the joint whose flange each acts on.
    pub drives: Vec<(DriveSpec, JointHandle)>,
    by_name: HashMap<String, ObjectHandle>,
}

impl Scene {
    /// The world object, root of every tree.
    pub const WORLD: ObjectHandle = ObjectHandle(0);

    /// Resolves every name of the spec to a handle. Name errors are normally caught by the model
    /// loader already; they are checked again here so that a spec built in code is safe too.
    pub fn from_spec(spec: &ModelSpec) -> Result<Scene, SceneError> {
        let mut objects = vec![Object3D::world()];
        let mut by_name = HashMap::new();
        by_name.insert(WORLD.to_string(), Self::WORLD);
        for object in &spec.objects {
            let handle = ObjectHandle(objects.len());
            if object.name == WORLD || by_name.insert(object.name.clone(), handle).is_some() {
                return Err(SceneError::new(
                    &object.location,
                    format!("the object name `{}` is used twice", object.name),
                ));
            }
            objects.push(Object3D::from_spec(object));
        }
        let lookup = |name: &str, location| {
            by_name.get(name).copied().ok_or_else(|| {
                SceneError::new(location, format!("there is no object named `{name}`"))
            })
        };
        for (index, object) in spec.objects.iter().enumerate() {
            if let Some(parent) = &object.parent {
                let parent = lookup(parent, &object.location)?;
                let placement = Isometry3::from_parts(object.position.into(), object.rotation);
                objects[index + 1].parent = Some((parent, placement));
            }
        }
        let mut joints = Vec::with_capacity(spec.joints.len());
        for joint in &spec.joints {
            let from = lookup(&joint.from, &joint.location)?;
            let to = lookup(&joint.to, &joint.location)?;
            if from == to {
                return Err(SceneError::new(
                    &joint.location,
                    format!("joint `{}` connects `{}` to itself", joint.name, joint.from),
                ));
            }
            joints.push(Joint {
                spec: joint.clone(),
                from,
                to,
            });
        }
        let mut forces = Vec::with_capacity(spec.forces.len());
        for force in &spec.forces {
            let from = lookup(&force.from, &force.location)?;
            let to = lookup(&force.to, &force.location)?;
            forces.push(ForceElement {
                spec: force.clone(),
                from,
                to,
            });
        }
        let contact_outputs = spec
            .contact_outputs
            .iter()
            .map(|c| {
                let from = lookup(&c.from, &c.location)?;
                let to = lookup(&c.to, &c.location)?;
                Ok((c.clone(), from, to))
            })
            .collect::<Result<Vec<_>, SceneError>>()?;
        let drives = spec
            .drives
            .iter()
            .map(|drive| {
                let joint = spec
                    .joints
                    .iter()
                    .position(|j| j.name == drive.joint)
                    .ok_or_else(|| {
                        SceneError::new(
                            &drive.location,
                            format!("there is no joint named `{}`", drive.joint),
                        )
                    })?;
                Ok((drive.clone(), JointHandle(joint)))
            })
            .collect::<Result<Vec<_>, SceneError>>()?;
        Ok(Scene {
            name: spec.name.clone(),
            description: spec.description.clone(),
            parameters: spec.parameters.clone(),
            gravity: spec.gravity.clone(),
            experiment: spec.experiment.clone(),
            objects,
            joints,
            forces,
            contact_pairs: spec.contact_pairs.clone(),
            contact_outputs,
            drives,
            by_name,
        })
    }

    pub fn object(&self, handle: ObjectHandle) -> &Object3D {
        &self.objects[handle.0]
    }

    pub fn find(&self, name: &str) -> Option<ObjectHandle> {
        self.by_name.get(name).copied()
    }
}
