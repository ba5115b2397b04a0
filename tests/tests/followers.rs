//! Joints that follow another (`follows`, `follow_ratio`, `follow_offset`; URDF's `mimic`):
//! a gear constraint q_b = r·q_a + o. Two pendulums on separate pivots, the second following the
//! first at r = 2 (and −1) with an offset: one degree of freedom whose equation of motion,
//! from Lagrange with the constraint substituted,
//!
//! (J_a + r²·J_b)·φ̈ = −m_a·g·l_a·cos φ − r·m_b·g·l_b·cos(r·φ + o),
//!
//! is integrated by a fourth-order Runge–Kutta method in this file. The engine never forms it:
//! it moves the follower with its leader and passes the follower's generalized force back
//! through the ratio.

use fmu3d_tests::{refusal, runge_kutta, simulate};
use fmu_runtime::model;
use fmu_runtime::simulation::{Simulation, SimulationOptions};

const PENDULUMS: &str = r#"
model follow
parameters { m_a = 1 kg; m_b = 0.5 kg; l_a = 0.4 m; l_b = 0.3 m; r = 2; o = 0.1 }
object pivot_b { parent = world; position = [1, 0, 0] m }
object a { mass { m = m_a; center = [l_a, 0, 0]; inertia = diag(1e-3, 1e-3, 1e-3) kg.m2 } }
object b { mass { m = m_b; center = [l_b, 0, 0]; inertia = diag(1e-3, 1e-3, 1e-3) kg.m2 } }
joint lead revolute { from = world; to = a; axis = z; phi = -60 deg }
joint copy revolute { from = pivot_b; to = b; axis = z; follows = lead; follow_ratio = r; follow_offset = o }
"#;

/// φ(t), φ̇(t) of the leader by RK4 with step `dt`.
fn reference(p: &[f64; 6], phi0: f64, until: f64, dt: f64) -> (f64, f64) {
    let [m_a, m_b, l_a, l_b, r, o] = *p;
    let g = 9.81;
    let inertia = (1e-3 + m_a * l_a * l_a) + r * r * (1e-3 + m_b * l_b * l_b);
    let acceleration =
        |phi: f64| (-m_a * g * l_a * phi.cos() - r * m_b * g * l_b * (r * phi + o).cos()) / inertia;
    runge_kutta(|phi, _| acceleration(phi), (phi0, 0.0), until, dt)
}

#[test]
fn a_follower_swings_with_its_leader_as_the_geared_equation_says() {
    for (r, o) in [(2.0, 0.1), (-1.0, 0.0), (0.5, -0.3)] {
        let overrides = [("r".to_string(), r), ("o".to_string(), o)];
        let spec = model::load_str_with(PENDULUMS, "follow.m3d", &overrides).expect("model");
        let run = simulate(spec, 1e-10, 2.0, 0.01);
        let p = ["m_a", "m_b", "l_a", "l_b", "r", "o"].map(|n| run.parameter(n));
        let (phi, w) = (run.column("lead.phi"), run.column("lead.w"));
        let (copy, copy_w) = (run.column("copy.phi"), run.column("copy.w"));
        let mut worst = 0.0f64;
        for k in (0..run.time.len()).step_by(20) {
            let (x, v) = reference(&p, phi[0], run.time[k], 1e-5);
            worst = worst.max((phi[k] - x).abs()).max((w[k] - v).abs() * 0.1);
        }
        let geared = (0..run.time.len())
            .map(|k| (copy[k] - (r * phi[k] + o)).abs() + (copy_w[k] - r * w[k]).abs())
            .fold(0.0, f64::max);
        let swing = phi.iter().fold(f64::MIN, |a, &b| a.max(b))
            - phi.iter().fold(f64::MAX, |a, &b| a.min(b));
        eprintln!(
            "follower at r = {r}, offset {o}: leader within {worst:.1e} rad of RK4 over 2 s \
             (swing {swing:.3} rad); follower off the gear by {geared:.1e}"
        );
        // Measured 8.5e-10 … 3.2e-9 at tolerance 1e-10 (a wrong ratio in the reflected
        // inertia or torque is off by 1e-2 and more).
        assert!(worst < 1e-8, "r = {r}: {worst}");
        assert!(geared < 1e-12, "r = {r}: {geared}");
        assert!(swing > 0.1, "it swings");
    }
}

