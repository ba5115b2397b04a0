//! `fmu3d plot RESULT.csv VAR… -o PLOT.png`: columns of a result against time, for a quick
//! look. Columns of one unit share a panel whose axis is labelled with that unit (from the model
//! file or the FMU that made the result); each further unit gets a panel below. The text is set
//! in DejaVu Sans, compiled into `fmu3d`, so that plotting needs no font on the machine.

use crate::cli::PlotArgs;
use crate::results::{self, Results};
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};
use std::path::{Path, PathBuf};

/// DejaVu Sans 2.37 (Bitstream Vera licence: `packager/assets/fonts/LICENSE-DejaVu.txt`).
const FONT: &[u8] = include_bytes!("../assets/fonts/DejaVuSans.ttf");

const COLOURS: [RGBColor; 7] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
];

/// One panel: the columns of one unit.
#[derive(Debug)]
struct Panel<'a> {
    /// The unit, `None` when it is not known (no model given, or not one of its variables).
    unit: Option<String>,
    series: Vec<(&'a str, &'a [f64])>,
}

pub fn run(args: &PlotArgs) -> Result<(), String> {
    let output = args.output.clone().unwrap_or_else(|| {
        let stem = args.csv.file_stem().unwrap_or_default().to_string_lossy();
        PathBuf::from(format!("{stem}.png"))
    });
    if output.extension().and_then(|e| e.to_str()) != Some("png") {
        return Err(format!(
            "{}: the plot is written as PNG: give a file name ending in .png",
            output.display()
        ));
    }
    if args.width < 200 || args.height < 150 || args.width > 10_000 || args.height > 10_000 {
        return Err(format!(
            "--width {} --height {}: the image must be 200 to 10000 pixels wide and 150 to 10000 \
             high",
            args.width, args.height
        ));
    }
    let results = Results::read(&args.csv)?;
    let units = results::units(&args.units)?;
    let mut panels: Vec<Panel> = Vec::new();
    for name in &args.variables {
        let values = results.column(name)?;
        let unit = units.get(name.as_str()).map(|u| {
            if u.is_empty() {
                "1".to_string()
            } else {
                u.clone()
            }
        });
        match panels.iter_mut().find(|p| p.unit == unit) {
            Some(panel) => panel.series.push((name, values)),
            None => panels.push(Panel {
                unit,
                series: vec![(name, values)],
            }),
        }
    }
    draw(&output, (args.width, args.height), results.time(), &panels)
        .map_err(|e| format!("{}: cannot write the plot: {e}", output.display()))?;
    println!(
        "{}: wrote {} ({} columns, {} rows)",
        args.csv.display(),
        output.display(),
        args.variables.len(),
        results.time().len()
    );
    Ok(())
}

/// The range of the finite values, widened a little (and made non-empty for a constant).
fn range<'a>(values: impl Iterator<Item = &'a f64>) -> (f64, f64) {
    let (low, high) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| {
            (l.min(v), h.max(v))
        });
    if !low.is_finite() {
        return (-1.0, 1.0);
    }
    let span = high - low;
    if span <= 1e-12 * high.abs().max(low.abs()).max(1e-300) {
        let pad = if high == 0.0 { 1.0 } else { high.abs() * 0.1 };
        (low - pad, high + pad)
    } else {
        (low - 0.05 * span, high + 0.05 * span)
    }
}

fn draw(
    output: &Path,
    size: (u32, u32),
    time: &[f64],
    panels: &[Panel],
) -> Result<(), Box<dyn std::error::Error>> {
    register_font("sans-serif", FontStyle::Normal, FONT)
        .map_err(|_| "the embedded font does not load")?;
    let root = BitMapBackend::new(output, size).into_drawing_area();
    root.fill(&WHITE)?;
    let (t0, mut t1) = (time[0], time[time.len() - 1]);
    if t1 <= t0 {
        t1 = t0 + 1.0;
    }
    let areas = root.split_evenly((panels.len(), 1));
    let mut colour = 0;
    for (area, panel) in areas.iter().zip(panels) {
        let (low, high) = range(panel.series.iter().flat_map(|(_, v)| v.iter()));
        let names: Vec<&str> = panel.series.iter().map(|(n, _)| *n).collect();
        let label = match &panel.unit {
            Some(unit) => format!("{} [{unit}]", names.join(", ")),
            None => names.join(", "),
        };
        let mut chart = ChartBuilder::on(area)
            .margin(12)
            .x_label_area_size(42)
            .y_label_area_size(80)
            .build_cartesian_2d(t0..t1, low..high)?;
        chart
            .configure_mesh()
            .x_desc("time [s]")
            .y_desc(label)
            .label_style(("sans-serif", 14))
            .axis_desc_style(("sans-serif", 15))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()?;
        for (name, values) in &panel.series {
            let style = COLOURS[colour % COLOURS.len()].stroke_width(2);
            colour += 1;
            // A value that is not a number breaks the line.
            let mut segments: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
            for (&t, &v) in time.iter().zip(values.iter()) {
                if v.is_finite() {
                    segments.last_mut().expect("one segment").push((t, v));
                } else if !segments.last().expect("one segment").is_empty() {
                    segments.push(Vec::new());
                }
            }
            for (k, segment) in segments.into_iter().enumerate() {
                let series = chart.draw_series(LineSeries::new(segment, style))?;
                if k == 0 {
                    series
                        .label(*name)
                        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
                }
            }
        }
        chart
            .configure_series_labels()
            .label_font(("sans-serif", 14))
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(160, 160, 160))
            .position(SeriesLabelPosition::UpperRight)
            .draw()?;
    }
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::range;

    #[test]
    fn ranges_hold_the_data_and_are_never_empty() {
        let (l, h) = range([0.0, 1.0, f64::NAN].iter());
        assert!(l < 0.0 && h > 1.0 && h < 1.1);
        let (l, h) = range([2.0, 2.0].iter());
        assert!(l < 2.0 && h > 2.0);
        let (l, h) = range([0.0].iter());
        assert!(l < 0.0 && h > 0.0);
        assert_eq!(range([f64::NAN].iter()), (-1.0, 1.0));
    }
}
