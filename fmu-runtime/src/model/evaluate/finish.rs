//! The checks that need the whole model, then the [`ModelSpec`]: object references
//! resolved, parents and roots, SNAP placement by mates, parent chains, joints and drives.

use super::*;

impl<'a> Evaluator<'a> {
    pub(super) fn resolve(
        &self,
        r: &ObjRef,
        index: &HashMap<String, usize>,
    ) -> Result<String, Diag> {
        if r.path == WORLD {
            return Ok(WORLD.to_string());
        }
        let full = format!("{}{}", r.prefix, r.path);
        if index.contains_key(&full) {
            return Ok(full);
        }
        if let Some((_, kind)) = self.names.get(&full) {
            return Err(Diag::new(
                r.pos,
                format!("`{}` is a {kind}, not an object", r.path),
            ));
        }
        // `owner.connector` of a known object: suggest among that object's connectors.
        if let Some((owner, connector)) = full.rsplit_once('.') {
            if index.contains_key(owner) {
                let connectors: Vec<&str> = self
                    .objects
                    .iter()
                    .filter(|o| o.connector)
                    .filter_map(|o| o.spec.name.strip_prefix(owner)?.strip_prefix('.'))
                    .collect();
                let help = did_you_mean(connector, connectors.iter().copied()).or_else(|| {
                    Some(if connectors.is_empty() {
                        format!("declare it in object `{owner}`: `mate {connector} {{ main_axis = z }}`")
                    } else {
                        format!("the connectors of `{owner}` are: {}", connectors.join(", "))
                    })
                });
                return Err(Diag::new(
                    r.pos,
                    format!("object `{owner}` has no mate connector `{connector}`"),
                )
                .with_help(help));
            }
        }
        let local: Vec<&str> = self
            .objects
            .iter()
            .filter_map(|o| o.spec.name.strip_prefix(r.prefix.as_str()))
            .chain([WORLD])
            .collect();
        let inside = if r.prefix.is_empty() {
            String::new()
        } else {
            format!(" in instance `{}`", r.prefix.trim_end_matches('.'))
        };
        Err(
            Diag::new(r.pos, format!("unknown object `{}`{inside}", r.path))
                .with_help(did_you_mean(&r.path, local)),
        )
    }

    /// The object at the root of the rigid group of `name` (`world` for world-attached groups).
    pub(super) fn root(&self, name: &str, index: &HashMap<String, usize>) -> String {
        let mut cur = name.to_string();
        for _ in 0..=self.objects.len() {
            match index
                .get(&cur)
                .and_then(|&i| self.objects[i].spec.parent.clone())
            {
                Some(p) => cur = p,
                None => return cur,
            }
        }
        cur
    }

    /// Places the objects without `parent` that rigid mates determine (see [`snap`]) and
    /// writes their new parents and placements.
    pub(super) fn snap(
        &mut self,
        index: &HashMap<String, usize>,
        rigid_mates: &[RigidMate],
        moving: &[MovingJoint],
    ) -> Result<(Vec<SnappedSpec>, Vec<RedundantMateSpec>), Diag> {
        let node = |name: &str| match index.get(name) {
            Some(&i) => Node::Object(i),
            None => Node::World,
        };
        let mut frames: Vec<Frame> = self
            .objects
            .iter()
            .map(|o| Frame {
                name: o.spec.name.clone(),
                parent: o.spec.parent.as_deref().map(node),
                pose: Isometry3::from_parts(o.spec.position.into(), o.spec.rotation),
                connector: o.connector,
                parent_line: o.parent.as_ref().map_or(0, |r| r.pos.line),
            })
            .collect();
        let mates: Vec<Mate> = rigid_mates
            .iter()
            .map(|(name, from, to, position, rotation, pos)| Mate {
                name: name.clone(),
                from: node(from),
                to: node(to),
                offset: Isometry3::from_parts((*position).into(), *rotation),
                pos: *pos,
            })
            .collect();
        let movers: Vec<Mover> = moving
            .iter()
            .filter(|m| !matches!(m.3, JointKind::Spherical))
            .map(|m| Mover {
                name: m.0.clone(),
                to: node(&m.2),
                line: m.6.line,
            })
            .collect();
        let outcome = snap::snap(&mut frames, &mates, &movers)?;
        let mut snapped = Vec::new();
        for (object, mate) in outcome.placed {
            let frame = &frames[object];
            let spec = &mut self.objects[object].spec;
            spec.parent = frame.parent.map(|p| match p {
                Node::World => WORLD.to_string(),
                Node::Object(i) => frames[i].name.clone(),
            });
            spec.position = frame.pose.translation.vector;
            spec.rotation = frame.pose.rotation;
            snapped.push(SnappedSpec {
                object: frame.name.clone(),
                mate: mates[mate].name.clone(),
            });
        }
        let redundant = outcome
            .redundant
            .into_iter()
            .map(|r| RedundantMateSpec {
                name: mates[r.mate].name.clone(),
                position_error: r.position_error,
                angle_error: r.angle_error,
                determined_by: r.determined_by,
                location: self.location(mates[r.mate].pos),
            })
            .collect();
        Ok((snapped, redundant))
    }

