//! `drive NAME { joint = J; ... }`: a source and one-dimensional elements in series, read once
//! every joint is known (the joint's kind decides whether the chain is rotational or
//! translational, and so the quantities of its fields).

use super::*;

/// A drive statement as written, evaluated when the model is finished.
pub(super) struct RawDrive<'a> {
    pub name: String,
    pub body: &'a Block,
    pub scope: Scope,
    pub pos: Pos,
}

/// The names and quantities of one domain's fields.
struct Domain {
    translational: bool,
    source: &'static str,
    inertia: &'static str,
    inertia_field: &'static str,
    position: &'static str,
    speed: &'static str,
    rest: &'static str,
    kinds: [Kind; 5],
}

const ROTATIONAL: Domain = Domain {
    translational: false,
    source: "torque",
    inertia: "inertia",
    inertia_field: "J",
    position: "phi",
    speed: "w",
    rest: "phi_rel0",
    // inertia, position, speed, stiffness, damping
    kinds: [
        Kind::Inertia,
        Kind::Angle,
        Kind::AngularVelocity,
        Kind::RotationalStiffness,
        Kind::RotationalDamping,
    ],
};

const TRANSLATIONAL: Domain = Domain {
    translational: true,
    source: "force",
    inertia: "mass",
    inertia_field: "m",
    position: "s",
    speed: "v",
    rest: "s_rel0",
    kinds: [
        Kind::Mass,
        Kind::Length,
        Kind::Velocity,
        Kind::TranslationalStiffness,
        Kind::TranslationalDamping,
    ],
};

