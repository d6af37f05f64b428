//! Getters of report lines that are no `--query-gpu` field.

use crate::model::report::{Node, Section, View};
use crate::model::Value;
use crate::nvml::raw;
use crate::source::gpu::get::not_available;
use crate::source::gpu::GpuCtx;
use nvml_wrapper::enum_wrappers::device::{Brand, Clock, PcieUtilCounter, TemperatureThreshold};
use nvml_wrapper::enum_wrappers::device::{GpuVirtualizationMode, Sampling};
use nvml_wrapper::enums::device::DeviceArchitecture;

/// The field values the report's own getters read: PCIe replay rollovers,
/// outbound and inbound atomics, memory power (average, instant), the reset
/// status (before 570).
pub const FIELD_VALUES: &[(u32, u32)] = &[
    (95, 0),
    (228, 0),
    (229, 0),
    (185, 2),
    (186, 2),
    (226, 0),
    (227, 0),
];

fn uint(v: u32) -> Value {
    Value::Int(i64::from(v))
}

/// A line nvq has no NVML source for: `N/A`, never an invented value.
pub fn none(c: &GpuCtx) -> Value {
    not_available(c)
}

pub fn brand(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.brand()), |b| {
        Value::text(match b {
            Brand::Unknown => "Unknown",
            Brand::Quadro => "Quadro",
            Brand::Tesla => "Tesla",
            Brand::NVS => "NVS",
            Brand::GRID => "Grid",
            Brand::GeForce => "GeForce",
            Brand::Titan => "Titan",
            Brand::VApps => "NVIDIA Virtual Applications",
            Brand::VPC => "NVIDIA Virtual PC",
            Brand::VCS => "NVIDIA Virtual Compute Server",
            Brand::VWS => "NVIDIA RTX Virtual Workstation",
            Brand::CloudGaming => "NVIDIA Cloud Gaming",
            Brand::VGaming => "NVIDIA Virtual Gaming",
            Brand::QuadroRTX => "Quadro RTX",
            Brand::NvidiaRTX => "NVIDIA RTX",
            Brand::Nvidia => "NVIDIA",
            Brand::GeForceRTX => "GeForce RTX",
            Brand::TitanRTX => "Titan RTX",
        })
    })
}

pub fn architecture(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.architecture()), |a| {
        Value::text(match a {
            DeviceArchitecture::Kepler => "Kepler",
            DeviceArchitecture::Maxwell => "Maxwell",
            DeviceArchitecture::Pascal => "Pascal",
            DeviceArchitecture::Volta => "Volta",
            DeviceArchitecture::Turing => "Turing",
            DeviceArchitecture::Ampere => "Ampere",
            DeviceArchitecture::Ada => "Ada Lovelace",
            DeviceArchitecture::Hopper => "Hopper",
            DeviceArchitecture::Blackwell => "Blackwell",
            DeviceArchitecture::Unknown => "Unknown",
        })
    })
}

/// `0x` and 16 lower-case hex digits.
pub fn pdi(c: &GpuCtx) -> Value {
    c.value(raw::pdi(&c.raw()), |v| Value::text(format!("0x{v:016x}")))
}

/// Channel (`tpc == false`) or TPC repair pending: Yes/No.
pub fn repair_pending(c: &GpuCtx, tpc: bool) -> Value {
    c.value(raw::repair_status(&c.raw()), |(channel, t)| {
        Value::yes_no((if tpc { t } else { channel }) != 0)
    })
}

/// Extended GPU memory: `enabled`/`disabled`, as nvidia-smi spells it here.
pub fn egm(c: &GpuCtx) -> Value {
    c.value(raw::capabilities(&c.raw()), |m| {
        Value::text(if m & raw::DEV_CAP_EGM != 0 {
            "enabled"
        } else {
            "disabled"
        })
    })
}

pub fn minor_number(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.minor_number()), uint)
}

pub fn multi_gpu_board(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.is_multi_gpu_board()), Value::yes_no)
}

pub fn board_id(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.board_id()), |v| {
        Value::text(format!("0x{v:x}"))
    })
}

pub fn board_part_number(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.board_part_number()), Value::text)
}

pub fn module_id(c: &GpuCtx) -> Value {
    c.value(raw::module_id(&c.raw()), uint)
}

