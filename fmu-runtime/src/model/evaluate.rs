//! Syntax tree → [`ModelSpec`]: parameters (with overrides), assembly instances, `for` loops,
//! field values with units, then the checks that need the whole model (names, parents, joints).

use super::expr::{
    self, eval, eval_integer, Env, Expr, ExprKind, NamePath, Quantity, UnitRef, Value,
};
use super::lexer::{Diag, Pos};
use super::mass;
use super::materials;
use super::motion;
use super::snap::{self, Frame, Mate, Mover, Node};
use super::spec::*;
use super::suggest::did_you_mean;
use super::syntax::{Block, DeclName, Entry, Ident, ParamDecl, Stmt};
use super::units::{Kind, UNITS};
use nalgebra::{Isometry3, Matrix3, Unit, UnitQuaternion, Vector3};
use std::collections::{HashMap, HashSet};

mod drive;

const MAX_TURNS: usize = 1_000_000;

/// The most objects (mate connectors included) a model may declare: far above what the
/// engine's 5 000 states allow to simulate, low enough that a runaway `for` loop is refused
/// before the scene, its collision pairs and the variable table are built.
pub const MAX_OBJECTS: usize = 20_000;

/// Evaluates parsed statements into a model.
pub fn evaluate(
    stmts: &[Stmt],
    file: &str,
    overrides: &[(String, f64)],
) -> Result<ModelSpec, Diag> {
    let mut ev = Evaluator {
        file,
        overrides,
        used: vec![false; overrides.len()],
        assemblies: HashMap::new(),
        stack: Vec::new(),
        turns: 0,
        params: Vec::new(),
        param_by_name: HashMap::new(),
        structural_roots: Vec::new(),
        names: HashMap::new(),
        instances: HashMap::new(),
        objects: Vec::new(),
        joints: Vec::new(),
        forces: Vec::new(),
        contact_pairs: Vec::new(),
        raw_contact_outputs: Vec::new(),
        drives: Vec::new(),
        model: None,
        gravity: None,
        experiment: None,
    };
    for s in stmts {
        if let Stmt::Assembly { name, .. } = s {
            if ev.assemblies.insert(name.name.clone(), s).is_some() {
                return Err(Diag::new(
                    name.pos,
                    format!("assembly `{}` is defined twice", name.name),
                ));
            }
        }
    }
    let mut scope = Scope::default();
    ev.statements(stmts, &mut scope, Context::Top)?;
    ev.finish()
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Context {
    Top,
    Loop,
    Assembly,
}

/// Names visible to expressions in one body.
#[derive(Debug, Clone, Default)]
struct Scope {
    /// `""` at the top level, `"bar1."` inside instance `bar1`.
    prefix: String,
    /// Parameters by the name written in this body.
    params: HashMap<String, usize>,
    /// Loop variables, innermost last.
    vars: Vec<(String, f64)>,
}

struct Param {
    spec: ParameterSpec,
    deps: Vec<usize>,
}

/// An object name as written, to be resolved once every object is known.
#[derive(Debug, Clone)]
struct ObjRef {
    path: String,
    prefix: String,
    pos: Pos,
}

struct RawObject {
    spec: ObjectSpec,
    parent: Option<ObjRef>,
    /// Where `position` or `rotation` was given, to complain when nothing has a parent.
    placement: Option<Pos>,
    /// A mate connector (its parent is its owner object).
    connector: bool,
    pos: Pos,
}

enum RawJointKind {
    Moving(JointKind),
    Fixed {
        position: Vector3<f64>,
        rotation: UnitQuaternion<f64>,
    },
}

struct RawJoint {
    name: String,
    from: ObjRef,
    to: ObjRef,
    kind: RawJointKind,
    can_collide: bool,
    output_forces: bool,
    pos: Pos,
}

/// A `fixed` joint after resolution: name, from, to, offset position and rotation, where.
type RigidMate = (
    String,
    String,
    String,
    Vector3<f64>,
    UnitQuaternion<f64>,
    Pos,
);

/// A moving joint after resolution: name, from, to, kind, can_collide, output_forces, and the
/// places of the joint, its `to` and its `from`.
type MovingJoint = (String, String, String, JointKind, bool, bool, Pos, Pos, Pos);

struct RawForce {
    name: String,
    from: ObjRef,
    to: ObjRef,
    kind: ForceKind,
    pos: Pos,
}

struct Evaluator<'a> {
    file: &'a str,
    overrides: &'a [(String, f64)],
    used: Vec<bool>,
    assemblies: HashMap<String, &'a Stmt>,
    stack: Vec<String>,
    /// Turns of all `for` loops so far, to refuse models that would never finish expanding.
    turns: usize,
    params: Vec<Param>,
    param_by_name: HashMap<String, usize>,
    structural_roots: Vec<usize>,
    /// Objects, joints and force elements share one namespace (full names).
    names: HashMap<String, (Pos, &'static str)>,
    instances: HashMap<String, Pos>,
    objects: Vec<RawObject>,
    joints: Vec<RawJoint>,
    forces: Vec<RawForce>,
    contact_pairs: Vec<ContactPairSpec>,
    raw_contact_outputs: Vec<(String, ObjRef, ObjRef, Pos)>,
    drives: Vec<drive::RawDrive<'a>>,
    model: Option<(String, Option<String>, Pos)>,
    gravity: Option<(GravitySpec, Pos)>,
    experiment: Option<(ExperimentSpec, Pos)>,
}

struct Lookup<'x> {
    params: &'x [Param],
    param_by_name: &'x HashMap<String, usize>,
    scope: &'x Scope,
}

impl Env for Lookup<'_> {
    fn lookup(&self, name: &str) -> Option<f64> {
        if let Some((_, v)) = self.scope.vars.iter().rev().find(|(n, _)| n == name) {
            return Some(*v);
        }
        if let Some(&i) = self.scope.params.get(name) {
            return Some(self.params[i].spec.value);
        }
        if name.contains('.') {
            let full = format!("{}{}", self.scope.prefix, name);
            if let Some(&i) = self.param_by_name.get(&full) {
                return Some(self.params[i].spec.value);
            }
        }
        None
    }

    fn known(&self) -> Vec<String> {
        let mut out: Vec<String> = self.scope.vars.iter().map(|(n, _)| n.clone()).collect();
        out.extend(self.scope.params.keys().cloned());
        out
    }
}

/// The fields and sub-blocks of one block, checked against what the block allows.
struct Fields<'b> {
    fields: Vec<(&'b Ident, &'b Expr)>,
    subs: Vec<(&'b Ident, Option<&'b Ident>, &'b Block)>,
    what: String,
}

