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

pub fn run(a: &PlotArgs) -> Result<(), NvqError> {
    // A message may quote the log (a timestamp, a column's name): its control characters are not for the
    // terminal, as in the table writers' cells.
    let usage = |m: String| NvqError::Usage(nvq_core::render::printable(&m).into_owned());
    let out = a
        .output
        .clone()
        .unwrap_or_else(|| a.log.with_extension("svg"));
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
    let log = std::fs::File::open(&a.log)
        .map_err(|e| usage(format!("cannot read {}: {e}.", a.log.display())))?;
    // Read line by line: only the columns the picture needs are kept, as numbers.
    let mut input = std::io::BufReader::with_capacity(1 << 16, log);
    let keep = |names: &[String]| plot::columns_needed(&spec, names);
    let mut collector = plot::Collector::new(&spec);
    let head = nvq_core::source::log::read(&mut input, &keep, &mut |head, t, cells| {
        collector.row(head, t, cells)
    })
    .map_err(|e| {
        let at = if e.line > 0 {
            format!(", line {}", e.line)
        } else {
            String::new()
        };
        usage(format!("{}{at}: {}.", a.log.display(), e.message))
    })?;
    let drawing = collector
        .finish(&head)
        .map_err(|m| usage(format!("{}: {m}.", a.log.display())))?;
    load_font()?;
    let picture =
        plot::render(&drawing, &spec).map_err(|m| usage(format!("{}: {m}.", a.log.display())))?;
    file.replace(&picture)
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
