//! `vgpu -s`, `vgpu -c`, and on a vGPU host `vgpu` (the summary table)
//! and `vgpu -q`: nvidia-smi's text.
//!
//! The table and `-q` follow the public 525.147.01 outputs with one running
//! vGPU (akb486/vgpu), a 580.105.06 `-q` and 550.54.14 tables (see
//! `tests/vgpu/SOURCES.md`);
//! what no public output shows (a licensed vGPU's expiry, a frame rate
//! limit, a domain-id VM, several GPUs in `-q`) is nvq's reading of NVML's
//! values, listed as unverified in `docs/compat.md`.
//!
//! Sources (public outputs, cited in `tests/vgpu/SOURCES.md`): a host
//! without vGPU prints one line for `vgpu` and `vgpu -s`
//! (DualCoder/vgpu_unlock#118); a vGPU host prints each GPU's bus id, then
//! one type name per line, indented four spaces (460.32.04 in
//! DualCoder/vgpu_unlock#30; 580.105.06 in bigstack-oss/cubecos#903).

use super::printable;
use super::report::line;
use crate::model::vgpu::{Active, Gpu, Host, HostGpu, Instance, License, SessionStats};
use crate::model::{NvmlCode, Token};

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

/// The width of `-q`'s labels, indent included, before the colon.
const WIDTH: usize = 42;

const RULE: &str =
    "+---------------------------------+------------------------------+------------+";

/// What a failed NVML read prints: `N/A` for what the GPU does not have,
/// else NVML's message.
fn na(code: NvmlCode) -> String {
    match code {
        NvmlCode::NOT_SUPPORTED | NvmlCode::NOT_FOUND | NvmlCode::FUNCTION_NOT_FOUND => {
            "N/A".into()
        }
        c => c.message().to_string(),
    }
}

fn text(v: &Result<String, NvmlCode>) -> String {
    match v {
        Ok(s) => printable(s).into_owned(),
        Err(c) => na(*c),
    }
}

fn num<T: std::fmt::Display>(v: &Result<T, NvmlCode>, unit: &str) -> String {
    match v {
        Ok(n) => format!("{n}{unit}"),
        Err(c) => na(*c),
    }
}

/// A table cell of `width` characters: the text, or when it is longer than
/// `width - 3` its first `width - 3` characters and `...` (the public
/// outputs cut a 23-character GPU name in a 25-wide cell).
fn cell(s: &str, width: usize) -> String {
    let s = printable(s);
    if s.chars().count() > width.saturating_sub(3) {
        let head: String = s.chars().take(width.saturating_sub(3)).collect();
        format!("{head}...")
    } else {
        format!("{s:<width$}")
    }
}

/// `vgpu` on a vGPU host: the table of the host GPUs and their vGPUs,
/// after `date` (the first line, as the GPU table's).
pub fn table(a: &Active, date: &str) -> String {
    let driver = text(&a.driver);
    let mut out = format!("{date}\n");
    out.push_str(
        "+-----------------------------------------------------------------------------+\n",
    );
    out.push_str(&format!(
        "| NVIDIA-SMI {driver:<22} Driver Version: {driver:<26}|\n"
    ));
    out.push_str(
        "|---------------------------------+------------------------------+------------+\n",
    );
    out.push_str(
        "| GPU  Name                       | Bus-Id                       | GPU-Util   |\n",
    );
    out.push_str(
        "|      vGPU ID     Name           | VM ID     VM Name            | vGPU-Util  |\n",
    );
    out.push_str(
        "|=================================+==============================+============|\n",
    );
    for g in &a.gpus {
        let util = match g.gpu_util {
            Ok(u) => format!("{u:>4}%"),
            Err(c) => format!("{:>5}", na(c)),
        };
        out.push_str(&format!(
            "|{:>4}  {}  | {} |{}       |\n",
            g.index,
            cell(&text(&g.name), 25),
            cell(&g.bus_id, 28),
            util
        ));
        for v in g.vgpus.iter().flatten() {
            out.push_str(&vgpu_row(v));
        }
        out.push_str(RULE);
        out.push('\n');
    }
    out
}

