//! Joints (tree joints and the loop-closing `cut` ones) and force elements, as written;
//! checked against the whole model in `finish`.

use super::*;

/// The fields of revolute and prismatic joints: the same but for the names of their
/// coordinate and speed.
const ONE_AXIS_FIELDS: [[&str; 21]; 2] = {
    const fn fields(
        q: &'static str,
        v: &'static str,
        q_guess: &'static str,
        v_guess: &'static str,
    ) -> [&'static str; 21] {
        [
            "from",
            "to",
            "axis",
            q,
            v,
            q_guess,
            v_guess,
            "flange",
            "spring",
            "spring_rest",
            "damper",
            "lower",
            "upper",
            "stop_stiffness",
            "stop_damping",
            "follows",
            "follow_ratio",
            "follow_offset",
            "can_collide",
            "output_forces",
            "motion",
        ]
    }
    [
        fields("phi", "w", "phi_guess", "w_guess"),
        fields("s", "v", "s_guess", "v_guess"),
    ]
};

impl<'a> Evaluator<'a> {
    /// A revolute or prismatic joint that follows another (`follows`, `follow_ratio`,
    /// `follow_offset` of the quantity `k_pos`): it has no start values or flange of its own.
    fn follows(
        &mut self,
        f: &Fields,
        scope: &Scope,
        (q_name, v_name): (&str, &str),
        k_pos: Kind,
    ) -> Result<Option<Follow>, Diag> {
        let Some(e) = f.get("follows") else {
            for field in ["follow_ratio", "follow_offset"] {
                if let Some(pos) = f.pos_of(field) {
                    return Err(Diag::new(
                        pos,
                        format!("`{field}` belongs to `follows`: give the joint it follows"),
                    ));
                }
            }
            return Ok(None);
        };
        let at = f.pos_of("follows").unwrap_or(e.pos);
        let ExprKind::Name(path) = &e.kind else {
            return Err(Diag::new(e.pos, "`follows` expects the name of a joint"));
        };
        for field in [q_name, v_name, "flange", "motion"] {
            let guess = format!("{field}_guess");
            let given = if f.pos_of(field).is_some() {
                field
            } else {
                guess.as_str()
            };
            if let Some(pos) = f.pos_of(field).or(f.pos_of(&guess)) {
                return Err(Diag::new(
                    pos,
                    format!(
                        "a joint that `follows` another moves with it: `{given}` cannot be given"
                    ),
                )
                .with_help(Some(format!(
                    "remove it; the leader's coordinate sets this joint's (`follows`, line {})",
                    at.line
                ))));
            }
        }
        let written = self.render_path(path, scope)?;
        let ratio = match f.get("follow_ratio") {
            Some(e) => self.num(e, scope, Kind::Dimensionless, "follow_ratio")?,
            None => 1.0,
        };
        if ratio == 0.0 {
            return Err(Diag::new(
                f.pos_of("follow_ratio").unwrap_or(at),
                "`follow_ratio` must not be zero (the follower's coordinate per the leader's)",
            ));
        }
        let offset = match f.get("follow_offset") {
            Some(e) => self.num(e, scope, k_pos, "follow_offset")?,
            None => 0.0,
        };
        Ok(Some(Follow {
            leader: format!("{}{written}", scope.prefix),
            ratio,
            offset,
            location: self.location(at),
        }))
    }

