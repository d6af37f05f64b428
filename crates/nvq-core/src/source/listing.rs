//! `-L/--list-gpus` and `--version`: reading nvidia-smi's two one-shot
//! listings (`render::listing` prints them).

use crate::model::listing::{GpuListing, MigListing, Versions};
use crate::nvml::{raw, Session};
use crate::source::gpu::GpuCtx;

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
            // The GPU count is no part of a listing.
            let c = GpuCtx::new(session, index, 0);
            GpuListing {
                index,
                name: c.name().map(str::to_string),
                uuid: c.uuid().map(str::to_string),
                mig: mig_listings(&c),
            }
        })
        .collect()
}

/// The MIG devices of a GPU with MIG mode on, in NVML's order.
fn mig_listings(c: &GpuCtx<'_>) -> Vec<MigListing> {
    if c.handle().is_err() || !c.mig_mode().is_ok_and(|(current, _)| current == 1) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for m in raw::mig_devices(&c.raw()) {
        let name = raw::name(&m);
        out.push(MigListing {
            index: out.len() as u32,
            profile: name.as_deref().map(mig_profile).unwrap_or("").to_string(),
            uuid: raw::uuid(&m),
        });
    }
    out
}

/// Read the `--version` facts. The CUDA version comes from the unversioned
/// `nvmlSystemGetCudaDriverVersion` (the `_v2` one needs libcuda, which
/// utility-only containers lack), else from `_v2`.
pub fn versions(session: &Session) -> Versions {
    Versions {
        driver: session.driver_version().map(str::to_string),
        nvml: raw::nvml_version(session),
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
