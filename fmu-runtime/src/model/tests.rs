//! The example models, malformed inputs and parameter overrides.

use super::*;
use nalgebra::Vector3;

const PENDULUM: &str = include_str!("../../../models/pendulum.m3d");
const DOUBLE_PENDULUM: &str = include_str!("../../../models/double_pendulum.m3d");
const TUMBLING_BODY: &str = include_str!("../../../models/tumbling_body.m3d");
const SPRING_BODY: &str = include_str!("../../../models/spring_body.m3d");
const CHAIN: &str = include_str!("../../../models/chain.m3d");

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + a.abs().max(b.abs()))
}

fn load(src: &str) -> ModelSpec {
    match load_str(src, "test.m3d") {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    }
}

fn param<'a>(spec: &'a ModelSpec, name: &str) -> &'a ParameterSpec {
    spec.parameters
        .iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("no parameter {name}"))
}

fn object<'a>(spec: &'a ModelSpec, name: &str) -> &'a ObjectSpec {
    spec.objects
        .iter()
        .find(|o| o.name == name)
        .unwrap_or_else(|| panic!("no object {name}"))
}

#[test]
fn pendulum() {
    let s = load(PENDULUM);
    assert_eq!(s.name, "pendulum");
    assert_eq!(s.description.as_deref(), Some("Damped pendulum"));
    assert_eq!(s.parameters.len(), 3);
    let phi0 = param(&s, "phi0");
    assert!(close(phi0.value, 10.0 * std::f64::consts::PI / 180.0));
    assert_eq!(units::name(phi0.unit), "rad");
    assert_eq!(units::name(param(&s, "d").unit), "N.m.s/rad");
    assert_eq!(
        param(&s, "m").description.as_deref(),
        Some("mass of the body")
    );
    assert!(!phi0.structural);
    assert_eq!(
        s.experiment,
        ExperimentSpec {
            start_time: 0.0,
            stop_time: 5.0,
            interval: 0.01,
            tolerance: 1e-6
        }
    );
    assert_eq!(
        s.gravity,
        GravitySpec::Uniform {
            acceleration: Vector3::new(0.0, -9.81, 0.0)
        }
    );
    assert_eq!(s.objects.len(), 1);
    let body = &s.objects[0];
    assert_eq!(body.parent, None);
    assert!(body.output);
    assert_eq!(body.shape, Some(ShapeSpec::Sphere { diameter: 0.1 }));
    assert_eq!(
        body.visual,
        Some(VisualSpec {
            color: [255, 0, 0],
            transparency: 0.0
        })
    );
    let m = body.mass.as_ref().unwrap();
    assert_eq!(m.mass, 1.0);
    assert_eq!(m.center_of_mass, Vector3::new(0.5, 0.0, 0.0));
    assert_eq!(m.inertia[(1, 1)], 0.001);
    assert_eq!(body.location.line, 14);
    assert_eq!(s.joints.len(), 1);
    let j = &s.joints[0];
    assert_eq!(
        (j.name.as_str(), j.from.as_str(), j.to.as_str()),
        ("rev", WORLD, "body")
    );
    match &j.kind {
        JointKind::Revolute {
            axis,
            phi,
            w,
            flange,
            spring,
            damper,
            ..
        } => {
            assert_eq!(*axis, Vector3::z());
            assert!(close(*phi, phi0.value));
            assert_eq!(
                (*w, *flange, *spring, *damper),
                (0.0, FlangeMode::Passive, None, Some(0.1))
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn double_pendulum() {
    let s = load(DOUBLE_PENDULUM);
    assert_eq!(s.objects.len(), 4);
    assert_eq!(s.joints.len(), 2);
    let bob2 = object(&s, "bob2");
    assert_eq!(bob2.parent.as_deref(), Some("link2"));
    assert_eq!(bob2.position, Vector3::new(0.8, 0.0, 0.0));
    assert_eq!(bob2.visual.as_ref().unwrap().color, [255, 0, 0]);
    assert_eq!(s.joints[1].from, "bob1");
    match &s.joints[0].kind {
        JointKind::Revolute { phi, damper, .. } => {
            assert!(close(*phi, 0.0));
            assert_eq!(*damper, None);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn tumbling_body() {
    let s = load(TUMBLING_BODY);
    assert_eq!(s.gravity, GravitySpec::None);
    assert_eq!(s.experiment.tolerance, 1e-8);
    let m = s.objects[0].mass.as_ref().unwrap();
    assert_eq!(
        m.inertia,
        nalgebra::Matrix3::from_diagonal(&Vector3::new(1.0, 2.0, 3.0))
    );
    match &s.joints[0].kind {
        JointKind::Free {
            position,
            rotation,
            v,
            w,
        } => {
            assert_eq!(*position, Vector3::zeros());
            assert_eq!(*rotation, nalgebra::UnitQuaternion::identity());
            assert_eq!(*v, Vector3::zeros());
            assert_eq!(*w, Vector3::new(0.01, 2.0, 0.0));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn spring_body() {
    let s = load(SPRING_BODY);
    assert_eq!(s.objects.len(), 3);
    let body = object(&s, "body");
    // Steel cube of 0.1 m: 7850 * 0.001 = 7.85 kg, I = m a^2 / 6.
    let m = body.mass.as_ref().unwrap();
    assert!(close(m.mass, 7.85));
    assert!(close(m.inertia[(2, 2)], 7.85 * 0.01 / 6.0));
    assert_eq!(object(&s, "hook").position, Vector3::new(0.025, 0.05, 0.0));
    assert_eq!(object(&s, "anchor").parent.as_deref(), Some(WORLD));
    assert_eq!(s.forces.len(), 1);
    let f = &s.forces[0];
    assert_eq!((f.from.as_str(), f.to.as_str()), ("anchor", "hook"));
    assert_eq!(
        f.kind,
        ForceKind::SpringDamper {
            stiffness: 500.0,
            length: 0.3,
            damping: 2.0
        }
    );
    match &s.joints[0].kind {
        JointKind::Free { position, .. } => assert_eq!(*position, Vector3::new(0.05, 0.5, 0.0)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn chain_and_structural_parameter() {
    let s = load(CHAIN);
    assert_eq!(s.objects.len(), 1 + 3 * 4);
    assert_eq!(s.joints.len(), 4);
    assert_eq!(s.joints[2].name, "rev[3]");
    assert_eq!(
        (s.joints[2].from.as_str(), s.joints[2].to.as_str()),
        ("tip[2]", "link[3]")
    );
    assert_eq!(object(&s, "tip[4]").position, Vector3::new(0.25, 0.0, 0.0));
    assert!(object(&s, "link[4]").output && !object(&s, "link[3]").output);
    assert_eq!(
        object(&s, "rod[1]").visual.as_ref().unwrap().color,
        [255, 0, 0]
    );
    assert_eq!(
        object(&s, "rod[2]").visual.as_ref().unwrap().color,
        [0, 0, 255]
    );
    assert!(param(&s, "N").structural);
    assert!(!param(&s, "L").structural);
    assert_eq!(param(&s, "N").unit, None);
    let inertia = object(&s, "rod[1]").mass.as_ref().unwrap().inertia;
    assert!(close(inertia[(1, 1)], 0.2 * 0.0625 / 12.0));

    let s6 = load_str_with(CHAIN, "chain.m3d", &[("N".into(), 6.0), ("L".into(), 0.5)]).unwrap();
    assert_eq!(s6.joints.len(), 6);
    assert_eq!(object(&s6, "tip[6]").position, Vector3::new(0.5, 0.0, 0.0));
    assert_eq!(param(&s6, "L").value, 0.5);
}

#[test]
fn overrides_move_dependent_values() {
    let src = "parameters {\n  L = 1 m\n  h = L/2\n  phi = 30 deg\n}\n\
               object a { parent = world; position = [h, 2*L, 0] }\n";
    let s = load(src);
    assert_eq!(units::name(param(&s, "h").unit), "m");
    assert_eq!(object(&s, "a").position, Vector3::new(0.5, 2.0, 0.0));
    let s2 = load_str_with(src, "t.m3d", &[("L".into(), 3.0)]).unwrap();
    assert_eq!(param(&s2, "L").value, 3.0);
    assert_eq!(param(&s2, "h").value, 1.5);
    assert_eq!(object(&s2, "a").position, Vector3::new(1.5, 6.0, 0.0));
    let e = load_str_with(src, "t.m3d", &[("phj".into(), 1.0)]).unwrap_err();
    assert!(e.message.contains("no parameter `phj`"), "{e}");
    assert_eq!(e.help.as_deref(), Some("did you mean `phi`?"));
}

const FOURBAR_LIKE: &str = "
assembly Bar(Lx = 0.1 m, Ly = 0.2*Lx) {
  object frame0 { shape box { lengths = [Lx, Ly, Ly] }; mass { material = aluminium } }
  object frame1 { parent = frame0; position = [-Lx/2, 0, 0] }
  object frame2 { parent = frame0; position = [ Lx/2, 0, 0] }
}
parameters { L = 1 m }
instance bar1 = Bar(Lx = L)
instance bar2 = Bar(Lx = 0.5 m) { parent = world; position = [1, 0, 0] m }
joint rev1 revolute { from = world; to = bar1.frame1; axis = z }
";

#[test]
fn assemblies_and_instances() {
    let s = load(FOURBAR_LIKE);
    assert_eq!(s.objects.len(), 6);
    let names: Vec<&str> = s.parameters.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["L", "bar1.Lx", "bar1.Ly", "bar2.Lx", "bar2.Ly"]);
    assert!(close(param(&s, "bar1.Ly").value, 0.2));
    assert_eq!(units::name(param(&s, "bar1.Ly").unit), "m");
    assert_eq!(
        object(&s, "bar1.frame1").parent.as_deref(),
        Some("bar1.frame0")
    );
    assert_eq!(
        object(&s, "bar1.frame2").position,
        Vector3::new(0.5, 0.0, 0.0)
    );
    let b2 = object(&s, "bar2.frame0");
    assert_eq!(b2.parent.as_deref(), Some(WORLD));
    assert_eq!(b2.position, Vector3::new(1.0, 0.0, 0.0));
    // Aluminium box 1 x 0.2 x 0.2 m.
    assert!(close(
        object(&s, "bar1.frame0").mass.as_ref().unwrap().mass,
        2700.0 * 0.04
    ));
    assert_eq!(s.joints[0].to, "bar1.frame1");

    let s2 = load_str_with(
        FOURBAR_LIKE,
        "t",
        &[("bar1.Lx".into(), 2.0), ("bar2.Ly".into(), 0.3)],
    )
    .unwrap();
    assert_eq!(
        object(&s2, "bar1.frame2").position,
        Vector3::new(1.0, 0.0, 0.0)
    );
    assert!(close(param(&s2, "bar1.Ly").value, 0.4));
    assert_eq!(param(&s2, "bar2.Ly").value, 0.3);
    let s3 = load_str_with(FOURBAR_LIKE, "t", &[("L".into(), 4.0)]).unwrap();
    assert_eq!(param(&s3, "bar1.Lx").value, 4.0);
}

#[test]
fn instances_in_loops_and_nested_assemblies() {
    let src = "
assembly Ball(d = 0.05 m) {
  object body { shape sphere { diameter = d }; mass { material = billiard_ball } }
  joint j free { from = world; to = body }
}
assembly Pair() {
  instance left = Ball()
  instance right = Ball(d = 0.06 m)
}
parameters { n = 3 }
for i in 1:n {
  instance ball[i] = Ball(d = (0.05 m) + i * (1 mm))
}
instance pair = Pair()
";
    let s = load(src);
    let names: Vec<&str> = s.objects.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "ball[1].body",
            "ball[2].body",
            "ball[3].body",
            "pair.left.body",
            "pair.right.body"
        ]
    );
    assert_eq!(s.joints[1].name, "ball[2].j");
    assert_eq!(s.joints[1].to, "ball[2].body");
    assert!(param(&s, "n").structural);
    assert!(close(param(&s, "ball[3].d").value, 0.053));
    assert!(close(param(&s, "pair.right.d").value, 0.06));
}

/// `rpy(roll, pitch, yaw)` turns about the fixed axes, URDF's R = Rz(yaw) Ry(pitch) Rx(roll),
/// and `cardan` about the moving ones, Rx Ry Rz: with roll and yaw a quarter turn each, rpy
/// takes x to y and y to z, cardan x to z; three other angles against the product by hand, and
/// against cardan's order.
#[test]
fn rpy_turns_about_the_fixed_axes() {
    let s = load(
        "
object a { parent = world; rotation = rpy(90 deg, 0, 90 deg) }
object b { parent = world; rotation = cardan(90 deg, 0, 90 deg) }
object c { parent = world; rotation = rpy([20, -30, 50] deg) }
object d { parent = world; rotation = cardan(50, -30, 20) deg }
",
    );
    let (a, b) = (object(&s, "a").rotation, object(&s, "b").rotation);
    assert!((a * Vector3::x() - Vector3::y()).norm() < 1e-12);
    assert!((a * Vector3::y() - Vector3::z()).norm() < 1e-12);
    // Cardan: Rx(90°) Rz(90°) x = Rx(90°) y = z.
    assert!(
        (b * Vector3::x() - Vector3::z()).norm() < 1e-12,
        "{}",
        b * Vector3::x()
    );
    let (c, d) = (object(&s, "c").rotation, object(&s, "d").rotation);
    let rz = |t: f64| nalgebra::Rotation3::from_axis_angle(&Vector3::z_axis(), t);
    let ry = |t: f64| nalgebra::Rotation3::from_axis_angle(&Vector3::y_axis(), t);
    let rx = |t: f64| nalgebra::Rotation3::from_axis_angle(&Vector3::x_axis(), t);
    let by_hand = rz(50f64.to_radians()) * ry(-30f64.to_radians()) * rx(20f64.to_radians());
    for v in [Vector3::x(), Vector3::y(), Vector3::z()] {
        assert!((c * v - by_hand * v).norm() < 1e-12);
    }
    assert!(
        (c * Vector3::x() - d * Vector3::x()).norm() > 0.1,
        "not cardan's order"
    );
}

#[test]
fn rotations_axes_and_joints() {
    let src = "
object a { parent = world; rotation = axis_angle(z, 90 deg) }
object b { parent = world; rotation = cardan(0, 0, 90 deg) }
object c { parent = world; rotation = cardan([0, 0, 90] deg) }
object d { parent = world; rotation = cardan(90, 0, 0) deg }
object e { }
object f { }
joint p prismatic { from = world; to = e; axis = [0, 3, 4]; s = 5 cm; spring = 2 N/mm; spring_rest = 1 cm; flange = force }
joint fx fixed { from = e; to = f; position = [1, 0, 0] m; rotation = axis_angle(-x, 0.5) }
";
    let s = load(src);
    let v = Vector3::x();
    for name in ["a", "b", "c"] {
        let r = object(&s, name).rotation * v;
        assert!((r - Vector3::y()).norm() < 1e-12, "{name}: {r}");
    }
    let r = object(&s, "d").rotation * Vector3::y();
    assert!((r - Vector3::z()).norm() < 1e-12);
    assert_eq!(s.joints.len(), 1);
    match &s.joints[0].kind {
        JointKind::Prismatic {
            axis,
            s,
            spring,
            flange,
            ..
        } => {
            assert!((axis - Vector3::new(0.0, 0.6, 0.8)).norm() < 1e-12);
            assert!(close(*s, 0.05));
            assert_eq!(*spring, Some((2000.0, 0.01)));
            assert_eq!(*flange, FlangeMode::Force);
        }
        other => panic!("{other:?}"),
    }
    let f = object(&s, "f");
    assert_eq!(f.parent.as_deref(), Some("e"));
    assert_eq!(f.position, Vector3::new(1.0, 0.0, 0.0));
    assert!(close(f.rotation.angle(), 0.5));
}

#[test]
fn expressions() {
    let src = "parameters {
  a = 2 ^ 3 ^ 2
  b = -2 ^ 2
  c = max(1, 5, 3) + min(4, 2) * abs(-1)
  d = a > 100 ? 1 : 0
  e = atan2(1, 1) / pi
  f = (1 + 2) mm
  g = [1, 2, 3] == [1, 2, 3] ? 1 : 0
}";
    let e = load_str(src, "t").unwrap_err();
    assert!(e.message.contains("cannot combine"), "{e}");
    let s = load(&src.replace("  g = [1, 2, 3] == [1, 2, 3] ? 1 : 0\n", ""));
    let v: Vec<f64> = s.parameters.iter().map(|p| p.value).collect();
    assert_eq!(&v[..4], &[512.0, -4.0, 7.0, 1.0]);
    assert!(close(v[4], 0.25));
    assert!(close(v[5], 0.003));
}

/// Loads `src` expecting an error at `line:column` whose message contains `phrase`.
/// Loads `src` as `bad.m3d`, expecting an error containing `phrase` at `line`:`column`.
pub(super) fn fails(src: &str, line: usize, column: usize, phrase: &str) -> ModelError {
    let e = match load_str(src, "bad.m3d") {
        Ok(_) => panic!("expected an error containing {phrase:?}"),
        Err(e) => e,
    };
    assert!(
        e.message.contains(phrase),
        "message {:?} lacks {phrase:?}",
        e.message
    );
    assert_eq!((e.location.line, e.location.column), (line, column), "{e}");
    assert_eq!(e.location.file, "bad.m3d");
    e
}

fn help(e: &ModelError) -> &str {
    e.help.as_deref().unwrap_or("")
}

#[test]
fn errors_of_the_lexer_and_parser() {
    fails(
        "model m \"unfinished\nobject a { }",
        1,
        9,
        "unterminated string",
    );
    fails(
        "object a {\n  parent = world\n",
        1,
        10,
        "unterminated block",
    );
    let e = fails(
        "objet a { parent = world }",
        1,
        1,
        "unknown statement `objet`",
    );
    assert_eq!(help(&e), "did you mean `object`?");
    fails(
        "object a { parent = world } x",
        1,
        29,
        "expected the end of the statement",
    );
    fails(
        "object a { parent = world; position = [1, 2, 0 m }",
        1,
        50,
        "expected `]`",
    );
    fails(
        "object a { parent = world; position $ [1, 2, 0] }",
        1,
        37,
        "unexpected character `$`",
    );
}

#[test]
fn errors_of_keywords_fields_and_names() {
    let e = fails(
        "object a { }\njoint j revolte { from = world; to = a }",
        2,
        9,
        "unknown joint kind",
    );
    assert_eq!(help(&e), "did you mean `revolute`?");
    let e = fails(
        "object a { parent = world; positon = [0, 0, 0] }",
        1,
        28,
        "unknown field `positon`",
    );
    assert_eq!(help(&e), "did you mean `position`?");
    let e = fails(
        "object body { }\njoint j revolute { from = world; to = bdy }",
        2,
        39,
        "unknown object `bdy`",
    );
    assert_eq!(help(&e), "did you mean `body`?");
    let e = fails(
        "parameters { length = 1 m }\nobject a { parent = world; position = [lenght, 0, 0] }",
        2,
        40,
        "unknown name `lenght`",
    );
    assert_eq!(help(&e), "did you mean `length`?");
    let e = fails(
        "object a { parent = world; position = [1, 0, 0] mn }",
        1,
        49,
        "unknown unit `mn`",
    );
    assert_eq!(help(&e), "did you mean `m`?");
    let e = fails(
        "object a { parent = world; position = [1, 0, 0] deg }",
        1,
        49,
        "expects a length, but `deg` is a unit of angle",
    );
    assert!(help(&e).contains("`mm`"), "{e}");
    let e = fails(
        "object a { }\njoint j revolute { from = world; to = a; flange = pasive }",
        2,
        51,
        "not a valid `flange`",
    );
    assert_eq!(help(&e), "did you mean `passive`?");
    let e = fails("object a { mass { material = stel }; shape sphere { diameter = 1 m } }\njoint j free { from = world; to = a }", 1, 30, "not a valid `material`");
    assert_eq!(help(&e), "did you mean `steel`?");
}

#[test]
fn errors_of_the_model_structure() {
    fails(
        "object a { parent = world }\nobject a { parent = world }",
        2,
        8,
        "already used by the object declared at line 1",
    );
    fails(
        "object a { parent = world; parent = world }",
        1,
        28,
        "duplicate field `parent`",
    );
    fails(
        "object a { }\njoint j revolute { to = a }",
        2,
        7,
        "needs the field `from`",
    );
    fails("parameters { a = 1 / (2 - 2) }", 1, 20, "division by zero");
    fails(
        "parameters { a = sqrt(-1) }",
        1,
        18,
        "is not a number (NaN)",
    );
    fails(
        "object a { parent = world; mass { m = -1 kg } }",
        1,
        39,
        "`m` must be greater than zero",
    );
    fails(
        "object a { parent = world; shape box { lengths = [1, 0, 1] m } }",
        1,
        50,
        "must be greater than zero",
    );
    fails(
        "object a { parent = b }\nobject b { parent = a }",
        1,
        8,
        "the parent relations form a loop: a → b → a",
    );
    fails("object a { }\nobject b { }\njoint j1 revolute { from = world; to = a }\njoint j2 revolute { from = b; to = a }", 4, 36, "already the `to` of joint `j1`");
    fails(
        "object a { parent = world }\nobject b { }",
        2,
        8,
        "object `b` is not connected",
    );
    fails("object a { parent = world }\nobject b { parent = world }\njoint j revolute { from = a; to = b }", 3, 35, "rigidly attached to the world");
    fails("object a { parent = world }\nobject b { parent = world; position = [0, 0.1, 0] }\njoint j fixed { from = a; to = b }", 3, 7, "fixed joint `j` contradicts the placement given by the `parent` of `a` (line 1), the `parent` of `b` (line 2): `a` and `b` are 0.1 m apart, their main axes agree, their normals agree");
    fails("object world { }", 1, 8, "cannot be declared");
    fails(
        "object a { parent = world; mass { m = 1 kg; inertia = diag(1, 1, 3) } }",
        1,
        55,
        "triangle inequality",
    );
    fails(
        "object a { parent = world; mass { density = 1000 kg/m3 } }",
        1,
        33,
        "no shape",
    );
    fails(
        "object a { parent = world }\njoint j revolute { from = world; to = a; axis = [0, 0, 0] }",
        2,
        49,
        "vector is zero",
    );
    fails(
        "object a { position = [1, 0, 0] m }\njoint j free { from = world; to = a }",
        1,
        12,
        "no `parent`",
    );
    let e = fails(
        "parameters { a = 1 m + 2 mm }",
        1,
        22,
        "a unit ends the value",
    );
    assert!(help(&e).contains("(1 m) + ..."), "{e}");
    fails(
        "for i in 1:2 { parameters { x = i } }",
        1,
        16,
        "inside a `for` loop",
    );
    let e = fails(
        "assembly Bar(Lx = 1 m) { object o { parent = world } }\ninstance b = Bar(Ly = 2 m)",
        2,
        18,
        "has no parameter `Ly`",
    );
    assert_eq!(help(&e), "did you mean `Lx`?");
    let e = fails("instance b = Baz()", 1, 14, "unknown assembly `Baz`");
    assert_eq!(help(&e), "");
    fails(
        "experiment { stop_time = 1 s; tolerance = 1e-6 s }",
        1,
        48,
        "`tolerance` is a pure number",
    );
    fails(
        "gravity point { center = [0, 0, 0] m }",
        1,
        9,
        "needs the field `mu`",
    );
}

#[test]
fn error_display_format() {
    let e = load_str("objet a { }", "models/x.m3d").unwrap_err();
    assert_eq!(
        e.to_string(),
        "models/x.m3d:1:1: error: unknown statement `objet`\n  help: did you mean `object`?"
    );
}

#[test]
fn truncated_and_absurd_inputs_are_errors_not_panics() {
    for src in [
        PENDULUM,
        DOUBLE_PENDULUM,
        TUMBLING_BODY,
        SPRING_BODY,
        CHAIN,
        FOURBAR_LIKE,
    ] {
        let chars: Vec<char> = src.chars().collect();
        for n in 0..chars.len() {
            let cut: String = chars[..n].iter().collect();
            let _ = load_str(&cut, "cut.m3d");
            let _ = load_str_with(&cut, "cut.m3d", &[("L".into(), f64::NAN)]);
        }
    }
    let deep = format!(
        "parameters {{ a = {}1{} }}",
        "(".repeat(5000),
        ")".repeat(5000)
    );
    assert!(load_str(&deep, "t")
        .unwrap_err()
        .message
        .contains("too deeply nested"));
    let long = format!("parameters {{ a = 1{} }}", "+1".repeat(5000));
    assert!(load_str(&long, "t")
        .unwrap_err()
        .message
        .contains("more than 200 operators"));
    let ok = format!(
        "parameters {{ a = {}1{}{} }}",
        "(".repeat(30),
        "+1".repeat(199),
        ")".repeat(30)
    );
    assert_eq!(load(&ok).parameters[0].value, 200.0);
    let minus = format!("parameters {{ a = {}1 }}", "-".repeat(5000));
    assert!(load_str(&minus, "t").is_err());
    let blocks = format!("object a {}", "{ x ".repeat(5000));
    assert!(load_str(&blocks, "t").is_err());
    let loops = "object a { parent = world }\nfor i in 1:2000 { for j in 1:2000 { } }";
    assert!(load_str(loops, "t")
        .unwrap_err()
        .message
        .contains("more than"));
    let e = load_str_with(PENDULUM, "t", &[("m".into(), f64::NAN)]).unwrap_err();
    assert!(e.message.contains("not finite"), "{e}");
}

#[test]
fn closed_loop_and_point_gravity() {
    let src = format!(
        "{FOURBAR_LIKE}
instance bar3 = Bar(Lx = 1 m)
object pivot {{ parent = world; position = [1, 0, 0] m }}
joint rev2 revolute {{ from = bar1.frame2; to = bar3.frame1 }}
joint rev3 revolute {{ from = pivot; to = bar3.frame2 }}
gravity point {{ center = [0, -6371, 0] km; mu = 3.986e14 m3/s2 }}
"
    );
    let s = load(&src);
    assert_eq!(s.joints.len(), 3);
    assert_eq!(s.joints[2].to, "bar3.frame2");
    assert_eq!(
        s.gravity,
        GravitySpec::Point {
            center: Vector3::new(0.0, -6.371e6, 0.0),
            mu: 3.986e14
        }
    );
}

#[test]
fn contact_blocks_and_contact_pairs() {
    let spec = load(
        "contact_pair steel dry_wood { cor = 0.6; mu_k = 0.4; mu_r = 0.01 }\n\
         object ball {\n\
           shape sphere { diameter = 0.1 m }\n\
           mass { material = steel }\n\
           contact { material = steel; smoothing = 0.5 mm }\n\
         }\n\
         object floor { parent = world; shape box { lengths = [1, 0.1, 1] m }; contact { material = dry_wood } }\n\
         joint float free { from = world; to = ball; position = [0, 1, 0] m }",
    );
    let ball = object(&spec, "ball")
        .contact
        .as_ref()
        .expect("the ball collides");
    assert_eq!(ball.material, "steel");
    assert!(close(ball.smoothing.expect("given"), 0.0005));
    assert_eq!(
        object(&spec, "floor").contact.as_ref().map(|c| c.smoothing),
        Some(None)
    );
    assert_eq!(spec.contact_pairs.len(), 1);
    let pair = &spec.contact_pairs[0];
    assert_eq!(
        pair.materials,
        ["steel".to_string(), "dry_wood".to_string()]
    );
    assert_eq!((pair.cor, pair.mu_k, pair.mu_r), (0.6, 0.4, 0.01));
    assert_eq!((pair.v_small, pair.w_small), (None, None));
    assert_eq!(pair.location.line, 1);

    let pair = &load("contact_pair steel steel { cor = 1; mu_k = 0; mu_r = 0; v_small = 1 mm/s; w_small = 0.5 rad/s }")
        .contact_pairs[0];
    assert_eq!((pair.v_small, pair.w_small), (Some(0.001), Some(0.5)));
    assert_eq!(pair.mu_s, None);
    let pair = &load("contact_pair steel steel { cor = 1; mu_k = 0.4; mu_s = 0.55; mu_r = 0 }")
        .contact_pairs[0];
    assert_eq!((pair.mu_k, pair.mu_s), (0.4, Some(0.55)));
    fails(
        "contact_pair steel steel { cor = 1; mu_k = 0.4; mu_s = 0.3; mu_r = 0 }",
        1,
        56,
        "`mu_s` must be between `mu_k` (0.4) and 10, found 0.3",
    );
    fails(
        "contact_pair steel steel { cor = 1; mu_k = 0; mu_r = 0; v_small = 0 m/s }",
        1,
        67,
        "`v_small` must be greater than zero",
    );
    fails(
        "contact_pair steel steel { cor = 1; mu_k = 0; mu_r = 0; w_small = 1 m/s }",
        1,
        69,
        "angular velocity",
    );

    let e = fails(
        "object a { contact { material = steel } }",
        1,
        12,
        "has a `contact` but no `shape`",
    );
    assert!(e.message.contains("object `a`"));
    let e = fails(
        "object a { shape sphere { diameter = 1 }; contact { material = steal } }",
        1,
        64,
        "steal",
    );
    assert_eq!(help(&e), "did you mean `steel`?");
    fails(
        "contact_pair steel wood { cor = 0.5; mu_k = 0; mu_r = 0 }",
        1,
        20,
        "unknown solid material `wood`",
    );
    fails(
        "contact_pair steel steel { cor = 1.5; mu_k = 0; mu_r = 0 }",
        1,
        34,
        "`cor` must be between 0 and 1",
    );
    fails(
        "contact_pair steel steel { cor = 0.5; mu_k = 0 }",
        1,
        26,
        "mu_r",
    );
}

#[test]
fn prescribed_motion_of_time() {
    let base = "parameters { A = 10 deg }\nobject b { mass { m = 1 kg } }\n";
    let spec = load(&format!(
        "{base}joint j revolute {{ from = world; to = b; motion = A*sin(2*pi*t) + (30 deg)*t }}"
    ));
    let JointKind::Revolute {
        motion: Some(f),
        flange,
        ..
    } = &spec.joints[0].kind
    else {
        panic!("a prescribed revolute joint")
    };
    assert_eq!(*flange, FlangeMode::Motion);
    let a = 10f64.to_radians();
    let nu = 2.0 * std::f64::consts::PI;
    let t = 0.3;
    let jet = f.jet(t);
    assert!(close(jet.v, a * (nu * t).sin() + 30f64.to_radians() * t));
    assert!(close(jet.d, a * nu * (nu * t).cos() + 30f64.to_radians()));
    assert!(close(jet.dd, -a * nu * nu * (nu * t).sin()));
    // A changed parameter changes the motion.
    let changed = load_str_with(
        &format!("{base}joint j revolute {{ from = world; to = b; motion = A*t }}"),
        "test.m3d",
        &[("A".into(), 2.0)],
    )
    .unwrap();
    let JointKind::Revolute {
        motion: Some(f), ..
    } = &changed.joints[0].kind
    else {
        panic!()
    };
    assert!(close(f.jet(3.0).v, 6.0) && close(f.jet(3.0).d, 2.0));
    for (joint, message) in [
        (
            "motion = floor(t)",
            "`floor` of the time cannot be used in a motion",
        ),
        ("motion = t; phi = 1", "`phi` cannot be given with it"),
        (
            "motion = t; flange = force",
            "`flange` cannot be given with it",
        ),
        ("motion = 2*t m", "`motion` expects the quantity angle"),
    ] {
        let e = load_str(
            &format!("{base}joint j revolute {{ from = world; to = b; {joint} }}"),
            "test.m3d",
        )
        .expect_err(joint);
        assert!(e.message.contains(message), "{joint}: {}", e.message);
        assert_eq!(e.location.line, 3, "{joint}");
    }
}

#[test]
fn contact_outputs_name_two_objects() {
    let spec = load(
        "object a { parent = world; shape sphere { diameter = 1 }; contact { material = steel } }\n\
         object b { shape sphere { diameter = 1 }; mass { material = steel }; contact { material = steel } }\n\
         joint j free { from = world; to = b; position = [0, 2, 0] m }\n\
         contact_output touch { from = a; to = b }",
    );
    assert_eq!(spec.contact_outputs.len(), 1);
    let c = &spec.contact_outputs[0];
    assert_eq!(
        (c.name.as_str(), c.from.as_str(), c.to.as_str()),
        ("touch", "a", "b")
    );
    let e = fails(
        "object a { parent = world }\ncontact_output t { from = a; to = bb }",
        2,
        35,
        "bb",
    );
    assert!(e.message.contains("unknown object"), "{}", e.message);
    fails(
        "object a { parent = world }\ncontact_output t { from = a }",
        2,
        16,
        "`to`",
    );
}

/// `for` (docs/model-format.md, *Repetition*): the body is repeated for i = FIRST … LAST, none
/// when LAST < FIRST; several indices name `grid[1,2]`; the loop variable reaches every
/// expression of the body (a position) and the references (`tip[i-1]`). Counted against the
/// bounds, and each repetition's position against its index.
#[test]
fn for_repeats_its_body_once_per_index_within_the_bounds() {
    let s = load(
        r#"
model loops
parameters { N = 3 }
object tip[0] { parent = world }
for i in 1:N {
  object link[i] { parent = tip[i-1]; position = [i, 0, 0] }
  object tip[i] { parent = link[i]; position = [0, 2*i, 0] }
}
for i in 2:1 { object never[i] { parent = world } }
for i in 1:2 {
  for j in 3:4 { object grid[i, j] { parent = world; position = [i, j, 0] } }
}
"#,
    );
    let names: Vec<&str> = s.objects.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "tip[0]",
            "link[1]",
            "tip[1]",
            "link[2]",
            "tip[2]",
            "link[3]",
            "tip[3]",
            "grid[1,3]",
            "grid[1,4]",
            "grid[2,3]",
            "grid[2,4]"
        ]
    );
    for i in 1..=3 {
        let link = object(&s, &format!("link[{i}]"));
        assert_eq!(
            link.parent.as_deref(),
            Some(format!("tip[{}]", i - 1).as_str())
        );
        assert!(close(link.position.x, i as f64));
        assert!(close(
            object(&s, &format!("tip[{i}]")).position.y,
            2.0 * i as f64
        ));
    }
    let grid = object(&s, "grid[2,3]");
    assert!(close(grid.position.x, 2.0) && close(grid.position.y, 3.0));
}
