//! `nvq plot`: a log nvq wrote, drawn as charts over time (SVG or PNG bytes; no I/O).
//!
//! One panel per field (memory used and utilization by default), one line per GPU or process, each named at its
//! end, so that no legend has to be looked up. On each line its peak is marked with its value; the memory panels
//! draw each GPU's total as a dashed line; a series that is rising steadily (`model::trend`) gets its trend line
//! drawn on to the right edge, with its rate and time to full written beside it.
//!
//! A series with more points than the picture has room for is thinned to each pixel column's lowest and highest
//! point (peaks and troughs stay); a log that fits is drawn point for point.

use crate::model::history::{Point, Series};
use crate::model::log::{Log, LogCell};
use crate::model::trend::{self, TrendConfig};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::collections::BTreeMap;

/// What to draw, and how.
#[derive(Clone, Debug)]
pub struct PlotSpec {
    /// The fields to draw; empty: memory used and utilization (or every numeric field, if the log has neither).
    pub fields: Vec<String>,
    pub trend: TrendConfig,
    pub kind: PictureKind,
    /// The picture's width in pixels; each panel is `width / 3` high.
    pub width: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PictureKind {
    Svg,
    Png,
}

/// The font text is drawn with: TrueType bytes, kept for the run.
pub fn use_font(bytes: &'static [u8]) -> Result<(), String> {
    plotters::style::register_font("sans-serif", FontStyle::Normal, bytes)
        .map_err(|_| "the font file is not a TrueType font nvq can read".to_string())
}

/// One line of a panel.
#[derive(Clone, Debug)]
pub struct Line {
    pub label: String,
    /// Base units.
    pub series: Series,
    /// The capacity this series fills (memory.total), base units.
    pub capacity: Option<f64>,
    pub trend: Option<(trend::Trend, (Point, Point))>,
}

/// One panel: a field over time.
#[derive(Clone, Debug)]
pub struct Panel {
    pub field: String,
    pub unit: Option<String>,
    /// One display unit in base units.
    pub scale: f64,
    pub lines: Vec<Line>,
}

/// The columns that name a row's series, in the order they are tried.
const GPU_KEYS: &[&str] = &[
    "uuid",
    "gpu_uuid",
    "index",
    "pci.bus_id",
    "gpu_bus_id",
    "gpu_serial",
    "gpu_name",
];
/// Columns that are never drawn by default.
const NOT_DRAWN: &[&str] = &["index", "pid", "count", "gpu_index", "minor_number"];
/// The default fields: memory, then utilization.
const DEFAULTS: &[&str] = &[
    "memory.used",
    "used_gpu_memory",
    "used_memory",
    "utilization.gpu",
    "utilization.memory",
];

/// The panels of a log; an error says why nothing can be drawn.
pub fn panels(log: &Log, spec: &PlotSpec) -> Result<Vec<Panel>, String> {
    let fields: Vec<usize> = if spec.fields.is_empty() {
        let mut f: Vec<usize> = DEFAULTS
            .iter()
            .filter_map(|d| log.column(d))
            .filter(|&k| log.is_numeric(k))
            .collect();
        f.dedup();
        if f.is_empty() {
            f = (0..log.columns.len())
                .filter(|&k| {
                    log.is_numeric(k) && !NOT_DRAWN.contains(&log.columns[k].name.as_str())
                })
                .filter(|&k| !GPU_KEYS.contains(&log.columns[k].name.as_str()))
                .collect();
        }
        if f.is_empty() {
            return Err(
                "the log has no numeric column to draw (only text, or no values at all)".into(),
            );
        }
        f
    } else {
        spec.fields
            .iter()
            .map(|name| {
                let k = log.column(name).ok_or_else(|| {
                    let names: Vec<&str> = log.columns.iter().map(|c| c.name.as_str()).collect();
                    format!(
                        "the log has no column \"{name}\"; it has: {}",
                        names.join(", ")
                    )
                })?;
                if log.is_numeric(k) {
                    Ok(k)
                } else {
                    Err(format!("the column \"{name}\" holds no numbers to draw"))
                }
            })
            .collect::<Result<_, String>>()?
    };
    let keys = series_keys(log);
    let mut out = Vec::with_capacity(fields.len());
    for k in fields {
        let col = &log.columns[k];
        let cap_col = trend::capacity_field(&col.name).and_then(|c| log.column(c));
        let mut lines: BTreeMap<usize, Line> = BTreeMap::new();
        for (row, (id, label)) in log.rows.iter().zip(&keys) {
            let line = lines.entry(*id).or_insert_with(|| Line {
                label: label.clone(),
                series: Series::with_cap(log.rows.len()),
                capacity: None,
                trend: None,
            });
            if let Some(LogCell::Num(v)) = row.cells.get(k) {
                line.series.push(Point { t: row.t, v: *v });
            }
            if let Some(LogCell::Num(c)) = cap_col.and_then(|c| row.cells.get(c)) {
                line.capacity = Some(*c);
            }
        }
        let mut lines: Vec<Line> = lines
            .into_values()
            .filter(|l| !l.series.is_empty())
            .collect();
        for l in &mut lines {
            l.trend = trend::trend_with_line(&l.series, l.capacity, &spec.trend);
        }
        out.push(Panel {
            field: col.name.clone(),
            unit: col.unit.clone(),
            scale: col.scale,
            lines,
        });
    }
    Ok(out)
}

/// What was last seen of a (GPU, PID): its series number, when, under which name, and which of the PID's
/// processes it is (1 the first).
type Seen = (usize, f64, Option<String>, u32);

/// Each row's series (a number, in order of first appearance) and its label. GPUs are told apart by UUID (else
/// index, bus id); processes by GPU and PID, and a PID that comes back after a gap, or under another name, is a new
/// process.
fn series_keys(log: &Log) -> Vec<(usize, String)> {
    let text = |row: &crate::model::log::LogRow, k: Option<usize>| -> Option<String> {
        match row.cells.get(k?)? {
            LogCell::Num(v) => Some(format!("{v}")),
            LogCell::Text(s) => Some(s.clone()),
            LogCell::Missing => None,
        }
    };
    let gpu_col = GPU_KEYS.iter().find_map(|c| log.column(c));
    let index_col = log.column("index").or_else(|| log.column("gpu_index"));
    let pid_col = log.column("pid");
    let name_col = log
        .column("process_name")
        .or_else(|| log.column("name"))
        .filter(|_| pid_col.is_some());
    // The sampling interval: the median gap between distinct timestamps.
    let mut times: Vec<f64> = log.rows.iter().map(|r| r.t).collect();
    times.dedup();
    let mut gaps: Vec<f64> = times
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|g| *g > 0.0)
        .collect();
    gaps.sort_by(f64::total_cmp);
    let interval = gaps.get(gaps.len() / 2).copied().unwrap_or(1.0);
    let gpus: Vec<Option<String>> = log.rows.iter().map(|r| text(r, gpu_col)).collect();
    let many_gpus = {
        let mut g = gpus.clone();
        g.sort();
        g.dedup();
        g.len() > 1
    };
    let mut ids: BTreeMap<(Option<String>, Option<String>), Seen> = BTreeMap::new();
    let mut next = 0;
    let mut out = Vec::with_capacity(log.rows.len());
    for (row, gpu) in log.rows.iter().zip(gpus) {
        let pid = text(row, pid_col);
        let name = text(row, name_col);
        let gpu_label = match (text(row, index_col), &gpu) {
            (Some(i), _) => format!("GPU {i}"),
            (None, Some(g)) => format!("GPU {}", g.chars().take(12).collect::<String>()),
            (None, None) => "GPU".to_string(),
        };
        let key = (gpu.clone(), pid.clone());
        let fresh = |n: &mut usize| {
            *n += 1;
            *n - 1
        };
        let entry = ids.get(&key).cloned();
        let (id, generation) = match entry {
            Some((id, last, ref old_name, g)) => {
                let reused =
                    pid.is_some() && (row.t - last > 3.0 * interval + 1e-9 || *old_name != name);
                if reused {
                    (fresh(&mut next), g + 1)
                } else {
                    (id, g)
                }
            }
            None => (fresh(&mut next), 1),
        };
        ids.insert(key, (id, row.t, name.clone(), generation));
        let label = match &pid {
            None => gpu_label,
            Some(p) => {
                let mut l = format!("PID {p}");
                if let Some(n) = &name {
                    l.push_str(&format!(" {n}"));
                }
                if generation > 1 {
                    l.push_str(&format!(" (#{generation})"));
                }
                if many_gpus {
                    l.push_str(&format!(" on {gpu_label}"));
                }
                l
            }
        };
        out.push((id, label));
    }
    out
}

