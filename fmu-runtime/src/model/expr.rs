//! Expressions: their syntax tree and their numeric evaluation (numbers, 3-vectors, units).

use super::lexer::{Diag, Pos};
use super::suggest::did_you_mean;
use super::units::{self, Kind};

#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub pos: Pos,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    Num(f64),
    Str(String),
    /// A name: a parameter, a loop variable, a constant, an enum word or an object.
    Name(NamePath),
    /// `[e1, e2, ...]`
    Vector(Vec<Expr>),
    /// `-e` or `!e`
    Unary(&'static str, Box<Expr>),
    /// `a op b` with op one of `+ - * / ^ < <= > >= == != && ||`
    Binary(&'static str, Box<Expr>, Box<Expr>),
    /// `c ? a : b`
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `f(args)`
    Call(String, Vec<Expr>),
    /// `e unit`: the unit scales the whole expression before it.
    WithUnit(Box<Expr>, UnitRef),
}

#[derive(Debug, Clone, PartialEq)]
pub struct UnitRef {
    pub text: String,
    pub pos: Pos,
}

/// `a[i].b`: dotted parts, each with optional indices.
#[derive(Debug, Clone, PartialEq)]
pub struct NamePath {
    pub parts: Vec<NamePart>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct NamePart {
    pub name: String,
    pub index: Vec<Expr>,
    pub pos: Pos,
}

impl NamePath {
    /// The path as a plain dotted name when it has no indices.
    pub fn plain(&self) -> Option<String> {
        if self.parts.iter().any(|p| !p.index.is_empty()) {
            return None;
        }
        Some(
            self.parts
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join("."),
        )
    }

    /// The single identifier of a one-part path without indices.
    pub fn word(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [p] if p.index.is_empty() => Some(&p.name),
            _ => None,
        }
    }
}

/// A value: a number or a vector.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Num(f64),
    Vector(Vec<f64>),
}

/// The unit written at the outside of a value, if any: what it measures, how it was spelt, where.
#[derive(Debug, Clone, PartialEq)]
pub struct WrittenUnit {
    pub kind: Kind,
    pub text: String,
    pub pos: Pos,
}

/// A value in SI with the unit written at its outside (used to check the field's quantity).
#[derive(Debug, Clone, PartialEq)]
pub struct Quantity {
    pub value: Value,
    pub unit: Option<WrittenUnit>,
}

/// What the evaluator may look names up in.
pub trait Env {
    /// The value of a plain or dotted name (`L`, `i`, `bar1.Lx`).
    fn lookup(&self, name: &str) -> Option<f64>;
    /// Every name that `lookup` knows, for suggestions.
    fn known(&self) -> Vec<String>;
}

pub const FUNCTIONS: &[&str] = &[
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sqrt", "exp", "log", "abs", "min",
    "max", "floor", "ceil", "round", "mod", "norm",
];

/// Calls that are not numbers but have a meaning in some fields.
const SPECIAL_CALLS: &[(&str, &str)] = &[
    (
        "diag",
        "an inertia tensor; it can only be the value of `inertia`",
    ),
    (
        "axis_angle",
        "a rotation; it can only be the value of `rotation`",
    ),
    (
        "cardan",
        "a rotation; it can only be the value of `rotation`",
    ),
    ("rpy", "a rotation; it can only be the value of `rotation`"),
];

fn num(v: f64) -> Quantity {
    Quantity {
        value: Value::Num(v),
        unit: None,
    }
}

fn finite(v: f64, pos: Pos, what: &str) -> Result<f64, Diag> {
    if v.is_nan() {
        Err(Diag::new(pos, format!("{what} is not a number (NaN)")))
    } else if v.is_infinite() {
        Err(Diag::new(pos, format!("{what} is infinite")))
    } else {
        Ok(v)
    }
}

