//! Field values: quantities with their units converted to SI, vectors, words, axes and
//! rotations, each checked against what its field allows.

use super::*;

use crate::model::units::OutOfRange;

/// Why the value of a field of quantity `kind` is beyond what fmu3d simulates, or `None`: not
/// finite, too large, or (a velocity) faster than light ([`OutOfRange`]).
pub(super) fn out_of_range(value: &Value, kind: Kind) -> Option<String> {
    let components: &[f64] = match value {
        Value::Num(v) => std::slice::from_ref(v),
        Value::Vector(v) => v,
    };
    // Plain digits for everyday magnitudes, exponents for the rest.
    let number = |x: &f64| {
        if *x == 0.0 || (1e-3..1e6).contains(&x.abs()) {
            format!("{x}")
        } else {
            format!("{x:e}")
        }
    };
    let shown = match value {
        Value::Num(v) => number(v),
        Value::Vector(v) => {
            let parts: Vec<String> = v.iter().map(number).collect();
            format!("[{}]", parts.join(", "))
        }
    };
    let unit = kind.si_unit();
    Some(match OutOfRange::check(components, Some(kind))? {
        OutOfRange::NotFinite => {
            format!("is not finite, found {shown} {unit}: check the parameters it is computed from")
        }
        problem => format!(
            "{}, found {shown} {unit}: {}",
            problem.what(),
            problem.limit()
        ),
    })
}

impl<'a> Evaluator<'a> {
    pub(super) fn quantity(
        &self,
        e: &Expr,
        scope: &Scope,
        kind: Kind,
        field: &str,
    ) -> Result<Quantity, Diag> {
        let q = eval(e, &self.env(scope))?;
        if let Some(u) = &q.unit {
            if u.kind != kind {
                let msg = if kind == Kind::Dimensionless {
                    format!(
                        "`{field}` is a pure number, but `{}` is a unit of {}",
                        u.text,
                        u.kind.name()
                    )
                } else {
                    format!(
                        "`{field}` expects {}, but `{}` is a unit of {}",
                        kind.with_article(),
                        u.text,
                        u.kind.name()
                    )
                };
                let help = if kind == Kind::Dimensionless {
                    Some("remove the unit".to_string())
                } else {
                    Some(format!("units of {}: {}", kind.name(), units_of(kind)))
                };
                return Err(Diag::new(u.pos, msg).with_help(help));
            }
        }
        if let Some(problem) = out_of_range(&q.value, kind) {
            return Err(Diag::new(e.pos, format!("`{field}` {problem}")));
        }
        Ok(q)
    }

    /// The scale of a unit written after a call, checked against the expected quantity.
    pub(super) fn unit_scale(
        &self,
        u: &UnitRef,
        pos: Pos,
        scope: &Scope,
        kind: Kind,
        field: &str,
    ) -> Result<f64, Diag> {
        let one = Expr {
            kind: ExprKind::WithUnit(
                Box::new(Expr {
                    kind: ExprKind::Num(1.0),
                    pos,
                }),
                u.clone(),
            ),
            pos,
        };
        self.num(&one, scope, kind, field)
    }

    pub(super) fn num(
        &self,
        e: &Expr,
        scope: &Scope,
        kind: Kind,
        field: &str,
    ) -> Result<f64, Diag> {
        match self.quantity(e, scope, kind, field)?.value {
            Value::Num(v) => Ok(v),
            Value::Vector(_) => Err(Diag::new(
                e.pos,
                format!("`{field}` expects a number, found a vector"),
            )),
        }
    }

    pub(super) fn positive(
        &self,
        e: &Expr,
        scope: &Scope,
        kind: Kind,
        field: &str,
    ) -> Result<f64, Diag> {
        let v = self.num(e, scope, kind, field)?;
        if v <= 0.0 {
            return Err(Diag::new(
                e.pos,
                format!(
                    "`{field}` must be greater than zero, found {v} {}",
                    kind.si_unit()
                ),
            ));
        }
        Ok(v)
    }

