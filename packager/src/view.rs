//! `fmu3d view OUT.glb [-o PAGE.html] [--csv RESULT.csv --plot VAR…]`: one HTML file that plays
//! an animated glTF 2.0 binary in a browser, with nothing fetched when it is opened (it works
//! from `file://` without a network): the page script (three.js and `viewer/src/main.js`,
//! bundled at build time) and the animation (base64) are inside the page, and so are the
//! columns to plot under the animation.
//!
//! The page plays, pauses, seeks with a slider, changes the speed, orbits the camera (drag,
//! wheel), names the body under the pointer, and draws the plotted columns with a cursor at
//! the current time. `PAGE.html#t=1.25&paused` opens it at t = 1.25 s, paused.

use crate::cli::ViewArgs;
use crate::results::{self, Results};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The bundled page script; empty when fmu3d was built without it (see `build.rs`).
const VIEWER_JS: &str = include_str!(concat!(env!("OUT_DIR"), "/viewer.js"));

pub fn run(args: &ViewArgs) -> Result<(), String> {
    let shown = args.animation.display();
    let glb = std::fs::read(&args.animation).map_err(|e| format!("{shown}: cannot read: {e}"))?;
    check_glb(&glb).map_err(|e| format!("{shown}: {e}"))?;
    let plot = match &args.csv {
        Some(csv) => Some(plot_json(&Results::read(csv)?, &args.plot, &args.units)?),
        None => None,
    };
    let title = args
        .animation
        .file_stem()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let page = page(&title, &glb, plot.as_deref())?;
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("{title}.html")));
    write_atomically(&output, page.as_bytes())?;
    println!(
        "{shown}: wrote {} ({} kB): open it in a browser",
        output.display(),
        page.len().div_ceil(1024)
    );
    Ok(())
}

/// A glTF binary starts with the magic `glTF` and the container version 2 (glTF 2.0, §4.4).
fn check_glb(bytes: &[u8]) -> Result<(), String> {
    if bytes.len() < 20 || &bytes[0..4] != b"glTF" {
        return Err(
            "not a glTF binary (.glb): it does not start with `glTF`; write one with \
                    `fmu3d simulate MODEL --animation OUT.glb`"
                .into(),
        );
    }
    let version = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
    if version != 2 {
        return Err(format!(
            "a glTF binary of version {version}: the viewer reads glTF 2.0"
        ));
    }
    Ok(())
}

fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let temporary = path.with_file_name(format!(".{name}.part"));
    std::fs::write(&temporary, bytes)
        .and_then(|()| std::fs::rename(&temporary, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&temporary);
            format!("{}: cannot write: {e}", path.display())
        })
}

/// `{"time": [...], "series": [{"name", "unit", "values"}]}` of the chosen columns.
fn plot_json(
    results: &Results,
    names: &[String],
    units: &crate::cli::UnitsArgs,
) -> Result<String, String> {
    let units = results::units(units)?;
    let mut json = String::from("{\"time\":");
    numbers(&mut json, results.time());
    json.push_str(",\"series\":[");
    for (i, name) in names.iter().enumerate() {
        let values = results.column(name)?;
        if i > 0 {
            json.push(',');
        }
        json.push_str("{\"name\":");
        string(&mut json, name);
        json.push_str(",\"unit\":");
        string(&mut json, units.get(name).map(String::as_str).unwrap_or(""));
        json.push_str(",\"values\":");
        numbers(&mut json, values);
        json.push('}');
    }
    json.push_str("]}");
    Ok(json)
}

fn numbers(json: &mut String, values: &[f64]) {
    json.push('[');
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            json.push(',');
        }
        if v.is_finite() {
            let _ = write!(json, "{v}");
        } else {
            json.push_str("null");
        }
    }
    json.push(']');
}

/// A JSON string that is also safe inside a `<script>` element (no `<`, `>` or `&` as such).
fn string(json: &mut String, text: &str) {
    json.push('"');
    for c in text.chars() {
        match c {
            '"' => json.push_str("\\\""),
            '\\' => json.push_str("\\\\"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                let _ = write!(json, "\\u{:04x}", c as u32);
            }
            c if (c as u32) < 0x20 => {
                let _ = write!(json, "\\u{:04x}", c as u32);
            }
            c => json.push(c),
        }
    }
    json.push('"');
}

fn html_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                text.push(BASE64[(n >> (18 - 6 * k)) as usize & 63] as char);
            } else {
                text.push('=');
            }
        }
    }
    text
}

/// The script as the text of a `<script>` element, which ends at the first `</script` in any
/// case: there it is written `<\/script`, the same text inside a JavaScript string, template or
/// regular expression (the only places where a minified script can hold it).
fn script_text(script: &str) -> String {
    let mut text = String::with_capacity(script.len());
    let mut rest = script;
    while let Some(at) = rest.find("</") {
        let after = &rest[at + 2..];
        let is_end_tag = after
            .get(..6)
            .is_some_and(|word| word.eq_ignore_ascii_case("script"));
        text.push_str(&rest[..at]);
        text.push_str(if is_end_tag { "<\\/" } else { "</" });
        rest = after;
    }
    text.push_str(rest);
    text
}