/// Evaluates an expression to a number or a vector, in SI.
pub fn eval(e: &Expr, env: &dyn Env) -> Result<Quantity, Diag> {
    match &e.kind {
        ExprKind::Num(v) => Ok(num(*v)),
        ExprKind::Str(_) => Err(Diag::new(
            e.pos,
            "a string is not allowed here; expected a number",
        )),
        ExprKind::Name(path) => eval_name(path, env).map(num),
        ExprKind::Vector(items) => {
            let mut out = Vec::with_capacity(items.len());
            let mut unit: Option<WrittenUnit> = None;
            for item in items {
                let q = eval(item, env)?;
                match q.value {
                    Value::Num(v) => out.push(v),
                    Value::Vector(_) => {
                        return Err(Diag::new(item.pos, "a vector cannot contain a vector"))
                    }
                }
                if let Some(u) = q.unit {
                    if let Some(prev) = &unit {
                        if prev.kind != u.kind {
                            return Err(Diag::new(
                                u.pos,
                                format!(
                                    "the elements of a vector must be of one quantity: `{}` is a {} \
                                     but `{}` is a {}",
                                    prev.text,
                                    prev.kind.name(),
                                    u.text,
                                    u.kind.name()
                                ),
                            ));
                        }
                    } else {
                        unit = Some(u);
                    }
                }
            }
            Ok(Quantity {
                value: Value::Vector(out),
                unit,
            })
        }
        ExprKind::WithUnit(inner, u) => {
            let unit = units::lookup(&u.text).ok_or_else(|| {
                Diag::new(u.pos, format!("unknown unit `{}`", u.text))
                    .with_help(did_you_mean(&u.text, units::UNITS.iter().map(|u| u.name)))
            })?;
            let q = eval(inner, env)?;
            if let Some(w) = &q.unit {
                return Err(Diag::new(
                    u.pos,
                    format!(
                        "the value already has the unit `{}`; write one unit only",
                        w.text
                    ),
                ));
            }
            let value = match q.value {
                Value::Num(v) => Value::Num(v * unit.scale),
                Value::Vector(vs) => Value::Vector(vs.iter().map(|v| v * unit.scale).collect()),
            };
            Ok(Quantity {
                value,
                unit: Some(WrittenUnit {
                    kind: unit.kind,
                    text: u.text.clone(),
                    pos: u.pos,
                }),
            })
        }
        ExprKind::Unary(op, inner) => {
            let q = eval(inner, env)?;
            match (*op, q.value) {
                ("-", Value::Num(v)) => Ok(num(-v)),
                ("-", Value::Vector(vs)) => Ok(Quantity {
                    value: Value::Vector(vs.iter().map(|v| -v).collect()),
                    unit: None,
                }),
                ("!", Value::Num(v)) => Ok(num(if v == 0.0 { 1.0 } else { 0.0 })),
                _ => Err(Diag::new(e.pos, format!("`{op}` needs a number"))),
            }
        }
        ExprKind::Binary(op, a, b) => {
            let qa = eval(a, env)?.value;
            let qb = eval(b, env)?.value;
            binary(op, qa, qb, e.pos)
        }
        ExprKind::Cond(c, a, b) => {
            let cv = eval_num(c, env)?;
            if cv != 0.0 {
                eval(a, env)
            } else {
                eval(b, env)
            }
        }
        ExprKind::Call(name, args) => call(name, args, e.pos, env),
    }
}

/// Evaluates an expression that must be a single number.
pub fn eval_num(e: &Expr, env: &dyn Env) -> Result<f64, Diag> {
    match eval(e, env)?.value {
        Value::Num(v) => Ok(v),
        Value::Vector(_) => Err(Diag::new(e.pos, "expected a number, found a vector")),
    }
}

/// Evaluates an index or a loop bound: a whole number.
pub fn eval_integer(e: &Expr, env: &dyn Env) -> Result<i64, Diag> {
    let v = eval_num(e, env)?;
    let r = v.round();
    if (v - r).abs() > 1e-9 || r.abs() > 1e12 {
        return Err(Diag::new(
            e.pos,
            format!("expected a whole number, found {v}"),
        ));
    }
    Ok(r as i64)
}