/// The picture: SVG text or PNG bytes.
pub fn render(log: &Log, spec: &PlotSpec) -> Result<Vec<u8>, String> {
    let panels = panels(log, spec)?;
    let t0 = log.rows.iter().map(|r| r.t).fold(f64::INFINITY, f64::min);
    let w = spec.width.clamp(400, 8000);
    let panel_h = (w / 3).max(200);
    let h = panel_h * u32::try_from(panels.len()).unwrap_or(1).max(1);
    let what = |e: &dyn std::fmt::Display| format!("drawing failed: {e}");
    match spec.kind {
        PictureKind::Svg => {
            let mut svg = String::new();
            {
                let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
                draw(&root, &panels, t0, &log.start, w)?;
                root.present().map_err(|e| what(&e))?;
            }
            Ok(svg.into_bytes())
        }
        PictureKind::Png => {
            let mut buf = vec![0u8; w as usize * h as usize * 3];
            {
                let root = BitMapBackend::with_buffer(&mut buf, (w, h)).into_drawing_area();
                draw(&root, &panels, t0, &log.start, w)?;
                root.present().map_err(|e| what(&e))?;
            }
            let mut png = Vec::new();
            image::ImageEncoder::write_image(
                image::codecs::png::PngEncoder::new(&mut png),
                &buf,
                w,
                h,
                image::ColorType::Rgb8,
            )
            .map_err(|e| what(&e))?;
            Ok(png)
        }
    }
}