impl<'b> Fields<'b> {
    fn new(block: &'b Block, allowed: &[&str], subs: &[&str], what: &str) -> Result<Self, Diag> {
        let mut out = Fields {
            fields: Vec::new(),
            subs: Vec::new(),
            what: what.to_string(),
        };
        let mut seen: HashMap<&str, Pos> = HashMap::new();
        for entry in &block.entries {
            let name = entry.name();
            let n = name.name.as_str();
            if !allowed.contains(&n) && !subs.contains(&n) {
                let all = allowed.iter().chain(subs.iter()).copied();
                return Err(
                    Diag::new(name.pos, format!("unknown field `{n}` in {what}")).with_help(
                        did_you_mean(n, all).or_else(|| {
                            Some(format!(
                                "the fields of {what} are: {}",
                                allowed
                                    .iter()
                                    .chain(subs.iter())
                                    .map(|f| format!("`{f}`"))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ))
                        }),
                    ),
                );
            }
            // Several mate connectors may be declared in one object.
            if n == "mate" {
                seen.remove(n);
            }
            if let Some(first) = seen.insert(n, name.pos) {
                return Err(Diag::new(
                    name.pos,
                    format!(
                        "duplicate field `{n}` in {what} (first given at line {})",
                        first.line
                    ),
                ));
            }
            match entry {
                Entry::Field { name, value } => {
                    if subs.contains(&n) {
                        let kind = if n == "shape" { " KIND" } else { "" };
                        return Err(Diag::new(
                            name.pos,
                            format!("`{n}` is a block: write `{n}{kind} {{ ... }}` without `=`"),
                        ));
                    }
                    out.fields.push((name, value));
                }
                Entry::Sub {
                    keyword,
                    kind,
                    body,
                } => {
                    if !subs.contains(&n) {
                        return Err(Diag::new(
                            keyword.pos,
                            format!("`{n}` is a field: write `{n} = value`"),
                        ));
                    }
                    out.subs.push((keyword, kind.as_ref(), body));
                }
            }
        }
        Ok(out)
    }

    fn get(&self, name: &str) -> Option<&'b Expr> {
        self.fields
            .iter()
            .find(|(n, _)| n.name == name)
            .map(|(_, e)| *e)
    }

    fn pos_of(&self, name: &str) -> Option<Pos> {
        self.fields
            .iter()
            .find(|(n, _)| n.name == name)
            .map(|(n, _)| n.pos)
    }

    fn require(&self, name: &str, at: Pos) -> Result<&'b Expr, Diag> {
        self.get(name)
            .ok_or_else(|| Diag::new(at, format!("{} needs the field `{name}`", self.what)))
    }

    fn sub(&self, name: &str) -> Option<(&'b Ident, Option<&'b Ident>, &'b Block)> {
        self.subs.iter().find(|(n, _, _)| n.name == name).copied()
    }
}

fn units_of(kind: Kind) -> String {
    UNITS
        .iter()
        .filter(|u| u.kind == kind)
        .map(|u| format!("`{}`", u.name))
        .collect::<Vec<_>>()
        .join(", ")
}

fn axis_word(word: &str) -> Option<Vector3<f64>> {
    match word {
        "x" => Some(Vector3::x()),
        "y" => Some(Vector3::y()),
        "z" => Some(Vector3::z()),
        _ => None,
    }
}

const COLORS: &[(&str, [u8; 3])] = &[
    ("red", [255, 0, 0]),
    ("green", [0, 128, 0]),
    ("blue", [0, 0, 255]),
    ("yellow", [255, 255, 0]),
    ("orange", [255, 165, 0]),
    ("cyan", [0, 255, 255]),
    ("magenta", [255, 0, 255]),
    ("white", [255, 255, 255]),
    ("black", [0, 0, 0]),
    ("grey", [128, 128, 128]),
    ("brown", [139, 69, 19]),
];

fn index_text(values: &[i64]) -> String {
    let parts: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    format!("[{}]", parts.join(","))
}

impl<'a> Evaluator<'a> {
    fn env<'x>(&'x self, scope: &'x Scope) -> Lookup<'x> {
        Lookup {
            params: &self.params,
            param_by_name: &self.param_by_name,
            scope,
        }
    }

    fn location(&self, pos: Pos) -> Location {
        Location {
            file: self.file.to_string(),
            line: pos.line,
            column: pos.column,
        }
    }

    /// The parameters an expression reads, as seen from `scope`.
    fn params_used(&self, e: &Expr, scope: &Scope) -> Vec<usize> {
        let mut names = Vec::new();
        expr::names_used(e, &mut names);
        names
            .iter()
            .filter(|n| !scope.vars.iter().any(|(v, _)| v == *n))
            .filter_map(|n| {
                scope
                    .params
                    .get(n)
                    .or_else(|| self.param_by_name.get(&format!("{}{}", scope.prefix, n)))
                    .copied()
            })
            .collect()
    }

    fn mark_structural(&mut self, e: &Expr, scope: &Scope) {
        let used = self.params_used(e, scope);
        self.structural_roots.extend(used);
    }

    fn statements(
        &mut self,
        body: &'a [Stmt],
        scope: &mut Scope,
        ctx: Context,
    ) -> Result<(), Diag> {
        for s in body {
            self.statement(s, scope, ctx)?;
        }
        Ok(())
    }

    fn top_level_only(&self, ctx: Context, pos: Pos, what: &str) -> Result<(), Diag> {
        if ctx != Context::Top {
            return Err(Diag::new(
                pos,
                format!("`{what}` may only appear at the top level of the file"),
            ));
        }
        Ok(())
    }

