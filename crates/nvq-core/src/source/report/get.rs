//! Getters of report lines that are no `--query-gpu` field.

use crate::model::report::{Node, Section, View};
use crate::model::{Fact, Value};
use crate::nvml::raw;
use crate::source::gpu::get::not_available;
use crate::source::gpu::GpuCtx;
use nvml_wrapper::enum_wrappers::device::{Brand, Clock, TemperatureThreshold};
use nvml_wrapper::enum_wrappers::device::{
    EccCounter, GpuVirtualizationMode, MemoryError, Sampling,
};
use nvml_wrapper::enums::device::DeviceArchitecture;
use nvml_wrapper_sys::bindings::nvmlClocksEventReasonGpuIdle;

/// NVML field ids (`nvmlDeviceGetFieldValues`), nvml-wrapper's numbering.
use nvml_wrapper_sys::bindings::field_id as fi;

/// The field values the report's own getters read beside the facts':
/// outbound and inbound atomics, the reset status (before 570), power
/// smoothing (all of the GPU's scope, 0).
pub const FIELD_VALUES: &[(u32, u32)] = &[
    (fi::NVML_FI_DEV_PCIE_OUTBOUND_ATOMICS_MASK, 0),
    (fi::NVML_FI_DEV_PCIE_INBOUND_ATOMICS_MASK, 0),
    (fi::NVML_FI_DEV_RESET_STATUS, 0),
    (fi::NVML_FI_DEV_DRAIN_AND_RESET_STATUS, 0),
    (fi::NVML_FI_PWR_SMOOTHING_ENABLED, 0),
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

/// `Unrepairable Memory`: Yes/No (`No` on the H100 and H200 590 captures;
/// `N/A` on an RTX 3080, which NVML does not support).
pub fn unrepairable_memory(c: &GpuCtx) -> Value {
    c.value(raw::unrepairable_memory(&c.raw()), Value::yes_no)
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

/// `GPU Part Number`: drivers before 520 print the board's part number
/// here (`nvmlDeviceGetBoardPartNumber`: `900-2H400-6300-031` in a 510
/// document, `900-5G212-1701-000` in a 418 one) and have no `Board Part
/// Number` line. Later drivers print the chip's part number (`2335-895-A1`,
/// `20B2-895-A1`), for which nvq knows no public NVML function: `N/A`.
pub fn gpu_part_number(c: &GpuCtx) -> Value {
    if c.driver_major() < BOARD_PART_NUMBER_FROM {
        return board_part_number(c);
    }
    not_available(c)
}

/// The first driver branch with its own `Board Part Number` line (516
/// documents lack it, 525 ones have it).
const BOARD_PART_NUMBER_FROM: u32 = 520;

/// `Inforom BBX Object Flush`: the last flush's start, as nvidia-smi prints
/// its own timestamp (`2024/07/31 05:52:57.891`, local time; public 535-565
/// reports), or its duration in µs (`91568 us`). `N/A` before any flush
/// (NOT_READY: the 555 report's third GPU) or without an InfoROM.
pub fn bbx_flush(c: &GpuCtx, duration: bool) -> Value {
    c.value(raw::last_bbx_flush(&c.raw()), |(start, took)| {
        if duration {
            Value::count(took)
        } else {
            let at = std::time::UNIX_EPOCH + std::time::Duration::from_micros(start);
            Value::text(crate::source::time::format_timestamp(at))
        }
    })
}

pub fn module_id(c: &GpuCtx) -> Value {
    c.value(raw::module_id(&c.raw()), uint)
}

/// The platform's rack fields: from 580 on nvidia-smi's `-q` prints them
/// only on GPUs that sit in a rack (a chassis serial number is set);
/// elsewhere `N/A`, even where `--query-gpu` prints the zeros NVML returns
/// (the 590 and 610 captures). 570 prints what NVML returns, an empty serial
/// number included (the 570 RTX 5090 report).
pub fn rack(c: &GpuCtx, field: Fact) -> Value {
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
    let field = Fact::PlatformGpuFabricGuid;
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

/// `Host VGPU Mode`: `Non SR-IOV` or `SR-IOV` (`nvmlDeviceGetHostVgpuMode`).
pub fn host_vgpu_mode(c: &GpuCtx) -> Value {
    c.value(raw::host_vgpu_mode(&c.raw()), |m| {
        Value::text(if m == 1 { "SR-IOV" } else { "Non SR-IOV" })
    })
}

/// `vGPU Heterogeneous Mode`: Enabled/Disabled
/// (`nvmlDeviceGetVgpuHeterogeneousMode`).
pub fn vgpu_heterogeneous_mode(c: &GpuCtx) -> Value {
    c.value(raw::vgpu_heterogeneous_mode(&c.raw()), |m| {
        Value::text(if m == 1 { "Enabled" } else { "Disabled" })
    })
}

/// The first bridge chip above the GPU (`nvmlDeviceGetBridgeChipInfo`): its
/// type (`PLX`, `BR04`) or its firmware version in hexadecimal; `N/A` when
/// there is none. No public output with a bridge chip was found: the
/// spellings are unverified.
pub fn bridge_chip(c: &GpuCtx, firmware: bool) -> Value {
    use nvml_wrapper::enum_wrappers::device::BridgeChip;
    use nvml_wrapper::enums::device::FirmwareVersion;
    // nvml-wrapper returns all 128 slots; `chip_count` says how many hold a chip.
    let chip = c.call(|d| d.bridge_chip_info()).map(|h| {
        h.chips_hierarchy
            .into_iter()
            .take(usize::from(h.chip_count))
            .next()
    });
    match chip {
        Ok(Some(chip)) if firmware => match chip.fw_version {
            FirmwareVersion::Version(v) => Value::text(format!("0x{v:08X}")),
            FirmwareVersion::Unavailable => not_available(c),
        },
        Ok(Some(chip)) => Value::text(match chip.chip_type {
            BridgeChip::PLX => "PLX",
            BridgeChip::BRO4 => "BR04",
        }),
        Ok(None) => not_available(c),
        Err(code) => c.err(code),
    }
}

pub fn gsp_version(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.gsp_firmware_version()), Value::text)
}

/// `NVML_FI_DEV_PCIE_OUTBOUND_ATOMICS_MASK` or `..._INBOUND_...`: the
/// operations named, each followed by a space, as nvidia-smi prints them.
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
    c.value(
        c.field_value(
            if inbound {
                fi::NVML_FI_DEV_PCIE_INBOUND_ATOMICS_MASK
            } else {
                fi::NVML_FI_DEV_PCIE_OUTBOUND_ATOMICS_MASK
            },
            0,
        ),
        |v| {
            let mask = v.as_i64();
            let names: String = OPS
                .iter()
                .enumerate()
                .filter(|(bit, _)| mask & (1 << bit) != 0)
                .map(|(_, op)| format!("{op} "))
                .collect();
            Value::text(names)
        },
    )
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
            xml_flat: false,
        }));
    }
    Node::Section(Section {
        label: "Processes",
        xml: "processes",
        value: None,
        items,
        width: Some(PROCESS_WIDTH),
        xml_flat: false,
    })
}

