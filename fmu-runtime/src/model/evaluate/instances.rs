//! Assembly instances: a model used inside another, with its parameters bound and its
//! names prefixed.

use super::*;

impl<'a> Evaluator<'a> {
    pub(super) fn instance(
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
}