fn eval_name(path: &NamePath, env: &dyn Env) -> Result<f64, Diag> {
    let pos = path.parts.first().map(|p| p.pos).unwrap_or_default();
    let Some(name) = path.plain() else {
        return Err(Diag::new(pos, "an indexed name is an object, not a number"));
    };
    if let Some(v) = env.lookup(&name) {
        return Ok(v);
    }
    match name.as_str() {
        "pi" => Ok(std::f64::consts::PI),
        "true" => Ok(1.0),
        "false" => Ok(0.0),
        _ => {
            let known = env.known();
            let mut candidates: Vec<&str> = known.iter().map(String::as_str).collect();
            candidates.extend(["pi", "true", "false"]);
            Err(Diag::new(
                pos,
                format!("unknown name `{name}`: not a parameter or a loop variable"),
            )
            .with_help(did_you_mean(&name, candidates)))
        }
    }
}

fn binary(op: &str, a: Value, b: Value, pos: Pos) -> Result<Quantity, Diag> {
    use Value::{Num as N, Vector as V};
    let bool_num = |c: bool| num(if c { 1.0 } else { 0.0 });
    let elementwise =
        |x: &[f64], y: &[f64], f: &dyn Fn(f64, f64) -> f64| -> Result<Quantity, Diag> {
            if x.len() != y.len() {
                return Err(Diag::new(
                    pos,
                    format!(
                        "`{op}` of vectors of different lengths ({} and {})",
                        x.len(),
                        y.len()
                    ),
                ));
            }
            Ok(Quantity {
                value: V(x.iter().zip(y).map(|(p, q)| f(*p, *q)).collect()),
                unit: None,
            })
        };
    let scale = |x: &[f64], s: f64| Quantity {
        value: V(x.iter().map(|v| v * s).collect()),
        unit: None,
    };
    let result = match (op, &a, &b) {
        ("+", N(x), N(y)) => num(x + y),
        ("-", N(x), N(y)) => num(x - y),
        ("*", N(x), N(y)) => num(x * y),
        ("/", N(_), N(y)) | ("/", V(_), N(y)) if *y == 0.0 => {
            return Err(Diag::new(pos, "division by zero"))
        }
        ("/", N(x), N(y)) => num(x / y),
        ("^", N(x), N(y)) => num(x.powf(*y)),
        ("<", N(x), N(y)) => bool_num(x < y),
        ("<=", N(x), N(y)) => bool_num(x <= y),
        (">", N(x), N(y)) => bool_num(x > y),
        (">=", N(x), N(y)) => bool_num(x >= y),
        ("==", N(x), N(y)) => bool_num(x == y),
        ("!=", N(x), N(y)) => bool_num(x != y),
        ("&&", N(x), N(y)) => bool_num(*x != 0.0 && *y != 0.0),
        ("||", N(x), N(y)) => bool_num(*x != 0.0 || *y != 0.0),
        ("+", V(x), V(y)) => elementwise(x, y, &|p, q| p + q)?,
        ("-", V(x), V(y)) => elementwise(x, y, &|p, q| p - q)?,
        ("*", N(s), V(x)) | ("*", V(x), N(s)) => scale(x, *s),
        ("/", V(x), N(s)) => scale(x, 1.0 / s),
        _ => {
            let kind = |v: &Value| match v {
                N(_) => "a number",
                V(_) => "a vector",
            };
            return Err(Diag::new(
                pos,
                format!("`{op}` cannot combine {} and {}", kind(&a), kind(&b)),
            ));
        }
    };
    check_finite(result, pos, &format!("the result of `{op}`"))
}

fn check_finite(q: Quantity, pos: Pos, what: &str) -> Result<Quantity, Diag> {
    match &q.value {
        Value::Num(v) => {
            finite(*v, pos, what)?;
        }
        Value::Vector(vs) => {
            for v in vs {
                finite(*v, pos, what)?;
            }
        }
    }
    Ok(q)
}

