//! SNAP: the placements that rigid mates determine ([OpenPLX], Physics3D mates).
//!
//! A `fixed` joint is a rigid mate: at rest, its `to` frame is its `from` frame moved by the
//! joint's `position` and `rotation` (the identity by default), so a fixed joint between two
//! mate connectors makes the connectors coincide. The only undefined placements of a model are
//! those of objects without `parent`: each is the root of a rigid part (an instance's first
//! object, a supplier's part). A part is *placed* when it is rigidly attached to the world or
//! moved by a joint; SNAP places the others from the mates, as a person assembles parts one
//! after the other:
//!
//! - a mate between a placed part and an unplaced one gives the unplaced part's root C the
//!   placement S in its new parent that satisfies N·S·P = A, S = N⁻¹·A·P⁻¹, where A is the pose
//!   of the placed connector (times the mate's offset), P the pose of the other connector in C
//!   (through every parent between them, also inside nested instances) and N the pose of C's new
//!   parent. The new parent is the placed connector itself (N = A), so S = offset·P⁻¹;
//! - a mate whose two connectors already belong to one part is checked: if they coincide within
//!   [`POSITION_TOLERANCE`] and [`ANGLE_TOLERANCE`] it is redundant (reported, not used again),
//!   otherwise it contradicts the placements that joined them;
//! - mates between two unplaced parts wait until one of them is placed; the passes repeat until
//!   nothing changes, so the order of the statements does not matter.

use super::lexer::{Diag, Pos};
use nalgebra::{Isometry3, Vector3};
use std::collections::HashMap;

/// Two connectors closer than this [m] coincide.
pub const POSITION_TOLERANCE: f64 = 1e-6;
/// Two connector frames turned less than this [rad] against each other are parallel.
pub const ANGLE_TOLERANCE: f64 = 1e-6;

/// The world or an object, by its index in the frame list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Node {
    World,
    Object(usize),
}

/// One object frame as SNAP sees it.
pub(super) struct Frame {
    pub name: String,
    pub parent: Option<Node>,
    /// Pose in the parent frame.
    pub pose: Isometry3<f64>,
    /// A mate connector: its parent is its owner object, not a placement the user wrote.
    pub connector: bool,
    /// Where the parent was written (`parent = ...`), for messages.
    pub parent_line: usize,
}

/// A rigid mate: a `fixed` joint.
pub(super) struct Mate {
    pub name: String,
    pub from: Node,
    pub to: Node,
    /// Pose of `to` in `from` at rest.
    pub offset: Isometry3<f64>,
    pub pos: Pos,
}

/// A joint that places the part of its `to` frame (revolute, prismatic, free).
pub(super) struct Mover {
    pub name: String,
    pub to: Node,
    pub line: usize,
}

/// A mate whose placement other placements had already determined.
pub(super) struct Redundant {
    pub mate: usize,
    /// Distance between the two connectors [m] and the angle between their frames [rad].
    pub position_error: f64,
    pub angle_error: f64,
    /// The mates and `parent` relations that had placed the two connectors in one part.
    pub determined_by: Vec<String>,
}

/// What SNAP did.
pub(super) struct Outcome {
    /// (object, mate): the root object that each mate placed.
    pub placed: Vec<(usize, usize)>,
    pub redundant: Vec<Redundant>,
}

/// How a part is placed.
enum Placement {
    World,
    Joint(usize),
    Undefined,
}

struct Snap<'a> {
    frames: &'a mut [Frame],
    mates: &'a [Mate],
    movers: &'a [Mover],
    /// The mate that gave each object its parent.
    placed_by: Vec<Option<usize>>,
    /// Root object of each part that a joint moves → the joint.
    moved: HashMap<usize, usize>,
}

