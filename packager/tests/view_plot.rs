//! `fmu3d view` and `fmu3d plot` on the command line: what they write, and their one-line errors.
//! (The page in a browser and the plots' pixels: tests/python/test_viewer.py.)

mod common;

use common::{fmu3d, folder, repository};
use std::path::Path;
use std::process::Output;

fn run(args: &[&std::ffi::OsStr]) -> Output {
    fmu3d().args(args).output().expect("fmu3d runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A glTF 2.0 binary with one empty scene: a header and a JSON chunk.
fn minimal_glb(path: &Path) {
    let mut json = br#"{"asset":{"version":"2.0"},"scenes":[{"nodes":[]}],"scene":0}"#.to_vec();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let mut glb = b"glTF".to_vec();
    glb.extend(2u32.to_le_bytes());
    glb.extend((12 + 8 + json.len() as u32).to_le_bytes());
    glb.extend((json.len() as u32).to_le_bytes());
    glb.extend(b"JSON");
    glb.extend(&json);
    std::fs::write(path, glb).expect("writable");
}

#[test]
fn view_writes_one_page_with_the_animation_inside() {
    let dir = folder("view-page");
    let glb = dir.join("scene.glb");
    minimal_glb(&glb);
    let page = dir.join("scene.html");
    let output = run(&[
        "view".as_ref(),
        glb.as_os_str(),
        "-o".as_ref(),
        page.as_os_str(),
    ]);
    let bundled = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../target/viewer/viewer.js")
        .is_file();
    if !bundled {
        // Built without the page script: a clear error, and no page.
        assert!(!output.status.success());
        assert!(
            stderr(&output).contains("bash scripts/build.sh"),
            "{}",
            stderr(&output)
        );
        assert!(!page.exists());
        return;
    }
    assert!(output.status.success(), "{}", stderr(&output));
    let html = std::fs::read_to_string(&page).expect("the page");
    // The animation, base64 (RFC 4648) of the file's bytes, is in the page.
    assert!(
        html.contains("\"glb\":\"Z2xURgIAAA"),
        "the glb's base64 is in the page"
    );
    assert!(html.contains("<title>scene — fmu3d</title>"));
    assert!(!html.contains("<script src"));
}

#[test]
fn view_and_plot_refuse_bad_input_in_one_line() {
    let dir = folder("view-plot-errors");
    let text = dir.join("notes.glb");
    std::fs::write(&text, "no glTF here").expect("writable");
    let output = run(&["view".as_ref(), text.as_os_str()]);
    assert_eq!(output.status.code(), Some(1));
    let message = stderr(&output);
    assert!(
        message.starts_with(&format!("{}: not a glTF binary (.glb)", text.display())),
        "{message}"
    );
    assert_eq!(message.lines().count(), 1, "{message}");

    let csv = dir.join("r.csv");
    std::fs::write(&csv, "time,rev.phi,rev.w\n0,0,0\n1,1,1\n").expect("writable");
    let png = dir.join("p.png");
    let output = run(&[
        "plot".as_ref(),
        csv.as_os_str(),
        "rev.phii".as_ref(),
        "-o".as_ref(),
        png.as_os_str(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output).trim(),
        format!(
            "{}: there is no column `rev.phii`: did you mean `rev.phi`?",
            csv.display()
        )
    );
    assert!(!png.exists());

    let model = repository().join("models/nowhere.m3d");
    let output = run(&[
        "plot".as_ref(),
        csv.as_os_str(),
        "rev.phi".as_ref(),
        "--model".as_ref(),
        model.as_os_str(),
        "-o".as_ref(),
        png.as_os_str(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("nowhere.m3d"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn plot_writes_a_png_of_the_asked_size() {
    let dir = folder("plot-size");
    let csv = dir.join("r.csv");
    std::fs::write(&csv, "time,x,y\n0,0,1\n0.5,1,1\n1,0,1\n").expect("writable");
    let png = dir.join("p.png");
    let output = run(&[
        "plot".as_ref(),
        csv.as_os_str(),
        "x".as_ref(),
        "y".as_ref(),
        "-o".as_ref(),
        png.as_os_str(),
        "--width".as_ref(),
        "640".as_ref(),
        "--height".as_ref(),
        "480".as_ref(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let bytes = std::fs::read(&png).expect("the PNG");
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(&bytes[12..16], b"IHDR");
    let width = u32::from_be_bytes(bytes[16..20].try_into().expect("4 bytes"));
    let height = u32::from_be_bytes(bytes[20..24].try_into().expect("4 bytes"));
    assert_eq!((width, height), (640, 480));
}