fn call(name: &str, args: &[Expr], pos: Pos, env: &dyn Env) -> Result<Quantity, Diag> {
    if let Some((_, what)) = SPECIAL_CALLS.iter().find(|(n, _)| *n == name) {
        return Err(Diag::new(pos, format!("`{name}(...)` is {what}")));
    }
    if !FUNCTIONS.contains(&name) {
        let mut candidates: Vec<&str> = FUNCTIONS.to_vec();
        candidates.extend(SPECIAL_CALLS.iter().map(|(n, _)| *n));
        return Err(Diag::new(pos, format!("unknown function `{name}`"))
            .with_help(did_you_mean(name, candidates)));
    }
    if name == "norm" {
        let [arg] = args else {
            return Err(Diag::new(pos, "`norm` takes one vector"));
        };
        return match eval(arg, env)?.value {
            Value::Vector(vs) => Ok(num(vs.iter().map(|v| v * v).sum::<f64>().sqrt())),
            Value::Num(v) => Ok(num(v.abs())),
        };
    }
    let mut xs = Vec::with_capacity(args.len());
    for a in args {
        xs.push(eval_num(a, env)?);
    }
    let arity = match name {
        "atan2" | "mod" => 2,
        "min" | "max" => 0,
        _ => 1,
    };
    if arity > 0 && xs.len() != arity {
        let s = if arity == 1 { "" } else { "s" };
        return Err(Diag::new(
            pos,
            format!("`{name}` takes {arity} argument{s}, found {}", xs.len()),
        ));
    }
    if arity == 0 && xs.is_empty() {
        return Err(Diag::new(
            pos,
            format!("`{name}` needs at least one argument"),
        ));
    }
    let x = xs[0];
    let v = match name {
        "sin" => x.sin(),
        "cos" => x.cos(),
        "tan" => x.tan(),
        "asin" => x.asin(),
        "acos" => x.acos(),
        "atan" => x.atan(),
        "atan2" => x.atan2(xs[1]),
        "sqrt" => x.sqrt(),
        "exp" => x.exp(),
        "log" => x.ln(),
        "abs" => x.abs(),
        "floor" => x.floor(),
        "ceil" => x.ceil(),
        "round" => x.round(),
        "mod" => {
            if xs[1] == 0.0 {
                return Err(Diag::new(pos, "division by zero in `mod`"));
            }
            x.rem_euclid(xs[1])
        }
        "min" => xs.iter().copied().fold(f64::INFINITY, f64::min),
        _ => xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    };
    let shown: Vec<String> = xs.iter().map(|x| format!("{x}")).collect();
    finite(v, pos, &format!("`{name}({})`", shown.join(", "))).map(num)
}

/// Every plain or dotted name an expression reads (including inside indices).
pub fn names_used(e: &Expr, out: &mut Vec<String>) {
    match &e.kind {
        ExprKind::Num(_) | ExprKind::Str(_) => {}
        ExprKind::Name(path) => {
            if let Some(p) = path.plain() {
                out.push(p);
            }
            for part in &path.parts {
                for i in &part.index {
                    names_used(i, out);
                }
            }
        }
        ExprKind::Vector(items) | ExprKind::Call(_, items) => {
            items.iter().for_each(|i| names_used(i, out));
        }
        ExprKind::Unary(_, a) | ExprKind::WithUnit(a, _) => names_used(a, out),
        ExprKind::Binary(_, a, b) => {
            names_used(a, out);
            names_used(b, out);
        }
        ExprKind::Cond(c, a, b) => {
            names_used(c, out);
            names_used(a, out);
            names_used(b, out);
        }
    }
}

/// When `e` is a pure number times one name (`0.2*L`, `L/2`, `-L`, `L + 0.1`), that name: the
/// expression then has the name's unit.
pub fn linear_in(e: &Expr) -> Option<String> {
    fn constant(e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Num(_) => true,
            ExprKind::Unary("-", a) => constant(a),
            ExprKind::Binary(_, a, b) => constant(a) && constant(b),
            _ => false,
        }
    }
    match &e.kind {
        ExprKind::Name(p) => p.plain(),
        ExprKind::Unary("-", a) => linear_in(a),
        ExprKind::Binary("*", a, b) => {
            if constant(a) {
                linear_in(b)
            } else if constant(b) {
                linear_in(a)
            } else {
                None
            }
        }
        ExprKind::Binary("/", a, b) if constant(b) => linear_in(a),
        ExprKind::Binary("+" | "-", a, b) => match (linear_in(a), linear_in(b)) {
            (Some(x), Some(y)) if x == y => Some(x),
            (Some(x), None) if constant(b) => Some(x),
            (None, Some(y)) if constant(a) => Some(y),
            _ => None,
        },
        _ => None,
    }
}