fn vgpu_row(v: &Instance) -> String {
    let vm_id = match &v.vm_id {
        Ok((id, _)) if !id.is_empty() => id.clone(),
        Ok(_) => v.vm_process_uuid.clone().unwrap_or_default(),
        Err(c) => na(*c),
    };
    let name = v.vm_name.clone().unwrap_or_else(|| "N/A".into());
    let util = match v.utilization {
        Ok([sm, ..]) => format!("{sm:>7}%"),
        Err(c) => format!("{:>8}", na(c)),
    };
    format!(
        "|      {:<10}  {} | {}  {} |{}    |\n",
        v.id,
        cell(&text(&v.type_name), 14),
        cell(&vm_id, 7),
        cell(&name, 19),
        util
    )
}

/// `vgpu -q` on a vGPU host: each host GPU's running vGPUs in full.
pub fn query(a: &Active) -> String {
    let blocks: Vec<String> = a
        .gpus
        .iter()
        .map(|g| query_gpu(g, a.driver_major))
        .collect();
    blocks.join("\n")
}

fn query_gpu(g: &HostGpu, driver_major: u32) -> String {
    let mut out = format!("GPU {}\n", printable(&g.bus_id));
    let count = g.vgpus.as_ref().map(Vec::len).map_err(|c| *c);
    line(&mut out, 4, WIDTH, "Active vGPUs", Some(num(&count, "")));
    for v in g.vgpus.iter().flatten() {
        instance(&mut out, v, driver_major);
    }
    out
}

/// `Enabled`/`Disabled`.
fn state(v: &Result<bool, NvmlCode>) -> String {
    match v {
        Ok(true) => "Enabled".into(),
        Ok(false) => "Disabled".into(),
        Err(c) => na(*c),
    }
}

/// `License Status`: the state, and for a licensed vGPU its expiry.
fn license(v: &Result<License, NvmlCode>) -> String {
    let Ok(l) = v else {
        return "N/A (Expiry: N/A)".into();
    };
    match l.state {
        5 => match l.expiry {
            Some([y, mo, d, h, mi, s]) => {
                format!("Licensed (Expiry: {y}-{mo}-{d} {h}:{mi}:{s} GMT)")
            }
            None => "Licensed (Expiry: N/A)".into(),
        },
        2 => "Unlicensed (Unrestricted)".into(),
        3 => "Unlicensed (Restricted)".into(),
        4 => "Unlicensed".into(),
        _ => "N/A (Expiry: N/A)".into(),
    }
}

fn stats(out: &mut String, label: &str, v: &Result<SessionStats, NvmlCode>) {
    line(out, 8, WIDTH, label, None);
    let parts = match v {
        Ok((n, fps, lat)) => [n, fps, lat].map(u32::to_string),
        Err(c) => [na(*c), na(*c), na(*c)],
    };
    let [n, fps, lat] = parts;
    line(out, 12, WIDTH, "Active Sessions", Some(n));
    line(out, 12, WIDTH, "Average FPS", Some(fps));
    line(out, 12, WIDTH, "Average Latency", Some(lat));
}

