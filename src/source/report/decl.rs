//! The report as data: every section and line of `nvidia-smi -q`, in
//! nvidia-smi's order, each with the `-d` types that show it.

use super::get::{self as g, none};
use super::{Decl, Read};
use crate::source::gpu::GpuCtx;
use nvml_wrapper::enum_wrappers::device::TemperatureThreshold as T;

/// The `-d` types (`--display=`), as nvidia-smi names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Display {
    Memory,
    Utilization,
    Ecc,
    Temperature,
    Power,
    Clock,
    Compute,
    Pids,
    Performance,
    SupportedClocks,
    PageRetirement,
    Accounting,
    EncoderStats,
    SupportedGpuTargetTemp,
    Voltage,
    FbcStats,
    RowRemapper,
    GspFirmwareVersion,
    PowerSmoothing,
    PowerProfiles,
}

/// Each `-d` type and its name on the command line.
pub const DISPLAY_NAMES: &[(Display, &str)] = &[
    (Display::Memory, "MEMORY"),
    (Display::Utilization, "UTILIZATION"),
    (Display::Ecc, "ECC"),
    (Display::Temperature, "TEMPERATURE"),
    (Display::Power, "POWER"),
    (Display::Clock, "CLOCK"),
    (Display::Compute, "COMPUTE"),
    (Display::Pids, "PIDS"),
    (Display::Performance, "PERFORMANCE"),
    (Display::SupportedClocks, "SUPPORTED_CLOCKS"),
    (Display::PageRetirement, "PAGE_RETIREMENT"),
    (Display::Accounting, "ACCOUNTING"),
    (Display::EncoderStats, "ENCODER_STATS"),
    (Display::SupportedGpuTargetTemp, "SUPPORTED_GPU_TARGET_TEMP"),
    (Display::Voltage, "VOLTAGE"),
    (Display::FbcStats, "FBC_STATS"),
    (Display::RowRemapper, "ROW_REMAPPER"),
    (Display::GspFirmwareVersion, "GSP_FIRMWARE_VERSION"),
    (Display::PowerSmoothing, "POWER_SMOOTHING"),
    (Display::PowerProfiles, "POWER_PROFILES"),
];

/// From 610 on nvidia-smi names the driver version "KMD Version" and splits
/// the power limits into ceiling and base power.
pub const KMD_NAMED_FROM: u32 = 610;

const fn q(label: &'static str, field: &'static str, unit: &'static str) -> Decl {
    Decl::Entry {
        label,
        unit,
        read: Read::Field(field),
    }
}

const fn f(
    label: &'static str,
    read: fn(&GpuCtx) -> crate::model::Value,
    unit: &'static str,
) -> Decl {
    Decl::Entry {
        label,
        unit,
        read: Read::Fn(read),
    }
}

const fn s(label: &'static str, items: &'static [Decl]) -> Decl {
    Decl::Section { label, items }
}

const MIB: &str = " MiB";
const W: &str = " W";
const MHZ: &str = " MHz";
const PCT: &str = " %";
const C: &str = " C";
const US: &str = " us";

use Display as D;

/// Lines shown by every `-d` type: none (the whole report only).
const ALL: &[Display] = &[];