const COLOURS: &[RGBColor] = &[
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
    RGBColor(57, 59, 121),
];
const LEAK: RGBColor = RGBColor(214, 39, 40);

/// A value with its unit, as the log writes it (`20480 MiB`, `87 %`).
fn with_unit(v: f64, unit: &Option<String>) -> String {
    let n = if (v - v.round()).abs() < 1e-9 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    };
    match unit {
        Some(u) => format!("{n} {u}"),
        None => n,
    }
}

/// A rate per minute in a readable unit: sizes in the largest binary unit that keeps it above 1.
fn rate_text(per_s: f64, panel: &Panel) -> String {
    let per_min = per_s * 60.0;
    if panel.scale > 1.0 && panel.unit.as_deref().is_some_and(|u| u.ends_with('B')) {
        let units = [
            ("B", 1.0),
            ("KiB", 1024.0),
            ("MiB", 1048576.0),
            ("GiB", 1073741824.0),
            ("TiB", 1099511627776.0),
        ];
        let (u, s) = units
            .iter()
            .rev()
            .find(|(_, s)| per_min.abs() >= *s)
            .copied()
            .unwrap_or(units[0]);
        return format!("{:+.2} {u}/min", per_min / s);
    }
    format!(
        "{:+.2}{}/min",
        per_min / panel.scale,
        panel
            .unit
            .as_deref()
            .map_or(String::new(), |u| format!(" {u}"))
    )
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    panels: &[Panel],
    t0: f64,
    start: &str,
    width: u32,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| format!("drawing failed: {e}");
    root.fill(&WHITE).map_err(err)?;
    let areas = root.split_evenly((panels.len().max(1), 1));
    let t_end = panels
        .iter()
        .flat_map(|p| p.lines.iter().filter_map(|l| l.series.last()))
        .map(|p| p.t)
        .fold(t0, f64::max);
    let span = (t_end - t0).max(1e-3);
    // Room on the right for the names at the ends of the lines (about 8 pixels a character) and the trend lines.
    let longest = panels
        .iter()
        .flat_map(|p| p.lines.iter())
        .map(|l| l.label.chars().count() + 22)
        .max()
        .unwrap_or(0);
    let plot_px = f64::from(width.saturating_sub(120)).max(100.0);
    let label_px = (longest as f64 * 7.5).min(plot_px * 0.45);
    let x_max = span * (1.0 + (label_px / (plot_px - label_px)).max(0.1));
    let (tdiv, tunit) = if span > 7200.0 {
        (3600.0, "h")
    } else if span > 120.0 {
        (60.0, "min")
    } else {
        (1.0, "s")
    };
    for (panel, area) in panels.iter().zip(areas.iter()) {
        let s = panel.scale;
        let peak = panel
            .lines
            .iter()
            .flat_map(|l| l.series.points())
            .map(|p| p.v / s)
            .fold(0.0, f64::max);
        let cap = panel
            .lines
            .iter()
            .filter_map(|l| l.capacity)
            .map(|c| c / s)
            .fold(0.0, f64::max);
        let y_max = (peak.max(cap) * 1.08).max(1e-9);
        let caption = match &panel.unit {
            Some(u) => format!("{} [{u}]", panel.field),
            None => panel.field.clone(),
        };
        let mut chart = ChartBuilder::on(area)
            .caption(caption, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(80)
            .build_cartesian_2d(0.0..x_max, 0.0..y_max)
            .map_err(err)?;
        let x_desc = format!("time since {start} ({tunit})");
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .x_label_formatter(&|x| format!("{:.1}", x / tdiv))
            .y_label_formatter(&|y| with_unit(*y, &None))
            .label_style(("sans-serif", 13))
            .draw()
            .map_err(err)?;
        // The totals, once per distinct value.
        let mut totals: Vec<f64> = panel.lines.iter().filter_map(|l| l.capacity).collect();
        totals.sort_by(f64::total_cmp);
        totals.dedup();
        for c in totals {
            let y = c / s;
            let style = RGBColor(90, 90, 90).stroke_width(1);
            chart
                .draw_series(DashedLineSeries::new([(0.0, y), (x_max, y)], 6, 4, style))
                .map_err(err)?;
            let label = format!("total {}", with_unit(y, &panel.unit));
            chart
                .draw_series(std::iter::once(Text::new(
                    label,
                    (span * 0.01, y),
                    ("sans-serif", 13).into_font(),
                )))
                .map_err(err)?;
        }
        // The names at the ends of the lines, pushed apart where lines end close together.
        let gap = y_max * 0.055;
        let mut ends: Vec<(usize, f64)> = panel
            .lines
            .iter()
            .enumerate()
            .filter_map(|(i, l)| Some((i, l.series.last()?.v / s)))
            .collect();
        ends.sort_by(|a, b| a.1.total_cmp(&b.1));
        let mut label_y = vec![0.0; panel.lines.len()];
        let mut floor = f64::NEG_INFINITY;
        for (i, y) in ends {
            let y = y.max(floor + gap);
            label_y[i] = y;
            floor = y;
        }
        for (i, line) in panel.lines.iter().enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            let pts = thin(&line.series, width as usize);
            let xy = pts.iter().map(|p| (p.t - t0, p.v / s));
            chart
                .draw_series(LineSeries::new(xy, colour.stroke_width(2)))
                .map_err(err)?;
            // The peak: the first point at the highest value.
            let top = line.series.points().fold(None::<Point>, |m, p| match m {
                Some(m) if m.v >= p.v => Some(m),
                _ => Some(p),
            });
            let (Some(top), Some(last)) = (top, line.series.last()) else {
                continue;
            };
            let at = (top.t - t0, top.v / s);
            chart
                .draw_series(std::iter::once(Circle::new(at, 4, colour.filled())))
                .map_err(err)?;
            let peak = format!("peak {}", with_unit(top.v / s, &panel.unit));
            let mut name = line.label.clone();
            if top.v - last.v <= (top.v.abs() * 0.01).max(1e-12) {
                // Still at its peak: the end's name says it.
                name.push_str(&format!(" ({peak})"));
            } else {
                let font = ("sans-serif", 12).into_font().color(&colour);
                chart
                    .draw_series(std::iter::once(Text::new(peak, (at.0, at.1 + gap), font)))
                    .map_err(err)?;
            }
            let font = ("sans-serif", 14).into_font().color(&colour);
            let at = (last.t - t0 + span * 0.01, label_y[i] + gap * 0.4);
            chart
                .draw_series(std::iter::once(Text::new(name, at, font)))
                .map_err(err)?;
            if let Some((tr, (a, b))) = &line.trend {
                if !tr.rising {
                    continue;
                }
                // The fitted line, carried on to the right edge (or to where it meets the total).
                let mut end_t = t0 + x_max;
                if let (Some(c), true) = (line.capacity, tr.slope_per_s > 0.0) {
                    end_t = end_t.min(b.t + (c - b.v) / tr.slope_per_s);
                }
                let end = (end_t - t0, (b.v + tr.slope_per_s * (end_t - b.t)) / s);
                let pts = [(a.t - t0, a.v / s), (b.t - t0, b.v / s), end];
                chart
                    .draw_series(DashedLineSeries::new(pts, 8, 4, LEAK.stroke_width(3)))
                    .map_err(err)?;
                let mut label =
                    format!("{}: leak {}", line.label, rate_text(tr.slope_per_s, panel));
                if let Some(f) = tr.time_to_full_s {
                    label.push_str(&format!(", full in {}", trend::format_duration(f)));
                }
                let font = ("sans-serif", 15).into_font().color(&LEAK);
                let at = (span * 0.02, y_max * (0.97 - 0.06 * i as f64));
                chart
                    .draw_series(std::iter::once(Text::new(label, at, font)))
                    .map_err(err)?;
            }
        }
    }
    Ok(())
}