/// The platform's rack fields: from 580 on nvidia-smi's `-q` prints them
/// only on GPUs that sit in a rack (a chassis serial number is set);
/// elsewhere `N/A`, even where `--query-gpu` prints the zeros NVML returns
/// (the 590 and 610 captures). 570 prints what NVML returns, an empty serial
/// number included (the 570 RTX 5090 report).
pub fn rack(c: &GpuCtx, field: &'static str) -> Value {
    match c.platform() {
        Ok(p) if p.chassisSerialNumber[0] != 0 || c.driver_major() < RACK_ONLY_FROM => {
            super::Read::Field(field).read(c)
        }
        _ => not_available(c),
    }
}

/// The platform's fabric GUID: before 580 in hexadecimal without leading
/// zeros (`0x0` in the 570 report; the case of a non-zero one is not known),
/// from 580 on as the `--query-gpu` field prints it, where `rack` shows it.
pub fn fabric_guid(c: &GpuCtx) -> Value {
    let field = "platform.gpu_fabric_guid";
    match rack(c, field) {
        Value::Text(t) if c.driver_major() < RACK_ONLY_FROM => {
            let digits = t.trim_start_matches("0x").trim_start_matches('0');
            let digits = if digits.is_empty() { "0" } else { digits };
            Value::text(format!("0x{digits}"))
        }
        other => other,
    }
}

/// The driver from which the platform lines need a rack (`rack`).
const RACK_ONLY_FROM: u32 = 580;

pub fn virtualization(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.virtualization_mode()), |m| {
        Value::text(match m {
            GpuVirtualizationMode::Bare => "None",
            GpuVirtualizationMode::PassThrough => "Pass-Through",
            GpuVirtualizationMode::Vgpu => "VGPU",
            GpuVirtualizationMode::HostVgpu => "Host VGPU",
            GpuVirtualizationMode::HostVsga => "Host VSGA",
        })
    })
}

pub fn gsp_version(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.gsp_firmware_version()), Value::text)
}

pub fn replays(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.pcie_replay_counter()), uint)
}

/// `NVML_FI_DEV_PCIE_REPLAY_ROLLOVER_COUNTER`.
pub fn replay_rollovers(c: &GpuCtx) -> Value {
    c.value(c.field_value(95, 0), |v| Value::Int(v.as_i64()))
}

/// `NVML_FI_DEV_PCIE_OUTBOUND_ATOMICS_MASK` (228) or `..._INBOUND_...`
/// (229): the operations named, each followed by a space, as nvidia-smi
/// prints them.
pub fn atomics(c: &GpuCtx, inbound: bool) -> Value {
    const OPS: [&str; 7] = [
        "FETCHADD_32",
        "FETCHADD_64",
        "SWAP_32",
        "SWAP_64",
        "CAS_32",
        "CAS_64",
        "CAS_128",
    ];
    c.value(c.field_value(if inbound { 229 } else { 228 }, 0), |v| {
        let mask = v.as_i64();
        let names: String = OPS
            .iter()
            .enumerate()
            .filter(|(bit, _)| mask & (1 << bit) != 0)
            .map(|(_, op)| format!("{op} "))
            .collect();
        Value::text(names)
    })
}

pub fn pcie_tx(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.pcie_throughput(PcieUtilCounter::Send)), uint)
}

pub fn pcie_rx(c: &GpuCtx) -> Value {
    c.value(
        c.call(|d| d.pcie_throughput(PcieUtilCounter::Receive)),
        uint,
    )
}

pub fn bar1(
    c: &GpuCtx,
    pick: fn(&nvml_wrapper::struct_wrappers::device::BAR1MemoryInfo) -> u64,
) -> Value {
    c.value(c.call(|d| d.bar1_memory_info()), |m| Value::Bytes(pick(&m)))
}

pub fn fbc(c: &GpuCtx, pick: fn(&nvml_wrapper::struct_wrappers::device::FbcStats) -> u32) -> Value {
    c.value(c.call(|d| d.fbc_stats()), |s| uint(pick(&s)))
}

/// A temperature threshold. Drivers with a T.Limit margin give the first
/// four relative to it, so the C `unsigned int` is read as signed.
pub fn threshold(c: &GpuCtx, t: TemperatureThreshold) -> Value {
    c.value(c.call(|d| d.temperature_threshold(t)), |v| {
        Value::Int(i64::from(v as i32))
    })
}

pub fn max_clock_video(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.max_clock_info(Clock::Video)), uint)
}

pub fn max_boost_graphics(c: &GpuCtx) -> Value {
    c.value(
        c.call(|d| d.max_customer_boost_clock(Clock::Graphics)),
        uint,
    )
}

