//! `-L/--list-gpus` and `--version`: nvidia-smi's two one-shot listings.
//!
//! Reading (NVML) and rendering (pure) are split: [`gpus`] and
//! [`versions`] gather the facts, [`render_list`] and [`render_version`]
//! turn them into nvidia-smi's exact text. Under its own name nvq prints
//! [`render_nvq_version`] instead, which starts with nvq's version.

use crate::nvml::{NvmlCode, Session};

/// One line of `-L`: a GPU and its MIG devices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuListing {
    pub index: u32,
    pub name: Result<String, NvmlCode>,
    pub uuid: Result<String, NvmlCode>,
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
    pub uuid: Result<String, NvmlCode>,
}

/// nvidia-smi's `-L` text.
pub fn render_list(gpus: &[GpuListing]) -> String {
    let mut out = String::new();
    for g in gpus {
        out.push_str(&format!(
            "GPU {}: {} (UUID: {})\n",
            g.index,
            crate::model::Token::or_text(&g.name),
            crate::model::Token::or_text(&g.uuid)
        ));
        for m in &g.mig {
            out.push_str(&format!(
                "  MIG {:<12}Device {:>2}: (UUID: {})\n",
                m.profile,
                m.index,
                crate::model::Token::or_text(&m.uuid)
            ));
        }
    }
    out
}

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
            let call = |f: &dyn Fn(
                &nvml_wrapper::Device<'_>,
            )
                -> Result<String, nvml_wrapper::error::NvmlError>| {
                dev.as_ref()
                    .map_err(|c| *c)
                    .and_then(|d| f(d).map_err(NvmlCode::from))
            };
            let mig = dev.as_ref().map(mig_devices).unwrap_or_default();
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
fn mig_devices(dev: &nvml_wrapper::Device<'_>) -> Vec<MigListing> {
    let enabled = dev.mig_mode().is_ok_and(|m| m.current == 1);
    if !enabled {
        return Vec::new();
    }
    let max = dev.mig_device_count().unwrap_or(0);
    let mut out = Vec::new();
    for j in 0..max {
        let Ok(m) = dev.mig_device_by_index(j) else {
            continue;
        };
        let name = m.name().map_err(NvmlCode::from);
        out.push(MigListing {
            index: out.len() as u32,
            profile: name.as_deref().map(mig_profile).unwrap_or("").to_string(),
            uuid: m.uuid().map_err(NvmlCode::from),
        });
    }
    out
}

/// What `--version` prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Versions {
    pub driver: Result<String, NvmlCode>,
    pub nvml: Result<String, NvmlCode>,
    /// `cudaDriverVersion` as NVML encodes it (13010 = 13.1).
    pub cuda: Result<i32, NvmlCode>,
}

/// From the 610 branch on, `--version` marks the DRIVER and CUDA lines
/// deprecated and adds `KMD version` and `CUDA UMD version` (captured on
/// 610.57.04; 595.x still prints the old layout).
pub const NEW_VERSION_LAYOUT_FROM: u32 = 610;

/// `13010` → `13.1`.
pub fn cuda_version(v: i32) -> String {
    format!("{}.{}", v / 1000, (v % 1000) / 10)
}

/// nvidia-smi's short form of the NVML version (see
/// [`crate::nvml::display_nvml_version`]).
pub fn short_nvml_version(v: &str) -> String {
    crate::nvml::display_nvml_version(v)
}

/// nvidia-smi's `--version` text. Its own version is the driver's.
pub fn render_version(v: &Versions) -> String {
    let na = |c: &NvmlCode| crate::model::Token::new(*c).text();
    let driver = v.driver.as_ref().map_or_else(na, String::clone);
    let nvml = v.nvml.as_deref().map_or_else(na, short_nvml_version);
    let cuda = v.cuda.as_ref().map_or_else(na, |c| cuda_version(*c));
    let major: u32 = driver
        .split('.')
        .next()
        .and_then(|m| m.parse().ok())
        .unwrap_or(0);
    let line = |label: &str, value: &str| format!("{label:<20}: {value}\n");
    let mut out = line("NVIDIA-SMI version", &driver);
    out.push_str(&line("NVML version", &nvml));
    if major >= NEW_VERSION_LAYOUT_FROM {
        out.push_str(&line(
            "DRIVER version",
            "Deprecated, see \"KMD version\" instead",
        ));
        out.push_str(&line(
            "CUDA version",
            "Deprecated, see \"CUDA UMD version\" instead",
        ));
        out.push_str(&line("KMD version", &driver));
        out.push_str(&line("CUDA UMD version", &cuda));
    } else {
        out.push_str(&line("DRIVER version", &driver));
        out.push_str(&line("CUDA Version", &cuda));
    }
    out
}