/// The GPU's part of the report: (the `-d` types that show it, its lines).
pub static GPU: &[(&[Display], &[Decl])] = &[
    (
        ALL,
        &[
            q("Product Name", "name", ""),
            f("Product Brand", g::brand, ""),
            f("Product Architecture", g::architecture, ""),
            q("Display Mode", "display_mode", ""),
            q("Display Attached", "display_attached", ""),
            q("Display Active", "display_active", ""),
            q("Persistence Mode", "persistence_mode", ""),
            q("Addressing Mode", "addressing_mode", ""),
            s(
                "MIG Mode",
                &[
                    q("Current", "mig.mode.current", ""),
                    q("Pending", "mig.mode.pending", ""),
                ],
            ),
        ],
    ),
    (
        &[D::Accounting],
        &[
            q("Accounting Mode", "accounting.mode", ""),
            q("Accounting Mode Buffer Size", "accounting.buffer_size", ""),
        ],
    ),
    (
        ALL,
        &[
            s(
                "Driver Model",
                &[
                    q("Current", "driver_model.current", ""),
                    q("Pending", "driver_model.pending", ""),
                ],
            ),
            q("Serial Number", "serial", ""),
            q("GPU UUID", "uuid", ""),
            f("GPU PDI", g::pdi, ""),
            f("Minor Number", g::minor_number, ""),
            q("VBIOS Version", "vbios_version", ""),
            f("MultiGPU Board", g::multi_gpu_board, ""),
            f("Board ID", g::board_id, ""),
            f("Board Part Number", g::board_part_number, ""),
            f("GPU Part Number", none, ""),
            f("FRU Part Number", none, ""),
            s(
                "Platform Info",
                &[
                    f(
                        "Chassis Serial Number",
                        |c| g::rack(c, "platform.chassis_serial_number"),
                        "",
                    ),
                    f("Slot Number", |c| g::rack(c, "platform.slot_number"), ""),
                    f("Tray Index", |c| g::rack(c, "platform.tray_index"), ""),
                    f("Host ID", |c| g::rack(c, "platform.host_id"), ""),
                    f("Peer Type", |c| g::rack(c, "platform.peer_type"), ""),
                    f("Module Id", g::module_id, ""),
                    f(
                        "GPU Fabric GUID",
                        |c| g::rack(c, "platform.gpu_fabric_guid"),
                        "",
                    ),
                ],
            ),
            s(
                "Inforom Version",
                &[
                    q("Image Version", "inforom.img", ""),
                    q("OEM Object", "inforom.oem", ""),
                    q("ECC Object", "inforom.ecc", ""),
                    q("Power Management Object", "inforom.pwr", ""),
                ],
            ),
            s(
                "Inforom BBX Object Flush",
                &[
                    f("Latest Timestamp", none, ""),
                    f("Latest Duration", none, ""),
                ],
            ),
            Decl::Pick(|c| {
                if c.driver_major() >= KMD_NAMED_FROM {
                    INFOROM_TIME
                } else {
                    &[]
                }
            }),
            s(
                "GPU Operation Mode",
                &[
                    q("Current", "gom.current", ""),
                    q("Pending", "gom.pending", ""),
                ],
            ),
            q("GPU C2C Mode", "c2c.mode", ""),
            s(
                "GPU Virtualization Mode",
                &[
                    f("Virtualization Mode", g::virtualization, ""),
                    f("Host VGPU Mode", none, ""),
                    f("vGPU Heterogeneous Mode", none, ""),
                ],
            ),
            q("GPU Recovery Action", "gpu_recovery_action", ""),
        ],
    ),
    (
        &[D::GspFirmwareVersion],
        &[f("GSP Firmware Version", g::gsp_version, "")],
    ),
    (
        ALL,
        &[
            s("IBMNPU", &[f("Relaxed Ordering Mode", none, "")]),
            s(
                "PCI",
                &[
                    q("Bus", "pci.bus", ""),
                    q("Device", "pci.device", ""),
                    q("Domain", "pci.domain", ""),
                    Decl::Pick(|c| if c.pci_ext().is_ok() { CLASS } else { &[] }),
                    q("Device Id", "pci.device_id", ""),
                    q("Bus Id", "pci.bus_id", ""),
                    q("Sub System Id", "pci.sub_device_id", ""),
                    s(
                        "GPU Link Info",
                        &[
                            s(
                                "PCIe Generation",
                                &[
                                    q("Max", "pcie.link.gen.max", ""),
                                    q("Current", "pcie.link.gen.current", ""),
                                    q("Device Current", "pcie.link.gen.gpucurrent", ""),
                                    q("Device Max", "pcie.link.gen.gpumax", ""),
                                    q("Host Max", "pcie.link.gen.hostmax", ""),
                                ],
                            ),
                            s(
                                "Link Width",
                                &[
                                    q("Max", "pcie.link.width.max", "x"),
                                    q("Current", "pcie.link.width.current", "x"),
                                ],
                            ),
                        ],
                    ),
                    s(
                        "Bridge Chip",
                        &[f("Type", none, ""), f("Firmware", none, "")],
                    ),
                    f("Replays Since Reset", g::replays, ""),
                    f("Replay Number Rollovers", g::replay_rollovers, ""),
                    f("Tx Throughput", g::pcie_tx, " KB/s"),
                    f("Rx Throughput", g::pcie_rx, " KB/s"),
                    f("Atomic Caps Outbound", |c| g::atomics(c, false), ""),
                    f("Atomic Caps Inbound", |c| g::atomics(c, true), ""),
                ],
            ),
            q("Fan Speed", "fan.speed", PCT),
        ],
    ),
    (
        &[D::Performance],
        &[
            q("Performance State", "pstate", ""),
            s(
                "Clocks Event Reasons",
                &[
                    q("Idle", "clocks_event_reasons.gpu_idle", ""),
                    q(
                        "Applications Clocks Setting",
                        "clocks_event_reasons.applications_clocks_setting",
                        "",
                    ),
                    q("SW Power Cap", "clocks_event_reasons.sw_power_cap", ""),
                    Decl::Build(|c| super::hw_slowdown(c)),
                    q("Sync Boost", "clocks_event_reasons.sync_boost", ""),
                    q(
                        "SW Thermal Slowdown",
                        "clocks_event_reasons.sw_thermal_slowdown",
                        "",
                    ),
                    f(
                        "Display Clock Setting",
                        |c| crate::source::gpu::get::reason_bit(c, 0x100),
                        "",
                    ),
                ],
            ),
            s(
                "Clocks Event Reasons Counters",
                &[
                    q(
                        "SW Power Capping",
                        "clocks_event_reasons_counters.sw_power_cap",
                        US,
                    ),
                    q("Sync Boost", "clocks_event_reasons_counters.sync_boost", US),
                    q(
                        "SW Thermal Slowdown",
                        "clocks_event_reasons_counters.sw_thermal_slowdown",
                        US,
                    ),
                    q(
                        "HW Thermal Slowdown",
                        "clocks_event_reasons_counters.hw_thermal_slowdown",
                        US,
                    ),
                    q(
                        "HW Power Braking",
                        "clocks_event_reasons_counters.hw_power_brake_slowdown",
                        US,
                    ),
                ],
            ),
        ],
    ),
    (ALL, &[f("Sparse Operation Mode", none, "")]),
    (
        &[D::Memory],
        &[
            s(
                "FB Memory Usage",
                &[
                    q("Total", "memory.total", MIB),
                    q("Reserved", "memory.reserved", MIB),
                    q("Used", "memory.used", MIB),
                    q("Free", "memory.free", MIB),
                ],
            ),
            s(
                "BAR1 Memory Usage",
                &[
                    f("Total", |c| g::bar1(c, |m| m.total), MIB),
                    f("Used", |c| g::bar1(c, |m| m.used), MIB),
                    f("Free", |c| g::bar1(c, |m| m.free), MIB),
                ],
            ),
            s(
                "Conf Compute Protected Memory Usage",
                &[
                    q("Total", "protected_memory.total", MIB),
                    q("Used", "protected_memory.used", MIB),
                    q("Free", "protected_memory.free", MIB),
                ],
            ),
        ],
    ),
    (&[D::Compute], &[q("Compute Mode", "compute_mode", "")]),
    (
        &[D::Utilization],
        &[s(
            "Utilization",
            &[
                q("GPU", "utilization.gpu", PCT),
                q("Memory", "utilization.memory", PCT),
                q("Encoder", "utilization.encoder", PCT),
                q("Decoder", "utilization.decoder", PCT),
                q("JPEG", "utilization.jpeg", PCT),
                q("OFA", "utilization.ofa", PCT),
            ],
        )],
    ),
    (
        &[D::EncoderStats],
        &[s(
            "Encoder Stats",
            &[
                q("Active Sessions", "encoder.stats.sessionCount", ""),
                q("Average FPS", "encoder.stats.averageFps", ""),
                q("Average Latency", "encoder.stats.averageLatency", ""),
            ],
        )],
    ),
    (
        &[D::FbcStats],
        &[s(
            "FBC Stats",
            &[
                f("Active Sessions", |c| g::fbc(c, |s| s.sessions_count), ""),
                f("Average FPS", |c| g::fbc(c, |s| s.average_fps), ""),
                f("Average Latency", |c| g::fbc(c, |s| s.average_latency), ""),
            ],
        )],
    ),
    (
        ALL,
        &[s(
            "DRAM Encryption Mode",
            &[
                q("Current", "dramEncryption.mode.current", ""),
                q("Pending", "dramEncryption.mode.pending", ""),
            ],
        )],
    ),
    (
        &[D::Ecc],
        &[
            s(
                "ECC Mode",
                &[
                    q("Current", "ecc.mode.current", ""),
                    q("Pending", "ecc.mode.pending", ""),
                ],
            ),
            Decl::Pick(|c| {
                if c.sram().is_ok() {
                    ECC_SRAM
                } else {
                    ECC_PLAIN
                }
            }),
        ],
    ),
    (
        &[D::PageRetirement],
        &[s(
            "Retired Pages",
            &[
                q("Single Bit ECC", "retired_pages.single_bit_ecc.count", ""),
                q("Double Bit ECC", "retired_pages.double_bit.count", ""),
                q("Pending Page Blacklist", "retired_pages.pending", ""),
            ],
        )],
    ),
    (
        &[D::RowRemapper],
        &[Decl::Pick(|c| {
            if g::has_remapping(c) {
                REMAPPED
            } else {
                NO_REMAPPING
            }
        })],
    ),
    (
        &[D::Temperature],
        &[Decl::Pick(
            |c| if tlimit(c) { TEMP_TLIMIT } else { TEMP_PLAIN },
        )],
    ),
    (
        &[D::Power],
        &[
            Decl::Pick(|c| {
                if c.driver_major() >= KMD_NAMED_FROM {
                    POWER_610
                } else {
                    POWER_590
                }
            }),
            s(
                "GPU Memory Power Readings ",
                &[
                    f("Average Power Draw", |c| g::memory_power(c, false), W),
                    f("Instantaneous Power Draw", |c| g::memory_power(c, true), W),
                ],
            ),
            s(
                "Module Power Readings",
                &[
                    q("Average Power Draw", "module.power.draw.average", W),
                    q("Instantaneous Power Draw", "module.power.draw.instant", W),
                    q("Current Power Limit", "module.enforced.power.limit", W),
                    q("Requested Power Limit", "module.power.limit", W),
                    q("Default Power Limit", "module.power.default_limit", W),
                    q("Min Power Limit", "module.power.min_limit", W),
                    q("Max Power Limit", "module.power.max_limit", W),
                ],
            ),
        ],
    ),
    (&[D::PowerSmoothing], &[f("Power Smoothing", none, "")]),
    (
        &[D::PowerProfiles],
        &[s(
            "Workload Power Profiles",
            &[
                f("Requested Profiles", none, ""),
                f("Enforced Profiles", none, ""),
            ],
        )],
    ),
    (&[D::Power], &[q("EDPp Multiplier", "edpp_multiplier", "%")]),
    (
        &[D::Clock],
        &[
            s(
                "Clocks",
                &[
                    q("Graphics", "clocks.current.graphics", MHZ),
                    q("SM", "clocks.current.sm", MHZ),
                    q("Memory", "clocks.current.memory", MHZ),
                    q("Video", "clocks.current.video", MHZ),
                ],
            ),
            s(
                "Applications Clocks",
                &[
                    q("Graphics", "clocks.applications.graphics", MHZ),
                    q("Memory", "clocks.applications.memory", MHZ),
                ],
            ),
            s(
                "Default Applications Clocks",
                &[
                    q("Graphics", "clocks.default_applications.graphics", MHZ),
                    q("Memory", "clocks.default_applications.memory", MHZ),
                ],
            ),
            s("Deferred Clocks", &[f("Memory", none, "")]),
            s(
                "Max Clocks",
                &[
                    q("Graphics", "clocks.max.graphics", MHZ),
                    q("SM", "clocks.max.sm", MHZ),
                    q("Memory", "clocks.max.memory", MHZ),
                    f("Video", g::max_clock_video, MHZ),
                ],
            ),
            s(
                "Max Customer Boost Clocks",
                &[f("Graphics", g::max_boost_graphics, MHZ)],
            ),
            s(
                "Clock Policy",
                &[
                    f("Auto Boost", |c| g::auto_boost(c, false), ""),
                    f("Auto Boost Default", |c| g::auto_boost(c, true), ""),
                ],
            ),
        ],
    ),
    (
        ALL,
        &[s(
            "Fabric",
            &[
                q("State", "fabric.state", ""),
                q("Status", "fabric.status", ""),
                q("CliqueId", "fabric.cliqueId", ""),
                q("ClusterUUID", "fabric.clusterUuid", ""),
                s("Health", HEALTH),
            ],
        )],
    ),
    (&[D::Pids], &[Decl::Build(g::processes)]),
    (ALL, &[s("Capabilities", &[f("EGM", g::egm, "")])]),
];