impl Evaluator<'_> {
    /// An expression of the time `t` whose outer unit, if any, is of quantity `kind`.
    fn function_of_time(
        &self,
        e: &Expr,
        scope: &Scope,
        kind: Kind,
        field: &str,
    ) -> Result<motion::TimeFunction, Diag> {
        if let Some((unit_kind, text, pos)) = motion::outer_unit(e) {
            if unit_kind != kind {
                return Err(Diag::new(
                    pos,
                    format!(
                        "`{field}` expects {}, but `{text}` is a unit of {}",
                        kind.with_article(),
                        unit_kind.name()
                    ),
                ));
            }
        }
        motion::time_function(e, &self.env(scope))
    }

    /// The drive's chain, checked against its joint: the joint exists, is revolute or prismatic,
    /// passive, and has no other drive (`driven` holds the joints that already have one).
    pub(super) fn drive(
        &mut self,
        raw: &RawDrive,
        joints: &[JointSpec],
        driven: &mut HashMap<String, String>,
    ) -> Result<DriveSpec, Diag> {
        let what = format!("drive `{}`", raw.name);
        let scope = &raw.scope;
        let joint_field = raw.body.entries.iter().find_map(|entry| match entry {
            Entry::Field { name, value } if name.name == "joint" => Some((name, value)),
            _ => None,
        });
        let Some((_, joint_expr)) = joint_field else {
            return Err(Diag::new(
                raw.pos,
                format!("{what} needs the field `joint`"),
            ));
        };
        let ExprKind::Name(path) = &joint_expr.kind else {
            return Err(Diag::new(
                joint_expr.pos,
                "`joint` expects the name of a joint",
            ));
        };
        let written = self.render_path(path, scope)?;
        let full = format!("{}{written}", scope.prefix);
        let Some(joint) = joints.iter().find(|j| j.name == full) else {
            return Err(Diag::new(
                joint_expr.pos,
                format!("{what}: there is no joint named `{written}`"),
            )
            .with_help(did_you_mean(&full, joints.iter().map(|j| j.name.as_str()))));
        };
        let at_joint = |message: String| Diag::new(joint_expr.pos, message);
        let domain = match &joint.kind {
            JointKind::Revolute { flange, motion, follows, .. }
            | JointKind::Prismatic { flange, motion, follows, .. } => {
                if let Some(follow) = follows {
                    return Err(at_joint(format!("{what}: joint `{full}` follows joint `{}`: it moves with it, so a drive cannot act on it", follow.leader)).with_help(Some(format!("let the drive act on `{}`", follow.leader))));
                }
                if motion.is_some() || *flange == FlangeMode::Motion {
                    return Err(at_joint(format!("{what}: joint `{full}` is motion-driven: its motion is prescribed, so a drive cannot act on it")).with_help(Some(format!("remove `flange` and `motion` from joint `{full}`"))));
                }
                if *flange == FlangeMode::Force {
                    return Err(at_joint(format!("{what}: joint `{full}` is torque-driven (`flange = force`): its flange is already driven by an input")).with_help(Some(format!("remove `flange = force` from joint `{full}`; the drive's source gives the torque"))));
                }
                if matches!(joint.kind, JointKind::Revolute { .. }) {
                    &ROTATIONAL
                } else {
                    &TRANSLATIONAL
                }
            }
            _ => {
                return Err(at_joint(format!(
                    "{what}: joint `{full}` has no flange; a drive acts on a revolute or prismatic joint"
                )))
            }
        };
        if let Some(other) = driven.insert(full.clone(), raw.name.clone()) {
            return Err(at_joint(format!(
                "{what}: joint `{full}` is already driven by drive `{other}`; a joint's flange takes one drive"
            )));
        }
        let mut source = DriveSource::None;
        let mut elements = Vec::new();
        // Inertia [kg.m2] of the part since the last compliant element (or the source).
        let mut part_inertia = 0.0;
        for entry in &raw.body.entries {
            let (keyword, kind, body) = match entry {
                Entry::Field { name, .. } if name.name == "joint" => continue,
                Entry::Field { name, .. } => {
                    return Err(Diag::new(
                        name.pos,
                        format!("unknown field `{}` in {what}: a drive has the field `joint` and its elements as blocks (`{} {{ ... }}`)", name.name, domain.inertia),
                    ))
                }
                Entry::Sub {
                    keyword,
                    kind,
                    body,
                } => (keyword, kind, body),
            };
            let k = keyword.name.as_str();
            let element_what = format!("`{k}` of {what}");
            let mut blocks = vec![domain.source, domain.inertia, "spring", "damper"];
            if !domain.translational {
                blocks.extend(["motor", "gear"]);
            }
            if !blocks.contains(&k) {
                let other = if domain.translational {
                    ["motor", "gear", "torque", "inertia"].contains(&k).then_some(
                        "on a prismatic joint the chain carries forces: its elements are `force`, `mass`, `spring` and `damper`",
                    )
                } else {
                    ["force", "mass"].contains(&k).then_some(
                        "on a revolute joint the chain carries torques: its elements are `torque`, `motor`, `inertia`, `gear`, `spring` and `damper`",
                    )
                };
                return Err(
                    Diag::new(keyword.pos, format!("unknown element `{k}` in {what}")).with_help(
                        other
                            .map(str::to_string)
                            .or_else(|| did_you_mean(k, blocks.iter().copied())),
                    ),
                );
            }
            no_kind(kind.as_ref(), k)?;
            let is_source = k == domain.source || k == "motor";
            if is_source && (source != DriveSource::None || !elements.is_empty()) {
                return Err(Diag::new(
                    keyword.pos,
                    format!("{element_what}: the source (`{}` or `motor`) must be the first element of the drive, and only one", domain.source),
                ));
            }
            let allowed: &[&str] = match k {
                "motor" => &["R", "L", "k", "J", "i", "v"],
                "gear" => &["ratio"],
                "spring" => &["c", "d", domain.rest],
                "damper" => &["d"],
                _ if k == domain.inertia => &[domain.inertia_field, domain.position, domain.speed],
                _ => &[],
            };
            let subs: &[&str] = if k == "motor" {
                &["speed_control"]
            } else {
                &[]
            };
            let f = Fields::new(body, allowed, subs, &element_what)?;
            let number = |field: &str, kind: Kind, default: Option<f64>| -> Result<f64, Diag> {
                match (f.get(field), default) {
                    (Some(e), _) => self.num(e, scope, kind, field),
                    (None, Some(d)) => Ok(d),
                    (None, None) => Err(Diag::new(
                        keyword.pos,
                        format!("{element_what} needs the field `{field}`"),
                    )),
                }
            };
            let non_negative = |field: &str, kind: Kind, default: Option<f64>| match f.get(field) {
                Some(e) => self.non_negative(e, scope, kind, field),
                None => number(field, kind, default),
            };
            let location = self.location(keyword.pos);
            match k {
                "motor" => {
                    let resistance = non_negative("R", Kind::Resistance, None)?;
                    let inductance = match f.get("L") {
                        Some(e) => self.positive(e, scope, Kind::Inductance, "L")?,
                        None => number("L", Kind::Inductance, None)?,
                    };
                    let k_motor = number("k", Kind::MotorConstant, None)?;
                    let inertia = non_negative("J", Kind::Inertia, Some(0.0))?;
                    let current = number("i", Kind::Current, Some(0.0))?;
                    let voltage = match (f.get("v"), f.sub("speed_control")) {
                        (Some(_), Some((control, _, _))) => {
                            return Err(Diag::new(control.pos, format!("{element_what}: `v` gives the voltage, so a `speed_control` cannot set it: give one of them")));
                        }
                        (Some(e), None) => MotorVoltage::Function(self.function_of_time(
                            e,
                            scope,
                            Kind::Voltage,
                            "v",
                        )?),
                        (None, Some((control, kind, block))) => {
                            no_kind(kind, "speed_control")?;
                            let what = format!("`speed_control` of {what}");
                            let c =
                                Fields::new(block, &["w_ref", "Kp", "Ki", "v_max"], &[], &what)?;
                            let gain = |field: &str| -> Result<f64, Diag> {
                                self.num(
                                    c.require(field, control.pos)?,
                                    scope,
                                    Kind::Dimensionless,
                                    field,
                                )
                            };
                            let kp = gain("Kp")?;
                            if kp <= 0.0 {
                                return Err(Diag::new(
                                    c.pos_of("Kp").unwrap_or(control.pos),
                                    format!("{what}: `Kp` must be greater than zero, found {kp}"),
                                ));
                            }
                            MotorVoltage::SpeedControl(SpeedControlSpec {
                                w_ref: self.function_of_time(
                                    c.require("w_ref", control.pos)?,
                                    scope,
                                    Kind::AngularVelocity,
                                    "w_ref",
                                )?,
                                kp,
                                ki: gain("Ki")?,
                                v_max: self.positive(
                                    c.require("v_max", control.pos)?,
                                    scope,
                                    Kind::Voltage,
                                    "v_max",
                                )?,
                            })
                        }
                        (None, None) => MotorVoltage::Input,
                    };
                    part_inertia += inertia;
                    source = DriveSource::Motor(DcMotorSpec {
                        resistance,
                        inductance,
                        k: k_motor,
                        inertia,
                        current,
                        voltage,
                    });
                }
                "gear" => {
                    let e = f.require("ratio", keyword.pos)?;
                    let ratio = self.num(e, scope, Kind::Dimensionless, "ratio")?;
                    if ratio == 0.0 {
                        return Err(Diag::new(
                            e.pos,
                            format!("{element_what}: `ratio` must not be zero (it is the speed on the source side over the speed on the flange side)"),
                        ));
                    }
                    // What comes before the gear turns `ratio` times faster.
                    part_inertia *= ratio * ratio;
                    elements.push(DriveElement::Gear { ratio });
                }
                "spring" | "damper" => {
                    if part_inertia <= 0.0 {
                        return Err(Diag::new(
                            keyword.pos,
                            format!("{element_what}: the part of the drive before this {k} has no inertia, so nothing would move it dynamically"),
                        )
                        .with_help(Some(format!("put an `{}` (or a motor with `J`) before the {k}", domain.inertia))));
                    }
                    let [_, _, _, k_c, k_d] = domain.kinds;
                    let stiffness = if k == "spring" {
                        non_negative("c", k_c, None)?
                    } else {
                        0.0
                    };
                    let damping =
                        non_negative("d", k_d, if k == "spring" { Some(0.0) } else { None })?;
                    let rest = number(domain.rest, domain.kinds[1], Some(0.0))?;
                    part_inertia = 0.0;
                    elements.push(DriveElement::Compliance {
                        stiffness,
                        damping,
                        rest,
                        location,
                    });
                }
                _ if k == domain.inertia => {
                    let [k_j, k_q, k_v, _, _] = domain.kinds;
                    let inertia = match f.get(domain.inertia_field) {
                        Some(e) => self.positive(e, scope, k_j, domain.inertia_field)?,
                        None => number(domain.inertia_field, k_j, None)?,
                    };
                    let start = StartValues {
                        position: f
                            .get(domain.position)
                            .map(|e| self.num(e, scope, k_q, domain.position))
                            .transpose()?,
                        speed: f
                            .get(domain.speed)
                            .map(|e| self.num(e, scope, k_v, domain.speed))
                            .transpose()?,
                    };
                    part_inertia += inertia;
                    elements.push(DriveElement::Inertia {
                        inertia,
                        start,
                        location,
                    });
                }
                _ => source = DriveSource::Input,
            }
        }
        // Start values of an inertia that moves rigidly with the joint are the joint's.
        let last_compliance = elements
            .iter()
            .rposition(|e| matches!(e, DriveElement::Compliance { .. }));
        let rigid_with_joint = last_compliance.map_or(0, |i| i + 1);
        for element in &elements[rigid_with_joint..] {
            if let DriveElement::Inertia {
                start, location, ..
            } = element
            {
                if start.position.is_some() || start.speed.is_some() {
                    return Err(Diag::new(
                        Pos {
                            line: location.line,
                            column: location.column,
                        },
                        format!("{what}: this {} moves rigidly with joint `{full}`, so its start values are the joint's", domain.inertia),
                    )
                    .with_help(Some(format!("give `{}`/`{}` in joint `{full}`, or separate the {} from the joint by a `spring` or `damper`", domain.position, domain.speed, domain.inertia))));
                }
            }
        }
        Ok(DriveSpec {
            name: raw.name.clone(),
            joint: full,
            translational: domain.translational,
            source,
            elements,
            location: self.location(raw.pos),
        })
    }
}