/// nvq's own `--version` text: nvq's version, then NVML's, the driver's
/// and CUDA's. It keeps one layout on every driver (nvidia-smi's 610
/// deprecation notes are about its own labels, not nvq's).
pub fn render_nvq_version(v: &Versions) -> String {
    let na = |c: &NvmlCode| crate::model::Token::new(*c).text();
    let driver = v.driver.as_ref().map_or_else(na, String::clone);
    let nvml = v.nvml.as_deref().map_or_else(na, short_nvml_version);
    let cuda = v.cuda.as_ref().map_or_else(na, |c| cuda_version(*c));
    let line = |label: &str, value: &str| format!("{label:<20}: {value}\n");
    let mut out = line("nvq version", env!("CARGO_PKG_VERSION"));
    out.push_str(&line("NVML version", &nvml));
    out.push_str(&line("DRIVER version", &driver));
    out.push_str(&line("CUDA version", &cuda));
    out
}

/// Read the `--version` facts. The CUDA version comes from the unversioned
/// `nvmlSystemGetCudaDriverVersion` (the `_v2` one needs libcuda, which
/// utility-only containers lack), else from `_v2`.
pub fn versions(session: &Session) -> Versions {
    Versions {
        driver: session.driver_version().map(str::to_string),
        nvml: session.nvml().sys_nvml_version().map_err(NvmlCode::from),
        cuda: crate::nvml::raw::cuda_driver_version(session),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mig_line_layout() {
        let g = GpuListing {
            index: 0,
            name: Ok("NVIDIA H100 80GB HBM3".into()),
            uuid: Ok("GPU-x".into()),
            mig: vec![
                MigListing {
                    index: 0,
                    profile: "3g.40gb".into(),
                    uuid: Ok("MIG-a".into()),
                },
                MigListing {
                    index: 11,
                    profile: "1c.3g.71gb".into(),
                    uuid: Err(NvmlCode::GPU_IS_LOST),
                },
            ],
        };
        assert_eq!(
            render_list(&[g]),
            "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-x)\n  MIG 3g.40gb     Device  0: (UUID: MIG-a)\n  MIG 1c.3g.71gb  Device 11: (UUID: [GPU is lost])\n"
        );
        assert_eq!(mig_profile("NVIDIA H100 80GB HBM3 MIG 1g.10gb"), "1g.10gb");
        assert_eq!(mig_profile("weird"), "weird");
    }

    #[test]
    fn version_layouts() {
        let v = Versions {
            driver: Ok("595.71.05".into()),
            nvml: Ok("595.71.05".into()),
            cuda: Ok(13020),
        };
        let t = render_version(&v);
        assert!(
            t.ends_with("DRIVER version      : 595.71.05\nCUDA Version        : 13.2\n"),
            "{t}"
        );
        let v = Versions {
            driver: Ok("610.57.04".into()),
            nvml: Ok("610.57.04".into()),
            cuda: Ok(13030),
        };
        let t = render_version(&v);
        assert!(
            t.contains("KMD version         : 610.57.04\nCUDA UMD version    : 13.3\n"),
            "{t}"
        );
        assert_eq!(short_nvml_version("12.550.54.15"), "550.54");
        assert_eq!(short_nvml_version("13.580.82.07"), "580.82");
        assert_eq!(short_nvml_version("590.48.01"), "590.48");
        assert_eq!(short_nvml_version("12.535.161"), "535.161");
        assert_eq!(cuda_version(12040), "12.4");
    }

    #[test]
    fn nvq_version_layout() {
        let v = Versions {
            driver: Ok("610.57.04".into()),
            nvml: Ok("13.610.57.04".into()),
            cuda: Err(NvmlCode::NOT_SUPPORTED),
        };
        assert_eq!(
            render_nvq_version(&v),
            format!(
                "nvq version         : {}\n\
                 NVML version        : 610.57\n\
                 DRIVER version      : 610.57.04\n\
                 CUDA version        : [N/A]\n",
                env!("CARGO_PKG_VERSION")
            )
        );
    }
}
