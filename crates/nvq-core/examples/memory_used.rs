//! Print each GPU's `memory.used` as `nvidia-smi --query-gpu=memory.used
//! --format=csv,noheader` prints it (`1234 MiB`, one line per GPU), through
//! nvq-core alone: open NVML, select the GPUs, read the field through the
//! `--query-gpu` mode's collector, format it with the CSV renderer.
//!
//! `cargo run -p nvq-core --example memory_used` reads the system's NVML;
//! with `NVQ_NVML_LIB=/path/to/libnvidia-ml.so` it reads that library (the
//! simulator, for instance), and an argument picks GPUs as `-i` does
//! (`memory_used 0,1`).

use nvq_core::model::Column;
use nvq_core::nvml::select::select;
use nvq_core::nvml::{LibSource, Session};
use nvq_core::render::FormatSpec;
use nvq_core::source::{targets, QueryMode, Request};
use nvq_core::NvqError;
use std::io::Write;

fn main() -> std::process::ExitCode {
    let lib = match std::env::var_os("NVQ_NVML_LIB") {
        Some(path) => LibSource::Path(path.into()),
        None => LibSource::System,
    };
    let ids = std::env::args().nth(1);
    match memory_used(&lib, ids.as_deref()) {
        Ok(text) => {
            let mut out = std::io::stdout().lock();
            match out.write_all(&text).and_then(|()| out.flush()) {
                Ok(()) => std::process::ExitCode::SUCCESS,
                Err(_) => std::process::ExitCode::FAILURE,
            }
        }
        Err(e) => {
            eprintln!("memory_used: {e}");
            std::process::ExitCode::from(e.exit_code().code() as u8)
        }
    }
}

/// The bytes nvidia-smi would print for the GPUs `ids` (`-i`'s syntax;
/// all when `None`) of the NVML library `lib`.
pub fn memory_used(lib: &LibSource, ids: Option<&str>) -> Result<Vec<u8>, NvqError> {
    let session = Session::open(lib)?;
    let devices = select(&session, ids)?;
    let mode = QueryMode::GPU;
    let fields = mode.resolve("memory.used")?;
    let columns: Vec<Column> = mode.columns(&fields, session.driver_major());
    let request = Request::new(&fields, session.device_count().unwrap_or(0), false);
    let rows = mode.collect(&session, &targets(&session, &devices), &request);
    let mut csv = FormatSpec::parse("csv,noheader")?.formatter();
    let mut out = Vec::new();
    csv.begin(&columns, &mut out);
    csv.sample(&columns, &rows, &mut out);
    csv.finish(&columns, &mut out);
    Ok(out)
}