/// The class codes: not printed where NVML has no extended PCI info (WDDM).
const CLASS: &[Decl] = &[
    q("Base Classcode", "pci.baseClass", ""),
    q("Sub Classcode", "pci.subClass", ""),
];

const INFOROM_TIME: &[Decl] = &[s("Inforom Time Data", &[f("Time Run", none, "")])];

const ECC_SRAM: &[Decl] = &[s(
    "ECC Errors",
    &[
        s(
            "Volatile",
            &[
                q("SRAM Correctable", "ecc.errors.corrected.volatile.sram", ""),
                q(
                    "SRAM Uncorrectable Parity",
                    "ecc.errors.uncorrected.volatile.sram.parity",
                    "",
                ),
                q(
                    "SRAM Uncorrectable SEC-DED",
                    "ecc.errors.uncorrected.volatile.sram.secded",
                    "",
                ),
                q("DRAM Correctable", "ecc.errors.corrected.volatile.dram", ""),
                q(
                    "DRAM Uncorrectable",
                    "ecc.errors.uncorrected.volatile.dram",
                    "",
                ),
            ],
        ),
        s(
            "Aggregate",
            &[
                q(
                    "SRAM Correctable",
                    "ecc.errors.corrected.aggregate.sram",
                    "",
                ),
                q(
                    "SRAM Uncorrectable Parity",
                    "ecc.errors.uncorrected.aggregate.sram.parity",
                    "",
                ),
                q(
                    "SRAM Uncorrectable SEC-DED",
                    "ecc.errors.uncorrected.aggregate.sram.secded",
                    "",
                ),
                q(
                    "DRAM Correctable",
                    "ecc.errors.corrected.aggregate.dram",
                    "",
                ),
                q(
                    "DRAM Uncorrectable",
                    "ecc.errors.uncorrected.aggregate.dram",
                    "",
                ),
                q(
                    "SRAM Threshold Exceeded",
                    "ecc.errors.uncorrected.aggregate.sram.thresholdExceeded",
                    "",
                ),
            ],
        ),
        s(
            "Aggregate Uncorrectable SRAM Sources",
            &[
                q("SRAM L2", "ecc.errors.uncorrected.aggregate.sram.l2", ""),
                q("SRAM SM", "ecc.errors.uncorrected.aggregate.sram.sm", ""),
                q(
                    "SRAM Microcontroller",
                    "ecc.errors.uncorrected.aggregate.sram.mcu",
                    "",
                ),
                q(
                    "SRAM PCIE",
                    "ecc.errors.uncorrected.aggregate.sram.pcie",
                    "",
                ),
                q(
                    "SRAM Other",
                    "ecc.errors.uncorrected.aggregate.sram.other",
                    "",
                ),
            ],
        ),
        f(
            "Channel Repair Pending",
            |c| g::repair_pending(c, false),
            "",
        ),
        f("TPC Repair Pending", |c| g::repair_pending(c, true), ""),
        f("Unrepairable Memory", none, ""),
    ],
)];

