//! The panels drawn with plotters: SVG text or PNG bytes, pure (no I/O).

use super::panel::{Drawing, Ink, Line, Panel, PictureKind, PlotSpec};
use super::thin::thin;
use nvq_core::model::history::Point;
use nvq_core::model::{trend, Unit};
use nvq_core::render::report_xml;
use plotters::coord::Shift;
use plotters::prelude::*;

/// The font text is drawn with: TrueType bytes, kept for the run.
pub fn use_font(bytes: &'static [u8]) -> Result<(), String> {
    plotters::style::register_font("sans-serif", FontStyle::Normal, bytes)
        .map_err(|_| "the font file is not a TrueType font nvq can read".to_string())
}

/// The height of a note's line under the panels, in pixels.
const NOTE_PX: u32 = 22;
/// The most characters of a name an SVG's tooltip holds (a log's line may be a MiB long).
const TIP_CHARS: usize = 1000;

/// A name cut to fit the picture, and where it is drawn, in pixels: its whole text is the SVG's tooltip there.
struct Tip {
    x: i32,
    y: i32,
    w: f64,
    h: f64,
    text: String,
}

/// The picture: SVG text or PNG bytes.
pub fn render(drawing: &Drawing, spec: &PlotSpec) -> Result<Vec<u8>, String> {
    let w = spec.width.clamp(400, 8000);
    let panel_h = (w / 3).max(200);
    let notes = u32::try_from(drawing.notes.len()).unwrap_or(0);
    let h = panel_h * u32::try_from(drawing.panels.len()).unwrap_or(1).max(1) + NOTE_PX * notes;
    let what = |e: &dyn std::fmt::Display| format!("drawing failed: {e}");
    match spec.kind {
        PictureKind::Svg => {
            let mut svg = String::new();
            let tips = {
                let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
                let tips = draw(&root, drawing, w)?;
                root.present().map_err(|e| what(&e))?;
                tips
            };
            Ok(with_tips(svg, &tips).into_bytes())
        }
        PictureKind::Png => {
            let mut buf = vec![0u8; w as usize * h as usize * 3];
            {
                let root = BitMapBackend::with_buffer(&mut buf, (w, h)).into_drawing_area();
                draw(&root, drawing, w)?;
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
/// A run's job (the top of its processes' bands).
const JOB: RGBColor = RGBColor(0, 0, 0);
/// The other processes on a run's GPU, and the GPU's used memory.
const OTHERS: RGBColor = RGBColor(110, 110, 110);
const USED: RGBColor = RGBColor(150, 150, 150);
/// The vertical lines of a run's start and end.
const MARK: RGBColor = RGBColor(60, 60, 60);

/// A line's colour and width: the palette's `i`th for a series.
fn ink(line: &Line, i: usize) -> (RGBColor, u32) {
    match line.ink {
        Ink::Series => (COLOURS[i % COLOURS.len()], 2),
        Ink::Job => (JOB, 2),
        Ink::Others => (OTHERS, 2),
        Ink::Used => (USED, 1),
    }
}

/// A band's fill: its palette colour, lightened (the bands are opaque, drawn one over another).
fn band_fill(k: usize) -> RGBColor {
    let RGBColor(r, g, b) = COLOURS[k % COLOURS.len()];
    let light = |c: u8| (u16::from(c) + 2 * 255).div_ceil(3) as u8;
    RGBColor(light(r), light(g), light(b))
}

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
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
            .map(|u| (u, Unit::find(u).map_or(1.0, |u| u.in_base)));
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

/// The SVG with a transparent box over each cut name, titled with its whole text (the browser's tooltip).
fn with_tips(mut svg: String, tips: &[Tip]) -> String {
    let Some(end) = svg.rfind("</svg>") else {
        return svg;
    };
    let mut boxes = String::new();
    for t in tips {
        let mut text: String = t.text.chars().take(TIP_CHARS).collect();
        if text.len() < t.text.len() {
            text.push('…');
        }
        boxes.push_str(&format!(
            "<rect x=\"{}\" y=\"{}\" width=\"{:.0}\" height=\"{:.0}\" fill=\"none\" pointer-events=\"all\">\
             <title>{}</title></rect>\n",
            t.x,
            t.y,
            t.w,
            t.h,
            report_xml::escape(&text)
        ));
    }
    svg.insert_str(end, &boxes);
    svg
}

/// How wide a text is at a font size, in pixels: the font's own measure, or an estimate without one.
fn width_px(s: &str, size: f64) -> f64 {
    match ("sans-serif", size).into_font().box_size(s) {
        Ok((w, _)) => f64::from(w),
        Err(_) => text_width(s, size),
    }
}

/// `text` then `suffix`, the text cut (with an ellipsis) so that both take at most `room` pixels at `size`;
/// whether it was cut.
fn fit(text: &str, suffix: &str, size: f64, room: f64) -> (String, bool) {
    let whole = format!("{text}{suffix}");
    if width_px(&whole, size) <= room {
        return (whole, false);
    }
    // No glyph is narrower than a fifth of the size: longer is too long whatever the letters.
    let most = (room / (size * 0.2)).max(0.0) as usize;
    let chars: Vec<char> = text.chars().take(most + 1).collect();
    let with = |n: usize| {
        let mut s: String = chars.iter().take(n).collect();
        s.push('…');
        s.push_str(suffix);
        s
    };
    // The most characters that fit, found by halving.
    let (mut lo, mut hi) = (0usize, chars.len().min(most));
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if width_px(&with(mid), size) <= room {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    (with(lo), true)
}

/// [`fit`], the text drawn at `px`: a cut one's whole label is a tooltip there.
fn fitted(
    tips: &mut Vec<Tip>,
    label: &str,
    suffix: &str,
    size: f64,
    room: f64,
    px: (i32, i32),
) -> String {
    let (text, cut) = fit(label, suffix, size, room);
    if cut {
        tips.push(Tip {
            x: px.0,
            y: px.1,
            w: width_px(&text, size),
            h: size + 2.0,
            text: label.to_string(),
        });
    }
    text
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    drawing: &Drawing,
    width: u32,
) -> Result<Vec<Tip>, String>
where
    DB::ErrorType: 'static,
{
    let (panels, t0, start) = (&drawing.panels, drawing.t0, &drawing.start);
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| format!("drawing failed: {e}");
    root.fill(&WHITE).map_err(err)?;
    let mut tips = Vec::new();
    let (full_w, full_h) = root.dim_in_pixel();
    let notes_h = NOTE_PX * u32::try_from(drawing.notes.len()).unwrap_or(0);
    let (charts, foot) = root.split_vertically(full_h.saturating_sub(notes_h));
    for (i, note) in drawing.notes.iter().enumerate() {
        let (note, _) = fit(note, "", 14.0, f64::from(full_w) - 24.0);
        let y = i32::try_from(NOTE_PX * u32::try_from(i).unwrap_or(0)).unwrap_or(0) + 4;
        foot.draw(&Text::new(note, (12, y), ("sans-serif", 14).into_font()))
            .map_err(err)?;
    }
    let areas = charts.split_evenly((panels.len().max(1), 1));
    let t_end = panels
        .iter()
        .flat_map(|p| p.lines.iter().filter_map(|l| l.series.last()))
        .map(|p| p.t)
        .chain(drawing.marks.iter().map(|m| m.t))
        .fold(t0, f64::max);
    let span = (t_end - t0).max(1e-3);
    // Room on the right for the names at the ends of the lines (about 8 pixels a character) and the trend lines.
    let longest = panels
        .iter()
        .flat_map(|p| {
            let lines = p.lines.iter().map(|l| l.label.chars().count() + 22);
            lines.chain(p.bands.iter().map(|b| b.label.chars().count()))
        })
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
        // The reader keeps numbers within ±10^15; anything else (a drawing made elsewhere) is not drawn.
        let y_max = (peak.max(cap) * 1.08).max(1e-9);
        if !y_max.is_finite() {
            return Err(format!("{} holds a number too large to draw", panel.field));
        }
        let area_right = f64::from(area.get_pixel_range().0.end);
        let mut suffix = match &panel.unit {
            Some(u) => format!(" [{u}]"),
            None => String::new(),
        };
        if panel.series > panel.lines.len() {
            suffix.push_str(&format!(
                ": the {} largest of {} series",
                panel.lines.len(),
                panel.series
            ));
        }
        let (caption, _) = fit(
            &panel.field,
            &suffix,
            20.0,
            f64::from(area.dim_in_pixel().0) - 40.0,
        );
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
        // Where text already is, in the chart's units, so that the peaks' labels go elsewhere.
        let (x_per_px, y_per_px) = (
            x_max / (plot_px - 24.0).max(50.0),
            y_max / (f64::from(area.dim_in_pixel().1) - 100.0).max(50.0),
        );
        let mut taken = Taken::default();
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
            taken.add(
                span * 0.01,
                y,
                text_width(&label, 13.0) * x_per_px,
                16.0 * y_per_px,
            );
            chart
                .draw_series(std::iter::once(Text::new(
                    label,
                    (span * 0.01, y),
                    ("sans-serif", 13).into_font(),
                )))
                .map_err(err)?;
        }
        // A run's marks: a vertical line at the start and at the end, named at its top.
        for m in &drawing.marks {
            let x = m.t - t0;
            let style = MARK.stroke_width(1);
            chart
                .draw_series(DashedLineSeries::new([(x, 0.0), (x, y_max)], 4, 3, style))
                .map_err(err)?;
            let at = (x + span * 0.005, y_max * 0.995);
            taken.add(
                at.0,
                at.1,
                text_width(&m.label, 13.0) * x_per_px,
                16.0 * y_per_px,
            );
            chart
                .draw_series(std::iter::once(Text::new(
                    m.label.clone(),
                    at,
                    ("sans-serif", 13).into_font().color(&MARK),
                )))
                .map_err(err)?;
        }
        // A run's bands, top first: each filled down to zero, the one below painted over it.
        for (k, band) in panel.bands.iter().enumerate().rev() {
            let pts = thin(&band.top.points().collect::<Vec<_>>(), width as usize);
            let (Some(first), Some(last)) = (pts.first(), pts.last()) else {
                continue;
            };
            let outline: Vec<(f64, f64)> = pts
                .iter()
                .map(|p| (p.t - t0, p.v / s))
                .chain([(last.t - t0, 0.0), (first.t - t0, 0.0)])
                .collect();
            chart
                .draw_series(std::iter::once(Polygon::new(
                    outline,
                    band_fill(k).filled(),
                )))
                .map_err(err)?;
        }
        // The names at the ends of the lines and bands, pushed apart where they end close together.
        let gap = y_max * 0.055;
        let n_lines = panel.lines.len();
        let mut ends: Vec<(usize, f64)> = panel
            .lines
            .iter()
            .enumerate()
            .filter_map(|(i, l)| Some((i, l.series.last()?.v / s)))
            .chain(
                panel
                    .bands
                    .iter()
                    .enumerate()
                    .map(|(k, b)| (n_lines + k, b.label_at.v / s)),
            )
            .collect();
        ends.sort_by(|a, b| a.1.total_cmp(&b.1));
        let mut label_y = vec![0.0; n_lines + panel.bands.len()];
        let mut floor = f64::NEG_INFINITY;
        for (i, y) in ends {
            let y = y.max(floor + gap);
            label_y[i] = y;
            floor = y;
        }
        // The names at the lines' ends, and the leaks' words, top left, one line each.
        for (i, line) in panel.lines.iter().enumerate() {
            if let Some(last) = line.series.last() {
                let w = text_width(&line.label, 14.0) + 120.0;
                taken.add(
                    last.t - t0 + span * 0.01,
                    label_y[i] + gap * 0.4,
                    w * x_per_px,
                    17.0 * y_per_px,
                );
            }
            if line.trend.is_some_and(|(tr, _)| tr.rising) {
                let at = (span * 0.02, y_max * (0.97 - 0.06 * i as f64));
                taken.add(at.0, at.1, 60.0 * 8.0 * x_per_px, 18.0 * y_per_px);
            }
        }
        // The bands' names, in their colour (darker), at the right of the data.
        for (k, band) in panel.bands.iter().enumerate() {
            let Some(y) = label_y.get(n_lines + k).copied() else {
                continue;
            };
            let at = (span * 1.01, y + gap * 0.4);
            let w = text_width(&band.label, 14.0) + 20.0;
            taken.add(at.0, at.1, w * x_per_px, 17.0 * y_per_px);
            let RGBColor(r, g, b) = COLOURS[k % COLOURS.len()];
            let font =
                ("sans-serif", 14)
                    .into_font()
                    .color(&RGBColor(r / 3 * 2, g / 3 * 2, b / 3 * 2));
            let px = chart.backend_coord(&at);
            let room = area_right - f64::from(px.0) - 4.0;
            let name = fitted(&mut tips, &band.label, "", 14.0, room, px);
            chart
                .draw_series(std::iter::once(Text::new(name, at, font)))
                .map_err(err)?;
        }
        // The peaks' labels, drawn over every line.
        let mut peaks = Vec::new();
        for (i, line) in panel.lines.iter().enumerate() {
            let (colour, stroke) = ink(line, i);
            let pts = thin(&line.series.points().collect::<Vec<_>>(), width as usize);
            let xy = pts.iter().map(|p| (p.t - t0, p.v / s));
            if line.ink == Ink::Others {
                chart
                    .draw_series(DashedLineSeries::new(xy, 8, 5, colour.stroke_width(stroke)))
                    .map_err(err)?;
            } else {
                chart
                    .draw_series(LineSeries::new(xy, colour.stroke_width(stroke)))
                    .map_err(err)?;
            }
            // The peak: the first point at the highest value.
            let top = line.series.points().fold(None::<Point>, |m, p| match m {
                Some(m) if m.v >= p.v => Some(m),
                _ => Some(p),
            });
            let (Some(top), Some(last)) = (top, line.series.last()) else {
                continue;
            };
            let at = (top.t - t0, top.v / s);
            let marked = line.ink != Ink::Used;
            if marked {
                chart
                    .draw_series(std::iter::once(Circle::new(at, 4, colour.filled())))
                    .map_err(err)?;
            }
            let peak = match line.ink {
                Ink::Job => format!(
                    "peak {} at {}",
                    with_unit(top.v / s, &panel.unit),
                    since(top.t - t0)
                ),
                _ => format!("peak {}", with_unit(top.v / s, &panel.unit)),
            };
            let mut name_suffix = String::new();
            let at_peak = top.v - last.v <= (top.v.abs() * 0.01).max(1e-12);
            if marked && at_peak {
                // Still at its peak: the end's name says it.
                name_suffix = format!(" ({peak})");
            } else if marked {
                let font = ("sans-serif", 12).into_font().color(&colour);
                let (w, h) = (text_width(&peak, 12.0) * x_per_px, 16.0 * y_per_px);
                let spot = taken.place(at, w, h, y_max);
                peaks.push((peak, spot, w, h, font));
            }
            let font = ("sans-serif", 14).into_font().color(&colour);
            let at = (last.t - t0 + span * 0.01, label_y[i] + gap * 0.4);
            // Cut to end inside the picture; the whole name is the tooltip.
            let px = chart.backend_coord(&at);
            let room = area_right - f64::from(px.0) - 4.0;
            let name = fitted(&mut tips, &line.label, &name_suffix, 14.0, room, px);
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
                let mut words = format!(": leak {}", rate_text(tr.slope_per_s, panel));
                if let Some(f) = tr.time_to_full_s {
                    words.push_str(&format!(", full in {}", trend::format_duration(f)));
                }
                let font = ("sans-serif", 15).into_font().color(&LEAK);
                let at = (span * 0.02, y_max * (0.97 - 0.06 * i as f64));
                // Left of where the lines end (and their names begin).
                let px = chart.backend_coord(&at);
                let data_end = f64::from(chart.backend_coord(&(span, 0.0)).0);
                let room = data_end - f64::from(px.0) - 8.0;
                let label = fitted(&mut tips, &line.label, &words, 15.0, room, px);
                chart
                    .draw_series(std::iter::once(Text::new(label, at, font)))
                    .map_err(err)?;
            }
        }
        for (peak, spot, w, h, font) in peaks {
            // On a light ground, so that it reads over the lines.
            let ground = Rectangle::new([spot, (spot.0 + w, spot.1 - h)], WHITE.mix(0.85).filled());
            chart.draw_series(std::iter::once(ground)).map_err(err)?;
            chart
                .draw_series(std::iter::once(Text::new(peak, spot, font)))
                .map_err(err)?;
        }
    }
    Ok(tips)
}

/// Seconds since the start as the report words them: `850ms`, `4.2s`, `12m03s`, `3h05m`.
fn since(s: f64) -> String {
    nvq_core::render::job::since((s.max(0.0) * 1000.0) as u64)
}

/// About how wide a text is at a font size, in pixels (DejaVu Sans averages under 0.6 of the size a character).
fn text_width(s: &str, size: f64) -> f64 {
    s.chars().count() as f64 * size * 0.62
}

/// The boxes text takes on a chart, in its units: (left, right, bottom, top). Text is drawn from its top left.
#[derive(Default)]
struct Taken(Vec<(f64, f64, f64, f64)>);

impl Taken {
    fn add(&mut self, x: f64, y: f64, w: f64, h: f64) {
        self.0.push((x, x + w, y - h, y));
    }

    fn free(&self, x: f64, y: f64, w: f64, h: f64) -> bool {
        self.0
            .iter()
            .all(|&(l, r, b, t)| x + w <= l || x >= r || y <= b || y - h >= t)
    }

    /// Where a label of `w` by `h` for the point `at` goes: just above it if that is free, else the nearest
    /// free place above or below it (steps of one line, then a little to the right), inside the chart; taken.
    fn place(&mut self, at: (f64, f64), w: f64, h: f64, y_max: f64) -> (f64, f64) {
        let (x, y0) = (at.0, at.1 + h * 1.2);
        let fits = |y: f64| y <= y_max && y - h >= 0.0;
        let mut spot = (x, y0.min(y_max));
        // Side by side first (peaks of one height in a row), then a line further up or down.
        'search: for step in 0..40 {
            for shift in 0..6 {
                let x = x + shift as f64 * w * 1.05;
                for y in [y0 + step as f64 * h, at.1 - h * 0.2 - step as f64 * h] {
                    if fits(y) && self.free(x, y, w, h) {
                        spot = (x, y);
                        break 'search;
                    }
                }
            }
        }
        self.add(spot.0, spot.1, w, h);
        spot
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peak_labels_at_one_place_do_not_overlap_and_stay_inside() {
        // Eight lines peaking at the same moment at the top of the panel, beside a total's label.
        let mut taken = Taken::default();
        taken.add(0.0, 95.0, 30.0, 4.0);
        let boxes: Vec<(f64, f64)> = (0..8)
            .map(|_| taken.place((1.0, 89.0), 20.0, 5.0, 96.0))
            .collect();
        for (i, a) in boxes.iter().enumerate() {
            assert!(a.1 <= 96.0 && a.1 - 5.0 >= 0.0, "{a:?}");
            for b in &boxes[i + 1..] {
                let apart =
                    a.0 + 20.0 <= b.0 || b.0 + 20.0 <= a.0 || a.1 - 5.0 >= b.1 || b.1 - 5.0 >= a.1;
                assert!(apart, "{a:?} and {b:?} overlap");
            }
            assert!(
                a.0 >= 30.0 || a.1 <= 91.0 || a.1 - 5.0 >= 95.0,
                "{a:?} is on the total's label"
            );
        }
    }

    #[test]
    fn rates_read_in_a_size_unit() {
        let cases = [
            (
                "memory.used",
                "MiB",
                1048576.0,
                1073741824.0,
                "+1.00 GiB/min",
            ),
            ("utilization.gpu", "%", 0.01, 0.01, "+1.00 %/min"),
        ];
        for (field, unit, scale, per_minute, want) in cases {
            let p = Panel {
                field: field.into(),
                unit: Some(unit.into()),
                scale,
                lines: vec![],
                series: 0,
                bands: vec![],
            };
            assert_eq!(rate_text(per_minute / 60.0, &p), want, "{field}");
        }
    }
}