fn instance(out: &mut String, v: &Instance, driver_major: u32) {
    const MIB: u64 = 1024 * 1024;
    let kv = |out: &mut String, label: &str, value: String| line(out, 8, WIDTH, label, Some(value));
    line(out, 4, WIDTH, "vGPU ID", Some(v.id.to_string()));
    let (id_label, id) = match &v.vm_id {
        Ok((id, false)) => ("VM ID", printable(id).into_owned()),
        Ok((id, true)) => ("VM UUID", printable(id).into_owned()),
        Err(c) => ("VM UUID", na(*c)),
    };
    kv(out, id_label, id);
    kv(
        out,
        "VM Name",
        v.vm_name
            .as_deref()
            .map_or("N/A".into(), |n| printable(n).into_owned()),
    );
    kv(out, "vGPU Name", text(&v.type_name));
    kv(out, "vGPU Type", num(&v.type_id, ""));
    kv(out, "vGPU UUID", text(&v.uuid));
    // SR-IOV vGPUs have no mdev device: nvidia-smi leaves the line out (unverified).
    if let Ok(m) = &v.mdev_uuid {
        kv(out, "MDEV UUID", printable(m).into_owned());
    }
    let guest = match &v.guest_driver {
        Ok(s) if s == "Not Available" => "N/A".into(),
        other => text(other),
    };
    kv(out, "Guest Driver Version", guest);
    kv(out, "License Status", license(&v.license));
    let gi = match v.gpu_instance_id {
        Ok(u32::MAX) => "N/A".into(),
        other => num(&other, ""),
    };
    kv(out, "GPU Instance ID", gi);
    // 580.105.06 prints it here; 525.147.01's library lacks the call.
    if let Ok(p) = v.placement_id {
        kv(out, "Placement ID", p.to_string());
    }
    kv(out, "Accounting Mode", state(&v.accounting_mode));
    kv(out, "ECC Mode", state(&v.ecc_mode));
    kv(out, "Accounting Buffer Size", num(&v.accounting_buffer, ""));
    kv(out, "Frame Rate Limit", num(&v.frame_rate_limit, " FPS"));
    line(out, 8, WIDTH, "PCI", None);
    line(out, 12, WIDTH, "Bus Id", Some(text(&v.pci_id)));
    line(out, 8, WIDTH, "FB Memory Usage", None);
    let total = v.fb_total.map(|b| b / MIB);
    let used = v.fb_used.map(|b| b / MIB);
    let free = total.and_then(|t| used.map(|u| t.saturating_sub(u)));
    line(out, 12, WIDTH, "Total", Some(num(&total, " MiB")));
    line(out, 12, WIDTH, "Used", Some(num(&used, " MiB")));
    line(out, 12, WIDTH, "Free", Some(num(&free, " MiB")));
    line(out, 8, WIDTH, "Utilization", None);
    // The label follows the GPU report's, renamed in 570 (as there).
    let gpu_label = if driver_major >= 570 { "GPU" } else { "Gpu" };
    let labels = [gpu_label, "Memory", "Encoder", "Decoder"];
    for (i, label) in labels.iter().enumerate() {
        let value = v.utilization.map(|u| u[i]);
        line(out, 12, WIDTH, label, Some(num(&value, " %")));
    }
    stats(out, "Encoder Stats", &v.encoder);
    stats(out, "FBC Stats", &v.fbc);
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
    fn cells_cut_long_text_to_their_width() {
        assert_eq!(
            cell("NVIDIA GeForce RTX 4088", 25),
            "NVIDIA GeForce RTX 408..."
        );
        assert_eq!(cell("NVIDIA A40", 25), format!("{:<25}", "NVIDIA A40"));
        assert_eq!(cell("f2672e0c-3a51", 7), "f267...");
        assert_eq!(cell("12", 7), "12     ");
        assert_eq!(cell("a\nb", 7), "a?b    ");
    }

    #[test]
    fn licence_states_and_expiry() {
        let l = |state, expiry| Ok(License { state, expiry });
        assert_eq!(license(&Err(NvmlCode::NOT_SUPPORTED)), "N/A (Expiry: N/A)");
        assert_eq!(license(&l(0, None)), "N/A (Expiry: N/A)");
        assert_eq!(license(&l(2, None)), "Unlicensed (Unrestricted)");
        assert_eq!(license(&l(3, None)), "Unlicensed (Restricted)");
        assert_eq!(
            license(&l(5, Some([2026, 1, 24, 16, 0, 21]))),
            "Licensed (Expiry: 2026-1-24 16:0:21 GMT)"
        );
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
