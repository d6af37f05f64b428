//! Loading NVML and talking to it.
//!
//! nvq reads every value through `nvml-wrapper`, which `dlopen`s the library at
//! run time. Functions the wrapper lacks are called through its raw symbol
//! table, in one place ([`raw`]); a symbol missing from an older driver becomes
//! [`NvmlCode::FUNCTION_NOT_FOUND`], never a panic.

mod code;
pub mod raw;

pub use crate::model::NvmlCode;
pub use code::check;

use crate::error::NvqError;
use nvml_wrapper::error::NvmlError;
use nvml_wrapper::Nvml;
use nvml_wrapper_sys::bindings::NvmlLib;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The file name of the simulator library that `--simulate` loads.
pub const SIMULATOR_FILE: &str = "libnvml_sim.so";

/// Which NVML library to load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LibSource {
    /// The system's `libnvidia-ml.so.1`, found by the dynamic loader.
    System,
    /// A given file (`--nvml-lib` or `NVQ_NVML_LIB`).
    Path(PathBuf),
    /// The simulator that sits next to the nvq binary (`--simulate`).
    Simulator,
}

impl LibSource {
    /// The path to hand to `dlopen`, or `None` for the loader's default search.
    pub fn resolve(&self) -> Result<Option<PathBuf>, NvqError> {
        match self {
            LibSource::System => Ok(None),
            LibSource::Path(p) => Ok(Some(p.clone())),
            LibSource::Simulator => find_simulator().map(Some),
        }
    }
}

/// Look for the simulator beside the running executable (see [`find_installed`]).
pub fn find_simulator() -> Result<PathBuf, NvqError> {
    find_installed(SIMULATOR_FILE).map_err(|e| match e {
        NotInstalled::Missing(why) => NvqError::LibraryNotFound {
            detail: format!("--simulate: {why}"),
        },
        NotInstalled::Untrusted(why) => NvqError::UntrustedLibrary {
            what: "--simulate",
            why: why.to_string(),
        },
    })
}

/// Why [`find_installed`] has no file to offer.
#[derive(Debug)]
pub enum NotInstalled {
    /// Not there: a sentence to put after a prefix, naming the places looked in.
    Missing(String),
    /// There, but another user owns it or could have put it there
    /// (see [`crate::trust`]).
    Untrusted(crate::trust::Untrusted),
}

/// Look for `file`, a file installed with nvq (the simulator, `nvq top`'s
/// executable), beside the running executable: next to it, in `deps/` (where
/// cargo puts a library for tests) and in `../lib/nvq/` (an installation
/// prefix: the Debian package's `/usr`, a venv or `~/.local` for the wheel,
/// the tool venvs of pipx and uv). The executable's path is its real one,
/// links resolved, so a link to nvq elsewhere (pipx's and uv's entries in
/// `~/.local/bin`, an `nvidia-smi` link) finds the files of the nvq it points
/// at. The current directory is never searched. Only a regular file counts,
/// and the first one found must pass [`crate::trust::check`] (nvq may run as
/// root, and loads or runs it): a planted file is refused, not passed over.
/// The path returned is its real one, to load or run as it is.
pub fn find_installed(file: &str) -> Result<PathBuf, NotInstalled> {
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| NotInstalled::Missing(format!("cannot locate the nvq executable: {e}")))?;
    let dir = exe.parent().ok_or_else(|| {
        NotInstalled::Missing(format!("{} has no parent directory", exe.display()))
    })?;
    let candidates = install_candidates(dir, file);
    let Some(found) = candidates.iter().find(|p| p.is_file()) else {
        let looked: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
        return Err(NotInstalled::Missing(format!(
            "{file} is not installed; looked for {}",
            looked.join(", ")
        )));
    };
    crate::trust::check(found).map_err(NotInstalled::Untrusted)
}

/// Where [`find_installed`] looks, in order, for `file` of an executable in
/// `dir` (a real directory, so its parent is the installation prefix).
fn install_candidates(dir: &Path, file: &str) -> Vec<PathBuf> {
    let mut places = vec![dir.join(file), dir.join("deps").join(file)];
    if let Some(prefix) = dir.parent() {
        places.push(prefix.join("lib").join("nvq").join(file));
    }
    places
}

/// An initialised NVML library.
pub struct Session {
    nvml: Nvml,
    lib_path: Option<PathBuf>,
    driver_version: Result<String, NvmlCode>,
    /// Its major version, worked out once (pmon asks for it every sample).
    driver_major: u32,
}