    fn statement(&mut self, s: &'a Stmt, scope: &mut Scope, ctx: Context) -> Result<(), Diag> {
        match s {
            Stmt::Model {
                name,
                description,
                pos,
            } => {
                self.top_level_only(ctx, *pos, "model")?;
                if let Some((_, _, first)) = &self.model {
                    return Err(Diag::new(
                        *pos,
                        format!("the model is already named at line {}", first.line),
                    ));
                }
                self.model = Some((name.name.clone(), description.clone(), *pos));
            }
            Stmt::Parameters { entries, pos } => {
                if ctx == Context::Loop {
                    return Err(Diag::new(
                        *pos,
                        "parameters cannot be declared inside a `for` loop",
                    ));
                }
                for decl in entries {
                    self.parameter(decl, scope, None)?;
                }
            }
            Stmt::Gravity { kind, body, pos } => {
                self.top_level_only(ctx, *pos, "gravity")?;
                if let Some((_, first)) = &self.gravity {
                    return Err(Diag::new(
                        *pos,
                        format!("gravity is already given at line {}", first.line),
                    ));
                }
                let g = self.gravity_spec(kind, body.as_ref(), scope)?;
                self.gravity = Some((g, *pos));
            }
            Stmt::Experiment { body, pos } => {
                self.top_level_only(ctx, *pos, "experiment")?;
                if let Some((_, first)) = &self.experiment {
                    return Err(Diag::new(
                        *pos,
                        format!("the experiment is already given at line {}", first.line),
                    ));
                }
                let e = self.experiment_spec(body, scope)?;
                self.experiment = Some((e, *pos));
            }
            Stmt::Object { name, body, .. } => self.object(name, body, scope)?,
            Stmt::Joint {
                name, kind, body, ..
            } => self.joint(name, kind, body, scope)?,
            Stmt::Force {
                name, kind, body, ..
            } => self.force(name, kind, body, scope)?,
            Stmt::ContactOutput { name, body, .. } => {
                let full = format!("{}{}", scope.prefix, self.decl_name(name, scope)?);
                self.claim(&full, name.base.pos, "contact output")?;
                let f = Fields::new(
                    body,
                    &["from", "to"],
                    &[],
                    &format!("contact output `{full}`"),
                )?;
                let from = self.obj_ref(f.require("from", name.base.pos)?, scope, "from")?;
                let to = self.obj_ref(f.require("to", name.base.pos)?, scope, "to")?;
                self.raw_contact_outputs
                    .push((full, from, to, name.base.pos));
            }
            Stmt::Drive { name, body, .. } => {
                let full = format!("{}{}", scope.prefix, self.decl_name(name, scope)?);
                self.claim(&full, name.base.pos, "drive")?;
                self.drives.push(drive::RawDrive {
                    name: full,
                    body,
                    scope: scope.clone(),
                    pos: name.base.pos,
                });
            }
            Stmt::ContactPair {
                materials,
                body,
                pos,
            } => {
                self.top_level_only(ctx, *pos, "contact_pair")?;
                let pair = self.contact_pair(materials, body, *pos, scope)?;
                self.contact_pairs.push(pair);
            }
            Stmt::Assembly { pos, .. } => {
                if ctx != Context::Top {
                    return Err(Diag::new(
                        *pos,
                        "an assembly must be defined at the top level of the file",
                    ));
                }
            }
            Stmt::Instance {
                name,
                assembly,
                args,
                body,
                pos,
            } => self.instance(name, assembly, args, body.as_ref(), *pos, scope)?,
            Stmt::For {
                var,
                start,
                end,
                body,
                ..
            } => {
                self.mark_structural(start, scope);
                self.mark_structural(end, scope);
                let (a, b) = {
                    let env = self.env(scope);
                    (eval_integer(start, &env)?, eval_integer(end, &env)?)
                };
                if b - a >= 100_000 {
                    return Err(Diag::new(
                        start.pos,
                        format!("the loop {a}:{b} is too long (at most 100000 turns)"),
                    ));
                }
                for i in a..=b {
                    self.turns += 1;
                    if self.turns > MAX_TURNS {
                        return Err(Diag::new(
                            start.pos,
                            format!(
                                "the loops of this model repeat more than {MAX_TURNS} times in all"
                            ),
                        ));
                    }
                    let mut inner = scope.clone();
                    inner.vars.push((var.name.clone(), i as f64));
                    self.statements(body, &mut inner, Context::Loop)?;
                }
            }
        }
        Ok(())
    }

    /// Declares one parameter in `scope`; `arg` is an instance argument and the scope it is read in.
    fn parameter(
        &mut self,
        decl: &ParamDecl,
        scope: &mut Scope,
        arg: Option<(&Expr, &Scope)>,
    ) -> Result<(), Diag> {
        let name = &decl.name;
        let full = format!("{}{}", scope.prefix, name.name);
        if let Some(&i) = self.param_by_name.get(&full) {
            return Err(Diag::new(
                name.pos,
                format!(
                    "parameter `{full}` is already declared at line {}",
                    self.params[i].spec.location.line
                ),
            ));
        }
        let overridden = self.overrides.iter().position(|(n, _)| *n == full);
        let unit = {
            let from_default = decl
                .value
                .as_ref()
                .map(|e| self.unit_of(e, scope))
                .unwrap_or_default();
            match (from_default.is_empty(), arg) {
                (true, Some((e, outer))) => self.unit_of(e, outer),
                _ => from_default,
            }
        };
        let (value, deps) = if let Some((e, outer)) = arg {
            (self.param_value(e, outer)?, self.params_used(e, outer))
        } else if let Some(e) = &decl.value {
            (self.param_value(e, scope)?, self.params_used(e, scope))
        } else {
            return Err(Diag::new(
                name.pos,
                format!("parameter `{}` has no value", name.name),
            ));
        };
        let value = match overridden {
            Some(k) => {
                self.used[k] = true;
                let v = self.overrides[k].1;
                if !v.is_finite() {
                    return Err(Diag::new(
                        name.pos,
                        format!("the value {v} given for parameter `{full}` is not finite"),
                    ));
                }
                v
            }
            None => value,
        };
        let spec = ParameterSpec {
            name: full.clone(),
            value,
            unit,
            description: decl.description.clone(),
            structural: false,
            location: self.location(name.pos),
        };
        let index = self.params.len();
        self.params.push(Param { spec, deps });
        self.param_by_name.insert(full, index);
        scope.params.insert(name.name.clone(), index);
        Ok(())
    }

    fn param_value(&self, e: &Expr, scope: &Scope) -> Result<f64, Diag> {
        match eval(e, &self.env(scope))?.value {
            Value::Num(v) => Ok(v),
            Value::Vector(_) => Err(Diag::new(
                e.pos,
                "a parameter must be a single number, not a vector",
            )),
        }
    }

    /// The SI unit of a parameter's expression: the unit written after it, or that of the one
    /// parameter it scales.
    fn unit_of(&self, e: &Expr, scope: &Scope) -> String {
        if let ExprKind::WithUnit(_, u) = &e.kind {
            return super::units::lookup(&u.text)
                .map(|u| u.kind.si_unit().to_string())
                .unwrap_or_default();
        }
        expr::linear_in(e)
            .filter(|n| !scope.vars.iter().any(|(v, _)| v == n))
            .and_then(|n| scope.params.get(&n).copied())
            .map(|i| self.params[i].spec.unit.clone())
            .unwrap_or_default()
    }

