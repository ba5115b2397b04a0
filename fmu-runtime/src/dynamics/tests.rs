//! The residual against closed-form equations of motion: start accelerations of simple
//! mechanisms, computed independently by hand.

use super::*;
use crate::assembly::Assembly;
use crate::model::*;
use crate::scene::Scene;
use nalgebra::{Matrix3, UnitQuaternion, Vector3};

const G: f64 = 9.81;

fn object(
    name: &str,
    parent: Option<&str>,
    position: Vector3<f64>,
    mass: Option<MassSpec>,
) -> ObjectSpec {
    ObjectSpec {
        name: name.into(),
        parent: parent.map(Into::into),
        position,
        rotation: UnitQuaternion::identity(),
        shape: None,
        visual: None,
        mass,
        contact: None,
        output: false,
        location: Location::default(),
    }
}

fn point_mass(m: f64, center: Vector3<f64>, inertia: f64) -> MassSpec {
    MassSpec {
        mass: m,
        center_of_mass: center,
        inertia: Matrix3::identity() * inertia,
    }
}

fn joint(name: &str, from: &str, to: &str, kind: JointKind) -> JointSpec {
    JointSpec {
        name: name.into(),
        from: from.into(),
        to: to.into(),
        kind,
        can_collide: false,
        output_forces: false,
        location: Location::default(),
    }
}

fn revolute(axis: Vector3<f64>, phi: f64, w: f64) -> JointKind {
    JointKind::Revolute {
        axis,
        phi,
        w,
        fixed: StartFixed {
            position: true,
            speed: true,
        },
        flange: FlangeMode::Passive,
        spring: None,
        damper: None,
        stop: None,
        follows: None,
        motion: None,
    }
}

fn spec(objects: Vec<ObjectSpec>, joints: Vec<JointSpec>, forces: Vec<ForceSpec>) -> ModelSpec {
    ModelSpec {
        name: "test".into(),
        description: None,
        parameters: vec![],
        gravity: GravitySpec::Uniform {
            acceleration: Vector3::new(0.0, -G, 0.0),
        },
        experiment: ExperimentSpec::default(),
        objects,
        joints,
        forces,
        contact_pairs: vec![],
        contact_outputs: vec![],
        snapped: vec![],
        redundant_mates: vec![],
        drives: vec![],
    }
}

fn start_derivatives(spec: &ModelSpec) -> (Mechanism, Vec<f64>, Vec<f64>) {
    let scene = Scene::from_spec(spec).expect("scene");
    let assembly = Assembly::build(&scene).expect("assembly");
    let mechanism = Mechanism::new(&scene, &assembly);
    let inputs = FlangeInputs::new(&mechanism);
    let mut ws = Workspace::new(&mechanism);
    let y = mechanism.initial_state();
    let yp = consistent_derivatives(&mechanism, &inputs, &mut ws, &y).expect("regular");
    (mechanism, y, yp)
}

/// Pendulum of [OEM03] §2: φ̈ = −m g d cos φ / (I + m d²).
#[test]
fn pendulum_acceleration_matches_closed_form() {
    let (m, d, i, phi) = (1.0, 0.5, 0.001, 0.3);
    let model = spec(
        vec![object(
            "body",
            None,
            Vector3::zeros(),
            Some(point_mass(m, Vector3::new(d, 0.0, 0.0), i)),
        )],
        vec![joint(
            "rev",
            WORLD,
            "body",
            revolute(Vector3::z(), phi, 0.0),
        )],
        vec![],
    );
    let (_, _, yp) = start_derivatives(&model);
    let expected = -m * G * d * phi.cos() / (i + m * d * d);
    assert!((yp[1] - expected).abs() < 1e-12, "{} vs {expected}", yp[1]);
    assert_eq!(yp[0], 0.0);
}

