//! `nvq plot`: read a log, draw it, replace the picture whole. No NVML.

use crate::cli::plot::PlotArgs;
use crate::error::NvqError;
use crate::output::atomic::AtomicFile;
use crate::plot::{self, PictureKind, PlotSpec};
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
    let usage = |m: String| NvqError::Usage(m);
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
    let trend = crate::script::run::trend_config(
        a.trend_window.as_deref(),
        a.rising_for.as_deref(),
        a.min_rise.as_deref(),
    )?;
    // The picture's folder is checked before the log is read; nothing is written until the picture is whole.
    let file = AtomicFile::new(&out)?;
    let bytes = std::fs::read(&a.log)
        .map_err(|e| usage(format!("cannot read {}: {e}.", a.log.display())))?;
    let text = String::from_utf8(bytes).map_err(|_| {
        usage(format!(
            "{} is not a text log nvq wrote (it is not UTF-8).",
            a.log.display()
        ))
    })?;
    let log = crate::source::log::parse(&text).map_err(|e| {
        let at = if e.line > 0 {
            format!(", line {}", e.line)
        } else {
            String::new()
        };
        usage(format!("{}{at}: {}.", a.log.display(), e.message))
    })?;
    load_font()?;
    let spec = PlotSpec {
        fields: a.fields.clone(),
        trend,
        kind,
        width: a.width,
    };
    let picture =
        plot::render(&log, &spec).map_err(|m| usage(format!("{}: {m}.", a.log.display())))?;
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
