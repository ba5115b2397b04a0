//! Parts made of meshes (`shape mesh`) against independent references: a mesh cube against
//! the primitive box it copies (same geometry, so the same landing and rest), a part made of
//! convex pieces coming to rest on a floor, a physical pendulum made of a mesh against
//! 2π √(I_O / (m g d)) from the closed forms of its boxes, and open meshes refused where a mass
//! would be computed from them.

use fmu3d_tests::simulate;
use fmu_runtime::model::{self, ModelSpec};
use std::path::{Path, PathBuf};

const G: f64 = 9.81;

/// A fresh folder for one test's model and mesh files.
fn folder(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fmu3d-meshes-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp folder");
    dir
}

/// The OBJ text of boxes, each an object (`o box<k>`) of eight vertices and six quads facing
/// outwards; a box is given by its lower and upper corner.
fn boxes_obj(boxes: &[([f64; 3], [f64; 3])]) -> String {
    let mut text = String::from("# boxes written by tests/tests/meshes.rs\n");
    for (k, (lo, hi)) in boxes.iter().enumerate() {
        text.push_str(&format!("o box{k}\n"));
        for i in 0..8 {
            let c = |axis: usize| {
                if i >> axis & 1 == 0 {
                    lo[axis]
                } else {
                    hi[axis]
                }
            };
            text.push_str(&format!("v {} {} {}\n", c(0), c(1), c(2)));
        }
        let base = 8 * k as u32 + 1;
        for quad in fmu_runtime::mesh::BOX_FACES {
            let q = quad.map(|i| i + base);
            text.push_str(&format!("f {} {} {} {}\n", q[0], q[1], q[2], q[3]));
        }
    }
    text
}

fn load(dir: &Path, source: &str) -> Result<ModelSpec, model::ModelError> {
    let path = dir.join("model.m3d");
    std::fs::write(&path, source).expect("model written");
    model::load_str_with(source, &path.display().to_string(), &[])
}

/// A cube of aluminium dropped tilted onto a dry-wood floor, as `shape`.
fn dropped_cube(shape: &str) -> String {
    format!(
        r#"
model dropped_cube "a cube dropped tilted"
gravity uniform {{ g = [0, -9.81, 0] m/s2 }}
object floor {{
  parent = world; position = [0, -0.05, 0] m
  shape box {{ lengths = [3, 0.1, 3] m }}
  contact {{ material = dry_wood }}
}}
object cube {{
  shape {shape}
  mass {{ material = aluminium }}
  contact {{ material = aluminium }}
  output = true
}}
joint fall free {{
  from = world; to = cube; position = [0, 0.3, 0] m
  rotation = cardan(20 deg, 10 deg, 35 deg)
}}
"#
    )
}