    /// The root of every object's rigid group, as [`Self::root`], each parent chain walked once
    /// (chains placed by mates can be thousands of objects deep).
    pub(super) fn roots(&self, index: &HashMap<String, usize>) -> Vec<String> {
        let mut roots: Vec<Option<String>> = vec![None; self.objects.len()];
        for start in 0..self.objects.len() {
            let mut chain = Vec::new();
            let mut current = start;
            let root = loop {
                if let Some(known) = &roots[current] {
                    break known.clone();
                }
                chain.push(current);
                let object = &self.objects[current].spec;
                match object.parent.as_ref().map(|p| (p, index.get(p))) {
                    Some((_, Some(&parent))) if chain.len() <= self.objects.len() => {
                        current = parent
                    }
                    Some((parent, _)) if parent == WORLD => break WORLD.to_string(),
                    _ => break object.name.clone(),
                }
            };
            for i in chain {
                roots[i] = Some(root.clone());
            }
        }
        roots.into_iter().map(Option::unwrap_or_default).collect()
    }

    /// No loops in parent relations. Each object is walked up once: a walk stops at the world, at
    /// an object without parent, or at an object already known to have no loop above it, so long
    /// explicit chains cost linear time.
    pub(super) fn check_parent_chains(&self, index: &HashMap<String, usize>) -> Result<(), Diag> {
        #[derive(Clone, Copy, PartialEq)]
        enum Walk {
            Unvisited,
            OnPath,
            LoopFree,
        }
        let mut walk = vec![Walk::Unvisited; self.objects.len()];
        for start in 0..self.objects.len() {
            let mut path = Vec::new();
            let mut cur = Some(start);
            while let Some(i) = cur {
                match walk[i] {
                    Walk::LoopFree => break,
                    Walk::OnPath => {
                        // The loop is the part of the path from `i` on, closed by `i` again.
                        let first = path.iter().position(|&k| k == i).unwrap_or(0);
                        let names: Vec<&str> = path[first..]
                            .iter()
                            .chain(std::iter::once(&i))
                            .map(|&k| self.objects[k].spec.name.as_str())
                            .collect();
                        return Err(Diag::new(
                            self.objects[i].pos,
                            format!("the parent relations form a loop: {}", names.join(" → ")),
                        ));
                    }
                    Walk::Unvisited => {
                        walk[i] = Walk::OnPath;
                        path.push(i);
                        cur = match self.objects[i].spec.parent.as_deref() {
                            None | Some(WORLD) => None,
                            Some(p) => index.get(p).copied(),
                        };
                    }
                }
            }
            for k in path {
                walk[k] = Walk::LoopFree;
            }
        }
        Ok(())
    }

