//! `nvq plot`: read a log, draw it, replace the picture whole. No NVML.

use crate::cli::plot::PlotArgs;
use crate::output::atomic::AtomicFile;
use crate::plot::{self, PictureKind, PlotSpec};
use nvq_core::error::NvqError;
use std::path::{Path, PathBuf};

/// Where a TrueType font is looked for (Debian's fonts-dejavu-core first); `NVQ_PLOT_FONT` names another.
const FONTS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/freefont/FreeSans.ttf",
];

/// The most logs drawn on one time axis.
const MAX_LOGS: usize = 256;

pub fn run(a: &PlotArgs) -> Result<(), NvqError> {
    // A message may quote the log (a timestamp, a column's name): its control characters are not for the
    // terminal, as in the table writers' cells.
    let usage = |m: String| NvqError::Usage(nvq_core::render::printable(&m).into_owned());
    let Some(first) = a.logs.first() else {
        return Err(usage("nvq plot needs a log to draw.".into()));
    };
    if a.logs.len() > MAX_LOGS {
        return Err(usage(format!(
            "nvq plot draws at most {MAX_LOGS} logs on one time axis, not {}.",
            a.logs.len()
        )));
    }
    let out = a
        .output
        .clone()
        .unwrap_or_else(|| first.with_extension("svg"));
    let kind = match out
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("svg") => PictureKind::Svg,
        Some("png") => PictureKind::Png,
        _ => {
            return Err(usage(format!(
                "nvq plot writes .svg or .png files, not \"{}\".",
                out.display()
            )))
        }
    };
    if !(400..=8000).contains(&a.width) {
        return Err(usage(format!(
            "--width is between 400 and 8000 pixels, not {}.",
            a.width
        )));
    }
    let trend = a.trend.config();
    // The picture's folder is checked before the log is read; nothing is written until the picture is whole.
    let file = AtomicFile::new(&out)?;
    let spec = PlotSpec {
        fields: a.fields.clone(),
        trend,
        kind,
        width: a.width,
    };
    let drawing = if a.logs.len() == 1 {
        read(first, &spec, None)?
    } else {
        let mut merged = plot::Merged::new(spec.width);
        for (path, name) in a.logs.iter().zip(host_names(&a.logs)) {
            // A file's name is text for the SVG too: only characters XML allows.
            let name = nvq_core::render::report_xml::xml_chars(&name).into_owned();
            let d = read(path, &spec, Some(name.clone()))?;
            merged.add(&name, d);
        }
        merged.finish()
    };
    load_font()?;
    let picture =
        plot::render(&drawing, &spec).map_err(|m| usage(format!("{}: {m}.", first.display())))?;
    file.replace(&picture)
}

/// One log, read line by line (only the columns the picture needs are kept, as numbers), as its drawing; `source`
/// names its host where its rows name none.
fn read(path: &Path, spec: &PlotSpec, source: Option<String>) -> Result<plot::Drawing, NvqError> {
    let usage = |m: String| NvqError::Usage(nvq_core::render::printable(&m).into_owned());
    let log = std::fs::File::open(path)
        .map_err(|e| usage(format!("cannot read {}: {e}.", path.display())))?;
    let mut input = std::io::BufReader::with_capacity(1 << 16, log);
    let keep = |names: &[String]| plot::columns_needed(spec, names);
    let mut reading = plot::Reading::new(spec, source);
    let head = nvq_core::source::log::read(&mut input, &keep, &mut |head, t, cells| {
        reading.row(head, t, cells)
    })
    .map_err(|e| {
        let at = if e.line > 0 {
            format!(", line {}", e.line)
        } else {
            String::new()
        };
        usage(format!("{}{at}: {}.", path.display(), e.message))
    })?;
    reading
        .finish(&head)
        .map_err(|m| usage(format!("{}: {m}.", path.display())))
}

/// Each log's host where its rows name none: its file's name without the extension (`node1.ndjson`: `node1`);
/// logs whose names are alike (`a/run.ndjson`, `b/run.ndjson`) are named by their paths as given, without the
/// extension.
fn host_names(logs: &[PathBuf]) -> Vec<String> {
    let stem = |p: &PathBuf| {
        p.file_stem().map_or_else(
            || p.display().to_string(),
            |s| s.to_string_lossy().into_owned(),
        )
    };
    let stems: Vec<String> = logs.iter().map(stem).collect();
    logs.iter()
        .zip(&stems)
        .map(|(p, s)| {
            if stems.iter().filter(|t| *t == s).count() > 1 {
                p.with_extension("").display().to_string()
            } else {
                s.clone()
            }
        })
        .collect()
}

fn load_font() -> Result<(), NvqError> {
    let candidates: Vec<PathBuf> = match std::env::var_os("NVQ_PLOT_FONT") {
        Some(p) => vec![PathBuf::from(p)],
        None => FONTS.iter().map(PathBuf::from).collect(),
    };
    let found = candidates
        .iter()
        .find_map(|p: &PathBuf| std::fs::read(Path::new(p)).ok());
    let Some(bytes) = found else {
        return Err(NvqError::Usage(
            "nvq plot needs a TrueType font for its text: install fonts-dejavu-core (Debian, Ubuntu) or name a .ttf \
             file in NVQ_PLOT_FONT."
                .into(),
        ));
    };
    // Kept for the rest of the run: one font, read once.
    plot::use_font(Box::leak(bytes.into_boxed_slice())).map_err(NvqError::Usage)
}