    /// A revolute or prismatic joint's end stops (`lower`, `upper`, `stop_stiffness`,
    /// `stop_damping`), of the quantities `kinds` (coordinate, stiffness, damping); `None`
    /// without `lower` and `upper`.
    fn end_stop(
        &self,
        f: &Fields,
        scope: &Scope,
        what: &str,
        (k_pos, k_c, k_d): (Kind, Kind, Kind),
    ) -> Result<Option<EndStop>, Diag> {
        let side = |field: &str, none: f64| match f.get(field) {
            Some(e) => self.num(e, scope, k_pos, field),
            None => Ok(none),
        };
        let (lower, upper) = (
            side("lower", f64::NEG_INFINITY)?,
            side("upper", f64::INFINITY)?,
        );
        let Some(range_at) = f.pos_of("lower").or(f.pos_of("upper")) else {
            for field in ["stop_stiffness", "stop_damping"] {
                if let Some(pos) = f.pos_of(field) {
                    return Err(Diag::new(pos, format!("{what}: `{field}` belongs to an end stop: give `lower`, `upper` or both")));
                }
            }
            return Ok(None);
        };
        if lower >= upper {
            return Err(Diag::new(
                f.pos_of("upper").unwrap_or(range_at),
                format!("{what}: `lower` ({lower}) must be less than `upper` ({upper})"),
            ));
        }
        let Some(e) = f.get("stop_stiffness") else {
            return Err(Diag::new(
                range_at,
                format!("{what}: an end stop needs `stop_stiffness`"),
            )
            .with_help(Some(
                "the stop is a spring while the joint is past `lower` or `upper`: for example the \
                 torque (force) it must hold divided by the overtravel allowed there; \
                 `stop_damping` (default 0) damps its bounce"
                    .into(),
            )));
        };
        let stiffness = self.positive(e, scope, k_c, "stop_stiffness")?;
        let damping = match f.get("stop_damping") {
            Some(e) => self.non_negative(e, scope, k_d, "stop_damping")?,
            None => 0.0,
        };
        Ok(Some(EndStop {
            lower,
            upper,
            stiffness,
            damping,
        }))
    }