/// The same pendulum reached from the other end of the joint (`from` = body, `to` = world's
/// child): the engine reverses the joint and must give the same motion.
#[test]
fn reversed_joint_gives_the_same_acceleration() {
    let (m, d, i, phi) = (1.0, 0.5, 0.001, 0.3);
    let model = spec(
        vec![
            object("pivot", Some(WORLD), Vector3::new(0.2, 0.1, 0.0), None),
            object(
                "body",
                None,
                Vector3::zeros(),
                Some(point_mass(m, Vector3::new(d, 0.0, 0.0), i)),
            ),
        ],
        // body → pivot: the body turns by −φ about z relative to the pivot.
        vec![joint(
            "rev",
            "body",
            "pivot",
            revolute(Vector3::z(), -phi, 0.0),
        )],
        vec![],
    );
    let (_, _, yp) = start_derivatives(&model);
    let expected = -m * G * d * phi.cos() / (i + m * d * d);
    assert!(
        (yp[1] + expected).abs() < 1e-12,
        "{} vs {}",
        yp[1],
        -expected
    );
}

/// Rigid attachment = merged body: a massless link frame carrying the mass at its tip.
#[test]
fn rigidly_attached_mass_is_merged() {
    let (m, d, phi) = (2.0, 0.7, -0.4);
    let model = spec(
        vec![
            object("link", None, Vector3::zeros(), None),
            object(
                "tip",
                Some("link"),
                Vector3::new(d, 0.0, 0.0),
                Some(point_mass(m, Vector3::zeros(), 0.0)),
            ),
        ],
        vec![joint(
            "rev",
            WORLD,
            "link",
            revolute(Vector3::z(), phi, 0.0),
        )],
        vec![],
    );
    let (_, _, yp) = start_derivatives(&model);
    let expected = -G * phi.cos() / d;
    assert!((yp[1] - expected).abs() < 1e-12);
}

/// Double pendulum of point masses, horizontal and at rest: the textbook equations
/// (m1+m2) l1 θ̈1 + m2 l2 θ̈2 cos(θ1−θ2) = −(m1+m2) g cos θ1 (angles from the x axis) …
/// solved here for the start state θ1 = θ2 = 0.
#[test]
fn double_pendulum_start_accelerations() {
    let (m1, m2, l1, l2) = (1.0, 0.5, 1.0, 0.8);
    let model = spec(
        vec![
            object(
                "b1",
                None,
                Vector3::zeros(),
                Some(point_mass(m1, Vector3::new(l1, 0.0, 0.0), 0.0)),
            ),
            object("tip1", Some("b1"), Vector3::new(l1, 0.0, 0.0), None),
            object(
                "b2",
                None,
                Vector3::zeros(),
                Some(point_mass(m2, Vector3::new(l2, 0.0, 0.0), 0.0)),
            ),
        ],
        vec![
            joint("rev1", WORLD, "b1", revolute(Vector3::z(), 0.0, 0.0)),
            joint("rev2", "tip1", "b2", revolute(Vector3::z(), 0.0, 0.0)),
        ],
        vec![],
    );
    let (_, _, yp) = start_derivatives(&model);
    // Absolute angles θ1 = φ1, θ2 = φ1 + φ2; at rest and horizontal, Lagrange gives
    // [(m1+m2) l1², m2 l1 l2; m2 l1 l2, m2 l2²] [θ̈1; θ̈2] = [−(m1+m2) g l1; −m2 g l2].
    let a = nalgebra::Matrix2::new(
        (m1 + m2) * l1 * l1,
        m2 * l1 * l2,
        m2 * l1 * l2,
        m2 * l2 * l2,
    );
    let b = nalgebra::Vector2::new(-(m1 + m2) * G * l1, -m2 * G * l2);
    let theta = a.lu().solve(&b).expect("regular");
    let (phi1, phi2) = (yp[2], yp[3]);
    assert!((phi1 - theta[0]).abs() < 1e-12, "{phi1} vs {}", theta[0]);
    assert!((phi1 + phi2 - theta[1]).abs() < 1e-12);
}