    pub(super) fn finish(mut self) -> Result<ModelSpec, Diag> {
        let index: HashMap<String, usize> = self
            .objects
            .iter()
            .enumerate()
            .map(|(i, o)| (o.spec.name.clone(), i))
            .collect();
        // Parents as written.
        for i in 0..self.objects.len() {
            if let Some(r) = self.objects[i].parent.clone() {
                let p = self.resolve(&r, &index)?;
                if p == self.objects[i].spec.name {
                    return Err(Diag::new(
                        r.pos,
                        format!("object `{p}` cannot be its own parent"),
                    ));
                }
                self.objects[i].spec.parent = Some(p);
            }
        }
        // Fixed joints are rigid mates; the others move their `to` part.
        let mut joints = Vec::new();
        let mut moving = Vec::new();
        let mut rigid_mates = Vec::new();
        for j in std::mem::take(&mut self.joints) {
            let from = self.resolve(&j.from, &index)?;
            let to = self.resolve(&j.to, &index)?;
            if to == WORLD {
                return Err(Diag::new(
                    j.to.pos,
                    format!(
                        "joint `{}`: `to` cannot be the world; swap `from` and `to`",
                        j.name
                    ),
                ));
            }
            if from == to {
                return Err(Diag::new(
                    j.to.pos,
                    format!("joint `{}` connects object `{to}` to itself", j.name),
                ));
            }
            match j.kind {
                RawJointKind::Fixed { position, rotation } => {
                    rigid_mates.push((j.name, from, to, position, rotation, j.pos))
                }
                RawJointKind::Moving(kind) => moving.push((
                    j.name,
                    from,
                    to,
                    kind,
                    j.can_collide,
                    j.output_forces,
                    j.pos,
                    j.to.pos,
                    j.from.pos,
                )),
            }
        }
        self.check_parent_chains(&index)?;
        for o in &self.objects {
            if let (None, Some(pos)) = (&o.spec.parent, o.placement) {
                if let Some((mate, ..)) = rigid_mates.iter().find(|m| m.2 == o.spec.name) {
                    return Err(Diag::new(pos, format!("object `{}` is placed by fixed joint `{mate}`: give the position and rotation in the joint", o.spec.name)));
                }
                return Err(Diag::new(
                    pos,
                    format!(
                        "object `{}` has a position or rotation but no `parent`: a joint places it",
                        o.spec.name
                    ),
                )
                .with_help(Some(
                    "give it a `parent`, or give start values in its joint".into(),
                )));
            }
        }
        let (snapped, redundant_mates) = self.snap(&index, &rigid_mates, &moving)?;
        // Moving joints.
        let mut to_of: HashMap<String, (String, Pos)> = HashMap::new();
        let mut jointed_roots = HashSet::new();
        for (name, from, to, kind, can_collide, output_forces, pos, to_pos, from_pos) in moving {
            // A spherical joint only closes loops: it places nothing.
            if !matches!(kind, JointKind::Spherical) {
                if let Some((other, other_pos)) = to_of.get(&to) {
                    return Err(Diag::new(
                        to_pos,
                        format!("object `{to}` is already the `to` of joint `{other}` (line {}); an object can be moved by one joint only", other_pos.line),
                    ));
                }
                if self.root(&to, &index) == WORLD {
                    return Err(Diag::new(
                        to_pos,
                        format!("joint `{name}`: the `to` object `{to}` is rigidly attached to the world through its parents, so no joint can move it"),
                    )
                    .with_help(Some("swap `from` and `to`, or remove the `parent` of the moved object".into())));
                }
                if self.root(&from, &index) == self.root(&to, &index) {
                    return Err(Diag::new(
                        pos,
                        format!("joint `{name}` would move `{to}` relative to `{from}`, but both belong to one rigid part (through `parent` relations or fixed joints)"),
                    )
                    .with_help(Some("remove this joint, or the fixed joint or `parent` that joins the two parts".into())));
                }
                if matches!(kind, JointKind::Free { .. })
                    && from != WORLD
                    && self.root(&from, &index) != WORLD
                {
                    return Err(Diag::new(
                        from_pos,
                        format!("free joint `{name}`: `from` object `{from}` must be rigidly attached to the world"),
                    ));
                }
                to_of.insert(to.clone(), (name.clone(), pos));
                jointed_roots.insert(self.root(&to, &index));
            }
            joints.push(JointSpec {
                name,
                from,
                to,
                kind,
                can_collide,
                output_forces,
                location: self.location(pos),
            });
        }
        // Every object hangs from the world or from a joint.
        let roots = self.roots(&index);
        for (o, r) in self.objects.iter().zip(&roots) {
            if r != WORLD && !jointed_roots.contains(r) {
                return Err(Diag::new(
                    o.pos,
                    format!("object `{}` is not connected: give it a parent or make it the `to` of a joint", o.spec.name),
                )
                .with_help(Some("a `fixed` joint from one of its mate connectors to a connector of a placed part places it too".into())));
            }
        }
        let mut forces = Vec::new();
        for f in &self.forces {
            let from = self.resolve(&f.from, &index)?;
            let to = self.resolve(&f.to, &index)?;
            if from == to {
                return Err(Diag::new(
                    f.to.pos,
                    format!(
                        "force element `{}` connects object `{to}` to itself",
                        f.name
                    ),
                ));
            }
            forces.push(ForceSpec {
                name: f.name.clone(),
                from,
                to,
                kind: f.kind.clone(),
                location: self.location(f.pos),
            });
        }
        let mut contact_outputs = Vec::new();
        for (name, from, to, pos) in &self.raw_contact_outputs {
            contact_outputs.push(ContactOutputSpec {
                name: name.clone(),
                from: self.resolve(from, &index)?,
                to: self.resolve(to, &index)?,
                location: self.location(*pos),
            });
        }
        check_followers(&joints)?;
        let mut drives = Vec::new();
        let mut driven = HashMap::new();
        for raw in std::mem::take(&mut self.drives) {
            drives.push(self.drive(&raw, &joints, &mut driven)?);
        }
        // Structural parameters and what they are computed from.
        let mut stack = std::mem::take(&mut self.structural_roots);
        while let Some(i) = stack.pop() {
            if !self.params[i].spec.structural {
                self.params[i].spec.structural = true;
                stack.extend(self.params[i].deps.iter().copied());
            }
        }
        if let Some(k) = self.used.iter().position(|u| !u) {
            let name = &self.overrides[k].0;
            let names: Vec<&str> = self.params.iter().map(|p| p.spec.name.as_str()).collect();
            return Err(Diag::new(
                Pos::default(),
                format!("there is no parameter `{name}` to set"),
            )
            .with_help(did_you_mean(name, names)));
        }
        let (name, description) = match self.model.take() {
            Some((n, d, _)) => (n, d),
            None => (default_model_name(self.file), None),
        };
        Ok(ModelSpec {
            name,
            description,
            parameters: self.params.into_iter().map(|p| p.spec).collect(),
            gravity: self.gravity.map(|g| g.0).unwrap_or_default(),
            experiment: self.experiment.map(|e| e.0).unwrap_or_default(),
            objects: self.objects.into_iter().map(|o| o.spec).collect(),
            joints,
            forces,
            contact_pairs: self.contact_pairs,
            contact_outputs,
            snapped,
            redundant_mates,
            drives,
        })
    }
}