    /// `link[i]` → `link[3]`, marking parameters used in the index as structural.
    fn decl_name(&mut self, d: &DeclName, scope: &Scope) -> Result<String, Diag> {
        let mut name = d.base.name.clone();
        if name == WORLD {
            return Err(Diag::new(
                d.base.pos,
                "`world` is the implicit root object and cannot be declared",
            ));
        }
        if !d.index.is_empty() {
            let mut values = Vec::new();
            for e in &d.index {
                self.mark_structural(e, scope);
                values.push(eval_integer(e, &self.env(scope))?);
            }
            name.push_str(&index_text(&values));
        }
        Ok(name)
    }

    fn claim(&mut self, full: &str, pos: Pos, what: &'static str) -> Result<(), Diag> {
        if let Some((first, kind)) = self.names.get(full) {
            return Err(Diag::new(
                pos,
                format!(
                    "the name `{full}` is already used by the {kind} declared at line {}",
                    first.line
                ),
            ));
        }
        self.names.insert(full.to_string(), (pos, what));
        Ok(())
    }

    fn obj_ref(&mut self, e: &Expr, scope: &Scope, field: &str) -> Result<ObjRef, Diag> {
        let ExprKind::Name(path) = &e.kind else {
            return Err(Diag::new(
                e.pos,
                format!("`{field}` expects the name of an object"),
            ));
        };
        let path = self.render_path(path, scope)?;
        Ok(ObjRef {
            path,
            prefix: scope.prefix.clone(),
            pos: e.pos,
        })
    }

    fn render_path(&mut self, path: &NamePath, scope: &Scope) -> Result<String, Diag> {
        let mut parts = Vec::new();
        for part in &path.parts {
            let mut text = part.name.clone();
            if !part.index.is_empty() {
                let mut values = Vec::new();
                for e in &part.index {
                    self.mark_structural(e, scope);
                    values.push(eval_integer(e, &self.env(scope))?);
                }
                text.push_str(&index_text(&values));
            }
            parts.push(text);
        }
        Ok(parts.join("."))
    }

    fn quantity(&self, e: &Expr, scope: &Scope, kind: Kind, field: &str) -> Result<Quantity, Diag> {
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
        Ok(q)
    }