const ECC_PLAIN: &[Decl] = &[s(
    "ECC Errors",
    &[
        s(
            "Volatile",
            &[
                q("SRAM Correctable", "ecc.errors.corrected.volatile.sram", ""),
                q(
                    "SRAM Uncorrectable",
                    "ecc.errors.uncorrected.volatile.sram",
                    "",
                ),
                q("DRAM Correctable", "ecc.errors.corrected.volatile.dram", ""),
                q(
                    "DRAM Uncorrectable",
                    "ecc.errors.uncorrected.volatile.dram",
                    "",
                ),
            ],
        ),
        s(
            "Aggregate",
            &[
                q(
                    "SRAM Correctable",
                    "ecc.errors.corrected.aggregate.sram",
                    "",
                ),
                q(
                    "SRAM Uncorrectable",
                    "ecc.errors.uncorrected.aggregate.sram",
                    "",
                ),
                q(
                    "DRAM Correctable",
                    "ecc.errors.corrected.aggregate.dram",
                    "",
                ),
                q(
                    "DRAM Uncorrectable",
                    "ecc.errors.uncorrected.aggregate.dram",
                    "",
                ),
            ],
        ),
    ],
)];

const BANKS: &str = " bank(s)";

const REMAPPED: &[Decl] = &[s(
    "Remapped Rows",
    &[
        q("Correctable Error", "remapped_rows.correctable", ""),
        q("Uncorrectable Error", "remapped_rows.uncorrectable", ""),
        q("Pending", "remapped_rows.pending", ""),
        q("Remapping Failure Occurred", "remapped_rows.failure", ""),
        s(
            "Bank Remap Availability Histogram",
            &[
                q("Max", "remapped_rows.histogram.max", BANKS),
                q("High", "remapped_rows.histogram.high", BANKS),
                q("Partial", "remapped_rows.histogram.partial", BANKS),
                q("Low", "remapped_rows.histogram.low", BANKS),
                q("None", "remapped_rows.histogram.none", BANKS),
            ],
        ),
    ],
)];

