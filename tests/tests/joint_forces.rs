//! Joint forces (`output_forces = true`) against statics: a beam hinged to the ground at A and
//! propped at its far end B by an inclined strut hinged to the ground at C. The three revolute
//! joints form a planar loop without any degree of freedom; one of them is a cut-joint, whose
//! force comes from the integrated multipliers, the others are tree joints. The mechanism stays
//! at rest, and the forces follow from the free-body diagrams written below.

use fmu_runtime::model;
use fmu_runtime::simulation::{Simulation, SimulationOptions};

const MODEL: &str = r#"
model propped_beam
parameters {
  L = 1 m        "beam length"
  c = 0.4 m      "x of the strut's foot C"
  h = 0.6 m      "depth of the foot below the hinge A"
  m1 = 2 kg      "beam mass (center at L/2)"
  m2 = 1.5 kg    "strut mass (center at its middle)"
  ls = sqrt((L - c)^2 + h^2)
}
gravity uniform { g = [0, -9.81, 0] m/s2 }
object beam { }
object beam_cm { parent = beam; position = [L/2, 0, 0]; mass { m = m1; inertia = diag(0.01, 0.2, 0.2) kg.m2 } }
object beam_end { parent = beam; position = [L, 0, 0] }
object foot { parent = world; position = [c, -h, 0] }
object strut { }
object strut_cm { parent = strut; position = [ls/2, 0, 0]; mass { m = m2; inertia = diag(0.01, 0.1, 0.1) kg.m2 } }
object strut_end { parent = strut; position = [ls, 0, 0] }
joint hinge revolute { from = world; to = beam; phi = 0; output_forces = true }
joint base revolute { from = foot; to = strut; phi_guess = 50 deg; output_forces = true }
joint pin revolute { from = beam_end; to = strut_end; output_forces = true }
"#;

fn vector(sim: &mut Simulation, name: &str) -> [f64; 3] {
    let indices: Vec<usize> = (1..=3)
        .map(|i| {
            sim.variables
                .find(&format!("{name}[{i}]"))
                .unwrap_or_else(|| panic!("no variable {name}[{i}]"))
        })
        .collect();
    let v = sim.values_of(&indices);
    [v[0], v[1], v[2]]
}

#[test]
fn forces_of_a_propped_beam_follow_its_free_body_diagrams() {
    propped_beam_forces_follow_the_free_body_diagrams(MODEL);
}

/// The same truss with a ball joint (`spherical`) at B instead of the pin: it passes the same
/// force from the beam to the strut, and no torque (the pin passes none about its axis and the
/// planar truss loads it with none about the others).
#[test]
fn a_ball_joint_passes_the_propped_beams_force_and_no_torque() {
    let ball = MODEL.replace(
        "joint pin revolute { from = beam_end; to = strut_end; output_forces = true }",
        "joint pin spherical { from = beam_end; to = strut_end; output_forces = true }",
    );
    assert_ne!(ball, MODEL);
    propped_beam_forces_follow_the_free_body_diagrams(&ball);
}

/// The joint forces of the propped beam `source` (the joints `hinge`, `base` and `pin`) against
/// the free-body diagrams, at three times; their torques are zero.
fn propped_beam_forces_follow_the_free_body_diagrams(source: &str) {
    let spec = model::load_str_with(source, "propped_beam.m3d", &[]).expect("the model loads");
    let options = SimulationOptions {
        tolerance: Some(1e-8),
        ..SimulationOptions::default()
    };
    let mut sim = Simulation::new(spec, options).expect("the truss assembles");
    let (l, c, h, m1, m2, g) = (1.0, 0.4, 0.6, 2.0, 1.5, 9.81);
    // Beam, moments about A: the strut pushes up at B with F_By·L = m1·g·L/2.
    let f_by = m1 * g / 2.0;
    // Strut, moments about C with d = B − C = (L − c, h): the beam's force −F_B at B and the
    // strut's weight at d/2 balance: −d_x·F_By + d_y·F_Bx − d_x·m2·g/2 = 0.
    let (dx, dy) = (l - c, h);
    let f_bx = dx * (f_by + m2 * g / 2.0) / dy;
    // Force on the `to` side, in `from` axes (all three `from` frames are parallel to the world).
    let expected = [
        ("pin", [-f_bx, -f_by, 0.0]),           // beam on strut: −F_B
        ("hinge", [-f_bx, m1 * g - f_by, 0.0]), // ground on beam: beam weight minus F_B
        ("base", [f_bx, f_by + m2 * g, 0.0]),   // ground on strut: F_B plus strut weight
    ];
    let cut = &sim.mechanism().cuts[0].name.clone();
    let mut worst = 0.0f64;
    for t in [0.0, 0.25, 0.5] {
        sim.advance_to(t).expect("the integrator reaches the time");
        for (joint, force) in &expected {
            let f = vector(&mut sim, &format!("{joint}.f_reaction"));
            let torque = vector(&mut sim, &format!("{joint}.t_reaction"));
            for i in 0..3 {
                worst = worst.max((f[i] - force[i]).abs()).max(torque[i].abs());
            }
        }
        let r = vector(&mut sim, "hinge.f_reaction");
        assert!(r.iter().all(|x| x.is_finite()));
    }
    eprintln!("propped beam: cut-joint `{cut}`, largest force/torque error {worst:.2e} N (N.m)");
    // Statics solved exactly: what remains is round-off (1.1e-14 N measured).
    assert!(worst < 1e-12, "largest joint force error {worst:e}");
}