    pub(super) fn non_negative(
        &self,
        e: &Expr,
        scope: &Scope,
        kind: Kind,
        field: &str,
    ) -> Result<f64, Diag> {
        let v = self.num(e, scope, kind, field)?;
        if v < 0.0 {
            return Err(Diag::new(
                e.pos,
                format!(
                    "`{field}` must not be negative, found {v} {}",
                    kind.si_unit()
                ),
            ));
        }
        Ok(v)
    }

    pub(super) fn vector(
        &self,
        e: &Expr,
        scope: &Scope,
        kind: Kind,
        field: &str,
        n: usize,
    ) -> Result<Vec<f64>, Diag> {
        match self.quantity(e, scope, kind, field)?.value {
            Value::Vector(v) if v.len() == n => Ok(v),
            Value::Vector(v) => Err(Diag::new(
                e.pos,
                format!("`{field}` expects a vector of {n} elements, found {}", v.len()),
            )),
            Value::Num(_) => Err(Diag::new(
                e.pos,
                format!("`{field}` expects a vector of {n} elements such as `[0, 0, 0]`, found a number"),
            )),
        }
    }

    pub(super) fn vec3(
        &self,
        e: &Expr,
        scope: &Scope,
        kind: Kind,
        field: &str,
    ) -> Result<Vector3<f64>, Diag> {
        let v = self.vector(e, scope, kind, field, 3)?;
        Ok(Vector3::new(v[0], v[1], v[2]))
    }

    pub(super) fn positive_vec3(
        &self,
        e: &Expr,
        scope: &Scope,
        kind: Kind,
        field: &str,
    ) -> Result<Vector3<f64>, Diag> {
        let v = self.vec3(e, scope, kind, field)?;
        if v.iter().any(|x| *x <= 0.0) {
            return Err(Diag::new(
                e.pos,
                format!(
                    "every element of `{field}` must be greater than zero, found [{}, {}, {}] {}",
                    v.x,
                    v.y,
                    v.z,
                    kind.si_unit()
                ),
            ));
        }
        Ok(v)
    }

    pub(super) fn word<'w>(
        &self,
        e: &Expr,
        options: &[&'w str],
        field: &str,
    ) -> Result<&'w str, Diag> {
        let found = match &e.kind {
            ExprKind::Name(p) => p.word(),
            _ => None,
        };
        let list = options
            .iter()
            .map(|o| format!("`{o}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let Some(w) = found else {
            return Err(Diag::new(e.pos, format!("`{field}` expects one of {list}")));
        };
        options.iter().find(|o| **o == w).copied().ok_or_else(|| {
            Diag::new(
                e.pos,
                format!("`{w}` is not a valid `{field}`: expected one of {list}"),
            )
            .with_help(did_you_mean(w, options.iter().copied()))
        })
    }

    pub(super) fn boolean(&self, e: &Expr, scope: &Scope, field: &str) -> Result<bool, Diag> {
        if let ExprKind::Name(p) = &e.kind {
            match p.word() {
                Some("true") => return Ok(true),
                Some("false") => return Ok(false),
                _ => {}
            }
        }
        match eval(e, &self.env(scope)) {
            Ok(Quantity {
                value: Value::Num(v),
                ..
            }) => Ok(v != 0.0),
            _ => Err(Diag::new(
                e.pos,
                format!("`{field}` expects `true` or `false`"),
            )),
        }
    }

