//! `fmu3d check`: validate a model and show what it is made of and what it exposes.

use crate::cli::CheckArgs;
use fmu_runtime::assembly::{Causality, TreeJointKind};
use fmu_runtime::model::JointKind;

pub fn run(args: &CheckArgs) -> Result<(), String> {
    let sim = crate::build::start_simulation(&args.model, false)?;
    let scene = &sim.scene;
    println!(
        "model {}{}",
        sim.spec.name,
        sim.spec
            .description
            .as_ref()
            .map(|d| format!(" \"{d}\""))
            .unwrap_or_default()
    );
    println!(
        "{} objects, {} joints, {} force elements → {} bodies (super-objects), {} states",
        scene.objects.len() - 1,
        scene.joints.len(),
        scene.forces.len(),
        sim.assembly.super_objects.len() - 1,
        sim.state_count()
    );
    println!("\nsuper-objects:");
    for (index, body) in sim.assembly.super_objects.iter().enumerate() {
        let members: Vec<&str> = body
            .members
            .iter()
            .map(|m| scene.object(m.object).name.as_str())
            .collect();
        let joint = match &body.joint {
            None => "root".to_string(),
            Some(tj) => {
                let spec = &scene.joints[tj.joint.0].spec;
                let axes = spec.kind.axes();
                let kind = match (&spec.kind, tj.kind.clone()) {
                    (JointKind::Compound { kind, .. }, _) => kind.word(),
                    (_, TreeJointKind::Revolute { .. }) => "revolute",
                    (_, TreeJointKind::Prismatic { .. }) => "prismatic",
                    (_, TreeJointKind::Free) => "free",
                };
                // A joint of several axes: one tree joint per axis, connectors between them.
                let axis = match axes.get(tj.axis) {
                    Some(a) if axes.len() > 1 => format!(" (axis `{}`)", a.names[0]),
                    _ => String::new(),
                };
                let parent = body.parent.unwrap_or(0);
                let stops = tj.stop.map_or(String::new(), |s| {
                    format!(", end stops {} … {}", s.lower, s.upper)
                });
                let follows = tj.follows.map_or(String::new(), |f| {
                    format!(
                        ", follows body {}'s joint at ratio {}, offset {}",
                        f.leader, f.ratio, f.offset
                    )
                });
                format!(
                    "{kind} joint `{}`{axis} to body {parent}{stops}{follows}",
                    spec.name
                )
            }
        };
        let mass = body
            .mass
            .as_ref()
            .map(|m| format!(", mass {} kg", m.mass))
            .unwrap_or_default();
        println!("  {index}: [{}] {joint}{mass}", members.join(", "));
        if let Some(m) = &body.mass {
            // Full precision, so that a mesh's mass properties can be compared with another
            // tool's (tests/python/test_meshes.py).
            let c = m.center;
            let i = m.inertia;
            println!(
                "     centre of mass [{:e}, {:e}, {:e}] m, inertia about it [{:e}, {:e}, {:e}; {:e}, {:e}, {:e}; {:e}, {:e}, {:e}] kg.m2",
                c.x, c.y, c.z,
                i[(0, 0)], i[(0, 1)], i[(0, 2)],
                i[(1, 0)], i[(1, 1)], i[(1, 2)],
                i[(2, 0)], i[(2, 1)], i[(2, 2)],
            );
        }
        if !body.visual_only.is_empty() {
            let visual: Vec<&str> = body
                .visual_only
                .iter()
                .map(|&i| scene.object(body.members[i].object).name.as_str())
                .collect();
            println!(
                "     visual only (evaluated at communication points): {}",
                visual.join(", ")
            );
        }
        if !body.no_collision_pairs.is_empty() {
            println!(
                "     does not collide with bodies {:?}",
                body.no_collision_pairs
            );
        }
    }
    let spec = &sim.spec;
    if !spec.snapped.is_empty() || !spec.redundant_mates.is_empty() {
        println!("\nmates (fixed joints), placements computed by SNAP:");
        for placed in &spec.snapped {
            println!("  `{}` places `{}`", placed.mate, placed.object);
        }
        for mate in &spec.redundant_mates {
            println!(
                "  `{}` (line {}) is redundant: already placed by {}; its frames agree within {:.1e} m and {:.1e} rad",
                mate.name,
                mate.location.line,
                mate.determined_by.join(", "),
                mate.position_error,
                mate.angle_error
            );
        }
        println!(
            "  parts placed by mates: {}; redundant mates (not used): {}",
            spec.snapped.len(),
            spec.redundant_mates.len()
        );
    }
    let mechanism = sim.mechanism();
    if !mechanism.cuts.is_empty() {
        println!("\nkinematic loops (cut-joints):");
        for (index, cut) in mechanism.cuts.iter().enumerate() {
            let kept = mechanism.rows.iter().filter(|r| r.cut == index).count();
            let dropped: Vec<&str> = mechanism
                .dropped
                .iter()
                .filter(|r| r.cut == index)
                .map(|r| r.description.as_str())
                .collect();
            println!(
                "  `{}` closes a loop between bodies {} and {}: {} constraint equations",
                cut.name,
                cut.body_a,
                cut.body_b,
                kept + dropped.len()
            );
            if dropped.is_empty() {
                println!("     all independent");
            } else {
                println!(
                    "     {} redundant, removed: {}",
                    dropped.len(),
                    dropped.join("; ")
                );
            }
        }
        println!(
            "  {} independent constraint equations kept, {} redundant removed",
            mechanism.rows.len(),
            mechanism.dropped.len()
        );
    }
    let drives = &sim.mechanism().drives;
    if !drives.is_empty() {
        println!("\ndrives:");
        for drive in drives {
            let joint = sim.mechanism().bodies[drive.body]
                .joint
                .as_ref()
                .map_or("", |j| j.name.as_str());
            let parts: Vec<String> = drive
                .parts
                .iter()
                .map(|p| format!("inertia {} (ratio {})", p.inertia, p.ratio))
                .collect();
            println!(
                "  {} on joint `{joint}`: {} part(s) from the source, {}; {} state(s)",
                drive.name,
                parts.len(),
                parts.join(" | "),
                2 * drive.states.parts.len() + usize::from(drive.states.current.is_some())
            );
        }
    }
    println!("\nvariables:");
    for variable in &sim.variables.variables {
        let causality = match variable.causality {
            Causality::Parameter => "parameter",
            Causality::Input => "input",
            Causality::Output => "output",
            Causality::Local => "local",
        };
        let start = variable
            .start
            .map(|s| format!(" = {s}"))
            .unwrap_or_default();
        let unit = match variable.unit {
            Some(kind) => format!(" [{}]", kind.si_unit()),
            None => String::new(),
        };
        println!(
            "  {causality:9} {}{unit}{start}  {}",
            variable.name, variable.description
        );
    }
    println!(
        "\nModel Exchange: {} continuous state(s), {} event indicator(s)",
        sim.continuous_state_count(),
        sim.event_indicator_count()
    );
    let e = &sim.spec.experiment;
    println!(
        "\nexperiment: start {} s, stop {} s, interval {} s, tolerance {}",
        e.start_time, e.stop_time, e.interval, e.tolerance
    );
    Ok(())
}
