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
//! - mates between two unplaced parts wait until one of them is placed; of the mates that touch
//!   a placed part, the one written first is applied first, so the placements do not depend on
//!   the order of the statements.

use super::lexer::{Diag, Pos};
use nalgebra::{Isometry3, Vector3};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

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

struct Snap<'a> {
    frames: &'a mut [Frame],
    mates: &'a [Mate],
    movers: &'a [Mover],
    /// The root of each frame's part through the parents the user wrote (the world for parts
    /// rigidly attached to it).
    part: Vec<Node>,
    /// The mate that gave each object its parent.
    placed_by: Vec<Option<usize>>,
    /// Root object of each part that a joint moves → the joint.
    moved: HashMap<usize, usize>,
    /// Each placed part → the root of the rigid body it now belongs to (the world or a part
    /// that a joint moves) and the pose of the part's root in that body.
    body: HashMap<Node, (Node, Isometry3<f64>)>,
    /// The mates that touch each part.
    mates_at: HashMap<Node, Vec<usize>>,
    /// Mates with a placed part, the first written on top.
    ready: BinaryHeap<Reverse<usize>>,
}

/// Places every part that the mates determine; `frames` get their new parents and poses.
///
/// Of the mates that touch a placed part, the one written first is applied first (a heap of
/// mate indices), so each mate is looked at once: O(mates · log mates + frames · part depth).
pub(super) fn snap(
    frames: &mut [Frame],
    mates: &[Mate],
    movers: &[Mover],
) -> Result<Outcome, Diag> {
    let part = part_roots(frames);
    let n = frames.len();
    let mut s = Snap {
        frames,
        mates,
        movers,
        part,
        placed_by: vec![None; n],
        moved: HashMap::new(),
        body: HashMap::new(),
        mates_at: HashMap::new(),
        ready: BinaryHeap::new(),
    };
    for (index, mate) in mates.iter().enumerate() {
        s.check_owners(mate)?;
        let (a, b) = (s.part_of(mate.from), s.part_of(mate.to));
        s.mates_at.entry(a).or_default().push(index);
        if b != a {
            s.mates_at.entry(b).or_default().push(index);
        }
    }
    s.enter(Node::World, (Node::World, Isometry3::identity()));
    for (index, mover) in movers.iter().enumerate() {
        if let Node::Object(root) = s.part_of(mover.to) {
            if let std::collections::hash_map::Entry::Vacant(entry) = s.moved.entry(root) {
                entry.insert(index);
                let root = Node::Object(root);
                s.enter(root, (root, Isometry3::identity()));
            }
        }
    }
    let mut outcome = Outcome {
        placed: Vec::new(),
        redundant: Vec::new(),
    };
    let mut used = vec![false; mates.len()];
    while let Some(Reverse(index)) = s.ready.pop() {
        if used[index] {
            continue;
        }
        used[index] = true;
        let mate = &mates[index];
        let (target, moved, relative, (body, target_pose)) =
            match (s.pose_in_body(mate.from), s.pose_in_body(mate.to)) {
                (Some((a, from)), Some((b, to))) if a == b => {
                    outcome.redundant.push(s.check_agreement(index, from, to)?);
                    continue;
                }
                (Some((a, _)), Some((b, _))) => return Err(s.both_placed(mate, a, b)),
                (Some(from), None) => (mate.from, mate.to, mate.offset, from),
                (None, Some(to)) => (mate.to, mate.from, mate.offset.inverse(), to),
                // A mate enters the heap when one of its parts is placed.
                (None, None) => {
                    used[index] = false;
                    continue;
                }
            };
        let part = s.part_of(moved);
        let Node::Object(root) = part else {
            continue;
        };
        // N = A: the placed connector becomes the parent, S = offset·P⁻¹.
        let p = s.pose_in_part(moved);
        let placement = relative * p.inverse();
        s.frames[root].parent = Some(target);
        s.frames[root].pose = placement;
        s.placed_by[root] = Some(index);
        outcome.placed.push((root, index));
        s.enter(part, (body, target_pose * placement));
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

/// The root of every frame's part through the written parents, each parent chain walked once.
fn part_roots(frames: &[Frame]) -> Vec<Node> {
    let mut part: Vec<Option<Node>> = vec![None; frames.len()];
    for start in 0..frames.len() {
        let mut chain = Vec::new();
        let mut current = Node::Object(start);
        let root = loop {
            let Node::Object(i) = current else {
                break Node::World;
            };
            if let Some(known) = part[i] {
                break known;
            }
            // Parent loops are refused before SNAP; the bound only guards against them.
            if chain.len() > frames.len() {
                break current;
            }
            chain.push(i);
            match frames[i].parent {
                Some(parent) => current = parent,
                None => break current,
            }
        };
        for i in chain {
            part[i] = Some(root);
        }
    }
    part.into_iter()
        .enumerate()
        .map(|(i, p)| p.unwrap_or(Node::Object(i)))
        .collect()
}

impl Snap<'_> {
    /// A part is placed: it belongs to `body` at the given pose; its mates can be applied.
    fn enter(&mut self, part: Node, body: (Node, Isometry3<f64>)) {
        self.body.insert(part, body);
        for &index in self.mates_at.get(&part).into_iter().flatten() {
            self.ready.push(Reverse(index));
        }
    }

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

    /// The frames whose parent link lies on the path between `a` and `b` (through the parents
    /// SNAP has set too): the two are walked up in step until one reaches a frame the other
    /// has passed, so the cost is the length of the path, not the depth of the tree.
    fn path_between(&self, a: Node, b: Node) -> Vec<Node> {
        let mut walkers = [vec![a], vec![b]];
        let mut seen = [HashMap::from([(a, 0)]), HashMap::from([(b, 0)])];
        loop {
            for side in 0..2 {
                let last = walkers[side][walkers[side].len() - 1];
                if let Some(&k) = seen[1 - side].get(&last) {
                    let mut lengths = [0; 2];
                    lengths[side] = walkers[side].len() - 1;
                    lengths[1 - side] = k;
                    let [from_a, from_b] = lengths;
                    return walkers[0][..from_a]
                        .iter()
                        .chain(&walkers[1][..from_b])
                        .copied()
                        .collect();
                }
            }
            let mut moved = false;
            for side in 0..2 {
                let last = walkers[side][walkers[side].len() - 1];
                if let Some(parent) = self.parent(last) {
                    if walkers[side].len() <= self.frames.len() {
                        seen[side].insert(parent, walkers[side].len());
                        walkers[side].push(parent);
                        moved = true;
                    }
                }
            }
            if !moved {
                return walkers.concat();
            }
        }
    }

    fn part_of(&self, node: Node) -> Node {
        match node {
            Node::World => Node::World,
            Node::Object(i) => self.part[i],
        }
    }

    /// Pose of `node` in the frame of its part's root.
    fn pose_in_part(&self, node: Node) -> Isometry3<f64> {
        let root = self.part_of(node);
        let mut pose = Isometry3::identity();
        let mut current = node;
        while current != root {
            let Node::Object(i) = current else { break };
            let Some(parent) = self.frames[i].parent else {
                break;
            };
            pose = self.frames[i].pose * pose;
            current = parent;
        }
        pose
    }

    /// The rigid body of a placed frame and the frame's pose in it.
    fn pose_in_body(&self, node: Node) -> Option<(Node, Isometry3<f64>)> {
        let (body, pose) = self.body.get(&self.part_of(node))?;
        Some((*body, pose * self.pose_in_part(node)))
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
        let mut out: Vec<String> = Vec::new();
        for node in self.path_between(mate.from, mate.to) {
            let Node::Object(i) = node else { continue };
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
    fn check_agreement(
        &self,
        index: usize,
        from: Isometry3<f64>,
        actual: Isometry3<f64>,
    ) -> Result<Redundant, Diag> {
        let mate = &self.mates[index];
        let at_rest = from * mate.offset;
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

    /// How the rigid body `body` is placed, for messages.
    fn describe(&self, body: Node) -> String {
        match body {
            Node::Object(i) => match self.moved.get(&i) {
                Some(&m) => format!(
                    "is moved by joint `{}` (line {})",
                    self.movers[m].name, self.movers[m].line
                ),
                None => "is placed".to_string(),
            },
            Node::World => "is fixed to the world".to_string(),
        }
    }

    fn both_placed(&self, mate: &Mate, a: Node, b: Node) -> Diag {
        Diag::new(
            mate.pos,
            format!(
                "fixed joint `{}` cannot join `{}` and `{}`: the part of `{}` {} and the part of `{}` {}",
                mate.name,
                self.name(mate.from),
                self.name(mate.to),
                self.name(mate.from),
                self.describe(a),
                self.name(mate.to),
                self.describe(b)
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
