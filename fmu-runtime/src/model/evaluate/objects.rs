//! Object3D declarations and their components: mate connectors, shapes, contact
//! materials and pairs, visuals, mass properties.

use super::*;

impl<'a> Evaluator<'a> {
    /// Refuses one object more than [`MAX_OBJECTS`].
    pub(super) fn limit_objects(&self, pos: Pos) -> Result<(), Diag> {
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

    pub(super) fn object(&mut self, d: &DeclName, body: &Block, scope: &Scope) -> Result<(), Diag> {
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
    pub(super) fn mate(
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

    pub(super) fn shape(
        &self,
        kw: &Ident,
        kind: Option<&Ident>,
        b: &Block,
        scope: &Scope,
    ) -> Result<ShapeSpec, Diag> {
        const KINDS: [&str; 7] = [
            "sphere",
            "box",
            "cylinder",
            "capsule",
            "cone",
            "ellipsoid",
            "mesh",
        ];
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
            "mesh" => {
                let f = Fields::new(b, &["file", "files", "scale", "collision"], &[], &what)?;
                self.mesh(&f, kind, scope)
            }
            other => Err(Diag::new(kind.pos, format!("unknown shape `{other}`"))
                .with_help(did_you_mean(other, KINDS))),
        }
    }

    /// A `shape mesh`: its files read relative to the model file's folder, scaled.
    fn mesh(&self, f: &Fields, kind: &Ident, scope: &Scope) -> Result<ShapeSpec, Diag> {
        let names: Vec<(String, Pos)> =
            match (f.get("file"), f.get("files")) {
                (Some(e), None) => vec![(self.string(e, "file")?, e.pos)],
                (None, Some(e)) => match &e.kind {
                    ExprKind::Vector(items) if !items.is_empty() => items
                        .iter()
                        .map(|item| Ok((self.string(item, "files")?, item.pos)))
                        .collect::<Result<_, Diag>>()?,
                    _ => return Err(Diag::new(
                        e.pos,
                        "`files` expects a list of file names: `files = [\"a.stl\", \"b.stl\"]`",
                    )),
                },
                (Some(e), Some(_)) => {
                    return Err(Diag::new(
                        e.pos,
                        "a mesh has either `file` or `files`, not both",
                    ))
                }
                (None, None) => {
                    return Err(Diag::new(kind.pos, "shape `mesh` needs the field `file`")
                        .with_help(Some("`shape mesh { file = \"part.stl\" }`".into())))
                }
            };
        let scale = match f.get("scale") {
            None => Vector3::repeat(1.0),
            Some(e) if matches!(e.kind, ExprKind::Vector(_)) => {
                self.vec3(e, scope, Kind::Dimensionless, "scale")?
            }
            Some(e) => Vector3::repeat(self.num(e, scope, Kind::Dimensionless, "scale")?),
        };
        if let Some(e) = f.get("scale") {
            if !scale.iter().all(|s| s.is_finite() && *s != 0.0) {
                return Err(Diag::new(
                    e.pos,
                    format!(
                        "`scale` must be finite and not zero, found [{}, {}, {}]",
                        scale.x, scale.y, scale.z
                    ),
                ));
            }
        }
        let collision = match f.get("collision") {
            None => MeshCollision::Hull,
            Some(e) => match self.word(e, &["hull", "pieces"], "collision")? {
                "hull" => MeshCollision::Hull,
                _ => MeshCollision::Pieces,
            },
        };
        let folder = std::path::Path::new(self.file)
            .parent()
            .unwrap_or(std::path::Path::new(""));
        let mut files = Vec::new();
        let mut digests = Vec::new();
        let mut pieces = Vec::new();
        for (name, pos) in names {
            let relative = std::path::Path::new(&name);
            let escapes = relative.is_absolute()
                || relative.components().any(|c| {
                    !matches!(
                        c,
                        std::path::Component::Normal(_) | std::path::Component::CurDir
                    )
                });
            if escapes || name.contains('\\') {
                return Err(Diag::new(
                    pos,
                    format!("the mesh file `{name}` must be named relative to the model file's folder, inside it, with `/` between folders"),
                )
                .with_help(Some(
                    "an FMU carries its meshes in resources/ beside the model: move the file into the model's folder (or a folder below it) and name it from there".into(),
                )));
            }
            let path = folder.join(relative);
            let bytes = std::fs::read(&path).map_err(|e| {
                Diag::new(
                    pos,
                    format!("cannot read the mesh file `{}`: {e}", path.display()),
                )
            })?;
            let read = crate::mesh::read_pieces(&path, &bytes)
                .map_err(|e| Diag::new(pos, format!("mesh file `{}`: {e}", path.display())))?;
            digests.push(crate::mesh::digest(&bytes));
            pieces.extend(read.iter().map(|p| p.scaled(&scale)));
            files.push(name);
        }
        // Each piece closed (a convex decomposition), or the pieces together one closed surface
        // (a part a CAD tool split into several objects along its seams).
        let open_edges = match pieces.iter().map(|p| p.open_edges()).sum() {
            0 => 0,
            _ => crate::mesh::TriangleMesh::from_corners(
                pieces.iter().flat_map(|p| p.corners()).collect::<Vec<_>>(),
            )
            .open_edges(),
        };
        Ok(ShapeSpec::Mesh(std::sync::Arc::new(MeshSpec {
            files,
            digests,
            scale,
            collision,
            pieces,
            open_edges,
        })))
    }

    /// A string field's text.
    fn string(&self, e: &Expr, field: &str) -> Result<String, Diag> {
        match &e.kind {
            ExprKind::Str(text) => Ok(text.clone()),
            _ => Err(Diag::new(
                e.pos,
                format!("`{field}` expects a file name in quotes: `{field} = \"part.stl\"`"),
            )),
        }
    }

    /// A collision group's name: a single word, as `group = arm`.
    fn group_name(&self, e: &Expr) -> Result<String, Diag> {
        if let ExprKind::Name(p) = &e.kind {
            if let Some(word) = p.word() {
                return Ok(word.to_string());
            }
        }
        Err(Diag::new(
            e.pos,
            "`group` expects a name: `group = arm` (shapes of one group do not collide with each \
             other)",
        ))
    }

    pub(super) fn solid_material<'e>(&self, e: &'e Expr, field: &str) -> Result<&'e str, Diag> {
        let names: Vec<&str> = materials::MATERIALS.iter().map(|m| m.name).collect();
        self.word(e, &names, field)
    }