pub fn auto_boost(c: &GpuCtx, default: bool) -> Value {
    c.value(c.call(|d| d.auto_boosted_clocks_enabled()), |a| {
        let on = if default {
            a.is_enabled_default
        } else {
            a.is_enabled
        };
        Value::text(if on { "On" } else { "Off" })
    })
}

/// `NVML_FI_DEV_POWER_AVERAGE` / `_INSTANT` of the memory scope (2).
pub fn memory_power(c: &GpuCtx, instant: bool) -> Value {
    let id = if instant { 186 } else { 185 };
    c.value(c.field_value(id, 2), |v| Value::Float {
        value: v.as_f64() / 1000.0,
        decimals: 2,
    })
}

/// `Processes : None`, or one block per process; in XML one
/// `<process_info>` each.
pub fn processes(c: &GpuCtx, view: View) -> Node {
    let Ok(d) = c.dev() else {
        return Node::collapsed("Processes", "processes", not_available(c));
    };
    let procs = crate::source::smi_table::process_summaries(c.session, d, c.index);
    if procs.is_empty() && view == View::Text {
        return Node::collapsed("Processes", "processes", Value::text("None"));
    }
    let id = |v: Option<u32>| v.map_or(Value::NotAvailable, uint);
    let wddm = matches!(c.driver_model(), Ok((0, _)));
    let mut items = Vec::new();
    for p in procs {
        let name = match p.name {
            Ok(n) => Value::text(n),
            Err(code) => c.err(code),
        };
        let used = match p.used_memory {
            Some(b) => Value::Bytes(b),
            // The XML report says N/A (the 516 WDDM document shows it).
            None if wddm && view == View::Text => Value::text("Not available in WDDM driver model"),
            None => Value::NotAvailable,
        };
        let gi = Node::entry("GPU instance ID", "gpu_instance_id", id(p.gpu_instance), "");
        let ci = Node::entry(
            "Compute instance ID",
            "compute_instance_id",
            id(p.compute_instance),
            "",
        );
        let kind = Node::entry("Type", "type", Value::text(p.kind.letters()), "");
        let name = Node::entry("Name", "process_name", name, "");
        let used = Node::entry("Used GPU Memory", "used_memory", used, " MiB");
        if view == View::Xml {
            let pid = Node::entry("", "pid", uint(p.pid), "");
            items.push(Node::section(
                "",
                "process_info",
                vec![gi, ci, pid, kind, name, used],
            ));
            continue;
        }
        items.push(gi);
        items.push(ci);
        items.push(Node::Section(Section {
            label: "Process ID",
            xml: "pid",
            value: Some(uint(p.pid)),
            items: vec![kind, name, used],
            width: Some(PROCESS_WIDTH),
        }));
    }
    Node::Section(Section {
        label: "Processes",
        xml: "processes",
        value: None,
        items,
        width: Some(PROCESS_WIDTH),
    })
}

/// `<mig_devices>`: `None` when the GPU has no MIG device. (The list of MIG
/// devices itself is not built yet; a GPU with some says `N/A`.)
pub fn mig_devices(c: &GpuCtx, _: View) -> Node {
    let none = match c.call(|d| d.mig_device_count()) {
        Ok(n) => n == 0,
        Err(_) => true,
    };
    let v = if none {
        Value::text("None")
    } else {
        not_available(c)
    };
    Node::section("", "mig_devices", vec![Node::Bare(v)])
}

/// `<retired_pagelist>`: empty when no page was retired (an element with
/// nothing in it, as nvidia-smi writes it), `N/A` when NVML cannot say. A
/// retired page is listed as a `<retired_page_address>`, a name no document
/// seen so far confirms.
pub fn retired_list(c: &GpuCtx, double: bool) -> Node {
    use nvml_wrapper::enum_wrappers::device::RetirementCause;
    let cause = if double {
        RetirementCause::DoubleBitEccError
    } else {
        RetirementCause::MultipleSingleBitEccErrors
    };
    match c.call(|d| d.retired_pages(cause)) {
        Ok(pages) => {
            let items = pages
                .iter()
                .map(|p| {
                    Node::entry(
                        "",
                        "retired_page_address",
                        Value::text(format!("0x{:016X}", p.address)),
                        "",
                    )
                })
                .collect();
            Node::section("", "retired_pagelist", items)
        }
        Err(code) => Node::collapsed("", "retired_pagelist", c.err(code)),
    }
}

