//! What `-L/--list-gpus` and `--version` print, as data.

use super::NvmlCode;

/// One line of `-L`: a GPU and its MIG devices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuListing {
    /// The GPU's NVML index (`GPU 0:`).
    pub index: u32,
    /// Its product name (`nvmlDeviceGetName`), or the code that call returned.
    pub name: Result<String, NvmlCode>,
    /// Its UUID (`GPU-…`, `nvmlDeviceGetUUID`), or the code that call returned.
    pub uuid: Result<String, NvmlCode>,
    /// Its MIG devices, listed under it; empty when MIG is off or unsupported.
    pub mig: Vec<MigListing>,
}

/// A MIG device under its GPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MigListing {
    /// Its position among the GPU's MIG devices.
    pub index: u32,
    /// The profile (`3g.40gb`, `1c.3g.71gb`), taken from the MIG device's
    /// name, which NVML spells `<GPU name> MIG <profile>`.
    pub profile: String,
    /// The MIG device's UUID (`MIG-…`), or the code NVML returned for it.
    pub uuid: Result<String, NvmlCode>,
}

/// What `--version` prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Versions {
    /// The driver version (`nvmlSystemGetDriverVersion`, `590.48.01`), or its code.
    pub driver: Result<String, NvmlCode>,
    /// The NVML version as NVML reports it (`nvmlSystemGetNVMLVersion`), or its code;
    /// see [`short_nvml_version`] for what is printed.
    pub nvml: Result<String, NvmlCode>,
    /// `cudaDriverVersion` as NVML encodes it (13010 = 13.1).
    pub cuda: Result<i32, NvmlCode>,
    /// The NVML library file loaded (`None`: the loader's default).
    pub library: Option<String>,
    /// Set when that library is nvq's simulator: the scenario it plays.
    pub simulator: Option<String>,
}

/// The driver's major version (590 for `590.48.01`); 0 when unknown.
pub fn driver_major(version: &str) -> u32 {
    version
        .split('.')
        .next()
        .and_then(|m| m.parse().ok())
        .unwrap_or(0)
}

/// nvidia-smi's short form of the NVML version (`--version` and the
/// driver/library mismatch message): the driver's major.minor. NVML reports
/// its version with the CUDA major in front on most drivers
/// (`12.550.54.15`, `13.580.82.07`), and nvidia-smi prints `550.54` and
/// `580.82`; a version without that prefix (`590.48.01`) prints `590.48`.
pub fn short_nvml_version(v: &str) -> String {
    let parts: Vec<&str> = v.split('.').collect();
    let skip = usize::from(parts.len() >= 3 && parts[0].len() <= 2);
    parts[skip..]
        .iter()
        .take(2)
        .copied()
        .collect::<Vec<_>>()
        .join(".")
}