const NO_REMAPPING: &[Decl] = &[Decl::Build(|c| {
    super::collapsed("Remapped Rows", crate::source::gpu::get::not_available(c))
})];

/// Does the GPU report a T.Limit margin? nvidia-smi then names the
/// thresholds after it.
fn tlimit(c: &GpuCtx) -> bool {
    crate::nvml::raw::margin_temperature(&c.raw()).is_ok()
}

const TEMP_TLIMIT: &[Decl] = &[s(
    "Temperature",
    &[
        q("GPU Current Temp", "temperature.gpu", C),
        q("GPU T.Limit Temp", "temperature.gpu.tlimit", C),
        f(
            "GPU Shutdown T.Limit Temp",
            |c| g::threshold(c, T::Shutdown),
            C,
        ),
        f(
            "GPU Slowdown T.Limit Temp",
            |c| g::threshold(c, T::Slowdown),
            C,
        ),
        f(
            "GPU Max Operating T.Limit Temp",
            |c| g::threshold(c, T::GpuMax),
            C,
        ),
        f("GPU Target Temperature", |c| g::threshold(c, T::GpsCurr), C),
        q("Memory Current Temp", "temperature.memory", C),
        f(
            "Memory Max Operating T.Limit Temp",
            |c| g::threshold(c, T::MemoryMax),
            C,
        ),
    ],
)];