/// Free body: v̇ = g and Euler's equations I ω̇ = −ω × I ω.
#[test]
fn free_body_follows_euler_equations() {
    let inertia = Matrix3::from_diagonal(&Vector3::new(1.0, 2.0, 3.0));
    let mass = MassSpec {
        mass: 3.0,
        center_of_mass: Vector3::zeros(),
        inertia,
    };
    let w = Vector3::new(0.3, -1.1, 0.7);
    let rotation = UnitQuaternion::from_euler_angles(0.2, -0.5, 1.0);
    let model = spec(
        vec![object("body", None, Vector3::zeros(), Some(mass))],
        vec![joint(
            "free",
            WORLD,
            "body",
            JointKind::Free {
                position: Vector3::new(1.0, 2.0, 3.0),
                rotation,
                v: Vector3::new(0.1, 0.2, 0.3),
                w,
            },
        )],
        vec![],
    );
    let (_, y, yp) = start_derivatives(&model);
    assert_eq!(y.len(), 13);
    let v_dot = Vector3::new(yp[7], yp[8], yp[9]);
    assert!((v_dot - Vector3::new(0.0, -G, 0.0)).norm() < 1e-12);
    let w_dot = Vector3::new(yp[10], yp[11], yp[12]);
    let expected = inertia.try_inverse().expect("regular") * (-w.cross(&(inertia * w)));
    assert!((w_dot - expected).norm() < 1e-12, "{w_dot} vs {expected}");
    // ṙ = v
    assert!((Vector3::new(yp[0], yp[1], yp[2]) - Vector3::new(0.1, 0.2, 0.3)).norm() < 1e-15);
}

/// Prismatic slider along a 30° incline with a linear spring: ẍ = −g sin α − c (x − x0) / m.
#[test]
fn prismatic_joint_with_spring() {
    let alpha: f64 = 30f64.to_radians();
    let (m, c, x, x0) = (2.0, 50.0, 0.3, 0.1);
    let axis = Vector3::new(alpha.cos(), alpha.sin(), 0.0);
    let model = spec(
        vec![object(
            "slider",
            None,
            Vector3::zeros(),
            Some(point_mass(m, Vector3::zeros(), 0.01)),
        )],
        vec![joint(
            "slide",
            WORLD,
            "slider",
            JointKind::Prismatic {
                axis,
                s: x,
                v: 0.0,
                fixed: StartFixed::default(),
                flange: FlangeMode::Passive,
                spring: Some((c, x0)),
                damper: None,
                stop: None,
                follows: None,
                motion: None,
            },
        )],
        vec![],
    );
    let (_, _, yp) = start_derivatives(&model);
    let expected = -G * alpha.sin() - c * (x - x0) / m;
    assert!((yp[1] - expected).abs() < 1e-12);
}

/// A body on a free joint hanging from a world anchor by a spring-damper along y.
#[test]
fn line_force_pulls_toward_the_anchor() {
    let (m, c, l0, d) = (1.5, 200.0, 0.2, 3.0);
    let vy = -0.4;
    let model = spec(
        vec![
            object("anchor", Some(WORLD), Vector3::zeros(), None),
            object(
                "body",
                None,
                Vector3::zeros(),
                Some(point_mass(m, Vector3::zeros(), 0.01)),
            ),
        ],
        vec![joint(
            "free",
            WORLD,
            "body",
            JointKind::Free {
                position: Vector3::new(0.0, -0.5, 0.0),
                rotation: UnitQuaternion::identity(),
                v: Vector3::new(0.0, vy, 0.0),
                w: Vector3::zeros(),
            },
        )],
        vec![ForceSpec {
            name: "spring".into(),
            from: "anchor".into(),
            to: "body".into(),
            kind: ForceKind::SpringDamper {
                stiffness: c,
                length: l0,
                damping: d,
            },
            location: Location::default(),
        }],
    );
    let (_, _, yp) = start_derivatives(&model);
    // Stretch 0.3 m, moving away at 0.4 m/s: tension 60 + 1.2 N pulls the body up.
    let tension = c * (0.5 - l0) + d * (-vy);
    let expected = tension / m - G;
    assert!((yp[8] - expected).abs() < 1e-12, "{} vs {expected}", yp[8]);
}

