//! Super-objects by the augmented depth-first search of [NO19] §4.2.2.
//!
//! A buffer holds the root object of every super-object found so far; its index is the
//! super-object's index. For each buffer entry a depth-first search over rigid attachments (in
//! both directions: a rigid group is one body whichever of its objects a joint reaches) collects
//! the members and their poses in the root frame. A joint met on the way whose other end is not
//! yet assigned pushes that end onto the buffer as the root of a new super-object, connected by
//! this joint (the tree joint of the new super-object). The result is in depth-first order: every
//! super-object comes after its parent, so a forward loop computes kinematics and a backward
//! loop sums forces.
//!
//! **Cut-joints.** A joint met by the search whose other end is already assigned to a
//! super-object closes a kinematic loop: it becomes a [`CutJoint`] (the joint of the loop that
//! the search meets last is cut) and its constraints are added to the DAE. A spherical joint has
//! no coordinates and is always cut, whichever order the search meets it in.
//!
//! **Joints of several axes.** A universal, cylindrical or planar joint is a chain of one-axis
//! tree joints through massless *connector* super-objects, one after each axis but the last
//! (the composite joint as a sequence of elementary ones, [NO19] §3): the forward and backward
//! passes, the state layout and the loops then need nothing beyond the one-axis joint. A chain
//! met from the joint's `to` end runs backwards: the axes in reverse order, each reversed.

use super::joint_model::{CutJointKind, Follower, TreeJoint, TreeJointKind};
use super::mass::MergedMass;
use crate::model::{JointKind, Location};
use crate::scene::{JointHandle, ObjectHandle, Scene, SceneError};
use nalgebra::Isometry3;

/// One object of a super-object and its fixed pose in the super-object's root frame.
#[derive(Debug, Clone)]
pub struct Member {
    pub object: ObjectHandle,
    pub pose: Isometry3<f64>,
}

/// A group of rigidly attached objects: one rigid body of the mechanism.
#[derive(Debug, Clone)]
pub struct SuperObject {
    /// The object whose frame is the body frame (the world, or the object a joint reached).
    pub root: ObjectHandle,
    /// All objects of the group in depth-first order, the root first.
    pub members: Vec<Member>,
    /// Index of the parent super-object (`None` only for the world, index 0).
    pub parent: Option<usize>,
    pub joint: Option<TreeJoint>,
    pub mass: Option<MergedMass>,
    /// Super-objects this one must not collide with ([NO19] §4.1.2, rule 2), only the later
    /// ones: the relation is stored once.
    pub no_collision_pairs: Vec<usize>,
    /// Members that carry only visuals: placed at communication points, not in the residual.
    pub visual_only: Vec<usize>,
    /// A massless frame between two axes of one joint (no members, no mass).
    pub connector: bool,
}

/// A joint that closes a kinematic loop: not part of the spanning tree, its constraints are
/// equations of the DAE.
#[derive(Debug, Clone)]
pub struct CutJoint {
    pub joint: JointHandle,
    /// The super-object of the joint's `from` object and that object's pose in it.
    pub body_a: usize,
    pub frame_a: Isometry3<f64>,
    /// The super-object of the joint's `to` object and that object's pose in it.
    pub body_b: usize,
    pub frame_b: Isometry3<f64>,
    /// The user's joint's full name, and where it is written (for messages).
    pub name: String,
    pub location: Location,
    pub kind: CutJointKind,
    /// Index of this joint's first axis among the axes of all cut-joints (for per-axis state
    /// such as the turns of a reported angle).
    pub first_axis: usize,
}

/// The mechanism as the dynamics sees it: super-objects in depth-first order.
#[derive(Debug, Clone)]
pub struct Assembly {
    pub super_objects: Vec<SuperObject>,
    /// Joints that close kinematic loops, in the order the search met them.
    pub cut_joints: Vec<CutJoint>,
    /// For each object of the scene: its super-object and its pose in that super-object's frame.
    pub placement: Vec<(usize, Isometry3<f64>)>,
}

impl Assembly {
    /// The super-object that tree joint `joint` moves (a compound joint's first axis); `None`
    /// for a cut-joint.
    pub fn body_of_joint(&self, joint: JointHandle) -> Option<usize> {
        self.super_objects
            .iter()
            .position(|so| so.joint.as_ref().is_some_and(|j| j.joint == joint))
    }