/// Places every part that the mates determine; `frames` get their new parents and poses.
pub(super) fn snap(
    frames: &mut [Frame],
    mates: &[Mate],
    movers: &[Mover],
) -> Result<Outcome, Diag> {
    let n = frames.len();
    let mut s = Snap {
        frames,
        mates,
        movers,
        placed_by: vec![None; n],
        moved: HashMap::new(),
    };
    for (index, mover) in movers.iter().enumerate() {
        if let Node::Object(root) = s.root(mover.to) {
            s.moved.entry(root).or_insert(index);
        }
    }
    for mate in mates {
        s.check_owners(mate)?;
    }
    let mut outcome = Outcome {
        placed: Vec::new(),
        redundant: Vec::new(),
    };
    let mut used = vec![false; mates.len()];
    loop {
        let mut progress = false;
        for (index, mate) in mates.iter().enumerate() {
            if used[index] {
                continue;
            }
            let (root_from, root_to) = (s.root(mate.from), s.root(mate.to));
            if root_from == root_to {
                outcome.redundant.push(s.check_agreement(index)?);
            } else {
                let (target, moved, relative, root) =
                    match (s.placement(root_from), s.placement(root_to)) {
                        (Placement::Undefined, Placement::Undefined) => continue,
                        (Placement::Undefined, _) => {
                            (mate.to, mate.from, mate.offset.inverse(), root_from)
                        }
                        (_, Placement::Undefined) => (mate.from, mate.to, mate.offset, root_to),
                        (a, b) => return Err(s.both_placed(mate, a, b)),
                    };
                let Node::Object(root) = root else {
                    continue;
                };
                // N = A: the placed connector becomes the parent, S = offset·P⁻¹.
                let p = s.pose_in_root(moved);
                s.frames[root].parent = Some(target);
                s.frames[root].pose = relative * p.inverse();
                s.placed_by[root] = Some(index);
                outcome.placed.push((root, index));
            }
            used[index] = true;
            progress = true;
        }
        if !progress {
            break;
        }
    }
    if let Some(index) = used.iter().position(|u| !u) {
        let mate = &mates[index];
        return Err(Diag::new(
            mate.pos,
            format!(
                "fixed joint `{}` joins `{}` and `{}`, but neither part is placed",
                mate.name,
                s.name(mate.from),
                s.name(mate.to)
            ),
        )
        .with_help(Some(
            "give one of the parts a `parent` or make it the `to` of a joint; the mates then place the others"
                .into(),
        )));
    }
    Ok(outcome)
}