/// Every `follows` names a revolute or prismatic joint that has coordinates of its own: not
/// motion-driven, not itself a follower, not the follower.
fn check_followers(joints: &[JointSpec]) -> Result<(), Diag> {
    let follows = |kind: &JointKind| match kind {
        JointKind::Revolute { follows, .. } | JointKind::Prismatic { follows, .. } => {
            follows.clone()
        }
        _ => None,
    };
    for joint in joints {
        let Some(follow) = follows(&joint.kind) else {
            continue;
        };
        let at = Pos {
            line: follow.location.line,
            column: follow.location.column,
        };
        let fail = |message: String| {
            Err(Diag::new(
                at,
                format!(
                    "joint `{}` follows `{}`: {message}",
                    joint.name, follow.leader
                ),
            ))
        };
        let Some(leader) = joints.iter().find(|j| j.name == follow.leader) else {
            return Err(Diag::new(
                at,
                format!(
                    "joint `{}`: there is no joint named `{}` to follow",
                    joint.name, follow.leader
                ),
            )
            .with_help(did_you_mean(
                &follow.leader,
                joints.iter().map(|j| j.name.as_str()),
            )));
        };
        if leader.name == joint.name {
            return fail("a joint cannot follow itself".into());
        }
        match &leader.kind {
            JointKind::Revolute { flange, motion, .. }
            | JointKind::Prismatic { flange, motion, .. } => {
                if motion.is_some() || *flange == FlangeMode::Motion {
                    return fail("the leader is motion-driven; a follower needs a leader with coordinates of its own (prescribe the follower's motion instead)".into());
                }
                if follows(&leader.kind).is_some() {
                    return fail(
                        "the leader follows another joint itself; let both follow the first".into(),
                    );
                }
            }
            _ => return fail("a joint follows a revolute or prismatic joint".into()),
        }
    }
    Ok(())
}
