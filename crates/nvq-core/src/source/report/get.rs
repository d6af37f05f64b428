//! What the report builds itself beside its lines of facts: blocks of
//! several lines (processes, MIG devices, accounted processes, sample
//! buffers, supported clocks, ECC by location) and the lines whose value
//! depends on the driver (part number, rack, reset status, power state),
//! read through the catalogue (`GpuCtx::fact` and `source::gpu::read`).

use crate::model::report::{Node, Section, View};
use crate::model::{Fact, NvmlCode, Value};
use crate::nvml::raw;
use crate::source::gpu::get::not_available;
use crate::source::gpu::{read, GpuCtx};
use nvml_wrapper::enum_wrappers::device::Sampling;
use nvml_wrapper::struct_wrappers::device::DeviceAttributes;
use nvml_wrapper_sys::bindings::nvmlClocksEventReasonGpuIdle;

fn uint(v: u32) -> Value {
    Value::Int(i64::from(v))
}

/// A line nvq has no NVML source for: `N/A`, never an invented value.
pub fn none(c: &GpuCtx) -> Value {
    not_available(c)
}

/// `GPU Part Number`: drivers before 520 print the board's part number
/// here (`nvmlDeviceGetBoardPartNumber`: `900-2H400-6300-031` in a 510
/// document, `900-5G212-1701-000` in a 418 one) and have no `Board Part
/// Number` line. Later drivers print the chip's part number (`2335-895-A1`,
/// `20B2-895-A1`), for which nvq knows no public NVML function: `N/A`.
pub fn gpu_part_number(c: &GpuCtx) -> Value {
    if c.driver_major() < BOARD_PART_NUMBER_FROM {
        return c.fact(Fact::BoardPartNumber);
    }
    not_available(c)
}

/// The first driver branch with its own `Board Part Number` line (516
/// documents lack it, 525 ones have it).
const BOARD_PART_NUMBER_FROM: u32 = 520;

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