/// The MIG devices of a GPU in MIG mode: in XML `<mig_devices>` with one
/// `<mig_device>` each, or `None`; in text nothing without MIG devices (the
/// captures of 590 and 610 have no line for them), else a `MIG Devices`
/// section (drivers before 580) or the `MIG Device` blocks themselves, their
/// memory named "Shared" (580 on).
///
/// Public sources: the XML elements up to `<fb_memory_usage>` of a 575
/// document (a project's parser, trimmed); the v13 elements as GuanceCloud
/// datakit's schema of real documents has them (`ecc_error_count`,
/// `volatile_count`, `sram_uncorrectable`, `bar1_memory_usage`); a 580-on
/// text excerpt (a user's notes: `MIG Device`, `Shared FB Memory Usage`,
/// `Shared BAR1 Memory`). The older text layout is unverified.
pub fn mig_devices(c: &GpuCtx, view: View) -> Vec<Node> {
    let devices = mig_device_nodes(c, view);
    match view {
        View::Xml if devices.is_empty() => vec![Node::section(
            "",
            "mig_devices",
            vec![Node::Bare(Value::text("None"))],
        )],
        View::Xml => {
            // nvidia-smi writes each `<mig_device>` one level inside
            // `<mig_devices>` before 580 (Telegraf's real A100 535
            // document) and at its depth from 580 on (a 580 document of
            // NVIDIA's k8s-test-infra).
            vec![Node::Section(Section {
                label: "MIG Devices",
                xml: "mig_devices",
                items: devices,
                value: None,
                width: None,
                xml_flat: c.driver_major() >= FLAT_MIG_XML_FROM,
            })]
        }
        View::Text if devices.is_empty() => Vec::new(),
        View::Text if c.driver_major() >= SHARED_MEMORY_FROM => devices,
        View::Text => vec![Node::section("MIG Devices", "mig_devices", devices)],
    }
}

