//! Animations of simulation results as glTF 2.0 binaries (`.glb`).
//!
//! - [`mesh`]: the triangle mesh of each shape kind.
//! - [`gltf`]: the GLB writer (nodes named after the bodies, one animation).
//! - [`visual_json`]: the visual description an FMU carries as `resources/visual.json`.
//! - [`animate`]: `fmu3d animate RESULT.csv --fmu MODEL.fmu -o OUT.glb`.
//!
//! The poses come either from the engine (`fmu3d simulate MODEL --animation OUT.glb`) or from
//! the output columns `BODY.r[1..3]` and `BODY.Q[1..4]` of a result (an FMU run, a CSV).

pub mod animate;
pub mod gltf;
pub mod mesh;
pub mod visual_json;

use fmu_runtime::assembly::VisualScene;
use nalgebra::{Isometry3, Quaternion, Translation3, UnitQuaternion};
use std::path::Path;

/// The moving bodies' poses over time.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Track {
    /// Strictly increasing instants [s], none negative.
    pub times: Vec<f64>,
    /// `poses[k][b]`: the world pose of moving body `b` (in the order of the visual scene's
    /// moving bodies) at `times[k]`.
    pub poses: Vec<Vec<Isometry3<f64>>>,
}

impl Track {
    /// Adds the poses at `t`. A time that is not later than the last one (as glTF's 32-bit
    /// floats see it) replaces the last poses: a result that repeats an event's instant keeps
    /// the state after the event.
    pub fn push(&mut self, t: f64, poses: Vec<Isometry3<f64>>) {
        if let Some(&last) = self.times.last() {
            if (t as f32) <= (last as f32) {
                if let Some(p) = self.poses.last_mut() {
                    *p = poses;
                }
                return;
            }
        }
        self.times.push(t);
        self.poses.push(poses);
    }

    /// Shifts the times so that none is negative (glTF's key frames start at 0 or later).
    pub fn shift_to_non_negative(&mut self) {
        if let Some(&first) = self.times.first() {
            if first < 0.0 {
                self.times.iter_mut().for_each(|t| *t -= first);
            }
        }
    }
}

/// The output variables that give a moving body's pose: its root frame's position
/// `NAME.r[1..3]` [m] and orientation `NAME.Q[1..4]` (Modelica's quaternion; the same four
/// numbers as glTF's (x, y, z, w) rotation of the body into the world).
pub fn pose_variables(body: &str) -> [String; 7] {
    [
        format!("{body}.r[1]"),
        format!("{body}.r[2]"),
        format!("{body}.r[3]"),
        format!("{body}.Q[1]"),
        format!("{body}.Q[2]"),
        format!("{body}.Q[3]"),
        format!("{body}.Q[4]"),
    ]
}

/// The pose of seven values in the order of [`pose_variables`].
pub fn pose_from_values(values: &[f64]) -> Isometry3<f64> {
    let translation = Translation3::new(values[0], values[1], values[2]);
    let q = Quaternion::new(values[6], values[3], values[4], values[5]);
    let rotation = if q.norm() > 0.0 {
        UnitQuaternion::from_quaternion(q)
    } else {
        UnitQuaternion::identity()
    };
    Isometry3::from_parts(translation, rotation)
}

/// For each moving body, the indices of its seven pose variables among `names`; a missing one
/// is an error naming it (`source`: where the names come from, `what`: what they are, "column"
/// or "output"; `help`: what to do).
pub fn pose_columns(
    visual: &VisualScene,
    names: &[String],
    source: &str,
    what: &str,
    help: &str,
) -> Result<Vec<[usize; 7]>, String> {
    visual
        .bodies
        .iter()
        .filter(|b| b.moving)
        .map(|body| {
            let mut columns = [0; 7];
            for (column, name) in columns.iter_mut().zip(pose_variables(&body.name)) {
                *column = find_column(names, &name).map_err(|found| match found {
                    Found::None => format!(
                        "{source}: there is no {what} `{name}` (the pose of body `{}`): {help}",
                        body.name
                    ),
                    Found::Many(a, b) => format!(
                        "{source}: both `{a}` and `{b}` could be `{name}` (the pose of body \
                         `{}`): write a result of one instance of the FMU only",
                        body.name
                    ),
                })?;
            }
            Ok(columns)
        })
        .collect()
}

/// Why a column was not found.
enum Found {
    None,
    /// Two columns end with the name.
    Many(String, String),
}

/// The column `name`, or else the one column `PREFIX.name`: an importer that wraps the FMU in
/// an instance (OpenModelica, Dymola, OMSimulator) puts the instance's name in front.
fn find_column(names: &[String], name: &str) -> Result<usize, Found> {
    if let Some(index) = names.iter().position(|n| n == name) {
        return Ok(index);
    }
    let suffix = format!(".{name}");
    let mut matches = names
        .iter()
        .enumerate()
        .filter(|(_, n)| n.ends_with(&suffix));
    match (matches.next(), matches.next()) {
        (Some((index, _)), None) => Ok(index),
        (Some((_, a)), Some((_, b))) => Err(Found::Many(a.clone(), b.clone())),
        (None, _) => Err(Found::None),
    }
}

/// Writes the animation of `visual` moving along `track` to `path`.
pub fn write(path: &Path, visual: &VisualScene, track: &Track) -> Result<(), String> {
    let mut track = track.clone();
    track.shift_to_non_negative();
    let glb = gltf::write(visual, &track);
    std::fs::write(path, glb).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