impl Session {
    /// Load the library and initialise NVML. The errors carry nvidia-smi's
    /// texts and exit codes.
    pub fn open(source: &LibSource) -> Result<Self, NvqError> {
        let lib_path = source.resolve()?;
        let mut builder = Nvml::builder();
        if let Some(p) = &lib_path {
            builder.lib_path(p.as_os_str());
        }
        let nvml = builder
            .init()
            .map_err(|e| init_error(e, lib_path.as_deref()))?;
        let driver_version = raw::driver_version(&nvml);
        let driver_major = driver_version
            .as_deref()
            .map_or(0, crate::model::listing::driver_major);
        Ok(Session {
            nvml,
            lib_path,
            driver_version,
            driver_major,
        })
    }

    /// nvml-wrapper's handle on the library: the raw layer's.
    pub(in crate::nvml) fn nvml(&self) -> &Nvml {
        &self.nvml
    }

    /// The raw symbol table, for functions nvml-wrapper does not wrap.
    pub(super) fn lib(&self) -> &NvmlLib {
        self.nvml.lib()
    }

    /// The library file loaded, or `None` when the loader chose the system's.
    pub fn lib_path(&self) -> Option<&Path> {
        self.lib_path.as_deref()
    }

    /// The driver version ("590.48.01"), read once when the session opened.
    pub fn driver_version(&self) -> Result<&str, NvmlCode> {
        self.driver_version.as_deref().map_err(|c| *c)
    }

    /// The driver's major version (590 for "590.48.01"), 0 when unknown.
    pub fn driver_major(&self) -> u32 {
        self.driver_major
    }

    /// How many GPUs NVML lists.
    pub fn device_count(&self) -> Result<u32, NvmlCode> {
        raw::device_count(self)
    }

    /// Does the first of `devices` run under WDDM (Windows' display driver
    /// model, NVML's driver model 0)? Some of nvidia-smi's layouts and
    /// answers on Windows depend on it.
    pub fn wddm(&self, devices: &[u32]) -> bool {
        devices
            .first()
            .is_some_and(|&i| matches!(raw::driver_model(&raw::Dev::by_index(self, i)), Ok((0, _))))
    }
}

/// The name `dlopen` was given: the path, or the loader's default.
fn lib_name(path: Option<&Path>) -> &OsStr {
    match path {
        Some(p) => p.as_os_str(),
        None => OsStr::new(DEFAULT_LIB),
    }
}

/// The default library, found by the dynamic loader's search.
const DEFAULT_LIB: &str = "libnvidia-ml.so.1";

/// nvq's note for a library that did not load: the path and the loader's
/// reason (which usually starts with the path already; it is not repeated).
fn load_failure(path: Option<&Path>, reason: &str) -> NvqError {
    let name = lib_name(path).to_string_lossy();
    let reason = reason
        .strip_prefix(name.as_ref())
        .and_then(|r| r.strip_prefix(": "))
        .unwrap_or(reason);
    NvqError::LibraryNotFound {
        detail: format!("cannot load NVML from {name}: {reason}"),
    }
}

/// Map an initialisation failure to nvidia-smi's message and exit code.
fn init_error(e: NvmlError, path: Option<&Path>) -> NvqError {
    match e {
        NvmlError::LibloadingError(le) => load_failure(path, &le.to_string()),
        NvmlError::FailedToLoadSymbol(s) => load_failure(path, &s),
        NvmlError::DriverNotLoaded => NvqError::DriverNotLoaded,
        // The library loaded but reports that it cannot find its own parts:
        // nvidia-smi's "couldn't find libnvidia-ml.so" message and exit 12.
        NvmlError::LibraryNotFound => {
            load_failure(path, "nvmlInit reported NVML_ERROR_LIBRARY_NOT_FOUND")
        }
        NvmlError::LibRmVersionMismatch => NvqError::VersionMismatch {
            nvml_version: nvml_version_without_init(path).unwrap_or_else(|| "N/A".into()),
        },
        other => NvqError::Init(NvmlCode::from(&other)),
    }
}

fn nvml_version_without_init(path: Option<&Path>) -> Option<String> {
    raw::nvml_version_without_init(path).map(|v| crate::model::listing::short_nvml_version(&v))
}

pub mod select;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simulator_places_are_beside_the_executable_and_under_its_prefix() {
        let places = install_candidates(
            Path::new("/home/u/.local/share/uv/tools/nvq/bin"),
            SIMULATOR_FILE,
        );
        let expected = [
            "/home/u/.local/share/uv/tools/nvq/bin/libnvml_sim.so",
            "/home/u/.local/share/uv/tools/nvq/bin/deps/libnvml_sim.so",
            "/home/u/.local/share/uv/tools/nvq/lib/nvq/libnvml_sim.so",
        ];
        assert_eq!(places, expected.map(PathBuf::from));
        // An executable in / has no prefix above it: no relative lookup.
        assert_eq!(
            install_candidates(Path::new("/"), SIMULATOR_FILE),
            ["/libnvml_sim.so", "/deps/libnvml_sim.so"].map(PathBuf::from)
        );
    }
}