/// From 580 on nvidia-smi names a MIG device's memory "Shared".
const SHARED_MEMORY_FROM: u32 = 580;
/// From 580 on nvidia-smi's XML has each `<mig_device>` at the depth of
/// `<mig_devices>`.
const FLAT_MIG_XML_FROM: u32 = 580;

fn mig_device_nodes(c: &GpuCtx, view: View) -> Vec<Node> {
    let Ok(parent) = c.dev() else {
        return Vec::new();
    };
    let shared = c.driver_major() >= SHARED_MEMORY_FROM;
    let mut out = Vec::new();
    for m in crate::source::listing::mig_devices(parent) {
        let raw_dev = raw::Dev::of(c.session, &m);
        let id = |r: Result<u32, crate::model::NvmlCode>| c.value(r, uint);
        let attrs = m.attributes().map_err(crate::model::NvmlCode::from);
        let attr = |pick: fn(&nvml_wrapper::struct_wrappers::device::DeviceAttributes) -> u32| {
            match &attrs {
                Ok(a) => uint(pick(a)),
                Err(code) => c.err(*code),
            }
        };
        let mem = m.memory_info().map_err(crate::model::NvmlCode::from);
        let mib = |pick: fn(&nvml_wrapper::struct_wrappers::device::MemoryInfo) -> u64| match &mem {
            Ok(v) => Value::Bytes(pick(v)),
            Err(code) => c.err(*code),
        };
        let bar = m.bar1_memory_info().map_err(crate::model::NvmlCode::from);
        let bar1 =
            |pick: fn(&nvml_wrapper::struct_wrappers::device::BAR1MemoryInfo) -> u64| match &bar {
                Ok(v) => Value::Bytes(pick(v)),
                Err(code) => c.err(*code),
            };
        let mut items = vec![
            // nvidia-smi's index of a MIG device is NVML's index of its
            // handle (the parent's in k8s-test-infra's documents).
            Node::entry(
                "Index",
                "index",
                c.value(m.index().map_err(crate::model::NvmlCode::from), uint),
                "",
            ),
            Node::entry(
                "GPU Instance ID",
                "gpu_instance_id",
                id(raw::gpu_instance_id(&raw_dev)),
                "",
            ),
            Node::entry(
                "Compute Instance ID",
                "compute_instance_id",
                id(raw::compute_instance_id(&raw_dev)),
                "",
            ),
            Node::section(
                "Device Attributes",
                "device_attributes",
                vec![Node::section(
                    "Shared",
                    "shared",
                    vec![
                        Node::entry(
                            "Multiprocessor count",
                            "multiprocessor_count",
                            attr(|a| a.multiprocessor_count),
                            "",
                        ),
                        Node::entry(
                            "Copy Engine count",
                            "copy_engine_count",
                            attr(|a| a.shared_copy_engine_count),
                            "",
                        ),
                        Node::entry(
                            "Encoder count",
                            "encoder_count",
                            attr(|a| a.shared_encoder_count),
                            "",
                        ),
                        Node::entry(
                            "Decoder count",
                            "decoder_count",
                            attr(|a| a.shared_decoder_count),
                            "",
                        ),
                        Node::entry("OFA count", "ofa_count", attr(|a| a.shared_ofa_count), ""),
                        Node::entry("JPG count", "jpg_count", attr(|a| a.shared_jpeg_count), ""),
                    ],
                )],
            ),
        ];
        // The volatile uncorrected count, where the MIG device keeps one;
        // elsewhere the text view has no ECC block, the XML view `N/A`.
        match m.total_ecc_errors(MemoryError::Uncorrected, EccCounter::Volatile) {
            Ok(n) => items.push(Node::section(
                "ECC Errors",
                "ecc_error_count",
                vec![Node::section(
                    "Volatile",
                    "volatile_count",
                    vec![Node::entry(
                        "SRAM Uncorrectable",
                        "sram_uncorrectable",
                        Value::count(n),
                        "",
                    )],
                )],
            )),
            Err(e) if view == View::Xml => items.push(Node::collapsed(
                "ECC Errors",
                "ecc_error_count",
                c.err(crate::model::NvmlCode::from(&e)),
            )),
            Err(_) => {}
        }
        let (fb_label, bar1_label) = if shared {
            ("Shared FB Memory Usage", "Shared BAR1 Memory")
        } else {
            ("FB Memory Usage", "BAR1 Memory Usage")
        };
        items.push(Node::section(
            fb_label,
            "fb_memory_usage",
            vec![
                Node::entry("Total", "total", mib(|v| v.total), " MiB"),
                Node::entry("Reserved", "reserved", mib(|v| v.reserved), " MiB"),
                Node::entry("Used", "used", mib(|v| v.used), " MiB"),
                Node::entry("Free", "free", mib(|v| v.free), " MiB"),
            ],
        ));
        items.push(Node::section(
            bar1_label,
            "bar1_memory_usage",
            vec![
                Node::entry("Total", "total", bar1(|v| v.total), " MiB"),
                Node::entry("Used", "used", bar1(|v| v.used), " MiB"),
                Node::entry("Free", "free", bar1(|v| v.free), " MiB"),
            ],
        ));
        out.push(Node::section("MIG Device", "mig_device", items));
    }
    out
}