#[test]
fn a_follower_without_a_leader_with_start_values_or_a_drive_is_refused() {
    let bodies = "object a { mass { m = 1; inertia = diag(1, 1, 1) } }\nobject b { mass { m = 1; inertia = diag(1, 1, 1) } }\nobject p { parent = world; position = [1, 0, 0] }\n";
    let lead = "joint lead revolute { from = world; to = a }\n";
    let cases = [
        (
            format!("{bodies}{lead}joint copy revolute {{ from = p; to = b; follows = laed }}"),
            "there is no joint named `laed` to follow",
        ),
        (
            format!("{bodies}{lead}joint copy revolute {{ from = p; to = b; follows = lead; phi = 1 }}"),
            "`phi` cannot be given",
        ),
        (
            format!("{bodies}{lead}joint copy revolute {{ from = p; to = b; follows = lead; follow_ratio = 0 }}"),
            "`follow_ratio` must not be zero",
        ),
        (
            format!("{bodies}joint lead revolute {{ from = world; to = a; motion = t }}\njoint copy revolute {{ from = p; to = b; follows = lead }}"),
            "the leader is motion-driven",
        ),
        (
            format!("{bodies}{lead}joint copy revolute {{ from = p; to = b; follows = copy }}"),
            "a joint cannot follow itself",
        ),
        (
            format!("{bodies}{lead}joint copy revolute {{ from = p; to = b; follows = lead }}\ndrive d {{ joint = copy; torque {{ }} }}"),
            "a drive cannot act on it",
        ),
        (
            format!("{bodies}joint lead revolute {{ from = world; to = a; follow_offset = 1 }}"),
            "`follow_offset` belongs to `follows`",
        ),
    ];
    for (source, expected) in cases {
        let message = refusal(&source);
        eprintln!("{message}");
        assert!(message.contains(expected), "{expected}: {message}");
    }
    // A model with kinematic loops.
    let fourbar = std::fs::read_to_string(fmu3d_tests::model_path("fourbar")).expect("fourbar");
    let with_follower = format!(
        "{fourbar}\nobject tag {{ mass {{ m = 0.1; inertia = diag(1e-4, 1e-4, 1e-4) }} }}\njoint tag_turn revolute {{ from = world; to = tag; follows = rev2 }}\n"
    );
    let message = refusal(&with_follower);
    eprintln!("{message}");
    assert!(
        message.contains("cannot have joints that follow others yet"),
        "{message}"
    );
}

/// Model Exchange: the explicit form's ẋ at a few states of the pendulums geared at 2, against
/// the geared equation of motion there (the follower's coupling is not one the articulated-body
/// algorithm of trees knows: the explicit form must not take it).
#[test]
fn model_exchange_derivatives_carry_the_gear() {
    let spec = model::load_str_with(PENDULUMS, "follow.m3d", &[]).expect("model");
    let mut sim = Simulation::new(spec, SimulationOptions::default()).expect("starts");
    sim.enter_model_exchange();
    let p = [1.0, 0.5, 0.4, 0.3, 2.0, 0.1];
    let [m_a, m_b, l_a, l_b, r, o] = p;
    let inertia = (1e-3 + m_a * l_a * l_a) + r * r * (1e-3 + m_b * l_b * l_b);
    let mut worst = 0.0f64;
    for (phi, w) in [(-1.0, 0.0), (0.3, 2.0), (2.0, -1.5)] {
        sim.set_continuous_states(&[phi, w]).expect("states");
        let derivatives = sim.derivatives().expect("derivatives").to_vec();
        let expected = (-m_a * 9.81 * l_a * f64::cos(phi)
            - r * m_b * 9.81 * l_b * f64::cos(r * phi + o))
            / inertia;
        worst = worst
            .max((derivatives[0] - w).abs())
            .max((derivatives[1] - expected).abs());
    }
    eprintln!("Model Exchange with a follower: ẋ within {worst:.1e} of the geared equation");
    assert!(worst < 1e-12, "{worst}");
}