/// At most about `width` pixel columns' worth of points: each column's lowest and highest, in time order. A series
/// that fits is returned whole.
fn thin(series: &Series, width: usize) -> Vec<Point> {
    let n = series.len();
    let columns = width.max(10);
    if n <= 2 * columns {
        return series.points().collect();
    }
    let (Some(first), Some(last)) = (series.first(), series.last()) else {
        return Vec::new();
    };
    let span = (last.t - first.t).max(1e-9);
    let mut out = Vec::with_capacity(2 * columns + 2);
    let mut bucket: Option<(usize, Point, Point)> = None;
    for p in series.points() {
        let b = (((p.t - first.t) / span) * columns as f64) as usize;
        match &mut bucket {
            Some((k, lo, hi)) if *k == b => {
                if p.v < lo.v {
                    *lo = p;
                }
                if p.v > hi.v {
                    *hi = p;
                }
            }
            _ => {
                if let Some((_, lo, hi)) = bucket.take() {
                    push_pair(&mut out, lo, hi);
                }
                bucket = Some((b, p, p));
            }
        }
    }
    if let Some((_, lo, hi)) = bucket {
        push_pair(&mut out, lo, hi);
    }
    out
}

fn push_pair(out: &mut Vec<Point>, a: Point, b: Point) {
    let (x, y) = if a.t <= b.t { (a, b) } else { (b, a) };
    out.push(x);
    if y.t != x.t || y.v != x.v {
        out.push(y);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinning_keeps_every_columns_extremes() {
        let mut s = Series::with_cap(100_000);
        for i in 0..100_000 {
            let v = if i == 54_321 { 1e9 } else { (i % 7) as f64 };
            s.push(Point { t: i as f64, v });
        }
        let t = thin(&s, 1000);
        assert!(t.len() <= 2002, "{}", t.len());
        assert!(t.iter().any(|p| p.v == 1e9));
        assert!(t.windows(2).all(|w| w[0].t <= w[1].t));
        let small = thin(&s, 100_000);
        assert_eq!(small.len(), 100_000);
    }

    #[test]
    fn rates_read_in_a_size_unit() {
        let p = Panel {
            field: "memory.used".into(),
            unit: Some("MiB".into()),
            scale: 1048576.0,
            lines: vec![],
        };
        assert_eq!(rate_text(1073741824.0 / 60.0, &p), "+1.00 GiB/min");
        let u = Panel {
            field: "utilization.gpu".into(),
            unit: Some("%".into()),
            scale: 0.01,
            lines: vec![],
        };
        assert_eq!(rate_text(0.01 / 60.0, &u), "+1.00 %/min");
    }
}
