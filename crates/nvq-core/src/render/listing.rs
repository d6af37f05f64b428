//! `-L/--list-gpus` and `--version` as nvidia-smi prints them, and nvq's
//! own `--version`.

use crate::model::listing::{driver_major, short_nvml_version, GpuListing, Versions};
use crate::model::{NvmlCode, Token};

/// A UUID as `-L` prints it: one NVML does not give (NOT_SUPPORTED) is a
/// plain `N/A` (a public script notes `(UUID: N/A)` on old consumer
/// boards), other failures their token.
fn uuid_text(uuid: &Result<String, NvmlCode>) -> String {
    match uuid {
        Err(NvmlCode::NOT_SUPPORTED) => "N/A".to_string(),
        other => Token::or_text(other),
    }
}

/// A GPU's `-L` line; `nvlink`'s listings head each GPU with it too:
/// `GPU 0: NAME (UUID: GPU-...)`.
pub fn gpu_line(
    index: u32,
    name: &Result<String, NvmlCode>,
    uuid: &Result<String, NvmlCode>,
) -> String {
    // Text from the driver goes through `printable`: one GPU, one line.
    format!(
        "GPU {index}: {} (UUID: {})\n",
        super::printable(&Token::or_text(name)),
        super::printable(&uuid_text(uuid))
    )
}

/// nvidia-smi's `-L` text.
pub fn render_list(gpus: &[GpuListing]) -> String {
    let mut out = String::new();
    for g in gpus {
        out.push_str(&gpu_line(g.index, &g.name, &g.uuid));
        for m in &g.mig {
            out.push_str(&format!(
                "  MIG {:<12}Device {:>2}: (UUID: {})\n",
                m.profile,
                m.index,
                uuid_text(&m.uuid)
            ));
        }
    }
    out
}

/// From the 610 branch on, `--version` marks the DRIVER and CUDA lines
/// deprecated and adds `KMD version` and `CUDA UMD version` (captured on
/// 610.57.04; 595.x still prints the old layout).
pub const NEW_VERSION_LAYOUT_FROM: u32 = 610;

/// `13010` → `13.1`.
pub fn cuda_version(v: i32) -> String {
    format!("{}.{}", v / 1000, (v % 1000) / 10)
}

/// nvidia-smi's `--version` text. Its own version is the driver's.
pub fn render_version(v: &Versions) -> String {
    let na = |c: &NvmlCode| Token::new(*c).text();
    let driver = v.driver.as_ref().map_or_else(na, String::clone);
    let nvml = v.nvml.as_deref().map_or_else(na, short_nvml_version);
    let cuda = v.cuda.as_ref().map_or_else(na, |c| cuda_version(*c));
    let major = driver_major(&driver);
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
    let na = |c: &NvmlCode| Token::new(*c).text();
    let driver = v.driver.as_ref().map_or_else(na, String::clone);
    let nvml = v.nvml.as_deref().map_or_else(na, short_nvml_version);
    let cuda = v.cuda.as_ref().map_or_else(na, |c| cuda_version(*c));
    let line = |label: &str, value: &str| format!("{label:<20}: {value}\n");
    let mut out = line("nvq version", env!("CARGO_PKG_VERSION"));
    out.push_str(&line("NVML version", &nvml));
    out.push_str(&line("DRIVER version", &driver));
    out.push_str(&line("CUDA version", &cuda));
    let library = v
        .library
        .as_deref()
        .unwrap_or("libnvidia-ml.so.1 (the system's)");
    out.push_str(&line("NVML library", library));
    if let Some(scenario) = &v.simulator {
        out.push_str(&line(
            "Simulated",
            &format!("yes: nvq's NVML simulator, no GPU ({scenario})"),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::listing::MigListing;

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
            "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-x)\n  MIG 3g.40gb     Device  0: (UUID: \
             MIG-a)\n  MIG 1c.3g.71gb  Device 11: (UUID: [GPU is lost])\n"
        );
    }

    #[test]
    fn version_layouts() {
        // The driver's version and CUDA's: their labels changed in 610.
        for (driver, cuda, tail) in [
            (
                "595.71.05",
                13020,
                "DRIVER version      : 595.71.05\nCUDA Version        : 13.2\n",
            ),
            (
                "610.57.04",
                13030,
                "KMD version         : 610.57.04\nCUDA UMD version    : 13.3\n",
            ),
        ] {
            let v = Versions {
                library: None,
                simulator: None,
                driver: Ok(driver.into()),
                nvml: Ok(driver.into()),
                cuda: Ok(cuda),
            };
            let t = render_version(&v);
            assert!(t.ends_with(tail), "{t}");
        }
        assert_eq!(short_nvml_version("12.550.54.15"), "550.54");
        assert_eq!(short_nvml_version("13.580.82.07"), "580.82");
        assert_eq!(short_nvml_version("590.48.01"), "590.48");
        assert_eq!(short_nvml_version("12.535.161"), "535.161");
        assert_eq!(cuda_version(12040), "12.4");
    }

    #[test]
    fn nvq_version_layout() {
        let v = Versions {
            library: None,
            simulator: None,
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
                 CUDA version        : [N/A]\n\
                 NVML library        : libnvidia-ml.so.1 (the system's)\n",
                env!("CARGO_PKG_VERSION")
            )
        );
    }
}