/// The mechanism of a model source with its collision set, its inputs and assembled states.
fn colliding_mechanism(source: &str) -> (Mechanism, FlangeInputs, Vec<f64>) {
    let spec = crate::model::load_str_with(source, "contacts.m3d", &[]).unwrap();
    let scene = Scene::from_spec(&spec).unwrap();
    let assembly = Assembly::build(&scene).unwrap();
    let mut mechanism = Mechanism::new(&scene, &assembly);
    mechanism.collisions = crate::assembly::CollisionSet::build(&scene, &assembly).unwrap();
    let inputs = FlangeInputs::new(&mechanism);
    let y = assemble(&mut mechanism, &inputs).unwrap();
    (mechanism, inputs, y)
}

/// The residual of `mechanism` at (y, ẏ) with its collision pairs taken away.
fn residual_without_contacts(
    mechanism: &Mechanism,
    inputs: &FlangeInputs,
    y: &[f64],
    yp: &[f64],
) -> Vec<f64> {
    let mut apart = mechanism.clone();
    apart.collisions = apart.collisions.without_pairs();
    fresh_residual(&apart, inputs, y, yp)
}

/// The residual of `mechanism` at (y, ẏ) in a workspace of its own.
fn fresh_residual(mechanism: &Mechanism, inputs: &FlangeInputs, y: &[f64], yp: &[f64]) -> Vec<f64> {
    let mut f = vec![0.0; y.len()];
    residual(
        mechanism,
        inputs,
        &mut Workspace::new(mechanism),
        y,
        yp,
        &mut f,
    );
    f
}

/// Regression for the near list of the contact loads (`contacts::NearPairs`): a workspace
/// reused across evaluations gives the residual of a fresh one, bit for bit, after ball `b`
/// is moved from a metre away into ball `a` (the list made at the first evaluation held no pair
/// of them); and the contact is really there (the residual differs from the one without it).
#[test]
fn a_reused_workspace_sees_a_contact_that_was_far_when_its_near_list_was_made() {
    let source = r#"
        object a { shape sphere { diameter = 0.06 }; mass { material = billiard_ball }; contact { material = billiard_ball } }
        object b { shape sphere { diameter = 0.06 }; mass { material = billiard_ball }; contact { material = billiard_ball } }
        object c { shape sphere { diameter = 0.06 }; mass { material = billiard_ball }; contact { material = billiard_ball } }
        joint ja free { from = world; to = a; position = [0, 0, 0] }
        joint jb free { from = world; to = b; position = [1, 0, 0] }
        joint jc free { from = world; to = c; position = [0, 1, 0] }
    "#;
    let (mechanism, inputs, mut y) = colliding_mechanism(source);
    let yp = vec![0.0; y.len()];
    let mut reused = Workspace::new(&mechanism);
    let mut far = vec![0.0; y.len()];
    residual(&mechanism, &inputs, &mut reused, &y, &yp, &mut far);
    // b's x from 1 m to 0.059 m: 1 mm into a.
    let b = mechanism
        .bodies
        .iter()
        .position(|body| body.name == "b")
        .unwrap();
    let x = mechanism.bodies[b]
        .joint
        .as_ref()
        .unwrap()
        .states
        .unwrap()
        .q;
    assert_eq!(y[x], 1.0);
    y[x] = 0.059;
    let mut with_reused = vec![0.0; y.len()];
    residual(&mechanism, &inputs, &mut reused, &y, &yp, &mut with_reused);
    let with_fresh = fresh_residual(&mechanism, &inputs, &y, &yp);
    assert_eq!(with_reused, with_fresh);
    assert_ne!(
        with_fresh,
        residual_without_contacts(&mechanism, &inputs, &y, &yp)
    );
}