const TEMP_PLAIN: &[Decl] = &[s(
    "Temperature",
    &[
        q("GPU Current Temp", "temperature.gpu", C),
        q("GPU Current T.Limit Temp", "temperature.gpu.tlimit", C),
        f("GPU Shutdown Temp", |c| g::threshold(c, T::Shutdown), C),
        f("GPU Slowdown Temp", |c| g::threshold(c, T::Slowdown), C),
        f("GPU Max Operating Temp", |c| g::threshold(c, T::GpuMax), C),
        f(
            "GPU Target Temperature Specification",
            |c| g::threshold(c, T::GpsCurr),
            C,
        ),
        q("Memory Current Temp", "temperature.memory", C),
        f(
            "Memory Max Operating Temp",
            |c| g::threshold(c, T::MemoryMax),
            C,
        ),
    ],
)];

const POWER_590: &[Decl] = &[s(
    "GPU Power Readings",
    &[
        q("Average Power Draw", "power.draw.average", W),
        q("Instantaneous Power Draw", "power.draw.instant", W),
        q("Current Power Limit", "enforced.power.limit", W),
        q("Requested Power Limit", "power.limit", W),
        q("Default Power Limit", "power.default_limit", W),
        q("Min Power Limit", "power.min_limit", W),
        q("Max Power Limit", "power.max_limit", W),
    ],
)];

const POWER_610: &[Decl] = &[s(
    "GPU Power Readings",
    &[
        q("Average Power Draw", "power.draw.average", W),
        q("Instantaneous Power Draw", "power.draw.instant", W),
        s(
            "GPU Ceiling Power Limit",
            &[
                q("Current Power Limit", "enforced.power.limit", W),
                q("Requested Power Limit", "power.limit", W),
                q("Default Power Limit", "power.default_limit", W),
            ],
        ),
        s(
            "GPU Base Power",
            &[
                f("Current Base Power", none, W),
                f("Requested Base Power", none, W),
                f("Default Base Power", none, W),
            ],
        ),
        q("Min Power Limit", "power.min_limit", W),
        q("Max Power Limit", "power.max_limit", W),
    ],
)];

const HEALTH: &[Decl] = &[
    q("Summary", "fabric.health.summary", ""),
    q("Bandwidth", "fabric.health.bandwidth", ""),
    q(
        "Route Recovery in progress",
        "fabric.health.route_recovery_in_progress",
        "",
    ),
    q("Route Unhealthy", "fabric.health.route_unhealthy", ""),
    q(
        "Access Timeout Recovery",
        "fabric.health.access_timeout_recovery",
        "",
    ),
    q(
        "Incorrect Configuration",
        "fabric.health.incorrect_configuration",
        "",
    ),
    Decl::Pick(|c| {
        if c.driver_major() >= KMD_NAMED_FROM {
            PARTITION
        } else {
            &[]
        }
    }),
];

const PARTITION: &[Decl] = &[q(
    "Partition Assigned",
    "fabric.health.partition_assigned",
    "",
)];
