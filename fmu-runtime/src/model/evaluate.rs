//! Syntax tree → [`ModelSpec`]: parameters (with overrides), assembly instances, `for` loops,
//! field values with units, then the checks that need the whole model (names, parents, joints).
//!
//! This file holds the evaluator's state and the statements (parameters, names, scopes); what
//! each statement declares is read in its own room:
//!
//! - [`values`]: a field's value with its unit, vectors, axes, rotations;
//! - [`objects`]: `object` with its mates, shape, contact, visual and mass;
//! - [`joints`]: `joint` and `force`;
//! - [`drive`]: `drive` chains, read once the joints are known;
//! - [`settings`]: `gravity` and `experiment`;
//! - [`instances`]: a model used inside another;
//! - [`finish`]: the whole-model checks and the [`ModelSpec`].

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
mod finish;
mod instances;
mod joints;
mod objects;
mod settings;
mod values;

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
            let from_default = decl.value.as_ref().and_then(|e| self.unit_of(e, scope));
            match (from_default, arg) {
                (None, Some((e, outer))) => self.unit_of(e, outer),
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
                match crate::model::units::OutOfRange::check(&[v], None) {
                    None => v,
                    Some(crate::model::units::OutOfRange::NotFinite) => {
                        return Err(Diag::new(
                            name.pos,
                            format!("the value {v} given for parameter `{full}` is not finite"),
                        ));
                    }
                    Some(problem) => {
                        return Err(Diag::new(
                            name.pos,
                            format!(
                                "the value {v:e} given for parameter `{full}` {}: {}",
                                problem.what(),
                                problem.limit()
                            ),
                        ));
                    }
                }
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
    fn unit_of(&self, e: &Expr, scope: &Scope) -> Option<Kind> {
        if let ExprKind::WithUnit(_, u) = &e.kind {
            return super::units::lookup(&u.text).map(|u| u.kind);
        }
        expr::linear_in(e)
            .filter(|n| !scope.vars.iter().any(|(v, _)| v == n))
            .and_then(|n| scope.params.get(&n).copied())
            .and_then(|i| self.params[i].spec.unit)
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
    if stem.is_empty() {
        "model".into()
    } else {
        crate::fmu::identifier(stem)
    }
}