/// `Processes : None`, or one block per process; in XML one
/// `<process_info>` each.
pub fn processes(c: &GpuCtx, view: View) -> Node {
    if c.handle().is_err() {
        return Node::collapsed("Processes", "processes", not_available(c));
    }
    let procs = crate::source::smi_table::process_summaries(&c.raw(), c.index);
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

/// One of a MIG device's attributes.
type Attribute = fn(&DeviceAttributes) -> u32;

/// A MIG device's shared engines, as `-q` lists them: label, XML element
/// and the attribute.
const SHARED_ATTRIBUTES: [(&str, &str, Attribute); 6] = [
    ("Multiprocessor count", "multiprocessor_count", |a| {
        a.multiprocessor_count
    }),
    ("Copy Engine count", "copy_engine_count", |a| {
        a.shared_copy_engine_count
    }),
    ("Encoder count", "encoder_count", |a| a.shared_encoder_count),
    ("Decoder count", "decoder_count", |a| a.shared_decoder_count),
    ("OFA count", "ofa_count", |a| a.shared_ofa_count),
    ("JPG count", "jpg_count", |a| a.shared_jpeg_count),
];

/// From 580 on nvidia-smi names a MIG device's memory "Shared".
const SHARED_MEMORY_FROM: u32 = 580;
/// From 580 on nvidia-smi's XML has each `<mig_device>` at the depth of
/// `<mig_devices>`.
const FLAT_MIG_XML_FROM: u32 = 580;

fn mig_device_nodes(c: &GpuCtx, view: View) -> Vec<Node> {
    let shared = c.driver_major() >= SHARED_MEMORY_FROM;
    let mut out = Vec::new();
    for m in raw::mig_devices(&c.raw()) {
        let r = raw::mig_device(&m);
        let id = |r: Result<u32, NvmlCode>| c.value(r, uint);
        let attr =
            |pick: fn(&nvml_wrapper::struct_wrappers::device::DeviceAttributes) -> u32| match &r
                .attributes
            {
                Ok(a) => uint(pick(a)),
                Err(code) => c.err(*code),
            };
        let mib =
            |pick: fn(&nvml_wrapper::struct_wrappers::device::MemoryInfo) -> u64| match &r.memory {
                Ok(v) => Value::Bytes(pick(v)),
                Err(code) => c.err(*code),
            };
        let bar1 =
            |pick: fn(&nvml_wrapper::struct_wrappers::device::BAR1MemoryInfo) -> u64| match &r.bar1
            {
                Ok(v) => Value::Bytes(pick(v)),
                Err(code) => c.err(*code),
            };
        let mut items = vec![
            // nvidia-smi's index of a MIG device is NVML's index of its
            // handle (the parent's in k8s-test-infra's documents).
            Node::entry("Index", "index", id(r.index), ""),
            Node::entry("GPU Instance ID", "gpu_instance_id", id(r.gpu_instance), ""),
            Node::entry(
                "Compute Instance ID",
                "compute_instance_id",
                id(r.compute_instance),
                "",
            ),
            Node::section(
                "Device Attributes",
                "device_attributes",
                vec![Node::section(
                    "Shared",
                    "shared",
                    SHARED_ATTRIBUTES
                        .iter()
                        .map(|&(label, xml, pick)| Node::entry(label, xml, attr(pick), ""))
                        .collect(),
                )],
            ),
        ];
        // The volatile uncorrected count, where the MIG device keeps one;
        // elsewhere the text view has no ECC block, the XML view `N/A`.
        match r.sram_uncorrected {
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
            Err(code) if view == View::Xml => items.push(Node::collapsed(
                "ECC Errors",
                "ecc_error_count",
                c.err(code),
            )),
            Err(_) => {}
        }
        let (fb_label, bar1_label) = if shared {
            ("Shared FB Memory Usage", "Shared BAR1 Memory")
        } else {
            ("FB Memory Usage", "BAR1 Memory Usage")
        };
        // A block of sizes in MiB: each line's label, XML element and value.
        let usage = |label, xml, lines: Vec<(&'static str, &'static str, Value)>| {
            let entries = lines
                .into_iter()
                .map(|(l, x, v)| Node::entry(l, x, v, " MiB"));
            Node::section(label, xml, entries.collect())
        };
        let fb = vec![
            ("Total", "total", mib(|v| v.total)),
            ("Reserved", "reserved", mib(|v| v.reserved)),
            ("Used", "used", mib(|v| v.used)),
            ("Free", "free", mib(|v| v.free)),
        ];
        items.push(usage(fb_label, "fb_memory_usage", fb));
        let bar = vec![
            ("Total", "total", bar1(|v| v.total)),
            ("Used", "used", bar1(|v| v.used)),
            ("Free", "free", bar1(|v| v.free)),
        ];
        items.push(usage(bar1_label, "bar1_memory_usage", bar));
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
    let pids = read::accounting_pids(c).unwrap_or_default();
    let mut items = Vec::new();
    for pid in pids {
        // A process gone between the two calls is left out.
        let Ok(s) = read::accounting_stats(c, pid) else {
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
    match c.retired_pages(cause) {
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

/// The reset status of drivers 535 to 579: `NVML_FI_DEV_RESET_STATUS`
/// or `NVML_FI_DEV_DRAIN_AND_RESET_STATUS` as Yes/No (the 535 documents
/// show both); deprecated from 570 on (the 570 document).
pub fn reset_status(c: &GpuCtx, drain: bool) -> Value {
    if c.driver_major() >= 570 {
        return c.err(NvmlCode::DEPRECATED);
    }
    c.fact(if drain {
        Fact::ResetStatusDrainAndResetRecommended
    } else {
        Fact::ResetStatusResetRequired
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
    let values = read::samples(c, which).and_then(|v| {
        if v.is_empty() {
            Err(NvmlCode::NOT_FOUND)
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
        return c.err(NvmlCode::DEPRECATED);
    }
    crate::source::gpu::get::pstate(c)
}

/// The supported clocks: in XML each `<supported_mem_clock>` with its
/// `<value>` and graphics clocks; in text (`-d SUPPORTED_CLOCKS` only) each
/// `Memory : X MHz` line with its `Graphics : Y MHz` lines under it.
/// `N/A` when NVML lists none.
pub fn supported_clocks(c: &GpuCtx, view: View) -> Node {
    let (label, xml) = ("Supported Clocks", "supported_clocks");
    let mems = match read::supported_clocks(c, None) {
        Ok(m) if !m.is_empty() => m,
        Ok(_) => return Node::collapsed(label, xml, Value::NotAvailable),
        Err(code) => return Node::collapsed(label, xml, c.err(code)),
    };
    let mhz = |v: u32| Value::Int(i64::from(v));
    let items = mems
        .into_iter()
        .map(|m| {
            let graphics = read::supported_clocks(c, Some(m)).unwrap_or_default();
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
    match c.fact(Fact::Architecture) {
        Value::Text(a) => matches!(a.as_str(), "Kepler" | "Maxwell" | "Pascal" | "Volta"),
        _ => match c.fact(Fact::ComputeCap) {
            Value::Text(cc) => cc
                .split_once('.')
                .and_then(|(major, minor)| {
                    Some((major.parse::<u32>().ok()?, minor.parse::<u32>().ok()?))
                })
                .is_some_and(|cc| cc < (7, 5)),
            _ => false,
        },
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