/// The power management line of the pre-535 "Power Readings" section:
/// `Supported` where NVML says power management is active (as the 525
/// document prints it), `N/A` otherwise.
pub fn power_management_support(c: &GpuCtx) -> Value {
    // nvml-wrapper marks the call deprecated; it is what drivers before 535 answer.
    #[allow(deprecated)]
    c.value(c.call(|d| d.is_power_management_algo_active()), |on| {
        if on {
            Value::text("Supported")
        } else {
            Value::NotAvailable
        }
    })
}

/// The reset status of drivers 535 to 579: `NVML_FI_DEV_RESET_STATUS` (226)
/// or `NVML_FI_DEV_DRAIN_AND_RESET_STATUS` (227) as Yes/No (the 535 documents
/// show both); deprecated from 570 on (the 570 document).
pub fn reset_status(c: &GpuCtx, drain: bool) -> Value {
    if c.driver_major() >= 570 {
        return c.err(crate::model::NvmlCode::DEPRECATED);
    }
    let id = if drain { 227 } else { 226 };
    c.value(c.field_value(id, 0), |v| {
        Value::text(if v.as_i64() == 0 { "No" } else { "Yes" })
    })
}

/// Does NVML report clocks event reasons for this GPU?
pub fn reasons_known(c: &GpuCtx) -> bool {
    !matches!(crate::source::gpu::get::reason_bit(c, 0x1), Value::Error(_))
}

/// What a sample buffer holds.
#[derive(Clone, Copy)]
pub enum SampleKind {
    /// Milliwatts, shown as watts with two decimals.
    Power,
    /// Percent.
    Percent,
    /// MHz.
    Mhz,
}

/// A sampled min/max/avg block (`-d POWER`, `UTILIZATION`, `CLOCK`): the
/// driver's sample buffer of `which`, its time span and count, and the
/// largest, smallest and mean value; every line `N/A` when NVML keeps no
/// such buffer, `Not Found` when the buffer holds no sample.
pub fn samples(c: &GpuCtx, label: &'static str, which: Sampling, kind: SampleKind) -> Node {
    let lines = |duration, count, max, min, avg, unit| {
        vec![
            Node::entry("Duration", "duration", duration, ""),
            Node::entry("Number of Samples", "number_of_samples", count, ""),
            Node::entry("Max", "max", max, unit),
            Node::entry("Min", "min", min, unit),
            Node::entry("Avg", "avg", avg, unit),
        ]
    };
    let unit = match kind {
        SampleKind::Power => " W",
        SampleKind::Percent => " %",
        SampleKind::Mhz => " MHz",
    };
    // No sample in the buffer is NVML's NOT_FOUND: "Not Found" on each line,
    // as real reports show it (510.73 A100, 520+ GeForce `-d CLOCK`).
    let values = c.call(|d| d.samples(which, None)).and_then(|v| {
        if v.is_empty() {
            Err(crate::model::NvmlCode::NOT_FOUND)
        } else {
            Ok(v)
        }
    });
    let items = match values {
        Err(code) => {
            let na = || c.err(code);
            lines(na(), na(), na(), na(), na(), unit)
        }
        Ok(v) => {
            let nums: Vec<f64> = v.iter().map(|s| sample_number(&s.value)).collect();
            let (first, last) = (v[0].timestamp, v[v.len() - 1].timestamp);
            let secs = last.saturating_sub(first) as f64 / 1e6;
            let max = nums.iter().copied().fold(f64::MIN, f64::max);
            let min = nums.iter().copied().fold(f64::MAX, f64::min);
            let avg = nums.iter().sum::<f64>() / nums.len() as f64;
            let shown = |x: f64| match kind {
                SampleKind::Power => Value::Float {
                    value: x / 1000.0,
                    decimals: 2,
                },
                SampleKind::Percent | SampleKind::Mhz => Value::Int(x as i64),
            };
            let duration = Value::text(format!("{secs:.2} sec"));
            lines(
                duration,
                Value::count(v.len() as u64),
                shown(max),
                shown(min),
                shown(avg),
                unit,
            )
        }
    };
    Node::section(label, "", items)
}

fn sample_number(v: &nvml_wrapper::enums::device::SampleValue) -> f64 {
    use nvml_wrapper::enums::device::SampleValue as S;
    match *v {
        S::F64(x) => x,
        S::U32(x) => f64::from(x),
        S::U64(x) => x as f64,
        S::I64(x) => x as f64,
    }
}

/// `<power_state>`: the performance state, deprecated from 590 on.
pub fn power_state(c: &GpuCtx) -> Value {
    if c.driver_major() >= crate::source::gpu::DEPRECATED_FROM {
        return c.err(crate::model::NvmlCode::DEPRECATED);
    }
    crate::source::gpu::get::pstate(c)
}

