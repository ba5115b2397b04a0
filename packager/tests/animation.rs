//! `fmu3d simulate --animation`, `fmu3d build --animation-outputs` and `fmu3d animate` as a user
//! runs them: the .glb parses back, shows the bouncing ball at the height the model file gives,
//! and `animate` of a result CSV gives the poses `simulate --animation` gives.

use serde_json::Value;
use std::path::Path;

mod common;

use common::{fmu3d, folder, read_entry, repository};

/// The JSON chunk and the BIN chunk of a GLB, after checking header, lengths and alignment.
fn read_glb(path: &Path) -> (Value, Vec<u8>) {
    let data = std::fs::read(path).expect("the .glb exists");
    let word = |at: usize| u32::from_le_bytes(data[at..at + 4].try_into().expect("4 bytes"));
    assert_eq!(&data[0..4], b"glTF");
    assert_eq!((word(4), word(8) as usize), (2, data.len()));
    let json_length = word(12) as usize;
    assert_eq!((word(16), json_length % 4), (0x4E4F_534A, 0));
    let json: Value = serde_json::from_slice(&data[20..20 + json_length]).expect("JSON chunk");
    let at = 20 + json_length;
    let bin_length = word(at) as usize;
    assert_eq!((word(at + 4), bin_length % 4), (0x004E_4942, 0));
    assert_eq!(at + 8 + bin_length, data.len());
    (json, data[at + 8..].to_vec())
}

fn floats(json: &Value, bin: &[u8], accessor: &Value) -> Vec<f32> {
    let accessor = &json["accessors"][accessor.as_u64().expect("index") as usize];
    let view = &json["bufferViews"][accessor["bufferView"].as_u64().expect("view") as usize];
    let start = view["byteOffset"].as_u64().unwrap_or(0) as usize;
    let length = view["byteLength"].as_u64().expect("length") as usize;
    bin[start..start + length]
        .chunks(4)
        .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
        .collect()
}

/// (times, translations, rotations) of the node named `body`.
fn channels(path: &Path, body: &str) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let (json, bin) = read_glb(path);
    let nodes = json["nodes"].as_array().expect("nodes");
    let node = nodes
        .iter()
        .position(|n| n["name"] == body)
        .unwrap_or_else(|| panic!("no node {body}"));
    let animation = &json["animations"][0];
    let sampler = |path: &str| {
        let channel = animation["channels"]
            .as_array()
            .expect("channels")
            .iter()
            .find(|c| c["target"]["node"] == node && c["target"]["path"] == path)
            .unwrap_or_else(|| panic!("no {path} channel of {body}"));
        &animation["samplers"][channel["sampler"].as_u64().expect("sampler") as usize]
    };
    (
        floats(&json, &bin, &sampler("translation")["input"]),
        floats(&json, &bin, &sampler("translation")["output"]),
        floats(&json, &bin, &sampler("rotation")["output"]),
    )
}