/// The accounted processes (`nvmlDeviceGetAccountingPids`,
/// `...GetAccountingStats`): in XML one `<accounted_process_info>` each, with
/// the elements of a real 460 document (GuanceCloud datakit's test data);
/// in text (`-d ACCOUNTING` only) `Accounted Processes : None` as a 525
/// output shows, or a `Process ID` block each with its utilizations, largest
/// memory use, time and whether it still runs, as a 580 output shows (Mila's
/// documentation).
pub fn accounted_processes(c: &GpuCtx, view: View) -> Node {
    let pids = c.call(|d| d.accounting_pids()).unwrap_or_default();
    let mut items = Vec::new();
    for pid in pids {
        // A process gone between the two calls is left out.
        let Ok(s) = c.call(|d| d.accounting_stats_for(pid)) else {
            continue;
        };
        let pct = |v: Option<u32>| v.map_or_else(|| not_available(c), uint);
        let max = s
            .max_memory_usage
            .map_or_else(|| not_available(c), Value::Bytes);
        let time = Value::Int(i64::try_from(s.time).unwrap_or(i64::MAX));
        let stats = vec![
            Node::entry("GPU Utilization", "gpu_util", pct(s.gpu_utilization), " %"),
            Node::entry(
                "Memory Utilization",
                "memory_util",
                pct(s.memory_utilization),
                " %",
            ),
            Node::entry("Max memory usage", "max_memory_usage", max, " MiB"),
            Node::entry("Time", "time", time, " ms"),
            Node::entry(
                "Is Running",
                "is_running",
                Value::Int(i64::from(s.is_running)),
                "",
            ),
        ];
        items.push(match view {
            View::Xml => {
                let mut all = vec![Node::entry("", "pid", uint(pid), "")];
                all.extend(stats);
                Node::section("", "accounted_process_info", all)
            }
            View::Text => Node::Section(Section {
                label: "Process ID",
                xml: "pid",
                value: Some(uint(pid)),
                items: stats,
                width: None,
                xml_flat: false,
            }),
        });
    }
    let (label, xml) = ("Accounted Processes", "accounted_processes");
    if items.is_empty() && view == View::Text {
        return Node::collapsed(label, xml, Value::text("None"));
    }
    Node::section(label, xml, items)
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

/// The reset status of drivers 535 to 579: `NVML_FI_DEV_RESET_STATUS`
/// or `NVML_FI_DEV_DRAIN_AND_RESET_STATUS` as Yes/No (the 535 documents
/// show both); deprecated from 570 on (the 570 document).
pub fn reset_status(c: &GpuCtx, drain: bool) -> Value {
    if c.driver_major() >= 570 {
        return c.err(crate::model::NvmlCode::DEPRECATED);
    }
    let id = if drain {
        fi::NVML_FI_DEV_DRAIN_AND_RESET_STATUS
    } else {
        fi::NVML_FI_DEV_RESET_STATUS
    };
    c.value(c.field_value(id, 0), |v| {
        Value::text(if v.as_i64() == 0 { "No" } else { "Yes" })
    })
}

/// Does NVML report clocks event reasons for this GPU?
pub fn reasons_known(c: &GpuCtx) -> bool {
    !matches!(
        crate::source::gpu::get::reason_bit(c, u64::from(nvmlClocksEventReasonGpuIdle)),
        Value::Error(_)
    )
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

/// `Power Smoothing`: `NVML_FI_PWR_SMOOTHING_ENABLED`, `Enabled` or
/// `Disabled`; a failure prints its message, as a 580 B200 document shows
/// (`<power_smoothing>Insufficient Permissions</power_smoothing>`, NVIDIA's
/// k8s-test-infra). No output with a value was found: the two words are
/// unverified.
pub fn power_smoothing(c: &GpuCtx) -> Value {
    c.value(c.field_value(fi::NVML_FI_PWR_SMOOTHING_ENABLED, 0), |v| {
        Value::text(if v.as_i64() != 0 {
            "Enabled"
        } else {
            "Disabled"
        })
    })
}

/// `Workload Power Profiles`: the requested (or enforced) profiles by
/// NVML's names (`MAX_P`, `MAX_Q`, `COMPUTE`, ...; an id this list lacks by
/// its number), each followed by a space as nvidia-smi writes the atomic
/// caps; `N/A` when none is set or NVML does not support them (the 570-595
/// documents and captures, Blackwell B200/GB200/GB300 580 ones included,
/// print `N/A`). UNVERIFIED: no public output with a profile set was found,
/// so the names, their separator and the empty case are nvq's guess.
pub fn power_profiles(c: &GpuCtx, enforced: bool) -> Value {
    match raw::power_profiles(&c.raw()) {
        Ok((requested, enforced_ids)) => {
            let ids = if enforced { enforced_ids } else { requested };
            if ids.is_empty() {
                return not_available(c);
            }
            Value::text(
                ids.iter()
                    .map(|&id| match power_profile_name(id) {
                        Some(name) => format!("{name} "),
                        None => format!("{id} "),
                    })
                    .collect::<String>(),
            )
        }
        Err(code) => c.err(code),
    }
}

/// NVML's name of a workload power profile id, without its
/// `NVML_POWER_PROFILE_` prefix; `None` for an id this header lacks.
fn power_profile_name(id: u32) -> Option<&'static str> {
    const NAMES: [&str; 15] = [
        "MAX_P",
        "MAX_Q",
        "COMPUTE",
        "MEMORY_BOUND",
        "NETWORK",
        "BALANCED",
        "LLM_INFERENCE",
        "LLM_TRAINING",
        "RBM",
        "DCPCIE",
        "HMMA_SPARSE",
        "HMMA_DENSE",
        "SYNC_BALANCED",
        "HPC",
        "MIG",
    ];
    NAMES.get(id as usize).copied()
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
                    xml_flat: false,
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
/// and 550.127 V100 reports; a 418 Turing document has the split). A
/// driver without `nvmlDeviceGetArchitecture` (before R450) is answered by
/// the compute capability: below 7.5 (Turing) by location.
pub fn ecc_by_location(c: &GpuCtx) -> bool {
    match c.call(|d| d.architecture()) {
        Ok(a) => matches!(
            a,
            DeviceArchitecture::Kepler
                | DeviceArchitecture::Maxwell
                | DeviceArchitecture::Pascal
                | DeviceArchitecture::Volta
        ),
        Err(_) => c
            .call(|d| d.cuda_compute_capability())
            .is_ok_and(|cc| (cc.major, cc.minor) < (7, 5)),
    }
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
