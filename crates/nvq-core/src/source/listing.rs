//! `-L/--list-gpus` and `--version`: reading nvidia-smi's two one-shot
//! listings (`render::listing` prints them).

use crate::model::listing::{GpuListing, MigListing, Versions};
use crate::nvml::{NvmlCode, Session};
use nvml_wrapper::Device;

/// The profile part of a MIG device name (`NVIDIA H100 80GB HBM3 MIG 3g.40gb`
/// → `3g.40gb`); the whole name if it has no ` MIG ` part.
pub fn mig_profile(name: &str) -> &str {
    name.rsplit_once("MIG ").map_or(name, |(_, p)| p.trim())
}

/// Read the `-L` facts for the given GPUs.
pub fn gpus(session: &Session, devices: &[u32]) -> Vec<GpuListing> {
    devices
        .iter()
        .map(|&index| {
            let dev = session.device(index);
            let call =
                |f: &dyn Fn(&Device<'_>) -> Result<String, nvml_wrapper::error::NvmlError>| {
                    dev.as_ref()
                        .map_err(|c| *c)
                        .and_then(|d| f(d).map_err(NvmlCode::from))
                };
            let mig = dev.as_ref().map(mig_listings).unwrap_or_default();
            GpuListing {
                index,
                name: call(&|d| d.name()),
                uuid: call(&|d| d.uuid()),
                mig,
            }
        })
        .collect()
}

/// The MIG devices of a GPU with MIG mode on, in NVML's order.
fn mig_listings(dev: &Device<'_>) -> Vec<MigListing> {
    let enabled = dev.mig_mode().is_ok_and(|m| m.current == 1);
    if !enabled {
        return Vec::new();
    }
    let mut out = Vec::new();
    for m in mig_devices(dev) {
        let name = m.name().map_err(NvmlCode::from);
        out.push(MigListing {
            index: out.len() as u32,
            profile: name.as_deref().map(mig_profile).unwrap_or("").to_string(),
            uuid: m.uuid().map_err(NvmlCode::from),
        });
    }
    out
}

/// The MIG devices of GPU `dev` (MIG mode on), in NVML's order; an index
/// NVML cannot hand out is passed over.
pub fn mig_devices<'s>(dev: &Device<'s>) -> Vec<Device<'s>> {
    (0..dev.mig_device_count().unwrap_or(0))
        .filter_map(|i| dev.mig_device_by_index(i).ok())
        .collect()
}

/// Read the `--version` facts. The CUDA version comes from the unversioned
/// `nvmlSystemGetCudaDriverVersion` (the `_v2` one needs libcuda, which
/// utility-only containers lack), else from `_v2`.
pub fn versions(session: &Session) -> Versions {
    Versions {
        driver: session.driver_version().map(str::to_string),
        nvml: session.nvml().sys_nvml_version().map_err(NvmlCode::from),
        cuda: crate::nvml::raw::cuda_driver_version(session),
        library: session.lib_path().map(|p| p.display().to_string()),
        simulator: session
            .lib_path()
            .is_some_and(|p| p.file_name() == Some(crate::nvml::SIMULATOR_FILE.as_ref()))
            .then(|| match std::env::var_os("NVML_SIM_SCENARIO") {
                Some(s) if !s.is_empty() => format!("scenario {}", s.to_string_lossy()),
                _ => "its built-in scenario".to_string(),
            }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mig_profile_from_the_name() {
        for (name, profile) in [
            ("NVIDIA H100 80GB HBM3 MIG 1g.10gb", "1g.10gb"),
            ("NVIDIA A100-SXM4-40GB MIG 3g.20gb", "3g.20gb"),
            ("2g.20gb", "2g.20gb"),
            ("weird", "weird"),
        ] {
            assert_eq!(mig_profile(name), profile, "{name}");
        }
    }
}
