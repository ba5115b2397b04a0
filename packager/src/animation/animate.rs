//! `fmu3d animate RESULT.csv --fmu MODEL.fmu -o OUT.glb`: the animation of a result that any
//! importer wrote (fmpy, OpenModelica, Dymola, libcosim, fmi-sim), from the FMU's visual
//! description (`resources/visual.json`) and the result's pose columns, the CSV read by
//! [`crate::csv_table`].

use super::{pose_columns, pose_from_values, visual_json, Track};
use crate::cli::AnimateArgs;
use crate::csv_table::{CsvTable, NonNumbers, Row};
use fmu_runtime::assembly::VisualScene;
use fmu_runtime::fmu::VISUAL_FILE;
use std::io::Read;
use std::path::Path;

/// What to do when a result lacks the pose columns.
pub const POSE_HELP: &str = "the FMU must output every moving body's pose: build it with \
     `fmu3d build MODEL --animation-outputs` (or mark the body `output = true` in the model \
     file) and simulate again";

pub fn run(args: &AnimateArgs) -> Result<(), String> {
    let visual = read_visual(&args.fmu)?;
    let text = std::fs::read_to_string(&args.result)
        .map_err(|e| format!("cannot read {}: {e}", args.result.display()))?;
    let source = args.result.display().to_string();
    let track = track_from_csv(&text, &visual, &source)?;
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| args.result.with_extension("glb"));
    super::write(&output, &visual, &track)?;
    eprintln!(
        "{}: {} key frames of {} moving bodies from {}; wrote {}",
        visual.model,
        track.times.len(),
        visual.bodies.iter().filter(|b| b.moving).count(),
        args.result.display(),
        output.display()
    );
    Ok(())
}

/// The visual description inside an FMU.
pub fn read_visual(fmu: &Path) -> Result<VisualScene, String> {
    let file =
        std::fs::File::open(fmu).map_err(|e| format!("cannot read {}: {e}", fmu.display()))?;
    let mut archive = zip::ZipArchive::new(file)
        .map_err(|e| format!("{}: not an FMU (zip archive): {e}", fmu.display()))?;
    let name = format!("resources/{VISUAL_FILE}");
    let mut entry = archive.by_name(&name).map_err(|_| {
        format!(
            "{}: has no {name}: it was not built by an fmu3d that writes visual descriptions; \
             rebuild it with `fmu3d build`",
            fmu.display()
        )
    })?;
    let mut text = String::new();
    entry
        .read_to_string(&mut text)
        .map_err(|e| format!("{}: cannot read {name}: {e}", fmu.display()))?;
    visual_json::from_json(&text).map_err(|e| format!("{}: {name}: {e}", fmu.display()))
}

/// The poses of a result CSV: a `time` column (the first, or named `time`) and the pose
/// columns of every moving body, quoted or not; of rows with the same time, the last holds.
pub fn track_from_csv(text: &str, visual: &VisualScene, source: &str) -> Result<Track, String> {
    let table = CsvTable::parse(text, NonNumbers::Refused).map_err(|e| format!("{source}: {e}"))?;
    let time = table
        .names
        .iter()
        .position(|n| n == "time" || n == "Time")
        .ok_or_else(|| {
            format!(
                "{source}: there is no column `time` (line 1: `{}`)",
                table.header
            )
        })?;
    let columns = pose_columns(visual, &table.names, source, "column", POSE_HELP)?;
    let mut track = Track::default();
    for Row { values, .. } in &table.rows {
        let poses = columns
            .iter()
            .map(|c| pose_from_values(&c.map(|i| values[i])))
            .collect();
        track.push(values[time], poses);
    }
    Ok(track)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fmu_runtime::assembly::VisualBody;
    use nalgebra::Vector3;

    fn visual() -> VisualScene {
        VisualScene {
            model: "m".into(),
            up: Vector3::y(),
            bodies: vec![VisualBody {
                name: "b".into(),
                moving: true,
                shapes: Vec::new(),
            }],
        }
    }

    #[test]
    fn quoted_and_unquoted_headers_give_the_same_track() {
        let quoted = "\"time\",\"x\",\"b.r[1]\",\"b.r[2]\",\"b.r[3]\",\"b.Q[1]\",\"b.Q[2]\",\"b.Q[3]\",\"b.Q[4]\"\n\
                      0,9,1,2,3,0,0,0,1\n0.5,9,1,2,2.5,0,0,1,0\n";
        let plain = quoted.replace('"', "");
        let a = track_from_csv(quoted, &visual(), "r.csv").unwrap();
        let b = track_from_csv(&plain, &visual(), "r.csv").unwrap();
        assert_eq!(a, b);
        assert_eq!(a.times, [0.0, 0.5]);
        assert_eq!(
            a.poses[1][0].translation.vector,
            Vector3::new(1.0, 2.0, 2.5)
        );
        assert!((a.poses[1][0].rotation * Vector3::x() + Vector3::x()).norm() < 1e-15);
    }

    #[test]
    fn pose_columns_under_an_instance_name_are_found() {
        let plain = "time,b.r[1],b.r[2],b.r[3],b.Q[1],b.Q[2],b.Q[3],b.Q[4]\n0,1,2,3,0,0,0,1\n";
        let wrapped = plain.replace(",b.", ",dp.b.");
        assert_eq!(
            track_from_csv(&wrapped, &visual(), "r.csv"),
            track_from_csv(plain, &visual(), "r.csv")
        );
        let twice = "time,x.b.r[1],y.b.r[1]\n0,1,2\n";
        let e = track_from_csv(twice, &visual(), "r.csv").unwrap_err();
        assert!(e.contains("both `x.b.r[1]` and `y.b.r[1]`"), "{e}");
    }

    #[test]
    fn a_missing_pose_column_is_named() {
        let e = track_from_csv("time,b.r[1]\n0,1\n", &visual(), "r.csv").unwrap_err();
        assert!(
            e.starts_with("r.csv: there is no column `b.r[2]` (the pose of body `b`)"),
            "{e}"
        );
        assert!(e.contains("--animation-outputs"));
    }
}