/// The page: markup, style, the data (animation and plot) and the page script.
fn page(title: &str, glb: &[u8], plot: Option<&str>) -> Result<String, String> {
    if VIEWER_JS.is_empty() {
        return Err("this fmu3d was built without the viewer's page script \
                    (target/viewer/viewer.js): run `bash scripts/build.sh`, which bundles \
                    viewer/ with npm and esbuild and builds fmu3d again"
            .into());
    }
    let script = script_text(VIEWER_JS);
    let mut data = String::from("{\"glb\":\"");
    data.push_str(&base64(glb));
    data.push('"');
    if let Some(plot) = plot {
        data.push_str(",\"plot\":");
        data.push_str(plot);
    }
    data.push('}');
    let title = html_text(title);
    Ok(format!(
        r#"<!DOCTYPE html>
<html lang="en" data-state="loading">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="fmu3d view">
<title>{title} — fmu3d</title>
<style>
[hidden] {{ display: none !important; }}
html, body {{ margin: 0; height: 100%; font: 14px/1.4 sans-serif; color: #222; background: #f4f5f7; }}
body {{ display: flex; flex-direction: column; }}
#view {{ position: relative; flex: 1 1 auto; min-height: 200px; overflow: hidden; }}
#view canvas {{ display: block; }}
#tooltip {{ position: absolute; pointer-events: none; padding: 2px 6px; background: rgba(0,0,0,0.75); color: #fff; border-radius: 3px; font-size: 13px; }}
#message {{ position: absolute; top: 40%; left: 0; right: 0; text-align: center; color: #a00; }}
#controls {{ display: flex; align-items: center; gap: 10px; padding: 6px 10px; background: #fff; border-top: 1px solid #ddd; }}
#controls button {{ min-width: 5em; }}
#slider {{ flex: 1 1 auto; }}
#clock {{ font-variant-numeric: tabular-nums; white-space: nowrap; }}
#plotpane {{ flex: 0 0 32%; min-height: 0; display: flex; flex-direction: column; background: #fff; border-top: 1px solid #ddd; }}
#legend {{ display: flex; flex-wrap: wrap; gap: 4px 16px; padding: 4px 10px 0 64px; }}
#plotbox {{ position: relative; flex: 1 1 0; min-height: 0; }}
#plot {{ position: absolute; left: 0; top: 0; width: 100%; height: 100%; cursor: crosshair; }}
</style>
</head>
<body>
<div id="view"><div id="tooltip" hidden></div><div id="message" hidden></div></div>
<div id="controls">
<button id="play" type="button" aria-pressed="true">Pause</button>
<input id="slider" type="range" min="0" max="1" step="0.001" value="0" aria-label="time">
<span id="clock">t = 0 s</span>
<label>speed <select id="speed">
<option value="0.1">0.1×</option><option value="0.25">0.25×</option><option value="0.5">0.5×</option>
<option value="1" selected>1×</option><option value="2">2×</option><option value="4">4×</option>
</select></label>
</div>
<div id="plotpane" hidden><div id="legend"></div><div id="plotbox"><canvas id="plot"></canvas></div></div>
<script type="application/json" id="fmu3d-data">{data}</script>
<script>{script}</script>
</body>
</html>
"#
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_as_rfc_4648() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foob"), "Zm9vYg==");
        assert_eq!(base64(b"fooba"), "Zm9vYmE=");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64(&[0xff, 0xfe, 0x00]), "//4A");
    }

    #[test]
    fn json_strings_cannot_end_the_script_element() {
        let mut json = String::new();
        string(&mut json, "a\"</script>\\\n");
        assert_eq!(json, r#""a\"\u003c/script\u003e\\\u000a""#);
        let mut json = String::new();
        numbers(&mut json, &[0.5, f64::NAN, -2.0, 1e-7]);
        assert_eq!(json, "[0.5,null,-2,0.0000001]");
    }

    #[test]
    fn the_script_cannot_end_its_element_early() {
        assert_eq!(
            script_text(r#"a="</script>";b="</SCRIPT ";c=1</2;d="</"+"x"#),
            r#"a="<\/script>";b="<\/SCRIPT ";c=1</2;d="</"+"x"#
        );
    }

    #[test]
    fn only_gltf_2_binaries_are_taken() {
        let mut glb = b"glTF".to_vec();
        glb.extend(2u32.to_le_bytes());
        glb.extend([0; 12]);
        assert!(check_glb(&glb).is_ok());
        glb[4] = 1;
        assert!(check_glb(&glb).unwrap_err().contains("version 1"));
        assert!(check_glb(b"{\"asset\":{}}......").is_err());
    }
}
