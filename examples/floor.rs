//! The benchmark floor: the least a one-shot NVML query can do. It loads the
//! library, initialises NVML and reads one value (used memory) from each GPU.
//! `benches/run.sh` times nvq against this program.
//!
//! Usage: `floor [PATH_TO_LIBNVIDIA_ML]` (default: the loader's search).

use nvml_wrapper::Nvml;
use std::ffi::OsString;
use std::io::Write;

fn main() {
    let path: Option<OsString> = std::env::args_os().nth(1);
    let mut builder = Nvml::builder();
    if let Some(p) = &path {
        builder.lib_path(p);
    }
    let nvml = match builder.init() {
        Ok(n) => n,
        Err(e) => {
            eprintln!("floor: {e}");
            std::process::exit(1);
        }
    };
    let count = nvml.device_count().unwrap_or(0);
    let mut out = String::new();
    for i in 0..count {
        let used = nvml
            .device_by_index(i)
            .and_then(|d| d.memory_info())
            .map(|m| m.used)
            .unwrap_or(0);
        out.push_str(&format!("{i}, {used}\n"));
    }
    let _ = std::io::stdout().write_all(out.as_bytes());
}