/// The supported clocks: in XML each `<supported_mem_clock>` with its
/// `<value>` and graphics clocks; in text (`-d SUPPORTED_CLOCKS` only) each
/// `Memory : X MHz` line with its `Graphics : Y MHz` lines under it.
/// `N/A` when NVML lists none.
pub fn supported_clocks(c: &GpuCtx, view: View) -> Node {
    let (label, xml) = ("Supported Clocks", "supported_clocks");
    let mems = match raw::supported_clocks(&c.raw(), None) {
        Ok(m) if !m.is_empty() => m,
        Ok(_) => return Node::collapsed(label, xml, Value::NotAvailable),
        Err(code) => return Node::collapsed(label, xml, c.err(code)),
    };
    let mhz = |v: u32| Value::Int(i64::from(v));
    let items = mems
        .into_iter()
        .map(|m| {
            let graphics = raw::supported_clocks(&c.raw(), Some(m)).unwrap_or_default();
            let mut clocks: Vec<Node> = graphics
                .into_iter()
                .map(|g| Node::entry("Graphics", "supported_graphics_clock", mhz(g), " MHz"))
                .collect();
            match view {
                View::Xml => {
                    clocks.insert(0, Node::entry("", "value", mhz(m), " MHz"));
                    Node::section("", "supported_mem_clock", clocks)
                }
                View::Text => Node::Section(Section {
                    label: "Memory",
                    xml: "supported_mem_clock",
                    items: clocks,
                    value: Some(Value::text(format!("{m} MHz"))),
                    width: None,
                }),
            }
        })
        .collect();
    Node::section(label, xml, items)
}

/// The label column of the process list: narrower than the report's.
const PROCESS_WIDTH: usize = 42;

/// `Remapped Rows : N/A` on GPUs without row remapping.
pub fn has_remapping(c: &GpuCtx) -> bool {
    c.remapped().is_ok()
}

/// Does the GPU count ECC errors by memory location (Volta and older)?
/// nvidia-smi then prints single- and double-bit counts per location
/// instead of the SRAM/DRAM split (the 510 Tesla P100 document; the 418.67
/// and 550.127 V100 reports; a 418 Turing document has the split).
pub fn ecc_by_location(c: &GpuCtx) -> bool {
    matches!(
        c.call(|d| d.architecture()),
        Ok(DeviceArchitecture::Kepler
            | DeviceArchitecture::Maxwell
            | DeviceArchitecture::Pascal
            | DeviceArchitecture::Volta)
    )
}

/// The ECC errors by location: volatile and aggregate, each with single-
/// and double-bit counts per memory location and their total. The element
/// names are the 510 document's; the text labels come from reports people
/// posted, not from a capture.
pub fn ecc_locations(c: &GpuCtx, _: View) -> Node {
    use crate::source::gpu::get::{ecc_counter, ecc_total};
    use nvml_wrapper::enum_wrappers::device::{EccCounter, MemoryError, MemoryLocation as L};
    const PLACES: [(&str, &str, L); 7] = [
        ("Device Memory", "device_memory", L::Device),
        ("Register File", "register_file", L::RegisterFile),
        ("L1 Cache", "l1_cache", L::L1Cache),
        ("L2 Cache", "l2_cache", L::L2Cache),
        ("Texture Memory", "texture_memory", L::Texture),
        ("Texture Shared", "texture_shm", L::Shared),
        ("CBU", "cbu", L::Cbu),
    ];
    let bits = |counter: EccCounter| {
        [
            // The text labels end in twelve spaces (the 470 and 535 reports).
            (
                "Single Bit            ",
                "single_bit",
                MemoryError::Corrected,
            ),
            (
                "Double Bit            ",
                "double_bit",
                MemoryError::Uncorrected,
            ),
        ]
        .into_iter()
        .map(|(label, xml, kind)| {
            let mut items: Vec<Node> = PLACES
                .into_iter()
                .map(|(l, x, place)| Node::entry(l, x, ecc_counter(c, kind, counter, place), ""))
                .collect();
            items.push(Node::entry(
                "Total",
                "total",
                ecc_total(c, kind, counter),
                "",
            ));
            Node::section(label, xml, items)
        })
        .collect::<Vec<_>>()
    };
    Node::section(
        "ECC Errors",
        "ecc_errors",
        vec![
            Node::section("Volatile", "volatile", bits(EccCounter::Volatile)),
            Node::section("Aggregate", "aggregate", bits(EccCounter::Aggregate)),
        ],
    )
}