    /// A name for super-object `index` in messages and animations: its root object's, or for a
    /// connector the joint's name and the coordinate of the axis before it (`cardan.phi_a`).
    pub fn body_name(&self, scene: &Scene, index: usize) -> String {
        let body = &self.super_objects[index];
        match (&body.joint, body.connector) {
            (Some(tree_joint), true) => {
                let spec = &scene.joints[tree_joint.joint.0].spec;
                let axes = spec.kind.axes();
                let coordinate = axes.get(tree_joint.axis).map_or("", |a| a.names[0]);
                format!("{}.{coordinate}", spec.name)
            }
            _ => scene.object(body.root).name.clone(),
        }
    }

    /// Runs the augmented depth-first search over the scene.
    pub fn build(scene: &Scene) -> Result<Assembly, SceneError> {
        let n = scene.objects.len();
        // Rigid attachments in both directions: (neighbour, neighbour's pose in this frame).
        let mut rigid: Vec<Vec<(ObjectHandle, Isometry3<f64>)>> = vec![Vec::new(); n];
        for (index, object) in scene.objects.iter().enumerate() {
            if let Some((parent, placement)) = object.parent {
                rigid[parent.0].push((ObjectHandle(index), placement));
                rigid[index].push((parent, placement.inverse()));
            }
        }
        let mut joints_at: Vec<Vec<JointHandle>> = vec![Vec::new(); n];
        for (index, joint) in scene.joints.iter().enumerate() {
            joints_at[joint.from.0].push(JointHandle(index));
            joints_at[joint.to.0].push(JointHandle(index));
        }

        // Rigid groups (connected by rigid attachments): a joint reaching any object of a group
        // that already belongs to a super-object closes a loop.
        let mut group = vec![usize::MAX; n];
        for start in 0..n {
            if group[start] != usize::MAX {
                continue;
            }
            group[start] = start;
            let mut pending = vec![start];
            while let Some(object) = pending.pop() {
                for &(neighbour, _) in &rigid[object] {
                    if group[neighbour.0] == usize::MAX {
                        group[neighbour.0] = start;
                        pending.push(neighbour.0);
                    }
                }
            }
        }
        let mut owner: Vec<Option<usize>> = vec![None; n];
        owner[group[Scene::WORLD.0]] = Some(0);
        let mut assigned: Vec<Option<usize>> = vec![None; n];
        let mut joint_used = vec![false; scene.joints.len()];
        let mut cut: Vec<JointHandle> = Vec::new();
        // (root, parent, joint, is a connector between two axes of one joint)
        let mut buffer: Vec<(ObjectHandle, Option<usize>, Option<TreeJoint>, bool)> =
            vec![(Scene::WORLD, None, None, false)];
        assigned[Scene::WORLD.0] = Some(0);
        let mut super_objects = Vec::new();
        let mut placement = vec![(0, Isometry3::identity()); n];

        let mut act = 0;
        while act < buffer.len() {
            let (root, parent, joint, connector) = buffer[act].clone();
            if connector {
                super_objects.push(SuperObject {
                    root,
                    members: Vec::new(),
                    parent,
                    joint,
                    mass: None,
                    no_collision_pairs: Vec::new(),
                    visual_only: Vec::new(),
                    connector: true,
                });
                act += 1;
                continue;
            }
            let mut members = Vec::new();
            let mut no_collision_pairs = Vec::new();
            let mut stack = vec![(root, Isometry3::identity())];
            while let Some((object, pose)) = stack.pop() {
                members.push(Member { object, pose });
                placement[object.0] = (act, pose);
                for &(neighbour, relative) in &rigid[object.0] {
                    match assigned[neighbour.0] {
                        None => {
                            assigned[neighbour.0] = Some(act);
                            stack.push((neighbour, pose * relative));
                        }
                        Some(k) if k == act => {}
                        Some(_) => {
                            return Err(loop_error(scene, neighbour));
                        }
                    }
                }
                for &handle in &joints_at[object.0] {
                    if joint_used[handle.0] {
                        continue;
                    }
                    joint_used[handle.0] = true;
                    let joint = &scene.joints[handle.0];
                    let reversed = joint.to == object;
                    let other = if reversed { joint.from } else { joint.to };
                    if owner[group[other.0]].is_some() || joint.spec.kind == JointKind::Spherical {
                        cut.push(handle);
                        continue;
                    }
                    if let JointKind::Free { .. } = &joint.spec.kind {
                        if reversed || act != 0 {
                            return Err(SceneError::new(
                                &joint.spec.location,
                                format!(
                                    "free joint `{}`: `from` must be the world or an object \
                                     rigidly attached to it, and `to` the moving body",
                                    joint.spec.name
                                ),
                            ));
                        }
                    }
                    // One tree joint per axis, connectors between them; a free joint is one.
                    let chain = TreeJoint::chain(handle, &joint.spec, pose, reversed);
                    let index = buffer.len() + chain.len() - 1;
                    assigned[other.0] = Some(index);
                    owner[group[other.0]] = Some(index);
                    if !joint.spec.can_collide {
                        no_collision_pairs.push(index);
                    }
                    let last = chain.len() - 1;
                    for (step, tree_joint) in chain.into_iter().enumerate() {
                        let parent = if step == 0 { act } else { buffer.len() - 1 };
                        buffer.push((other, Some(parent), Some(tree_joint), step < last));
                    }
                }
            }
            let mass = if act == 0 {
                None
            } else {
                MergedMass::merge(members.iter().filter_map(|member| {
                    scene
                        .object(member.object)
                        .mass
                        .as_ref()
                        .map(|m| (m, member.pose))
                }))
            };
            let visual_only = members
                .iter()
                .enumerate()
                .filter(|(_, m)| scene.object(m.object).is_visual_only())
                .map(|(i, _)| i)
                .collect();
            super_objects.push(SuperObject {
                root,
                members,
                parent,
                joint,
                mass,
                no_collision_pairs,
                visual_only,
                connector: false,
            });
            act += 1;
        }

        if let Some(index) = assigned.iter().position(Option::is_none) {
            let object = &scene.objects[index];
            return Err(SceneError::new(
                &object.location,
                format!(
                    "object `{}` is not connected to the world: give it (or an object it is \
                     attached to) a `parent`, or make it an end of a joint",
                    object.name
                ),
            ));
        }
        let mut first_axis = 0;
        let mut cut_joints = Vec::with_capacity(cut.len());
        for handle in cut {
            let joint = cut_joint(scene, &super_objects, &placement, handle, first_axis)?;
            first_axis += joint.kind.axes().len();
            cut_joints.push(joint);
            // A cut-joint keeps its bodies apart like a joint of the tree, unless it says
            // `can_collide = true` (a spherical joint is always cut).
            let spec = &scene.joints[handle.0];
            let (from, to) = (placement[spec.from.0].0, placement[spec.to.0].0);
            if !spec.spec.can_collide && from != to {
                super_objects[to].no_collision_pairs.push(from);
            }
        }
        link_followers(scene, &mut super_objects)?;
        let assembly = Assembly {
            super_objects,
            cut_joints,
            placement,
        };
        assembly.check_every_joint_moves_mass(scene)?;
        Ok(assembly)
    }