    /// The scale of a unit written after a call, checked against the expected quantity.
    fn unit_scale(
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

    fn num(&self, e: &Expr, scope: &Scope, kind: Kind, field: &str) -> Result<f64, Diag> {
        match self.quantity(e, scope, kind, field)?.value {
            Value::Num(v) => Ok(v),
            Value::Vector(_) => Err(Diag::new(
                e.pos,
                format!("`{field}` expects a number, found a vector"),
            )),
        }
    }

    fn positive(&self, e: &Expr, scope: &Scope, kind: Kind, field: &str) -> Result<f64, Diag> {
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

    fn non_negative(&self, e: &Expr, scope: &Scope, kind: Kind, field: &str) -> Result<f64, Diag> {
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

    fn vector(
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

    fn vec3(&self, e: &Expr, scope: &Scope, kind: Kind, field: &str) -> Result<Vector3<f64>, Diag> {
        let v = self.vector(e, scope, kind, field, 3)?;
        Ok(Vector3::new(v[0], v[1], v[2]))
    }

    fn positive_vec3(
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

    fn word<'w>(&self, e: &Expr, options: &[&'w str], field: &str) -> Result<&'w str, Diag> {
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

    fn boolean(&self, e: &Expr, scope: &Scope, field: &str) -> Result<bool, Diag> {
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

    fn axis(&self, e: &Expr, scope: &Scope, field: &str) -> Result<Vector3<f64>, Diag> {
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

    fn rotation(&self, e: &Expr, scope: &Scope, field: &str) -> Result<UnitQuaternion<f64>, Diag> {
        let (call, scale) = match &e.kind {
            ExprKind::WithUnit(inner, u) if matches!(&inner.kind, ExprKind::Call(n, _) if n == "cardan") =>
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
                format!("`{field}` expects `axis_angle(axis, angle)` or `cardan(angle_x, angle_y, angle_z)`"),
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
            "cardan" => {
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
                            "`cardan` takes three angles (about x, then the new y, then the new z) or a vector of three",
                        ))
                    }
                };
                let [a, b, c] = angles.map(|x| x * scale);
                Ok(UnitQuaternion::from_axis_angle(&Vector3::x_axis(), a)
                    * UnitQuaternion::from_axis_angle(&Vector3::y_axis(), b)
                    * UnitQuaternion::from_axis_angle(&Vector3::z_axis(), c))
            }
            other => Err(Diag::new(
                call.pos,
                format!("`{other}` is not a rotation: use `axis_angle(axis, angle)` or `cardan(a1, a2, a3)`"),
            )
            .with_help(did_you_mean(other, ["axis_angle", "cardan"]))),
        }
    }

    /// The full name of a declaration `KEYWORD NAME KIND { ... }`: the kind must be one of
    /// `kinds` (else an error with a suggestion), and the name is claimed.
    fn declare_kind(
        &mut self,
        d: &DeclName,
        kind: &Ident,
        scope: &Scope,
        kinds: &[&str],
        unknown: &str,
        what: &'static str,
    ) -> Result<String, Diag> {
        let full = format!("{}{}", scope.prefix, self.decl_name(d, scope)?);
        if !kinds.contains(&kind.name.as_str()) {
            return Err(
                Diag::new(kind.pos, format!("unknown {unknown} `{}`", kind.name))
                    .with_help(did_you_mean(&kind.name, kinds.iter().copied())),
            );
        }
        self.claim(&full, d.base.pos, what)?;
        Ok(full)
    }

    /// Refuses one object more than [`MAX_OBJECTS`].
    fn limit_objects(&self, pos: Pos) -> Result<(), Diag> {
        if self.objects.len() >= MAX_OBJECTS {
            return Err(Diag::new(
                pos,
                format!(
                    "the model declares more than {MAX_OBJECTS} objects (mate connectors \
                     included), more than the engine can simulate; check the bounds of its \
                     `for` loops"
                ),
            ));
        }
        Ok(())
    }

    fn object(&mut self, d: &DeclName, body: &Block, scope: &Scope) -> Result<(), Diag> {
        let full = format!("{}{}", scope.prefix, self.decl_name(d, scope)?);
        self.claim(&full, d.base.pos, "object")?;
        self.limit_objects(d.base.pos)?;
        let what = format!("object `{full}`");
        let f = Fields::new(
            body,
            &["parent", "position", "rotation", "output"],
            &["shape", "mass", "visual", "contact", "mate"],
            &what,
        )?;
        let parent = match f.get("parent") {
            Some(e) => Some(self.obj_ref(e, scope, "parent")?),
            None => None,
        };
        let position = match f.get("position") {
            Some(e) => self.vec3(e, scope, Kind::Length, "position")?,
            None => Vector3::zeros(),
        };
        let rotation = match f.get("rotation") {
            Some(e) => self.rotation(e, scope, "rotation")?,
            None => UnitQuaternion::identity(),
        };
        let output = match f.get("output") {
            Some(e) => self.boolean(e, scope, "output")?,
            None => false,
        };
        let shape = match f.sub("shape") {
            Some((kw, kind, b)) => Some(self.shape(kw, kind, b, scope)?),
            None => None,
        };
        let visual = match f.sub("visual") {
            Some((_, kind, b)) => {
                no_kind(kind, "visual")?;
                Some(self.visual(b, scope)?)
            }
            None => None,
        };
        let mass = match f.sub("mass") {
            Some((_, kind, b)) => {
                no_kind(kind, "mass")?;
                Some(self.mass(b, shape.as_ref(), scope, &full)?)
            }
            None => None,
        };
        let contact = match f.sub("contact") {
            Some((kw, kind, b)) => {
                no_kind(kind, "contact")?;
                if shape.is_none() {
                    return Err(Diag::new(
                        kw.pos,
                        format!("{what} has a `contact` but no `shape` that could collide"),
                    ));
                }
                Some(self.contact(b, scope)?)
            }
            None => None,
        };
        let placement = f.pos_of("position").or(f.pos_of("rotation"));
        self.objects.push(RawObject {
            spec: ObjectSpec {
                name: full.clone(),
                parent: None,
                position,
                rotation,
                shape,
                visual,
                mass,
                contact,
                output,
                location: self.location(d.base.pos),
            },
            parent,
            placement,
            connector: false,
            pos: d.base.pos,
        });
        for (_, name, b) in f.subs.iter().filter(|(k, _, _)| k.name == "mate") {
            self.mate(&full, *name, b, scope, d.base.pos)?;
        }
        Ok(())
    }

    /// A mate connector `mate NAME { position; main_axis; normal }` of object `owner`: a frame
    /// `owner.NAME` rigidly attached to it, with its z axis along `main_axis` and its x axis
    /// along `normal` (made orthogonal to the main axis; any orthogonal direction when absent).
    fn mate(
        &mut self,
        owner: &str,
        name: Option<&Ident>,
        b: &Block,
        scope: &Scope,
        at: Pos,
    ) -> Result<(), Diag> {
        let Some(name) = name else {
            return Err(Diag::new(
                at,
                "`mate` needs a name: `mate center { main_axis = z }`",
            ));
        };
        let full = format!("{owner}.{}", name.name);
        self.claim(&full, name.pos, "mate connector")?;
        self.limit_objects(name.pos)?;
        let what = format!("mate connector `{full}`");
        let f = Fields::new(b, &["position", "main_axis", "normal"], &[], &what)?;
        let position = match f.get("position") {
            Some(e) => self.vec3(e, scope, Kind::Length, "position")?,
            None => Vector3::zeros(),
        };
        let z = self.axis(f.require("main_axis", name.pos)?, scope, "main_axis")?;
        let x = match f.get("normal") {
            Some(e) => {
                let n = self.axis(e, scope, "normal")?;
                let x = n - z * n.dot(&z);
                if x.norm() < 1e-9 {
                    return Err(Diag::new(
                        e.pos,
                        format!(
                            "{what}: `normal` is parallel to `main_axis`; it must point across it"
                        ),
                    ));
                }
                x.normalize()
            }
            None => {
                let helper = if z.x.abs() < 0.9 {
                    Vector3::x()
                } else {
                    Vector3::y()
                };
                (helper - z * helper.dot(&z)).normalize()
            }
        };
        let y = z.cross(&x);
        let rotation = UnitQuaternion::from_matrix(&Matrix3::from_columns(&[x, y, z]));
        let path = owner
            .strip_prefix(scope.prefix.as_str())
            .unwrap_or(owner)
            .to_string();
        self.objects.push(RawObject {
            spec: ObjectSpec {
                name: full,
                parent: None,
                position,
                rotation,
                shape: None,
                visual: None,
                mass: None,
                contact: None,
                output: false,
                location: self.location(name.pos),
            },
            parent: Some(ObjRef {
                path,
                prefix: scope.prefix.clone(),
                pos: name.pos,
            }),
            placement: Some(name.pos),
            connector: true,
            pos: name.pos,
        });
        Ok(())
    }

    fn shape(
        &self,
        kw: &Ident,
        kind: Option<&Ident>,
        b: &Block,
        scope: &Scope,
    ) -> Result<ShapeSpec, Diag> {
        const KINDS: [&str; 6] = ["sphere", "box", "cylinder", "capsule", "cone", "ellipsoid"];
        let Some(kind) = kind else {
            return Err(Diag::new(
                kw.pos,
                "`shape` needs a kind: `shape sphere { diameter = ... }`",
            )
            .with_help(Some(format!("the shapes are: {}", KINDS.join(", ")))));
        };
        let what = format!("shape `{}`", kind.name);
        let len = Kind::Length;
        match kind.name.as_str() {
            "sphere" => {
                let f = Fields::new(b, &["diameter"], &[], &what)?;
                Ok(ShapeSpec::Sphere {
                    diameter: self.positive(
                        f.require("diameter", kind.pos)?,
                        scope,
                        len,
                        "diameter",
                    )?,
                })
            }
            "box" | "ellipsoid" => {
                let f = Fields::new(b, &["lengths"], &[], &what)?;
                let lengths =
                    self.positive_vec3(f.require("lengths", kind.pos)?, scope, len, "lengths")?;
                Ok(if kind.name == "box" {
                    ShapeSpec::Box { lengths }
                } else {
                    ShapeSpec::Ellipsoid { lengths }
                })
            }
            "cylinder" | "capsule" | "cone" => {
                let f = Fields::new(b, &["diameter", "length"], &[], &what)?;
                let diameter =
                    self.positive(f.require("diameter", kind.pos)?, scope, len, "diameter")?;
                let length = self.positive(f.require("length", kind.pos)?, scope, len, "length")?;
                Ok(match kind.name.as_str() {
                    "cylinder" => ShapeSpec::Cylinder { diameter, length },
                    "capsule" => ShapeSpec::Capsule { diameter, length },
                    _ => ShapeSpec::Cone { diameter, length },
                })
            }
            other => Err(Diag::new(kind.pos, format!("unknown shape `{other}`"))
                .with_help(did_you_mean(other, KINDS))),
        }
    }

    fn solid_material<'e>(&self, e: &'e Expr, field: &str) -> Result<&'e str, Diag> {
        let names: Vec<&str> = materials::MATERIALS.iter().map(|m| m.name).collect();
        self.word(e, &names, field)
    }

    fn contact(&self, b: &Block, scope: &Scope) -> Result<ContactSpec, Diag> {
        let f = Fields::new(b, &["material", "smoothing"], &[], "contact")?;
        let material = self
            .solid_material(f.require("material", b.pos)?, "material")?
            .to_string();
        let smoothing = match f.get("smoothing") {
            Some(e) => Some(self.positive(e, scope, Kind::Length, "smoothing")?),
            None => None,
        };
        Ok(ContactSpec {
            material,
            smoothing,
        })
    }

    fn contact_pair(
        &self,
        materials: &[Ident; 2],
        b: &Block,
        pos: Pos,
        scope: &Scope,
    ) -> Result<ContactPairSpec, Diag> {
        let names: Vec<&str> = materials::MATERIALS.iter().map(|m| m.name).collect();
        for m in materials {
            if !names.contains(&m.name.as_str()) {
                return Err(
                    Diag::new(m.pos, format!("unknown solid material `{}`", m.name))
                        .with_help(did_you_mean(&m.name, names.iter().copied())),
                );
            }
        }
        let f = Fields::new(
            b,
            &["cor", "mu_k", "mu_s", "mu_r", "v_small", "w_small"],
            &[],
            "contact_pair",
        )?;
        let coefficient = |field: &str, max: f64| -> Result<f64, Diag> {
            let e = f.require(field, b.pos)?;
            let value = self.num(e, scope, Kind::Dimensionless, field)?;
            if !(0.0..=max).contains(&value) {
                return Err(Diag::new(
                    e.pos,
                    format!("`{field}` must be between 0 and {max}, found {value}"),
                ));
            }
            Ok(value)
        };
        let mu_k = coefficient("mu_k", 10.0)?;
        let mu_s = match f.get("mu_s") {
            None => None,
            Some(e) => {
                let value = self.num(e, scope, Kind::Dimensionless, "mu_s")?;
                if !(mu_k..=10.0).contains(&value) {
                    return Err(Diag::new(
                        e.pos,
                        format!(
                            "`mu_s` must be between `mu_k` ({mu_k}) and 10, found {value}: static \
                             friction is at least the sliding friction"
                        ),
                    ));
                }
                Some(value)
            }
        };
        Ok(ContactPairSpec {
            materials: [materials[0].name.clone(), materials[1].name.clone()],
            cor: coefficient("cor", 1.0)?,
            mu_k,
            mu_s,
            mu_r: coefficient("mu_r", 10.0)?,
            v_small: self.regularization(&f, "v_small", Kind::Velocity, scope)?,
            w_small: self.regularization(&f, "w_small", Kind::AngularVelocity, scope)?,
            location: self.location(pos),
        })
    }

    /// An optional regularization speed of a contact pair: a positive value of its unit.
    fn regularization(
        &self,
        f: &Fields,
        field: &str,
        kind: Kind,
        scope: &Scope,
    ) -> Result<Option<f64>, Diag> {
        let Some(e) = f.get(field) else {
            return Ok(None);
        };
        let value = self.num(e, scope, kind, field)?;
        if !(value.is_finite() && value > 0.0) {
            return Err(Diag::new(
                e.pos,
                format!("`{field}` must be greater than zero, found {value}"),
            ));
        }
        Ok(Some(value))
    }

    fn visual(&self, b: &Block, scope: &Scope) -> Result<VisualSpec, Diag> {
        let f = Fields::new(b, &["color", "transparency"], &[], "visual")?;
        let color = match f.get("color") {
            None => [128, 128, 128],
            Some(e) => {
                if let Some(w) = match &e.kind {
                    ExprKind::Name(p) => p.word(),
                    _ => None,
                } {
                    COLORS.iter().find(|(n, _)| *n == w).map(|(_, c)| *c).ok_or_else(|| {
                        Diag::new(e.pos, format!("unknown color `{w}`: give `[red, green, blue]` (0 to 255) or a color name"))
                            .with_help(did_you_mean(w, COLORS.iter().map(|(n, _)| *n)))
                    })?
                } else {
                    let v = self.vector(e, scope, Kind::Dimensionless, "color", 3)?;
                    let mut c = [0u8; 3];
                    for (k, x) in v.iter().enumerate() {
                        if !(0.0..=255.0).contains(x) {
                            return Err(Diag::new(
                                e.pos,
                                format!("a color component must be between 0 and 255, found {x}"),
                            ));
                        }
                        c[k] = x.round() as u8;
                    }
                    c
                }
            }
        };
        let transparency = match f.get("transparency") {
            None => 0.0,
            Some(e) => {
                let t = self.num(e, scope, Kind::Dimensionless, "transparency")?;
                if !(0.0..=1.0).contains(&t) {
                    return Err(Diag::new(e.pos, format!("`transparency` must be between 0 (opaque) and 1 (invisible), found {t}")));
                }
                t
            }
        };
        Ok(VisualSpec {
            color,
            transparency,
        })
    }

    fn mass(
        &self,
        b: &Block,
        shape: Option<&ShapeSpec>,
        scope: &Scope,
        object: &str,
    ) -> Result<MassSpec, Diag> {
        let f = Fields::new(
            b,
            &["m", "center", "inertia", "density", "material"],
            &[],
            "mass",
        )?;
        let density = match (f.get("density"), f.get("material")) {
            (Some(_), Some(_)) => {
                let pos = f.pos_of("material").unwrap_or(b.pos);
                return Err(Diag::new(
                    pos,
                    "give either `density` or `material`, not both",
                ));
            }
            (Some(e), None) => Some(self.positive(e, scope, Kind::Density, "density")?),
            (None, Some(e)) => {
                let names: Vec<&str> = materials::MATERIALS.iter().map(|m| m.name).collect();
                let w = self.word(e, &names, "material")?;
                materials::lookup(w).map(|m| m.density)
            }
            (None, None) => None,
        };
        if let Some(rho) = density {
            for field in ["m", "center", "inertia"] {
                if let Some(pos) = f.pos_of(field) {
                    return Err(Diag::new(
                        pos,
                        format!("`{field}` cannot be given together with a density or a material: the mass properties follow from the shape"),
                    ));
                }
            }
            let Some(shape) = shape else {
                return Err(Diag::new(
                    b.pos,
                    format!("object `{object}` has a density or material but no shape to compute its mass from"),
                )
                .with_help(Some("add `shape KIND { ... }` or give `m`, `center` and `inertia`".into())));
            };
            return Ok(mass::from_density(shape, rho));
        }
        let Some(m_expr) = f.get("m") else {
            return Err(Diag::new(
                b.pos,
                "`mass` needs `m` (with optional `center` and `inertia`), `density` or `material`",
            ));
        };
        let m = self.positive(m_expr, scope, Kind::Mass, "m")?;
        let center = match f.get("center") {
            Some(e) => self.vec3(e, scope, Kind::Length, "center")?,
            None => Vector3::zeros(),
        };
        let inertia = match f.get("inertia") {
            Some(e) => {
                let i = self.inertia(e, scope)?;
                if let Some(problem) = mass::inertia_problem(&i) {
                    return Err(Diag::new(e.pos, problem));
                }
                i
            }
            None => Matrix3::zeros(),
        };
        Ok(MassSpec {
            mass: m,
            center_of_mass: center,
            inertia,
        })
    }

    fn inertia(&self, e: &Expr, scope: &Scope) -> Result<Matrix3<f64>, Diag> {
        let (inner, scale) = match &e.kind {
            ExprKind::WithUnit(inner, u) if matches!(&inner.kind, ExprKind::Call(n, _) if n == "diag") => {
                (
                    inner.as_ref(),
                    self.unit_scale(u, e.pos, scope, Kind::Inertia, "inertia")?,
                )
            }
            _ => (e, 1.0),
        };
        let v: Vec<f64> = match &inner.kind {
            ExprKind::Call(n, args) if n == "diag" => {
                if args.len() != 3 {
                    return Err(Diag::new(
                        inner.pos,
                        "`diag` takes three moments of inertia: diag(Ixx, Iyy, Izz)",
                    ));
                }
                let mut v = Vec::new();
                for a in args {
                    v.push(self.num(a, scope, Kind::Inertia, "inertia")? * scale);
                }
                v.extend([0.0, 0.0, 0.0]);
                v
            }
            _ => {
                let q = self.quantity(e, scope, Kind::Inertia, "inertia")?;
                match q.value {
                    Value::Vector(v) if v.len() == 6 => v,
                    _ => {
                        return Err(Diag::new(
                            e.pos,
                            "`inertia` expects `diag(Ixx, Iyy, Izz)` or `[Ixx, Iyy, Izz, Ixy, Ixz, Iyz]`",
                        ))
                    }
                }
            }
        };
        Ok(Matrix3::new(
            v[0], v[3], v[4], v[3], v[1], v[5], v[4], v[5], v[2],
        ))
    }

    fn joint(
        &mut self,
        d: &DeclName,
        kind: &Ident,
        body: &Block,
        scope: &Scope,
    ) -> Result<(), Diag> {
        const KINDS: [&str; 5] = ["revolute", "prismatic", "free", "fixed", "spherical"];
        let full = self.declare_kind(d, kind, scope, &KINDS, "joint kind", "joint")?;
        let what = format!("{} joint `{full}`", kind.name);
        let allowed: &[&str] = match kind.name.as_str() {
            "revolute" => &[
                "from",
                "to",
                "axis",
                "phi",
                "w",
                "phi_guess",
                "w_guess",
                "flange",
                "spring",
                "spring_rest",
                "damper",
                "can_collide",
                "output_forces",
                "motion",
            ],
            "prismatic" => &[
                "from",
                "to",
                "axis",
                "s",
                "v",
                "s_guess",
                "v_guess",
                "flange",
                "spring",
                "spring_rest",
                "damper",
                "can_collide",
                "output_forces",
                "motion",
            ],
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
        let kind = match kind.name.as_str() {
            "revolute" | "prismatic" => {
                let revolute = kind.name == "revolute";
                let axis = match f.get("axis") {
                    Some(e) => self.axis(e, scope, "axis")?,
                    None if revolute => Vector3::z(),
                    None => Vector3::x(),
                };
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
                let motion = match f.get("motion") {
                    Some(e) => {
                        let at = f.pos_of("motion").unwrap_or(e.pos);
                        for field in [q_name, v_name, "flange", "spring", "damper"] {
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
                RawJointKind::Moving(if revolute {
                    JointKind::Revolute {
                        axis,
                        phi: q,
                        w: v,
                        fixed,
                        flange,
                        spring,
                        damper,
                        motion: motion.clone(),
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
                        motion,
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

    fn force(
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

    fn gravity_spec(
        &self,
        kind: &Ident,
        body: Option<&Block>,
        scope: &Scope,
    ) -> Result<GravitySpec, Diag> {
        const KINDS: [&str; 3] = ["none", "uniform", "point"];
        let empty = Block {
            entries: Vec::new(),
            pos: kind.pos,
        };
        let b = body.unwrap_or(&empty);
        match kind.name.as_str() {
            "none" => {
                Fields::new(b, &[], &[], "gravity none")?;
                Ok(GravitySpec::None)
            }
            "uniform" => {
                let f = Fields::new(b, &["g"], &[], "gravity uniform")?;
                match f.get("g") {
                    Some(e) => Ok(GravitySpec::Uniform {
                        acceleration: self.vec3(e, scope, Kind::Acceleration, "g")?,
                    }),
                    None => Ok(GravitySpec::default()),
                }
            }
            "point" => {
                let f = Fields::new(b, &["center", "mu"], &[], "gravity point")?;
                let center = match f.get("center") {
                    Some(e) => self.vec3(e, scope, Kind::Length, "center")?,
                    None => Vector3::zeros(),
                };
                let mu = self.positive(
                    f.require("mu", kind.pos)?,
                    scope,
                    Kind::GravitationalParameter,
                    "mu",
                )?;
                Ok(GravitySpec::Point { center, mu })
            }
            other => Err(
                Diag::new(kind.pos, format!("unknown kind of gravity `{other}`"))
                    .with_help(did_you_mean(other, KINDS)),
            ),
        }
    }

    fn experiment_spec(&self, b: &Block, scope: &Scope) -> Result<ExperimentSpec, Diag> {
        let f = Fields::new(
            b,
            &["start_time", "stop_time", "interval", "tolerance"],
            &[],
            "experiment",
        )?;
        let mut e = ExperimentSpec::default();
        if let Some(x) = f.get("start_time") {
            e.start_time = self.num(x, scope, Kind::Time, "start_time")?;
        }
        if let Some(x) = f.get("stop_time") {
            e.stop_time = self.num(x, scope, Kind::Time, "stop_time")?;
            if e.stop_time <= e.start_time {
                return Err(Diag::new(
                    x.pos,
                    format!(
                        "`stop_time` ({} s) must be after `start_time` ({} s)",
                        e.stop_time, e.start_time
                    ),
                ));
            }
        }
        if let Some(x) = f.get("interval") {
            e.interval = self.positive(x, scope, Kind::Time, "interval")?;
        }
        if let Some(x) = f.get("tolerance") {
            e.tolerance = self.positive(x, scope, Kind::Dimensionless, "tolerance")?;
            if e.tolerance >= 1.0 {
                return Err(Diag::new(
                    x.pos,
                    "`tolerance` is a relative tolerance and must be less than 1",
                ));
            }
        }
        if e.stop_time <= e.start_time {
            return Err(Diag::new(b.pos, "`stop_time` must be after `start_time`"));
        }
        Ok(e)
    }

    fn instance(
        &mut self,
        d: &DeclName,
        assembly: &Ident,
        args: &[(Ident, Expr)],
        body: Option<&Block>,
        pos: Pos,
        scope: &Scope,
    ) -> Result<(), Diag> {
        let Some(&def) = self.assemblies.get(&assembly.name) else {
            let names: Vec<&str> = self.assemblies.keys().map(String::as_str).collect();
            return Err(Diag::new(
                assembly.pos,
                format!("unknown assembly `{}`", assembly.name),
            )
            .with_help(did_you_mean(&assembly.name, names)));
        };
        let Stmt::Assembly {
            params,
            body: def_body,
            ..
        } = def
        else {
            return Err(Diag::new(pos, "internal: not an assembly"));
        };
        if self.stack.contains(&assembly.name) {
            return Err(Diag::new(
                assembly.pos,
                format!(
                    "assembly `{}` contains itself ({} → {})",
                    assembly.name,
                    self.stack.join(" → "),
                    assembly.name
                ),
            ));
        }
        let local = self.decl_name(d, scope)?;
        let full = format!("{}{}", scope.prefix, local);
        if let Some(first) = self.instances.get(&full) {
            return Err(Diag::new(
                d.base.pos,
                format!(
                    "instance `{full}` is already declared at line {}",
                    first.line
                ),
            ));
        }
        self.instances.insert(full.clone(), d.base.pos);
        let mut given: HashMap<&str, &Expr> = HashMap::new();
        for (name, e) in args {
            if !params.iter().any(|p| p.name.name == name.name) {
                let names: Vec<&str> = params.iter().map(|p| p.name.name.as_str()).collect();
                return Err(Diag::new(
                    name.pos,
                    format!(
                        "assembly `{}` has no parameter `{}`",
                        assembly.name, name.name
                    ),
                )
                .with_help(did_you_mean(&name.name, names)));
            }
            if given.insert(&name.name, e).is_some() {
                return Err(Diag::new(
                    name.pos,
                    format!("parameter `{}` is given twice", name.name),
                ));
            }
        }
        let mut inner = Scope {
            prefix: format!("{full}."),
            params: HashMap::new(),
            vars: Vec::new(),
        };
        for p in params {
            let arg = given.get(p.name.name.as_str()).map(|e| (*e, scope));
            if arg.is_none() && p.value.is_none() {
                return Err(Diag::new(
                    assembly.pos,
                    format!(
                        "instance `{full}` needs a value for parameter `{}` of assembly `{}`",
                        p.name.name, assembly.name
                    ),
                ));
            }
            self.parameter(p, &mut inner, arg)?;
        }
        let first_object = self.objects.len();
        self.stack.push(assembly.name.clone());
        let result = self.statements(def_body, &mut inner, Context::Assembly);
        self.stack.pop();
        result?;
        if let Some(b) = body {
            let f = Fields::new(
                b,
                &["parent", "position", "rotation"],
                &[],
                &format!("the placement of instance `{full}`"),
            )?;
            let parent = match f.get("parent") {
                Some(e) => Some(self.obj_ref(e, scope, "parent")?),
                None => None,
            };
            let position = match f.get("position") {
                Some(e) => Some(self.vec3(e, scope, Kind::Length, "position")?),
                None => None,
            };
            let rotation = match f.get("rotation") {
                Some(e) => Some(self.rotation(e, scope, "rotation")?),
                None => None,
            };
            let Some(obj) = self.objects.get_mut(first_object) else {
                return Err(Diag::new(
                    b.pos,
                    format!("instance `{full}` has no object to place"),
                ));
            };
            if let (Some(_), Some(new_parent)) = (&obj.parent, &parent) {
                return Err(Diag::new(
                    new_parent.pos,
                    format!("the first object `{}` of instance `{full}` already has a parent in assembly `{}`", obj.spec.name, assembly.name),
                ));
            }
            if parent.is_some() {
                obj.parent = parent;
            }
            if let Some(p) = position {
                obj.spec.position = p;
                obj.placement = obj.placement.or(Some(b.pos));
            }
            if let Some(r) = rotation {
                obj.spec.rotation = r;
                obj.placement = obj.placement.or(Some(b.pos));
            }
        }
        Ok(())
    }

    // ---- whole-model checks ------------------------------------------------------------------

    fn resolve(&self, r: &ObjRef, index: &HashMap<String, usize>) -> Result<String, Diag> {
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
    fn root(&self, name: &str, index: &HashMap<String, usize>) -> String {
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
    fn snap(
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
    fn roots(&self, index: &HashMap<String, usize>) -> Vec<String> {
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
    fn check_parent_chains(&self, index: &HashMap<String, usize>) -> Result<(), Diag> {
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

    fn finish(mut self) -> Result<ModelSpec, Diag> {
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

fn no_kind(kind: Option<&Ident>, block: &str) -> Result<(), Diag> {
    match kind {
        Some(k) => Err(Diag::new(
            k.pos,
            format!("`{block}` takes no kind: write `{block} {{ ... }}`"),
        )),
        None => Ok(()),
    }
}

/// The file's stem, made into an identifier: `models/pendulum.m3d` → `pendulum`.
fn default_model_name(file: &str) -> String {
    let stem = std::path::Path::new(file)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("model");
    let name: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.is_empty() {
        "model".into()
    } else {
        name
    }
}