impl Snap<'_> {
    fn name(&self, node: Node) -> &str {
        match node {
            Node::World => super::spec::WORLD,
            Node::Object(i) => &self.frames[i].name,
        }
    }

    fn parent(&self, node: Node) -> Option<Node> {
        match node {
            Node::World => None,
            Node::Object(i) => self.frames[i].parent,
        }
    }

    /// The node and its ancestors, the root last (parent loops are refused before SNAP).
    fn path_to_root(&self, node: Node) -> Vec<Node> {
        let mut path = vec![node];
        while let Some(parent) = self.parent(path[path.len() - 1]) {
            if path.len() > self.frames.len() {
                break;
            }
            path.push(parent);
        }
        path
    }

    fn root(&self, node: Node) -> Node {
        let path = self.path_to_root(node);
        path[path.len() - 1]
    }

    /// Pose of `node` in the frame of its root.
    fn pose_in_root(&self, node: Node) -> Isometry3<f64> {
        let mut pose = Isometry3::identity();
        for step in self.path_to_root(node) {
            if let Node::Object(i) = step {
                if self.frames[i].parent.is_some() {
                    pose = self.frames[i].pose * pose;
                }
            }
        }
        pose
    }

    fn placement(&self, root: Node) -> Placement {
        match root {
            Node::World => Placement::World,
            Node::Object(i) => match self.moved.get(&i) {
                Some(&mover) => Placement::Joint(mover),
                None => Placement::Undefined,
            },
        }
    }

    /// The object a frame belongs to: a connector's owner, or the object itself.
    fn owner(&self, node: Node) -> Node {
        match node {
            Node::Object(i) if self.frames[i].connector => self.frames[i].parent.unwrap_or(node),
            _ => node,
        }
    }

    fn check_owners(&self, mate: &Mate) -> Result<(), Diag> {
        let owner = self.owner(mate.from);
        if owner != self.owner(mate.to) {
            return Ok(());
        }
        Err(Diag::new(
            mate.pos,
            format!(
                "fixed joint `{}` joins `{}` and `{}`, which belong to the same object `{}`",
                mate.name,
                self.name(mate.from),
                self.name(mate.to),
                self.name(owner)
            ),
        )
        .with_help(Some(
            "a mate joins two parts: name a connector of the other part".into(),
        )))
    }

    /// The mates and written parents on the path between the mate's two frames.
    fn determined_by(&self, mate: &Mate) -> Vec<String> {
        let mut a = self.path_to_root(mate.from);
        let mut b = self.path_to_root(mate.to);
        while a.len() > 1 && b.len() > 1 && a[a.len() - 2] == b[b.len() - 2] {
            a.pop();
            b.pop();
        }
        let mut out: Vec<String> = Vec::new();
        for node in a[..a.len() - 1].iter().chain(&b[..b.len() - 1]) {
            let Node::Object(i) = *node else { continue };
            let text = match self.placed_by[i] {
                Some(m) => format!(
                    "fixed joint `{}` (line {})",
                    self.mates[m].name, self.mates[m].pos.line
                ),
                None if self.frames[i].connector => continue,
                None => format!(
                    "the `parent` of `{}` (line {})",
                    self.frames[i].name, self.frames[i].parent_line
                ),
            };
            if !out.contains(&text) {
                out.push(text);
            }
        }
        out
    }

    /// A mate whose connectors are already in one part: redundant when they coincide.
    fn check_agreement(&self, index: usize) -> Result<Redundant, Diag> {
        let mate = &self.mates[index];
        let at_rest = self.pose_in_root(mate.from) * mate.offset;
        let actual = self.pose_in_root(mate.to);
        let difference = at_rest.inverse() * actual;
        let position_error = difference.translation.vector.norm();
        let angle_error = difference.rotation.angle();
        let determined_by = self.determined_by(mate);
        if position_error <= POSITION_TOLERANCE && angle_error <= ANGLE_TOLERANCE {
            return Ok(Redundant {
                mate: index,
                position_error,
                angle_error,
                determined_by,
            });
        }
        let axis_angle = |axis: Vector3<f64>| {
            let (u, v) = (at_rest.rotation * axis, actual.rotation * axis);
            u.dot(&v).clamp(-1.0, 1.0).acos()
        };
        let others = if determined_by.is_empty() {
            "the declarations of the connectors".to_string()
        } else {
            determined_by.join(", ")
        };
        let position = if position_error <= POSITION_TOLERANCE {
            "are at the same place".to_string()
        } else {
            format!("are {} m apart", significant(position_error))
        };
        Err(Diag::new(
            mate.pos,
            format!(
                "fixed joint `{}` contradicts the placement given by {others}: `{}` and `{}` {position}, their main axes {}, their normals {}",
                mate.name,
                self.name(mate.from),
                self.name(mate.to),
                angle_text(axis_angle(Vector3::z())),
                angle_text(axis_angle(Vector3::x())),
            ),
        )
        .with_help(Some(format!(
            "make the connectors' `position`, `main_axis` and `normal` agree, or remove `{}`: the part is already placed",
            mate.name
        ))))
    }

    fn describe(&self, placement: &Placement) -> String {
        match placement {
            Placement::Joint(m) => format!(
                "is moved by joint `{}` (line {})",
                self.movers[*m].name, self.movers[*m].line
            ),
            _ => "is fixed to the world".to_string(),
        }
    }

    fn both_placed(&self, mate: &Mate, a: Placement, b: Placement) -> Diag {
        Diag::new(
            mate.pos,
            format!(
                "fixed joint `{}` cannot join `{}` and `{}`: the part of `{}` {} and the part of `{}` {}",
                mate.name,
                self.name(mate.from),
                self.name(mate.to),
                self.name(mate.from),
                self.describe(&a),
                self.name(mate.to),
                self.describe(&b)
            ),
        )
        .with_help(Some(
            "a part has one placement: remove the fixed joint, or write a joint that moves between the connectors"
                .into(),
        ))
    }
}

/// A number in a message: four significant digits, without trailing zeros.
fn significant(value: f64) -> String {
    if value == 0.0 || !value.is_finite() {
        return format!("{value}");
    }
    let decimals = (3 - value.abs().log10().floor() as i32).max(0) as usize;
    let text = format!("{value:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

fn angle_text(angle: f64) -> String {
    if angle <= ANGLE_TOLERANCE {
        return "agree".to_string();
    }
    format!(
        "are {} rad ({}°) apart",
        significant(angle),
        significant(angle.to_degrees())
    )
}