/// The mesh cube has the primitive box's geometry (its hull shrunk by the same smoothing
/// radius, the same vertex spheres and edges), mass and inertia: it lands, bounces, tips and
/// comes to rest as the box does, on its face at half its edge above the floor, and stays
/// there (no rocking, no creep).
#[test]
fn a_mesh_cube_lands_and_rests_like_the_primitive_box() {
    let dir = folder("cube");
    std::fs::write(dir.join("cube.obj"), boxes_obj(&[([-0.05; 3], [0.05; 3])]))
        .expect("mesh written");
    // The two differ by the order in which their vertex and edge features are listed, so by
    // the integration error: 1.4e-4 m after the first bounce at tolerance 1e-6, 6.8e-8 m at
    // 1e-8 (it shrinks with the tolerance).
    let tolerance = 1e-8;
    let primitive = simulate(
        load(&dir, &dropped_cube("box { lengths = [0.1, 0.1, 0.1] m }")).expect("box model"),
        tolerance,
        3.0,
        0.005,
    );
    let mesh = simulate(
        load(&dir, &dropped_cube(r#"mesh { file = "cube.obj" }"#)).expect("mesh model"),
        tolerance,
        3.0,
        0.005,
    );
    let (yb, ym) = (primitive.column("cube.r[2]"), mesh.column("cube.r[2]"));
    // The first landing and bounce: until 0.3 s the two follow each other.
    let early = primitive
        .time
        .iter()
        .position(|t| *t >= 0.3)
        .expect("0.3 s");
    let early_gap = (0..=early)
        .map(|k| (yb[k] - ym[k]).abs())
        .fold(0.0, f64::max);
    let end = yb.len() - 1;
    let two_seconds = primitive.time.iter().position(|t| *t >= 2.0).expect("2 s");
    let creep = |run: &fmu3d_tests::Trajectory| {
        ["cube.r[1]", "cube.r[2]", "cube.r[3]"]
            .iter()
            .map(|c| {
                let x = run.column(c);
                (x[end] - x[two_seconds]).abs()
            })
            .fold(0.0, f64::max)
    };
    eprintln!(
        "mesh cube vs box: height gap {early_gap:.2e} m until 0.3 s; rest heights {:.9} and \
         {:.9} m; moved {:.1e} and {:.1e} m from 2 s to 3 s",
        yb[end],
        ym[end],
        creep(&primitive),
        creep(&mesh)
    );
    assert!(early_gap < 2e-7, "{early_gap}");
    // At rest on a face: half the edge above the floor, less the contact's compression
    // (micrometres for 2.7 kg on four corners).
    assert!((ym[end] - 0.05).abs() < 2e-5, "{}", ym[end]);
    assert!((ym[end] - yb[end]).abs() < 1e-7, "{} {}", ym[end], yb[end]);
    assert!(creep(&mesh) < 1e-6, "{}", creep(&mesh));
}

/// A T of two convex pieces (a stem and a bar) in one OBJ, `collision = pieces`, dropped bar
/// down onto the floor: it comes to rest standing on its bar, its frame's origin the bar's
/// height above the floor.
#[test]
fn a_part_of_convex_pieces_comes_to_rest() {
    let dir = folder("pieces");
    std::fs::write(dir.join("tee.obj"), boxes_obj(&tee())).expect("mesh written");
    let source = format!(
        r#"
model tee_drop "a T of two pieces dropped on its bar"
gravity uniform {{ g = [0, -9.81, 0] m/s2 }}
object floor {{
  parent = world; position = [0, -0.05, 0] m
  shape box {{ lengths = [3, 0.1, 3] m }}
  contact {{ material = dry_wood }}
}}
object tee {{
  shape mesh {{ file = "tee.obj"; collision = pieces }}
  mass {{ material = steel }}
  contact {{ material = steel }}
  output = true
}}
joint fall free {{ from = world; to = tee; position = [0, {start}, 0] m; rotation = cardan(0, 3 deg, 2 deg) }}
"#,
        start = 0.12 + 0.01
    );
    let spec = load(&dir, &source).expect("model");
    let run = simulate(spec, 1e-6, 2.0, 0.01);
    let y = run.column("tee.r[2]");
    let speed: f64 = ["tee.v[1]", "tee.v[2]", "tee.v[3]"]
        .iter()
        .map(|c| run.column(c).last().copied().unwrap().powi(2))
        .sum::<f64>()
        .sqrt();
    let end = *y.last().unwrap();
    eprintln!("T of pieces: at rest {end:.7} m above the floor (bar 0.12 m below the origin), speed {speed:.1e} m/s");
    assert!((end - 0.12).abs() < 2e-5, "{end}");
    assert!(speed < 1e-5, "{speed}");
}

/// A T standing upright: a stem 20 × 80 × 20 mm from y = −0.02 to −0.1 m and a bar 100 × 20 ×
/// 20 mm below it; symmetric about x = 0 and z = 0.
fn tee() -> Vec<([f64; 3], [f64; 3])> {
    vec![
        ([-0.01, -0.1, -0.01], [0.01, -0.02, 0.01]),
        ([-0.05, -0.12, -0.01], [0.05, -0.1, 0.01]),
    ]
}

/// A physical pendulum of the T, hung at its frame's origin on a revolute joint about z: small
/// swings have the period 2π √(I_O / (m g d)), with m, d (the centre's distance below the
/// pivot) and I_O (about the pivot) from each box's closed form and the parallel-axis theorem.
#[test]
fn a_mesh_pendulum_swings_with_the_period_of_its_closed_form_inertia() {
    let dir = folder("pendulum");
    std::fs::write(dir.join("tee.obj"), boxes_obj(&tee())).expect("mesh written");
    let density = 7850.0;
    let (mut m, mut first_moment, mut i_o) = (0.0, 0.0, 0.0);
    for (lo, hi) in tee() {
        let (a, b, c) = (hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
        let mass = density * a * b * c;
        let (cx, cy) = (0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]));
        m += mass;
        first_moment += mass * -cy;
        i_o += mass * (a * a + b * b) / 12.0 + mass * (cx * cx + cy * cy);
    }
    let d = first_moment / m;
    let period = std::f64::consts::TAU * (i_o / (m * G * d)).sqrt();
    let phi0 = 0.01;
    let source = format!(
        r#"
model tee_pendulum "a T swinging about its top"
gravity uniform {{ g = [0, -9.81, 0] m/s2 }}
object tee {{
  shape mesh {{ file = "tee.obj" }}
  mass {{ density = {density} kg/m3 }}
  output = true
}}
joint hinge revolute {{ from = world; to = tee; axis = z; phi = {phi0} rad }}
"#
    );
    let spec = load(&dir, &source).expect("model");
    let run = simulate(spec, 1e-9, 2.0, 0.0005);
    let phi = run.column("hinge.phi");
    // Upward zero crossings, interpolated linearly.
    let crossings: Vec<f64> = (1..phi.len())
        .filter(|&k| phi[k - 1] < 0.0 && phi[k] >= 0.0)
        .map(|k| {
            let (t0, t1) = (run.time[k - 1], run.time[k]);
            t0 + (t1 - t0) * -phi[k - 1] / (phi[k] - phi[k - 1])
        })
        .collect();
    assert!(crossings.len() >= 3, "{crossings:?}");
    let measured = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    // The finite amplitude lengthens the period by φ0²/16 (1.0 + 6e-6 at 0.01 rad).
    let expected = period * (1.0 + phi0 * phi0 / 16.0);
    let error = (measured - expected).abs() / expected;
    eprintln!(
        "mesh pendulum: m {m:.6} kg, d {d:.6} m, I_O {i_o:.6e} kg.m2; period {measured:.8} s, \
         closed form {expected:.8} s, relative error {error:.1e}"
    );
    assert!(error < 5e-8, "{error}");
}

/// An open mesh (a cube missing a face) bounds no volume: with a density it is refused with
/// the file, the count of open edges and what to do; with its mass given by hand it is
/// accepted (visual meshes are mostly open).
#[test]
fn an_open_mesh_is_refused_where_a_mass_is_computed_from_it() {
    let dir = folder("open");
    let closed = boxes_obj(&[([0.0; 3], [0.1; 3])]);
    let open: String = closed
        .lines()
        .filter(|l| *l != "f 1 3 4 2")
        .map(|l| format!("{l}\n"))
        .collect();
    assert_ne!(open, closed);
    std::fs::write(dir.join("open.obj"), &open).expect("mesh written");
    let model = |mass: &str| {
        format!(
            "model open_part\nobject part {{\n  shape mesh {{ file = \"open.obj\" }}\n  mass {{ {mass} }}\n}}\njoint j free {{ from = world; to = part }}\n"
        )
    };
    let error = load(&dir, &model("material = steel")).expect_err("refused");
    let text = error.to_string();
    eprintln!("{text}");
    assert!(
        text.contains("open.obj") && text.contains("(4 open edges)"),
        "{text}"
    );
    assert!(text.contains("help:"), "{text}");
    load(&dir, &model("m = 1 kg; inertia = diag(1, 1, 1) kg.m2")).expect("accepted");
    // A closed surface that a CAD tool split into objects along its seams is not open: a cube
    // as two objects of three faces each has the cube's volume.
    let mut lines: Vec<String> = closed.lines().map(String::from).collect();
    let first_face = lines
        .iter()
        .position(|l| l.starts_with("f "))
        .expect("faces");
    lines.insert(first_face + 3, "o other_half".into());
    std::fs::write(dir.join("open.obj"), lines.join("\n") + "\n").expect("mesh written");
    let spec = load(&dir, &model("density = 1000 kg/m3")).expect("a split closed surface");
    let mass = spec.objects[0].mass.as_ref().expect("mass").mass;
    assert!((mass - 1.0).abs() < 1e-12, "{mass}");
}

/// Mesh files outside the model's folder, or missing, are refused with what to do.
#[test]
fn mesh_files_must_lie_in_the_models_folder() {
    let dir = folder("outside");
    for (file, expected) in [
        ("../part.stl", "inside it"),
        ("/tmp/part.stl", "inside it"),
        ("missing.stl", "cannot read the mesh file"),
    ] {
        let source = format!("model m\nobject part {{ shape mesh {{ file = \"{file}\" }} }}\n");
        let text = load(&dir, &source).expect_err("refused").to_string();
        assert!(text.contains(expected), "{file}: {text}");
    }
}

/// A tessellated round part (a sphere of 1 280 triangles, as CAD exports one) has no face to
/// rest on: it touches as one round shape, one collider, instead of a vertex sphere at each of
/// its 642 vertices and a capsule along each of its 1 920 edges (which cost 20 s of wall time
/// per simulated second, against 0.08 s). Dropped 2 mm onto a table it lands and rolls on (its
/// facets tip it over; a round part rolls), its centre between the sphere of its smallest face
/// distance and the sphere through its vertices above the table; the cube keeps its vertex
/// spheres and edges.
#[test]
fn a_round_mesh_touches_as_one_shape_and_rolls_on_the_table() {
    let dir = folder("round");
    let ball = fmu_runtime::mesh::TriangleMesh::icosphere(3);
    let mut obj = String::new();
    for p in &ball.vertices {
        obj.push_str(&format!("v {:?} {:?} {:?}\n", p.x, p.y, p.z));
    }
    for t in &ball.triangles {
        obj.push_str(&format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1));
    }
    std::fs::write(dir.join("ball.obj"), obj).expect("mesh written");
    std::fs::write(dir.join("cube.obj"), boxes_obj(&[([-0.05; 3], [0.05; 3])]))
        .expect("mesh written");
    let radius = 0.05;
    let source = format!(
        r#"
model round_part "a tessellated ball dropped onto a table"
gravity uniform {{ g = [0, -9.81, 0] m/s2 }}
object table {{
  parent = world; position = [0, -0.025, 0] m
  shape box {{ lengths = [2, 0.05, 2] m }}
  contact {{ material = dry_wood }}
}}
object ball {{
  shape mesh {{ file = "ball.obj"; scale = {radius} }}
  mass {{ material = steel }}
  contact {{ material = steel }}
  output = true
}}
joint drop free {{ from = world; to = ball; position = [0, 0.052, 0] m }}
object cube {{
  shape mesh {{ file = "cube.obj" }}
  contact {{ material = steel }}
  mass {{ material = steel }}
}}
joint place free {{ from = world; to = cube; position = [0.5, 0.05, 0] m }}
"#
    );
    let spec = load(&dir, &source).expect("model");
    let run = simulate(spec, 1e-6, 1.0, 0.01);
    let colliders = &run.simulation.mechanism().collisions.colliders;
    let count = |name: &str| {
        let object = run.simulation.scene.find(name).expect("object");
        colliders.iter().filter(|c| c.object == object).count()
    };
    let inner = ball
        .corners()
        .map(|[a, b, c]| (b - a).cross(&(c - a)).normalize().dot(&a.coords))
        .fold(f64::INFINITY, f64::min)
        * radius;
    // After the landing (0.3 s on): on the table, lower than the sphere through the vertices,
    // not lower than the inscribed sphere less the contact's compression.
    let landed = run.time.iter().position(|t| *t >= 0.3).expect("0.3 s");
    let heights = &run.column("ball.r[2]")[landed..];
    let (low, high) = heights
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), y| {
            (l.min(*y), h.max(*y))
        });
    eprintln!(
        "round mesh: {} collider(s) for the ball, {} for the cube; from 0.3 s to 1 s its centre \
         between {low:.6} and {high:.6} m, the spheres' {inner:.6} and {radius}",
        count("ball"),
        count("cube")
    );
    assert_eq!(count("ball"), 1);
    assert_eq!(count("cube"), 1 + 8 + 12);
    assert!(low > inner - 2e-5 && high < radius, "{low} {high}");
}