    pub(super) fn contact(&self, b: &Block, scope: &Scope) -> Result<ContactSpec, Diag> {
        let f = Fields::new(b, &["material", "smoothing", "group"], &[], "contact")?;
        let material = self
            .solid_material(f.require("material", b.pos)?, "material")?
            .to_string();
        let smoothing = match f.get("smoothing") {
            Some(e) => Some(self.positive(e, scope, Kind::Length, "smoothing")?),
            None => None,
        };
        let group = match f.get("group") {
            Some(e) => Some(self.group_name(e)?),
            None => None,
        };
        Ok(ContactSpec {
            material,
            smoothing,
            group,
        })
    }

    pub(super) fn contact_pair(
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
    pub(super) fn regularization(
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

    pub(super) fn visual(&self, b: &Block, scope: &Scope) -> Result<VisualSpec, Diag> {
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

    pub(super) fn mass(
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
            if let ShapeSpec::Mesh(mesh) = shape {
                if mesh.open_edges > 0 {
                    return Err(Diag::new(
                        b.pos,
                        format!(
                            "object `{object}`: the mesh {} is not a closed, consistently oriented surface ({} open edges), so it bounds no volume to compute a mass from",
                            mesh.files.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", "),
                            mesh.open_edges
                        ),
                    )
                    .with_help(Some(
                        "close the mesh's holes and orient its triangles outwards in the CAD or mesh tool (e.g. a watertight STL export), or give `m`, `center` and `inertia` by hand".into(),
                    )));
                }
            }
            let properties = mass::from_density(shape, rho);
            if let Some(problem) = mass::out_of_range(&properties) {
                return Err(Diag::new(
                    b.pos,
                    format!("object `{object}`: {problem}, from its shape's size and density"),
                )
                .with_help(Some(
                    "check the parameters the shape's dimensions are computed from".into(),
                )));
            }
            return Ok(properties);
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

    pub(super) fn inertia(&self, e: &Expr, scope: &Scope) -> Result<Matrix3<f64>, Diag> {
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
}