fn run(command: &mut std::process::Command) -> std::process::Output {
    let output = command.output().expect("fmu3d runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

#[test]
fn the_ball_starts_at_its_height_and_animate_gives_the_same_poses() {
    let out = folder("animation");
    let model = repository().join("models/bouncing_ball.m3d");
    // The start height from the model file's text: `height = 1 m`.
    let text = std::fs::read_to_string(&model).expect("model");
    let height: f32 = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("height = "))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|number| number.parse().ok())
        .expect("a height parameter");
    let (csv, glb) = (out.join("ball.csv"), out.join("ball.glb"));
    run(fmu3d()
        .args(["simulate", "--stop-time", "0.5", "-o"])
        .arg(&csv)
        .arg("--animation")
        .arg(&glb)
        .arg(&model));
    let (times, translations, rotations) = channels(&glb, "ball");
    let rows = std::fs::read_to_string(&csv).expect("csv").lines().count() - 1;
    assert_eq!(times.len(), rows);
    assert_eq!((times[0], *times.last().expect("times")), (0.0, 0.5));
    assert_eq!(&translations[0..3], &[0.0, height, 0.0]);
    assert_eq!(&rotations[0..4], &[0.0, 0.0, 0.0, 1.0]);
    // Falling: after 0.2 s of free fall the centre is ½·g·t² lower (before it reaches the floor).
    let k = times.iter().position(|&t| t == 0.2).expect("t = 0.2 s");
    let fallen = height - translations[3 * k + 1];
    assert!((fallen - 0.5 * 9.81 * 0.04).abs() < 1e-5, "{fallen}");

    // The FMU's visual description, and `animate` of the CSV (the ball is marked as output).
    let fmu = out.join("ball.fmu");
    run(fmu3d().arg("build").arg(&model).arg("-o").arg(&fmu));
    let visual: Value =
        serde_json::from_slice(&read_entry(&fmu, "resources/visual.json")).expect("JSON");
    assert_eq!(visual["bodies"][1]["name"], "ball");
    assert_eq!(visual["bodies"][1]["shapes"][0]["kind"], "sphere");
    assert_eq!(visual["bodies"][0]["shapes"][0]["object"], "floor");
    let animated = out.join("animated.glb");
    run(fmu3d()
        .arg("animate")
        .arg(&csv)
        .arg("--fmu")
        .arg(&fmu)
        .arg("-o")
        .arg(&animated));
    let (times2, translations2, rotations2) = channels(&animated, "ball");
    assert_eq!(times2, times);
    assert_eq!(translations2, translations);
    let worst = rotations
        .iter()
        .zip(&rotations2)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    println!("largest rotation difference {worst:e}");
    // Equal, up to one unit in the last place of a quaternion renormalized after reading.
    assert!(worst <= 1.2e-7);
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn animation_outputs_add_the_poses_and_animate_names_a_missing_column() {
    let out = folder("animation-outputs");
    let model = repository().join("models/double_pendulum.m3d");
    let (plain, posed) = (out.join("plain.fmu"), out.join("posed.fmu"));
    run(fmu3d().arg("build").arg(&model).arg("-o").arg(&plain));
    run(fmu3d()
        .arg("build")
        .arg(&model)
        .arg("--animation-outputs")
        .arg("-o")
        .arg(&posed));
    let description =
        |fmu: &Path| String::from_utf8(read_entry(fmu, "modelDescription.xml")).expect("UTF-8");
    assert!(!description(&plain).contains("name=\"link1.Q[4]\""));
    assert!(description(&posed).contains("name=\"link1.Q[4]\""));
    assert!(description(&posed).contains("name=\"link2.r[1]\""));

    // The FMU with pose outputs runs (its GUID tells the runtime the variable list) and animates.
    let csv = out.join("posed.csv");
    run(fmu3d()
        .arg("simulate")
        .arg(&posed)
        .args(["--stop-time", "0.2", "-o"])
        .arg(&csv)
        .arg("--animation")
        .arg(out.join("posed.glb")));
    let (times, _, _) = channels(&out.join("posed.glb"), "link2");
    assert_eq!(times.len(), 21);

    // The plain FMU's result has no poses: refused, naming the column.
    let csv = out.join("plain.csv");
    run(fmu3d()
        .arg("simulate")
        .arg(&plain)
        .args(["--stop-time", "0.1", "-o"])
        .arg(&csv));
    let glb = out.join("plain.glb");
    let output = fmu3d()
        .arg("animate")
        .arg(&csv)
        .arg("--fmu")
        .arg(&plain)
        .arg("-o")
        .arg(&glb)
        .output()
        .expect("fmu3d runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "{}: there is no column `link1.r[1]` (the pose of body `link1`)",
            csv.display()
        )),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(!glb.exists());
    // So is a file that is not an FMU.
    let output = fmu3d()
        .arg("animate")
        .arg(&csv)
        .arg("--fmu")
        .arg(&csv)
        .output()
        .expect("fmu3d runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("not an FMU"), "{stderr}");
    std::fs::remove_dir_all(&out).ok();
}
