//! `vgpu -s`, `vgpu -c`: nvidia-smi's text.
//!
//! Sources (public outputs, cited in `tests/vgpu/SOURCES.md`): a host
//! without vGPU prints one line for `vgpu` and `vgpu -s`
//! (DualCoder/vgpu_unlock#118); a vGPU host prints each GPU's bus id, then
//! one type name per line, indented four spaces (460.32.04 in
//! DualCoder/vgpu_unlock#30; 580.105.06 in bigstack-oss/cubecos#903).

use super::printable;
use crate::model::vgpu::{Gpu, Host};
use crate::model::Token;

/// What nvidia-smi prints when no selected GPU is a vGPU host.
pub const NO_VGPU_HOST: &str = "No supported devices in vGPU mode\n";

/// Whether any selected GPU is a vGPU host.
pub fn any_host(gpus: &[Gpu]) -> bool {
    gpus.iter().any(|g| matches!(g.host, Host::Yes(_)))
}

/// The type listing of `-s` or `-c`: the vGPU host GPUs, each with its
/// types; GPUs that are no vGPU host are left out.
pub fn types(gpus: &[Gpu]) -> String {
    if !any_host(gpus) {
        return NO_VGPU_HOST.to_string();
    }
    let mut out = String::new();
    for g in gpus {
        let Host::Yes(list) = &g.host else { continue };
        out.push_str(&format!("GPU {}\n", printable(&g.bus_id)));
        match list {
            Ok(names) => {
                for n in names {
                    let name = match n {
                        Ok(s) => printable(s).into_owned(),
                        Err(c) => Token::new(*c).text(),
                    };
                    out.push_str(&format!("    {name}\n"));
                }
            }
            Err(c) => out.push_str(&format!("    {}\n", Token::new(*c).text())),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::NvmlCode;

    fn host(bus: &str, names: &[&str]) -> Gpu {
        Gpu {
            bus_id: bus.into(),
            host: Host::Yes(Ok(names.iter().map(|n| Ok(n.to_string())).collect())),
        }
    }

    #[test]
    fn no_host_prints_the_one_line() {
        let g = Gpu {
            bus_id: "00000000:01:00.0".into(),
            host: Host::No,
        };
        assert_eq!(types(&[g]), NO_VGPU_HOST);
        assert_eq!(types(&[]), NO_VGPU_HOST);
    }

    #[test]
    fn hosts_list_their_types_and_others_are_left_out() {
        let bare = Gpu {
            bus_id: "00000000:02:00.0".into(),
            host: Host::No,
        };
        let out = types(&[
            host("00000000:01:00.0", &["GRID P4-1B", "GRID P4-1Q"]),
            bare,
        ]);
        assert_eq!(
            out,
            "GPU 00000000:01:00.0\n    GRID P4-1B\n    GRID P4-1Q\n"
        );
    }

    #[test]
    fn a_name_never_breaks_its_line_and_failures_are_tokens() {
        let g = Gpu {
            bus_id: "00000000:01:00.0".into(),
            host: Host::Yes(Ok(vec![Ok("A\nB".into()), Err(NvmlCode::UNKNOWN)])),
        };
        assert_eq!(
            types(&[g]),
            "GPU 00000000:01:00.0\n    A?B\n    [Unknown Error]\n"
        );
    }
}
