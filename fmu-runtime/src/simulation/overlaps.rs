//! Shapes that start inside each other: found at the start (refused beyond a small depth) and
//! when the integrator gives up inside a contact, named by their objects for the message.

use super::*;

/// Two objects whose shapes penetrate: the deepest of their collision pairs.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Overlap {
    pub(super) a: String,
    pub(super) b: String,
    /// Penetration depth [m].
    pub(super) depth: f64,
    /// Unit normal from a to b: moving b along it separates them.
    pub(super) normal: Vector3<f64>,
    /// The deepest penetration the pair may start with [m].
    pub(super) limit: f64,
    /// The pair's regularization speed [m/s].
    pub(super) v_small: f64,
}

impl Overlap {
    pub(super) fn describe(&self) -> String {
        format!(
            "`{}` and `{}` ({:.4} mm deep)",
            self.a,
            self.b,
            self.depth * 1e3
        )
    }
}

/// The pairs of objects whose shapes penetrate at the workspace's kinematics, one entry per
/// pair of objects (its deepest collision pair: a box touches through several), deepest first.
pub(super) fn overlaps(scene: &Scene, mechanism: &Mechanism, ws: &mut Workspace) -> Vec<Overlap> {
    let set = &mechanism.collisions;
    let distances = contacts::near_distances(mechanism, ws, false);
    let mut found: Vec<Overlap> = Vec::new();
    for (index, contact) in contacts::penetrating_pairs(mechanism, ws, &distances) {
        let pair = ws.pairs.get(index);
        let overlap = Overlap {
            a: scene.object(set.colliders[pair.a].object).name.clone(),
            b: scene.object(set.colliders[pair.b].object).name.clone(),
            depth: contact.penetration(),
            normal: contact.normal.into_inner(),
            limit: contacts::start_penetration_limit(set, pair),
            v_small: pair.law.v_small,
        };
        match found
            .iter_mut()
            .find(|o| (&o.a, &o.b) == (&overlap.a, &overlap.b))
        {
            Some(known) if known.depth >= overlap.depth => {}
            Some(known) => *known = overlap,
            None => found.push(overlap),
        }
    }
    found.sort_by(|x, y| y.depth.total_cmp(&x.depth));
    found
}

/// The error for shapes that start deeper inside each other than they may.
pub(super) fn start_overlap_message(model: &str, deep: &[Overlap]) -> String {
    let each: Vec<String> = deep
        .iter()
        .map(|o| {
            // Components printed to 4 decimals, without a "-0.0000" for a rounding residue.
            let n = o.normal.map(|x| if x.abs() < 5e-5 { 0.0 } else { x });
            format!(
                "`{}` and `{}` overlap by {:.4} mm (more than the {:.4} mm a start may have; \
                 moving `{}` by {:.4} mm along [{:.4}, {:.4}, {:.4}] separates them)",
                o.a,
                o.b,
                o.depth * 1e3,
                o.limit * 1e3,
                o.b,
                o.depth * 1e3,
                n.x,
                n.y,
                n.z
            )
        })
        .collect();
    format!(
        "the model `{model}` starts with shapes inside each other: {}. Place them so that they \
         touch or are apart at the start (a resting part sinks to its resting depth by itself)",
        each.join("; ")
    )
}