    pub(super) fn joint(
        &mut self,
        d: &DeclName,
        kind: &Ident,
        body: &Block,
        scope: &Scope,
    ) -> Result<(), Diag> {
        const KINDS: [&str; 8] = [
            "revolute",
            "prismatic",
            "free",
            "fixed",
            "spherical",
            "universal",
            "cylindrical",
            "planar",
        ];
        let full = self.declare_kind(d, kind, scope, &KINDS, "joint kind", "joint")?;
        let what = format!("{} joint `{full}`", kind.name);
        let allowed: &[&str] = match kind.name.as_str() {
            "revolute" => &ONE_AXIS_FIELDS[0],
            "prismatic" => &ONE_AXIS_FIELDS[1],
            "free" => &[
                "from",
                "to",
                "position",
                "rotation",
                "v",
                "w",
                "can_collide",
            ],
            "spherical" => &["from", "to", "can_collide", "output_forces"],
            "universal" => &[
                "from",
                "to",
                "axis_a",
                "axis_b",
                "phi_a",
                "phi_b",
                "w_a",
                "w_b",
                "phi_a_guess",
                "phi_b_guess",
                "w_a_guess",
                "w_b_guess",
                "flange",
                "can_collide",
            ],
            "cylindrical" => &[
                "from",
                "to",
                "axis",
                "s",
                "phi",
                "v",
                "w",
                "s_guess",
                "phi_guess",
                "v_guess",
                "w_guess",
                "flange",
                "can_collide",
            ],
            "planar" => &[
                "from",
                "to",
                "normal",
                "axis_x",
                "s_x",
                "s_y",
                "phi",
                "v_x",
                "v_y",
                "w",
                "s_x_guess",
                "s_y_guess",
                "phi_guess",
                "v_x_guess",
                "v_y_guess",
                "w_guess",
                "flange",
                "can_collide",
            ],
            _ => &["from", "to", "position", "rotation"],
        };
        let f = Fields::new(body, allowed, &[], &what)?;
        let from = self.obj_ref(f.require("from", d.base.pos)?, scope, "from")?;
        let to = self.obj_ref(f.require("to", d.base.pos)?, scope, "to")?;
        // A free joint is no physical connection: the bodies it relates collide by default.
        let can_collide = match f.get("can_collide") {
            Some(e) => self.boolean(e, scope, "can_collide")?,
            None => kind.name == "free",
        };
        let output_forces = match f.get("output_forces") {
            Some(e) => self.boolean(e, scope, "output_forces")?,
            None => false,
        };
        let num_or = |s: &Self, field: &str, k: Kind, default: f64| -> Result<f64, Diag> {
            match f.get(field) {
                Some(e) => s.num(e, scope, k, field),
                None => Ok(default),
            }
        };
        let vec_or = |s: &Self, field: &str, k: Kind| -> Result<Vector3<f64>, Diag> {
            match f.get(field) {
                Some(e) => s.vec3(e, scope, k, field),
                None => Ok(Vector3::zeros()),
            }
        };
        let rotation = match f.get("rotation") {
            Some(e) => self.rotation(e, scope, "rotation")?,
            None => UnitQuaternion::identity(),
        };
        // A start value is fixed when given, a guess when given as `NAME_guess`.
        let start = |s: &Self, name: &str, k: Kind| -> Result<(f64, bool), Diag> {
            let guess = format!("{name}_guess");
            match (f.get(name), f.get(&guess)) {
                (Some(_), Some(_)) => Err(Diag::new(
                    f.pos_of(&guess).unwrap_or(d.base.pos),
                    format!("`{name}` fixes the start value and `{guess}` makes it a guess: give one of them"),
                )),
                (Some(e), None) => Ok((s.num(e, scope, k, name)?, true)),
                (None, Some(e)) => Ok((s.num(e, scope, k, &guess)?, false)),
                (None, None) => Ok((0.0, false)),
            }
        };
        let axis_or = |s: &Self, field: &str, default: Vector3<f64>| match f.get(field) {
            Some(e) => s.axis(e, scope, field),
            None => Ok(default),
        };
        let kind = match kind.name.as_str() {
            "universal" | "cylindrical" | "planar" => {
                let compound = match kind.name.as_str() {
                    "universal" => CompoundKind::Universal,
                    "cylindrical" => CompoundKind::Cylindrical,
                    _ => CompoundKind::Planar,
                };
                // Two directions that must be perpendicular (Modelica's defaults otherwise).
                let perpendicular = |s: &Self,
                                     (a, da): (&str, Vector3<f64>),
                                     (b, db): (&str, Vector3<f64>)|
                 -> Result<(Vector3<f64>, Vector3<f64>), Diag> {
                    let (u, v) = (
                        axis_or(s, a, da)?.normalize(),
                        axis_or(s, b, db)?.normalize(),
                    );
                    if u.dot(&v).abs() > 1e-9 {
                        return Err(Diag::new(
                            f.pos_of(b).or(f.pos_of(a)).unwrap_or(d.base.pos),
                            format!("{what}: `{a}` and `{b}` must be perpendicular (their angle is {:.6} deg)", u.dot(&v).clamp(-1.0, 1.0).acos().to_degrees()),
                        ));
                    }
                    Ok((u, v))
                };
                let layout: Vec<(AxisMotion, Vector3<f64>, [&'static str; 4])> = match compound {
                    CompoundKind::Universal => {
                        let (a, b) = perpendicular(
                            self,
                            ("axis_a", Vector3::x()),
                            ("axis_b", Vector3::y()),
                        )?;
                        vec![
                            (AxisMotion::Turn, a, ["phi_a", "w_a", "a_a", "tau_a"]),
                            (AxisMotion::Turn, b, ["phi_b", "w_b", "a_b", "tau_b"]),
                        ]
                    }
                    CompoundKind::Cylindrical => {
                        let n = axis_or(self, "axis", Vector3::x())?.normalize();
                        vec![
                            (AxisMotion::Slide, n, ["s", "v", "a", "f"]),
                            (AxisMotion::Turn, n, ["phi", "w", "wd", "tau"]),
                        ]
                    }
                    CompoundKind::Planar => {
                        let (n, x) = perpendicular(
                            self,
                            ("normal", Vector3::z()),
                            ("axis_x", Vector3::x()),
                        )?;
                        vec![
                            (AxisMotion::Slide, x, ["s_x", "v_x", "a_x", "f_x"]),
                            (AxisMotion::Slide, n.cross(&x), ["s_y", "v_y", "a_y", "f_y"]),
                            (AxisMotion::Turn, n, ["phi", "w", "wd", "tau"]),
                        ]
                    }
                };
                let mut axes = Vec::with_capacity(layout.len());
                for (motion, direction, names) in layout {
                    let (k_pos, k_vel) = match motion {
                        AxisMotion::Turn => (Kind::Angle, Kind::AngularVelocity),
                        AxisMotion::Slide => (Kind::Length, Kind::Velocity),
                    };
                    let (q, position) = start(self, names[0], k_pos)?;
                    let (qd, speed) = start(self, names[1], k_vel)?;
                    axes.push(AxisSpec {
                        motion,
                        direction,
                        names,
                        q,
                        qd,
                        fixed: StartFixed { position, speed },
                    });
                }
                // Every axis passive, or every axis driven by a torque (force) input.
                let flange = match f.get("flange") {
                    Some(e) => match self.word(e, &["passive", "force"], "flange")? {
                        "force" => FlangeMode::Force,
                        _ => FlangeMode::Passive,
                    },
                    None => FlangeMode::Passive,
                };
                RawJointKind::Moving(JointKind::Compound {
                    kind: compound,
                    axes,
                    flange,
                })
            }
            "revolute" | "prismatic" => {
                let revolute = kind.name == "revolute";
                let axis = axis_or(
                    self,
                    "axis",
                    if revolute { Vector3::z() } else { Vector3::x() },
                )?;
                let mut flange = match f.get("flange") {
                    Some(e) => match self.word(e, &["passive", "force", "motion"], "flange")? {
                        "force" => FlangeMode::Force,
                        "motion" => FlangeMode::Motion,
                        _ => FlangeMode::Passive,
                    },
                    None => FlangeMode::Passive,
                };
                let (k_pos, k_vel, k_c, k_d) = if revolute {
                    (
                        Kind::Angle,
                        Kind::AngularVelocity,
                        Kind::RotationalStiffness,
                        Kind::RotationalDamping,
                    )
                } else {
                    (
                        Kind::Length,
                        Kind::Velocity,
                        Kind::TranslationalStiffness,
                        Kind::TranslationalDamping,
                    )
                };
                let (q_name, v_name) = if revolute { ("phi", "w") } else { ("s", "v") };
                let motion = match f.get("motion") {
                    Some(e) => {
                        let at = f.pos_of("motion").unwrap_or(e.pos);
                        for field in [
                            q_name, v_name, "flange", "spring", "damper", "lower", "upper",
                        ] {
                            let guess = format!("{field}_guess");
                            if let Some(pos) = f.pos_of(field).or(f.pos_of(&guess)) {
                                return Err(Diag::new(pos, format!("`motion` prescribes how joint `{full}` moves: `{}` cannot be given with it", if f.pos_of(field).is_some() { field } else { &guess })).with_help(Some(format!("remove it; `motion` (line {}) fixes the start values and the drive", at.line))));
                            }
                        }
                        if let Some((kind, text, pos)) = motion::outer_unit(e) {
                            if kind != k_pos {
                                return Err(Diag::new(pos, format!("`motion` expects the quantity {}, but `{text}` is a unit of {}", k_pos.name(), kind.name())));
                            }
                        }
                        let function = motion::time_function(e, &self.env(scope))?;
                        flange = FlangeMode::Motion;
                        Some(function)
                    }
                    None => None,
                };
                let (q, q_fixed) = start(self, q_name, k_pos)?;
                let (v, v_fixed) = start(self, v_name, k_vel)?;
                let fixed = StartFixed {
                    position: q_fixed,
                    speed: v_fixed,
                };
                let spring = match f.get("spring") {
                    Some(e) => Some((
                        self.non_negative(e, scope, k_c, "spring")?,
                        num_or(self, "spring_rest", k_pos, 0.0)?,
                    )),
                    None => {
                        if let Some(pos) = f.pos_of("spring_rest") {
                            return Err(Diag::new(pos, "`spring_rest` is the unstretched position of a spring: give `spring` too"));
                        }
                        None
                    }
                };
                let damper = match f.get("damper") {
                    Some(e) => Some(self.non_negative(e, scope, k_d, "damper")?),
                    None => None,
                };
                let stop = self.end_stop(&f, scope, &what, (k_pos, k_c, k_d))?;
                let follows = self.follows(&f, scope, (q_name, v_name), k_pos)?;
                RawJointKind::Moving(if revolute {
                    JointKind::Revolute {
                        axis,
                        phi: q,
                        w: v,
                        fixed,
                        flange,
                        spring,
                        damper,
                        stop,
                        motion: motion.clone(),
                        follows: follows.clone(),
                    }
                } else {
                    JointKind::Prismatic {
                        axis,
                        s: q,
                        v,
                        fixed,
                        flange,
                        spring,
                        damper,
                        stop,
                        motion,
                        follows,
                    }
                })
            }
            "spherical" => RawJointKind::Moving(JointKind::Spherical),
            "free" => RawJointKind::Moving(JointKind::Free {
                position: vec_or(self, "position", Kind::Length)?,
                rotation,
                v: vec_or(self, "v", Kind::Velocity)?,
                w: vec_or(self, "w", Kind::AngularVelocity)?,
            }),
            _ => RawJointKind::Fixed {
                position: vec_or(self, "position", Kind::Length)?,
                rotation,
            },
        };
        self.joints.push(RawJoint {
            name: full,
            from,
            to,
            kind,
            can_collide,
            output_forces,
            pos: d.base.pos,
        });
        Ok(())
    }

    pub(super) fn force(
        &mut self,
        d: &DeclName,
        kind: &Ident,
        body: &Block,
        scope: &Scope,
    ) -> Result<(), Diag> {
        const KINDS: [&str; 3] = ["spring", "damper", "spring_damper"];
        let full = self.declare_kind(d, kind, scope, &KINDS, "force element", "force element")?;
        let what = format!("{} `{full}`", kind.name);
        let allowed: &[&str] = match kind.name.as_str() {
            "spring" => &["from", "to", "c", "length"],
            "damper" => &["from", "to", "d"],
            _ => &["from", "to", "c", "length", "d"],
        };
        let f = Fields::new(body, allowed, &[], &what)?;
        let from = self.obj_ref(f.require("from", d.base.pos)?, scope, "from")?;
        let to = self.obj_ref(f.require("to", d.base.pos)?, scope, "to")?;
        let c = |s: &Self| {
            s.non_negative(
                f.require("c", d.base.pos)?,
                scope,
                Kind::TranslationalStiffness,
                "c",
            )
        };
        let length = |s: &Self| match f.get("length") {
            Some(e) => s.non_negative(e, scope, Kind::Length, "length"),
            None => Ok(0.0),
        };
        let damping = |s: &Self| {
            s.non_negative(
                f.require("d", d.base.pos)?,
                scope,
                Kind::TranslationalDamping,
                "d",
            )
        };
        let kind = match kind.name.as_str() {
            "spring" => ForceKind::Spring {
                stiffness: c(self)?,
                length: length(self)?,
            },
            "damper" => ForceKind::Damper {
                damping: damping(self)?,
            },
            _ => ForceKind::SpringDamper {
                stiffness: c(self)?,
                length: length(self)?,
                damping: damping(self)?,
            },
        };
        self.forces.push(RawForce {
            name: full,
            from,
            to,
            kind,
            pos: d.base.pos,
        });
        Ok(())
    }
}