/// Regression for the near list's test against shapes fixed to the world
/// (`pairs::NearPairs`): a floor's bounding sphere holds every ball above it, so by bounding
/// spheres alone every ball is near the floor; the list keeps a ball–floor pair only while the
/// ball's bounding sphere is within the margin of the floor itself. A ball lowered onto the
/// floor in steps of a twentieth of the margin (the list is made again only after a quarter):
/// at every step each of its pairs with the floor's colliders that is off the list is at least
/// the list's cap (half the margin) apart, as the list promises, and the residual is that of a
/// fresh workspace, bit for bit, down to 1 mm into the floor, where the contact is really
/// there.
#[test]
fn a_ball_lowered_onto_a_floor_meets_it_although_the_floor_was_far_when_the_list_was_made() {
    let source = r#"
        object floor { parent = world; position = [0, -0.05, 0]; shape box { lengths = [2, 0.1, 2] }; contact { material = dry_wood } }
        object low { shape sphere { diameter = 0.02 }; mass { material = steel }; contact { material = steel } }
        object high { shape sphere { diameter = 0.02 }; mass { material = steel }; contact { material = steel } }
        joint jl free { from = world; to = low; position = [0.5, 0.0105, 0] }
        joint jh free { from = world; to = high; position = [0, 0.3, 0] }
    "#;
    let (mechanism, inputs, mut y) = colliding_mechanism(source);
    let margin = super::pairs::near_margin(&mechanism.collisions);
    let yp = vec![0.0; y.len()];
    let body = |name: &str| {
        mechanism
            .bodies
            .iter()
            .position(|b| b.name == name)
            .unwrap()
    };
    let (low, high) = (body("low"), body("high"));
    let set = &mechanism.collisions;
    let mut ws = Workspace::new(&mechanism);
    let mut f = vec![0.0; y.len()];
    residual(&mechanism, &inputs, &mut ws, &y, &yp, &mut f);
    let near_the_floor = |ws: &Workspace, ball: usize| {
        ws.near_pairs.pairs.iter().any(|&id| {
            let pair = ws.pairs.get(id);
            let bodies = [set.colliders[pair.a].body, set.colliders[pair.b].body];
            bodies.contains(&ball) && bodies.contains(&WORLD_BODY)
        })
    };
    // The low ball's sphere is 0.5 mm above the floor, the high one 290 mm.
    assert!(margin > 1e-3, "margin {margin}");
    assert!(near_the_floor(&ws, low));
    assert!(!near_the_floor(&ws, high));
    let y_state = mechanism.bodies[high]
        .joint
        .as_ref()
        .unwrap()
        .states
        .unwrap()
        .q
        + 1;
    let (mut reused, mut fresh) = (vec![0.0; y.len()], Vec::new());
    let bottom = 0.01 - 1e-3;
    let mut steps = 0;
    // Five starts a twentieth of the margin apart: the lists are made at every phase of the
    // descent, one of them between 0.5 and 0.75 of the margin above the floor.
    let top = y[y_state];
    for start in 0..5 {
        y[y_state] = top - f64::from(start) * 0.05 * margin;
        ws = Workspace::new(&mechanism);
        while y[y_state] > bottom {
            y[y_state] = (y[y_state] - 0.05 * margin).max(bottom);
            residual(&mechanism, &inputs, &mut ws, &y, &yp, &mut reused);
            for (ball, fixed) in (0..set.colliders.len())
                .filter(|&c| set.colliders[c].body == high)
                .flat_map(|c| {
                    (0..set.colliders.len())
                        .filter(|&f| set.colliders[f].body == WORLD_BODY)
                        .map(move |f| (c, f))
                })
            {
                let listed = ws.near_pairs.pairs.iter().any(|&id| {
                    let pair = ws.pairs.get(id);
                    (pair.a, pair.b) == (ball, fixed) || (pair.a, pair.b) == (fixed, ball)
                });
                let (a, b) = (&set.colliders[ball], &set.colliders[fixed]);
                let gap = crate::collision::distance(
                    &a.shape,
                    &ws.collider_poses[ball],
                    &b.shape,
                    &ws.collider_poses[fixed],
                )
                .unwrap()
                .distance;
                assert!(
                    listed || gap >= ws.near_pairs.cap(),
                    "off the list {gap} m apart, cap {} m",
                    ws.near_pairs.cap()
                );
            }
            fresh = fresh_residual(&mechanism, &inputs, &y, &yp);
            assert_eq!(reused, fresh, "at height {} m", y[y_state]);
            steps += 1;
        }
    }
    assert!(near_the_floor(&ws, high));
    assert_ne!(
        fresh,
        residual_without_contacts(&mechanism, &inputs, &y, &yp)
    );
    eprintln!(
        "margin {margin:.2e} m, {steps} steps down, {} lists made",
        ws.near_pairs.rebuilds
    );
}