    /// A joint whose whole subtree has no mass makes the mass matrix singular.
    fn check_every_joint_moves_mass(&self, scene: &Scene) -> Result<(), SceneError> {
        let mut subtree_mass: Vec<f64> = self
            .super_objects
            .iter()
            .map(|s| s.mass.as_ref().map_or(0.0, |m| m.mass))
            .collect();
        for (index, body) in self.super_objects.iter().enumerate().skip(1).rev() {
            if let Some(parent) = body.parent {
                subtree_mass[parent] += subtree_mass[index];
            }
            if subtree_mass[index] <= 0.0 {
                if let Some(tree_joint) = &body.joint {
                    let joint = &scene.joints[tree_joint.joint.0];
                    return Err(SceneError::new(
                        &joint.spec.location,
                        format!(
                            "joint `{}` moves `{}` and what hangs from it, which has no mass: \
                             give one of those objects a `mass`",
                            joint.spec.name,
                            scene.object(body.root).name
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Links every tree joint that `follows` another to the super-object its leader moves.
fn link_followers(scene: &Scene, super_objects: &mut [SuperObject]) -> Result<(), SceneError> {
    for k in 0..super_objects.len() {
        let Some(tree_joint) = &super_objects[k].joint else {
            continue;
        };
        let Some(follow) = scene.joints[tree_joint.joint.0].spec.kind.drive().follows else {
            continue;
        };
        let leader = super_objects.iter().position(|s| {
            s.joint
                .as_ref()
                .is_some_and(|j| j.name == follow.leader && !matches!(j.kind, TreeJointKind::Free))
        });
        let Some(leader) = leader else {
            return Err(SceneError::new(
                &follow.location,
                format!(
                    "joint `{}` follows `{}`, which is not a joint of the spanning tree",
                    tree_joint.name, follow.leader
                ),
            ));
        };
        if let Some(joint) = super_objects[k].joint.as_mut() {
            joint.follows = Some(Follower {
                leader,
                ratio: follow.ratio,
                offset: follow.offset,
            });
        }
    }
    Ok(())
}

/// The cut-joint for a joint that closes a loop, after checking that only 1-dof joints lie on
/// the loop (the tree path between its two bodies).
fn cut_joint(
    scene: &Scene,
    super_objects: &[SuperObject],
    placement: &[(usize, Isometry3<f64>)],
    handle: JointHandle,
    first_axis: usize,
) -> Result<CutJoint, SceneError> {
    let joint = &scene.joints[handle.0];
    let (body_a, frame_a) = placement[joint.from.0];
    let (body_b, frame_b) = placement[joint.to.0];
    let name = &joint.spec.name;
    let kind = match &joint.spec.kind {
        JointKind::Revolute { .. } | JointKind::Prismatic { .. } | JointKind::Compound { .. } => {
            CutJointKind::from_axes(&joint.spec.kind.axes())
        }
        JointKind::Spherical => CutJointKind::Spherical,
        JointKind::Free { .. } => {
            return Err(SceneError::new(
                &joint.spec.location,
                format!(
                    "free joint `{name}` closes a kinematic loop: a free joint constrains nothing, \
                     so it cannot close a loop; remove it"
                ),
            ))
        }
    };
    if let Some(follower) = scene
        .joints
        .iter()
        .find(|j| j.spec.kind.drive().follows.is_some())
    {
        return Err(SceneError::new(
            &joint.spec.location,
            format!(
                "joint `{name}` closes a kinematic loop, and joint `{}` follows another \
                 (`follows`): a model with kinematic loops cannot have joints that follow \
                 others yet; model the coupling as a loop of its own, or remove `follows`",
                follower.spec.name
            ),
        ));
    }
    let driven = joint.spec.kind.drive().is_driven()
        || scene.drives.iter().any(|(_, joint)| *joint == handle);
    if driven {
        return Err(SceneError::new(
            &joint.spec.location,
            format!(
                "joint `{name}` closes a kinematic loop and has a drive, spring, damper or end \
                 stop (or a `drive` acts on it), which a joint closing a loop cannot have yet: \
                 reorder the joints so that another joint of the loop closes it (`fmu3d check` \
                 lists them), or remove its `flange`, `motion`, `spring`, `damper`, `lower` and \
                 `upper` fields"
            ),
        ));
    }
    if body_a == body_b {
        return Err(SceneError::new(
            &joint.spec.location,
            format!(
                "joint `{name}` connects two objects of the same rigid body (`{}` and `{}` are \
                 rigidly attached to each other)",
                scene.object(joint.from).name,
                scene.object(joint.to).name
            ),
        ));
    }
    // The tree path between the two bodies: up from the deeper one until they meet.
    let (mut i, mut j) = (body_a, body_b);
    while i != j {
        let step = if i > j { &mut i } else { &mut j };
        let body = &super_objects[*step];
        if let Some(TreeJoint {
            kind: TreeJointKind::Free,
            joint: free,
            ..
        }) = &body.joint
        {
            return Err(SceneError::new(
                &joint.spec.location,
                format!(
                    "joint `{name}` closes a kinematic loop through free joint `{}`: only \
                     joints with axes (revolute, prismatic, universal, cylindrical, planar) may \
                     lie on a loop",
                    scene.joints[free.0].spec.name
                ),
            ));
        }
        *step = body.parent.unwrap_or(0);
    }
    Ok(CutJoint {
        joint: handle,
        body_a,
        frame_a,
        body_b,
        frame_b,
        name: name.clone(),
        location: joint.spec.location.clone(),
        kind,
        first_axis,
    })
}

fn loop_error(scene: &Scene, object: ObjectHandle) -> SceneError {
    let object = scene.object(object);
    SceneError::new(
        &object.location,
        format!(
            "object `{}` is both rigidly attached and moved by a joint: this closes a kinematic \
             loop, which is not supported yet",
            object.name
        ),
    )
}