    pub(super) fn axis(&self, e: &Expr, scope: &Scope, field: &str) -> Result<Vector3<f64>, Diag> {
        let (inner, sign) = match &e.kind {
            ExprKind::Unary("-", inner) => (inner.as_ref(), -1.0),
            _ => (e, 1.0),
        };
        if let ExprKind::Name(p) = &inner.kind {
            if let Some(w) = p.word() {
                if let Some(a) = axis_word(w) {
                    return Ok(a * sign);
                }
                if self.env(scope).lookup(w).is_none() {
                    return Err(Diag::new(
                        inner.pos,
                        format!(
                            "`{w}` is not an axis: use `x`, `y`, `z`, `-x`, `-y`, `-z` or a vector"
                        ),
                    )
                    .with_help(did_you_mean(w, ["x", "y", "z"])));
                }
            }
        }
        let v = match eval(e, &self.env(scope))?.value {
            Value::Vector(v) if v.len() == 3 => Vector3::new(v[0], v[1], v[2]),
            _ => {
                return Err(Diag::new(
                    e.pos,
                    format!(
                    "`{field}` expects `x`, `y`, `z`, `-x`, `-y`, `-z` or a vector of 3 elements"
                ),
                ))
            }
        };
        let n = v.norm();
        if n < 1e-12 {
            return Err(Diag::new(
                e.pos,
                format!("the `{field}` vector is zero: it has no direction"),
            ));
        }
        Ok(v / n)
    }

    pub(super) fn rotation(
        &self,
        e: &Expr,
        scope: &Scope,
        field: &str,
    ) -> Result<UnitQuaternion<f64>, Diag> {
        let (call, scale) = match &e.kind {
            ExprKind::WithUnit(inner, u) if matches!(&inner.kind, ExprKind::Call(n, _) if n == "cardan" || n == "rpy") =>
            {
                // `cardan(0, 0, 90) deg`: the unit scales the three angles.
                (
                    inner.as_ref(),
                    self.unit_scale(u, e.pos, scope, Kind::Angle, field)?,
                )
            }
            _ => (e, 1.0),
        };
        let ExprKind::Call(name, args) = &call.kind else {
            return Err(Diag::new(
                e.pos,
                format!("`{field}` expects `axis_angle(axis, angle)`, `cardan(angle_x, angle_y, angle_z)` or `rpy(roll, pitch, yaw)`"),
            ));
        };
        match name.as_str() {
            "axis_angle" => {
                let [axis, angle] = args.as_slice() else {
                    return Err(Diag::new(call.pos, "`axis_angle` takes two arguments: an axis and an angle"));
                };
                let a = self.axis(axis, scope, "axis")?;
                let phi = self.num(angle, scope, Kind::Angle, "angle")?;
                Ok(UnitQuaternion::from_axis_angle(&Unit::new_normalize(a), phi))
            }
            "cardan" | "rpy" => {
                let angles = match args.as_slice() {
                    [a, b, c] => [
                        self.num(a, scope, Kind::Angle, "angle")?,
                        self.num(b, scope, Kind::Angle, "angle")?,
                        self.num(c, scope, Kind::Angle, "angle")?,
                    ],
                    [v] => {
                        let v = self.vector(v, scope, Kind::Angle, "angles", 3)?;
                        [v[0], v[1], v[2]]
                    }
                    _ => {
                        return Err(Diag::new(
                            call.pos,
                            format!("`{name}` takes three angles or a vector of three: {}", if name == "rpy" {
                                "roll, pitch and yaw, about the fixed x, y and z axes"
                            } else {
                                "about x, then the new y, then the new z"
                            }),
                        ))
                    }
                };
                let [a, b, c] = angles.map(|x| x * scale);
                let (x, y, z) = (
                    UnitQuaternion::from_axis_angle(&Vector3::x_axis(), a),
                    UnitQuaternion::from_axis_angle(&Vector3::y_axis(), b),
                    UnitQuaternion::from_axis_angle(&Vector3::z_axis(), c),
                );
                // Cardan angles turn about the moving axes (x, then the new y, then the new z);
                // URDF's roll, pitch and yaw about the fixed ones (x, then y, then z), which is
                // the product in the other order.
                Ok(if name == "rpy" { z * y * x } else { x * y * z })
            }
            other => Err(Diag::new(
                call.pos,
                format!("`{other}` is not a rotation: use `axis_angle(axis, angle)`, `cardan(a1, a2, a3)` or `rpy(roll, pitch, yaw)`"),
            )
            .with_help(did_you_mean(other, ["axis_angle", "cardan", "rpy"]))),
        }
    }
}
